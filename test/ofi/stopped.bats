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
# (test/ofi/errors.c "stopped"; over tcp, tcp MSG and shm: OFI_SUITES_*.)

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-errors"

setup_file() { ofi_setup_file; }

# stopped EXPECT: the test with the server stopped after "have target";
# EXPECT done (the write completes while it is stopped) or waits (it
# completes once the server continued, after "write waits")
stopped() {
	local cout="$BATS_TEST_TMPDIR/client.out" go="$BATS_TEST_TMPDIR/go" crc=0 spid cpid
	start_server stopped
	wait_listening
	spid=$(pgrep -P "$SRV_PID" -x dattest-ofi-err)
	[ -n "$spid" ]
	DATTEST_GO="$go" DATTEST_EXPECT="$1" \
		"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" stopped client -q "$QUAL" \
		> "$cout" 2>&1 3>&- &
	cpid=$!
	wait_line "$cout" "$cpid" 'have target' 30
	kill -STOP "$spid"
	touch "$go"
	# "write waits": no completion for a second; "write done": the
	# completion came, the server still stopped
	wait_line "$cout" "$cpid" "write $1" 60 || { kill -CONT "$spid"; false; }
	kill -CONT "$spid"
	wait "$cpid" || crc=$?
	echo "--- client ($crc):"
	cat "$cout"
	wait_server
	[ "$crc" -eq 0 ] && grep -q '^PASS$' "$cout"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
	grep -q '^  ok the read-write LMR: the client.s RDMA writes' "$SRV_OUT"
}

@test "$OFI_FABRIC: stopped target: a 64 KiB RDMA write completes only once its data is in the target's memory (shm with CMA: while the target is stopped; elsewhere: after it continued)" {
	if [ "$OFI_FABRIC" = shm ]; then
		stopped done
	else
		stopped waits
	fi
}

@test "$OFI_FABRIC: stopped target without CMA (FI_SHM_DISABLE_CMA=1): the RDMA write waits for the stopped target, then completes with its data there" {
	[ "$OFI_FABRIC" = shm ] || skip "shm only: the other fabrics run the first test that way"
	export FI_SHM_DISABLE_CMA=1
	stopped waits
}
