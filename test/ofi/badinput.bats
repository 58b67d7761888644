#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/badinput.bats - the bad-input matrix (test/verbs/badinput.c)
# over libdaplofi.so.1 on tcp;ofi_rxm or shm: IA A ofi-a (127.0.0.1), IA B
# ofi-b (ofi-shm-a, ofi-shm-b), in one process, connected through our connection protocol.  Every slot
# of DAT_PROVIDER gets a NULL, freed and wrong-type handle, bad lengths,
# segment counts, flags and enums; each row asserts the exact DAT_RETURN.
# A feature the IA reports absent (SRQ on rxm; memory windows and atomics
# until the provider has them) gets the rows of its absence: the handle
# checks first, then DAT_MODEL_NOT_SUPPORTED.

load ofi_helpers

BI="$OFI_TOP/build/test/verbs/dattest-badinput"

setup_file() {
	ofi_setup_file
	[ -x "$BI" ] || { echo "$BI is missing: make test-programs" >&2; return 1; }
}

# badinput ARGS...: one run on IAs A and B, bounded; output in $output
badinput() {
	run "$QT" -t "$(secs 1000)" "$(secs 100)" "$BI" -a "$OFI_A" -b "$OFI_B" -s "$DATTEST_SERVER_ADDR" "$@"
	echo "--- exit status $status; output:"
	echo "$output"
}

summary_clean() {
	grep -Eq '^badinput: [0-9]+ rows, [0-9]+ checks, 0 failures$' <<< "$output"
}

@test "$OFI_FABRIC: every DAT_PROVIDER slot answers bad input with the spec's DAT_RETURN" {
	badinput
	[ "$status" -eq 0 ]
	summary_clean
	grep -q "^# IA A $OFI_A ($DATTEST_SERVER_ADDR), IA B $OFI_B\$" <<< "$output"
	[ "$(grep -c '^FAIL' <<< "$output")" -eq 0 ]
	rows=$(sed -n 's/^badinput: \([0-9]*\) rows.*/\1/p' <<< "$output")
	[ "$rows" -ge 300 ]
}

@test "$OFI_FABRIC: rxm and shm have no shared receive context: SRQ reported absent, its calls DAT_MODEL_NOT_SUPPORTED after the handle checks" {
	badinput
	[ "$status" -eq 0 ]
	grep -q '^# IA A reports: SRQ no,' <<< "$output"
	grep -q '^ok [0-9]* srq_create: valid input, max_srqs 0: DAT_MODEL_NOT_SUPPORTED' <<< "$output"
	grep -q '^ok [0-9]* srq_create: freed PZ: DAT_INVALID_HANDLE|DAT_INVALID_HANDLE_PZ' <<< "$output"
	grep -q '^ok [0-9]* ep_create_with_srq: freed PZ: DAT_INVALID_HANDLE|DAT_INVALID_HANDLE_PZ' <<< "$output"
	grep -q '^ok [0-9]* ep_create_with_srq: NULL SRQ: DAT_MODEL_NOT_SUPPORTED' <<< "$output"
}

@test "$OFI_FABRIC: usage errors of the program itself exit 2" {
	run "$BI" -z
	[ "$status" -eq 2 ]
	run "$BI" -a "$OFI_A" nonsense
	[ "$status" -eq 2 ]
}

@test "$OFI_FABRIC: the matrix under valgrind: no error, no leak" {
	command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; return 1; }
	TEST_TIMEOUT_SCALE=$((SCALE * 10)) run "$QT" -t "$(secs 4000)" "$(secs 400)" \
		valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--keep-debuginfo=yes --num-callers=30 \
		"${OFI_VG_SUPP[@]}" \
		"$BI" -a "$OFI_A" -b "$OFI_B" -s "$DATTEST_SERVER_ADDR"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	summary_clean
	grep -q 'ERROR SUMMARY: 0 errors' <<< "$output"
}
