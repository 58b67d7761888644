#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/errors.bats - failed DTOs over libfabric (test/ofi/errors.c):
# a bad remote key, a range outside the registration, a privilege the
# target's LMR lacks -- each gives DAT_DTO_ERR_REMOTE_ACCESS, flushes what
# was posted behind it and breaks the connection, as on verbs (rxm reports
# nothing for a write with an unknown key, shm checks neither keys nor
# ranges: the provider checks keys, ranges and privileges against the
# peer's registration before it sends).  An RDMA read that libfabric never
# completes: errors-stuck.bats.

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-errors"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: errors: RDMA write through a key never registered: REMOTE_ACCESS, the write behind it FLUSHED, BROKEN" {
	start_server badkey
	wait_listening
	run_client badkey -q "$QUAL" -n 0
	wait_server
	[ "$status" -eq 0 ] && grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}

@test "$OFI_FABRIC: errors: RDMA write 8 bytes past the end of the registration: REMOTE_ACCESS, FLUSHED, BROKEN" {
	start_server badkey
	wait_listening
	run_client badkey -q "$QUAL" -n 1
	wait_server
	[ "$status" -eq 0 ] && grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}

@test "$OFI_FABRIC: errors: RDMA write through a remote-read-only LMR: REMOTE_ACCESS, FLUSHED, BROKEN; target untouched" {
	start_server badkey
	wait_listening
	run_client badkey -q "$QUAL" -n 2
	wait_server
	[ "$status" -eq 0 ] && grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
	grep -q 'ok the remote-read-only LMR untouched' "$SRV_OUT"
}

@test "$OFI_FABRIC: errors: RDMA read through a remote-write-only LMR: REMOTE_ACCESS, FLUSHED, BROKEN" {
	start_server badkey
	wait_listening
	run_client badkey -q "$QUAL" -n 3
	wait_server
	[ "$status" -eq 0 ] && grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}

# status-matrix: the same statuses for the same event on every fabric
# (errors.c shortrecv says which man page sentences).  Each side's line is
# printed for the README's table of per-fabric differences.
@test "$OFI_FABRIC: status-matrix: a 64-byte send into a 16-byte receive: receiver LOCAL_LENGTH, BROKEN on both sides" {
	start_server shortrecv
	wait_listening
	run_client shortrecv -q "$QUAL"
	wait_server
	# in the TAP log (summary.sh gathers them): what this fabric reports
	show_matrix
	[ "$status" -eq 0 ] && grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
	grep -q '^status-matrix: receiver dto=DAT_DTO_ERR_LOCAL_LENGTH conn=DAT_CONNECTION_EVENT_BROKEN$' "$SRV_OUT"
	grep -q '^status-matrix: sender dto=[A-Z_]* conn=DAT_CONNECTION_EVENT_BROKEN$' <<< "$output"
}
