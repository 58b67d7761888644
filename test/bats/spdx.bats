#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# Every source file names its licence in an SPDX line (the rule is in
# scripts/spdx.sh): files that branches add later are caught here.

load helpers

@test "every tracked source file has its SPDX-License-Identifier line where the rule says" {
	run "$TOP/scripts/spdx.sh" check
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^spdx:\ [0-9]+\ files\ covered$ ]]
	[ "$(echo "${lines[-1]}" | tr -dc 0-9)" -ge 200 ]
}

@test "spdx.sh add puts the line first, after a shebang, in each file's comment syntax; check then passes" {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/scripts" "$t/man3" "$t/src" "$t/test/fuzz/corpus"
	cp "$TOP/scripts/spdx.sh" "$t/scripts/"
	printf 'int x;\n' > "$t/src/a.c"
	printf '#!/bin/sh\necho hi\n' > "$t/src/b.sh"
	chmod +x "$t/src/b.sh"
	printf '.TH A 3\n' > "$t/man3/a.3"
	printf 'all:\n' > "$t/src/x.mk"
	printf 'T u1.2 threadsafe default x dapl.1.2 "" ""\n' > "$t/test/fuzz/corpus/c.conf"
	run "$t/scripts/spdx.sh" check
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -c 'is not')" -eq 4 ]
	"$t/scripts/spdx.sh" add
	[ "$(head -n 1 "$t/src/a.c")" = "/* SPDX-License-Identifier: BSD-3-Clause */" ]
	[ "$(sed -n 2p "$t/src/b.sh")" = "# SPDX-License-Identifier: BSD-3-Clause" ]
	[ "$(head -n 1 "$t/src/b.sh")" = "#!/bin/sh" ]
	[ -x "$t/src/b.sh" ]
	[ "$(head -n 1 "$t/man3/a.3")" = '.\" SPDX-License-Identifier: BSD-3-Clause' ]
	[ "$(head -n 1 "$t/src/x.mk")" = "# SPDX-License-Identifier: BSD-3-Clause" ]
	[ "$(head -n 1 "$t/test/fuzz/corpus/c.conf")" = 'T u1.2 threadsafe default x dapl.1.2 "" ""' ]
	run "$t/scripts/spdx.sh" check
	[ "$status" -eq 0 ]
}
