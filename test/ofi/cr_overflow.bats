#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/cr_overflow.bats - a CR EVD that overflows, over tcp;ofi_rxm,
# tcpmsg and verbs;ofi_rxm in the guest (where libfabric's rxm crashed
# the client now and then until the provider set its completions per
# progress: providers/ofi/ofi.mk, init.c).
# Not over shm (ofi.mk): there the client crashes (SIGSEGV) inside
# libfabric 1.17's shm progress, 3 of 6 runs on 2026-11-26, in the
# engine's fi_cq_read of the control CQ (ctl.c ofi_ctl_drain), after the
# server rejected a request and exited.  The core shows shm's
# smr_progress_connreq: a peer's first message to an endpoint carries its
# region's name, and the receiver maps that region when it progresses;
# the server had exited meanwhile (its region unlinked), the mapping
# failed, and 1.17 goes on to read the pid field (offset 4) of the NULL
# region (faulting instruction: cmp %eax,0x4(%rdi) with rdi 0 and eax a
# pid that is not the client's).  Later libfabric checks the mapping
# ("Could not map peer region") and drops the request.  Nothing here can
# keep a peer from exiting right after its first message: libfabric's.

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: CR EVD overflow: DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD" {
	pair overflow
}
