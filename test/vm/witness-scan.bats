#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/witness-scan.bats - the kernel witness on the host (make
# check-host): its judging half (test/vm/kernel-witness-scan.sh) on made-up
# kernel logs: the window, which test a report belongs to, one report per
# call trace, nested windows, the allow-list; and the whole witness
# (kernel-witness.sh) around a made-up suite with a plain file standing in
# for /dev/kmsg.  The guest's test/vm/witness.bats plants a real one
# through /dev/kmsg.

SCAN="$(cd "$BATS_TEST_DIRNAME" && pwd)/kernel-witness-scan.sh"
N=0123abcd

setup() {
	LOG=$BATS_TEST_TMPDIR/dmesg
	ALLOW=$BATS_TEST_TMPDIR/allow
	: > "$ALLOW"
}

# log LINE...: the kernel log, as dmesg prints it (time stamps added)
log() {
	local l t=100
	for l in "$@"; do
		printf '[%5d.%06d] %s\n' "$t" 42 "$l"
		t=$((t + 1))
	done > "$LOG"
}

scan() {
	run "$SCAN" "$LOG" verbs-x "$N" "$ALLOW"
	echo "$output"
	[ "$status" -eq 0 ]
}

# the kernel's report of a WARN in rxe, with its call trace
WARN=("WARNING: CPU: 1 PID: 812 at drivers/infiniband/sw/rxe/rxe_pool.c:256 __rxe_cleanup+0x97/0xb0 [rdma_rxe]"
	"Modules linked in: rdma_rxe ib_uverbs"
	"Call Trace:"
	" <TASK>"
	" ? __warn+0x81/0x130"
	" rxe_dealloc_mw+0x27/0x70 [rdma_rxe]"
	" ib_uverbs_dealloc_mw+0x5d/0x90 [ib_uverbs]"
	" </TASK>"
	"---[ end trace 0000000000000000 ]---")

@test "kernel-witness: a clean window passes and counts its tests" {
	log "WARNING: before the window is not ours" \
		"dat-witness $N: start verbs-x" \
		"rdma_rxe: loaded" \
		"dat-witness $N: done ok 1 - a" \
		"dat-witness $N: done ok 2 - b # SKIP no device" \
		"dat-witness $N: end verbs-x" \
		"BUG: after the window is not ours either"
	scan
	[ "$output" = "1..1
ok 1 - kernel-witness: verbs-x: no WARNING, BUG, refcount or use-after-free report in the kernel log (2 tests)" ]
}

# (bats --timing, as the test bed runs every suite, ends a result line
# with " in Nms": not part of the name)
@test "kernel-witness: a report belongs to the test whose result comes next; one per call trace" {
	log "dat-witness $N: start verbs-x" \
		"dat-witness $N: done ok 1 - first" \
		"refcount_t: underflow; use-after-free." "${WARN[@]}" \
		"dat-witness $N: done not ok 2 second one in 1234ms" \
		"dat-witness $N: done ok 3 - third" \
		"general protection fault, probably for non-canonical address" \
		"dat-witness $N: end verbs-x"
	scan
	[ "${lines[0]}" = "1..2" ]
	[ "${lines[1]}" = "not ok 1 - kernel-witness: verbs-x: in test 2 'second one': refcount_t: underflow; use-after-free." ]
	[ "${lines[2]}" = "not ok 2 - kernel-witness: verbs-x: after the last test (teardown_file or exit): general protection fault, probably for non-canonical address" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "kernel-witness: each of WARNING:, BUG:, kernel BUG at, use-after-free, UBSAN: is a report" {
	local l
	for l in "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2" "BUG: unable to handle page fault" \
		"kernel BUG at mm/slub.c:1!" "KASAN: slab-use-after-free in f+0x1/0x2" \
		"UBSAN: shift-out-of-bounds in x.c:3"; do
		log "dat-witness $N: start verbs-x" "$l" \
			"dat-witness $N: done ok 1 - t" "dat-witness $N: end verbs-x"
		scan
		[ "${lines[1]}" = "not ok 1 - kernel-witness: verbs-x: in test 1 't': $l" ]
	done
}

@test "kernel-witness: a nested witness's window is left to it" {
	log "dat-witness $N: start verbs-x" \
		"dat-witness feed: start fake" \
		"WARNING: CPU: 0 PID: 1 at fake.c:1 planted+0x1/0x2" \
		"dat-witness feed: done ok 1 - planted" \
		"dat-witness feed: end fake" \
		"dat-witness $N: done ok 1 - self-test" \
		"dat-witness $N: end verbs-x"
	scan
	grep -q '^ok 1 - kernel-witness: verbs-x: no WARNING.* (1 tests)$' <<< "$output"
}

@test "kernel-witness: the allow-list matches the function in the call trace and the test" {
	log "dat-witness $N: start verbs-x" "${WARN[@]}" \
		"dat-witness $N: done ok 1 - rmr-lifetime: rebind" \
		"${WARN[@]}" \
		"dat-witness $N: done ok 2 - other" \
		"dat-witness $N: end verbs-x"
	printf '%s\n' "# comment line" "" \
		"rxe_dealloc_mw | 'rmr-lifetime: rebind' | the driver's, see commit X  # why" > "$ALLOW"
	scan
	[ "${lines[0]}" = "1..2" ]
	[ "${lines[1]}" = "ok 1 - kernel-witness: verbs-x: allowed by allow-list line 3 (rxe_dealloc_mw: the driver's, see commit X): in test 1 'rmr-lifetime: rebind': ${WARN[0]}" ]
	[ "${lines[2]}" = "not ok 2 - kernel-witness: verbs-x: in test 2 'other': ${WARN[0]}" ]
	# a function the trace does not name lets nothing through
	echo "rxe_dealloc_m | verbs-x | prefix only" > "$ALLOW"
	scan
	[ "$(grep -c '^not ok' <<< "$output")" -eq 2 ]
}

@test "kernel-witness: a malformed allow-list line fails the suite" {
	log "dat-witness $N: start verbs-x" "dat-witness $N: end verbs-x"
	printf '%s\n' "rxe_dealloc_mw | verbs-x" > "$ALLOW"
	scan
	[ "${lines[1]}" = "not ok 1 - kernel-witness: verbs-x: malformed allow-list line(s) 1 in $ALLOW (want: function | test | why)" ]
}

@test "kernel-witness: a window whose markers are missing fails" {
	log "dat-witness $N: done ok 1 - t" "dat-witness $N: end verbs-x"
	scan
	grep -q '^not ok 1 - kernel-witness: verbs-x: its start marker is not in the kernel log' <<< "$output"
	log "dat-witness $N: start verbs-x" "dat-witness $N: done ok 1 - t"
	scan
	grep -q '^not ok 1 - kernel-witness: verbs-x: its end marker is not in the kernel log$' <<< "$output"
	# another suite's or another nonce's markers are not ours
	log "dat-witness $N: start verbs-y" "dat-witness ffff: start verbs-x" \
		"dat-witness $N: end verbs-x"
	scan
	grep -q '^not ok 1 - kernel-witness: verbs-x: its start marker' <<< "$output"
}

@test "kernel-witness: the wrapper marks each result, keeps the suite's exit status, names the test" {
	local fake=$BATS_TEST_TMPDIR/fake.bats r=$BATS_TEST_TMPDIR/results
	export KERNEL_WITNESS_KMSG=$BATS_TEST_TMPDIR/kmsg
	: > "$KERNEL_WITNESS_KMSG"
	# (no line of this file may start with @test: bats would rewrite it)
	printf '%s\n' \
		'@test "first" {' 'true' '}' \
		'@test "second writes a report" {' \
		'echo "WARNING: CPU: 0 PID: 1 at x.c:1 planted+0x1/0x2" >> "$KERNEL_WITNESS_KMSG"' '}' \
		'@test "third fails" {' 'false' '}' > "$fake"
	# a bats inside bats must not see the outer one's BATS_* variables
	# shellcheck disable=SC2046
	run "$(dirname "$SCAN")/kernel-witness.sh" "$r" fake \
		env $(compgen -e | grep '^BATS_' | sed 's/^/-u /') bats --tap "$fake"
	echo "$output"
	# the suite's own TAP passes through, and its failure with it
	[ "$status" -eq 1 ]
	[ "$(grep -c '^ok ' <<< "$output")" -eq 2 ]
	grep -q '^not ok 3 third fails' <<< "$output"
	cat "$r/kernel-witness-fake.tap"
	[ "$(cat "$r/kernel-witness-fake.tap")" = "1..1
not ok 1 - kernel-witness: fake: in test 2 'second writes a report': WARNING: CPU: 0 PID: 1 at x.c:1 planted+0x1/0x2" ]
	grep -q "^kernel-witness: fake: the kernel log has reports (kept in $r/kernel-witness-fake.log):" <<< "$output"
	# a start, three results and an end were marked
	[ "$(grep -c '^dat-witness [0-9a-f]*: done ' "$KERNEL_WITNESS_KMSG")" -eq 3 ]
	[ "$(grep -c '^dat-witness [0-9a-f]*: \(start\|end\) fake$' "$KERNEL_WITNESS_KMSG")" -eq 2 ]
}
