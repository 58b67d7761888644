#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/faults.bats - a dead peer over tcp;ofi_rxm or shm (shm: no
# connection fails, the keepalive finds it): build/test/verbs/
# dattest-faults streams RDMA writes both ways between ofi-a and ofi-b and
# the suite kills one side (SIGKILL).  The survivor must see the
# connection BROKEN (or DISCONNECTED) within the keepalive period
# (DAPL_OFI_KEEPALIVE_TIMEOUT_MS, 3 s here; the default is 10 s), every
# outstanding DTO completed, and close cleanly.

load ofi_helpers

VF="$OFI_TOP/build/test/verbs/dattest-faults"
export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=3000

setup_file() {
	ofi_setup_file
	[ -x "$VF" ] || { echo "$VF is missing: make test-programs" >&2; return 1; }
}

setup() {
	SRV_PID=
	CLI_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	CLI_OUT=$BATS_TEST_TMPDIR/client.out
	QUAL=
}

teardown() {
	local p
	for p in "$SRV_PID" "$CLI_PID"; do
		if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
}

# dead VICTIM: both stream, VICTIM (client or server) is killed
dead() {
	local vout sout vpid
	# tcpmsg: the killed process's kernel closes its TCP connection and
	# the survivor's libfabric reports that at once (EQ or CQ error):
	# BROKEN with the keepalive timeout out of reach (10 min), so within
	# the program's 45 s wait it can only come from the closed connection
	[ "$OFI_FABRIC" != tcpmsg ] || export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=600000
	fstart SRV_PID "$SRV_OUT" dead server
	wait_listening
	fstart CLI_PID "$CLI_OUT" dead client -q "$QUAL"
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	if [ "$1" = client ]; then vout=$CLI_OUT sout=$SRV_OUT; else vout=$SRV_OUT sout=$CLI_OUT; fi
	vpid=$(pid_of "$vout")
	[ -n "$vpid" ]
	kill -KILL "$vpid"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	# shm: the killed process's regions stay in /dev/shm
	shm_clean "$vpid"
	[ "$1" = client ] || shm_clean_qual "$QUAL"
	if [ "$1" = client ]; then
		[ "$CLI_RC" -eq 137 ]
		[ "$SRV_RC" -eq 0 ]
	else
		[ "$SRV_RC" -eq 137 ]
		[ "$CLI_RC" -eq 0 ]
	fi
	grep -qx PASS "$sout"
	grep -Eq '^  ok connection end: DAT_CONNECTION_EVENT_(BROKEN|DISCONNECTED)$' "$sout"
	[ "$OFI_FABRIC" != tcpmsg ] ||
		grep -qx '  ok connection end: DAT_CONNECTION_EVENT_BROKEN' "$sout"
}

@test "$OFI_FABRIC: dead peer: client killed (SIGKILL) mid-transfer; the server sees the connection end, flushes, closes (tcpmsg: BROKEN from the closed connection, keepalive out of reach)" {
	dead client
}

@test "$OFI_FABRIC: dead peer: server killed (SIGKILL) mid-transfer; the client sees the connection end, flushes, closes (tcpmsg: BROKEN from the closed connection, keepalive out of reach)" {
	dead server
}
