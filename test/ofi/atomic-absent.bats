#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/atomic-absent.bats - an IA without atomics: over tcpmsg
# (libfabric's tcp alone, FI_EP_MSG: tcp offers no FI_ATOMIC) the atomic
# extension is reported absent and never faked: dat_ia_query's provider
# attributes DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP say FALSE and
# both calls answer DAT_MODEL_NOT_SUPPORTED (test/verbs/atomic.c
# atomic-absent, as the verbs suite runs it with DAPL_CMA_DISABLE=atomic).
# make check-ofi runs it on tcpmsg instead of atomic.bats, whose cases
# need atomics.

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: atomic: no atomics on $OFI_A (libfabric's tcp MSG has none): attributes FALSE, both calls DAT_MODEL_NOT_SUPPORTED" {
	[ "$OFI_ATOMICS" = 0 ]
	local_test atomic-absent local -i "$OFI_A"
}

@test "$OFI_FABRIC: atomic: the same on $OFI_B, the client side" {
	local_test atomic-absent local -i "$OFI_B"
}
