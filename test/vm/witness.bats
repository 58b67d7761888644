#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/witness.bats - self-test of the kernel witness
# (test/vm/kernel-witness.sh), inside the soft-RoCE guest (make check-verbs):
# a made-up suite writes a fake kernel warning to /dev/kmsg, and the witness
# must fail that suite, naming the test that wrote it.  The witness around
# this suite leaves these nested runs to the nested witness (their own
# markers), so the planted reports do not fail this suite itself.

TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SCALE=${TEST_TIMEOUT_SCALE:-1}
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
	FAKE=$BATS_TEST_TMPDIR/fake.sh
	# the project's allow-list, which names no planted function
	unset KERNEL_WITNESS_ALLOW
}

# fake_suite [LINE1 [LINE2 [LINE3]]]: a suite of three passing tests
# ("test N of TAG", TAG its argument), the Nth writing LINEN (if not empty)
# to the kernel log, as the kernel would print a report, before its result
# line.  A plain script that speaks TAP, not a nested bats: the witness
# reads only the TAP, and a bats process costs the emulated guest about 100
# program starts (two nested runs were 40 of this suite's 54 s).  Unlike
# bats between its tests, the script would write test 2's line before the
# witness marked test 1's result; so each test first waits until the
# witness's "done" marker of the one before is in the log (reading
# /dev/kmsg blocks until the next record comes; a plain file is read again),
# at most a minute (scaled): a marker that never comes fails the test.
fake_suite() {
	local n
	{
		cat <<-END
		tag=\$1
		marked() {
			if [ '$KMSG' = /dev/kmsg ]; then
				timeout $((60 * SCALE)) grep -qF -m1 "done ok \$1 - test \$1 of \$tag" /dev/kmsg
			else
				timeout $((60 * SCALE)) sh -c 'until grep -qF "done ok \$1 - test \$1 of \$2" "\$3"; do sleep 0.1; done' - "\$1" "\$tag" '$KMSG'
			fi
		}
		echo 1..3
		END
		for n in 1 2 3; do
			[ "$n" -eq 1 ] || echo "marked $((n - 1)) || exit"
			[ -z "${!n:-}" ] || printf "printf '%%s\\n' '%s' >> '%s'\n" "${!n}" "$KMSG"
			echo "echo \"ok $n - test $n of \$tag\""
		done
	} > "$FAKE"
}

# has_line PREFIX: whether a line of standard input starts with PREFIX (as
# text: TAG's brackets are not a pattern)
has_line() {
	awk -v p="$1" 'index($0, p) == 1 { found = 1 } END { exit !found }'
}

# witness: the fake suite under the witness, its tests named with a new
# TAG; its TAP in $output, the witness's verdict in $VERDICT
witness() {
	TAG="[fake $$.$RANDOM]"
	run "$WITNESS" "$R" fake bash "$FAKE" "$TAG"
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
	has_line "not ok 1 - kernel-witness: fake: in test 2 'test 2 of $TAG': WARNING: CPU: 0 PID: $$ at fake/witness.c:18 kernel_witness_selftest" <<< "$VERDICT"
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
	has_line "ok 1 - kernel-witness: fake: allowed by allow-list line 1 (kernel_witness_selftest: planted by the self-test): in test 2 'test 2 of $TAG': " <<< "$VERDICT"
	[ "$(grep -c '^ok ' <<< "$VERDICT")" -eq 1 ]
}
