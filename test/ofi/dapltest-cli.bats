#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/dapltest-cli.bats - what dapltest (build/bin/dapltest) does by
# itself, whatever the transport: its service and its end (-T Q), a wrong
# IA name, the handshake's version and byte order, usage errors, OFA's -f
# <area> and case<n>.  Natively over
# tcp;ofi_rxm (OFI_SUITES_tcp in providers/ofi/ofi.mk): these ran in the
# emulated guest before (test/dapltest/dapltest.bats), where each of their
# processes costs 0.1 to 0.2 s and they took 25 s of the guest's time
# (issue 34); dapltest over verbs itself stays there, and so does a
# server killed under its client (where the kill lands, in the handshake
# or in the test, depends on the transport's speed).

load dapltest_helpers

@test "$OFI_FABRIC: dapltest: -T Q stops the server; a second -T Q finds nobody and fails" {
	dt_server
	dt_stop
	dt_client -T Q
	[ "$status" -eq 4 ]
	grep -q "cannot reach a dapltest server at $DATTEST_SERVER_ADDR port" <<< "$output"
}

@test "$OFI_FABRIC: dapltest: a wrong IA name fails fast with a clear message (exit 3)" {
	local t0=$SECONDS
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$DT" -T F -D no-such-ia hwconn
	echo "$output"
	[ "$status" -eq 3 ]
	grep -q "cannot open IA 'no-such-ia': DAT_PROVIDER_NOT_FOUND" <<< "$output"
	[ $((SECONDS - t0)) -lt "$(secs 10)" ]
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$DT" -T S -D no-such-ia -n "$PORT"
	[ "$status" -eq 3 ]
}

@test "$OFI_FABRIC: dapltest: the handshake refuses another protocol version or byte order (exit 4)" {
	dt_server
	DAPLTEST_TEST_HELLO=version dt_client -T F hwconn_open_close connmgt
	[ "$status" -eq 4 ]
	grep -q 'protocol version mismatch: peer speaks version 2, this dapltest version 1' <<< "$output"
	DAPLTEST_TEST_HELLO=byteorder dt_client -T T client SR 64
	[ "$status" -eq 4 ]
	grep -q 'byte order mismatch' <<< "$output"
	# the server goes on serving
	dt_client -T F dx_send_recv
	[ "$status" -eq 0 ]
	dt_stop
}

@test "$OFI_FABRIC: dapltest: usage errors exit 2" {
	run "$DT" -T S -R XX
	[ "$status" -eq 2 ]
	run "$DT" -T T -s "$DATTEST_SERVER_ADDR" -D "$OFI_B" -t 65 client SR 64
	[ "$status" -eq 2 ]
	run "$DT" -T T -s "$DATTEST_SERVER_ADDR" -D "$OFI_B" client XX
	[ "$status" -eq 2 ]
	run "$DT" -T F -D "$OFI_B" no-such-group
	[ "$status" -eq 2 ]
	run "$DT" -T F -D "$OFI_B" connmgt
	[ "$status" -eq 2 ]
	grep -q 'need a server' <<< "$output"
}

@test "$OFI_FABRIC: dapltest: OFA lines: -T F -f <area> runs the area, case<n> its n-th case" {
	local n c1
	n=$("$DT" -T F -f connmgt --list | wc -l)
	[ "$n" -ge 3 ]
	c1=$("$DT" -T F -f hwconn --list | awk '$2 == "case1" { print $3 }')
	[ -n "$c1" ]
	dt_server
	dt_client -T F -f connmgt
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result: PASS$' <<< "$output")" -eq "$n" ]
	grep -q "^$n passed, 0 failed\$" <<< "$output"
	dt_client -T F -f hwconn case1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'Result:' <<< "$output")" -eq 1 ]
	grep -q "^$c1  *Result: PASS\$" <<< "$output"
	dt_stop
}
