#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/churn.bats - PSPs freed while connection requests arrive, over
# tcp;ofi_rxm, shm or verbs;ofi_rxm (test/verbs/vt_cm_many.c psp-churn; verbs runs it in
# test/verbs/connect.bats).  Over shm (OFI_SUITES_shm in
# providers/ofi/ofi.mk, which says what failed before and why): a
# request sent to a listener that is freed before it reads it is lost
# (shm reports it sent); the connect sends it again when no REQACK comes
# (providers/ofi/rdm.c), and a freed listener's endpoint lingers,
# rejecting what reaches it as finding nobody, until a PSP on its
# qualifier takes it over.  Over tcp;ofi_rxm: a connection request that
# a freed listener accepted but had not read left rxm's connection
# stuck; the client starts it anew (providers/ofi/ctl.c ofi_rxm_unstick,
# test/ofi/rxm-stuck.bats).  Over verbs;ofi_rxm (make check-verbs, in the
# soft-RoCE guest): libfabric 1.17's rxm crashed either side now and then
# (a credit message in the CQ of a connection it closed); verbs IAs use
# rxm's shared receive context, and a REQ canceled on rxm's connection to
# a freed listener renews it (providers/ofi/init.c, rdm.c
# ofi_ctl_tx_failed).  Not over tcpmsg: now and then the server crashes
# inside libfabric 1.17's tcp (all in ofi.mk).  By hand:
#   OFI_FABRIC=tcp bats test/ofi/churn.bats

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: dat_psp_free while connection requests arrive: rounds of PSPs freed (some the moment a request came), each CR EVD frees at once, every try rejected or finding nobody, a request the freeing rejected is NON_PEER_REJECTED (the client saw no more PEER_REJECTED than the server made)" {
	# 6 tries of 4 requests (test/verbs: 20): a request whose listener
	# is freed while rxm connects to it is lost and costs the whole
	# connect timeout (5 s) before TIMED_OUT, not an answer
	start_server psp-churn
	wait_listening
	run_client psp-churn -q "$QUAL" -n 6
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
	grep -q '^  ok [0-9]* rounds, [0-9]* connection requests rejected, [1-9][0-9]* of them with the PSP freed as they came$' "$SRV_OUT"
	grep -q '^  ok [0-9]* tries of 4: [1-9][0-9]* rejected by the server, [0-9]* found nobody$' <<< "$output"
	churn_tally
}
