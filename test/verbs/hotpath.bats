#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/hotpath.bats - the DAT hot path adds nothing to raw verbs
# (issue 4): for N posts and completions, the system calls (strace) and
# the allocations of hotpath-dat's loop equal those of hotpath-verbs' loop
# (the same operations through libibverbs/librdmacm; on rxe each send
# makes one doorbell write).  See hotpath.h for how the loop is bracketed.

load verbs_helpers

HP="$TOP/build/test/verbs/hotpath"
N=1000

setup_file() {
	verbs_setup_file
	local p
	for p in dat verbs; do
		[ -x "$HP-$p" ] || { echo "$HP-$p is missing: make test-programs" >&2; return 1; }
	done
	command -v strace > /dev/null || { echo "strace is missing (scripts/deps.sh installs it)" >&2; return 1; }
	# the raw verbs baseline, measured once for both tests
	measure verbs
	printf '%s\n' "$CALLS" > "$BATS_FILE_TMPDIR/verbs.calls"
	echo "$TOTAL $ALLOCS" > "$BATS_FILE_TMPDIR/verbs.totals"
}

# baseline: the raw verbs loop's V_CALLS, V_TOTAL, V_ALLOCS (setup_file)
baseline() {
	V_CALLS=$(cat "$BATS_FILE_TMPDIR/verbs.calls")
	read -r V_TOTAL V_ALLOCS < "$BATS_FILE_TMPDIR/verbs.totals"
	# the baseline is real: at least one doorbell per send
	[ "$V_TOTAL" -ge "$N" ]
}

# syscalls TRACE: "name count" per system call made between the markers,
# by any thread (a call unfinished at a thread switch counts once), sorted;
# then "markers N" (2 when both were found).
syscalls() {
	awk '
	/access\("\/hotpath\/begin"/ { on = 1; m++; next }
	/access\("\/hotpath\/end"/ { on = 0; m++; next }
	on && !/resumed>/ && match($0, /^[0-9]+ +[a-z_0-9]+\(/) {
		x = substr($0, RSTART, RLENGTH)
		sub(/^[0-9]+ +/, "", x); sub(/\($/, "", x)
		c[x]++
	}
	END { for (k in c) print k, c[k] | "sort"; close("sort"); print "markers", m + 0 }
	' "$1"
}

# measure dat|verbs: runs it under strace; sets CALLS (table), TOTAL, ALLOCS
measure() {
	local p=$1 trace="${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/$1.trace"
	run "$QT" -t "$(secs 1000)" "$(secs 100)" strace -f -qq -o "$trace" "$HP-$p" "$N"
	echo "--- hotpath-$p exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	ALLOCS=$(sed -n 's/^allocations \([0-9][0-9]*\)$/\1/p' <<< "$output")
	[ -n "$ALLOCS" ]
	CALLS=$(syscalls "$trace")
	echo "--- hotpath-$p: system calls in the loop:"
	echo "$CALLS"
	grep -q '^markers 2$' <<< "$CALLS"
	TOTAL=$(awk '$1 != "markers" { t += $2 } END { print t + 0 }' <<< "$CALLS")
	echo "total $TOTAL, allocations $ALLOCS"
}

@test "hot path: $N post_send/post_recv/dequeue rounds through DAT make the system calls and allocations of raw verbs" {
	baseline
	measure dat
	[ "$TOTAL" -eq "$V_TOTAL" ]
	[ "$CALLS" = "$V_CALLS" ]
	[ "$ALLOCS" -eq "$V_ALLOCS" ]
	# opened nonthreadsafe (the dat_ia_open macro), and so reported
	[ "$(grep -c ' is_thread_safe 0$' <<< "$output")" -eq 2 ]
}

# DAPL_NONTHREADSAFE_NOLOCK=1 (README, dat_ia_openv(3)): hotpath-dat's IAs
# are opened nonthreadsafe (the dat_ia_open macro), so its posts and
# dequeues then take no lock; still nothing but the doorbells.  With it
# or without it, dat_ia_query says is_thread_safe 0, the thread safety
# the IAs were opened with (dat_ia_query(3): "is_thread_safe").
@test "hot path with DAPL_NONTHREADSAFE_NOLOCK=1: no lock, the same system calls and allocations, is_thread_safe DAT_FALSE as opened" {
	baseline
	DAPL_NONTHREADSAFE_NOLOCK=1 measure dat
	[ "$(grep -c ' is_thread_safe 0$' <<< "$output")" -eq 2 ]
	[ "$TOTAL" -eq "$V_TOTAL" ]
	[ "$CALLS" = "$V_CALLS" ]
	[ "$ALLOCS" -eq "$V_ALLOCS" ]
}
