#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/connect.bats - the provider's IA attributes and connection
# management, between rxe1-cma (client) and rxe0-cma (server).

load verbs_helpers

setup_file() { verbs_setup_file; }

# Both read their text in bash, without a process: in the emulated guest
# a process costs 0.1 to 0.2 s, and the first test asks them 60 times
# (31 s while the native suites ran beside it; issue 34).
# dev FIELD: a value of `ibv_devinfo -v -d rxe0`, hex converted
dev() {
	local line re="^[[:space:]]*$1:[[:space:]]*([0-9a-fx]+)"
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			printf '%u' "${BASH_REMATCH[1]}"
			return 0
		fi
	done <<< "$DEVINFO"
	echo "ibv_devinfo has no $1" >&2
	return 1
}

# dat FIELD: an "attr FIELD VALUE" line of dattest-verbs query
dat() {
	local line
	while IFS= read -r line; do
		if [[ $line == "attr $1 "* ]]; then
			printf '%s\n' "${line#"attr $1 "}"
			return 0
		fi
	done <<< "$output"
}

@test "dat_ia_query on rxe0-cma: every device limit as ibv_devinfo -v -d rxe0 reports it" {
	DEVINFO=$("$QT" -t "$(secs 300)" "$(secs 30)" ibv_devinfo -v -d rxe0)
	local_test query local -i rxe0-cma -a 10.77.0.1
	local pairs="max_eps:max_qp max_dto_per_ep:max_qp_wr
		max_rdma_read_per_ep_in:max_qp_rd_atom
		max_rdma_read_per_ep_out:max_qp_init_rd_atom
		max_evds:max_cq max_evd_qlen:max_cqe
		max_iov_segments_per_dto:max_sge max_lmrs:max_mr
		max_lmr_block_size:max_mr_size max_pzs:max_pd max_rmrs:max_mw
		max_srqs:max_srq max_recv_per_srq:max_srq_wr
		max_message_size:max_msg_sz max_rdma_size:max_msg_sz
		max_iov_segments_per_rdma_read:max_sge_rd
		max_iov_segments_per_rdma_write:max_sge
		hardware_version_major:hw_ver"
	local p d v want bad=0
	for p in $pairs; do
		d=${p%%:*} v=${p#*:}
		want=$(dev "$v")
		if [ "$(dat "$d")" != "$want" ]; then
			echo "MISMATCH $d = '$(dat "$d")', ibv_devinfo $v = $want"
			bad=$((bad + 1))
		else
			echo "ok $d = $want ($v)"
		fi
	done
	for d in max_rdma_read_in max_rdma_read_out; do
		[ "$(dat "$d")" -ge "$(dat max_rdma_read_per_ep_in)" ] ||
			{ echo "MISMATCH $d = $(dat "$d") < per-EP value"; bad=$((bad + 1)); }
	done
	[ -n "$(dat adapter_name)" ] || { echo "empty adapter_name"; bad=$((bad + 1)); }
	[ "$bad" -eq 0 ]
}

# The README's table "What each fabric gives" holds exactly what
# dat_ia_query reports here (test/lib/ia-row.sh; natively:
# test/ofi/ia-table.bats).
@test "dat_ia_query on rxe0-cma: the README's row for cma rxe0 is what it reports (atomics, memory windows, SRQ, max_eps, max_dto_per_ep, max_iov_segments_per_dto, max_private_data_size)" {
	local_test query local -i rxe0-cma -a 10.77.0.1
	readme_has_row
}

@test "dat_ia_query on rxe1-cma: its address is 10.77.0.2" {
	local_test query local -i rxe1-cma -a 10.77.0.2
}

@test "connect/accept: private data both ways, CR and EP queries, states, graceful disconnect" {
	pair connect -q "$(random_qual)"
}

@test "reject: the client gets DAT_CONNECTION_EVENT_PEER_REJECTED, the PSP serves on" {
	pair reject
}

@test "connect to a port nobody listens on: DAT_CONNECTION_EVENT_NON_PEER_REJECTED" {
	run_client noport -a 10.77.0.1 -q "$(random_qual)"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}

@test "connect to an address that does not answer: TIMED_OUT or UNREACHABLE" {
	run_client timeout -a 10.77.0.3 -q 4791
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}

@test "PSP_any: a free qualifier, psp_query, CONN_QUAL_IN_USE, a connection through it" {
	pair psp-any
}

@test "RSP: reserved EP, CR names it, accept with DAT_HANDLE_NULL" {
	pair rsp -q "$(random_qual)"
}

@test "dat_ep_dup_connect: a second connection to the same service point" {
	pair dup-connect
}

@test "dat_ep_modify before and after connecting; UNSIGNALLED on an EP that allows it" {
	pair ep-modify
}

@test "dat_ep_reset: the EP is reused for a second connection" {
	pair reuse
}

@test "dat_psp_free while connection requests arrive: rounds of PSPs freed (some the moment a request came), each CR EVD frees at once, every try rejected or finding nobody, a request the freeing rejected is NON_PEER_REJECTED (the client saw no more PEER_REJECTED than the server made)" {
	pair psp-churn
	grep -q '^  ok [0-9]* rounds, [0-9]* connection requests rejected, [1-9][0-9]* of them with the PSP freed as they came$' "$SRV_OUT"
	grep -q '^  ok [0-9]* tries of 4: [1-9][0-9]* rejected by the server, [0-9]* found nobody$' <<< "$output"
	churn_tally
}

# ended-kept (vt_reuse.c): dat_cr_accept(3DAT): "The successful
# completion of the operation is reported through a Connection Event of
# type DAT_CONNECTION_EVENT_ESTABLISHED on the connect_evd of the local
# Endpoint" -- also when the EPs of ended connections are still there
# (over libfabric MSG an ended connection took the next one's event:
# test/ofi/connect.bats).
@test "ended-kept: 6 connections, each requested before the server ends the one before and accepted on a new EP, the ended EPs kept: each ESTABLISHED on both sides, 4 KiB echoed and checked" {
	pair ended-kept
	grep -q "^  ok 6 connections, each accepted on a new EP" "$SRV_OUT"
}

# status-matrix, accept-dead (vt_accept_dead.c): dat_cr_accept(3DAT):
# "If the Provider cannot complete the Connection establishment, the
# connection is not established and the Consumer is notified through a
# Connection Event of type DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
# ... all posted Recv DTOs are flushed to its recv_evd_handle."  As over
# every libfabric fabric (test/ofi/connect.bats).
@test "status-matrix: dat_cr_accept of a request whose requester was killed: ACCEPT_COMPLETION_ERROR (never ESTABLISHED), both receives FLUSHED, EP DISCONNECTED" {
	pair accept-dead
	show_matrix
	grep -q '^status-matrix: accept after the requester died: DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR$' "$SRV_OUT"
	grep -q '^  ok the requester was killed after its request$' <<< "$output"
}

# status-matrix, shortrecv (test/ofi/errors.c, which says which man page
# sentences): a send into a too-short receive fails the receive and ends
# the connection BROKEN on both sides, as over every libfabric fabric
# (test/ofi/errors.bats); rxe reports the overrun as a local QP operation
# error (DAT_DTO_ERR_LOCAL_EP), not a length error (LOCAL_LENGTH).
@test "status-matrix: a 64-byte send into a 16-byte receive: receiver LOCAL_LENGTH (rxe: LOCAL_EP, its device's status), BROKEN on both sides" {
	local VT="$TOP/build/test/ofi/dattest-ofi-errors"
	pair shortrecv
	show_matrix
	grep -Eq '^status-matrix: receiver dto=DAT_DTO_ERR_LOCAL_(LENGTH|EP) conn=DAT_CONNECTION_EVENT_BROKEN$' "$SRV_OUT"
	grep -q '^status-matrix: sender dto=[A-Z_]* conn=DAT_CONNECTION_EVENT_BROKEN$' <<< "$output"
}
