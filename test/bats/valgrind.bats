#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# valgrind memcheck over the unit tests and open/close cycles: no error,
# no definite, indirect or possible leak.  No suppressions.

load helpers

vg() {
	timeout 300 valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible "$@"
}

@test "valgrind: parser unit tests" {
	run vg "$DATTEST_BUILD/test/unit/test_conf"
	[ "$status" -eq 0 ]
}

@test "valgrind: parser over the fuzz corpus" {
	run vg "$DATTEST_BUILD/test/fuzz/replay_conf" "$TOP/test/fuzz/corpus"
	[ "$status" -eq 0 ]
}

@test "valgrind: open and close, with malformed and repeated lines in dat.conf" {
	standard_conf
	printf '%s\n' 'bad line' 'T2 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p2" ""' >> "$DAT_OVERRIDE"
	run vg "$DATTEST" open T1
	[ "$status" -eq 0 ]
}

@test "valgrind: two IAs, dispatch checks, dynamic registry, failed opens" {
	standard_conf
	printf '%s\n' 'Gone u1.2 nonthreadsafe default libnothere.so dapl.1.2 "" ""' \
		'Silent u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "noregister" ""' >> "$DAT_OVERRIDE"
	for cmd in "open2 T1" "dispatch T1" "dynamic" "args" "strerror-all" "open Gone" "open Silent" "open T1 1 9"; do
		run vg "$DATTEST" $cmd
		echo "$cmd: $status"
		[ "$status" -ne 99 ]
		[[ "$cmd" == open\ * ]] || [ "$status" -eq 0 ]
	done
}

@test "valgrind: fork and threads" {
	standard_conf
	run vg --trace-children=no "$DATTEST" fork T1
	[ "$status" -eq 0 ]
	run vg "$DATTEST" threads T1 8 20
	[ "$status" -eq 0 ]
}

@test "valgrind: the progress engine's unit tests, their forked children included" {
	# a forked child exits without the library's destructor: the
	# parent's objects it holds must still be reachable (udapl.h
	# dapl_obj_hdr, handle.c free_lists_forget), not "possibly lost"
	run vg "$DATTEST_BUILD/test/unit/test_progress"
	echo "test_progress: exit status $status"
	[ "$status" -eq 0 ]
	grep -q '^1\.\.[1-9]' <<< "$output"
	if grep -q '^not ok' <<< "$output"; then return 1; fi
}

@test "valgrind: udapl object layer unit tests (EVD, CNO, LMR; EP, DTO, CM)" {
	local t
	for t in test_udapl_evd test_udapl_ep; do
		run vg "$DATTEST_BUILD/test/unit/$t"
		echo "$t: exit status $status"
		[ "$status" -eq 0 ]
		grep -q '^1\.\.[1-9]' <<< "$output"
		if grep -q '^not ok' <<< "$output"; then return 1; fi
	done
}
