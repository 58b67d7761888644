#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/legacy.bats - a legacy DAT 1.2 consumer: Open MPI btl/udapl's
# call sequence, between rxe1-cma (client) and rxe0-cma (server).

load verbs_helpers

setup_file() { verbs_setup_file; }

@test "Open MPI btl/udapl sequence: eager sends, RDMA writes with footers, dequeue progress, teardown" {
	pair legacy
}
