#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run-suite.sh RESULTS_DIR NAME tap|plain COMMAND [ARGS...]
#
# Runs one test suite, shows its output, and records it as TAP in
# RESULTS_DIR/NAME.tap for test/lib/summary.sh.
#   tap:   COMMAND speaks TAP.  A crash or a non-zero exit that its own
#          output does not account for, or a plan it did not finish, is
#          recorded as one more failed test.
#   plain: COMMAND is one test: exit status 0 passes.
# Its wall-clock seconds go to RESULTS_DIR/NAME.secs, for the time table
# that summary.sh prints.  With RUN_SUITE_TAG set (make check's native
# lanes run side by side), each line shown starts with "[TAG] ".
# Always exits 0 once the result is recorded: the summary decides.
set -u
[ $# -ge 4 ] || { echo "usage: $0 RESULTS_DIR NAME tap|plain COMMAND..." >&2; exit 2; }
dir=$1 name=$2 kind=$3
shift 3
mkdir -p "$dir" || exit 2
out="$dir/$name.tap"
raw="$dir/$name.log"

tag=${RUN_SUITE_TAG:+[$RUN_SUITE_TAG] }
echo "$tag=== $name"
start=$(date +%s)
# The output is shown as it comes (in the guest, the console's silence is
# what its watchdog measures, test/vm/run.sh), but the suite writes to a
# file, not a pipe: a process a test leaves behind cannot hold this script
# open.  tail stops once the sentinel is gone, after the last bytes.
: > "$raw"
sleep 86400 < /dev/null > /dev/null 2>&1 &
sentinel=$!
trap 'kill $sentinel 2> /dev/null' EXIT
if [ -n "$tag" ]; then
	tail -s 0.2 -n +1 -f --pid=$sentinel "$raw" | sed -u "s|^|$tag|" &
else
	tail -s 0.2 -n +1 -f --pid=$sentinel "$raw" &
fi
follower=$!
"$@" > "$raw" 2>&1
rc=$?
kill $sentinel
wait $follower
echo $(($(date +%s) - start)) > "$dir/$name.secs"

if [ "$kind" = plain ]; then
	if [ $rc -eq 0 ]; then
		printf '1..1\nok 1 - %s\n' "$name" > "$out"
	else
		printf '1..1\nnot ok 1 - %s (exit status %d)\n' "$name" "$rc" > "$out"
	fi
	exit 0
fi

grep -E '^(not )?ok\b|^1\.\.[0-9]+' "$raw" > "$out"
ran=$(grep -cE '^(not )?ok\b' "$out")
failed=$(grep -c '^not ok' "$out")
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1)
if [ -z "$plan" ] || [ "$plan" -ne "$ran" ]; then
	echo "not ok - $name: planned ${plan:-no plan}, ran $ran" >> "$out"
elif [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "not ok - $name exited with status $rc" >> "$out"
fi
exit 0
