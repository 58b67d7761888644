# SPDX-License-Identifier: BSD-3-Clause
# test/bench/lat-pairs.awk - over runs.tsv files of run-bench.sh in
# directories named old-N and new-N (test/bench/lat-oldnew.sh): for each
# latency row and version, the medians of perftest and DAT and the
# DAT - perftest gap of each pair (the same rep of the same run, taken one
# after the other): its median, interquartile range and extremes, as a
# Markdown table.  awk -F'\t' -f lat-pairs.awk DIR/old-*/runs.tsv DIR/new-*/runs.tsv
function sortn(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t } }
function q(x, n, p,   h, lo) { h = 1 + (n - 1) * p; lo = int(h); return lo >= n ? x[n] : x[lo] + (h - lo) * (x[lo + 1] - x[lo]) }
{
	f = FILENAME; ver = f; sub(/-[0-9]+\/runs.tsv$/, "", ver); sub(/.*\//, "", ver)
	if ($1 ~ /_p99/ || $4 !~ /^[0-9.]+$/) next
	key = f SUBSEP $1 SUBSEP $3
	if ($2 == "verbs") vb[key] = $4; else if ($2 == "dat") dt[key] = $4
	if (!($1 in seen)) { seen[$1] = 1; rows[++nr] = $1 }
	if ($2 == "dat" && (key in vb)) { k = ver SUBSEP $1; g[k, ++n[k]] = $4 - vb[key]; r[k, n[k]] = $4 / vb[key]; V[k, n[k]] = vb[key]; D[k, n[k]] = $4 }
}
END {
	printf "| row | version | pairs | perftest µs, median | DAT µs, median | ratio of medians | gap µs, median of pairs | gap, interquartile | gap, min-max |\n|---|---|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nr; i++) for (j = 1; j <= 2; j++) {
		ver = j == 1 ? "old" : "new"; k = ver SUBSEP rows[i]; m = n[k]
		delete x; delete a; delete b
		for (t = 1; t <= m; t++) { x[t] = g[k, t]; a[t] = V[k, t]; b[t] = D[k, t] }
		sortn(x, m); sortn(a, m); sortn(b, m)
		printf "| %s | %s | %d | %.2f | %.2f | %.3f | %.2f | %.2f to %.2f | %.2f to %.2f |\n", rows[i], ver, m, q(a, m, .5), q(b, m, .5), q(b, m, .5) / q(a, m, .5), q(x, m, .5), q(x, m, .25), q(x, m, .75), x[1], x[m]
	}
}
