#!/bin/bash
# test/bench/run-bench.sh WORKDIR - the runs of `make bench` (issue 10).
#
# Runs on the RDMA devices of the machine it is on (make bench starts it
# inside the soft-RoCE guest when the host has none).  For each row of
# the table (rows.txt below), and BENCH_REPS times over: perftest on raw
# verbs, then the same operation through DAT (datbench), alternating so
# that drift hits both alike.  Then callgrind over datbench loop and
# hotpath-verbs callgrind, and datbench scale.  Writes raw figures to
# WORKDIR:
#   runs.tsv      row stack rep value   (one line per run; value "fail")
#   cg-{dat,verbs}.{loop,empty}  callgrind dumps, cg-*.out their output
#   scale.txt     datbench scale's SCALE lines
#   meta.txt      date, machine, device, emulation
#   log/          every program's output
# test/bench/report.sh turns them into the Markdown table and the plot.
# Exit status: 0 when every run produced its figure.  Nothing asserts
# timing.
#
# Environment: BENCH_REPS (3), BENCH_MAX_EPS (256), BENCH_SRV_IA/BENCH_CLI_IA
# (rxe0-cma/rxe1-cma), BENCH_SRV_DEV/BENCH_CLI_DEV (rxe0/rxe1),
# BENCH_SRV_ADDR/BENCH_CLI_ADDR (10.77.0.1/10.77.0.2), BENCH_QUICK=1 (a
# tenth of the iterations, one size per test: to try the script out),
# BENCH_ONLY=instructions (only the callgrind counts: no perftest needed).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
W=${1:?usage: run-bench.sh WORKDIR}
mkdir -p "$W/log"
W=$(cd "$W" && pwd)
REPS=${BENCH_REPS:-3}
MAX_EPS=${BENCH_MAX_EPS:-256}
SIA=${BENCH_SRV_IA:-rxe0-cma}
CIA=${BENCH_CLI_IA:-rxe1-cma}
SDEV=${BENCH_SRV_DEV:-rxe0}
CDEV=${BENCH_CLI_DEV:-rxe1}
SADDR=${BENCH_SRV_ADDR:-10.77.0.1}
CADDR=${BENCH_CLI_ADDR:-10.77.0.2}
SCALE=${TEST_TIMEOUT_SCALE:-1}
DATBENCH=$TOP/build/test/bench/datbench
HOTPATH_VERBS=$TOP/build/test/verbs/hotpath-verbs
export LD_LIBRARY_PATH=$TOP/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# the guest's registry (rxe0-cma, rxe1-cma) unless the caller has one
if [ -z "${DAT_OVERRIDE:-}" ] && [ "$SIA" = rxe0-cma ]; then
	export DAT_OVERRIDE=$TOP/test/vm/dat.conf
fi
ATOMIC_HDR=$TOP/include/dat/dat_ib_extensions.h
FAILED=0

for p in "$DATBENCH" "$HOTPATH_VERBS"; do
	[ -x "$p" ] || { echo "run-bench: $p is missing (make bench-programs)" >&2; exit 2; }
done
tools="ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat ib_write_bw valgrind"
[ "${BENCH_ONLY:-}" = instructions ] && tools=valgrind
for t in $tools; do
	command -v $t > /dev/null || { echo "run-bench: $t is missing (sh scripts/deps.sh perftest valgrind)" >&2; exit 2; }
done

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

# perftest's server listens through rdma_cm once `rdma resource` shows
# its id in LISTEN on its port
perftest_listening() {
	local i
	for ((i = 0; i < 300 * SCALE; i++)); do
		rdma resource show cm_id 2> /dev/null | grep -q "LISTEN.*:18515" && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# run_pair LOG KIND SERVER-CMD -- CLIENT-CMD: the server in the background,
# the client once it listens; both bounded.  A failed pair is tried once
# more (a connection rejected under load is not what we measure); the
# first attempt's output stays in LOG.1.
run_pair() {
	run_pair_once "$@" && return 0
	mv "$1" "$1.1"
	mv "$1.srv" "$1.1.srv"
	run_pair_once "$@"
}

run_pair_once() {
	local log=$1 kind=$2 spid rc=0 t=$((120 * SCALE))
	shift 2
	local -a srv=()
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	timeout -k 5 $t "${srv[@]}" > "$log.srv" 2>&1 &
	spid=$!
	if [ "$kind" = perftest ]; then
		perftest_listening $spid || rc=1
	else
		wait_for "$log.srv" '^listening$' $t $spid || rc=1
	fi
	if [ $rc -eq 0 ]; then
		timeout -k 5 $t "$@" > "$log" 2>&1 || rc=1
	else
		echo "server did not listen" > "$log"
	fi
	# a server whose client failed would wait for another one
	[ $rc -eq 0 ] || kill $spid 2> /dev/null
	wait $spid || rc=1
	return $rc
}

# perftest's figure in LOG for SIZE and N (t_typical, or BW average for
# ib_write_bw), or nothing
perftest_figure() {
	local cmd=$1 size=$2 n=$3 log=$4 col=5 f
	[ "$cmd" = ib_write_bw ] && col=4
	f=$(awk -v s="$size" -v n="$n" -v c=$col '$1 == s && $2 == n { print $c; exit }' "$log")
	[[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$f"
}

# verbs NAME CMD EXTRA SIZE N -> prints the figure (t_typical or BW average)
run_verbs() {
	local name=$1 cmd=$2 extra=${3//:/ } size=$4 n=$5 log=$6 f try
	[ "$extra" = - ] && extra=
	local -a common=(-R -F -s "$size" -n "$n")
	[ "$cmd" = ib_write_bw ] && common+=(-t $((n < 128 ? n : 128)))
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
		if [ -z "$f" ] && [[ $cmd = ib_send_lat || $cmd = ib_write_lat ]]; then
			f=$(perftest_figure "$cmd" "$size" "$n" "$log.srv")
			[ -n "$f" ] && echo "run-bench: $name $size: client printed no figure, the server's taken ($log.srv)" >&2
		fi
		[ -n "$f" ] && { echo "$f"; return 0; }
		[ $try = 1 ] && { mv "$log" "$log.inf"; echo "run-bench: $name $size: perftest printed no figure, once more ($log.inf)" >&2; }
	done
	return 1
}

run_dat() {
	local test=$1 size=$2 n=$3 log=$4 f
	run_pair "$log" dat "$DATBENCH" server -D "$SIA" -t "$test" -s "$size" -n "$n" -- \
		"$DATBENCH" client -D "$CIA" -h "$SADDR" -t "$test" -s "$size" -n "$n" || return 1
	f=$(sed -n 's/^RESULT .* \(typ\|bw\)=\([0-9.]*\).*/\2/p' "$log")
	[[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$f"
}

record() { # row stack rep value
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$W/runs.tsv"
}

meta() {
	{
		echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "machine	$(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
		echo "emulation	${VM_GUEST:+soft-RoCE guest (test/vm), accel ${VM_ACCEL:-?}}"
		echo "device	$SDEV ($SIA, $SADDR) <-> $CDEV ($CIA, $CADDR): $(cat /sys/class/infiniband/$SDEV/node_desc 2> /dev/null), fw $(cat /sys/class/infiniband/$SDEV/fw_ver 2> /dev/null)"
		echo "perftest	$(ib_send_lat --version 2>&1 | head -1)"
		echo "reps	$REPS"
		echo "atomic_ext	$([ -e "$ATOMIC_HDR" ] && echo present || echo pending)"
	} > "$W/meta.txt"
}

latency_and_bandwidth() {
	local rep name cmd extra dtest size n v vv tag
	rows > "$W/rows.txt"
	for ((rep = 1; rep <= REPS; rep++)); do
		while read -r name cmd extra dtest size n; do
			tag="$name-$size-$rep"
			vv=$(run_verbs "$name" "$cmd" "$extra" "$size" "$n" "$W/log/verbs-$tag") || vv=fail
			[ "$vv" = fail ] && FAILED=1
			record "$name:$size" verbs $rep "$vv"
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
			record "$name:$size" dat $rep "$v"
			echo "run-bench: rep $rep $name $size: verbs $vv, dat $v"
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

scaling() {
	timeout -k 5 $((600 * SCALE)) "$DATBENCH" scale -D "$SIA" -C "$CIA" -h "$SADDR" \
		-m "$MAX_EPS" > "$W/log/scale" 2>&1 || { FAILED=1; echo "run-bench: scale failed" >&2; }
	grep '^SCALE' "$W/log/scale" > "$W/scale.txt"
	cat "$W/scale.txt"
}

: > "$W/runs.tsv"
meta
if [ "${BENCH_ONLY:-}" = instructions ]; then
	instructions
	exit $FAILED
fi
start=$(date +%s)
latency_and_bandwidth
echo "run-bench: latency and bandwidth took $(( $(date +%s) - start )) s"
instructions
scaling
echo "run-bench: all runs took $(( $(date +%s) - start )) s"
exit $FAILED
