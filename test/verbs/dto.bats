#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/dto.bats - data transfer between rxe1-cma (client) and rxe0-cma
# (server), every byte checked.

load verbs_helpers

setup_file() { verbs_setup_file; }

@test "send/recv of 1 B, 4 KiB, 64 KiB and 1 MiB, echoed back" {
	pair sendrecv
}

# test/verbs/vt_graceful.c: dat_ep_disconnect(3DAT), "For graceful
# disconnect, all outstanding and in-progress request DTOs and RMR Binds
# must try to be completed successfully first, before disconnect
# proceeds."  The QP drains (SQD) before the DREQ.
@test "graceful-sends: 16 sends of 64 B to 256 KiB, then a graceful disconnect at once: every send completes DAT_DTO_SUCCESS, the peer receives every message whole and in order before DISCONNECTED" {
	pair graceful-sends
}

# test/verbs/vt_graceful.c shared-evd-end: dat_ep_disconnect(3DAT), "If
# the same EVD is used for connect_evd_handle and any recv_evd_handle and
# request_evd_handle, all successful Completion events of in-progress
# DTOs precede the Disconnect Completion event."
@test "shared-evd-end: one EVD for connection events, requests and receives; 8 sends, a graceful disconnect at once: on each side, dequeued once the EP is DISCONNECTED, all 8 completions SUCCESS before DISCONNECTED" {
	pair shared-evd-end
}

@test "RDMA write and read, 1 and several segments, with dat_lmr_sync_rdma_write/read" {
	pair rdma
}

@test "send/recv with as many segments as the IA advertises (at most 32)" {
	pair multiseg
}

@test "shared LMRs (DAT_MEM_TYPE_LMR) for receives, sends and as RDMA target" {
	pair shared-lmr
}

@test "shared-lmr: asking for rights the original LMR lacks is DAT_PRIVILEGES_VIOLATION (same or other PZ); a subset is granted" {
	local_test shared-lmr-priv local
}

@test "completion flags: SUPPRESS, UNSIGNALLED refused, SOLICITED_WAIT, BARRIER_FENCE" {
	pair flags
}

@test "disconnect with receives outstanding: DAT_DTO_ERR_FLUSHED on both sides" {
	pair flush
}

# test/verbs/vt_lmr_life.c: dat_lmr_free(3DAT) "does not deallocate the
# memory region", and a DTO "that uses the destroyed LMR after the
# dat_lmr_free() is completed shall fail and report a protection
# violation": no byte lands in an LMR freed while a receive was posted;
# dat_ep_post_recv(3DAT) names DAT_PRIVILEGES_VIOLATION for an LMR of
# local_iov that "was either invalid"
@test "lmr-life: dat_lmr_free with a receive posted into the LMR: DAT_INVALID_STATE and the receive completes, or DAT_SUCCESS and the receive fails with the memory untouched; a receive naming the freed LMR is DAT_PRIVILEGES_VIOLATION" {
	pair lmr-life
}

# test/verbs/vt_lmr_life.c fresh-keys: dat_lmr_create(3DAT) "The return
# value of rmr_context can be transferred by the local Consumer to a
# Consumer on a remote host to be used for an RDMA DTO", a new LMR per
# round; and "The only way to invalidate it is to destroy the LMR with
# dat_lmr_free(3DAT)": the last key, freed, reads nothing
@test "fresh-keys: 100 rounds of a 16 KiB RDMA read through an LMR registered for it and freed after it, the reader spinning on dat_evd_dequeue; every byte checked; the freed key's read does not succeed" {
	pair fresh-keys
	grep -q '^  ok 100 RDMA reads, each through a key never used before, every byte checked$' <<< "$output"
	grep -q '^  ok the read through the freed key' <<< "$output"
	grep -q '^  ok 100 LMRs registered, their keys sent, freed after the peer.s read$' "$SRV_OUT"
}

# The same with RDMA writes: dat_lmr_free(3DAT), a DTO through the
# destroyed LMR "shall fail and report a protection violation"; the freed
# fragment still holds what the last round wrote
@test "fresh-keys-write: 100 rounds of a 16 KiB RDMA write through an LMR registered for it and freed after it, every byte checked at the target; the freed key's write does not succeed and changes nothing" {
	pair fresh-keys-write
	grep -q '^  ok 100 RDMA writes, each through a key never used before, every byte checked$' <<< "$output"
	grep -q '^  ok the write through the freed key' <<< "$output"
	grep -q '^  ok 100 LMRs registered, their keys sent, freed after the peer.s write$' "$SRV_OUT"
	grep -q '^  ok the freed fragment after the write through its key: 16384 bytes match$' "$SRV_OUT"
}
