#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/rmr.bats - memory windows over tcp;ofi_rxm, emulated with
# application keys (providers/ofi/rmr.c): test/verbs/rmr.c's dattest-rmr,
# a server on ofi-a (owns the memory, binds the windows) and a client on
# ofi-b (RDMA through them).  Bind, the automatic fence, rebind, unbind and
# dat_rmr_free revoke the old key: the peer's next RDMA with it fails with
# DAT_DTO_ERR_REMOTE_ACCESS and the connection breaks.
#
# Not here: test/verbs/rmr.bats' "bindfail" (a bind the device refuses
# after the call returned): libfabric's tcp registration pins nothing, so
# a window on read-only memory is registered; and type 2 windows
# (DAPL_CMA_MW_TYPE): the emulation has one kind, which rebinds itself.

load ofi_helpers

VT="$TOP/build/test/verbs/dattest-rmr"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: rmr: dat_ia_query reports windows and what the emulation does not give (DAPL_RMR_EMULATION)" {
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$TOP/build/test/verbs/dattest-verbs" query local -i "$OFI_A"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq 'max_rmrs[ :=]+[1-9]' <<< "$output"
	grep -q 'DAPL_RMR_EMULATION.*no revocation in flight' <<< "$output"
}

@test "$OFI_FABRIC: rmr: bind checks, RDMA read/write through a window, LMR pinned, unbind kills the context (REMOTE_ACCESS, BROKEN), bind in DISCONNECTED flushes" {
	pair rw
	grep -qx '  ok connection broken by the failed access: DAT_CONNECTION_EVENT_BROKEN' <<< "$output"
	grep -q 'ok bind on the DISCONNECTED EP completes: DAT_RMR_BIND_COMPLETION_EVENT' "$SRV_OUT"
}

@test "$OFI_FABRIC: rmr: rebind elsewhere; the new context works, the previous one fails at the remote" {
	pair rebind
	grep -q 'REMOTE_ACCESS' <<< "$output"
}

@test "$OFI_FABRIC: rmr: dat_rmr_free of a bound window; its context fails at the remote" {
	pair free
}

@test "$OFI_FABRIC: rmr: a read-only window: read works, write fails at the remote" {
	pair priv
}

@test "$OFI_FABRIC: rmr: fence ordering, 1000 rounds of bind + send of the new context + peer write through it; 1000 fences counted" {
	pair fence
	grep -q 'fence: 1000 of 1000 rounds without a failure; DAPL_RMR_FENCES 1000' "$SRV_OUT"
}

# test/verbs/vt_rmr_pz.c (issue 32 item 1): dat_rmr_create(3DAT), the PZ
# lets "the Consumer ... restrict access to the memory region associated
# with the RMR to authorized connections": the emulated window's key is
# told to every connection of an EP of its PZ, outlives the EP it was
# bound through, and is refused to a connection of another PZ's EP
@test "$OFI_FABRIC: rmr-pz: a window bound through EP 1, EP 1 freed: its context serves EPs 2 and 2b of the same PZ (write, read back); a rebind revokes it on both (REMOTE_ACCESS, BROKEN); an EP of another PZ gets DAT_DTO_ERR_REMOTE_ACCESS and BROKEN" {
	VT="$TOP/build/test/verbs/dattest-verbs" pair rmr-pz
}
