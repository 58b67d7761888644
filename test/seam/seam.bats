#!/usr/bin/env bats
# The transport seam (udapl/transport.h): providers include no udapl
# header but the seam, directly or indirectly, and create no thread
# (test/seam/check-providers.sh).  The checker is first shown to catch a
# breach of each kind in a scratch tree, so a silent checker cannot pass.

load ../bats/helpers

CHECK="$TOP/test/seam/check-providers.sh"

# scratch PROVIDER_FILE_CONTENT: a copy of the tree's headers with one
# provider file, in $BATS_TEST_TMPDIR/tree.
scratch() {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/providers/x" "$t/udapl"
	cp -r "$TOP/include" "$t/"
	cp "$TOP"/udapl/*.h "$t/udapl/"
	printf '%s\n' "$@" > "$t/providers/x/x.c"
}

@test "seam: the checker reports a provider that includes the object internals" {
	scratch '#include "../../udapl/udapl.h"'
	cd "$BATS_TEST_TMPDIR/tree"
	run "$CHECK"
	[ "$status" -eq 1 ]
	[ "$(count 'includes udapl/udapl.h')" -eq 1 ]
}

@test "seam: the checker reports one reached through a provider's own header" {
	scratch '#include "x.h"'
	printf '#include "../../udapl/slots.h"\n' \
		> "$BATS_TEST_TMPDIR/tree/providers/x/x.h"
	cd "$BATS_TEST_TMPDIR/tree"
	run "$CHECK"
	[ "$status" -eq 1 ]
	# x.c through x.h, and x.h itself; slots.h brings udapl.h too
	[ "$(count 'x.c: includes udapl/slots.h')" -eq 1 ]
	[ "$(count 'x.h: includes udapl/udapl.h')" -eq 1 ]
}

@test "seam: the checker reports a provider that creates a thread" {
	scratch '#include "../../udapl/transport.h"' \
		'void f(void) { pthread_create(0, 0, 0, 0); }'
	cd "$BATS_TEST_TMPDIR/tree"
	run "$CHECK"
	[ "$status" -eq 1 ]
	[ "$(count 'x.c: creates a thread')" -eq 1 ]
}

@test "seam: the checker passes a provider that keeps to transport.h" {
	scratch '#include "../../udapl/transport.h"' 'int f(void);'
	cd "$BATS_TEST_TMPDIR/tree"
	run "$CHECK"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "seam: every file under providers/ reaches only udapl/transport.h and creates no thread" {
	cd "$TOP"
	run "$CHECK" providers
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# and it looked at the providers there are
	[ "$(find providers -name '*.[ch]' | wc -l)" -ge 10 ]
}
