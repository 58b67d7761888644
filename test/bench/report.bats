#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/report.bats - report.sh's judging of a row (issue 21): the
# spread of each side is half its interquartile range over its median with
# 5 runs or more, half its whole range with fewer; a row is judged only
# when the two spreads added are smaller than its difference from 1.
# Synthetic runs.tsv files, no guest, no timing.

setup() {
	W=$(mktemp -d)
	printf 'date\t2026-11-27 07:00 UTC\nreps\t7\nwindow\t32\ncpus\tserver 0, client 1\n' > "$W/meta.txt"
}

teardown() { rm -rf "$W"; }

# runs ROW STACK FIGURE...: one line of runs.tsv per figure
runs() {
	local row=$1 stack=$2 i=0 f
	shift 2
	for f in "$@"; do
		i=$((i + 1))
		printf '%s\t%s\t%d\t%s\n' "$row" "$stack" "$i" "$f" >> "$W/runs.tsv"
	done
}

# verdict LABEL: the verdict cell of the table row whose operation starts
# with LABEL
verdict() {
	# the tables only: a host suite cannot count on gnuplot
	REPORT_PLOTS=0 test/bench/report.sh "$W" "$W/out" > "$W/log" 2>&1 ||
		{ cat "$W/log"; return 1; }
	grep -F "| $1" "$W/out.md" | head -1 | awk -F'|' '{ print $9 }'
}

# expect_verdict LABEL GLOB: report.sh runs and that row's verdict
# matches GLOB
expect_verdict() {
	local got
	got=$(verdict "$1") || return 1
	echo "$1: $got"
	# shellcheck disable=SC2053
	[[ $got == $2 ]]
}

@test "report.sh: 7 runs, one slow run on each side: the quartiles leave it out, the row is judged (missed: 1.05)" {
	runs send_lat:64 verbs 10.0 10.1 9.9 10.05 9.95 10.0 14.0
	runs send_lat:64 dat 10.5 10.6 10.4 10.55 10.45 10.5 16.0
	expect_verdict "send/recv ping-pong (ib_send_lat) | 64 B" \
		'*\*\*missed\*\* (judged: spread ±1.0% < difference 5.0%)*'
}

@test "report.sh: 7 runs whose quartiles spread more than the difference: not judged" {
	runs read_lat:64 verbs 10 9 11 8 12 10 10
	runs read_lat:64 dat 10.4 9.4 11.4 8.4 12.4 10.4 10.4
	expect_verdict "RDMA read (ib_read_lat) | 64 B" \
		'*not judged: spread ±*% ≥ difference 4.0%; median over target*'
}

@test "report.sh: 3 runs: the whole range is the spread (one slow run keeps the row unjudged)" {
	runs write_lat:64 verbs 10.0 10.0 11.0
	runs write_lat:64 dat 10.5 10.5 11.5
	expect_verdict "RDMA write ping-pong (ib_write_lat) | 64 B" \
		'*not judged: spread ±9.8% ≥ difference 5.0%*'
}

@test "report.sh: a judged latency row within target is met; a judged bandwidth row below 0.98 is missed" {
	runs atomic_fadd:8 verbs 20 20.1 19.9 20 20 20.05 19.95
	runs atomic_fadd:8 dat 20.4 20.5 20.3 20.4 20.4 20.45 20.35
	runs write_bw:4096 verbs 50 50.2 49.8 50 50 50.1 49.9
	runs write_bw:4096 dat 45 45.2 44.8 45 45 45.1 44.9
	expect_verdict "atomic fetch-and-add (ib_atomic_lat -A FETCH_AND_ADD) | 8 B" \
		'*met (judged: spread ±*% < difference 2.0%)*'
	expect_verdict "RDMA write bandwidth (ib_write_bw) | 4 KiB" \
		'*\*\*missed\*\* (judged: spread ±*% < difference 10.0%)*'
}

@test "report.sh: REPORT_PLOTS=0 writes the tables and links no plot it did not draw" {
	runs send_lat:64 verbs 10.0 10.1 9.9 10.05 9.95 10.0 10.0
	runs send_lat:64 dat 10.1 10.2 10.0 10.15 10.05 10.1 10.1
	expect_verdict "send/recv ping-pong (ib_send_lat) | 64 B" '*'
	grep -q '^report: wrote .*(tables only: REPORT_PLOTS=0)$' "$W/log"
	grep -q '^| send/recv ping-pong (ib_send_lat) | 64 B' "$W/out.md"
	[ "$(grep -c '!\[' "$W/out.md")" -eq 0 ]
	[ ! -e "$W/out.png" ]
}
