#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-providers.sh [DIR]: the rules of the transport seam for every C
# file under DIR (default providers/), one line per breach, exit 1 if any:
#   - the only udapl header a provider reaches, directly or through any
#     other header, is udapl/transport.h, with udapl/lock.h, the lock it
#     includes (the compiler's own dependency list decides, so an include
#     through another header counts);
#   - no provider creates a thread (udapl's progress engine is the one
#     that waits): no call of pthread_create, clone or thrd_create.
# Run from the top of the tree; CC as in the build.
set -u
dir=${1:-providers}
cc=${CC:-cc}
top=$(pwd -P)
bad=0
files=$(find "$dir" -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "no C files under $dir"; exit 1; }
for f in $files; do
	deps=$("$cc" -std=gnu11 -Iinclude -x c -MM "$f" 2>&1) || {
		echo "$f: does not preprocess: $deps"
		bad=1
		continue
	}
	# every header's real path from one realpath, not one each (a
	# process per header made this check take 24 s: issue 34)
	hs=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep '\.h$')
	# shellcheck disable=SC2086 # the headers, split
	for p in ${hs:+$(realpath -m $hs)}; do
		case $p in
		"$top"/udapl/transport.h | "$top"/udapl/lock.h) ;;
		"$top"/udapl/*)
			echo "$f: includes ${p#"$top"/} (only udapl/transport.h)"
			bad=1
			;;
		esac
	done
	if grep -nE '\b(pthread_create|thrd_create|clone)[[:space:]]*\(' "$f"; then
		echo "$f: creates a thread"
		bad=1
	fi
done
exit $bad
