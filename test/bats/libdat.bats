#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
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
