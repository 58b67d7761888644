#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/netem.bats - the provider over lossy links (issue 18, item 5).
# build/test/verbs/dattest-netem runs as a server (rxe0-cma, vethA) and a
# client (rxe1-cma, vethB); this suite puts a tc netem qdisc on both veths
# (each direction) once the connection is up, and takes it off before the
# connection is torn down, telling the programs through files (-f).  The
# qdisc always goes in teardown, so later suites see a clean link.  Needs
# root in the test VM (tc) and sch_netem.

load verbs_helpers

VF="$TOP/build/test/verbs/dattest-netem"

setup_file() {
	verbs_setup_file
	if [ ! -x "$VF" ]; then
		echo "$VF is missing: make test-programs" >&2
		return 1
	fi
	if ! modprobe sch_netem; then
		echo "no sch_netem in the guest kernel" >&2
		return 1
	fi
}

setup() {
	SRV_PID=
	CLI_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	CLI_OUT=$BATS_TEST_TMPDIR/client.out
	FILES=$BATS_TEST_TMPDIR/sync
	QUAL=
}

# netem_off: no qdisc of ours on either veth (no error when there is none)
netem_off() {
	local d
	for d in vethA vethB; do
		if tc qdisc show dev "$d" | grep -q netem; then
			tc qdisc del dev "$d" root
		fi
	done
}

teardown() {
	local p
	netem_off
	for p in "$SRV_PID" "$CLI_PID"; do
		if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
}

# netem_on ARGS...: the same netem qdisc on both veths (each direction)
netem_on() {
	local d
	for d in vethA vethB; do
		tc qdisc replace dev "$d" root netem "$@"
	done
	tc qdisc show dev vethA | grep -q netem
	tc qdisc show dev vethB | grep -q netem
}

# nstart VAR OUT TEST ROLE ARGS...: a role in the background
nstart() {
	local var=$1 out=$2
	shift 2
	"$QT" -t "$(secs 2400)" "$(secs 240)" "$VF" "$@" -f "$FILES" > "$out" 2>&1 3>&- &
	printf -v "$var" %s $!
}

passed() { [ "$1" -eq 0 ] && grep -qx PASS "$2"; }

# xfer MAXSIZE NETEM-ARGS...: the transfers of every size up to MAXSIZE
# with the qdisc on
xfer() {
	local max=$1
	shift
	nstart SRV_PID "$SRV_OUT" xfer server -n "$max"
	wait_listening
	nstart CLI_PID "$CLI_OUT" xfer client -q "$QUAL" -n "$max"
	wait_line "$CLI_OUT" "$CLI_PID" ready 60
	netem_on "$@"
	touch "$FILES.go"
	wait_line "$CLI_OUT" "$CLI_PID" transferred 180
	wait_line "$SRV_OUT" "$SRV_PID" transferred 60
	# what the qdiscs did: they must have dropped something
	local d drops=0 n
	for d in vethA vethB; do
		tc -s qdisc show dev "$d"
		n=$(tc -s qdisc show dev "$d" |
			sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1)
		drops=$((drops + ${n:-0}))
	done
	echo "packets dropped by netem: $drops"
	netem_off
	touch "$FILES.clear"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	passed "$CLI_RC" "$CLI_OUT"
	passed "$SRV_RC" "$SRV_OUT"
	[ "$(grep -c '^FAIL' "$CLI_OUT")" -eq 0 ]
	[ "$(grep -c '^FAIL' "$SRV_OUT")" -eq 0 ]
	[ "$drops" -gt 0 ]
}

# Lost packets come back after the ACK timeout (NAKs resend the others at
# once): a short one (2^14 x 4.096 us = 67 ms) keeps the tail losses
# quick; the retry count stays 7 (forever on rxe) so that no loss ends a
# connection.  rdma_cm's name for cma, OFA's for the socket CM (make
# check-verbs-scm): cma takes rdma_cm's where both are set.
@test "netem: 1% loss with reordering: sends, RDMA writes and reads of 1 B .. 1 MiB intact, 32 fetch-and-adds exactly once, a compare-and-swap" {
	export DAPL_CMA_ACK_TIMEOUT=14 DAPL_ACK_TIMER=14
	xfer $((1 << 20)) loss 1% delay 2ms reorder 25% 50%
	grep -qx '  ok 10 of 10 sizes: send, RDMA write, RDMA read intact' "$CLI_OUT"
	grep -qx '  ok 10 of 10 sends received intact' "$SRV_OUT"
	grep -qx '  ok 32 fetch-and-adds, 0 original values out of place' "$CLI_OUT"
}

@test "netem: 5% loss: sends, RDMA writes and reads of 1 B .. 64 KiB intact, atomics exactly once" {
	export DAPL_CMA_ACK_TIMEOUT=14 DAPL_ACK_TIMER=14
	xfer 65536 loss 5%
	grep -qx '  ok 7 of 7 sizes: send, RDMA write, RDMA read intact' "$CLI_OUT"
	grep -qx '  ok 7 of 7 sends received intact' "$SRV_OUT"
	grep -qx '  ok 32 fetch-and-adds, 0 original values out of place' "$CLI_OUT"
}

@test "netem: 100% loss mid-stream: BROKEN within (retries+1) x ACK timeout x slack, every outstanding DTO completes (flushed), a new connection works once the link is back" {
	# 3 retries of 2^16 x 4.096 us = 268 ms: the bound is
	# 4 x 268 ms x 10 x TEST_TIMEOUT_SCALE (dattest-netem prints it)
	export DAPL_CMA_RETRY_COUNT=3 DAPL_CMA_ACK_TIMEOUT=16
	nstart SRV_PID "$SRV_OUT" cut server
	wait_listening
	nstart CLI_PID "$CLI_OUT" cut client -q "$QUAL"
	wait_line "$SRV_OUT" "$SRV_PID" streaming 60
	wait_line "$CLI_OUT" "$CLI_PID" streaming 60
	netem_on loss 100%
	wait_line "$SRV_OUT" "$SRV_PID" broken 120
	wait_line "$CLI_OUT" "$CLI_PID" broken 120
	netem_off
	touch "$FILES.clear"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	passed "$CLI_RC" "$CLI_OUT"
	passed "$SRV_RC" "$SRV_OUT"
	local f
	for f in "$SRV_OUT" "$CLI_OUT"; do
		grep -q '^  ok connection end: DAT_CONNECTION_EVENT_\(BROKEN\|TIMED_OUT\), [0-9]* ms after the last good write$' "$f"
		grep -q '^  first error after [0-9]* good writes: ' "$f"
		grep -qx '  ok a new connection moved data both ways' "$f"
		[ "$(grep -c '^FAIL' "$f")" -eq 0 ]
	done
}
