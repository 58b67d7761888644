#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/fork.bats - fork while other threads use the provider (issue 17,
# item 7), natively over libfabric (OFI_FABRIC, tcp or shm): each child, forked while 4 threads
# of the parent open, post and close IAs (and the parent holds one), opens
# its own IA, creates and frees objects, lists the registry and exits.  A
# child that inherited a lock held by a thread it does not have hangs and
# ends by its alarm, which fails the test.

load ofi_helpers

STRESS="$TOP/build/test/verbs/dattest-stress"

setup_file() {
	ofi_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
}

@test "$OFI_FABRIC: fork storm: 100 children forked while 4 threads open, post and close $OFI_A IAs; each opens its own IA and exits" {
	marker="$BATS_TEST_TMPDIR/start"
	touch "$marker"
	# DAPL_OFI_SHM_SWEEP=0: no child removes the regions of children
	# gone before it (shm_sweep.c), which would hide a leak from the
	# check below
	run env DAPL_OFI_SHM_SWEEP=0 "$QT" -t "$(secs 3000)" "$(secs 300)" "$STRESS" forkstorm server -i "$OFI_A" -p 4 -n 100
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^forkstorm: 100 forks, 0 children failed; 4 threads, [1-9][0-9]* IA lives, 0 failed$' <<< "$output"
	grep -q '^PASS$' <<< "$output"
	# each child closed the IA it opened for real, not forgetting it as
	# a parent's: over shm an endpoint left open keeps its region,
	# /dev/shm/<pid>:<uid>:<index>, after the process is gone (and a
	# later process given that pid could not open its own); files of an
	# earlier process that had the same pid are older than the storm
	pids=$(sed -n 's/^forkstorm: child [0-9]* pid \([0-9]*\)$/\1/p' <<< "$output")
	[ "$(wc -w <<< "$pids")" -eq 100 ]
	left=0
	for p in $pids; do
		for f in /dev/shm/"$p":*; do
			[ "$f" -nt "$marker" ] && { echo "left behind: $f"; left=$((left + 1)); }
		done
	done
	[ "$left" -eq 0 ]
}
