# SPDX-License-Identifier: BSD-3-Clause
# Shared setup of the host Bats suites.  make check-host exports
# DATTEST_BUILD (the build directory) and an LD_LIBRARY_PATH that finds
# libdat.so.1 and the test provider libdattest.so.1.

: "${DATTEST_BUILD:?run these through make check-host}"
DATTEST="$DATTEST_BUILD/test/dattest"
TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"

# conf LINE...: writes a dat.conf made of the given lines and points
# DAT_OVERRIDE at it.
conf() {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	printf '%s\n' "$@" > "$DAT_OVERRIDE"
}

# A registry with the test provider under two IA names and both thread
# safeties, as an administrator would write it.
standard_conf() {
	conf '# test registry' \
	     'T1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p1" ""' \
	     'T1 u1.2 threadsafe default libdattest.so.1 dapl.1.2 "p1" ""' \
	     'T2 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p2" ""'
}

# count PATTERN: how many lines of $output match (grep -c, no failure).
count() {
	printf '%s\n' "$output" | grep -c -- "$1" || :
}
