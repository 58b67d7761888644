#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/ordering.bats - the promises rxm does not keep by itself and
# the provider keeps in software (test/verbs/vt_order.c): completions in
# posting order, a send after an RDMA write finds the data in place, a
# write to a target that does not poll completes, and a blocked wait does
# not burn a core.

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: completions in posting order: 1 MiB reads, small and large writes, sends posted without waiting" {
	pair order
}

@test "$OFI_FABRIC: RDMA write then send: the whole 1 MiB written is at the target when the send's receive completes (16 rounds)" {
	pair write-send
}

@test "$OFI_FABRIC: an RDMA write to a target that makes no DAT call completes (the engine drives the provider's manual progress)" {
	export VT_SYNC_FILE=$BATS_TEST_TMPDIR/written
	pair unpolled
}

@test "$OFI_FABRIC: the same after the target spun on dat_evd_dequeue for 200 ping-pongs and then stopped calling DAT (the engine takes its endpoint back)" {
	export VT_SYNC_FILE=$BATS_TEST_TMPDIR/written
	pair spun-unpolled
	grep -q '^  ok 200 rounds, every completion taken by dat_evd_dequeue in a loop$' "$SRV_OUT"
}

@test "$OFI_FABRIC: a dat_evd_wait blocked on $OFI_PROV does not spin: under 5 % of a core (20 % under TCG emulation; CPU time of the process)" {
	pair idle-wait
	grep -q '^  ok a blocked dat_evd_wait uses under \(5\|20\) percent of a core$' "$SRV_OUT"
}

@test "$OFI_FABRIC: a dat_evd_wait blocked on $OFI_PROV while RDMA writes stream into its memory does not wake for them: its thread under 5 % of a core (20 % under TCG emulation); the written data in place" {
	pair busy-wait
	grep -q '^  ok a dat_evd_wait blocked beside RDMA writes uses under \(5\|20\) percent of a core$' "$SRV_OUT"
}
