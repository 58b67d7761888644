#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/memcheck.bats - IA close ABRUPT on live objects under
# valgrind memcheck, client and server (issue 5).
#
# dattest-stress abrupt: each side holds a connected EP with receives
# posted, LMRs (one shared), EVDs, a CNO, the PZ and (server) a PSP when
# it calls dat_ia_close(ABRUPT); it then checks that every handle is stale
# and exits.  Both processes run under valgrind: no error, no definite,
# indirect or possible leak.  The only suppressions are rdma-core's own
# one-time globals (test/verbs/rdma-core.supp, each entry commented).
# Valgrind on the emulated guest is slow: the timeouts of the programs
# are stretched tenfold (TEST_TIMEOUT_SCALE), the connect timeout with them.

load verbs_helpers

STRESS="$TOP/build/test/verbs/dattest-stress"

setup_file() {
	verbs_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
	command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; return 1; }
}

# vg ARGS...: dattest-stress ARGS under valgrind, bounded
vg() {
	TEST_TIMEOUT_SCALE=$((SCALE * 10)) "$QT" -t "$(secs 2000)" "$(secs 200)" \
		valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--keep-debuginfo=yes --num-callers=30 \
		--suppressions="$TOP/test/verbs/rdma-core.supp" "$STRESS" "$@"
}

@test "valgrind: client and server close their IAs ABRUPT with connected EPs, LMRs, EVDs, CNO, PSP alive" {
	vg abrupt server > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	# the server under valgrind takes a while to start: wait_listening's
	# bound is scaled like everything else
	SCALE=$((SCALE * 4)) wait_listening
	run vg abrupt client -q "$QUAL"
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	# -q: valgrind prints nothing unless it found something
	if grep -q '^==[0-9]*==' "$SRV_OUT"; then return 1; fi
	if grep -q '^==[0-9]*==' <<< "$output"; then return 1; fi
}
