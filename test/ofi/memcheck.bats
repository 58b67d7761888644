#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/memcheck.bats - the libfabric provider under valgrind memcheck:
# a connection, send/recv and RDMA at offsets, a graceful disconnect
# (dattest-verbs rdma), and IA close ABRUPT on live objects
# (dattest-stress abrupt), client and server each under valgrind: no
# error, no definite, indirect or possible leak.  The only suppressions
# are the one-time constructor allocations of libfabric's dependencies
# (test/ofi/libfabric.supp, each entry commented); none names our code.

load ofi_helpers

STRESS="$OFI_TOP/build/test/verbs/dattest-stress"

setup_file() {
	ofi_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
	command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; return 1; }
}

# vg PROG ARGS...: under valgrind, bounded; the programs' own waits are
# stretched (TEST_TIMEOUT_SCALE), valgrind is slow
vg() {
	TEST_TIMEOUT_SCALE=$((SCALE * 10)) timeout -k 5 "$(secs 300)" \
		valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--keep-debuginfo=yes --num-callers=30 \
		--suppressions="$OFI_TOP/test/ofi/libfabric.supp" "$@"
}

# vg_pair PROG TEST: server and client of TEST, each under valgrind
vg_pair() {
	local prog=$1 t=$2
	vg "$prog" "$t" server -i "$OFI_A" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	SCALE=$((SCALE * 4)) wait_listening
	run vg "$prog" "$t" client -i "$OFI_B" -a 127.0.0.1 -q "$QUAL"
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	# -q: valgrind prints nothing unless it found something
	[ "$(grep -c '^==[0-9]*==' "$SRV_OUT")" -eq 0 ]
	[ "$(grep -c '^==[0-9]*==' <<< "$output")" -eq 0 ]
}

@test "$OFI_FABRIC: valgrind: connect, RDMA write and read at offsets, graceful disconnect and close, both sides clean" {
	vg_pair "$VT" rdma
}

@test "$OFI_FABRIC: valgrind: client and server close their IAs ABRUPT with connected EPs, LMRs, EVDs, CNO, PSP alive" {
	vg_pair "$STRESS" abrupt
}

@test "valgrind: memory windows (emulated): bind, RDMA through the window, unbind revokes the key (REMOTE_ACCESS, BROKEN), both sides clean" {
	vg_pair "$OFI_TOP/build/test/verbs/dattest-rmr" rw
}

@test "valgrind: rebind, the old key revoked at the peer; both sides clean" {
	vg_pair "$OFI_TOP/build/test/verbs/dattest-rmr" rebind
}

@test "valgrind: atomics: fetch-and-add without the atomic privilege fails (REMOTE_ACCESS, connection ends); both sides clean" {
	vg_pair "$VT" atomic-noaccess
}

@test "valgrind: a write through a key never registered: REMOTE_ACCESS, the write behind it FLUSHED, BROKEN; both sides clean" {
	vg_pair "$OFI_TOP/build/test/ofi/dattest-ofi-errors" badkey
}

@test "valgrind: atomics: 10,000 fetch-and-adds and CAS hit and miss at offset 4104 of the target LMR; both sides clean" {
	export DATTEST_ATOMIC_OFFSET=4104
	vg "$VT" atomic-count server -i ofi-a -n 1 > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	SCALE=$((SCALE * 4)) wait_listening
	run vg "$VT" atomic-count client -i ofi-b -a 127.0.0.1 -q "$QUAL"
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	grep -q "ok the counter after every client's adds: 10000" "$SRV_OUT"
	[ "$(grep -c '^==[0-9]*==' "$SRV_OUT")" -eq 0 ]
	[ "$(grep -c '^==[0-9]*==' <<< "$output")" -eq 0 ]
}
