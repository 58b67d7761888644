#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# The registry of libdat.so.1 through the test-only provider
# (test/provider/dattest_provider.c) and the dattest driver.

load helpers

@test "list shows every u/default entry, without loading any library" {
	standard_conf
	export DATTEST_TRACE=1
	run "$DATTEST" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"list: DAT_SUCCESS DAT_NO_SUBTYPE count 3"* ]]
	[[ "$output" == *"provider T1 u1.2 nonthreadsafe"* ]]
	[[ "$output" == *"provider T1 u1.2 threadsafe"* ]]
	[[ "$output" == *"provider T2 u1.2 nonthreadsafe"* ]]
	[ "$(count 'dattest: init')" -eq 0 ]
}

@test "list with max 0 gives the count and INVALID_PARAMETER ARG1; max 1 returns one" {
	standard_conf
	run "$DATTEST" list 0
	[[ "$output" == *"list: DAT_INVALID_PARAMETER DAT_INVALID_ARG1 count 3"* ]]
	run "$DATTEST" list 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"count 1"* ]]
	[ "$(count '^provider ')" -eq 1 ]
}

@test "k lines, nondefault lines and repeated keys are not registered" {
	conf 'K u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' \
	     'K u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "again" ""' \
	     'K u2.0 nonthreadsafe default libdattest.so.1 dapl.2.0 "" ""' \
	     'Kern k1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' \
	     'Nd u1.2 nonthreadsafe nondefault libdattest.so.1 dapl.1.2 "" ""'
	export DAT_DBG_TYPE=0x4
	run "$DATTEST" list
	[[ "$output" == *"count 2"* ]]
	[[ "$output" == *"provider K u1.2 nonthreadsafe"* ]]
	[[ "$output" == *"provider K u2.0 nonthreadsafe"* ]]
	[[ "$output" == *"dat.conf:2: warning: K u1.2 nonthreadsafe repeats an earlier entry, ignored"* ]]
	[[ "$output" == *"dat.conf:4: Kern: kernel entry, not registered"* ]]
	[[ "$output" == *"dat.conf:5: Nd: nondefault entry, not registered"* ]]
}

@test "malformed lines are skipped with a warning naming file, line and problem" {
	conf 'Good u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' \
	     'Short u1.2 nonthreadsafe default' \
	     'BadVer u1.x nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' \
	     'BadTs u1.2 sometimes default libdattest.so.1 dapl.1.2 "" ""' \
	     'Quote u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" "unterminated' \
	     'Good2 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""'
	export DAT_DBG_TYPE=0x4
	run "$DATTEST" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"count 2"* ]]
	[[ "$output" == *"dat.conf:2: warning: malformed line skipped: fewer than 8 fields"* ]]
	[[ "$output" == *"dat.conf:3: warning: malformed line skipped: api_version"* ]]
	[[ "$output" == *"dat.conf:4: warning: malformed line skipped: thread safety"* ]]
	[[ "$output" == *"dat.conf:5: warning: malformed line skipped: unterminated quoted field"* ]]
}

@test "malformed-line warnings are debug output: silent by default" {
	conf 'Short u1.2 nonthreadsafe default'
	run "$DATTEST" list
	[[ "$output" != *"malformed"* ]]
	[[ "$output" == *"count 0"* ]]
}

@test "DAT_DBG_DEST=1 sends debug output to stdout, not stderr" {
	conf 'Short u1.2'
	DAT_DBG_TYPE=0x4 DAT_DBG_DEST=1 "$DATTEST" list > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
	grep -q 'malformed line skipped' "$BATS_TEST_TMPDIR/out"
	[ "$(grep -c 'malformed' "$BATS_TEST_TMPDIR/err")" -eq 0 ]
}

@test "open and close: one load, one unload" {
	standard_conf
	export DATTEST_TRACE=1
	run "$DATTEST" open T1
	[ "$status" -eq 0 ]
	[[ "$output" == *"open T1: DAT_SUCCESS"* ]]
	[[ "$output" == *"close T1: DAT_SUCCESS"* ]]
	[ "$(count 'dattest: init T1 p1')" -eq 1 ]
	[ "$(count 'dattest: fini T1')" -eq 1 ]
}

@test "two IAs of one provider: one load, one unload" {
	standard_conf
	export DATTEST_TRACE=1
	run "$DATTEST" open2 T1
	[ "$status" -eq 0 ]
	[[ "$output" == *"open2 T1: 0 failures"* ]]
	[ "$(count 'dattest: init')" -eq 1 ]
	[ "$(count 'dattest: open T1')" -eq 2 ]
	[ "$(count 'dattest: fini')" -eq 1 ]
	# the unload comes after the second close, not the first
	[ "$(printf '%s\n' "$output" | grep 'dattest:' | tail -n 1)" = "dattest: fini T1" ]
}

@test "the threadsafe entry is a separate key" {
	standard_conf
	run "$DATTEST" open T1 1 2 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"open T1: DAT_SUCCESS"* ]]
}

@test "unknown name: NAME_NOT_REGISTERED" {
	standard_conf
	run "$DATTEST" open Nope
	[ "$status" -eq 1 ]
	[[ "$output" == *"open Nope: DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED"* ]]
}

@test "known name, other major: MAJOR_NOT_FOUND" {
	standard_conf
	run "$DATTEST" open T1 2 0
	[[ "$output" == *"open T1: DAT_PROVIDER_NOT_FOUND DAT_MAJOR_NOT_FOUND"* ]]
}

@test "known name and major, other minor: MINOR_NOT_FOUND" {
	standard_conf
	run "$DATTEST" open T1 1 1
	[[ "$output" == *"open T1: DAT_PROVIDER_NOT_FOUND DAT_MINOR_NOT_FOUND"* ]]
}

@test "known name and version, other thread safety: THREAD_SAFETY_NOT_FOUND" {
	standard_conf
	run "$DATTEST" open T2 1 2 1
	[[ "$output" == *"open T2: DAT_PROVIDER_NOT_FOUND DAT_THREAD_SAFETY_NOT_FOUND"* ]]
}

@test "missing library: PROVIDER_NOT_FOUND and dlerror's message" {
	conf 'Gone u1.2 nonthreadsafe default libdoesnotexist.so.1 dapl.1.2 "" ""'
	run "$DATTEST" open Gone
	[ "$status" -eq 1 ]
	[[ "$output" == *"libdat: Gone: cannot load provider library: libdoesnotexist.so.1: cannot open shared object file"* ]]
	[[ "$output" == *"open Gone: DAT_PROVIDER_NOT_FOUND"* ]]
}

@test "library without dat_provider_init: PROVIDER_NOT_FOUND and a message" {
	conf 'NoInit u1.2 nonthreadsafe default libm.so.6 dapl.1.2 "" ""'
	run "$DATTEST" open NoInit
	[ "$status" -eq 1 ]
	[[ "$output" == *"provider library libm.so.6 has no dat_provider_init"* ]]
	[[ "$output" == *"open NoInit: DAT_PROVIDER_NOT_FOUND"* ]]
}

@test "a library that registers nothing is unloaded again" {
	conf 'Silent u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "noregister" ""'
	export DATTEST_TRACE=1
	run "$DATTEST" open Silent
	[ "$status" -eq 1 ]
	[[ "$output" == *"Silent: the provider library did not register this IA name"* ]]
	[[ "$output" == *"open Silent: DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED"* ]]
	[ "$(count 'dattest: init Silent')" -eq 1 ]
	[ "$(count 'dattest: fini Silent')" -eq 1 ]
}

@test "a failed open returns the provider's error and releases the provider" {
	conf 'Fails u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "failopen" ""'
	export DATTEST_TRACE=1
	run "$DATTEST" open Fails
	[ "$status" -eq 1 ]
	[[ "$output" == *"open Fails: DAT_INSUFFICIENT_RESOURCES DAT_RESOURCE_DEVICE"* ]]
	[ "$(count 'dattest: fini Fails')" -eq 1 ]
}

@test "the provider's own checks come back unchanged (qlen 0 -> ARG2)" {
	standard_conf
	run "$DATTEST" open T1 1 2 0 0
	[[ "$output" == *"open T1: DAT_INVALID_PARAMETER DAT_INVALID_ARG2"* ]]
}

@test "unreadable DAT_OVERRIDE: no fallback, a clear message, every open fails" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/missing.conf"
	run "$DATTEST" open T1
	[ "$status" -eq 1 ]
	[[ "$output" == *"DAT_OVERRIDE=$DAT_OVERRIDE cannot be read (No such file or directory)"* ]]
	[[ "$output" == *"open T1: DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED"* ]]
	run "$DATTEST" list
	[[ "$output" == *"count 0"* ]]
}

@test "dat.conf is found in SYSCONFDIR when DAT_OVERRIDE is unset" {
	local b="$BATS_TEST_TMPDIR/b" etc="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$etc"
	printf '%s\n' 'FromEtc u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$etc/dat.conf"
	make -s -C "$TOP" B="$b" SYSCONFDIR="$etc" all
	unset DAT_OVERRIDE
	LD_LIBRARY_PATH="$b/lib:$DATTEST_BUILD/test" run "$DATTEST" list
	[[ "$output" == *"provider FromEtc u1.2 nonthreadsafe"* ]]
	LD_LIBRARY_PATH="$b/lib:$DATTEST_BUILD/test" run "$DATTEST" open FromEtc
	[ "$status" -eq 0 ]
}

@test "every entry point reaches its own slot and refuses bad handles" {
	standard_conf
	run "$DATTEST" dispatch T1
	[ "$status" -eq 0 ]
	[[ "$output" == *"dispatch: 66 wrappers, 266 checks, 0 failures"* ]]
}

@test "dat_extension_op on a provider that registered no extension: MODEL_NOT_SUPPORTED" {
	standard_conf
	run "$DATTEST" ext T1
	[ "$status" -eq 0 ]
	[[ "$output" == *"ext: 0 failures"* ]]
	[[ "$output" != *FAIL* ]]
}

@test "argument checks of open, close and list" {
	standard_conf
	run "$DATTEST" args
	[ "$status" -eq 0 ]
	[[ "$output" == *"args: max 0 counted 3, 0 failures"* ]]
}

@test "dynamic add and remove, listing, in-use and stale handles" {
	standard_conf
	run "$DATTEST" dynamic
	[ "$status" -eq 0 ]
	[[ "$output" == *"dynamic: 0 failures"* ]]
}

@test "a forked child opens and closes while the parent holds an IA" {
	standard_conf
	export DATTEST_TRACE=1
	run timeout 30 "$DATTEST" fork T1
	[ "$status" -eq 0 ]
	[[ "$output" == *"child: 0 failures"* ]]
	[[ "$output" == *"fork: 0 failures"* ]]
	# one init and one fini, both in the parent: the child's exit runs no fini
	[ "$(count 'dattest: init')" -eq 1 ]
	[ "$(count 'dattest: fini')" -eq 1 ]
}

@test "eight threads open and close at once" {
	standard_conf
	run timeout 60 "$DATTEST" threads T1 8 500
	[ "$status" -eq 0 ]
	[[ "$output" == *"threads: 8 threads x 500 open/close, 0 failed"* ]]
}

@test "dat_strerror has two messages for every type and subtype" {
	run "$DATTEST" strerror-all
	[ "$status" -eq 0 ]
	[[ "$output" == *"strerror: 2244 values, 0 failures"* ]]
	[[ "$output" == *"0x800a0065: DAT_PROVIDER_NOT_FOUND: no such provider | DAT_THREAD_SAFETY_NOT_FOUND"* ]]
}
