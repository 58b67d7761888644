#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/shm-sweep.bats - over shm, a process killed (SIGKILL) or
# crashed leaves its regions in /dev/shm: its control endpoint's
# (<pid>:<uid>:<index>) and its listeners' (dat-<IP>-<port>).  The next
# process that opens an shm IA removes the regions of processes that are
# gone (providers/ofi/shm_sweep.c ofi_shm_sweep_dead).  Before it, make
# check-ofi left such a pair at every run (connect.bats' stopped server,
# which then died in libfabric).  Over shm only (OFI_SUITES_shm in
# providers/ofi/ofi.mk).

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: a server killed (SIGKILL) while it listened leaves its regions; the next process that opens an shm IA removes them" {
	local pid left
	start_server connect
	wait_listening
	# the server itself, not its timeout wrapper
	pid=$(pgrep -P "$SRV_PID")
	[ -n "$pid" ]
	kill -KILL "$pid"
	wait_server
	[ "$SRV_RC" -ne 0 ]
	# what the killed server left (its exit could clean nothing)
	ls -l /dev/shm/"$pid":* "/dev/shm/dat-$DATTEST_SERVER_ADDR-$QUAL"
	# another process, on the other IA
	local_test query local -i "$OFI_B" -a "$DATTEST_CLIENT_ADDR"
	left=$(find /dev/shm -maxdepth 1 \( -name "$pid:*" -o \
		-name "dat-$DATTEST_SERVER_ADDR-$QUAL" \) | wc -l)
	echo "regions of the killed server left: $left"
	[ "$left" -eq 0 ]
}
