#!/usr/bin/env bats
# The shape of libdat.so.1 as legacy binaries and packagers see it.

load helpers

LIB="$DATTEST_BUILD/lib/libdat.so.1"

@test "SONAME is libdat.so.1 and libdat.so links to it" {
	run readelf -d "$LIB"
	[[ "$output" == *"Library soname: [libdat.so.1]"* ]]
	[ "$(readlink "$DATTEST_BUILD/lib/libdat.so")" = libdat.so.1 ]
}

@test "exports exactly the 72 DAT 1.2 calls under DAT_1.2 and the 2 extension calls under DAT_1.2_EXT" {
	nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ {print $3}' | sort > "$BATS_TEST_TMPDIR/got"
	{
		sed 's/$/@@DAT_1.2/' "$TOP/test/data/libdat-1.2.symbols"
		printf '%s\n' dat_extension_op@@DAT_1.2_EXT dat_registry_add_extension@@DAT_1.2_EXT
	} | sort > "$BATS_TEST_TMPDIR/want"
	run diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	[ "$status" -eq 0 ]
	[ "$(grep -c '@@DAT_1.2$' "$BATS_TEST_TMPDIR/got")" -eq 72 ]
	[ "$(grep -c '@@DAT_1.2_EXT$' "$BATS_TEST_TMPDIR/got")" -eq 2 ]
	# nothing else: no data symbols, no internal helpers; the two version
	# nodes are independent (DAT_1.2_EXT does not inherit DAT_1.2)
	[ "$(nm -D --defined-only "$LIB" | grep -v ' A DAT_1.2' | grep -vc ' A DAT_1.2_EXT')" -eq 74 ]
	run readelf -V "$LIB"
	[[ "$output" != *"Parent 1: DAT_1.2"* ]]
}

@test "libdat needs nothing but libc (and its pthread/dl parts)" {
	run readelf -d "$LIB"
	[ "$(printf '%s\n' "$output" | grep NEEDED | grep -vc 'libc.so.6')" -eq 0 ]
}

@test "a provider library exports only dat_provider_init and dat_provider_fini" {
	nm -D --defined-only "$DATTEST_BUILD/test/libdattest.so.1" | awk '$2 == "T" {print $3}' | sort > "$BATS_TEST_TMPDIR/got"
	printf 'dat_provider_fini\ndat_provider_init\n' > "$BATS_TEST_TMPDIR/want"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

@test "make install honours DESTDIR, PREFIX, LIBDIR and SYSCONFDIR" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr LIBDIR=/usr/lib64 SYSCONFDIR=/etc
	[ -f "$d/usr/lib64/libdat.so.1" ]
	[ "$(readlink "$d/usr/lib64/libdat.so")" = libdat.so.1 ]
	[ "$(ls "$d/usr/include/dat" | wc -l)" -eq 11 ]
	[ -f "$d/usr/include/dat/dat_ib_extensions.h" ]
	[ -f "$d/usr/include/dat/udat.h" ]
	grep -qx 'libdir=/usr/lib64' "$d/usr/lib64/pkgconfig/dat.pc"
	grep -qx 'Libs: -L${libdir} -ldat' "$d/usr/lib64/pkgconfig/dat.pc"
	cmp "$TOP/dat.conf" "$d/etc/dat.conf"
}

@test "make install keeps an existing dat.conf" {
	local d="$BATS_TEST_TMPDIR/root"
	mkdir -p "$d/etc"
	echo "# the administrator's" > "$d/etc/dat.conf"
	run make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"keeping existing"* ]]
	[ "$(cat "$d/etc/dat.conf")" = "# the administrator's" ]
}

@test "a consumer builds against the installed headers with pkg-config and -ldat" {
	local d="$BATS_TEST_TMPDIR/root"
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr
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
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	installed_files "$d" > "$BATS_TEST_TMPDIR/files"
	{
		echo ./etc/dat.conf
		printf './usr/include/dat/%s\n' $(cd "$TOP/include/dat" && ls)
		printf './usr/lib/%s\n' libdaplcma.so.1 libdat.so libdat.so.1 pkgconfig/dat.pc
		echo ./usr/sbin/datadm
		printf './usr/share/man/man3/%s\n' $(cd "$TOP/man3" && ls)
		echo ./usr/share/man/man5/dat.conf.5
		echo ./usr/share/man/man8/datadm.8
		# the libfabric provider, where its fragment is present
		if [ -f "$TOP/providers/ofi/ofi.mk" ]; then
			echo ./usr/lib/libdaplofi.so.1
		fi
		# dapltest(1) and its runner, where that fragment is present
		if [ -f "$TOP/test/dapltest/dapltest.mk" ]; then
			echo ./usr/bin/dapltest
			echo ./usr/share/man/man1/dapltest.1
		fi
	} | sort > "$BATS_TEST_TMPDIR/want"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/files"
	[ "$(grep -c '/man3/' "$BATS_TEST_TMPDIR/files")" -ge 76 ]
	# the installed datadm reads the installed registry
	DAT_OVERRIDE="$d/etc/dat.conf" run "$d/usr/sbin/datadm" -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"OpenIB-cma "* ]]
	# a directory that was there before stays, with a stranger's file
	touch "$d/usr/share/man/man3/other.3"
	make -s -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc MANDIR=/usr/share/man
	[ "$(installed_files "$d")" = ./usr/share/man/man3/other.3 ]
	[ ! -e "$d/usr/include/dat" ]
}

@test "make uninstall keeps a dat.conf that was there before or was changed since" {
	local d="$BATS_TEST_TMPDIR/root"
	mkdir -p "$d/etc"
	echo "# the administrator's" > "$d/etc/dat.conf"
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	run make -s -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"keeping $d/etc/dat.conf (not the installed sample)"* ]]
	[ "$(cat "$d/etc/dat.conf")" = "# the administrator's" ]
	# a sample that datadm changed after the install is kept too
	rm "$d/etc/dat.conf"
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	printf '%s\n' 'S u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""' > "$BATS_TEST_TMPDIR/s.conf"
	DAT_OVERRIDE="$d/etc/dat.conf" "$d/usr/sbin/datadm" -a "$BATS_TEST_TMPDIR/s.conf"
	make -s -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr SYSCONFDIR=/etc
	[ -f "$d/etc/dat.conf" ]
	[ "$(installed_files "$d")" = ./etc/dat.conf ]
}
