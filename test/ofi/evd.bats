#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/evd.bats - EVD and CNO semantics over tcp;ofi_rxm or shm (the
# CR EVD overflow: cr_overflow.bats).

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: software EVD: thresholds, timeouts with nmore, woken waiters, unwaitable, full queue" {
	local_test evd-sw local -i "$OFI_A"
}

@test "$OFI_FABRIC: DTO EVD: wait with threshold 4 and 2, DAT_TIMEOUT_EXPIRED with nmore" {
	pair evd-dto
}

@test "$OFI_FABRIC: CNO: times out, wakes for a receive completion and for a software event" {
	pair cno
}

# DAPL_EVD_WAIT_SPIN_US (udapl/evd_dequeue.c, evd_block): a waiter checks
# its fds without blocking for that long before it sleeps.  Opt-in, off
# by default; thresholds, timeouts (the spin never outlasts them), woken
# waiters and unwaitable EVDs must behave exactly as without it.
@test "$OFI_FABRIC: DAPL_EVD_WAIT_SPIN_US=2000: software and DTO EVD semantics unchanged while waiters spin before blocking" {
	export DAPL_EVD_WAIT_SPIN_US=2000
	local_test evd-sw local -i "$OFI_A"
	pair evd-dto
}

@test "$OFI_FABRIC: DAPL_EVD_WAIT_SPIN_US out of range: a warning naming it, no spinning, the same semantics" {
	export DAPL_EVD_WAIT_SPIN_US=2000000 DAPL_DBG_TYPE=0x3
	local_test evd-sw local -i "$OFI_A"
	grep -q 'DAPL_EVD_WAIT_SPIN_US=2000000: not 0..1000000, ignored' <<< "$output"
}

# test/verbs/vt_cno_agent.c: dat_cno_create(3DAT), the agent "is invoked
# when the CNO is triggered"; a server whose CNO agent does all the work
# from inside the call (dequeue, dat_ep_create, dat_cr_accept,
# dat_ep_query, dat_ep_disconnect, dat_ep_free) while its main thread
# calls nothing of DAT
@test "$OFI_FABRIC: cno-agent: the agent is called for a connection request, connection events and a receive completion; inside it dat_ep_query, dat_cr_accept, dat_ep_disconnect and dat_ep_free work" {
	pair cno-agent
}

@test "$OFI_FABRIC: cno-agent: dat_ia_close(ABRUPT) from inside the agent" {
	pair cno-agent-close
}
