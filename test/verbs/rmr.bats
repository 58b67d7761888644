#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/rmr.bats - memory windows (issue 6): dat_rmr_create, bind with
# its automatic fence, query, free.  build/test/verbs/dattest-rmr runs as a
# server on rxe0-cma (owns the memory, binds the windows) and a client on
# rxe1-cma (RDMA reads and writes through them); see test/verbs/rmr.c.

load verbs_helpers

VT="$TOP/build/test/verbs/dattest-rmr"

setup_file() { verbs_setup_file; }

@test "rmr: bind checks, RDMA read/write through a window, LMR pinned, unbind kills the context (REMOTE_ACCESS, BROKEN), bind in DISCONNECTED flushes" {
	pair rw
	grep -qx '  ok connection broken by the failed access: DAT_CONNECTION_EVENT_BROKEN' <<< "$output"
	grep -q 'ok bind on the DISCONNECTED EP completes: DAT_RMR_BIND_COMPLETION_EVENT' "$SRV_OUT"
}

@test "rmr: rebind elsewhere; the new context works, the previous one fails at the remote" {
	pair rebind
	grep -q 'REMOTE_ACCESS' <<< "$output"
}

@test "rmr: dat_rmr_free of a bound window; its context fails at the remote" {
	pair free
}

@test "rmr: a read-only window: read works, write fails at the remote" {
	pair priv
}

@test "rmr: a bind that fails after dat_rmr_bind returned: DAT_RMR_OPERATION_FAILED, BROKEN, EP DISCONNECTED" {
	pair bindfail
}

@test "rmr: type 2 windows (DAPL_CMA_MW_TYPE=2): rebind and unbind" {
	export DAPL_CMA_MW_TYPE=2
	pair rebind
	pair rw
}

@test "rmr: fence ordering, 1000 rounds of bind + send of the new context + peer write through it; 1000 fences counted" {
	pair fence
	grep -q 'fence: 1000 of 1000 rounds without a failure; DAPL_RMR_FENCES 1000' "$SRV_OUT"
}

# Issue 18: an RMR belongs to its PZ, not to the EP it was bound through.
# rxe offers both window types (type 1 by default, type 2B with
# DAPL_CMA_MW_TYPE=2); each runs the same sequence.  Every call of it is
# bounded by a watchdog in dattest-rmr (10 s x TEST_TIMEOUT_SCALE): a
# type 2 window bound through a freed EP once made ibv_destroy_qp wait
# ~55 s (a kernel timeout), the kernel WARN in rxe's pool cleanup
# (__rxe_cleanup; the kernel witness fails the suite on that) and the
# next dat_cr_accept fail.
lifetime_pair() {
	pair lifetime
	grep -qx '  ok dat_ep_free(A) returned' "$SRV_OUT"
	grep -qx '  ok dat_cr_accept (EP B) returned' "$SRV_OUT"
	grep -qx '  ok dat_rmr_bind through B returned' "$SRV_OUT"
	grep -q '^  ok the RMR \(kept its binding\|is unbound, its context revoked\)' "$SRV_OUT"
	grep -qx '  ok dat_ep_free(A) returned' <<< "$output"
	grep -qx '  ok dat_ep_connect (EP B) returned' <<< "$output"
	[ "$(grep -c '^FAIL' "$SRV_OUT")" -eq 0 ]
}

@test "rmr-lifetime: type 2 window (DAPL_CMA_MW_TYPE=2) bound through EP A, A broken by a stale-context write and freed, the RMR rebound through a new EP B and written through; every call returns" {
	export DAPL_CMA_MW_TYPE=2
	lifetime_pair
}

@test "rmr-lifetime: the same with the provider's default window type (type 1 on rxe)" {
	unset DAPL_CMA_MW_TYPE
	lifetime_pair
}

# test/verbs/vt_rmr_pz.c (issue 32 item 1): dat_rmr_create(3DAT), the PZ
# lets "the Consumer ... restrict access to the memory region associated
# with the RMR to authorized connections": a window bound through EP 1
# keeps its context after EP 1 is freed, serves a connection through
# another EP of its PZ, and not one through an EP of another PZ.  With
# the provider's default window type (type 1 on rxe).  Not over
# libfabric: the emulation answers a window's key only on the connection
# it was bound through (README, DAPL_RMR_EMULATION).
@test "rmr-pz: a window bound through EP 1, EP 1 freed: its context serves EPs 2 and 2b of the same PZ (write, read back); a rebind revokes it on both (REMOTE_ACCESS, BROKEN); an EP of another PZ gets DAT_DTO_ERR_REMOTE_ACCESS and BROKEN" {
	unset DAPL_CMA_MW_TYPE
	VT="$TOP/build/test/verbs/dattest-verbs" pair rmr-pz
}
