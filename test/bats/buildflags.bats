#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# The build as packagers drive it: the user's CPPFLAGS, CFLAGS and LDFLAGS
# reach every compile and every link of a full build, and -Werror is the
# project's own (WERROR=1), never forced on a user's compiler.

load helpers

# commands FLAGS...: every compiler command of a full build (make -n -B),
# continuation lines joined, with a marker compiler and marker flags.
commands() {
	env -u WERROR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -s -n -B -C "$TOP" all test-programs bench-programs \
		$(grep -q '^examples:' "$TOP/Makefile" "$TOP"/examples/*.mk 2>/dev/null && echo examples) \
		CC=MARKCC CPPFLAGS=-DMARK_CPPFLAGS CFLAGS=-DMARK_CFLAGS \
		LDFLAGS=-LMARK_LDFLAGS "$@" |
		sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' | grep 'MARKCC' || :
}

@test "CPPFLAGS and CFLAGS reach every compile, CFLAGS and LDFLAGS every link" {
	commands > "$BATS_TEST_TMPDIR/cmds"
	compiles=$(grep -c -- ' -c ' "$BATS_TEST_TMPDIR/cmds" || :)
	links=$(grep -vc -- ' -c ' "$BATS_TEST_TMPDIR/cmds" || :)
	echo "$compiles compiles, $links links"
	[ "$compiles" -ge 50 ]
	[ "$links" -ge 10 ]
	bad=$(grep -- ' -c ' "$BATS_TEST_TMPDIR/cmds" | grep -v -e '-DMARK_CPPFLAGS.*-DMARK_CFLAGS' || :)
	echo "compiles without the flags: $bad"
	[ -z "$bad" ]
	bad=$(grep -v -- ' -c ' "$BATS_TEST_TMPDIR/cmds" | grep -v -e '-DMARK_CFLAGS.*-LMARK_LDFLAGS' || :)
	echo "links without the flags: $bad"
	[ -z "$bad" ]
}

@test "-Werror only with WERROR=1" {
	commands > "$BATS_TEST_TMPDIR/plain"
	[ "$(grep -c -- '-Werror' "$BATS_TEST_TMPDIR/plain" || :)" -eq 0 ]
	commands WERROR=1 > "$BATS_TEST_TMPDIR/ci"
	[ "$(grep -- ' -c ' "$BATS_TEST_TMPDIR/ci" | grep -vc -- '-Wall -Wextra -Werror' || :)" -eq 0 ]
	# CI runs exactly the README's test command; make check sets WERROR=1
	grep -qx '    sh scripts/deps.sh && make check' "$TOP/README.md"
	grep -qx 'sh scripts/deps.sh && make check' "$TOP/.ci/run"
	grep -qE '^check check-host check-verbs( [a-z-]+)*: WERROR = 1$' "$TOP/Makefile"
}

@test "the user's -O and -g are not overridden by the project's flags" {
	commands CFLAGS='-O0 -g3' > "$BATS_TEST_TMPDIR/cmds"
	[ "$(grep -- ' -c ' "$BATS_TEST_TMPDIR/cmds" | grep -vc -- '-O0 -g3' || :)" -eq 0 ]
	[ "$(grep -c -- '-O2' "$BATS_TEST_TMPDIR/cmds" || :)" -eq 0 ]
}
