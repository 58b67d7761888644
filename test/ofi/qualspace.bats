#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/qualspace.bats - issue 39: dat_psp_create and dat_rsp_create on
# any free qualifier succeed whatever ports the host's other sockets hold.
# A qualifier's port is one of 1024..32767, never an ephemeral one
# (providers/ofi/addr.c); before, the qualifier whose port a socket of the
# host held got DAT_CONN_QUAL_IN_USE (the 33rd of 0xAffab1e + n in the
# issue's test).  test/ofi/qualspace.c says what is checked and which man
# page sentences; it fails on the old mapping (the two qualifiers whose
# port the test's own socket holds).

load ofi_helpers

VQ="$TOP/build/test/ofi/dattest-ofi-qualspace"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: qual-space: 1,000 PSPs and RSPs on one IA (shm: as many as its 256 endpoints allow), two of them on a port a socket of the host holds: every one created, a second PSP on one DAT_CONN_QUAL_IN_USE, connects reach their own, all freed" {
	# one run at a time on this host: the lanes of make check (and
	# another tree's) use the same addresses and the run's ports
	run flock "${TMPDIR:-/tmp}/dattest-qualspace.lock" \
		env VT_FIRST_IA="$OFI_A" "$QT" -t "$(secs 2000)" "$(secs 200)" \
		"$VQ" qualspace local -i "$OFI_B" -a "$DATTEST_SERVER_ADDR"
	echo "--- exit status $status; output:"
	grep -v '^  ok dat_\(psp\|rsp\|ep\)_\(create\|free\)' <<< "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	grep -q '^  ok every service point created' <<< "$output"
	grep -q '^  ok a second PSP on a qualifier in use: DAT_CONN_QUAL_IN_USE' <<< "$output"
	[ "$(grep -c "^  ok the client's answer: DAT_CONNECTION_EVENT_PEER_REJECTED" <<< "$output")" -eq 3 ]
	grep -q '^  ok every service point freed' <<< "$output"
	local n
	n=$(sed -n 's/.* holds port [0-9]* of [0-9.]*; \([0-9]*\) service points.*/\1/p' <<< "$output")
	if [ "$OFI_FABRIC" = shm ]; then
		[ "$n" -ge 200 ]
	else
		[ "$n" -eq 1000 ]
	fi
}
