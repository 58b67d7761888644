#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# spdx.sh check|add [FILE...]: the licence line of every source file.
#
# The rule (test/bats/spdx.bats runs "check" on every tracked file):
#   which files  C and linker scripts (*.c *.h *.map); shell, Bats, Python,
#                awk, make, pkg-config and valgrind files (*.sh *.bash *.bats
#                *.py *.awk *.mk *.in *.supp, Makefile, any executable file);
#                dat.conf files (*.conf) except the fuzz corpus; manual pages
#                (man[1-9]/*.[1-9]); debian/rules.
#   not          documents and data: *.md, LICENSE, VERSION, .gitignore,
#                .clang-format,
#                test/data/, test/fuzz/corpus/, test/bench/results/, *.png,
#                the other files of debian/ (copyright carries the licence).
#   the line     "SPDX-License-Identifier: BSD-3-Clause" in the file's own
#                comment syntax, as its first line, or its second after a
#                "#!" line:
#                  /* SPDX-License-Identifier: BSD-3-Clause */   C, h, map
#                  .\" SPDX-License-Identifier: BSD-3-Clause     man pages
#                  # SPDX-License-Identifier: BSD-3-Clause       the rest
# check: prints each file that breaks the rule, exits 1 if any does.
# add: inserts the line into the files that lack it (no FILE: every
# tracked file the rule covers).
set -eu
ID="SPDX-License-Identifier: BSD-3-Clause"
cd "$(dirname "$0")/.."

# kind FILE: c, roff, hash, or nothing (the rule does not cover FILE)
kind() {
	case $1 in
	*.md | LICENSE | VERSION | .gitignore | .clang-format | test/data/* | test/fuzz/corpus/* | \
		test/bench/results/* | *.png) return 0 ;;
	debian/rules) echo hash; return 0 ;;
	debian/*) return 0 ;;
	*.c | *.h | *.map) echo c ;;
	man[1-9]/*.[1-9]) echo roff ;;
	*.sh | *.bash | *.bats | *.py | *.awk | *.mk | *.in | *.supp | *.conf | Makefile | */Makefile) echo hash ;;
	*) [ -x "$1" ] && echo hash ;;
	esac
	return 0
}

line_for() {
	case $1 in
	c) echo "/* $ID */" ;;
	roff) echo ".\\\" $ID" ;;
	hash) echo "# $ID" ;;
	esac
}

# where FILE: the line number the licence line belongs on
where() {
	if head -c 2 "$1" | grep -q '^#!'; then echo 2; else echo 1; fi
}

files() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	elif [ -e .git ]; then
		git ls-files
	else
		find . -type f ! -path './build/*' | sed 's|^\./||' | sort
	fi
}

mode=${1:-}
[ "$mode" = check ] || [ "$mode" = add ] || { echo "usage: $0 check|add [FILE...]" >&2; exit 2; }
shift
bad=0
n=0
for f in $(files "$@"); do
	[ -f "$f" ] || continue
	k=$(kind "$f")
	[ -n "$k" ] || continue
	n=$((n + 1))
	want=$(line_for "$k")
	at=$(where "$f")
	got=$(sed -n "${at}p" "$f")
	[ "$got" = "$want" ] && continue
	if [ "$mode" = check ]; then
		echo "$f: line $at is not: $want"
		bad=1
	elif grep -qF "$ID" "$f"; then
		echo "$f: has the identifier elsewhere; fix it by hand" >&2
		bad=1
	else
		tmp=$(mktemp)
		if [ "$at" = 2 ]; then
			{ head -n 1 "$f"; echo "$want"; tail -n +2 "$f"; } > "$tmp"
		else
			{ echo "$want"; cat "$f"; } > "$tmp"
		fi
		cat "$tmp" > "$f"	# keeps the file's mode
		rm -f "$tmp"
	fi
done
[ "$mode" = add ] || echo "spdx: $n files covered"
exit $bad
