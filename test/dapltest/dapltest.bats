#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/dapltest/dapltest.bats - dapltest (build/bin/dapltest) between
# rxe0-cma (clients) and a server on rxe1-cma, inside the soft-RoCE guest
# (make check-verbs).  The server prints "listening <port>" when it is
# ready: the client starts then (polled, bounded, no fixed sleep).  Every
# wait is bounded and scaled by TEST_TIMEOUT_SCALE.  What dapltest does by
# itself, whatever the transport (-T Q, a wrong IA name, the handshake,
# usage errors, -f <area>), is tested natively:
# test/ofi/dapltest-cli.bats.

SCALE=${TEST_TIMEOUT_SCALE:-1}
TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
DT="$TOP/build/bin/dapltest"
# bounds each program by its silence (test/lib/quiet-timeout.c)
QT="$TOP/build/test/lib/quiet-timeout"
export DAT_OVERRIDE="${DAT_OVERRIDE:-$TOP/test/vm/dat.conf}"
export LD_LIBRARY_PATH="$TOP/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEST_TIMEOUT_SCALE="$SCALE"
SRV_ADDR=10.77.0.2
# the IAs: rxe1-cma serves, rxe0-cma connects, unless DAPLTEST_SERVER_IA
# and DAPLTEST_CLIENT_IA name others on the same devices (the socket
# CM's OpenIB-rxe1-1 and OpenIB-rxe0-1: test/lib/check-verbs.sh, a group
# named scm...)
SRV_IA=${DAPLTEST_SERVER_IA:-rxe1-cma}
CLI_IA=${DAPLTEST_CLIENT_IA:-rxe0-cma}

secs() { echo $(($1 * SCALE)); }
# nap, has_line: waits without a process
load "$TOP/test/lib/wait"

setup_file() {
	local d
	for d in rxe0 rxe1; do
		if [ ! -e "/sys/class/infiniband/$d" ]; then
			echo "no $d: run in the test VM (make check-verbs)" >&2
			return 1
		fi
	done
	[ -x "$DT" ] || { echo "$DT is missing: make test-programs" >&2; return 1; }
}

setup() {
	SRV_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	# as verbs_helpers.bash random_qual: each lane of check-verbs.sh its
	# own ports, below the ephemeral ones
	PORT=$((20000 + ${VERBS_LANE:-0} * 4000 + RANDOM % 4000))
}

teardown() {
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null || :
		wait "$SRV_PID" 2> /dev/null || :
	fi
}

# the server on $SRV_IA in the background (fd 3 closed, or bats waits),
# for at most SRV_SECS seconds (scaled; default 200)
start_server() {
	: > "$SRV_OUT" # before the job starts (verbs_helpers start_server)
	"$QT" -t "$(secs $((10 * ${SRV_SECS:-200})))" "$(secs "${SRV_SECS:-200}")" "$DT" -T S -D "$SRV_IA" -n "$PORT" "$@" \
		> "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_line "$SRV_OUT" "$SRV_PID" "listening $PORT" 30
}

# stop_server: -T Q, then the server must exit 0
stop_server() {
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$DT" -T Q -s $SRV_ADDR -D "$CLI_IA" -n "$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	local rc=0
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	echo "--- server (exit status $rc):"
	cat "$SRV_OUT"
	[ "$rc" -eq 0 ]
	grep -q '^Dapltest server: finished$' "$SRV_OUT"
}

# client ARGS...: dapltest against the server, bounded; output in $output
client() {
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$DT" -s $SRV_ADDR -D "$CLI_IA" -n "$PORT" "$@"
	echo "--- client exit status $status:"
	echo "$output"
}

@test "transaction test, validated: 3 threads x 2 EPs, SR RR RW both ways" {
	start_server
	client -T T -t 3 -w 2 -i 8 -V client SR 4096 3 server SR 100 \
		client RR 8192 2 server RR 512 client RW 2048 4 server RW 64
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED: 3 thread(s) x 2 EP(s) x 8 iteration(s) x 6 op(s)' <<< "$output"
	stop_server
	grep -q '^Server: transaction test done$' "$SRV_OUT"
}

@test "transaction test, validated, polling (-P) and through CNOs (-Q), -f reaps by polling" {
	start_server
	client -T T -t 2 -w 1 -i 5 -V -P client SR 256 server RW 1024 2 client RR 1024 -f
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED' <<< "$output"
	client -T T -t 2 -w 2 -i 5 -V -Q server SR 256 client RW 1024 server RR 1024
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED' <<< "$output"
	stop_server
}

# perf_ok: both figure lines, three positive numbers each
perf_ok() {
	local what n
	for what in 'latency (us per op):' 'bandwidth (MB/s):'; do
		n=$(grep -F "  $what" <<< "$output" |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $i + 0 > 0) c++ } END { print c + 0 }')
		[ "$n" -eq 3 ] || { echo "no three positive figures for $what"; return 1; }
	done
	grep -q '^Performance test: PASSED$' <<< "$output"
}

# -i N is N operations, as OFA's dapltest counts them (dapltest(1))
@test "performance test: RW, RR (blocking) and SR (polling) print positive latency and bandwidth; -i counts operations" {
	start_server
	client -T P -m b -i 20 -p 4 RW 8192
	[ "$status" -eq 0 ]
	perf_ok
	grep -q '^  20 ops, 163840 bytes in ' <<< "$output"
	client -T P -m b -i 20 -p 2 RR 4096 2
	[ "$status" -eq 0 ]
	perf_ok
	grep -q 'pipeline 2, 20 op(s) in 10 round(s)' <<< "$output"
	client -T P -m p -i 10 -p 4 SR 1024
	[ "$status" -eq 0 ]
	perf_ok
	grep -q 'pipeline 4, 10 op(s) in 3 round(s)' <<< "$output"
	grep -q '^  10 ops, 10240 bytes in ' <<< "$output"
	stop_server
}

@test "limit test: every object type reaches the cap and everything is freed (2 rounds)" {
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$DT" -T L -D rxe0-cma -m 12 -w 2
	echo "$output"
	[ "$status" -eq 0 ]
	for l in limit_ia limit_pz limit_cno limit_evd limit_ep limit_rsp \
		limit_psp limit_lmr limit_rpost limit_size_lmr; do
		grep -q "^$l  *Result: PASS  12 created (the cap), all freed (2 round(s))\$" <<< "$output"
	done
	grep -q '^limit_ia_close_graceful  *Result: PASS' <<< "$output"
	grep -q '^11 passed, 0 failed$' <<< "$output"
}

@test "functional suite: at least 40 cases, no FAIL, no UNSUPP; TAP output" {
	start_server
	client -T F
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result: PASS$' <<< "$output")" -ge 40 ]
	[ "$(grep -c 'Result: FAIL' <<< "$output")" -eq 0 ]
	[ "$(grep -c 'Result: UNSUPP' <<< "$output")" -eq 0 ]
	grep -Eq '^[0-9]+ passed, 0 failed$' <<< "$output"
	for g in hwconn pz mem endpoint cqmgt queryinfo connmgt dataxfer rmr atomic; do
		n=$("$DT" -T F --list | awk -v g=$g '$1 == g' | wc -l)
		[ "$n" -ge 3 ] || { echo "group $g has $n cases"; false; }
	done
	client -T F --tap queryinfo cm_peer_rejected
	[ "$status" -eq 0 ]
	grep -q '^1\.\.8$' <<< "$output"
	[ "$(grep -c '^ok ' <<< "$output")" -eq 8 ]
	[ "$(grep -c '^not ok' <<< "$output")" -eq 0 ]
	grep -q '^ok [0-9]* - qi_wrong_type_query$' <<< "$output"
	stop_server
}

# the cases of the rmr and atomic groups (dapltest -T F --list)
rmr_atomic_cases() {
	"$DT" -T F --list | awk '$1 == "rmr" || $1 == "atomic"' | wc -l
}

@test "functional rmr and atomic groups: every case PASS on rxe, the service answered commands" {
	local n
	n=$(rmr_atomic_cases)
	[ "$n" -ge 14 ]
	start_server
	client -T F rmr atomic
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result: PASS$' <<< "$output")" -eq "$n" ]
	grep -q "^$n passed, 0 failed\$" <<< "$output"
	for c in rmr_remote_write_read rmr_unbind rmr_rebind rmr_free_bound \
		rmr_read_only at_fetch_add at_cmp_swap at_no_atomic_priv; do
		grep -q "^$c  *Result: PASS\$" <<< "$output"
	done
	stop_server
	grep -Eq '^Server: echo service: [0-9]+ connection\(s\), [0-9]+ message\(s\) echoed, [1-9][0-9]* command\(s\) answered$' "$SRV_OUT"
}

@test "functional rmr and atomic groups with DAPL_CMA_DISABLE=mw,atomic: UNSUPP, no FAIL" {
	local n
	n=$(rmr_atomic_cases)
	start_server
	DAPL_CMA_DISABLE=mw,atomic client -T F rmr atomic
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result: FAIL' <<< "$output")" -eq 0 ]
	# all but at_wrong_handle: a handle that is no EP is refused before
	# the provider asks its device
	[ "$(grep -c 'Result: UNSUPP' <<< "$output")" -eq $((n - 1)) ]
	grep -q '^at_wrong_handle  *Result: PASS$' <<< "$output"
	grep -q '^rmr_create_free  *Result: UNSUPP  dat_ia_query: max_rmrs 0 .*dat_rmr_create: DAT_MODEL_NOT_SUPPORTED$' <<< "$output"
	grep -q '^at_attributes  *Result: UNSUPP  provider attributes .* FALSE .*both calls DAT_MODEL_NOT_SUPPORTED$' <<< "$output"
	grep -q "^1 passed, 0 failed, $((n - 1)) unsupported\$" <<< "$output"
	# TAP: UNSUPP is a SKIP
	DAPL_CMA_DISABLE=mw,atomic client -T F --tap rmr_unbind at_fetch_add
	[ "$status" -eq 0 ]
	grep -q '^ok 1 - rmr_unbind # SKIP ' <<< "$output"
	grep -q '^ok 2 - at_fetch_add # SKIP ' <<< "$output"
	stop_server
}

@test "an unreachable server fails fast (exit 4): nobody on the port, no such host" {
	local t0=$SECONDS
	client -T T -i 1 client SR 64
	[ "$status" -eq 4 ]
	grep -q 'NON_PEER_REJECTED' <<< "$output"
	grep -q 'cannot reach a dapltest server' <<< "$output"
	run "$QT" -t "$(secs 900)" "$(secs 90)" "$DT" -T P -s 10.77.0.99 -D rxe0-cma -n "$PORT" RW
	echo "$output"
	[ "$status" -eq 4 ]
	grep -q 'cannot reach a dapltest server at 10.77.0.99' <<< "$output"
	[ $((SECONDS - t0)) -lt "$(secs 80)" ]
}

@test "a crashed server: the client stops with a clear message, non-zero, no hang" {
	# no timeout wrapper here: SRV_PID must be dapltest itself, to kill
	# it; teardown (or the kill below) bounds it
	"$DT" -T S -D rxe1-cma -n "$PORT" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_line "$SRV_OUT" "$SRV_PID" "listening $PORT" 30
	"$DT" -s $SRV_ADDR -D rxe0-cma -n "$PORT" -T T -t 1 -w 2 -i 100000 \
		client SR 1024 server RW 1024 > "$BATS_TEST_TMPDIR/client.out" 2>&1 3>&- &
	local cpid=$!
	wait_line "$SRV_OUT" "$SRV_PID" 'Server: transaction test from a client' 30
	kill -9 "$SRV_PID"
	wait "$SRV_PID" || :
	SRV_PID=
	local rc=0 t0=$SECONDS
	# bounded by the client's own timeouts (20-30 s, scaled)
	local end=$((SECONDS + $(secs 90)))
	while kill -0 $cpid 2> /dev/null; do
		if [ $SECONDS -ge $end ]; then
			kill -9 $cpid
			cat "$BATS_TEST_TMPDIR/client.out"
			echo "the client hangs after the server died"
			false
		fi
		sleep 0.2
	done
	wait $cpid || rc=$?
	cat "$BATS_TEST_TMPDIR/client.out"
	echo "client exit status $rc after $((SECONDS - t0)) s"
	[ "$rc" -eq 1 ]
	grep -q 'peer gone\|peer closed\|connection lost' "$BATS_TEST_TMPDIR/client.out"
	grep -q '^Transaction test: FAILED$' "$BATS_TEST_TMPDIR/client.out"
}

# ---- OFA's dapltest command lines, unchanged (issue 19) ------------------

@test "OFA lines: -R HT/LL/EC/PM/BE; what the IA does not offer runs best effort, said once" {
	start_server -R LL
	grep -q '^QoS: IA rxe1-cma does not offer low latency (dat_qos_supported 0x0): connecting best effort$' "$SRV_OUT"
	client -T T -R HT -t 2 -w 2 -i 4 -V client SR 256 server SR 256 client RW 1024
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED: 2 thread(s) x 2 EP(s)' <<< "$output"
	[ "$(grep -c '^QoS: IA rxe0-cma does not offer high throughput (dat_qos_supported 0x0): connecting best effort$' <<< "$output")" -eq 1 ]
	client -T P -R PM -m p -i 10 -p 2 RW 4096
	[ "$status" -eq 0 ]
	grep -q '^QoS: IA rxe0-cma does not offer premium' <<< "$output"
	perf_ok
	client -T F -R EC -f dataxfer
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result: FAIL' <<< "$output")" -eq 0 ]
	# BE is what the provider offers: nothing to say
	client -T T -R BE -i 2 client SR 64 server SR 64
	[ "$status" -eq 0 ]
	[ "$(grep -c '^QoS:' <<< "$output")" -eq 0 ]
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$DT" -T Q -R BE -s $SRV_ADDR -D rxe0-cma -n "$PORT"
	[ "$status" -eq 0 ]
	local rc=0
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	[ "$rc" -eq 0 ]
}

@test "OFA lines: transaction test with 16 threads x 16 EPs, validated" {
	# two processes of 256 EPs, each with its EVDs (a CQ, its completion
	# channel and an eventfd apiece): more descriptors than the default
	# 1024, as with OFA's dapltest
	ulimit -n 8192
	SRV_SECS=600 start_server
	run "$QT" -t "$(secs 6000)" "$(secs 600)" "$DT" -s $SRV_ADDR -D rxe0-cma -n "$PORT" \
		-T T -t 16 -w 16 -i 2 -V client SR 256 server RW 512 client RR 256
	echo "--- client exit status $status:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED: 16 thread(s) x 16 EP(s) x 2 iteration(s) x 3 op(s)' <<< "$output"
	stop_server
	grep -q '^Server: transaction test done$' "$SRV_OUT"
}

@test "OFA lines: the limit test with OFA's arguments" {
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$DT" -T L -D rxe0-cma -d -R BE -w 2 -m 8 \
		limit_ia limit_pz limit_evd limit_ep limit_psp limit_lmr
	echo "$output"
	[ "$status" -eq 0 ]
	# the six and limit_ia_close_graceful
	grep -q '^7 passed, 0 failed$' <<< "$output"
}

@test "OFA lines: dapltest with no arguments serves on the first DAT 1.2 entry that opens" {
	# an installation beside DAT 2.0, whose entry comes first, and a 1.2
	# entry whose provider is missing
	local conf=$BATS_TEST_TMPDIR/dat.conf
	{
		echo 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""'
		echo 'gone-cma u1.2 nonthreadsafe default libno-such-provider.so.1 dapl.1.2 "10.77.0.9 0" ""'
		grep '^rxe1-cma' "$DAT_OVERRIDE"
	} > "$conf"
	DAT_OVERRIDE=$conf "$QT" -t "$(secs 2000)" "$(secs 200)" "$DT" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_line "$SRV_OUT" "$SRV_PID" 'listening 45278' 30
	grep -q '^dapltest: no -D: IA rxe1-cma, the first DAT 1.2 entry of dat.conf whose IA opens$' "$SRV_OUT"
	PORT=45278
	client -T T -i 4 -V client SR 1024 server SR 1024
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED' <<< "$output"
	stop_server
}
