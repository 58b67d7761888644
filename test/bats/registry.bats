#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# The registry of libdat.so.1 through the test-only provider
# (test/provider/dattest_provider.c) and the dattest driver.

load helpers

# count_is N: dattest list's "count N" is exactly N (a glob *"count 1"*
# also took "count 10", the machine's file read as well: issue 40)
count_is() {
	[ "$(sed -n 's/^list: .* count \([0-9]*\)$/\1/p' <<< "$output")" = "$1" ] || {
		echo "want count $1; output:"
		printf '%s\n' "$output"
		return 1
	}
}

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
	count_is 1
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
	count_is 2
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
	count_is 2
	[[ "$output" == *"dat.conf:2: warning: malformed line skipped: fewer than 8 fields"* ]]
	[[ "$output" == *"dat.conf:3: warning: malformed line skipped: api_version"* ]]
	[[ "$output" == *"dat.conf:4: warning: malformed line skipped: thread safety"* ]]
	[[ "$output" == *"dat.conf:5: warning: malformed line skipped: unterminated quoted field"* ]]
}

@test "malformed-line warnings are debug output: silent by default" {
	conf 'Short u1.2 nonthreadsafe default'
	run "$DATTEST" list
	[[ "$output" != *"malformed"* ]]
	count_is 0
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

# The last close runs the provider's fini but leaves its library loaded,
# so a process that opens and closes its only IA does not load the
# provider's stack again each time; libdat unloads it at exit.
@test "open and close the only IA five times: five inits and finis, one load, one unload at exit" {
	standard_conf
	export DATTEST_TRACE=1
	run "$DATTEST" reopen T1 5
	[ "$status" -eq 0 ]
	[[ "$output" == *"reopen T1: 0 failures"* ]]
	[ "$(count 'dattest: init T1 p1')" -eq 5 ]
	[ "$(count 'dattest: open T1')" -eq 5 ]
	[ "$(count 'dattest: fini T1')" -eq 5 ]
	[ "$(count '^dattest-lib: loaded')" -eq 1 ]
	[ "$(count '^dattest-lib: unloaded')" -eq 1 ]
	# the fini of each close comes before the next init, and the unload
	# comes last, after the fifth fini
	[ "$(printf '%s\n' "$output" | grep '^dattest' | grep -v ': open\|: close' |
		tr '\n' ' ')" = "dattest-lib: loaded $(printf '%s\n' "$output" |
		sed -n 's/^dattest-lib: loaded //p') $(for i in 1 2 3 4 5; do
		printf 'dattest: init T1 p1 dattest: fini T1 '; done)dattest-lib: unloaded $(printf '%s\n' "$output" |
		sed -n 's/^dattest-lib: unloaded //p') " ]
}

@test "a child forked after the last close loads the library afresh; each process unloads its own at exit" {
	standard_conf
	export DATTEST_TRACE=1
	run timeout 30 "$DATTEST" reopen T1 2 fork
	[ "$status" -eq 0 ]
	[[ "$output" == *"child: 0 failures"* ]]
	[[ "$output" == *"reopen T1: 0 failures"* ]]
	[ "$(count 'dattest: init T1 p1')" -eq 4 ]
	[ "$(count 'dattest: fini T1')" -eq 4 ]
	# parent: one load, one unload at exit; child: its copy of the
	# parent's unloaded at its first open, a load of its own, its unload
	[ "$(count '^dattest-lib: loaded')" -eq 2 ]
	[ "$(count '^dattest-lib: unloaded')" -eq 3 ]
	local parent child
	parent="$(printf '%s\n' "$output" | sed -n '1s/^dattest-lib: loaded //p')"
	[ -n "$parent" ]
	child="$(printf '%s\n' "$output" | grep '^dattest-lib: loaded' | grep -v " $parent\$" | sed 's/.* //')"
	[ -n "$child" ]
	[ "$(count "^dattest-lib: unloaded $child\$")" -eq 2 ]
	[ "$(count "^dattest-lib: unloaded $parent\$")" -eq 1 ]
}

@test "library without dat_provider_init: PROVIDER_NOT_FOUND and a message" {
	conf 'NoInit u1.2 nonthreadsafe default libm.so.6 dapl.1.2 "" ""'
	run "$DATTEST" open NoInit
	[ "$status" -eq 1 ]
	[[ "$output" == *"provider library libm.so.6 has no dat_provider_init"* ]]
	[[ "$output" == *"open NoInit: DAT_PROVIDER_NOT_FOUND"* ]]
}

@test "a library that registers nothing gets its fini again" {
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
	count_is 0
}

@test "dat.conf is found in SYSCONFDIR when DAT_OVERRIDE is unset" {
	local b="$BATS_TEST_TMPDIR/b" etc="$BATS_TEST_TMPDIR/etc"
	mkdir -p "$etc"
	printf '%s\n' 'FromEtc u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$etc/dat.conf"
	# only the library: SYSCONFDIR is compiled into it
	make -s -C "$TOP" B="$b" SYSCONFDIR="$etc" DAT_FALLBACK_CONF="$etc/fallback/dat.conf" "$b/lib/libdat.so.1"
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

# ---- hostile and insecure files (issue 17 items 3 and 4) -------------------

@test "DAT_OVERRIDE naming a FIFO: a message and no providers, never a block" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/fifo"
	run timeout $((10 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" open T1
	[ "$status" -eq 1 ]
	[[ "$output" == *"DAT_OVERRIDE=$DAT_OVERRIDE cannot be read (a FIFO, not a regular file)"* ]]
	[[ "$output" == *"open T1: DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED"* ]]
}

@test "DAT_OVERRIDE naming a directory, a device or a file of gigabytes: a message, nothing read" {
	mkdir "$BATS_TEST_TMPDIR/dir"
	DAT_OVERRIDE="$BATS_TEST_TMPDIR/dir" run timeout $((10 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" list
	[[ "$output" == *"cannot be read (a directory, not a regular file)"* ]]
	count_is 0
	DAT_OVERRIDE=/dev/zero run timeout $((10 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" list
	[[ "$output" == *"DAT_OVERRIDE=/dev/zero cannot be read (a device, not a regular file)"* ]]
	count_is 0
	truncate -s 5G "$BATS_TEST_TMPDIR/huge.conf"
	DAT_OVERRIDE="$BATS_TEST_TMPDIR/huge.conf" run timeout $((10 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" list
	[[ "$output" == *"huge.conf cannot be read (larger than 64 MiB)"* ]]
	count_is 0
}

@test "a library path with a / that does not start with one is refused with a message" {
	mkdir -p "$BATS_TEST_TMPDIR/cwd/lib"
	cp "$DATTEST_BUILD/test/libdattest.so.1" "$BATS_TEST_TMPDIR/cwd/lib/"
	conf 'Rel u1.2 nonthreadsafe default lib/libdattest.so.1 dapl.1.2 "" ""' \
	     'Dot u1.2 nonthreadsafe default ./lib/libdattest.so.1 dapl.1.2 "" ""' \
	     'Abs u1.2 nonthreadsafe default '"$BATS_TEST_TMPDIR"'/cwd/lib/libdattest.so.1 dapl.1.2 "" ""'
	cd "$BATS_TEST_TMPDIR/cwd"
	run "$DATTEST" open Rel
	[ "$status" -eq 1 ]
	[[ "$output" == *"Rel: library path lib/libdattest.so.1 is relative to the current directory: refused"* ]]
	[[ "$output" == *"open Rel: DAT_PROVIDER_NOT_FOUND"* ]]
	run "$DATTEST" open Dot
	[ "$status" -eq 1 ]
	[[ "$output" == *"Dot: library path ./lib/libdattest.so.1 is relative"* ]]
	run "$DATTEST" open Abs
	[ "$status" -eq 0 ]
}

# A libdat built with SYSCONFDIR=$ETC (once per file: only the library),
# and dattest linked to it by an absolute RPATH (searched before
# LD_LIBRARY_PATH, and still followed by a set-gid copy).
setup_file() {
	export ETC="$BATS_FILE_TMPDIR/etc" SB="$BATS_FILE_TMPDIR/b"
	mkdir -p "$ETC"
	make -s -C "$TOP" B="$SB" SYSCONFDIR="$ETC" DAT_FALLBACK_CONF="$ETC/fallback/dat.conf" "$SB/lib/libdat.so.1" "$SB/lib/libdat.so"
	cc -o "$SB/dattest" "$DATTEST_BUILD/test/dattest.o" -L"$SB/lib" -ldat \
		-lpthread -Wl,--disable-new-dtags,-rpath,"$SB/lib"
	mkdir -p "$SB/provider"
	cp "$DATTEST_BUILD/test/libdattest.so.1" "$SB/provider/"
	chmod 0644 "$SB/provider/libdattest.so.1"
	# a set-gid copy (the group differs from ours: secure execution)
	cp "$SB/dattest" "$SB/dattest-sgid"
	chgrp nogroup "$SB/dattest-sgid"
	chmod 2755 "$SB/dattest-sgid"
	chmod 0755 "$BATS_FILE_TMPDIR"
}

# etc_reset: an empty $ETC, DAT_OVERRIDE unset.
etc_reset() {
	rm -rf "$ETC"
	mkdir -p "$ETC"
	chmod 0755 "$ETC"
	unset DAT_OVERRIDE
}

@test "drop-in files: dat.conf, then dat.conf.d/*.conf in name order; repeats and other names ignored" {
	etc_reset
	mkdir "$ETC/dat.conf.d"
	echo 'Main u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "m" ""' > "$ETC/dat.conf"
	printf '%s\n' 'B u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "b" ""' > "$ETC/dat.conf.d/20-b.conf"
	printf '%s\n' 'A u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "a" ""' \
		'Main u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "again" ""' > "$ETC/dat.conf.d/10-a.conf"
	echo 'Hidden u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$ETC/dat.conf.d/.hidden.conf"
	echo 'Other u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$ETC/dat.conf.d/x.conf.dpkg-old"
	export DATTEST_TRACE=1 DAT_DBG_TYPE=0x4
	run "$SB/dattest" list
	printf '%s\n' "$output"
	count_is 3
	[ "$(printf '%s\n' "$output" | grep '^provider' | tr '\n' ' ')" = "provider Main u1.2 nonthreadsafe provider A u1.2 nonthreadsafe provider B u1.2 nonthreadsafe " ]
	[[ "$output" == *"10-a.conf:2: warning: Main u1.2 nonthreadsafe repeats an earlier entry, ignored"* ]]
	LD_LIBRARY_PATH="$DATTEST_BUILD/test" run "$SB/dattest" open B
	[ "$status" -eq 0 ]
	[[ "$output" == *"dattest: init B b"* ]]
	# DAT_OVERRIDE replaces both
	conf 'Only u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""'
	run "$SB/dattest" list
	count_is 1
	[[ "$output" == *"provider Only "* ]]
}

@test "no dat.conf in SYSCONFDIR: the fallback file is read (DAT_FALLBACK_CONF of the build, /etc/dat.conf by default; here the test's own), and not once SYSCONFDIR has one" {
	etc_reset
	mkdir "$ETC/fallback"
	echo 'F u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$ETC/fallback/dat.conf"
	run "$SB/dattest" list
	count_is 1
	[[ "$output" == *"provider F u1.2 nonthreadsafe"* ]]
	echo 'Main u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$ETC/dat.conf"
	run "$SB/dattest" list
	count_is 1
	[[ "$output" == *"provider Main u1.2 nonthreadsafe"* ]]
}

@test "drop-in directory alone, without dat.conf" {
	etc_reset
	mkdir "$ETC/dat.conf.d"
	echo 'D u1.2 threadsafe default libdattest.so.1 dapl.1.2 "" ""' > "$ETC/dat.conf.d/d.conf"
	run "$SB/dattest" list
	count_is 1
	[[ "$output" == *"provider D u1.2 threadsafe"* ]]
}

@test "set-gid program: dat.conf, drop-ins and libraries that others than root can change are refused" {
	etc_reset
	local lib="$SB/provider/libdattest.so.1"
	echo "Main u1.2 nonthreadsafe default $lib dapl.1.2 \"m\" \"\"" > "$ETC/dat.conf"
	chmod 0644 "$ETC/dat.conf"
	# secure execution ignores DAT_OVERRIDE, reads SYSCONFDIR, and opens
	DAT_OVERRIDE=/nonexistent run "$SB/dattest-sgid" open Main
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	# a dat.conf anyone can write
	chmod 0666 "$ETC/dat.conf"
	run "$SB/dattest-sgid" list
	[[ "$output" == *"$ETC/dat.conf cannot be read (writable by others than root"* ]]
	count_is 0
	# ... which an ordinary program still reads
	run "$SB/dattest" list
	count_is 1
	chmod 0644 "$ETC/dat.conf"
	# a drop-in file, then the drop-in directory
	mkdir "$ETC/dat.conf.d"
	echo "Drop u1.2 nonthreadsafe default $lib dapl.1.2 \"\" \"\"" > "$ETC/dat.conf.d/d.conf"
	chmod 0666 "$ETC/dat.conf.d/d.conf"
	run "$SB/dattest-sgid" list
	[[ "$output" == *"$ETC/dat.conf.d/d.conf cannot be read (writable by others than root"* ]]
	count_is 1
	chmod 0644 "$ETC/dat.conf.d/d.conf"
	chmod 0777 "$ETC/dat.conf.d"
	run "$SB/dattest-sgid" list
	[[ "$output" == *"$ETC/dat.conf.d cannot be read (writable by others than root"* ]]
	count_is 1
	chmod 0755 "$ETC/dat.conf.d"
	run "$SB/dattest-sgid" list
	count_is 2
	# a library file anyone can write, or not root's
	chmod 0666 "$lib"
	run "$SB/dattest-sgid" open Main
	chmod 0644 "$lib"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Main: library $lib: writable by others than root"* ]]
	chown nobody "$lib"
	run "$SB/dattest-sgid" open Main
	chown root "$lib"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Main: library $lib: not owned by root"* ]]
}

# ---- size (issue 17 item 5) -------------------------------------------------

# entries N FILE: N entries of the test provider, the last one named Last.
entries() {
	awk -v n="$1" 'BEGIN { for (i = 1; i < n; i++)
		printf "E%d u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 \"p%d\" \"\"\n", i, i
		print "Last u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 \"\" \"\"" }' > "$2"
}

# best_ns CONF: the fastest of three runs of "open Last" (reading the file,
# looking the key up, loading, opening, closing), in nanoseconds.
best_ns() {
	local best= i t0 t1
	for i in 1 2 3; do
		t0=$(date +%s%N)
		DAT_OVERRIDE="$1" "$DATTEST" open Last > /dev/null
		t1=$(date +%s%N)
		if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then
			best=$((t1 - t0))
		fi
	done
	echo "$best"
}

@test "reading and looking up are linear: 50,000 entries take less than 20 times 5,000" {
	entries 5000 "$BATS_TEST_TMPDIR/5k.conf"
	entries 50000 "$BATS_TEST_TMPDIR/50k.conf"
	small=$(best_ns "$BATS_TEST_TMPDIR/5k.conf")
	large=$(best_ns "$BATS_TEST_TMPDIR/50k.conf")
	echo "5,000: $small ns, 50,000: $large ns"
	[ "$large" -lt $((20 * small)) ]
	DAT_OVERRIDE="$BATS_TEST_TMPDIR/50k.conf" run "$DATTEST" list 0
	count_is 50000
}

# ---- the right entry for every IA (issue 17 items 1 and 2) ------------------

@test "one IA name, two entries: each IA opens through the entry of its whole key; closing one leaves the other's IAs alone" {
	conf 'T u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "params-nts" ""' \
	     'T u1.2 threadsafe default libdattest.so.1 dapl.1.2 "params-ts" ""'
	run "$DATTEST" bind T
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'nonthreadsafe: params "params-nts"'* ]]
	[[ "$output" == *$'\nthreadsafe: params "params-ts"'* ]]
	[[ "$output" == *'nonthreadsafe again: params "params-nts"'* ]]
	[[ "$output" == *'after close: nonthreadsafe: params "params-nts"'* ]]
	[[ "$output" == *'after close: nonthreadsafe again: params "params-nts"'* ]]
	[[ "$output" == *"bind T: 0 failures"* ]]
}

@test "remove_provider while an open is between finding the provider and counting its IA: PROVIDER_IN_USE" {
	run timeout $((30 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" remove-race
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"remove-race: 0 failures"* ]]
}

@test "fork while threads open, post and close: every child opens, posts, closes, lists and exits" {
	standard_conf
	run timeout $((120 * ${TEST_TIMEOUT_SCALE:-1})) "$DATTEST" fork-storm T1 4 50
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"fork-storm: 50 forks, 0 children failed; 4 threads, some open/post/close, 0 failed"* ]]
}
