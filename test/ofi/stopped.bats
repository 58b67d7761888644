#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/stopped.bats - an RDMA write to a target process that is
# stopped (SIGSTOP), so that its library cannot run: the write completes
# only once its data is in the target's memory.  dat_ep_post_rdma_write
# (3DAT): the function "requests the transfer of all the data specified by
# the local_iov over the connection of the ep_handle Endpoint into the
# remote_buffer", and its completion reports that transfer (README: a
# write completes once its data is at the target).  Over shm with CMA,
# libfabric writes into the stopped process itself (process_vm_writev,
# providers/ofi/ep.c ofi_write_flags): the write completes at once, and
# the target that calls nothing costs it no wake-up (issues 35, 38).
# Elsewhere (tcp;ofi_rxm, tcp MSG, shm without CMA) the target's library
# must take the data: no completion while it is stopped, then one.  The
# server checks the data in its LMR after the connection ended.
# (test/ofi/errors.c "stopped"; over tcp, tcp MSG and shm: OFI_SUITES_*;
# over shm without CMA: stopped-nocma.bats.)

load stopped_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: stopped target: a 64 KiB RDMA write completes only once its data is in the target's memory (shm with CMA: while the target is stopped; elsewhere: after it continued)" {
	if [ "$OFI_FABRIC" = shm ]; then
		stopped done
	else
		stopped waits
	fi
}
