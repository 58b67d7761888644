# SPDX-License-Identifier: BSD-3-Clause
# Shared by test/ofi/memcheck*.bats: programs under valgrind memcheck, one
# or a server and a client.  The only suppressions are the one-time
# constructor allocations of libfabric's dependencies
# (test/ofi/libfabric.supp) and, over verbs, rdma-core's globals and one
# report inside rdma_accept (test/ofi/libfabric-verbs.supp: OFI_VG_SUPP,
# ofi_helpers.bash); none names our code.

# vg PROG ARGS...: under valgrind, bounded ($QT, verbs_helpers.bash); the
# programs' own waits are stretched (TEST_TIMEOUT_SCALE), valgrind is slow
vg() {
	TEST_TIMEOUT_SCALE=$((SCALE * 10)) "$QT" -t "$(secs 3000)" "$(secs 300)" \
		valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--keep-debuginfo=yes --num-callers=30 \
		"${OFI_VG_SUPP[@]}" "$@"
}

# vg_pair PROG TEST [SERVER ARGS...] [-- CLIENT ARGS...]: server and
# client of TEST, each under valgrind
vg_pair() {
	local prog=$1 t=$2
	shift 2
	pair_args "$@" # verbs_helpers.bash
	: > "$SRV_OUT" # before the job starts (verbs_helpers start_server)
	vg "$prog" "$t" server -i "$OFI_A" "${SRV_ARGS[@]}" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	SCALE=$((SCALE * 4)) wait_listening
	run vg "$prog" "$t" client -i "$OFI_B" -a "$DATTEST_SERVER_ADDR" \
		-q "$QUAL" "${CLI_ARGS[@]}"
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
