#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/dapltest/demo.bats - `make demo`'s in-guest script (run-demo.sh),
# so that CI (make check-verbs) covers the demo: a dapltest server on
# rxe1-cma; from rxe0-cma a validated transaction test, a performance
# test, the functional suite and -T Q.

TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
# bounds the script by its silence (test/lib/quiet-timeout.c)
QT="$TOP/build/test/lib/quiet-timeout"

@test "make demo's script: every step passes, results printed" {
	[ -n "$(ls /sys/class/infiniband 2> /dev/null)" ] || {
		echo "no RDMA device: run in the test VM (make check-verbs)"
		false
	}
	run "$QT" -t $((4000 * ${TEST_TIMEOUT_SCALE:-1})) $((400 * ${TEST_TIMEOUT_SCALE:-1})) "$TOP/test/dapltest/run-demo.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED' <<< "$output"
	grep -q '^Performance test: PASSED$' <<< "$output"
	grep -Eq '^[0-9]+ passed, 0 failed$' <<< "$output"
	grep -q '^=== demo results$' <<< "$output"
	grep -q '^demo: all passed$' <<< "$output"
	[ "$(grep -c 'FAIL' <<< "$output")" -eq 0 ]
}
