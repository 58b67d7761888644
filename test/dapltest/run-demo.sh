#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/dapltest/run-demo.sh - the demo (make demo): a dapltest server and
# its clients on the RDMA devices of this machine (inside the soft-RoCE
# guest: server on rxe1-cma, clients from rxe0-cma, test/vm/dat.conf).
#
# Runs, against one server: a validated transaction test (2 threads x 2
# endpoints, SR, RR and RW both ways), a performance test (RDMA write) and
# the functional suite; then stops the server with -T Q.  Prints what ran
# and the results; exits 0 only if everything passed.
#
# Environment: DEMO_SERVER_IA (rxe1-cma), DEMO_SERVER_ADDR (10.77.0.2),
# DEMO_CLIENT_IA (rxe0-cma), DEMO_PORT (a random free-looking port),
# DAT_OVERRIDE (test/vm/dat.conf), TEST_TIMEOUT_SCALE (1): every wait is
# bounded and scaled by it.  With DEMO_SERVER_IA set it runs wherever those
# IAs work (make demo: ofi-tcp of the sample dat.conf, natively).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DT="$TOP/build/bin/dapltest"
SCALE=${TEST_TIMEOUT_SCALE:-1}
case $SCALE in '' | *[!0-9]* | 0)
	echo "TEST_TIMEOUT_SCALE must be a positive integer (is '$SCALE')" >&2
	exit 2 ;;
esac
export TEST_TIMEOUT_SCALE=$SCALE
export DAT_OVERRIDE="${DAT_OVERRIDE:-$TOP/test/vm/dat.conf}"
export LD_LIBRARY_PATH="$TOP/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
SRV_IA=${DEMO_SERVER_IA:-rxe1-cma}
SRV_ADDR=${DEMO_SERVER_ADDR:-10.77.0.2}
CLI_IA=${DEMO_CLIENT_IA:-rxe0-cma}
# (each lane of check-verbs.sh its own ports, below the ephemeral ones:
# test/verbs/verbs_helpers.bash random_qual)
PORT=${DEMO_PORT:-$((20000 + ${VERBS_LANE:-0} * 4000 + RANDOM % 4000))}

# named IAs (make demo's native libfabric run) need no RDMA device
if [ -z "${DEMO_SERVER_IA:-}" ] && [ -z "$(ls /sys/class/infiniband 2> /dev/null)" ]; then
	echo "demo: no RDMA device here (make demo boots the soft-RoCE guest)" >&2
	exit 2
fi
if [ ! -x "$DT" ]; then
	echo "demo: $DT is missing: make test-programs" >&2
	exit 2
fi

tmp=$(mktemp -d)
SRV_PID=
cleanup() {
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null
		wait "$SRV_PID" 2> /dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

declare -a NAMES RESULTS
failed=0

# step NAME SECS CMD...: runs one bounded step, records PASS/FAIL
step() {
	local name=$1 secs=$2 rc t0=$SECONDS
	shift 2
	echo
	echo "=== $name"
	echo "\$ ${*#$TOP/}"
	timeout -k 5 $((secs * SCALE)) "$@"
	rc=$?
	NAMES+=("$name ($((SECONDS - t0)) s)")
	if [ $rc -eq 0 ]; then
		RESULTS+=("PASS")
	else
		RESULTS+=("FAIL (exit status $rc$([ $rc -eq 124 ] && echo ': timed out'))")
		failed=1
	fi
}

echo "=== dapltest demo: server on $SRV_IA ($SRV_ADDR port $PORT), clients from $CLI_IA"
echo "\$ dapltest -T S -D $SRV_IA -n $PORT"
timeout -k 5 $((300 * SCALE)) "$DT" -T S -D "$SRV_IA" -n "$PORT" \
	> "$tmp/server.out" 2>&1 &
SRV_PID=$!

# the server's "listening" line, bounded; no fixed sleep
end=$((SECONDS + 30 * SCALE))
until grep -q "^listening $PORT\$" "$tmp/server.out"; do
	if ! kill -0 "$SRV_PID" 2> /dev/null || [ $SECONDS -ge $end ]; then
		echo "demo: the server did not come up; its output:"
		cat "$tmp/server.out"
		exit 1
	fi
	sleep 0.1
done
echo "server ready"

C=("$DT" -s "$SRV_ADDR" -D "$CLI_IA" -n "$PORT")
step "transaction test (validated; 2 threads x 2 EPs; SR, RR, RW both ways)" 120 \
	"${C[@]}" -T T -t 2 -w 2 -i 10 -V \
	client SR 1024 2 server SR 512 client RW 4096 server RW 2048 2 \
	client RR 4096 2 server RR 1024
step "performance test (200 RDMA writes in rounds of 4, blocking)" 60 \
	"${C[@]}" -T P -m b -i 200 -p 4 RW 4096
step "functional suite" 180 "${C[@]}" -T F
step "stop the server (-T Q)" 30 "${C[@]}" -T Q

srv_rc=0
wait "$SRV_PID" || srv_rc=$?
SRV_PID=
echo
echo "=== server output (exit status $srv_rc)"
cat "$tmp/server.out"
NAMES+=("server exits cleanly")
if [ $srv_rc -eq 0 ]; then RESULTS+=("PASS"); else RESULTS+=("FAIL (exit status $srv_rc)"); failed=1; fi

echo
echo "=== demo results"
for i in "${!NAMES[@]}"; do
	printf '  %-72s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
done
if [ $failed -ne 0 ]; then
	echo "demo: FAILED"
	exit 1
fi
echo "demo: all passed"
exit 0
