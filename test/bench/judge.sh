# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# test/bench/judge.sh - how make bench sums up a row's runs and judges the
# row, sourced by report.sh (DAT against perftest on verbs) and
# run-bench-ofi.sh (DAT against raw libfabric): one rule for both, so
# that a libfabric row is not judged by a looser one than a verbs row
# (issue 35: "with the spread rule of report.sh").
#
# A side's spread is relative to its median: half its interquartile range
# with JUDGE_IQR_MIN runs or more, half its whole range with fewer (0 with
# one run).  Under emulation one run in a few can be slow from end to end
# (test/bench/results/2026-11-27-phases.md), natively tcp over loopback
# runs in two modes a factor of 2 apart (results/2026-12-03-judged-ofi.md), and the
# whole range grows with every run added, so that more runs would judge
# fewer rows; the quartiles are what a single odd run does not move.
# With fewer runs they are too close to the extremes to tell anything
# apart.  A row is judged only when the two sides' spreads added are
# smaller than the difference it claims.

JUDGE_IQR_MIN=5

# awk functions over x[1..m]: sorted in place, the median, the
# q-quantile interpolated between neighbouring runs
JUDGE_AWK='
function judge_sort(x, m,    a, b, t) {
	for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
		if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
}
function judge_median(x, m) {
	return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
}
function judge_quart(x, m, q,    h, i) {
	h = (m - 1) * q + 1; i = int(h)
	return i >= m ? x[m] : x[i] + (h - i) * (x[i + 1] - x[i])
}
'

# judge_summary < figures (one per line; words such as "fail" skipped)
# -> "n min median max q1 q3", or "0" when no line held a number
judge_summary() {
	awk "$JUDGE_AWK"'
		$1 ~ /^[0-9.]+$/ { x[++m] = $1 + 0 }
		END {
			if (!m) { print 0; exit }
			judge_sort(x, m)
			printf "%d %.2f %.2f %.2f %.2f %.2f\n", m, x[1], judge_median(x, m), x[m],
				judge_quart(x, m, 0.25), judge_quart(x, m, 0.75)
		}'
}

# judge_spread N MIN MEDIAN MAX Q1 Q3 -> the side's relative half-spread
judge_spread() {
	awk -v n="$1" -v lo="$2" -v med="$3" -v hi="$4" -v q1="$5" -v q3="$6" -v k="$JUDGE_IQR_MIN" \
		'BEGIN { if (n > 0 && med > 0) printf "%.4f\n", (n >= k ? q3 - q1 : hi - lo) / 2 / med; else print 0 }'
}

# judge_verdict KIND RATIO SPREAD ZERO LAT_MAX BW_MIN: the row's judgement.
# KIND lat or bw; RATIO DAT / reference (of the medians); SPREAD the two
# sides' spreads added; ZERO 1 when either side has a zero figure; the
# targets (latency ratio at most LAT_MAX, bandwidth at least BW_MIN).  A
# judged row over target is **missed**; a judged row that cannot be true
# (DAT faster than what it calls on: a latency ratio below 1, a bandwidth
# ratio above 1.05) is marked for explanation, judged or not; a row with
# a zero figure (a run cannot take no time or move no data) is not
# judged and is marked for explanation.
judge_verdict() {
	awk -v k="$1" -v r="$2" -v sp="$3" -v zero="$4" -v lmax="$5" -v bmin="$6" 'BEGIN {
		d = r - 1; if (d < 0) d = -d
		if (zero) { print "**zero figure: explained below** (not judged)"; exit }
		over = (k == "bw") ? r < bmin : r > lmax
		odd = (k == "bw") ? (r > 1.05 ? "; **above 1.05: explained below**" : "") \
				  : (r < 1 ? "; **below 1: explained below**" : "")
		if (sp >= d) {
			printf "not judged: spread ±%.1f%% ≥ difference %.1f%%%s%s\n", sp * 100, d * 100,
				over ? "; median over target" : "", odd
			exit
		}
		j = sprintf("judged: spread ±%.1f%% < difference %.1f%%", sp * 100, d * 100)
		print (over ? "**missed**" : "met") odd " (" j ")"
	}'
}
