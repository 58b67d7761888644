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

# The helpers below set variables instead of printing: a command
# substitution forks, and five forks per file made "check" take 35 s of
# make check for 600 files on a busy machine (issue 34).

# kind FILE: sets want to FILE's licence line, or to nothing (the rule
# does not cover FILE)
kind() {
	want=
	case $1 in
	*.md | LICENSE | VERSION | .gitignore | .clang-format | test/data/* | test/fuzz/corpus/* | \
		test/bench/results/* | *.png) ;;
	debian/rules) want="# $ID" ;;
	debian/*) ;;
	*.c | *.h | *.map) want="/* $ID */" ;;
	man[1-9]/*.[1-9]) want=".\\\" $ID" ;;
	*.sh | *.bash | *.bats | *.py | *.awk | *.mk | *.in | *.supp | *.conf | Makefile | */Makefile) want="# $ID" ;;
	*) if [ -x "$1" ]; then want="# $ID"; fi ;;
	esac
}

# where FILE: sets at to the line number the licence line belongs on
# (2 after a "#!" line) and got to what that line holds
where() {
	l1= l2=
	{ IFS= read -r l1 || :; IFS= read -r l2 || :; } < "$1"
	case $l1 in
	'#!'*) at=2 got=$l2 ;;
	*) at=1 got=$l1 ;;
	esac
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
	kind "$f"
	[ -n "$want" ] || continue
	n=$((n + 1))
	where "$f"
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
