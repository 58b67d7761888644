#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/helgrind.bats - the threads test of stress.bats, smaller,
# under valgrind's helgrind (issue 5).  A suite of its own: helgrind on
# the emulated guest costs about two minutes, most of it start-up and
# teardown.

load verbs_helpers

STRESS="$TOP/build/test/verbs/dattest-stress"

setup_file() {
	verbs_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
}

# helgrind over a smaller threads run (the client: 2 posters, 2 waiters,
# 200 writes; helgrind serializes the threads and is slow on the emulated
# guest).  No suppressions: the hand-offs helgrind cannot see (a cookie
# filled by a poster and read by the poller after the device completed it;
# a ring slot retired through an atomic tail) are annotated in udapl.h;
# the client loads the provider built with them (build/helgrind/lib).
@test "helgrind: a smaller threads run (2 posters, 2 waiters, 200 writes) has no data race or lock-order error" {
	command -v valgrind > /dev/null || { echo "valgrind is missing"; return 1; }
	# the server waits for a client that helgrind slows down
	TEST_TIMEOUT_SCALE=$((SCALE * 4)) "$QT" -t "$(secs 4000)" "$(secs 400)" \
		"$STRESS" threads server -p 2 -n 200 > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_listening
	[ -e "$TOP/build/helgrind/lib/libdaplcma.so.1" ]
	run env TEST_TIMEOUT_SCALE=$((SCALE * 10)) \
		LD_LIBRARY_PATH="$TOP/build/helgrind/lib:$LD_LIBRARY_PATH" "$QT" -t "$(secs 2000)" "$(secs 200)" \
		valgrind --tool=helgrind -q --error-exitcode=99 --num-callers=30 \
		"$STRESS" threads client -q "$QUAL" -p 2 -n 200
	echo "--- client (helgrind) exit status $status; output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	grep -q '^completions: 200 of 200, 0 missing, 0 twice$' <<< "$output"
	if grep -q '^==[0-9]*==' <<< "$output"; then return 1; fi
	[ "$SRV_RC" -eq 0 ]
}
