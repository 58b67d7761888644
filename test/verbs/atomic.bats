#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/atomic.bats - the atomic extension (dat_ib_extensions.h)
# between rxe1-cma (clients) and rxe0-cma (server).

load verbs_helpers

setup_file() { verbs_setup_file; }

@test "two clients each add 1 to one remote counter 10,000 times: exactly 20,000; CAS hit and miss" {
	start_server atomic-count -n 2
	wait_listening
	local c1="$BATS_TEST_TMPDIR/c1.out" c2="$BATS_TEST_TMPDIR/c2.out" r1=0 r2=0
	"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" atomic-count client -q "$QUAL" > "$c1" 2>&1 3>&- &
	local p1=$!
	"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" atomic-count client -q "$QUAL" > "$c2" 2>&1 3>&- &
	local p2=$!
	wait "$p1" || r1=$?
	wait "$p2" || r2=$?
	echo "--- client 1 ($r1):"; cat "$c1"
	echo "--- client 2 ($r2):"; cat "$c2"
	wait_server
	[ "$r1" -eq 0 ] && grep -q '^PASS$' "$c1"
	[ "$r2" -eq 0 ] && grep -q '^PASS$' "$c2"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	grep -q "ok the counter after every client's adds: 20000" "$SRV_OUT"
}

@test "a target without DAT_IB_MEM_PRIV_REMOTE_ATOMIC: DAT_DTO_ERR_REMOTE_ACCESS, connection ends" {
	pair atomic-noaccess
}

@test "errors before anything is posted: alignment (ARG of remote_iov), short local buffer, handles, flags, state" {
	local_test atomic-errors local
}

@test "a device without atomics (DAPL_CMA_DISABLE=atomic): attributes FALSE, DAT_MODEL_NOT_SUPPORTED" {
	DAPL_CMA_DISABLE=atomic local_test atomic-absent local
}
