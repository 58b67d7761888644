#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/evd.bats - EVD and CNO semantics over tcp;ofi_rxm or shm (the
# CR EVD overflow: cr_overflow.bats).

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: software EVD: thresholds, timeouts with nmore, woken waiters, unwaitable, full queue" {
	local_test evd-sw local -i "$OFI_A"
}

@test "$OFI_FABRIC: DTO EVD: wait with threshold 4 and 2, DAT_TIMEOUT_EXPIRED with nmore" {
	pair evd-dto
}

@test "$OFI_FABRIC: CNO: times out, wakes for a receive completion and for a software event" {
	pair cno
}
