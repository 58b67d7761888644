#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/lib/quiet-timeout.c, the bound of the suites' test programs (issue
# 34: "a watchdog that fires only when no output or progress has been seen
# for a while"): a program that keeps printing runs past the limit, a
# silent one is stopped at it; statuses, output and signals pass through
# as with timeout(1).  The intervals are wide (a line every 0.2-0.5 s
# against limits of 2-5 s), so that a busy machine does not decide.

bats_require_minimum_version 1.5.0
load helpers
load ../lib/wait

QT="$DATTEST_BUILD/test/lib/quiet-timeout"
secs() { echo "$1"; } # wait_line's scaling

@test "a program that prints a line every half second runs 6 s under a 5 s silence limit, its output whole" {
	run "$QT" 5 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "line $i"; sleep 0.5; done'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^line ')" -eq 12 ]
	[ "${lines[11]}" = "line 12" ]
}

@test "a silent program is stopped after the silence limit: exit 124, says so, and is gone" {
	local pidfile=$BATS_TEST_TMPDIR/pid
	run "$QT" -k 1 1 sh -c "echo \$\$ > '$pidfile'; echo started; exec sleep 60"
	echo "$output"
	[ "$status" -eq 124 ]
	[ "${lines[0]}" = started ]
	grep -q '^quiet-timeout: sh printed nothing for 1 s: stopped$' <<< "$output"
	! kill -0 "$(cat "$pidfile")" 2> /dev/null
}

@test "-t: a program that never stops printing is stopped at its age limit" {
	run "$QT" -k 1 -t 2 30 sh -c 'while :; do echo x; sleep 0.2; done'
	[ "$status" -eq 124 ]
	grep -q '^quiet-timeout: sh ran for 2 s: stopped$' <<< "$output"
}

@test "exit statuses pass through: 0, 3, 128 + the signal, 127 for a missing program" {
	run "$QT" 5 true
	[ "$status" -eq 0 ]
	run "$QT" 5 sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run "$QT" 5 sh -c 'kill -9 $$'
	[ "$status" -eq 137 ]
	run -127 "$QT" 5 /nonexistent/program
	[ "$status" -eq 127 ]
	grep -q 'quiet-timeout: /nonexistent/program: No such file or directory' <<< "$output"
}

@test "usage errors exit 125" {
	run "$QT"
	[ "$status" -eq 125 ]
	run "$QT" 5
	[ "$status" -eq 125 ]
	run "$QT" zero true
	[ "$status" -eq 125 ]
	run "$QT" -t -1 5 true
	[ "$status" -eq 125 ]
}

@test "one file for output and error keeps their order; two files get each its own" {
	run "$QT" 5 sh -c 'echo 1; echo 2 >&2; echo 3; echo 4 >&2'
	[ "$output" = "$(printf '1\n2\n3\n4')" ]
	"$QT" 5 sh -c 'echo out; echo err >&2' > "$BATS_TEST_TMPDIR/o" 2> "$BATS_TEST_TMPDIR/e"
	[ "$(cat "$BATS_TEST_TMPDIR/o")" = out ]
	[ "$(cat "$BATS_TEST_TMPDIR/e")" = err ]
}

@test "SIGTERM to quiet-timeout goes on to the program (a test's teardown killing its server)" {
	local out=$BATS_TEST_TMPDIR/out pid rc=0
	"$QT" 30 sh -c 'trap "echo got TERM; exit 7" TERM; echo ready; while :; do sleep 0.1; done' > "$out" 2>&1 &
	pid=$!
	wait_line "$out" "$pid" ready 30
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	cat "$out"
	[ "$rc" -eq 7 ]
	grep -q '^got TERM$' "$out"
}

@test "what the program's children print after it ended is passed on" {
	run "$QT" 5 sh -c '(sleep 0.3; echo late) & echo early'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'early\nlate')" ]
}
