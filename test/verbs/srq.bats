#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/srq.bats - shared receive queues and CR handoff between
# rxe1-cma (client) and rxe0-cma (server).

load verbs_helpers

setup_file() { verbs_setup_file; }

@test "eight EPs on one SRQ: every message once, on its EP; low watermark; resize; query" {
	pair srq-eight
}

@test "a CR handed off to a second qualifier is accepted there and carries data" {
	pair handoff
}
