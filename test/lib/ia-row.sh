#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ia-row.sh: reads what "dattest-verbs query local" printed for one IA
# (its "attr", "vendor" and "provider_specific" lines: dat_ia_query's
# IA and provider attributes) and prints that IA's row of the README's
# table "What each fabric gives": the suites check that the README holds
# exactly this row (test/ofi/ia-table.bats natively, test/verbs/connect.bats
# in the guest), so the table says what dat_ia_query says.
awk '
$1 == "attr" { a[$2] = $3 }
$1 == "provider_specific" {
	split($0, kv, "=")
	k = kv[1]; sub(/^provider_specific /, "", k)
	p[k] = substr($0, index($0, "=") + 1)
}
END {
	at = ("DAT_IB_FETCH_AND_ADD" in p) ? p["DAT_IB_FETCH_AND_ADD"] : "FALSE"
	if ("DAPL_RMR_EMULATION" in p) w = "emulated"
	else if (a["max_rmrs"] + 0 > 0) w = "hardware"
	else w = "none"
	printf "| %s `%s` | %s | %s | %s | %s | %s | %s | %s |\n",
	       a["provider_name"], a["adapter_name"], at, w,
	       a["srq_supported"] == 1 ? "yes" : "no", a["max_eps"],
	       a["max_dto_per_ep"], a["max_iov_segments_per_dto"],
	       a["max_private_data_size"]
}'
