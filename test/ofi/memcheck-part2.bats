#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/memcheck-part2.bats - the libfabric provider's emulated memory
# windows, atomics and bad keys (issue 16) under valgrind memcheck, client
# and server each: no error, no definite, indirect or possible leak.
# Over tcp;ofi_rxm, shm and tcpmsg.

load ofi_helpers
load memcheck_helpers

setup_file() {
	ofi_setup_file
	command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; return 1; }
}

@test "$OFI_FABRIC: valgrind: memory windows (emulated): bind, RDMA through the window, unbind revokes the key (REMOTE_ACCESS, BROKEN), both sides clean" {
	vg_pair "$OFI_TOP/build/test/verbs/dattest-rmr" rw
}

@test "$OFI_FABRIC: valgrind: rebind, the old key revoked at the peer; both sides clean" {
	vg_pair "$OFI_TOP/build/test/verbs/dattest-rmr" rebind
}

# vg_absent: an IA without atomics (OFI_ATOMICS=0, tcpmsg): what the
# atomic tests below check instead, as there is nothing to run: the
# attributes FALSE and both calls DAT_MODEL_NOT_SUPPORTED, clean
vg_absent() {
	run vg "$VT" atomic-absent local -i "$OFI_A"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$(grep -c '^==[0-9]*==' <<< "$output")" -eq 0 ]
}

@test "$OFI_FABRIC: valgrind: atomics: fetch-and-add without the atomic privilege fails (REMOTE_ACCESS, connection ends); both sides clean (no atomics, tcpmsg: the absent calls instead)" {
	if [ "$OFI_ATOMICS" = 0 ]; then
		vg_absent
		return
	fi
	vg_pair "$VT" atomic-noaccess
}

@test "$OFI_FABRIC: valgrind: a write through a key never registered: REMOTE_ACCESS, the write behind it FLUSHED, BROKEN; both sides clean" {
	vg_pair "$OFI_TOP/build/test/ofi/dattest-ofi-errors" badkey
}

@test "$OFI_FABRIC: valgrind: atomics: 10,000 fetch-and-adds and CAS hit and miss at offset 4104 of the target LMR; both sides clean (no atomics, tcpmsg: the absent calls instead)" {
	if [ "$OFI_ATOMICS" = 0 ]; then
		vg_absent
		return
	fi
	export DATTEST_ATOMIC_OFFSET=4104
	vg_pair "$VT" atomic-count -n 1
	grep -q "ok the counter after every client's adds: 10000" "$SRV_OUT"
}

@test "$OFI_FABRIC: valgrind: close orders (connect.bats), each of the four once, two IAs of one process: clean" {
	export VT_FIRST_IA="$OFI_A"
	run vg "$VT" close-order local -i "$OFI_B" -a "$DATTEST_SERVER_ADDR" -n 4
	grep -v '^  ok ' <<< "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$(grep -c '^==[0-9]*==' <<< "$output")" -eq 0 ]
}

# rmr-pz (test/verbs/vt_rmr_pz.c): a window's key told to several
# connections of its PZ and revoked on all of them (rmr.c's told[] and
# wait lists)
@test "$OFI_FABRIC: valgrind: a window's key on two connections of its PZ, revoked on both by a rebind, refused to another PZ's; both sides clean" {
	vg_pair "$TOP/build/test/verbs/dattest-verbs" rmr-pz
}
