#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/lib/summary.sh, the suite's last word: the count line, its exit
# status, and what a failed test printed, where CI's log shows it.

load helpers

# results DIR: one suite's TAP and log as run-suite.sh leaves them, with
# one passing and one failing test; the failing one printed a line 21
# times (a client's FAIL for each of its connections), then the server's
# own account, the line that says why
results() {
	local d=$1 i
	mkdir -p "$d/ofi/tcpmsg"
	printf 'ok 1 first in 5ms\nnot ok 2 second in 7ms\n' \
		> "$d/ofi/tcpmsg/connect.tap"
	{
		echo 'ok 1 first in 5ms'
		echo 'not ok 2 second in 7ms'
		echo '# --- client exit status 1; client output:'
		for i in $(seq 21); do
			echo '# FAIL disconnected: event BROKEN, want DISCONNECTED'
		done
		echo '# ok 3 connected'
		echo '# --- server exit status 1; server output:'
		echo '# FAIL the first wrong event, the one that says why'
	} > "$d/ofi/tcpmsg/connect.log"
	echo 3 > "$d/ofi/tcpmsg/connect.secs"
}

@test "summary.sh: a failed test's repeated line is shown once with its count, so that what the server printed after it is shown too; the count line says 1 passed, 1 failed; exit 1" {
	results "$BATS_TEST_TMPDIR/r"
	run "$TOP/test/lib/summary.sh" "$BATS_TEST_TMPDIR/r"
	printf '%s\n' "$output"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "1 passed, 1 failed, 0 skipped" ]
	[ "$(count '^# FAIL disconnected: event BROKEN')" -eq 1 ]
	[ "$(count '^#   (the line above 20 more time(s))$')" -eq 1 ]
	[ "$(count '^#   (1 passing line(s) not shown)$')" -eq 1 ]
	[ "$(count '^# FAIL the first wrong event, the one that says why$')" -eq 1 ]
	[ "$(count '^FAILED in connect:$')" -eq 1 ]
}

@test "summary.sh: nothing failed: exit 0 and the count line, but with CI=true a skip fails; no results at all: exit 1" {
	mkdir -p "$BATS_TEST_TMPDIR/ok/host"
	printf 'ok 1 a in 1ms\nok 2 b # skip no device\n' \
		> "$BATS_TEST_TMPDIR/ok/host/x.tap"
	CI= run "$TOP/test/lib/summary.sh" "$BATS_TEST_TMPDIR/ok"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "1 passed, 0 failed, 1 skipped" ]
	CI=true run "$TOP/test/lib/summary.sh" "$BATS_TEST_TMPDIR/ok"
	[ "$status" -eq 1 ]
	mkdir -p "$BATS_TEST_TMPDIR/none"
	run "$TOP/test/lib/summary.sh" "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 1 ]
}
