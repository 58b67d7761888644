#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/passive.bats - one-sided operations to a target that calls
# nothing (issue 38).  dat_ep_post_rdma_write(3DAT): "The
# dat_ep_post_rdma_write() function requests the transfer of all the data
# specified by the local_iov over the connection of the ep_handle Endpoint
# into the remote_buffer" - nothing the remote consumer posts takes part,
# and a storage target or an MPI rank that is computing does not call DAT
# meanwhile.  Over libfabric's manual progress the target's library must
# still run: the provider wakes its engine when something arrives for one
# of its endpoints (providers/ofi/wake.c).
#
# The server (vt_passive.c) blocks on its standard input, a FIFO here,
# while the client streams.  Nothing here measures time: how fast the
# target progresses is make bench's passive-target rows (dapltest -T P
# against an idle dapltest server).

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: passive-target: 200 rounds of an RDMA write, its read-back and a read of the target's data, to a server that calls nothing of DAT meanwhile; every byte checked at both ends" {
	local n=200
	passive_pair passive-target "$n"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	grep -q "^  ok $n rounds of an RDMA write, its read-back and a read of the target's data, each checked" <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	[ "$(grep -c "^  ok slot [0-7] holds round 19[2-9]'s RDMA write: 4096 bytes match" "$SRV_OUT")" -eq 8 ]
}
