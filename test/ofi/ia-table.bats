#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/ia-table.bats - the README's table "What each fabric gives"
# holds, for this fabric, exactly what dat_ia_query reports on its IA
# (test/lib/ia-row.sh makes the row from "dattest-verbs query local").
# dat_ia_query(3DAT): "The dat_ia_query() functions provides the Consumer
# with the IA parameters, as well as the IA and Provider attributes"; a
# README that says more than those is what a user reads first.

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: the README's row for $OFI_A is what dat_ia_query reports (atomics, memory windows, SRQ, max_eps, max_dto_per_ep, max_iov_segments_per_dto, max_private_data_size)" {
	local_test query local -i "$OFI_A" -a "$DATTEST_SERVER_ADDR"
	readme_has_row
}
