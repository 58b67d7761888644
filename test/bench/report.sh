#!/bin/bash
# test/bench/report.sh WORKDIR OUTBASE - turns run-bench.sh's raw figures
# (WORKDIR) into OUTBASE.md (the tables) and OUTBASE.png (latency against
# size, DAT and verbs on one chart, drawn by gnuplot).
# Exit status 1 when a run failed or a figure is missing (never because
# of a timing: the targets are reported, not asserted).
set -u

W=${1:?usage: report.sh WORKDIR OUTBASE}
OUT=${2:?usage: report.sh WORKDIR OUTBASE}
HERE=$(cd "$(dirname "$0")" && pwd)
MD=$OUT.md PNG=$OUT.png
BAD=0

for f in runs.tsv meta.txt scale.txt; do
	[ -s "$W/$f" ] || { echo "report: $W/$f is missing or empty" >&2; exit 1; }
done
meta() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$W/meta.txt"; }

# summary.tsv: row stack n min median max (figures over the reps; "fail"
# or "pending" when no rep gave a number)
awk -F'\t' '
	{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	$4 ~ /^[0-9.]+$/ { v[k, ++c[k]] = $4 + 0; next }
	{ other[k] = $4 }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, SUBSEP); m = c[k] + 0
			if (!m) { print p[1], p[2], 0, other[k], other[k], other[k]; continue }
			for (a = 1; a <= m; a++) x[a] = v[k, a]
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
				if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
			med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
			printf "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\n", p[1], p[2], m, x[1], med, x[m]
		}
	}' OFS='\t' "$W/runs.tsv" > "$W/summary.tsv"
grep -q $'\tfail\t' "$W/runs.tsv" && BAD=1

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
	esac
}
hsize() { awk -v s="$1" 'BEGIN { if (s >= 1048576) print s / 1048576 " MiB"; else if (s >= 1024) print s / 1024 " KiB"; else print s " B" }'; }

table() {
	local row name size v d r unit target ok
	echo "| operation | size | unit | verbs (perftest) min / median / max | DAT (datbench) min / median / max | DAT/verbs | target |"
	echo "|---|---|---|---|---|---|---|"
	cut -f1 "$W/summary.tsv" | awk '!s[$0]++' | while read -r row; do
		name=${row%%:*} size=${row#*:}
		v=$(median "$row" verbs) d=$(median "$row" dat)
		if [ "$name" = write_bw ]; then
			unit="MB/s"; target="≥ 0.98"
		else
			unit="µs"; target="≤ 1.05"
		fi
		if [ -n "$v" ] && [ -n "$d" ]; then
			r=$(awk -v a="$d" -v b="$v" 'BEGIN { printf "%.3f", a / b }')
			if [ "$name" = write_bw ]; then
				ok=$(awk -v r="$r" 'BEGIN { print (r >= 0.98) ? "met" : "**missed**" }')
			else
				ok=$(awk -v r="$r" 'BEGIN { print (r <= 1.05) ? "met" : "**missed**" }')
			fi
		else
			r="n/a"
			ok=$([ "$(fig "$row" dat)" = pending ] && echo "pending: no atomic extension header yet" || echo "**no figure**")
			[ "$(fig "$row" dat)" = pending ] || BAD=1
		fi
		echo "| $(label "$name") | $(hsize "$size") | $unit | $(fig "$row" verbs) | $(fig "$row" dat) | $r | $target $ok |"
	done
}

# ---- callgrind ---------------------------------------------------------
# group OBJECT FILE -> the component a function belongs to
GROUPS_AWK='
function group(ob, fl) {
	if (ob ~ /libdat\.so/) return "libdat"
	if (ob ~ /libdaplcma\.so/) return fl ~ /providers\/(cma|verbs)\// ? "cma" : "udapl"
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
	$2 == "self" { g = group($3, $4); c[g] += ($1 == "+" ? $6 : -$6); tot += ($1 == "+" ? $6 : -$6) }
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
	$2 == "self" { k = group($3, $4) "\t" $5 "\t" $4; c[k] += ($1 == "+" ? $6 : -$6) }
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
	echo "| measure | value |"
	echo "|---|---|"
	echo "| dat_ia_open + dat_ia_close, first (loads the provider) | $(sv ia_open_close_first_us) µs |"
	echo "| dat_ia_open + dat_ia_close, median of 10 after that | $(sv ia_open_close_us) µs |"
	echo "| EVD wake-up, dat_evd_post_se → spinning dat_evd_dequeue | $(sv wake_se_spin_us) µs |"
	echo "| EVD wake-up, dat_evd_post_se → blocked dat_evd_wait | $(sv wake_se_wait_us) µs |"
	echo "| 64 B send → receive seen by a spinning dat_evd_dequeue | $(sv wake_recv_spin_us) µs |"
	echo "| 64 B send → receive returned by a blocked dat_evd_wait | $(sv wake_recv_wait_us) µs |"
	echo
	echo "Connections (n EP pairs in one process, all dat_ep_connect calls issued at once, CRs accepted as they come; memory = RSS growth / (2n)):"
	echo
	echo "| EP pairs | connect (s) | connections/s | disconnect (s) | KiB RSS per EP, created | KiB RSS per EP, connected | KiB mapped per EP, connected |"
	echo "|---|---|---|---|---|---|---|"
	awk '$2 == "conn" { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", v["eps"], v["connect_s"], v["conn_per_s"], v["disconnect_s"], v["ep_rss_kib"], v["connected_ep_rss_kib"], v["connected_ep_vm_kib"] }' "$s"
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
		"(a timestamp per iteration; half the round trip for the ping-pongs, the whole one for reads and atomics;" \
		"per run the typical = median latency, or the average bandwidth in MB/s of 2^20 bytes)"
	echo "- runs: $(meta reps) of each, alternating verbs and DAT row by row; each cell is min / median / max over the runs;" \
		"the ratio is of the medians. Under emulation (TCG) wall-clock figures are noisy; the instruction counts below are not."
	echo
	echo "## Latency and bandwidth"
	echo
	table
	echo
	echo "![latency against size]($(basename "$PNG"))"
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
	echo
	echo "## Scaling (DAT)"
	echo
	scaling
	echo
	echo "## Where the cost is"
	echo
	echo "- Our code adds $OURS instructions per post + completion (plus $OURS_LIBC in the pthread mutex functions it calls);" \
		"the functions above carry it. A post goes libdat's dispatch (NULL, alignment and registered-table check) →" \
		"one udapl function per public post (handle magic, completion flags, segment count, each triplet's LMR found" \
		"in the IA's table and checked for privileges, PZ and bounds, then under the EP mutex the state and a cookie" \
		"from the EP's ring) → cma's work request, filled field by field. A completion goes libdat's dispatch →" \
		"udapl's dequeue (EVD mutex) → cma's one ibv_poll_cq, the status mapped → udapl's inline event build and" \
		"cookie return."
	echo "- What is left is the price of the layers and of checking every argument the spec names: each layer's" \
		"call and register saves, the DAT_EVENT and cookie writes, and the two provider calls through the ops" \
		"table. Getting to the target would take a provider-specific inline fast path (posting and polling" \
		"without the udapl/cma seam) or dropping checks, which this stack does not do. The helgrind annotations" \
		"of the shared layer are compiled only into a separate helgrind build of the provider (test/verbs/verbs.mk)."
	echo "- Latency rows that miss the ratio target are listed as **missed** above; at these message rates the" \
		"emulated machine turns each extra instruction into tens of nanoseconds, so the instruction table is the" \
		"repeatable measure of the same cost."
	if grep -q 'enable_asynccancel' "$W/cg-dat.loop" && ! grep -q 'enable_asynccancel' "$W/cg-verbs.loop"; then
		echo "- libc's share is larger through DAT also outside our functions: the provider's connection and" \
			"async-event threads make the process multi-threaded, so the doorbell \`write()\` in librxe takes glibc's" \
			"cancellation path (\`__pthread_enable_asynccancel\`); the system calls themselves are the same" \
			"(test/verbs/hotpath.bats)."
	fi
	[ "$(meta atomic_ext)" = pending ] && echo "- Atomic rows through DAT are **pending**: the atomic extension" \
		"(include/dat/dat_ib_extensions.h) was not there when this ran; the verbs figures are measured."
} > "$MD"
plot
echo "report: wrote $MD and $PNG"
cat "$MD"
exit $BAD
