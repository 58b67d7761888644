#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/faults.bats - the provider when things go wrong (issue 5):
# sloppy teardown, a broken link, a dead peer, fork.  Runs
# build/test/verbs/dattest-faults as a server (rxe0-cma) and a client
# (rxe1-cma) and breaks things between them (ip link, kill -KILL) at the
# moments they announce on stdout.  Needs root in the test VM (ip link).

load verbs_helpers

VF="$TOP/build/test/verbs/dattest-faults"

setup_file() {
	verbs_setup_file
	if [ ! -x "$VF" ]; then
		echo "$VF is missing: make test-programs" >&2
		return 1
	fi
}

setup() {
	SRV_PID=
	CLI_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	CLI_OUT=$BATS_TEST_TMPDIR/client.out
	QUAL=
	LINK_DOWN=
}

teardown() {
	local p
	# the processes first: link_up re-creates rxe1, which waits for
	# every user of the device to go
	for p in "$SRV_PID" "$CLI_PID"; do
		if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
	if [ -n "$LINK_DOWN" ]; then
		link_up || :
	fi
}

# fserver TEST: the server role; waits until it listens (sets QUAL)
fserver() {
	fstart SRV_PID "$SRV_OUT" "$1" server
	wait_listening
}

# fclient TEST: the client role in the background
fclient() {
	fstart CLI_PID "$CLI_OUT" "$1" client -q "$QUAL"
}

passed() { [ "$1" -eq 0 ] && grep -qx PASS "$2"; }

# link_up: vethB up again, its route back (taking a device down deletes
# its routes), rxe1 re-created (below), both ports ACTIVE with their RoCE
# v2 GID (as test/vm/guest-stage2.sh set them up), bounded.  No process
# may still use rxe1.
#
# rxe1 is re-created because of a soft-RoCE bug (seen on the guest's 6.1
# kernel), not for the provider: a MAD that rxe1 sends while vethB is down
# (the client's DREQ: its rdma_disconnect after its write failed, or the
# kernel's when the client dies) fails in rxe_prepare (no route out of a
# down device), and rxe's completer puts the whole GSI QP (QP1) in the
# error state (rxe_qp_error: responder too, receive queue flushed).
# ib_mad_send_done then moves QP1 from SQE back to RTS, which in rxe sets
# only the requester and completer ready.  From then on every MAD that
# reaches rxe1 is dropped in rxe_rcv (check_type_state: the responder is
# not ready): vethB, IP and UDP count it received, rxe1's rcvd_pkts does
# not, and no rdma_cm connection to or from rxe1 can complete (the REQ
# goes out, the REP never arrives) until QP1 is created anew with the
# device.  (A down/up during which rxe1 sends no MAD needs none of this.)
# Real RoCE hardware keeps QP1 apart from its port's state; rxe0
# (whose vethA only lost its carrier) keeps working, and the survivor's
# IA on it must take the new connection unchanged.
link_up() {
	local d dev want p end
	ip link set vethB up
	ip route replace 10.77.0.1 dev vethB src 10.77.0.2 table 101
	"$QT" -t "$(secs 300)" "$(secs 30)" rdma link del rxe1
	"$QT" -t "$(secs 300)" "$(secs 30)" rdma link add rxe1 type rxe netdev vethB
	for d in rxe0:0001 rxe1:0002; do
		dev=${d%:*}
		want="0000:0000:0000:0000:0000:ffff:0a4d:${d#*:}"
		p=/sys/class/infiniband/$dev/ports/1
		end=$((SECONDS + $(secs 30)))
		until grep -q ACTIVE "$p/state" &&
			[ "$(cat "$p/gids/1")" = "$want" ]; do
			if [ "$SECONDS" -ge "$end" ]; then
				echo "$dev not usable: $(cat "$p/state")," \
					"GID[1] $(cat "$p/gids/1")"
				return 1
			fi
			nap
		done
	done
	LINK_DOWN=
}

@test "sloppy teardown: EVDs, PZ freed and IA closed GRACEFUL with EP, PSP, LMRs alive; prompt clean exit, peer not stuck" {
	fstart SRV_PID "$SRV_OUT" sloppy server
	wait_listening
	fclient sloppy
	# the sloppy side returns from main with the IA open: no crash, no
	# hang in the provider's threads (its own bound is much shorter)
	local start=$SECONDS
	fwait SRV_RC SRV_PID "$SRV_OUT"
	[ $((SECONDS - start)) -le "$(secs 20)" ]
	passed "$SRV_RC" "$SRV_OUT"
	grep -q 'ok dat_ia_close(GRACEFUL) with objects alive: DAT_INVALID_STATE DAT_INVALID_STATE_IA_IN_USE' "$SRV_OUT"
	# the peer sees the connection end and closes cleanly
	fwait CLI_RC CLI_PID "$CLI_OUT"
	passed "$CLI_RC" "$CLI_OUT"
}

# dead VICTIM: both stream RDMA writes; VICTIM (server or client) gets
# SIGKILL; the other must see the end, flush and close cleanly
dead() {
	local vout sout vpid
	fserver dead
	fclient dead
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	if [ "$1" = client ]; then vout=$CLI_OUT; else vout=$SRV_OUT; fi
	vpid=$(pid_of "$vout")
	[ -n "$vpid" ]
	kill -KILL "$vpid"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	if [ "$1" = client ]; then
		[ "$CLI_RC" -eq 137 ]
		passed "$SRV_RC" "$SRV_OUT"
	else
		[ "$SRV_RC" -eq 137 ]
		passed "$CLI_RC" "$CLI_OUT"
	fi
}

@test "dead peer: client killed (SIGKILL) mid-transfer; the server sees DISCONNECTED or BROKEN, flushes, closes" {
	dead client
}

@test "dead peer: server killed (SIGKILL) mid-transfer; the client sees DISCONNECTED or BROKEN, flushes, closes" {
	dead server
}

@test "fork (RDMAV_FORK_SAFE=1): children exit with and without dat_ia_close; the parents' transfers go on" {
	export RDMAV_FORK_SAFE=1
	fserver fork
	fclient fork
	fwait CLI_RC CLI_PID "$CLI_OUT"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	passed "$CLI_RC" "$CLI_OUT"
	passed "$SRV_RC" "$SRV_OUT"
	[ "$(grep -c '^  ok child that .* exited with 0$' "$CLI_OUT")" -eq 3 ]
	[ "$(grep -c '^  ok child that .* exited with 0$' "$SRV_OUT")" -eq 1 ]
}

@test "broken link: vethB down mid RDMA write stream -> BROKEN, flushed DTOs, clean close; after up, a new connection on the survivor's IA moves data" {
	# rxe retries forever with the default count (7): 6 tries with a
	# local ACK timeout of 2^18 * 4.096 us = 1.07 s run out in about 8 s
	export DAPL_CMA_RETRY_COUNT=6 DAPL_CMA_ACK_TIMEOUT=18
	fserver link
	fclient link
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	LINK_DOWN=1
	ip link set vethB down
	# the survivor: rxe0, whose peer vanished behind vethA
	wait_line "$SRV_OUT" "$SRV_PID" broken 60
	grep -qx '  ok connection end: DAT_CONNECTION_EVENT_BROKEN' "$SRV_OUT"
	grep -q '^  first error after [0-9]* good writes: DAT_DTO_ERR_TRANSPORT$' "$SRV_OUT"
	# (not "! grep": bats does not fail on a negated command)
	[ "$(grep -c '^FAIL' "$SRV_OUT")" -eq 0 ]
	# The client, whose own netdev went down, is not judged: rxe's
	# requester either fails its send (LOCAL_EP, then BROKEN) or retries
	# forever (ip_local_out -ENETDOWN is -EAGAIN to rxe).  It goes.
	local cpid
	cpid=$(pid_of "$CLI_OUT")
	if kill -0 "$cpid" 2> /dev/null; then kill -KILL "$cpid"; fi
	fwait CLI_RC CLI_PID "$CLI_OUT"
	link_up
	# after up: the survivor's IA (no IA_CATASTROPHIC for the port that
	# went down) listens again; a new client process on rxe1 connects,
	# and both check RDMA writes each way
	wait_listening 2
	unset DAPL_CMA_RETRY_COUNT DAPL_CMA_ACK_TIMEOUT
	CLI_OUT=$BATS_TEST_TMPDIR/client-again.out
	fclient again
	fwait CLI_RC CLI_PID "$CLI_OUT"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	passed "$CLI_RC" "$CLI_OUT"
	grep -qx '  ok 8 checked write rounds each way' "$CLI_OUT"
	passed "$SRV_RC" "$SRV_OUT"
	grep -qx '  ok 8 checked write rounds each way' "$SRV_OUT"
	[ "$(grep -c IA_CATASTROPHIC "$SRV_OUT")" -eq 0 ]
}
