#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/witness.bats - self-test of the kernel witness
# (test/vm/kernel-witness.sh), inside the soft-RoCE guest (make check-verbs):
# a made-up suite writes a fake kernel warning to /dev/kmsg, and the witness
# must fail that suite, naming the test that wrote it.  The witness around
# this suite leaves these nested runs to the nested witness (their own
# markers), so the planted reports do not fail this suite itself.

TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
WITNESS=$TOP/test/vm/kernel-witness.sh

# KMSG: the kernel's /dev/kmsg; KERNEL_WITNESS_KMSG (a plain file) stands
# in for it when checking this suite itself outside the guest
KMSG=${KERNEL_WITNESS_KMSG:-/dev/kmsg}

setup_file() {
	# never plant warnings in a real machine's kernel log
	[ "$KMSG" != /dev/kmsg ] && return 0
	if [ "${VM_GUEST:-}" != 1 ] || [ ! -w /dev/kmsg ]; then
		echo "not in the test VM, or /dev/kmsg not writable: run in the test VM (make check-verbs)" >&2
		return 1
	fi
}

setup() {
	R=$BATS_TEST_TMPDIR/results
	FAKE=$BATS_TEST_TMPDIR/fake.bats
	# the project's allow-list, which names no planted function
	unset KERNEL_WITNESS_ALLOW
}

# fake_suite LINE: a suite of three passing tests; the second writes LINE
# (if any) to the kernel log, as the kernel would print a report
fake_suite() {
	# (no line of this file may start with @test: bats would rewrite it)
	printf '%s\n' \
		'@test "first, quiet" {' 'true' '}' \
		'@test "second, the one that provokes it" {' \
		"[ -z '$1' ] || printf '%s\\n' '$1' >> '$KMSG'" '}' \
		'@test "third, quiet" {' 'true' '}' > "$FAKE"
}

# witness: the fake suite under the witness; its TAP in $output, the
# witness's verdict in $VERDICT
witness() {
	# a bats inside bats must not see this one's BATS_* variables
	# shellcheck disable=SC2046
	run "$WITNESS" "$R" fake \
		env $(compgen -e | grep '^BATS_' | sed 's/^/-u /') bats --tap "$FAKE"
	echo "$output"
	VERDICT=$(cat "$R/kernel-witness-fake.tap")
	echo "--- verdict:"
	echo "$VERDICT"
}

@test "kernel-witness: a fake WARNING written to /dev/kmsg fails the suite, naming the test" {
	fake_suite "WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest+0x12/0x40 [fake]"
	witness
	# the suite itself passed; only the witness fails it
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ok ' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^not ok' <<< "$VERDICT")" -eq 1 ]
	grep -q "^not ok 1 - kernel-witness: fake: in test 2 'second, the one that provokes it': WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest" <<< "$VERDICT"
	# and the summary of the results counts it as a failure
	run "$TOP/test/lib/summary.sh" "$R"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^FAILED in kernel-witness-fake:' <<< "$output"
}

@test "kernel-witness: refcount underflow, use-after-free and BUG: reports fail it too" {
	local l
	for l in "refcount_t: underflow; use-after-free." \
		"BUG: KASAN: slab-use-after-free in kernel_witness_selftest+0x1/0x2" \
		"kernel BUG at fake/witness.c:42!"; do
		fake_suite "$l"
		witness
		[ "$status" -eq 0 ]
		grep -qF "not ok 1 - kernel-witness: fake: in test 2 'second, the one that provokes it': $l" <<< "$VERDICT"
	done
}

@test "kernel-witness: a suite that leaves nothing in the kernel log passes" {
	fake_suite ""
	witness
	[ "$status" -eq 0 ]
	[ "$VERDICT" = "1..1
ok 1 - kernel-witness: fake: no WARNING, BUG, refcount or use-after-free report in the kernel log (3 tests)" ]
}

@test "kernel-witness: an allow-list entry lets exactly its function in its test through" {
	fake_suite "WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest+0x12/0x40 [fake]"
	echo "kernel_witness_selftest | fake: test 2 | planted by the self-test" \
		> "$BATS_TEST_TMPDIR/allow"
	KERNEL_WITNESS_ALLOW=$BATS_TEST_TMPDIR/allow witness
	[ "$status" -eq 0 ]
	[ "$(grep -c '^not ok' <<< "$VERDICT")" -eq 0 ]
	grep -q "^ok 1 - kernel-witness: fake: allowed by allow-list line 1 (kernel_witness_selftest: planted by the self-test): in test 2 " <<< "$VERDICT"
	# the same function in another test is not allowed
	echo "kernel_witness_selftest | fake: test 3 | planted by the self-test" \
		> "$BATS_TEST_TMPDIR/allow"
	KERNEL_WITNESS_ALLOW=$BATS_TEST_TMPDIR/allow witness
	grep -q "^not ok 1 - kernel-witness: fake: in test 2 " <<< "$VERDICT"
}
