#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/stopped-nocma.bats - stopped.bats's RDMA write to a stopped
# target over shm without CMA (FI_SHM_DISABLE_CMA=1: libfabric's shm then
# makes the write a command for the target's library, and the provider
# asks for delivery completion, providers/ofi/ep.c ofi_write_flags): no
# completion while the target is stopped, then one, the data in the
# target's LMR.  Over shm only (OFI_SUITES_shm).

load stopped_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: stopped target without CMA (FI_SHM_DISABLE_CMA=1): the RDMA write waits for the stopped target, then completes with its data there" {
	export FI_SHM_DISABLE_CMA=1
	stopped waits
}
