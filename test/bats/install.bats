#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# make install and make uninstall as packagers and administrators use them:
# the directory variables, modes, the names beside Debian's DAT 2.0
# packages (libdapl2, dapl2-utils), and an uninstall that removes exactly
# what install put there.

load helpers

# make install builds what it installs with the directories it is given
# (SYSCONFDIR is compiled into libdat): in a build tree of this file's
# own, a copy of the tree make built, so that the libraries the other
# suites load (build/lib, the soft-RoCE guest's among them, which runs
# beside the host suites) never change under them.
setup_file() {
	export IB="$BATS_FILE_TMPDIR/build"
	mkdir -p "$IB"
	cp -a "$TOP/build/lib" "$TOP/build/bin" "$TOP/build/dat" \
		"$TOP/build/registry" "$TOP/build/udapl" "$TOP/build/providers" \
		"$TOP"/build/*.stamp "$IB/"
}

# What Debian's DAT 2.0 packages own (libdapl2, libdapl-dev, dapl2-utils of
# Debian 12, relative to /): make install must never write one of them.
DAT2_FILES="./etc/dat.conf ./usr/bin/dapltest ./usr/bin/dtest ./usr/bin/dtestcm
./usr/bin/dtestsrq ./usr/bin/dtestx ./usr/share/man/man1/dapltest.1
./usr/share/man/man1/dtest.1 ./usr/share/man/man5/dat.conf.5"

@test "make install honours DESTDIR, PREFIX, BINDIR, SBINDIR, LIBDIR (multiarch), SYSCONFDIR, MANDIR" {
	local d="$BATS_TEST_TMPDIR/root" ma=/usr/lib/x86_64-linux-gnu
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr LIBDIR=$ma SYSCONFDIR=/etc \
		BINDIR=/opt/b SBINDIR=/opt/sb MANDIR=/opt/man
	[ -f "$d$ma/libdat.so.1" ]
	[ -f "$d$ma/libdaplcma.so.1" ]
	[ "$(readlink "$d$ma/libdat.so")" = libdat.so.1 ]
	[ -x "$d/opt/b/dapltest1" ]
	[ -x "$d/opt/sb/datadm" ]
	[ -f "$d/opt/man/man1/dapltest1.1" ]
	[ -f "$d/opt/man/man5/dat.conf1.5" ]
	[ -f "$d/opt/man/man3/dat_ia_open.3" ]
	grep -qx "libdir=$ma" "$d$ma/pkgconfig/dat.pc"
	cmp "$TOP/dat.conf" "$d/etc/dat.conf.d/libdaplcma1.conf"
	[ ! -e "$d/usr/lib" ] || [ -z "$(ls "$d/usr/lib" | grep -v x86_64-linux-gnu)" ]
}

@test "libraries are installed 0644, programs 0755, everything else 0644" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ "$(stat -c %a "$d/usr/lib/libdat.so.1")" = 644 ]
	[ "$(stat -c %a "$d/usr/lib/libdaplcma.so.1")" = 644 ]
	[ "$(stat -c %a "$d/usr/bin/dapltest1")" = 755 ]
	[ "$(stat -c %a "$d/usr/sbin/datadm")" = 755 ]
	[ "$(find "$d" -type f ! -path '*bin/*' ! -perm 644 | wc -l)" -eq 0 ]
}

@test "dat.pc carries the release from VERSION, not the DAT API level" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' "$TOP/VERSION"
	grep -qx "Version: $(cat "$TOP/VERSION")" "$d/usr/lib/pkgconfig/dat.pc"
	[ "$(PKG_CONFIG_LIBDIR="$d/usr/lib/pkgconfig" pkg-config --modversion dat)" = "$(cat "$TOP/VERSION")" ]
}

@test "make install writes no file that Debian's DAT 2.0 packages own" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	clash=""
	for f in $DAT2_FILES; do
		[ ! -e "$d/$f" ] || clash="$clash $f"
	done
	echo "clash:$clash"
	[ -z "$clash" ]
	# and leaves their files alone when they are there
	make -s -C "$TOP" B="$IB" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	for f in $DAT2_FILES; do
		mkdir -p "$(dirname "$d/$f")"
		echo "dat2 $f" > "$d/$f"
	done
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	make -s -C "$TOP" B="$IB" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	for f in $DAT2_FILES; do
		[ "$(cat "$d/$f")" = "dat2 $f" ]
	done
	[ "$(installed_files "$d" | wc -l)" -eq "$(echo $DAT2_FILES | wc -w)" ]
}

@test "dapltest1 and datadm print the release with --version" {
	local v
	v=$(cat "$TOP/VERSION")
	run "$DATTEST_BUILD/bin/dapltest" --version
	[ "$status" -eq 0 ]
	[ "$output" = "dapltest (uDAPL) $v, DAT API 1.2" ]
	run "$DATTEST_BUILD/bin/datadm" --version
	[ "$status" -eq 0 ]
	[ "$output" = "datadm (uDAPL) $v, DAT API 1.2" ]
}

@test "DAT_DBG output starts with the release; without DAT_DBG_TYPE, no such line" {
	local v
	v=$(cat "$TOP/VERSION")
	standard_conf
	DAT_DBG_TYPE=0x4 run "$DATTEST" open T1
	[ "${lines[0]}" = "libdat: uDAPL $v, DAT API 1.2" ]
	[ "$(count "uDAPL $v")" -eq 1 ]
	run "$DATTEST" open T1
	[ "$(count 'uDAPL')" -eq 0 ]
}

@test "make install keeps an existing drop-in of ours" {
	local d="$BATS_TEST_TMPDIR/root"
	mkdir -p "$d/etc/dat.conf.d"
	echo "# the administrator's" > "$d/etc/dat.conf.d/libdaplcma1.conf"
	run make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"keeping existing $d/etc/dat.conf.d/libdaplcma1.conf"* ]]
	[ "$(cat "$d/etc/dat.conf.d/libdaplcma1.conf")" = "# the administrator's" ]
}

@test "a consumer builds against the installed headers with pkg-config and -ldat" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	cat > "$BATS_TEST_TMPDIR/app.c" <<'C'
#include <dat/udat.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	const char *major, *minor;
	DAT_RETURN rc = dat_ia_open(argc > 1 ? argv[1] : "nothing-here", 8,
				    &evd, &ia);

	dat_strerror(rc, &major, &minor);
	printf("%s / %s\n", major, minor);
	if (rc != DAT_SUCCESS)
		return 1;
	rc = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	dat_strerror(rc, &major, &minor);
	printf("close: %s\n", major);
	return rc != DAT_SUCCESS;
}
C
	flags=$(PKG_CONFIG_SYSROOT_DIR="$d" PKG_CONFIG_LIBDIR="$d/usr/lib/pkgconfig" pkg-config --cflags --libs dat)
	[ "$(echo $flags)" = "-I$d/usr/include -L$d/usr/lib -ldat" ]
	cc -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/app" "$BATS_TEST_TMPDIR/app.c" $flags
	# It runs on the installed libdat only (not the build tree's) ...
	run env LD_LIBRARY_PATH="$d/usr/lib" LD_TRACE_LOADED_OBJECTS=1 "$BATS_TEST_TMPDIR/app"
	[[ "$output" == *"libdat.so.1 => $d/usr/lib/libdat.so.1"* ]]
	conf '# empty'
	LD_LIBRARY_PATH="$d/usr/lib" run "$BATS_TEST_TMPDIR/app"
	[ "$status" -eq 1 ]
	[[ "$output" == "DAT_PROVIDER_NOT_FOUND: no such provider / DAT_NAME_NOT_REGISTERED"* ]]
	# ... and opens and closes an IA of the test-only provider through it
	conf "T1 u1.2 nonthreadsafe default $DATTEST_BUILD/test/libdattest.so.1 dapl.1.2 \"p1\" \"\""
	LD_LIBRARY_PATH="$d/usr/lib" run "$BATS_TEST_TMPDIR/app" T1
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "DAT_SUCCESS: no error / DAT_NO_SUBTYPE: no detail" ]
	[ "${lines[1]}" = "close: DAT_SUCCESS: no error" ]
}

# Everything make install puts under DESTDIR, relative, sorted.
installed_files() {
	(cd "$1" && find . ! -type d | sort)
}

@test "make install adds the man pages and datadm; make uninstall removes exactly that" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	installed_files "$d" > "$BATS_TEST_TMPDIR/files"
	{
		echo ./etc/dat.conf.d/libdaplcma1.conf
		printf './usr/include/dat/%s\n' $(cd "$TOP/include/dat" && ls)
		printf './usr/lib/%s\n' libdaplcma.so.1 libdat.so libdat.so.1 pkgconfig/dat.pc
		echo ./usr/sbin/datadm
		printf './usr/share/doc/udapl/examples/%s\n' $(cd "$TOP/examples" && ls *.c *.h)
		printf './usr/share/man/man3/%s\n' $(cd "$TOP/man3" && ls)
		echo ./usr/share/man/man5/dat.conf1.5
		echo ./usr/share/man/man8/datadm.8
		# the libfabric provider, where its fragment is present
		if [ -f "$TOP/providers/ofi/ofi.mk" ]; then
			echo ./usr/lib/libdaplofi.so.1
		fi
		# the socket CM's verbs provider, where its fragment is present
		if [ -f "$TOP/providers/scm/scm.mk" ]; then
			echo ./usr/lib/libdaplscm.so.1
		fi
		# dapltest(1) and its runner, where that fragment is present
		if [ -f "$TOP/test/dapltest/dapltest.mk" ]; then
			echo ./usr/bin/dapltest1
			echo ./usr/share/man/man1/dapltest1.1
		fi
	} | sort > "$BATS_TEST_TMPDIR/want"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/files"
	[ "$(grep -c '/man3/' "$BATS_TEST_TMPDIR/files")" -ge 76 ]
	# the installed datadm reads the installed registry
	DAT_OVERRIDE="$d/etc/dat.conf.d/libdaplcma1.conf" run "$d/usr/sbin/datadm" -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"OpenIB-cma "* ]]
	# a directory that was there before stays, with a stranger's file
	touch "$d/usr/share/man/man3/other.3"
	make -s -C "$TOP" B="$IB" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	[ "$(installed_files "$d")" = ./usr/share/man/man3/other.3 ]
	[ ! -e "$d/usr/include/dat" ]
	[ ! -e "$d/etc/dat.conf.d" ]
	[ ! -e "$d/usr/share/doc/udapl" ]
}

@test "make uninstall keeps a drop-in that was there before or was changed since" {
	local d="$BATS_TEST_TMPDIR/root" f
	f="$d/etc/dat.conf.d/libdaplcma1.conf"
	mkdir -p "$d/etc/dat.conf.d"
	echo "# the administrator's" > "$f"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	run make -s -C "$TOP" B="$IB" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"keeping $f (not the installed sample)"* ]]
	[ "$(cat "$f")" = "# the administrator's" ]
	# a sample that datadm changed after the install is kept too
	rm "$f"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	printf '%s\n' 'S u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""' > "$BATS_TEST_TMPDIR/s.conf"
	DAT_OVERRIDE="$f" "$d/usr/sbin/datadm" -a "$BATS_TEST_TMPDIR/s.conf"
	make -s -C "$TOP" B="$IB" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ -f "$f" ]
	[ "$(installed_files "$d")" = ./etc/dat.conf.d/libdaplcma1.conf ]
}

# Last: an install without DESTDIR needs its own SYSCONFDIR (never the
# host's /etc), which rebuilds the objects that embed it.
@test "ldconfig runs after an install or uninstall into the system (empty DESTDIR, root), not under DESTDIR" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (an install without DESTDIR)"
	local d="$BATS_TEST_TMPDIR/root" log="$BATS_TEST_TMPDIR/ldconfig.log"
	printf '#!/bin/sh\necho ldconfig >> %s\n' "$log" > "$BATS_TEST_TMPDIR/fake-ldconfig"
	chmod +x "$BATS_TEST_TMPDIR/fake-ldconfig"
	make -s -C "$TOP" B="$IB" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc LDCONFIG="$BATS_TEST_TMPDIR/fake-ldconfig"
	[ ! -e "$log" ]
	# a system install into a private prefix (no DESTDIR): the cache is
	# refreshed once, after every file is in place
	make -s -C "$TOP" B="$IB" install PREFIX="$d/sys" LDCONFIG="$BATS_TEST_TMPDIR/fake-ldconfig"
	[ "$(cat "$log")" = ldconfig ]
	make -s -C "$TOP" B="$IB" uninstall PREFIX="$d/sys" LDCONFIG="$BATS_TEST_TMPDIR/fake-ldconfig"
	[ "$(grep -c ldconfig "$log")" -eq 2 ]
	[ "$(installed_files "$d/sys" | wc -l)" -eq 0 ]
}
