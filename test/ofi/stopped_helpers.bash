# SPDX-License-Identifier: BSD-3-Clause
# Shared by test/ofi/stopped.bats and stopped-nocma.bats: an RDMA write to
# a target process that is stopped (SIGSTOP), with test/ofi/errors.c's
# "stopped" test (its head says what each side checks).

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-errors"

# stopped EXPECT: the test with the server stopped after "have target";
# EXPECT done (the write completes while it is stopped) or waits (it
# completes once the server continued, after "write waits")
stopped() {
	local cout="$BATS_TEST_TMPDIR/client.out" go="$BATS_TEST_TMPDIR/go" crc=0 spid cpid
	start_server stopped
	wait_listening
	spid=$(pgrep -P "$SRV_PID" -x dattest-ofi-err)
	[ -n "$spid" ]
	# emptied and removed here, not by the client's redirection, which
	# may come after wait_line read an earlier client's "have target"
	# (a second round in one test stopped its server before the client
	# connected: DAT_TIMEOUT_EXPIRED on both sides)
	: > "$cout"
	rm -f "$go"
	DATTEST_GO="$go" DATTEST_EXPECT="$1" \
		"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" stopped client -q "$QUAL" \
		> "$cout" 2>&1 3>&- &
	cpid=$!
	wait_line "$cout" "$cpid" 'have target' 30
	stop_process "$spid" 30 || { kill -CONT "$spid"; false; }
	touch "$go"
	# "write waits": no completion for a second; "write done": the
	# completion came, the server still stopped
	wait_line "$cout" "$cpid" "write $1" 60 || { kill -CONT "$spid"; false; }
	kill -CONT "$spid"
	wait "$cpid" || crc=$?
	echo "--- client ($crc):"
	cat "$cout"
	wait_server
	[ "$crc" -eq 0 ] && grep -q '^PASS$' "$cout"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
	grep -q '^  ok the read-write LMR: the client.s RDMA writes' "$SRV_OUT"
}
