#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/faults.bats - a dead peer over tcp;ofi_rxm or shm (shm: no
# connection fails, the keepalive finds it): build/test/verbs/
# dattest-faults streams RDMA writes both ways between ofi-a and ofi-b and
# the suite kills one side (SIGKILL).  The survivor must see the
# connection BROKEN (or DISCONNECTED) within the keepalive period
# (DAPL_OFI_KEEPALIVE_TIMEOUT_MS, 3 s here; the default is 10 s), every
# outstanding DTO completed, and close cleanly.

load faults_helpers

export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=3000

setup_file() {
	faults_setup_file
}

# dead VICTIM: both stream, VICTIM (client or server) is killed
dead() {
	# tcpmsg: the killed process's kernel closes its TCP connection and
	# the survivor's libfabric reports that at once (EQ or CQ error):
	# BROKEN with the keepalive timeout out of reach (10 min), so within
	# the program's 45 s wait it can only come from the closed connection
	[ "$OFI_FABRIC" != tcpmsg ] || export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=600000
	streaming "$1"
	kill -KILL "$VPID"
	survived "$1"
	grep -Eq '^  ok connection end: DAT_CONNECTION_EVENT_(BROKEN|DISCONNECTED)$' "$SOUT"
	[ "$OFI_FABRIC" != tcpmsg ] ||
		grep -qx '  ok connection end: DAT_CONNECTION_EVENT_BROKEN' "$SOUT"
}

@test "$OFI_FABRIC: dead peer: client killed (SIGKILL) mid-transfer; the server sees the connection end, flushes, closes (tcpmsg: BROKEN from the closed connection, keepalive out of reach)" {
	dead client
}

@test "$OFI_FABRIC: dead peer: server killed (SIGKILL) mid-transfer; the client sees the connection end, flushes, closes (tcpmsg: BROKEN from the closed connection, keepalive out of reach)" {
	dead server
}
