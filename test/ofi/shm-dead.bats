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

load faults_helpers

HOLD="$OFI_TOP/build/test/ofi/dattest-ofi-shmhold"
export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=600000

setup_file() {
	faults_setup_file "$HOLD"
}

# held VICTIM: both stream, VICTIM (client or server) is killed while it
# holds a lock of a region of the connection
held() {
	streaming "$1"
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$HOLD" "$VPID" "$SPID"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^killed $VPID holding the lock of " <<< "$output"
	survived "$1"
	grep -qx '  ok connection end: DAT_CONNECTION_EVENT_BROKEN' "$SOUT"
	grep -q "ofi: shm: peer process $VPID died holding the lock of .* region of a connection: released, the connection is broken" "$SOUT"
}

@test "$OFI_FABRIC: dead peer holding a lock: client killed (SIGKILL) inside a section of a shm region's lock; the server gives the lock back, sees BROKEN before any keepalive, flushes, closes" {
	held client
}

@test "$OFI_FABRIC: dead peer holding a lock: server killed (SIGKILL) inside a section of a shm region's lock; the client gives the lock back, sees BROKEN before any keepalive, flushes, closes" {
	held server
}
