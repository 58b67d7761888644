#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# examples/examples.bats - each example program as a server on rxe0-cma
# (10.77.0.1) and a client on rxe1-cma (or DATTEST_SERVER_IA and
# DATTEST_CLIENT_IA: make check-verbs-scm), in the soft-RoCE guest (make
# check-verbs).  The programs check their own data; here both sides must
# exit 0 and say what they checked.

load ../test/verbs/verbs_helpers

# verbs_helpers finds the top from test/verbs/; this file is one level up
TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
VT="$TOP/build/test/verbs/dattest-verbs"
EX="$TOP/build/examples"

setup_file() {
	verbs_setup_file
	local p
	for p in pingpong rdma_write mw_bind fetch_add; do
		[ -x "$EX/$p" ] || { echo "$EX/$p is missing: make examples" >&2; return 1; }
	done
}

# example PROG QUAL [ARGS...]: server and client of PROG; both must exit 0
example() {
	local prog=$1 qual=$2
	shift 2
	timeout -k 5 "$(secs 100)" "$EX/$prog" -D "${DATTEST_SERVER_IA:-rxe0-cma}" -q "$qual" "$@" \
		> "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_listening
	[ "$QUAL" = "$qual" ]
	run timeout -k 5 "$(secs 100)" "$EX/$prog" -D "${DATTEST_CLIENT_IA:-rxe1-cma}" -q "$qual" "$@" 10.77.0.1
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	[ "$SRV_RC" -eq 0 ]
}

@test "pingpong: 100 send/recv round trips, every message back intact" {
	example pingpong 7101 -n 100
	[ "$output" = "client: 100 round trips, every message came back intact" ]
	grep -qx "server: 100 round trips, every message came back intact" "$SRV_OUT"
}

@test "rdma_write: 4096 bytes written with the server's rmr_context arrive as sent" {
	example rdma_write 7102
	[[ "$output" == *"client: wrote 4096 bytes to 0x"* ]]
	grep -qx "server: 4096 bytes arrived by RDMA write, all as sent" "$SRV_OUT"
}

@test "mw_bind: a write through a bound window lands; after the unbind it fails and lands nowhere" {
	example mw_bind 7103
	[[ "$output" == *"client: wrote 256 bytes through context 0x"* ]]
	[[ "$output" == *"client: the write through the revoked context failed: DAT_DTO_ERR_REMOTE_ACCESS"* ]]
	grep -q "^server: the client wrote 256 bytes through window context 0x" "$SRV_OUT"
	grep -qx "server: nothing arrived through the revoked context" "$SRV_OUT"
}

@test "fetch_add: 50 remote adds, each sees the value before it; the counter ends at 150" {
	example fetch_add 7104 -n 50
	[ "$output" = "client: 50 adds, each saw the value before it (100..149)" ]
	grep -qx "server: the counter went from 100 to 150" "$SRV_OUT"
}

@test "an example given a bad IA name fails with the DAT error, not a crash" {
	run "$EX/pingpong" -D no-such-ia 10.77.0.1
	[ "$status" -eq 1 ]
	[ "$output" = "dat_ia_open: DAT_PROVIDER_NOT_FOUND: no such provider / DAT_NAME_NOT_REGISTERED: no provider is registered under this name" ]
}
