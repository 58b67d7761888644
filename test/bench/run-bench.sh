#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/run-bench.sh WORKDIR - the runs of `make bench` (issue 10).
#
# Runs on the RDMA devices of the machine it is on (make bench starts it
# inside the soft-RoCE guest when the host has none).  For each row of
# the table (rows.txt below), and BENCH_REPS times over: perftest on raw
# verbs, then the same operation through DAT (datbench), then for the
# send/recv rows rsocket (rstream), alternating so that drift hits all
# alike.  Both stacks run in the same mode: the same iterations, the
# same outstanding writes for the bandwidth rows (perftest -t WINDOW -Q 1,
# datbench -w WINDOW, every write signaled), busy polling on both sides
# (datbench's server spins while the client measures, as perftest's
# does) and the same CPUs (taskset: server on BENCH_SRV_CPU, client on
# BENCH_CLI_CPU).  The CPU time of each side is recorded, so the mode
# can be checked rather than assumed.  Then callgrind over datbench loop
# and hotpath-verbs callgrind, the contended row (datbench contend), and
# the scaling figures: dat_ia_open + close against rawbench open, taken
# in turn; datbench scale (one process) and scale_server/scale_client
# (two); rawbench wake.  Writes raw figures to WORKDIR:
#   runs.tsv      row stack rep value   (one line per run; value "fail")
#   cpu.tsv       row stack rep side wall user sys   (seconds)
#   cg-{dat,verbs}.{loop,empty}  callgrind dumps, cg-*.out their output
#   scale.txt     SCALE lines of datbench, RAW lines of rawbench
#   contend.txt   datbench contend's RESULT lines
#   meta.txt      date, machine, device, emulation
#   log/          every program's output
# test/bench/report.sh turns them into the Markdown table and the plot.
# Exit status: 0 when every run produced its figure.  Nothing asserts
# timing.
#
# Environment: BENCH_REPS (7: report.sh's spread takes the quartiles from
# 5 runs on), BENCH_MAX_EPS (1024: one process),
# BENCH_MAX_EPS2 (256: two processes), BENCH_WINDOW (32), BENCH_PARTS
# (which parts run: "lat cg contend scale", all by default),
# BENCH_SRV_CPU/BENCH_CLI_CPU (1/2 with 3 or more CPUs, 0/1 with 2, else
# unpinned),
# BENCH_SRV_IA/BENCH_CLI_IA
# (rxe0-cma/rxe1-cma), BENCH_SRV_DEV/BENCH_CLI_DEV (rxe0/rxe1),
# BENCH_SRV_ADDR/BENCH_CLI_ADDR (10.77.0.1/10.77.0.2), BENCH_QUICK=1 (a
# tenth of the iterations, one size per test: to try the script out),
# BENCH_ONLY=instructions (only the callgrind counts: no perftest needed),
# BENCH_ROWS (an extended regex: only the latency/bandwidth rows whose
# line in rows.txt matches, e.g. 'read_lat 65536|atomic_cas', to look
# into a few rows with more reps), BENCH_SPIN_US (5000:
# DAPL_EVD_WAIT_SPIN_US of the spin-before-block
# wake-ups), BENCH_OLD_LIB (a directory of older libdat.so.1 + providers: their
# dat_ia_open + close is taken in turn with these, before.txt).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
W=${1:?usage: run-bench.sh WORKDIR}
mkdir -p "$W/log"
W=$(cd "$W" && pwd)
REPS=${BENCH_REPS:-7}
MAX_EPS=${BENCH_MAX_EPS:-1024}
MAX_EPS2=${BENCH_MAX_EPS2:-256}
WINDOW=${BENCH_WINDOW:-32}
PARTS=${BENCH_PARTS:-lat cg contend scale}
if [ "$(nproc)" -ge 3 ]; then
	SRV_CPU=${BENCH_SRV_CPU:-1} CLI_CPU=${BENCH_CLI_CPU:-2}
elif [ "$(nproc)" -eq 2 ]; then
	SRV_CPU=${BENCH_SRV_CPU:-0} CLI_CPU=${BENCH_CLI_CPU:-1}
else
	SRV_CPU=${BENCH_SRV_CPU:-} CLI_CPU=${BENCH_CLI_CPU:-}
fi
SIA=${BENCH_SRV_IA:-rxe0-cma}
CIA=${BENCH_CLI_IA:-rxe1-cma}
SDEV=${BENCH_SRV_DEV:-rxe0}
CDEV=${BENCH_CLI_DEV:-rxe1}
SADDR=${BENCH_SRV_ADDR:-10.77.0.1}
CADDR=${BENCH_CLI_ADDR:-10.77.0.2}
SCALE=${TEST_TIMEOUT_SCALE:-1}
DATBENCH=$TOP/build/test/bench/datbench
RAWBENCH=$TOP/build/test/bench/rawbench
HOTPATH_VERBS=$TOP/build/test/verbs/hotpath-verbs
export LD_LIBRARY_PATH=$TOP/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# the guest's registry (rxe0-cma, rxe1-cma) unless the caller has one
if [ -z "${DAT_OVERRIDE:-}" ] && [ "$SIA" = rxe0-cma ]; then
	export DAT_OVERRIDE=$TOP/test/vm/dat.conf
fi
ATOMIC_HDR=$TOP/include/dat/dat_ib_extensions.h
FAILED=0

for p in "$DATBENCH" "$RAWBENCH" "$HOTPATH_VERBS"; do
	[ -x "$p" ] || { echo "run-bench: $p is missing (make bench-programs)" >&2; exit 2; }
done
tools="ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat ib_write_bw valgrind rstream taskset"
[ "${BENCH_ONLY:-}" = instructions ] && tools=valgrind
for t in $tools; do
	command -v $t > /dev/null || { echo "run-bench: $t is missing (sh scripts/deps.sh perftest valgrind rdmacm-utils util-linux)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run-bench: /usr/bin/time is missing (sh scripts/deps.sh time)" >&2; exit 2; }

# rows: name perftest-command perftest-extra datbench-test size iterations
# (iterations shrink with size so that a run stays short under TCG)
rows() {
	local s n
	for s in 64:5000 4096:2000 65536:300 1048576:20; do
		n=${s#*:} s=${s%:*}
		[ -n "${BENCH_QUICK:-}" ] && { [ "$s" = 64 ] || continue; n=$((n / 10)); }
		echo "send_lat ib_send_lat - send_lat $s $n"
		echo "write_lat ib_write_lat - write_lat $s $n"
		echo "read_lat ib_read_lat - read_lat $s $n"
	done
	n=5000; [ -n "${BENCH_QUICK:-}" ] && n=500
	echo "atomic_fadd ib_atomic_lat -A:FETCH_AND_ADD atomic_fadd 8 $n"
	echo "atomic_cas ib_atomic_lat -A:CMP_AND_SWAP atomic_cas 8 $n"
	for s in 64:5000 4096:2000 65536:300 1048576:30; do
		n=${s#*:} s=${s%:*}
		[ -n "${BENCH_QUICK:-}" ] && { [ "$s" = 65536 ] || continue; n=$((n / 10)); }
		echo "write_bw ib_write_bw - write_bw $s $n"
	done
}

# wait_for FILE REGEX SECS PID: until FILE has a line matching REGEX;
# fails early when PID is gone
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -Eq "$2" "$1" 2> /dev/null && return 0
		kill -0 "$4" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# perftest's (port 18515) or rstream's (7471) server listens through
# rdma_cm once `rdma resource` shows its id in LISTEN on its port
cm_listening() {
	local i
	for ((i = 0; i < 300 * SCALE; i++)); do
		rdma resource show cm_id 2> /dev/null | grep -q "LISTEN.*:$2\b" && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# run_pair LOG KIND SERVER-CMD -- CLIENT-CMD: the server in the background,
# the client once it listens; both bounded, pinned, and timed (LOG.srv.cpu,
# LOG.cpu: wall, user and system seconds, GNU time).  A failed pair is tried once
# more (a connection rejected under load is not what we measure); the
# first attempt's output stays in LOG.1.
run_pair() {
	run_pair_once "$@" && return 0
	mv "$1" "$1.1"
	mv "$1.srv" "$1.1.srv"
	run_pair_once "$@"
}

# the taskset prefix for CPU (nothing when unpinned)
on_cmd() { [ -n "$1" ] && echo "taskset -c $1"; }

run_pair_once() {
	local log=$1 kind=$2 spid rc=0 t=$((120 * SCALE))
	shift 2
	local -a srv=()
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	timeout -k 5 $t /usr/bin/time -f '%e %U %S' -o "$log.srv.cpu" \
		$(on_cmd "$SRV_CPU") "${srv[@]}" > "$log.srv" 2>&1 &
	spid=$!
	case $kind in
	perftest) cm_listening $spid 18515 || rc=1 ;;
	rsocket) cm_listening $spid 7471 || rc=1 ;;
	*) wait_for "$log.srv" '^listening$' $t $spid || rc=1 ;;
	esac
	if [ $rc -eq 0 ]; then
		timeout -k 5 $t /usr/bin/time -f '%e %U %S' -o "$log.cpu" \
			$(on_cmd "$CLI_CPU") "$@" > "$log" 2>&1 || rc=1
	else
		echo "server did not listen" > "$log"
	fi
	# a server whose client failed would wait for another one
	[ $rc -eq 0 ] || kill $spid 2> /dev/null
	wait $spid || rc=1
	return $rc
}

# perftest's figures in LOG for SIZE and N: "typical p99" (latency: its
# t_typical and 99% percentile columns) or "average" (ib_write_bw's BW
# average), or nothing
perftest_figure() {
	local cmd=$1 size=$2 n=$3 log=$4 f
	if [ "$cmd" = ib_write_bw ]; then
		f=$(awk -v s="$size" -v n="$n" '$1 == s && $2 == n { print $4; exit }' "$log")
		[[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$f"
	else
		f=$(awk -v s="$size" -v n="$n" '$1 == s && $2 == n { print $5, $8; exit }' "$log")
		[[ $f =~ ^[0-9]+(\.[0-9]+)?\ [0-9]+(\.[0-9]+)?$ ]] && echo "$f"
	fi
}

# verbs NAME CMD EXTRA SIZE N LOG -> prints the figure(s) (see perftest_figure)
run_verbs() {
	local name=$1 cmd=$2 extra=${3//:/ } size=$4 n=$5 log=$6 f try
	[ "$extra" = - ] && extra=
	local -a common=(-R -F -s "$size" -n "$n")
	# the same outstanding writes as datbench -w, each one signaled
	[ "$cmd" = ib_write_bw ] && common+=(-t $((n < WINDOW ? n : WINDOW)) -Q 1)
	# perftest's client sometimes prints "inf" or "-nan" for a run that
	# completed (its cycle counter under emulation): the ping-pongs time
	# the same round trips on the server side too, whose figure is then
	# taken; for the others the run is made once more (the first one's
	# output stays in LOG.inf)
	for try in 1 2; do
		# shellcheck disable=SC2086
		run_pair "$log" perftest $cmd -d "$SDEV" "${common[@]}" $extra -- \
			$cmd -d "$CDEV" "${common[@]}" $extra "$SADDR" || return 1
		f=$(perftest_figure "$cmd" "$size" "$n" "$log")
		# a bandwidth that would take longer than the whole client
		# process ran is the cycle arithmetic's, not the wire's (the
		# 0.00 MB/s of 2026-11-22): no figure
		if [ -n "$f" ] && [ "$cmd" = ib_write_bw ] && ! awk -v s="$size" -v n="$n" -v bw="$f" \
			-v wall="$(cut -d' ' -f1 "$log.cpu" 2> /dev/null)" \
			'BEGIN { exit !(bw > 0 && (wall == "" || s * n / (bw * 1048576) <= wall)) }'; then
			echo "run-bench: $name $size: perftest's $f MB/s cannot be (the client ran $(cut -d' ' -f1 "$log.cpu") s)" >&2
			f=
		fi
		if [ -z "$f" ] && [[ $cmd = ib_send_lat || $cmd = ib_write_lat ]]; then
			f=$(perftest_figure "$cmd" "$size" "$n" "$log.srv")
			[ -n "$f" ] && echo "run-bench: $name $size: client printed no figure, the server's taken ($log.srv)" >&2
		fi
		[ -n "$f" ] && { echo "$f"; return 0; }
		[ $try = 1 ] && { mv "$log" "$log.inf"; echo "run-bench: $name $size: perftest printed no figure, once more ($log.inf)" >&2; }
	done
	return 1
}

# dat TEST SIZE N LOG -> "typical p99" or the bandwidth
run_dat() {
	local test=$1 size=$2 n=$3 log=$4 f w=$(($3 < WINDOW ? $3 : WINDOW))
	run_pair "$log" dat "$DATBENCH" server -D "$SIA" -t "$test" -s "$size" -n "$n" -w $w -P spin -- \
		"$DATBENCH" client -D "$CIA" -h "$SADDR" -t "$test" -s "$size" -n "$n" -w $w || return 1
	f=$(sed -n 's/^RESULT .* bw=\([0-9.]*\).*/\1/p; s/^RESULT .* typ=\([0-9.]*\) .* p99=\([0-9.]*\).*/\1 \2/p' "$log")
	[[ $f =~ ^[0-9]+(\.[0-9]+)?(\ [0-9]+(\.[0-9]+)?)?$ ]] && echo "$f"
}

# rsocket (rstream, its default nonblocking calls: busy polling like the
# other two) SIZE COUNT ITERS LOG -> "usec/xfer seconds" of the client
# (its Gb/sec has two decimals: 0.00 for a 64-byte stream)
run_rsocket() {
	local size=$1 count=$2 iters=$3 log=$4 f
	run_pair "$log" rsocket rstream -b "$SADDR" -S "$size" -C "$count" -I "$iters" -- \
		rstream -s "$SADDR" -b "$CADDR" -S "$size" -C "$count" -I "$iters" || return 1
	f=$(awk 'NF >= 8 && $NF ~ /^[0-9.]+$/ { t = $(NF - 2); sub(/s$/, "", t); v = $NF " " t } END { print v }' "$log")
	[[ $f =~ ^[0-9]+(\.[0-9]+)?\ [0-9]+(\.[0-9]+)?$ ]] && echo "$f"
}

record() { # row stack rep value
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$W/runs.tsv"
}

# record_cpu ROW STACK REP LOG: both sides' wall, user and system seconds
record_cpu() {
	local side f
	for side in srv cli; do
		f=$4.cpu
		[ $side = srv ] && f=$4.srv.cpu
		[ -s "$f" ] || continue
		printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$side" "$(tail -1 "$f" | tr ' ' '\t')" >> "$W/cpu.tsv"
	done
}

meta() {
	{
		echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "machine	$(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
		echo "emulation	${VM_GUEST:+soft-RoCE guest (test/vm), accel ${VM_ACCEL:-?}}"
		echo "device	$SDEV ($SIA, $SADDR) <-> $CDEV ($CIA, $CADDR): $(cat /sys/class/infiniband/$SDEV/node_desc 2> /dev/null), fw $(cat /sys/class/infiniband/$SDEV/fw_ver 2> /dev/null)"
		echo "perftest	$(ib_send_lat --version 2>&1 | head -1)"
		echo "reps	$REPS"
		echo "window	$WINDOW"
		echo "cpus	server ${SRV_CPU:-any}, client ${CLI_CPU:-any}"
		echo "atomic_ext	$([ -e "$ATOMIC_HDR" ] && echo present || echo pending)"
	} > "$W/meta.txt"
}

# record_lat ROW STACK REP "TYPICAL P99": the typical figure as ROW, the
# 99th percentile as ROW's p99 twin (name_p99:size)
record_lat() {
	local row=$1 stack=$2 rep=$3 v=$4
	record "$row" "$stack" "$rep" "${v%% *}"
	case $v in
	*' '*) record "${row%%:*}_p99:${row#*:}" "$stack" "$rep" "${v#* }" ;;
	fail | pending) record "${row%%:*}_p99:${row#*:}" "$stack" "$rep" "$v" ;;
	esac
}

latency_and_bandwidth() {
	local rep name cmd extra dtest size n v vv rv tag
	if [ -n "${BENCH_ROWS:-}" ]; then
		rows | grep -E -- "$BENCH_ROWS" > "$W/rows.txt" ||
			{ echo "run-bench: no row matches BENCH_ROWS=$BENCH_ROWS" >&2; exit 2; }
	else
		rows > "$W/rows.txt"
	fi
	for ((rep = 1; rep <= REPS; rep++)); do
		while read -r name cmd extra dtest size n; do
			tag="$name-$size-$rep"
			vv=$(run_verbs "$name" "$cmd" "$extra" "$size" "$n" "$W/log/verbs-$tag") || vv=fail
			[ "$vv" = fail ] && FAILED=1
			record_cpu "$name:$size" verbs $rep "$W/log/verbs-$tag"
			case $dtest in
			atomic_*)
				if [ -e "$ATOMIC_HDR" ] && "$DATBENCH" 2>&1 | grep -q atomic; then
					v=$(run_dat "$dtest" "$size" "$n" "$W/log/dat-$tag") || v=fail
				else
					v=pending
				fi ;;
			*) v=$(run_dat "$dtest" "$size" "$n" "$W/log/dat-$tag") || v=fail ;;
			esac
			[ "$v" = fail ] && FAILED=1
			record_cpu "$name:$size" dat $rep "$W/log/dat-$tag"
			if [ "$name" = write_bw ]; then
				record "$name:$size" verbs $rep "$vv"
				record "$name:$size" dat $rep "$v"
			else
				record_lat "$name:$size" verbs $rep "$vv"
				record_lat "$name:$size" dat $rep "$v"
			fi
			rv=
			if [ "$name" = send_lat ]; then
				# rsocket's ping-pong (-C 1 -I n: usec/xfer is half
				# the round trip) and its stream (-C n -I 1)
				rv=$(run_rsocket "$size" 1 "$n" "$W/log/rs-lat-$tag") || rv=fail
				[ "$rv" = fail ] && FAILED=1
				record "rs_lat:$size" rsocket $rep "${rv%% *}"
				record_cpu "rs_lat:$size" rsocket $rep "$W/log/rs-lat-$tag"
				rv=$(run_rsocket "$size" "$n" 1 "$W/log/rs-bw-$tag") || rv=fail
				[ "$rv" = fail ] && FAILED=1
				# n transfers each way in that many seconds -> MB/s (2^20 bytes)
				record "rs_bw:$size" rsocket $rep "$(awk -v t="${rv#* }" -v s="$size" -v n="$n" 'BEGIN { if (t ~ /^[0-9.]+$/ && t > 0) printf "%.2f", 2 * s * n / t / 1048576; else print "fail" }')"
			fi
			echo "run-bench: rep $rep $name $size: verbs $vv, dat $v${rv:+, rsocket $rv}"
		done < "$W/rows.txt"
	done
}

# callgrind over N rounds of the loop (2 posts + 2 completions each)
instructions() {
	local n=${BENCH_CG_ROUNDS:-200} s
	for s in dat verbs; do
		rm -f "$W"/cg-$s.*
		local -a cmd
		if [ $s = dat ]; then
			cmd=("$DATBENCH" loop -D "$SIA" -C "$CIA" -h "$SADDR" -n $n)
		else
			cmd=("$HOTPATH_VERBS" callgrind "$SADDR" "$CADDR" $n)
		fi
		timeout -k 5 $((300 * SCALE)) valgrind --tool=callgrind --collect-atstart=no \
			--callgrind-out-file="$W/cg-$s.%p" "${cmd[@]}" > "$W/cg-$s.out" 2>&1 || {
			echo "run-bench: callgrind $s failed (see $W/cg-$s.out)" >&2
			FAILED=1
			continue
		}
		# name the two dumps by their trigger
		for f in "$W"/cg-$s.[0-9]*; do
			case $(grep -m1 '^desc: Trigger' "$f") in
			*loop*) mv "$f" "$W/cg-$s.loop" ;;
			*empty*) mv "$f" "$W/cg-$s.empty" ;;
			*) rm -f "$f" ;;
			esac
		done
		[ -s "$W/cg-$s.loop" ] && [ -s "$W/cg-$s.empty" ] || FAILED=1
		echo "run-bench: callgrind $s: $(grep '^LOOP' "$W/cg-$s.out")"
	done
}

# two threads posting on one threadsafe IA, against one
contended() {
	local rep
	: > "$W/contend.txt"
	for ((rep = 1; rep <= REPS; rep++)); do
		timeout -k 5 $((300 * SCALE)) "$DATBENCH" contend -D "$SIA" -C "$CIA" -h "$SADDR" \
			-s 64 -n "${BENCH_CONTEND_ITERS:-5000}" -w "$WINDOW" > "$W/log/contend-$rep" 2>&1 ||
			{ FAILED=1; echo "run-bench: contend failed" >&2; }
		grep '^RESULT contend' "$W/log/contend-$rep" >> "$W/contend.txt"
	done
	cat "$W/contend.txt"
}

scaling() {
	local rep rc=0 spid
	: > "$W/scale.txt"
	# dat_ia_open + close and its raw twin, in turn (and, with
	# BENCH_OLD_LIB, the same through the libraries in that directory:
	# before.txt, "REP old|new SCALE ...")
	[ -n "${BENCH_OLD_LIB:-}" ] && : > "$W/before.txt"
	for ((rep = 1; rep <= REPS; rep++)); do
		"$RAWBENCH" open -a "$SADDR" > "$W/log/rawopen-$rep" 2>&1 || FAILED=1
		"$DATBENCH" iaopen -D "$SIA" > "$W/log/iaopen-$rep" 2>&1 || FAILED=1
		sed "s/^/$rep /" "$W/log/rawopen-$rep" "$W/log/iaopen-$rep" | grep -E '^[0-9]+ (RAW|SCALE) ' >> "$W/scale.txt"
		if [ -n "${BENCH_OLD_LIB:-}" ]; then
			LD_LIBRARY_PATH=$BENCH_OLD_LIB:$LD_LIBRARY_PATH "$DATBENCH" iaopen -D "$SIA" \
				> "$W/log/iaopen-old-$rep" 2>&1 || FAILED=1
			{ sed -n "s/^SCALE/$rep old SCALE/p" "$W/log/iaopen-old-$rep"
			  sed -n "s/^SCALE/$rep new SCALE/p" "$W/log/iaopen-$rep"; } >> "$W/before.txt"
		fi
	done
	timeout -k 5 $((60 * SCALE)) "$RAWBENCH" wake > "$W/log/rawwake" 2>&1 || FAILED=1
	grep '^RAW' "$W/log/rawwake" >> "$W/scale.txt"
	# the opt-in spin before blocking (DAPL_EVD_WAIT_SPIN_US,
	# udapl/evd_dequeue.c): the same wake-ups with BENCH_SPIN_US (5000:
	# longer than datbench's 3 ms lead, so the waiter still checks when
	# the event comes); one 16-pair round only
	timeout -k 5 $((300 * SCALE)) env DAPL_EVD_WAIT_SPIN_US=${BENCH_SPIN_US:-5000} \
		"$DATBENCH" scale -D "$SIA" -C "$CIA" -h "$SADDR" -l 16 -m 16 > "$W/log/scale-spin" 2>&1 || FAILED=1
	echo "SPIN spin_us ${BENCH_SPIN_US:-5000}" >> "$W/scale.txt"
	sed -n 's/^SCALE \(wake_\|wait_cpu\)/SPIN \1/p' "$W/log/scale-spin" >> "$W/scale.txt"
	timeout -k 5 $((900 * SCALE)) "$DATBENCH" scale -D "$SIA" -C "$CIA" -h "$SADDR" \
		-l 16 -m "$MAX_EPS" > "$W/log/scale" 2>&1 || { FAILED=1; echo "run-bench: scale failed" >&2; }
	grep '^SCALE' "$W/log/scale" >> "$W/scale.txt"
	# two processes
	timeout -k 5 $((900 * SCALE)) "$DATBENCH" scale_server -D "$SIA" -l 16 -m "$MAX_EPS2" \
		> "$W/log/scale2.srv" 2>&1 &
	spid=$!
	if wait_for "$W/log/scale2.srv" '^listening$' $((120 * SCALE)) $spid; then
		timeout -k 5 $((900 * SCALE)) "$DATBENCH" scale_client -D "$CIA" -h "$SADDR" -l 16 \
			-m "$MAX_EPS2" > "$W/log/scale2" 2>&1 || rc=1
	else
		rc=1
	fi
	[ $rc -eq 0 ] || kill $spid 2> /dev/null
	wait $spid || rc=1
	[ $rc -eq 0 ] || { FAILED=1; echo "run-bench: scale across two processes failed" >&2; }
	grep '^SCALE' "$W/log/scale2" >> "$W/scale.txt"
	cat "$W/scale.txt"
}

: > "$W/runs.tsv"
: > "$W/cpu.tsv"
meta
if [ "${BENCH_ONLY:-}" = instructions ]; then
	instructions
	exit $FAILED
fi
start=$(date +%s)
for part in $PARTS; do
	case $part in
	lat) latency_and_bandwidth ;;
	cg) instructions ;;
	contend) contended ;;
	scale) scaling ;;
	*) echo "run-bench: unknown part $part" >&2; exit 2 ;;
	esac
	echo "run-bench: $part done at $(( $(date +%s) - start )) s"
done
echo "run-bench: all runs took $(( $(date +%s) - start )) s"
exit $FAILED
