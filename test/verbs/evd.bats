#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/evd.bats - event dispatchers and CNOs on rxe.

load verbs_helpers

setup_file() { verbs_setup_file; }

@test "software EVD: thresholds, timeouts with nmore, woken waiters, unwaitable, full queue" {
	local_test evd-sw local -i "${DATTEST_SERVER_IA:-rxe0-cma}"
}

@test "DTO EVD: wait with threshold 4 and 2, DAT_TIMEOUT_EXPIRED with nmore" {
	pair evd-dto
}

@test "CNO: times out, wakes for a receive completion and for a software event" {
	pair cno
}

@test "CR EVD overflow: DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD" {
	local qlen
	start_server overflow
	wait_listening
	qlen=$(sed -n 's/^cr-evd-qlen \([0-9][0-9]*\)$/\1/p' "$SRV_OUT")
	[ -n "$qlen" ]
	[ "$qlen" -le 64 ] || { echo "CR EVD qlen $qlen: too many connections to overflow it"; return 1; }
	run_client overflow -q "$QUAL" -n $((qlen + 1))
	wait_server
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	[ "$status" -eq 0 ]
}

@test "cr-overflow: requests beyond a shared CR EVD are rejected to the peer and reported as overflow; a handoff to a full EVD fails and keeps the CR" {
	local qlen
	start_server cr-overflow
	wait_listening
	qlen=$(sed -n 's/^cr-evd-qlen \([0-9][0-9]*\)$/\1/p' "$SRV_OUT")
	[ -n "$qlen" ]
	run_client cr-overflow -q "$QUAL" -n "$qlen"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
}

# test/verbs/vt_cno_agent.c: dat_cno_create(3DAT), the agent "is invoked
# when the CNO is triggered"; a server whose CNO agent does all the work
# from inside the call (dequeue, dat_ep_create, dat_cr_accept,
# dat_ep_query, dat_ep_disconnect, dat_ep_free) while its main thread
# calls nothing of DAT
@test "cno-agent: the agent is called for a connection request, connection events and a receive completion; inside it dat_ep_query, dat_cr_accept, dat_ep_disconnect and dat_ep_free work" {
	pair cno-agent
}

@test "cno-agent: dat_ia_close(ABRUPT) from inside the agent" {
	pair cno-agent-close
}
