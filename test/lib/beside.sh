#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# beside.sh OUT CMD1... -- CMD2...
#
# Runs CMD1 in the background, its output (stdout and stderr) into OUT,
# and CMD2 in the foreground; then waits for CMD1 and prints OUT.  make
# check runs the soft-RoCE guest's suites (CMD1) beside the native ones
# (CMD2): the two used to run one after the other, and together took
# twice the 15 minutes issue 34 asks for.  No result depends on this:
# each suite writes its own TAP into the results directory, and
# test/lib/summary.sh reads them all at the end.
#
# Exit status: CMD2's if it failed, else CMD1's.  Interrupted, it stops
# CMD1's whole process group, the guest's qemu included.
set -u
[ $# -ge 3 ] || { echo "usage: $0 OUT CMD1... -- CMD2..." >&2; exit 2; }
out=$1
shift
cmd1=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	cmd1+=("$1")
	shift
done
[ $# -ge 2 ] && [ ${#cmd1[@]} -gt 0 ] ||
	{ echo "$0: want CMD1... -- CMD2..." >&2; exit 2; }
shift

mkdir -p "$(dirname "$out")"
# a process group of its own (job control), so that an interrupt stops
# all of it, the guest's qemu included
set -m
"${cmd1[@]}" > "$out" 2>&1 < /dev/null &
bg=$!
set +m
trap 'kill -TERM -- "-$bg" 2> /dev/null; wait "$bg"; exit 130' INT TERM HUP
echo "=== in the background (pid $bg), its output into $out, shown when it ends: ${cmd1[*]}"

"$@"
rc2=$?
echo "=== waiting for the background part (pid $bg): ${cmd1[*]}"
wait "$bg"
rc1=$?
trap - INT TERM HUP
cat "$out"
echo "=== the background part exited $rc1, the foreground part $rc2"
[ $rc2 -ne 0 ] && exit $rc2
exit $rc1
