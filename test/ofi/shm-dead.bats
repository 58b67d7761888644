#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/shm-dead.bats - over shm, a peer killed (SIGKILL) while it held
# the lock of one of the connection's shm regions (issue 33, item 4).
#
# libfabric 1.17's shm takes a process-shared spinlock in a region's
# header to read the region's queue or to put a command in it; a process
# killed inside leaves it held, and the survivor's next fi_cq_read or
# fi_writemsg there spun for ever with the CQ's lock held: the engine
# waited behind it, no keepalive fired, the IA was frozen (about 1 run of
# faults.bats in 20, which is why faults.bats was not run over shm).
# dattest-ofi-shmhold (test/ofi/shmhold.c) makes that moment every time:
# it stops the victim until it is caught holding such a lock, then kills
# it.  The survivor's IA must give the lock back (udapl's watchdog,
# providers/ofi/shm_guard.c), see the connection BROKEN long before its
# keepalive (10 minutes here: only the rescue can end it within the
# program's 45 s), flush every outstanding write and close.  Over shm only
# (OFI_SUITES_shm in providers/ofi/ofi.mk); faults.bats covers a kill at
# any moment on every fabric.

load ofi_helpers

VF="$OFI_TOP/build/test/verbs/dattest-faults"
HOLD="$OFI_TOP/build/test/ofi/dattest-ofi-shmhold"
export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=600000

setup_file() {
	ofi_setup_file
	[ -x "$VF" ] && [ -x "$HOLD" ] || { echo "$VF or $HOLD is missing: make test-programs" >&2; return 1; }
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
			kill -CONT "$p" 2> /dev/null || :
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
}

# held VICTIM: both stream, VICTIM (client or server) is killed while it
# holds a lock of a region of the connection
held() {
	local vout sout vpid spid
	fstart SRV_PID "$SRV_OUT" dead server
	wait_listening
	fstart CLI_PID "$CLI_OUT" dead client -q "$QUAL"
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	if [ "$1" = client ]; then vout=$CLI_OUT sout=$SRV_OUT; else vout=$SRV_OUT sout=$CLI_OUT; fi
	vpid=$(pid_of "$vout")
	spid=$(pid_of "$sout")
	[ -n "$vpid" ] && [ -n "$spid" ]
	run timeout -k 5 "$(secs 120)" "$HOLD" "$vpid" "$spid"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^killed $vpid holding the lock of " <<< "$output"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	fwait CLI_RC CLI_PID "$CLI_OUT"
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
	grep -qx '  ok connection end: DAT_CONNECTION_EVENT_BROKEN' "$sout"
	grep -q "ofi: shm: peer process $vpid died holding the lock of .* region of a connection: released, the connection is broken" "$sout"
}

@test "$OFI_FABRIC: dead peer holding a lock: client killed (SIGKILL) inside a section of a shm region's lock; the server gives the lock back, sees BROKEN before any keepalive, flushes, closes" {
	held client
}

@test "$OFI_FABRIC: dead peer holding a lock: server killed (SIGKILL) inside a section of a shm region's lock; the client gives the lock back, sees BROKEN before any keepalive, flushes, closes" {
	held server
}
