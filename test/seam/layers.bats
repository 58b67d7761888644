#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# Layers that call only downward (issue 36): no two folders reach each
# other by name, and inside dat/, registry/, udapl/, providers/verbs/,
# providers/cma/, providers/scm/ and providers/ofi/ no two files do
# (test/seam/check-layers.sh reads the built objects with nm).  A lower
# layer reaches an upper one through a callback it was given at open, as
# struct dapl_ops goes down.  The checker is
# first shown to catch each kind of loop in scratch objects, so that a
# silent checker cannot pass.

load ../bats/helpers

CHECK="$TOP/test/seam/check-layers.sh"

# obj DIR NAME SOURCE: compiles SOURCE into $BATS_TEST_TMPDIR/o/DIR/NAME.o
obj() {
	mkdir -p "$BATS_TEST_TMPDIR/o/$1"
	printf '%s\n' "$3" > "$BATS_TEST_TMPDIR/$2.c"
	cc -c -o "$BATS_TEST_TMPDIR/o/$1/$2.o" "$BATS_TEST_TMPDIR/$2.c"
}

@test "layers: the checker reports two files of one folder that call each other" {
	obj lib low 'int up(void); int low(void) { return up(); }'
	obj lib up 'int low(void); int up(void) { return low() + 1; }'
	run "$CHECK" -f "$BATS_TEST_TMPDIR/o" lib
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qx 'file loop: lib/low lib/up' <<< "$output"
	grep -qx '  lib/low -> lib/up (up)' <<< "$output"
	grep -qx '  lib/up -> lib/low (low)' <<< "$output"
	# without -f the folder alone is looked at
	run "$CHECK" "$BATS_TEST_TMPDIR/o" lib
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "layers: the checker reports a loop of three files and two folders that reach each other" {
	obj lib a 'int b(void); int a(void) { return b(); }'
	obj lib b 'int c(void); int b(void) { return c(); }'
	obj lib c 'int a(void); int c(void) { return a(); }'
	run "$CHECK" -f "$BATS_TEST_TMPDIR/o" lib
	[ "$status" -eq 1 ]
	grep -qx 'file loop: lib/a lib/c' <<< "$output"
	rm -r "$BATS_TEST_TMPDIR/o/lib"
	obj top t 'int x(void); int t(void) { return x(); }'
	obj lib x 'int y(void); int x(void) { return y(); }'
	obj lib y 'int t(void); int y(void) { return t(); }'
	run "$CHECK" "$BATS_TEST_TMPDIR/o" lib top
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qx 'folder loop: lib top' <<< "$output"
	grep -qx '  lib -> top (t)' <<< "$output"
	# a program in a folder is a group of its own (-p)
	run "$CHECK" -p lib/y "$BATS_TEST_TMPDIR/o" lib top
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qx 'folder loop: lib/y top' <<< "$output"
}

@test "layers: the checker passes a callback given at open" {
	obj lib low 'static int (*cb)(void);
void low_open(int (*f)(void)) { cb = f; }
int low(void) { return cb(); }'
	obj lib up 'void low_open(int (*f)(void)); int low(void);
static int up_cb(void) { return 1; }
int up(void) { low_open(up_cb); return low(); }'
	run "$CHECK" -f "$BATS_TEST_TMPDIR/o" lib
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run "$CHECK" -f "$BATS_TEST_TMPDIR/o" nothing
	[ "$status" -eq 2 ]
}

@test "layers: no two folders of the tree call each other, directly or around a loop" {
	run "$CHECK" -p registry/datadm -p registry/datadm_status \
		-p registry/datadm_file "$DATTEST_BUILD" dat registry udapl \
		providers/verbs providers/cma providers/ofi providers/scm
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "layers: inside dat/, registry/, udapl/, providers/verbs/, providers/cma/, providers/scm/ and providers/ofi/ no two files call each other" {
	run "$CHECK" -f -p registry/datadm -p registry/datadm_status \
		-p registry/datadm_file "$DATTEST_BUILD" dat registry udapl \
		providers/verbs providers/cma providers/scm providers/ofi
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# and it looked at the files there are
	[ "$(ls "$DATTEST_BUILD"/udapl/*.o | wc -l)" -ge 15 ]
	[ "$(ls "$DATTEST_BUILD"/providers/ofi/*.o | wc -l)" -ge 30 ]
}
