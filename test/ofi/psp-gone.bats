#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/psp-gone.bats - a CR answered after its PSP was freed
# (test/verbs/vt_cm.c psp-gone-reject): dat_psp_free(3DAT) leaves the CRs
# it made valid, and their reject must reach the client as PEER_REJECTED
# at once, not as a connect timeout.  Over tcpmsg (providers/ofi/msg.c)
# the freed listener's passive endpoint stays open until that reject
# (fi_reject needs it), and a PSP created on its qualifier meanwhile takes
# it over.  Over tcp;ofi_rxm and shm (providers/ofi/rdm.c) the reject goes
# from the server's control endpoint, and the new PSP's listener over shm
# is the freed one's lingering endpoint (ofi_lep_linger).  Over tcp,
# shm, tcpmsg and (in the soft-RoCE guest) verbs;ofi_rxm: see
# OFI_SUITES_* in providers/ofi/ofi.mk for what failed before.

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: a CR rejected after its PSP was freed (another PSP on its qualifier meanwhile): the client gets PEER_REJECTED, not a timeout; the new PSP serves" {
	pair psp-gone-reject
}
