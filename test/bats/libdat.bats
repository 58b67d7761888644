#!/usr/bin/env bats
# The shape of libdat.so.1 as legacy binaries and packagers see it.

load helpers

LIB="$DATTEST_BUILD/lib/libdat.so.1"

@test "SONAME is libdat.so.1 and libdat.so links to it" {
	run readelf -d "$LIB"
	[[ "$output" == *"Library soname: [libdat.so.1]"* ]]
	[ "$(readlink "$DATTEST_BUILD/lib/libdat.so")" = libdat.so.1 ]
}

@test "exports exactly the 72 DAT 1.2 calls, all under version DAT_1.2" {
	nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ {print $3}' | sort > "$BATS_TEST_TMPDIR/got"
	sed 's/$/@@DAT_1.2/' "$TOP/test/data/libdat-1.2.symbols" | sort > "$BATS_TEST_TMPDIR/want"
	run diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	[ "$status" -eq 0 ]
	[ "$(wc -l < "$BATS_TEST_TMPDIR/got")" -eq 72 ]
	# nothing else: no data symbols, no internal helpers
	[ "$(nm -D --defined-only "$LIB" | grep -vc ' A DAT_1.2')" -eq 72 ]
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
	[ "$(ls "$d/usr/include/dat" | wc -l)" -eq 10 ]
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
int main(void)
{
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	const char *major, *minor;
	DAT_RETURN rc = dat_ia_open("nothing-here", 8, &evd, &ia);

	dat_strerror(rc, &major, &minor);
	printf("%s / %s\n", major, minor);
	return rc == DAT_SUCCESS;
}
C
	flags=$(PKG_CONFIG_SYSROOT_DIR="$d" PKG_CONFIG_LIBDIR="$d/usr/lib/pkgconfig" pkg-config --cflags --libs dat)
	cc -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/app" "$BATS_TEST_TMPDIR/app.c" $flags
	conf '# empty'
	LD_LIBRARY_PATH="$d/usr/lib" run "$BATS_TEST_TMPDIR/app"
	[ "$status" -eq 0 ]
	[[ "$output" == "DAT_PROVIDER_NOT_FOUND: no such provider / DAT_NAME_NOT_REGISTERED"* ]]
}
