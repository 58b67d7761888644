#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/compat.bats - DAT_PSP_PROVIDER_FLAG over libfabric: udapl makes
# the provider-created EPs, so libdaplofi.so.1 has them too (issue 19;
# the verbs run is test/verbs/compat.bats, the program test/verbs/compat.c).

load ofi_helpers

VC="$TOP/build/test/verbs/dattest-compat"

setup_file() {
	ofi_setup_file
	[ -x "$VC" ] || {
		echo "$VC is missing: make test-programs" >&2
		return 1
	}
}

@test "$OFI_FABRIC: DAT_PSP_PROVIDER_FLAG: the provider's EP is named by dat_cr_query, set up, accepted with ep_handle NULL, carries data; a reject frees it" {
	run "$QT" -t "$(secs 2000)" "$(secs 200)" "$VC" provider-ep local -q "$(free_qual)"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}
