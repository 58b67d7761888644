#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/rtu-lost.bats - an IB CM RTU lost on the wire, between
# rxe1-cma (client) and rxe0-cma (server).  It drops every RTU that
# leaves vethB while it runs, so it runs alone in the guest (the
# Makefile's VERBS_ALONE): a connection of a suite beside it would lose
# its RTU too.  The rest of connect.bats runs in the lanes.

load verbs_helpers

setup_file() { verbs_setup_file; }

# rtu_drop_on: vethB, the client's side, drops every IB CM RTU it sends.
# A RoCEv2 packet here: IPv4 header (20 bytes, no options), UDP (8,
# destination port 4791), BTH (12), DETH (8), then the MAD, whose byte 1
# is the management class (CM: 0x07) and bytes 16-17 the attribute ID
# (RTU: 0x0014).
rtu_drop_on() {
	modprobe -a sch_prio cls_u32 act_gact
	tc qdisc add dev vethB root handle 1: prio
	tc filter add dev vethB parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff \
		match u16 4791 0xffff at 22 \
		match u8 0x07 0xff at 49 \
		match u16 0x0014 0xffff at 64 \
		action drop
}

# rtu_dropped: how many packets the filter dropped
rtu_dropped() {
	tc -s filter show dev vethB parent 1: |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1
}

rtu_drop_off() {
	if tc qdisc show dev vethB | grep -q '^qdisc prio 1:'; then
		tc qdisc del dev vethB root
	fi
}

teardown() {
	rtu_drop_off
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null || :
		wait "$SRV_PID" 2> /dev/null || :
	fi
}

# The client of the reject test connects a second time and disconnects at
# once; without its RTU the server's CM sees the DREQ while it still
# waits for the RTU (as when the kernel's CM, whose workqueue is not an
# ordered one, handles a DREQ before the RTU that came first: CI saw the
# reject test's server fail once).  dat_cr_accept(3DAT): "The successful
# completion of the operation is reported through a Connection Event of
# type DAT_CONNECTION_EVENT_ESTABLISHED on the connect_evd of the local
# Endpoint."  The peer's DREQ says it was established; the server hears
# ESTABLISHED, then DISCONNECTED, as the peer did.
@test "an RTU lost and the peer's DREQ first: the accepting side gets ESTABLISHED, then DISCONNECTED" {
	rtu_drop_on
	pair reject
	local n
	n=$(rtu_dropped)
	echo "RTUs dropped: $n"
	[ "$n" -ge 1 ]
}
