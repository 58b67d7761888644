#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# The bad-input matrix (issue 5): build/test/verbs/dattest-badinput opens
# rxe0-cma and rxe1-cma, connects them, and runs a row for every slot of
# DAT_PROVIDER with a NULL, freed or wrong-type handle, bad lengths, segment
# counts, flags and enums; each row asserts the exact DAT_RETURN.  See the
# head of test/verbs/badinput.c for where each expected code comes from.

load verbs_helpers

BI="$TOP/build/test/verbs/dattest-badinput"

setup_file() {
	verbs_setup_file
	if [ ! -x "$BI" ]; then
		echo "$BI is missing: make test-programs" >&2
		return 1
	fi
}

# badinput ARGS...: one run, bounded; output in $output
badinput() {
	run "$QT" -t "$(secs 1000)" "$(secs 100)" "$BI" "$@"
	echo "--- exit status $status; output:"
	echo "$output"
}

# the summary line: every row ran, none failed
summary_clean() {
	grep -Eq '^badinput: [0-9]+ rows, [0-9]+ checks, 0 failures$' <<< "$output"
}

@test "badinput: every DAT_PROVIDER slot answers bad input with the spec's DAT_RETURN" {
	badinput
	[ "$status" -eq 0 ]
	summary_clean
	[ "$(grep -c '^FAIL' <<< "$output")" -eq 0 ]
	# every one of the 68 slots has rows, and the table is not trivial
	rows=$(sed -n 's/^badinput: \([0-9]*\) rows.*/\1/p' <<< "$output")
	[ "$rows" -ge 300 ]
}

@test "badinput: the matrix under valgrind: no error, no leak" {
	command -v valgrind > /dev/null || {
		echo "valgrind is not installed in the guest" >&2
		return 1
	}
	# --keep-debuginfo: the provider and librdmacm are dlclosed at the
	# last IA close; their frames keep their names (and the suppressions
	# of rdma-core's one-time globals their object names).
	run "$QT" -t "$(secs 3000)" "$(secs 300)" valgrind --error-exitcode=1 \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--leak-check=full --keep-debuginfo=yes --num-callers=30 \
		--suppressions="$BATS_TEST_DIRNAME/rdma-core.supp" \
		"$BI"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	summary_clean
	grep -q 'ERROR SUMMARY: 0 errors' <<< "$output"
}

@test "badinput: DAPL_CMA_DISABLE=mw,atomic,srq: ia_query reports them absent, their calls DAT_MODEL_NOT_SUPPORTED" {
	DAPL_CMA_DISABLE=mw,atomic,srq badinput absent
	[ "$status" -eq 0 ]
	summary_clean
	grep -q '^ok ia_query: max_rmrs 0$' <<< "$output"
	grep -q '^ok ia_query: max_srqs 0$' <<< "$output"
	grep -q '^ok [0-9]* rmr_create: valid input, max_rmrs 0: DAT_MODEL_NOT_SUPPORTED' <<< "$output"
	grep -q '^ok [0-9]* srq_create: valid input, max_srqs 0: DAT_MODEL_NOT_SUPPORTED' <<< "$output"
}

@test "badinput: without DAPL_CMA_DISABLE rxe reports memory windows and SRQs present" {
	env -u DAPL_CMA_DISABLE "$BI" present > "$BATS_TEST_TMPDIR/out" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/out"; return 1; }
	cat "$BATS_TEST_TMPDIR/out"
	grep -Eq '^badinput: 0 rows, [0-9]+ checks, 0 failures$' "$BATS_TEST_TMPDIR/out"
}
