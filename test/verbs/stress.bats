#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/stress.bats - threads and EVD overflow on rxe (issue 5).
#
# build/test/verbs/dattest-stress runs the server on rxe0-cma and the
# client on rxe1-cma, started and waited for as in verbs_helpers.bash.

load verbs_helpers

STRESS="$TOP/build/test/verbs/dattest-stress"

setup_file() {
	verbs_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
}

# stress_pair TEST [CLIENT ARGS...]: both roles of a dattest-stress test.
stress_pair() {
	local t=$1
	shift
	: > "$SRV_OUT" # before the job starts (verbs_helpers start_server)
	"$QT" -t "$(secs 1700)" "$(secs 170)" "$STRESS" "$t" server "$@" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_listening
	run "$QT" -t "$(secs 1700)" "$(secs 170)" "$STRESS" "$t" client -q "$QUAL" "$@"
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
}

# STRESS_OPS: the operations of the threads test (100000 by default).
@test "threads: 8 posters on 8 EPs, 2 waiters on one shared EVD, ${STRESS_OPS:-100000} RDMA writes, each completion exactly once" {
	stress_pair threads -p 8 -n "${STRESS_OPS:-100000}"
	grep -q "^threads: 8 posters, 2 waiters, ${STRESS_OPS:-100000} RDMA writes" <<< "$output"
	grep -q "^completions: ${STRESS_OPS:-100000} of ${STRESS_OPS:-100000}, 0 missing, 0 twice$" <<< "$output"
}

@test "EVD overflow: CQ overrun gives DAT_ASYNC_ERROR_EVD_OVERFLOW; an overflowed async EVD refuses waits with DAT_INVALID_STATE" {
	stress_pair overflow
}


# Issue 17, item 7: a child forked while other threads open, post and
# close IAs.  rdma-core cannot start librdmacm again in a child of a process
# that used it (the child may only exit or exec), so the verbs provider
# refuses the child's dat_ia_open with DAT_INVALID_STATE and a message: the
# child neither hangs nor crashes, and the registry works in it.  (Over
# libfabric the children open IAs of their own: test/ofi/fork.bats.)
@test "fork storm (RDMAV_FORK_SAFE=1): 20 children forked while 2 threads open, post and close IAs of the server's entry; each child's dat_ia_open is refused (DAT_INVALID_STATE), it lists the registry and exits" {
	RDMAV_FORK_SAFE=1 run "$QT" -t "$(secs 1700)" "$(secs 170)" "$STRESS" forkstorm server -p 2 -n 20 -r
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^forkstorm: 20 forks, 0 children failed; 2 threads, [1-9][0-9]* IA lives, 0 failed$' <<< "$output"
	[ "$(grep -c 'dat_ia_open in a child forked from process' <<< "$output")" -eq 20 ]
	grep -q '^PASS$' <<< "$output"
}
