#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/judge.bats - test/bench/judge.sh, the rule by which report.sh
# (verbs) and run-bench-ofi.sh (libfabric, issue 35: latency ≤ 1.05 x raw,
# bandwidth ≥ 0.95 x) judge a row from its runs.  Synthetic figures, no
# timing.

setup() {
	# shellcheck source=test/bench/judge.sh
	. test/bench/judge.sh
}

@test "judge.sh: a summary is n, min, median, max and the interpolated quartiles; words are not figures" {
	run judge_summary <<< $'12\n10\nfail\n11\n14\n13'
	[ "$status" -eq 0 ]
	[ "$output" = "5 10.00 12.00 14.00 11.00 13.00" ]
	run judge_summary <<< $'fail\npending'
	[ "$output" = "0" ]
	run judge_summary <<< $'10\n20'
	[ "$output" = "2 10.00 15.00 20.00 12.50 17.50" ]
}

@test "judge.sh: the spread is half the interquartile range with 5 runs, half the whole range with fewer" {
	run judge_spread 5 10 12 14 11 13
	[ "$output" = "0.0833" ]
	run judge_spread 3 10 12 14 11 13
	[ "$output" = "0.1667" ]
	run judge_spread 0 0 0 0 0 0
	[ "$output" = "0" ]
}

@test "judge.sh: tcp's two modes a factor of 2 apart on both sides leave a 1.08 latency row unjudged (libfabric targets)" {
	# runs like read_lat 64 KiB over tcp;ofi_rxm by hand: each side in
	# either mode, the medians (70 and 65) 7.7% apart
	local d r sp
	d=$(judge_summary <<< $'33\n75\n70\n36\n72')
	r=$(judge_summary <<< $'35\n72\n30\n65\n71')
	# shellcheck disable=SC2086
	sp=$(awk -v a="$(judge_spread $d)" -v b="$(judge_spread $r)" 'BEGIN { print a + b }')
	[ "$(echo "$d" | cut -d' ' -f3) $(echo "$r" | cut -d' ' -f3)" = "70.00 65.00" ]
	run judge_verdict lat 1.077 "$sp" 0 1.05 0.95
	echo "$output"
	[[ $output == "not judged: spread ±"*"% ≥ difference 7.7%; median over target" ]]
}

@test "judge.sh: tight runs are judged, against the targets given: 1.04 is met at 1.05 and missed at 1.03; 0.96 bandwidth met at 0.95" {
	run judge_verdict lat 1.04 0.005 0 1.05 0.95
	[ "$output" = "met (judged: spread ±0.5% < difference 4.0%)" ]
	run judge_verdict lat 1.04 0.005 0 1.03 0.98
	[ "$output" = "**missed** (judged: spread ±0.5% < difference 4.0%)" ]
	run judge_verdict bw 0.96 0.01 0 1.05 0.95
	[ "$output" = "met (judged: spread ±1.0% < difference 4.0%)" ]
	run judge_verdict bw 0.90 0.01 0 1.05 0.95
	[ "$output" = "**missed** (judged: spread ±1.0% < difference 10.0%)" ]
}

@test "judge.sh: DAT faster than what it calls is marked for explanation; a zero figure is not judged" {
	run judge_verdict lat 0.90 0.01 0 1.05 0.95
	[ "$output" = "met; **below 1: explained below** (judged: spread ±1.0% < difference 10.0%)" ]
	run judge_verdict bw 1.10 0.50 0 1.05 0.95
	[[ $output == "not judged: spread ±50.0% ≥ difference 10.0%; **above 1.05: explained below**" ]]
	run judge_verdict lat 1.5 0 1 1.05 0.95
	[ "$output" = "**zero figure: explained below** (not judged)" ]
}
