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

# fake_suite [LINE1 [LINE2 [LINE3]]]: a suite of three passing tests, the
# Nth writing LINEN (if not empty) to the kernel log, as the kernel would
# print a report
fake_suite() {
	local n body=()
	for n in 1 2 3; do
		# (no line of this file may start with @test: bats would rewrite it)
		body+=("@test \"test $n\" {" "true" '}')
		[ -z "${!n:-}" ] || body[${#body[@]} - 2]="printf '%s\\n' '${!n}' >> '$KMSG'"
	done
	printf '%s\n' "${body[@]}" > "$FAKE"
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

# (The other kinds of report, refcount underflow, use-after-free, BUG:,
# kernel BUG at and UBSAN:, are the same lines of the same log to the
# witness: test/vm/witness-scan.bats checks each one on the host.  Their
# own nested run here cost 21 s of the guest with nothing beside it.)

# (That a suite which leaves nothing in the kernel log passes is what
# every other suite's own witness line in make check-verbs shows, "ok 1 -
# kernel-witness: NAME: no WARNING, ..."; test/vm/witness-scan.bats
# checks it on the host.  A nested run of its own cost 9 s of the guest.)

# A WARNING fails the suite, naming its test, unless an allow-list entry
# names its function in that test: one nested run with an entry for
# another test (the project's own allow-list names no planted function
# either), one with the entry for its test.
@test "kernel-witness: a fake WARNING written to /dev/kmsg fails the suite, naming the test; an allow-list entry lets exactly its function in its test through" {
	fake_suite "" "WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest+0x12/0x40 [fake]"
	# the same function in another test is not allowed
	echo "kernel_witness_selftest | fake: test 3 | planted by the self-test" \
		> "$BATS_TEST_TMPDIR/allow"
	KERNEL_WITNESS_ALLOW=$BATS_TEST_TMPDIR/allow witness
	# the suite itself passed; only the witness fails it
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ok ' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^not ok' <<< "$VERDICT")" -eq 1 ]
	grep -q "^not ok 1 - kernel-witness: fake: in test 2 'test 2': WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest" <<< "$VERDICT"
	# and the summary of the results counts it as a failure
	run "$TOP/test/lib/summary.sh" "$R"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^FAILED in kernel-witness-fake:' <<< "$output"

	rm -r "$R"
	echo "kernel_witness_selftest | fake: test 2 | planted by the self-test" \
		> "$BATS_TEST_TMPDIR/allow"
	KERNEL_WITNESS_ALLOW=$BATS_TEST_TMPDIR/allow witness
	[ "$status" -eq 0 ]
	[ "$(grep -c '^not ok' <<< "$VERDICT")" -eq 0 ]
	grep -q "^ok 1 - kernel-witness: fake: allowed by allow-list line 1 (kernel_witness_selftest: planted by the self-test): in test 2 " <<< "$VERDICT"
}
