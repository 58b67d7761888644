#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/shm-names.bats - the names an IA over libfabric's shm comes to
# know in its life (README.md: shm; providers/ofi/addr.c, gen.c):
# libfabric 1.17's shm lets an address vector take 256, one for each peer
# IA and each listener the IA connected to, and none can leave it.  An IA
# moves on to a new control endpoint and AV before they run out, so that
# a long-lived IA (a daemon) serves any number of clients in its life and
# a client reaches any number of listeners.  Over shm only (OFI_SUITES_shm
# in providers/ofi/ofi.mk).

load ofi_helpers
load memcheck_helpers

setup_file() { ofi_setup_file; }

# test/verbs/vt_cm_many.c shm-names: 254 listeners was the end before
@test "$OFI_FABRIC: an IA that connects to 300 listeners one after another: all connect, its connection made first carries every round's qualifier, a listener it knew still connects, and nothing on stderr" {
	pair shm-names -n 300 -- -n 300
	grep -q '^  ok 300 listeners reached, each a new name$' <<< "$output"
	grep -q '^  ok a new EP connects to the listener the IA knew before$' <<< "$output"
	grep -q '^  ok 300 connections accepted, each on a PSP of its own$' "$SRV_OUT"
	! grep -q '^dapl: ofi: shm IA' <<< "$output"
	! grep -q '^dapl: ofi: shm IA' "$SRV_OUT"
}

# test/verbs/vt_cm_many.c serial-ias: issue 33, "a test connects 1,000
# clients in turn to one long-lived server IA"; the server stopped
# answering new client IAs after some 254 before.
@test "$OFI_FABRIC: one server IA serves 1,000 client IAs in turn (each opened, connected, one message, disconnected, closed), one PSP for them all, nothing on stderr" {
	pair serial-ias -n 1000 -- -n 1000
	grep -q '^  ok 1000 connections made, one after another, each from an IA of its own$' <<< "$output"
	grep -q '^  ok 1000 connections accepted, one after another, each on a new EP$' "$SRV_OUT"
	! grep -q '^dapl: ofi: shm IA' "$SRV_OUT"
}

# The moves themselves under valgrind: with DAPL_OFI_SHM_AV_NAMES=4 the
# server's IA moves on every 4 client IAs and the client's every 4
# listeners, and the old control endpoints and AVs close behind them.
# The CM's debug lines (DAPL_DBG_TYPE 0x4) say when an IA moves on and
# when an old control endpoint closes.
@test "$OFI_FABRIC: valgrind: control endpoints renewed every 4 names (DAPL_OFI_SHM_AV_NAMES=4), the old ones closed: a server IA serving 12 client IAs in turn, a client IA reaching 12 listeners; every side clean" {
	export DAPL_OFI_SHM_AV_NAMES=4 DAPL_DBG_TYPE=0x5
	local moved='new connections go through a new one$'
	local closed='an old control endpoint of IA .* closes'
	vg_pair "$VT" serial-ias -n 12 -- -n 12
	grep -q '^  ok 12 connections accepted, one after another, each on a new EP$' "$SRV_OUT"
	[ "$(grep -c "$moved" "$SRV_OUT")" -ge 2 ]
	grep -q "$closed" "$SRV_OUT"
	vg_pair "$VT" shm-names -n 12 -- -n 12
	grep -q '^  ok 12 listeners reached, each a new name$' <<< "$output"
	[ "$(grep -c "$moved" <<< "$output")" -ge 2 ]
	grep -q "$closed" <<< "$output"
}
