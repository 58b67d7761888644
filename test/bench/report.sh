#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/report.sh WORKDIR OUTBASE - turns run-bench.sh's raw figures
# (WORKDIR) into OUTBASE.md (the tables) and OUTBASE.png (latency against
# size, DAT and verbs on one chart, drawn by gnuplot).
# Exit status 1 when a run failed or a figure is missing (never because
# of a timing: the targets are reported, not asserted).
# REPORT_PLOTS=0: the tables only, no PNG and no link to one (no gnuplot
# needed: the host suite's test/bench/report.bats judges rows on a
# machine without it).
set -u

W=${1:?usage: report.sh WORKDIR OUTBASE}
OUT=${2:?usage: report.sh WORKDIR OUTBASE}
HERE=$(cd "$(dirname "$0")" && pwd)
MD=$OUT.md PNG=$OUT.png SPNG=$OUT-scale.png
PLOTS=${REPORT_PLOTS:-1}
BAD=0
# shellcheck source=test/bench/judge.sh
. "$HERE/judge.sh"

# plot_link ALT FILE: the Markdown link to a plot, when plots are drawn
plot_link() {
	[ "$PLOTS" = 0 ] || echo "![$1]($(basename "$2"))"
}

[ -s "$W/meta.txt" ] || { echo "report: $W/meta.txt is missing or empty" >&2; exit 1; }
meta() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$W/meta.txt"; }

[ -e "$W/runs.tsv" ] || : > "$W/runs.tsv"
# summary.tsv: row stack n min median max q1 q3 (figures over the reps,
# the quartiles interpolated between the sorted runs; "fail" or "pending"
# when no rep gave a number)
awk -F'\t' "$JUDGE_AWK"'
	{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	$4 ~ /^[0-9.]+$/ { v[k, ++c[k]] = $4 + 0; next }
	{ other[k] = $4 }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, SUBSEP); m = c[k] + 0
			if (!m) { print p[1], p[2], 0, other[k], other[k], other[k], other[k], other[k]; continue }
			for (a = 1; a <= m; a++) x[a] = v[k, a]
			judge_sort(x, m)
			printf "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", p[1], p[2], m, x[1], judge_median(x, m), x[m],
				judge_quart(x, m, 0.25), judge_quart(x, m, 0.75)
		}
	}' OFS='\t' "$W/runs.tsv" > "$W/summary.tsv"
grep -q $'\tfail$' "$W/runs.tsv" && BAD=1

fig() { # row stack -> "min / median / max" or the word
	awk -F'\t' -v r="$1" -v s="$2" '$1 == r && $2 == s {
		if ($3 == 0) print $4; else printf "%.2f / %.2f / %.2f\n", $4, $5, $6 }' "$W/summary.tsv"
}
median() { awk -F'\t' -v r="$1" -v s="$2" '$1 == r && $2 == s && $3 > 0 { print $5 }' "$W/summary.tsv"; }

label() {
	case $1 in
	send_lat) echo "send/recv ping-pong (ib_send_lat)" ;;
	write_lat) echo "RDMA write ping-pong (ib_write_lat)" ;;
	read_lat) echo "RDMA read (ib_read_lat)" ;;
	atomic_fadd) echo "atomic fetch-and-add (ib_atomic_lat -A FETCH_AND_ADD)" ;;
	atomic_cas) echo "atomic compare-and-swap (ib_atomic_lat -A CMP_AND_SWAP)" ;;
	write_bw) echo "RDMA write bandwidth (ib_write_bw)" ;;
	*_p99) echo "$(label "${1%_p99}"), 99th percentile" ;;
	esac
}
hsize() { awk -v s="$1" 'BEGIN { if (s >= 1048576) print s / 1048576 " MiB"; else if (s >= 1024) print s / 1024 " KiB"; else print s " B" }'; }
# spread ROW STACK: the side's relative half-spread (judge.sh's rule)
spread() {
	local f
	f=$(awk -F'\t' -v r="$1" -v s="$2" '$1 == r && $2 == s && $3 > 0 { print $3, $4, $5, $6, $7, $8 }' "$W/summary.tsv")
	[ -n "$f" ] || { echo 0; return; }
	# shellcheck disable=SC2086
	judge_spread $f
}

# verdict KIND RATIO SPREAD ZERO: judge.sh's, against the verbs targets
# (latency ≤ 1.03, bandwidth ≥ 0.98 of perftest)
verdict() { judge_verdict "$1" "$2" "$3" "$4" 1.03 0.98; }
# zero ROW: 1 when the smallest figure of either side is 0
zero() { awk -F'\t' -v r="$1" '$1 == r && $3 > 0 && $4 + 0 == 0 { z = 1 } END { print z + 0 }' "$W/summary.tsv"; }

# table ROWS-REGEX: one line per row of summary.tsv whose name matches
table() {
	local re=$1 row name size v d r unit target ok sp
	echo "| operation | size | unit | verbs (perftest) min / median / max | DAT (datbench) min / median / max | DAT/verbs | target | verdict |"
	echo "|---|---|---|---|---|---|---|---|"
	cut -f1 "$W/summary.tsv" | awk '!s[$0]++' | grep -E "$re" | while read -r row; do
		name=${row%%:*} size=${row#*:}
		v=$(median "$row" verbs) d=$(median "$row" dat)
		if [ "$name" = write_bw ]; then
			unit="MB/s"; target="≥ 0.98"
		else
			unit="µs"; target="≤ 1.03"
		fi
		if [ -n "$v" ] && [ -n "$d" ]; then
			r=$(awk -v a="$d" -v b="$v" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }')
			sp=$(awk -v a="$(spread "$row" verbs)" -v b="$(spread "$row" dat)" 'BEGIN { print a + b }')
			ok=$(verdict "$([ "$name" = write_bw ] && echo bw || echo lat)" "$r" "$sp" "$(zero "$row")")
		else
			r="n/a"
			ok=$([ "$(fig "$row" dat)" = pending ] && echo "pending: no atomic extension header yet" || echo "**no figure**")
			[ "$(fig "$row" dat)" = pending ] || BAD=1
		fi
		echo "| $(label "$name") | $(hsize "$size") | $unit | $(fig "$row" verbs) | $(fig "$row" dat) | $r | $target | $ok |"
	done
}

# cpu.tsv -> per row and stack, each side's CPU time over its wall time
# (median over the runs, %): 100% is a side that polled all the time
cpu_table() {
	[ -s "$W/cpu.tsv" ] || { echo "(no CPU times recorded)"; return; }
	echo "| row | verbs server | DAT server | rsocket server | verbs client | DAT client | rsocket client |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'\t' '
		{ k = $1; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  if ($5 > 0) { c = $2 SUBSEP $4; v[k, c, ++m[k, c]] = ($6 + $7) / $5 * 100 } }
		function med(k, c,    i, j, t, x, q) {
			q = m[k, c] + 0; if (!q) return "–"
			for (i = 1; i <= q; i++) x[i] = v[k, c, i]
			for (i = 1; i <= q; i++) for (j = i + 1; j <= q; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return sprintf("%.0f%%", x[int((q + 1) / 2)])
		}
		END { for (i = 1; i <= n; i++) { k = order[i]
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", k, med(k, "verbs" SUBSEP "srv"), med(k, "dat" SUBSEP "srv"), med(k, "rsocket" SUBSEP "srv"), med(k, "verbs" SUBSEP "cli"), med(k, "dat" SUBSEP "cli"), med(k, "rsocket" SUBSEP "cli") } }' "$W/cpu.tsv"
}

rsocket_table() {
	local row size r d
	echo "| operation | size | unit | rsocket (rstream) min / median / max | DAT min / median / max | DAT/rsocket |"
	echo "|---|---|---|---|---|---|"
	cut -f1 "$W/summary.tsv" | awk '!s[$0]++' | grep -E '^rs_' | while read -r row; do
		size=${row#*:}
		r=$(median "$row" rsocket)
		if [ "${row%%:*}" = rs_lat ]; then
			d=$(median "send_lat:$size" dat)
			echo "| send/recv ping-pong, half round trip (rstream -C 1; DAT: send_lat) | $(hsize "$size") | µs | $(fig "$row" rsocket) | $(fig "send_lat:$size" dat) | $(awk -v a="$d" -v b="$r" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "n/a" }') |"
		else
			d=$(median "write_bw:$size" dat)
			echo "| stream bandwidth (rstream -C n -I 1, both directions; DAT: RDMA write_bw, one way) | $(hsize "$size") | MB/s | $(fig "$row" rsocket) | $([ -n "$d" ] && fig "write_bw:$size" dat || echo "not measured at this size") | $(awk -v a="$d" -v b="$r" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "n/a" }') |"
		fi
	done
}

# ---- callgrind ---------------------------------------------------------
# group OBJECT FILE [FUNCTION] -> the component a function belongs to
# (in libdaplcma, a provider function whose lines come from a header,
# such as an inline of <infiniband/verbs.h>, is still the provider's:
# its verbs_/cma_ name says so)
GROUPS_AWK='
function group(ob, fl, fn) {
	if (ob ~ /libdat\.so/) return "libdat"
	if (ob ~ /libdaplcma\.so/)
		return fl ~ /providers\/(cma|verbs)\// || fn ~ /^(verbs|cma)_/ ? "cma" : "udapl"
	if (ob ~ /libibverbs\.so/) return "libibverbs"
	if (ob ~ /libibverbs\/lib.*-rdmav[0-9]*\.so/) return "device"
	if (ob ~ /librdmacm/) return "librdmacm"
	if (ob ~ /\/libc\.so/) return "libc"
	if (ob ~ /(datbench|hotpath-verbs)$/) return "loop"
	return "other"
}
function ours(g) { return g == "libdat" || g == "udapl" || g == "cma" }'

# percomp STACK -> "component Ir-per-op" lines (loop minus empty polls,
# divided by the posts + completions)
percomp() {
	local s=$1 ops
	ops=$(sed -n 's/^LOOP .* posts \([0-9]*\) .*/\1/p' "$W/cg-$s.out")
	[ -n "$ops" ] && [ -s "$W/cg-$s.loop" ] && [ -s "$W/cg-$s.empty" ] || return 1
	{ awk -f "$HERE/cgsum.awk" "$W/cg-$s.loop" | sed 's/^/+\t/'
	  awk -f "$HERE/cgsum.awk" "$W/cg-$s.empty" | sed 's/^/-\t/'; } |
	awk -F'\t' -v ops="$ops" "$GROUPS_AWK"'
	$2 == "self" { g = group($3, $4, $5); c[g] += ($1 == "+" ? $6 : -$6); tot += ($1 == "+" ? $6 : -$6) }
	$2 == "arc" && $1 == "+" { if (ours(group($3, "")) && group($4, "") == "libc") libc_ours += $5 }
	$2 == "arc" && $1 == "-" { if (ours(group($3, "")) && group($4, "") == "libc") libc_ours -= $5 }
	END {
		for (g in c) printf "%s\t%.1f\n", g, c[g] / ops
		printf "libc_by_ours\t%.1f\n", libc_ours / ops
		printf "ours\t%.1f\n", (c["libdat"] + c["udapl"] + c["cma"]) / ops
		printf "total\t%.1f\n", tot / ops
	}'
}

# topfuncs STACK N [ours] -> "Ir-per-op component function (file)"
topfuncs() {
	local s=$1 n=$2 only=${3:-} ops
	ops=$(sed -n 's/^LOOP .* posts \([0-9]*\) .*/\1/p' "$W/cg-$s.out")
	{ awk -f "$HERE/cgsum.awk" "$W/cg-$s.loop" | sed 's/^/+\t/'
	  awk -f "$HERE/cgsum.awk" "$W/cg-$s.empty" | sed 's/^/-\t/'; } |
	awk -F'\t' -v ops="$ops" -v only="$only" "$GROUPS_AWK"'
	$2 == "self" { k = group($3, $4, $5) "\t" $5 "\t" $4; c[k] += ($1 == "+" ? $6 : -$6) }
	END { for (k in c) { split(k, p, "\t"); if (only == "" || ours(p[1])) if (c[k] / ops >= 0.05) printf "%.1f\t%s\n", c[k] / ops, k } }' |
	sort -t$'\t' -k1,1 -rn | head -n "$n"
}

comp() { awk -F'\t' -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "0.0" }' <<< "$2"; }

instructions() {
	local d v k
	d=$(percomp dat) || { echo "callgrind figures missing (see $W/cg-dat.out)"; BAD=1; return; }
	v=$(percomp verbs) || { echo "callgrind figures missing (see $W/cg-verbs.out)"; BAD=1; return; }
	echo "| component (instructions per post + completion) | through DAT | raw verbs |"
	echo "|---|---|---|"
	for k in libdat:"libdat.so.1 (dispatch)" udapl:"udapl (shared object layer)" \
		cma:"providers/cma + providers/verbs (verbs glue)" ours:"**our code, total**" \
		libc_by_ours:"libc called by our code (mutexes)" \
		libibverbs:"libibverbs" device:"rxe device library (librxe)" \
		libc:"libc, all callers" loop:"the benchmark's own loop" \
		other:"other" total:"everything in user space"; do
		echo "| ${k#*:} | $(comp "${k%%:*}" "$d") | $(comp "${k%%:*}" "$v") |"
	done
	OURS=$(comp ours "$d")
	OURS_LIBC=$(comp libc_by_ours "$d")
	echo
	echo "Target ≤ 150 instructions of our code per post + completion: $OURS" \
		"($(awk -v o="$OURS" 'BEGIN { print (o <= 150) ? "met" : "**missed**" }');" \
		"$OURS_LIBC more in the libc functions our code calls)."
	echo
	echo "Top functions of our code (self instructions per post + completion):"
	echo
	echo "| Ir/op | component | function | file |"
	echo "|---|---|---|---|"
	topfuncs dat 12 ours | awk -F'\t' '{ sub(".*/(udapl|providers|dat|registry)/", "&", $4); n = split($4, q, "/"); f = n > 1 ? q[n-1] "/" q[n] : $4; printf "| %s | %s | `%s` | %s |\n", $1, $2, $3, f }'
	echo
	echo "Top functions of the whole process, through DAT and through raw verbs:"
	echo
	echo '```'
	echo "DAT:"
	topfuncs dat 10 | awk -F'\t' '{ printf "  %7s  %-10s %s\n", $1, $2, $3 }'
	echo "raw verbs:"
	topfuncs verbs 10 | awk -F'\t' '{ printf "  %7s  %-10s %s\n", $1, $2, $3 }'
	echo '```'
}

scaling() {
	local s=$W/scale.txt
	sv() { awk -v k="$1" '$1 == "SCALE" && $2 == k { print $3 }' "$s"; }
	rv() { awk -v k="$1" '$1 == "RAW" && $2 == k { print $3 }' "$s"; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
	# within2 RATIO: the wake-up target (within 2 × spinning)
	within2() { awk -v r="$1" 'BEGIN { if (r == "n/a") print "**no figure**"; else print (r <= 2 ? "target ≤ 2: met" : "target ≤ 2: **missed**") }'; }
	echo "### dat_ia_open + dat_ia_close against the raw calls it needs"
	echo
	echo "Taken in turn, rep by rep: \`rawbench open\` (rdma_create_event_channel, rdma_create_id, rdma_bind_addr," \
		"ibv_get_device_list, ibv_open_device, ibv_query_device, ibv_query_port and their teardown), then" \
		"\`datbench iaopen\` (dat_ia_open + dat_ia_close of an IA alone, then with another IA of the same entry held open)." \
		"Medians of 10 cycles each; the first cycle of each process apart."
	echo
	echo "Target: DAT alone within 2 × raw (the open + close of a process's only IA, again and again)."
	echo
	echo "| rep | raw, first (µs) | raw (µs) | DAT, first (µs) | DAT alone (µs) | DAT, another IA held (µs) | DAT alone / raw | DAT held / raw | target ≤ 2 |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk '$1 ~ /^[0-9]+$/ { v[$1, $3] = $4; reps[$1] = 1 }
		END { for (r = 1; r in reps; r++) {
			a = v[r, "ia_open_close_us"]; h = v[r, "ia_open_close_held_us"]; w = v[r, "open_close_us"]
			printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r, v[r, "open_close_first_us"], w,
				v[r, "ia_open_close_first_us"], a, h, (w > 0 ? sprintf("%.2f", a / w) : "n/a"), (w > 0 ? sprintf("%.2f", h / w) : "n/a"),
				(w > 0 && a > 0 ? (a / w <= 2 ? "met" : "**missed**") : "**no figure**") } }' "$s"
	echo
	echo "### Wake-up and the CPU time of a blocked wait"
	echo
	echo "| measure | value |"
	echo "|---|---|"
	echo "| EVD wake-up, dat_evd_post_se → spinning dat_evd_dequeue | $(sv wake_se_spin_us) µs |"
	echo "| EVD wake-up, dat_evd_post_se → blocked dat_evd_wait | $(sv wake_se_wait_us) µs ($(ratio "$(sv wake_se_wait_us)" "$(sv wake_se_spin_us)") × spinning; $(within2 "$(ratio "$(sv wake_se_wait_us)" "$(sv wake_se_spin_us)")")) |"
	echo "| 64 B send → receive seen by a spinning dat_evd_dequeue | $(sv wake_recv_spin_us) µs |"
	echo "| 64 B send → receive returned by a blocked dat_evd_wait | $(sv wake_recv_wait_us) µs ($(ratio "$(sv wake_recv_wait_us)" "$(sv wake_recv_spin_us)") × spinning; $(within2 "$(ratio "$(sv wake_recv_wait_us)" "$(sv wake_recv_spin_us)")")) |"
	echo "| kernel floor: eventfd write → thread spinning on a flag (rawbench wake) | $(rv wake_spin_us) µs |"
	echo "| kernel floor: eventfd write → thread blocked in poll(2) (rawbench wake) | $(rv wake_poll_us) µs ($(ratio "$(rv wake_poll_us)" "$(rv wake_spin_us)") × spinning) |"
	echo "| CPU time of a dat_evd_wait blocked for 100 ms (its thread's CPU clock, median of 5) | $(sv wait_cpu_us_per_100ms) µs |"
	if grep -q '^SPIN wake_' "$s"; then
		pv() { awk -v k="$1" '$1 == "SPIN" && $2 == k { print $3 }' "$s"; }
		echo "| opt-in spin before blocking, DAPL_EVD_WAIT_SPIN_US=$(pv spin_us) (a later process, same boot): dat_evd_post_se → dat_evd_wait | $(pv wake_se_wait_us) µs ($(ratio "$(pv wake_se_wait_us)" "$(pv wake_se_spin_us)") × that process's spinning dequeue, $(pv wake_se_spin_us) µs; $(within2 "$(ratio "$(pv wake_se_wait_us)" "$(pv wake_se_spin_us)")")) |"
		echo "| opt-in spin, DAPL_EVD_WAIT_SPIN_US=$(pv spin_us): 64 B send → receive returned by dat_evd_wait | $(pv wake_recv_wait_us) µs ($(ratio "$(pv wake_recv_wait_us)" "$(pv wake_recv_spin_us)") × that process's spinning dequeue, $(pv wake_recv_spin_us) µs; $(within2 "$(ratio "$(pv wake_recv_wait_us)" "$(pv wake_recv_spin_us)")")) |"
		echo "| opt-in spin, DAPL_EVD_WAIT_SPIN_US=$(pv spin_us): CPU time of a dat_evd_wait for 100 ms | $(pv wait_cpu_us_per_100ms) µs |"
	fi
	echo
	echo "### Connection setup"
	echo
	echo "One process (\`datbench scale\`): n EP pairs between rxe1's IA and rxe0's, all dat_ep_connect calls issued at once," \
		"CRs accepted as they come; memory = RSS growth / (2n). REQ resends: the kernel IB CM's cm_tx_retries/req over the" \
		"round (all devices); longest pause: between two ESTABLISHED events on the active side."
	echo
	echo "Target: at every n ≥ 16, connections per second within 2 × the 16-pair rate (× ≥ 0.50)."
	echo
	echo "| EP pairs | connect (s) | connections/s | × the 16-pair rate | target × ≥ 0.5 | REQ resends | longest pause (s) | disconnect (s) | KiB RSS per EP, created | KiB RSS per EP, connected | KiB mapped per EP, connected |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk '$2 == "conn" { delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (!base) base = v["conn_per_s"]
		x = base > 0 ? v["conn_per_s"] / base : 0
		printf "| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |\n", v["eps"], v["connect_s"], v["conn_per_s"], x, (x >= 0.5 ? "met" : "**missed**"), v["req_retries"], v["max_gap_s"], v["disconnect_s"], v["ep_rss_kib"], v["connected_ep_rss_kib"], v["connected_ep_vm_kib"] }' "$s"
	if grep -q '^old SCALE conn ' "$W/before.txt" 2> /dev/null; then
		echo
		echo "The same rounds with the libraries before the fixes (build/snap: main's libdat and libdaplcma), later in the same boot:"
		echo
		echo "| EP pairs | connect (s) | connections/s | × the 16-pair rate | REQ resends | longest pause (s) |"
		echo "|---|---|---|---|---|---|"
		awk '$1 == "old" && $3 == "conn" { delete v; for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (!base) base = v["conn_per_s"]
			printf "| %s | %s | %s | %.2f | %s | %s |\n", v["eps"], v["connect_s"], v["conn_per_s"], v["conn_per_s"] / base, v["req_retries"], v["max_gap_s"] }' "$W/before.txt"
	fi
	if grep -q '^[0-9]* old SCALE ia_open_close_us' "$W/before.txt" 2> /dev/null; then
		echo
		echo "dat_ia_open + close with the libraries before the change (old: BENCH_OLD_LIB) and these (new), taken in turn in the same boot (µs, medians of 10):"
		echo
		echo "| rep | old: alone | old: another IA held | new: alone | new: another IA held |"
		echo "|---|---|---|---|---|"
		awk '$3 == "SCALE" { v[$1, $2, $4] = $5; r[$1] = 1 }
			END { for (i = 1; i in r; i++) printf "| %d | %s | %s | %s | %s |\n", i, v[i, "old", "ia_open_close_us"], v[i, "old", "ia_open_close_held_us"], v[i, "new", "ia_open_close_us"], v[i, "new", "ia_open_close_held_us"] }' "$W/before.txt"
	fi
	echo
	echo "Two processes (\`datbench scale_server\` on rxe0's IA accepting each request with a new EP, \`scale_client\` on rxe1's):"
	echo
	echo "| EP pairs | connect (s) | connections/s | × the 16-pair rate | target × ≥ 0.5 | REQ resends | longest pause (s) | KiB RSS per client EP, connected |"
	echo "|---|---|---|---|---|---|---|---|"
	awk '$2 == "conn2" { delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (!base) base = v["conn_per_s"]
		x = base > 0 ? v["conn_per_s"] / base : 0
		printf "| %s | %s | %s | %.2f | %s | %s | %s | %s |\n", v["eps"], v["connect_s"], v["conn_per_s"], x, (x >= 0.5 ? "met" : "**missed**"), v["req_retries"], v["max_gap_s"], v["connected_ep_rss_kib"] }' "$s"
	echo
	plot_link "connections per second against EP pairs" "$SPNG"
}

contended_table() {
	[ -s "$W/contend.txt" ] || { echo "(not measured)"; return; }
	echo "64-byte RDMA writes, $(meta window) outstanding per thread, each EP with its own request EVD, on one IA opened threadsafe" \
		"(\`datbench contend\`); writes per second, min / median / max over the runs."
	echo
	echo "| posting threads | writes/s | per thread, × one thread alone |"
	echo "|---|---|---|"
	awk '{ for (i = 5; i <= NF; i++) { split($i, kv, "="); x[kv[1], ++n[kv[1]]] = kv[2] } }
		function mmm(k,    i, j, t, q, y) { q = n[k]; for (i = 1; i <= q; i++) y[i] = x[k, i]
			for (i = 1; i <= q; i++) for (j = i + 1; j <= q; j++) if (y[j] < y[i]) { t = y[i]; y[i] = y[j]; y[j] = t }
			M[k] = y[int((q + 1) / 2)]; return sprintf("%.0f / %.0f / %.0f", y[1], M[k], y[q]) }
		END { a = mmm("one"); b = mmm("two")
			printf "| 1 (one EP) | %s | 1.00 |\n| 2 (one EP each, at once) | %s | %.2f |\n", a, b, M["two"] / 2 / M["one"] }' "$W/contend.txt"
}

scale_plot() {
	local dat=$W/scale-plot.dat
	# before.txt (optional): "old SCALE conn ..." lines, the same rounds
	# run with the libraries before a change, in the same boot
	{ cat "$W/scale.txt"; [ -s "$W/before.txt" ] && sed -n 's/^old SCALE conn /SCALE conn0 /p' "$W/before.txt"; } |
	awk '$2 == "conn" || $2 == "conn2" || $2 == "conn0" { delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print ($2 == "conn" ? 1 : $2 == "conn2" ? 2 : 0), v["eps"], v["conn_per_s"] }' > "$dat"
	command -v gnuplot > /dev/null || { echo "report: gnuplot is missing (sh scripts/deps.sh gnuplot-nox)" >&2; BAD=1; return; }
	local term="pngcairo size 900,600 font ',10'"
	gnuplot -e 'set terminal pngcairo' > /dev/null 2>&1 < /dev/null || term="png size 900,600"
	gnuplot <<-EOF || BAD=1
	set terminal $term
	set output '$SPNG'
	set title "Connection setup through DAT: connections per second against EP pairs connected at once\n$(meta device | sed 's/:.*//')"
	set logscale x 2
	set xlabel 'EP pairs'
	set ylabel 'connections per second'
	set yrange [0:*]
	set key top right
	set grid
	plot '$dat' u (\$1 == 1 ? \$2 : NaN):3 w lp lw 2 pt 7 t 'one process', \
	     '$dat' u (\$1 == 2 ? \$2 : NaN):3 w lp lw 2 pt 5 t 'two processes'$(grep -q '^0 ' "$dat" && echo ", '$dat' u (\$1 == 0 ? \$2 : NaN):3 w lp lw 2 dt 2 pt 6 t 'one process, before the fixes (same boot)'")
	EOF
}

plot() {
	local dat=$W/plot.dat
	awk -F'\t' '$1 ~ /^(send|write|read)_lat:/ && $3 > 0 {
		split($1, p, ":"); k = p[1] "_" $2; v[p[2], k] = $5; sz[p[2]] = 1 }
		END { print "# size send_verbs send_dat write_verbs write_dat read_verbs read_dat"
		      n = 0; for (s in sz) a[++n] = s + 0
		      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		      for (i = 1; i <= n; i++) { s = a[i]; printf "%d", s
		          split("send_lat_verbs send_lat_dat write_lat_verbs write_lat_dat read_lat_verbs read_lat_dat", ks, " ")
		          for (k = 1; k <= 6; k++) printf " %s", ((s, ks[k]) in v) ? v[s, ks[k]] : "NaN"; print "" } }' \
		"$W/summary.tsv" > "$dat"
	command -v gnuplot > /dev/null || { echo "report: gnuplot is missing (sh scripts/deps.sh gnuplot-nox)" >&2; BAD=1; return; }
	local term="pngcairo size 900,600 font ',10'"
	gnuplot -e 'set terminal pngcairo' > /dev/null 2>&1 < /dev/null || term="png size 900,600"
	gnuplot <<-EOF || BAD=1
	set terminal $term
	set output '$PNG'
	set title "Latency against size: DAT (dashed) and raw verbs (solid), median of $(meta reps) runs\n$(meta device | sed 's/:.*//')"
	set logscale xy
	set xlabel 'message size (bytes)'
	set ylabel 'latency (µs)'
	set key top left
	set grid
	set xrange [32:2097152]
	set xtics ("64" 64, "4K" 4096, "64K" 65536, "1M" 1048576)
	plot '$dat' u 1:2 w lp lw 2 lc 1 dt 1 pt 7 t 'send verbs', \
	     '$dat' u 1:3 w lp lw 2 lc 1 dt 2 pt 6 t 'send DAT', \
	     '$dat' u 1:4 w lp lw 2 lc 2 dt 1 pt 5 t 'write verbs', \
	     '$dat' u 1:5 w lp lw 2 lc 2 dt 2 pt 4 t 'write DAT', \
	     '$dat' u 1:6 w lp lw 2 lc 3 dt 1 pt 9 t 'read verbs', \
	     '$dat' u 1:7 w lp lw 2 lc 3 dt 2 pt 8 t 'read DAT'
	EOF
}

{
	echo "# make bench: DAT against raw verbs, $(meta date | cut -d' ' -f1)"
	echo
	echo "- date: $(meta date)"
	echo "- machine: $(meta machine)"
	echo "- emulation: $(meta emulation)"
	echo "- device: $(meta device)"
	echo "- verbs side: perftest ($(meta perftest)), rdma_cm connections (\`-R\`); DAT side: \`datbench\`" \
		"(test/bench/datbench.c, public API through libdat.so.1 and libdaplcma.so.1), measured the same way" \
		"(a timestamp per iteration, read from the time-stamp counter on both sides as perftest's get_cycles() reads it;" \
		"half the round trip for the ping-pongs, the whole one for reads and atomics;" \
		"per run the typical = median latency and the 99th percentile, or the average bandwidth in MB/s of 2^20 bytes)"
	echo "- same mode on both sides: the same iterations; for the bandwidth rows the same outstanding writes" \
		"($(meta window); perftest \`-t $(meta window) -Q 1\`, datbench \`-w $(meta window)\`, every write signaled);" \
		"busy polling on both sides (datbench's server spins while the client measures, as perftest's passive side does;" \
		"the CPU table below checks it); the same CPUs ($(meta cpus), taskset)"
	echo "- runs: $(meta reps) of each, alternating verbs, DAT (and rsocket) row by row; each cell is min / median / max over the runs;" \
		"the ratio is of the medians. A row is judged only when the spread of its two sides is smaller than the difference" \
		"it claims (each side's spread: half its interquartile range over its median with $JUDGE_IQR_MIN runs or more," \
		"half its whole range with fewer; the two added); a judged row over target is marked **missed** in the row;" \
		"a latency row below 1, a bandwidth row above 1.05 and a row with a zero figure are marked for" \
		"explanation. Targets: latency ≤ 1.03, bandwidth ≥ 0.98 (× perftest)."
	echo "- Under emulation (TCG) wall-clock figures are noisy, and the host's 2 cores are shared with other developers'" \
		"builds and guests while this ran: prefer the ratios (taken in turn, in the same boot) to absolute figures;" \
		"the instruction counts are not affected."
	if [ -s "$W/runs.tsv" ]; then
		echo
		echo "## Latency and bandwidth"
		echo
		table '^(send|write|read|atomic)_[a-z]*(lat|add|cas|bw):'
		echo
		echo "### 99th percentile latency"
		echo
		table '_p99:'
		echo
		plot_link "latency against size" "$PNG"
		echo
		echo "### CPU time over wall time of each side (median over the runs)"
		echo
		echo "The mode each side ran in: a side that polls all the time shows about 100%; one blocked while its peer measures, far less."
		echo
		cpu_table
		echo
		echo "### rsocket (the socket-over-RDMA alternative), same boot, same rows"
		echo
		rsocket_table
	fi
	if [ -s "$W/cg-dat.out" ]; then
		echo
		echo "## Instructions per post + completion (callgrind)"
		echo
		echo "One process, two connected EPs (rxe0 ↔ rxe1); $(sed -n 's/^LOOP dat rounds \([0-9]*\) .*/\1/p' "$W/cg-dat.out") rounds of" \
			"64-byte send + its completion + the receive's completion + a new receive (2 posts, 2 completions) through DAT" \
			"(\`datbench loop\`) and through raw verbs (\`hotpath-verbs callgrind\`), the same loop as test/verbs/hotpath*.c." \
			"Self instructions per post + completion, the dequeues or polls that found nothing taken out" \
			"(a second dump makes as many empty dequeues as the loop did). Kernel work (the doorbell system call) is not counted."
		echo
		instructions
	fi
	if [ -s "$W/contend.txt" ]; then
		echo
		echo "## Contended: two threads posting on one threadsafe IA"
		echo
		contended_table
	fi
	if [ -s "$W/scale.txt" ]; then
		echo
		echo "## Scaling (DAT)"
		echo
		scaling
	fi
	if [ -s "$OUT-notes.md" ]; then
		echo
		cat "$OUT-notes.md"
	fi
} > "$MD"
if [ "$PLOTS" != 0 ]; then
	[ -s "$W/runs.tsv" ] && plot
	[ -s "$W/scale.txt" ] && scale_plot
	echo "report: wrote $MD and the plots"
else
	echo "report: wrote $MD (tables only: REPORT_PLOTS=0)"
fi
cat "$MD"
exit $BAD
