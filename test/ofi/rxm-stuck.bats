#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/rxm-stuck.bats - over tcp;ofi_rxm: a client IA whose connect
# went to a listener that accepted the TCP connection and never answered
# (as libfabric 1.17's tcp leaves the connections a freed PSP's listener
# accepted but had not read: providers/ofi/ctl.c ofi_rxm_unstick) must
# reach the PSP created next on that qualifier.  Before ofi_rxm_unstick,
# rxm's connection to the address stayed CONNECTING for ever and the
# second connect timed out (churn.bats hung now and then the same way).
# test/ofi/relisten.c "mute" plays the listener with a plain TCP socket.
# Over tcp only (OFI_SUITES_tcp in providers/ofi/ofi.mk).

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-relisten"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: a connect that found a listener which never answered times out; the same client IA then connects to the PSP created on that qualifier and its data arrives" {
	local cout="$BATS_TEST_TMPDIR/client.out" go="$BATS_TEST_TMPDIR/go" crc=0
	DATTEST_GO="$BATS_TEST_TMPDIR/go-server" start_server mute
	wait_listening
	DATTEST_GO="$go" "$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" mute client \
		-q "$QUAL" > "$cout" 2>&1 3>&- &
	local cpid=$!
	wait_line "$cout" "$cpid" 'first connect timed out' 30
	touch "$BATS_TEST_TMPDIR/go-server"
	# the server's second "listening": the PSP on the same qualifier
	local first=$QUAL
	wait_listening 2
	[ "$QUAL" = "$first" ]
	touch "$go"
	wait "$cpid" || crc=$?
	echo "--- client ($crc):"
	cat "$cout"
	wait_server
	[ "$crc" -eq 0 ] && grep -q '^PASS$' "$cout"
	grep -q 'ok connected again, to the PSP created anew' "$cout"
	grep -q 'ok a connection request came to the mute listener' "$SRV_OUT"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}
