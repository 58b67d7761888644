# SPDX-License-Identifier: BSD-3-Clause
# test/bench/phases.awk - how a latency run's figures spread in time: the
# median of each window of W iterations (500 by default), in order, and
# the share of windows whose median is over 1.25 x the quietest window's.
# Input: datbench's DATBENCH_SAMPLES file (one latency per line) or
# perftest's -U output (lines "N, usec"; the first sample, the connection's
# warm-up, is dropped as perftest's own figures drop it).
#   awk -f test/bench/phases.awk [-v W=500] FILE...
# One line per file: FILE n=.. slow=k/m windows: w1 w2 ...
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function flush(    k, m, w, q, lo, slow, line) {
	if (!n)
		return
	if (W < 1)
		W = 500
	m = 0
	for (k = 1; k + W - 1 <= n; k += W) {
		for (q = 1; q <= W; q++)
			w[q] = s[k + q - 1]
		win[++m] = median(w, W)
	}
	lo = 0
	for (k = 1; k <= m; k++)
		if (!lo || win[k] < lo)
			lo = win[k]
	slow = 0
	line = ""
	for (k = 1; k <= m; k++) {
		if (win[k] > 1.25 * lo)
			slow++
		line = line sprintf(" %.1f", win[k])
	}
	printf "%s n=%d slow=%d/%d windows:%s\n", file, n, slow, m, line
	n = 0
	delete s
	delete win
}
FNR == 1 { flush(); file = FILENAME; skip = 0 }
/^[0-9]+, [0-9.]+$/ { if (++skip > 1) s[++n] = $2 + 0; next }
/^[0-9.]+$/ { s[++n] = $1 + 0 }
END { flush() }
