#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/scm.bats - libdaplscm.so.1, the socket CM (providers/scm),
# between OpenIB-rxe1-1 (client, rxe1 port 1) and OpenIB-rxe0-1 (server,
# rxe0 port 1) of test/vm/dat.conf, compat-dapl's names for its scm
# entries: the IA, connection management as the DAT 1.2 man pages
# (illumos man3dat) say it, and peers that do not speak its protocol.
# The rest of the verbs suites run over scm too (Makefile: the group
# scm=..., with these IAs as DATTEST_SERVER_IA/DATTEST_CLIENT_IA).

export DATTEST_SERVER_IA=OpenIB-rxe0-1 DATTEST_CLIENT_IA=OpenIB-rxe1-1
load verbs_helpers

setup_file() { verbs_setup_file; }

PEER="$TOP/build/test/verbs/scm-peer"

# dat FIELD: an "attr FIELD VALUE" line of dattest-verbs query
dat() {
	sed -n "s/^attr $1 //p" <<< "$output" | head -n 1
}

# fake_listener MODE: scm-peer (test/verbs/scm_peer.c) listening on
# 10.77.0.1 in the background (PEER_PID), its port in PEER_PORT once it
# printed "listening PORT" (bounded, as wait_listening)
fake_listener() {
	local out=$BATS_TEST_TMPDIR/peer.out end=$((SECONDS + $(secs 30)))
	# emptied here, not by the background job's redirection, which may
	# come after the first look (the last peer's port was read then)
	: > "$out"
	"$PEER" listen 10.77.0.1 "$1" "$(secs 60)" > "$out" 3>&- &
	PEER_PID=$!
	until nth_listening "$out" 1 && [ -n "$QUAL" ]; do
		if ! kill -0 "$PEER_PID" 2> /dev/null || [ "$SECONDS" -ge "$end" ]; then
			echo "no listening line from scm-peer; its output:"
			cat "$out"
			return 1
		fi
		nap
	done
	PEER_PORT=$QUAL
}

teardown() {
	if [ -n "${PEER_PID:-}" ] && kill -0 "$PEER_PID" 2> /dev/null; then
		kill "$PEER_PID" 2> /dev/null || :
		wait "$PEER_PID" 2> /dev/null || :
	fi
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null || :
		wait "$SRV_PID" 2> /dev/null || :
	fi
}

# dat_ia_query(3DAT): "IA_address_ptr: An address of the interface
# Adapter" -- the socket CM's is the one the device's netdev has (vethA);
# "Max private data size: ... This value is at least 64 bytes" -- the
# socket CM's is 256 (providers/scm/wire.h)
@test "scm: dat_ia_query on OpenIB-rxe0-1: address 10.77.0.1 (rxe0's netdev), 256 bytes of private data, atomics, windows and SRQ as on cma" {
	local_test query local -i OpenIB-rxe0-1 -a 10.77.0.1
	[ "$(dat max_private_data_size)" = 256 ]
	grep -qx 'provider_specific DAT_IB_FETCH_AND_ADD=TRUE' <<< "$output"
	readme_has_row
	local_test query local -i OpenIB-rxe1-1 -a 10.77.0.2
}

@test "scm: connect/accept: private data both ways, CR and EP queries, states, graceful disconnect" {
	pair connect -q "$(random_qual)"
}

# test/verbs/vt_graceful.c (dat_ep_disconnect(3DAT)): the QP drains
# (SQD) before the socket CM's DREQ, as before rdma_cm's
@test "scm: graceful-sends: 16 sends of 64 B to 256 KiB, then a graceful disconnect at once: every send completes DAT_DTO_SUCCESS, the peer receives every message whole and in order before DISCONNECTED" {
	pair graceful-sends
}

# test/verbs/vt_graceful.c shared-evd-end: dat_ep_disconnect(3DAT), "If
# the same EVD is used for connect_evd_handle and any recv_evd_handle and
# request_evd_handle, all successful Completion events of in-progress
# DTOs precede the Disconnect Completion event."
@test "scm: shared-evd-end: one EVD for connection events, requests and receives; 8 sends, a graceful disconnect at once: on each side, dequeued once the EP is DISCONNECTED, all 8 completions SUCCESS before DISCONNECTED" {
	pair shared-evd-end
}

@test "scm: reject: the client gets DAT_CONNECTION_EVENT_PEER_REJECTED, the PSP serves on" {
	pair reject
}

# dat_ep_connect(3DAT): "DAT_CONNECTION_EVENT_NON_PEER_REJECTED" when
# nobody listens there: a refused TCP connect
@test "scm: connect to a port nobody listens on: DAT_CONNECTION_EVENT_NON_PEER_REJECTED" {
	run_client noport -a 10.77.0.1 -q "$(random_qual)"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}

# The 64-bit qualifier: one above 65535 whose low 16 bits are a
# listening qualifier's reaches that listener's socket, which refuses it
# as "nobody listens" (the REQ names the whole qualifier)
@test "scm: a qualifier whose low 16 bits are a listener's, but not its qualifier: NON_PEER_REJECTED; the listener's own still connects" {
	local q
	q=$(random_qual)
	start_server connect -q "$q"
	wait_listening
	[ "$QUAL" = "$q" ]
	run_client noport -a 10.77.0.1 -q $((q + 65536 * 7))
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	run_client connect -q "$q"
	wait_server
	[ "$status" -eq 0 ]
	[ "$SRV_RC" -eq 0 ]
}

# dat_ep_connect(3DAT): the timeout "DAT_CONNECTION_EVENT_TIMED_OUT"
@test "scm: a listener that accepts and never answers: TIMED_OUT" {
	fake_listener silent
	run_client timeout -a 10.77.0.1 -q "$PEER_PORT"
	[ "$status" -eq 0 ]
	grep -q 'ok connection event DAT_CONNECTION_EVENT_TIMED_OUT' <<< "$output"
}

# dat_ep_connect(3DAT): "The same DAT_CONNECTION_EVENT_NON_PEER_REJECTED
# event is returned if the connection cannot be established for all
# reasons of not establishing the connection, except timeout, remote host
# not reachable, and remote peer reject. For example, ... Transport
# errors."  The host answered; what answered is no socket CM.
@test "scm: a listener that closes at once, and one that answers garbage: NON_PEER_REJECTED, at once (not the timeout)" {
	local mode
	for mode in close garbage; do
		fake_listener "$mode"
		run_client noport -a 10.77.0.1 -q "$PEER_PORT"
		[ "$status" -eq 0 ]
		grep -q '^PASS$' <<< "$output"
		wait "$PEER_PID"
	done
}

# A peer that sends garbage or stops halfway ends only its own socket:
# the PSP serves the next real client (issue 37: "never a crash or a
# hang")
@test "scm: a client that sends an HTTP request is cut off; one that stops halfway through a REQ holds nothing up; the PSP serves the next real client" {
	local q half
	q=$(random_qual)
	start_server connect -q "$q"
	wait_listening
	run "$PEER" connect 10.77.0.1 "$q" garbage "$(secs 20)"
	echo "$output"
	[ "$output" = closed ]
	"$PEER" connect 10.77.0.1 "$q" half "$(secs 60)" \
		> "$BATS_TEST_TMPDIR/half.out" 3>&- &
	PEER_PID=$!
	wait_line "$BATS_TEST_TMPDIR/half.out" "$PEER_PID" sent 30
	run_client connect -q "$q"
	wait_server
	[ "$status" -eq 0 ]
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
}

@test "scm: PSP_any: a free qualifier, psp_query, CONN_QUAL_IN_USE, a connection through it" {
	pair psp-any
}

@test "scm: RSP: reserved EP, CR names it, accept with DAT_HANDLE_NULL" {
	pair rsp -q "$(random_qual)"
}

@test "scm: dat_ep_dup_connect, dat_ep_modify, dat_ep_reset (a second connection on the EP)" {
	pair dup-connect
	pair ep-modify
	pair reuse
}

# psp-churn (vt_cm_many.c), as over cma (connect.bats): dat_psp_free(3DAT)
# "Any incoming Connection Requests for the Connection Qualifier on the
# destroyed Service Point ... are automatically rejected by the Provider
# with the return analogous to the no listening Service Point"
@test "scm: dat_psp_free while connection requests arrive: rounds of PSPs freed (some the moment a request came), each CR EVD frees at once, a request the freeing rejected is NON_PEER_REJECTED (the client saw no more PEER_REJECTED than the server made)" {
	pair psp-churn
	grep -q '^  ok [0-9]* rounds, [0-9]* connection requests rejected, [1-9][0-9]* of them with the PSP freed as they came$' "$SRV_OUT"
	grep -q '^  ok [0-9]* tries of 4: [1-9][0-9]* rejected by the server, [0-9]* found nobody$' <<< "$output"
	churn_tally
}

@test "scm: ended-kept: 6 connections, each requested before the server ends the one before and accepted on a new EP: each ESTABLISHED on both sides, 4 KiB echoed" {
	pair ended-kept
	grep -q "^  ok 6 connections, each accepted on a new EP" "$SRV_OUT"
}

# dat_cr_accept(3DAT): "If the Provider cannot complete the Connection
# establishment, the connection is not established and the Consumer is
# notified through a Connection Event of type
# DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR ... all posted Recv DTOs
# are flushed to its recv_evd_handle."
@test "scm: status-matrix: dat_cr_accept of a request whose requester was killed: ACCEPT_COMPLETION_ERROR, both receives FLUSHED, EP DISCONNECTED" {
	pair accept-dead
	show_matrix
	grep -q '^status-matrix: accept after the requester died: DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR$' "$SRV_OUT"
}

@test "scm: status-matrix: a 64-byte send into a 16-byte receive: the receive fails, BROKEN on both sides" {
	local VT="$TOP/build/test/ofi/dattest-ofi-errors"
	pair shortrecv
	show_matrix
	grep -Eq '^status-matrix: receiver dto=DAT_DTO_ERR_LOCAL_(LENGTH|EP) conn=DAT_CONNECTION_EVENT_BROKEN$' "$SRV_OUT"
	grep -q '^status-matrix: sender dto=[A-Z_]* conn=DAT_CONNECTION_EVENT_BROKEN$' <<< "$output"
}

# vg ARGS...: dattest-verbs ARGS under valgrind memcheck, bounded, as
# memcheck.bats runs its programs (rdma-core's own one-time globals are
# the only suppressions, test/verbs/rdma-core.supp)
vg() {
	TEST_TIMEOUT_SCALE=$((SCALE * 10)) "$QT" -t "$(secs 2000)" "$(secs 200)" \
		valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--keep-debuginfo=yes --num-callers=30 \
		--suppressions="$TOP/test/verbs/rdma-core.supp" "$VT" "$@"
}

@test "scm: valgrind: connect/accept with private data both ways and a graceful disconnect; both sides clean" {
	command -v valgrind > /dev/null
	local q
	q=$(random_qual)
	: > "$SRV_OUT"
	vg connect server -q "$q" > "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	SCALE=$((SCALE * 4)) wait_listening
	run vg connect client -q "$q"
	echo "--- client exit status $status; client output:"
	echo "$output"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	# -q: valgrind prints nothing unless it found something
	if grep -q '^==[0-9]*==' "$SRV_OUT"; then return 1; fi
	if grep -q '^==[0-9]*==' <<< "$output"; then return 1; fi
}
