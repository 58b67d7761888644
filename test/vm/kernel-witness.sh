#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kernel-witness.sh RESULTS_DIR NAME COMMAND...
#
# The kernel as a witness (issue 18): runs COMMAND, a TAP-speaking suite,
# passing its output through, and writes RESULTS_DIR/kernel-witness-NAME.tap:
# the suite fails there when its run left a WARNING:, BUG:, refcount or
# use-after-free report in the kernel log, naming the test that was running
# when the report appeared.  A driver bug that legal use provokes and that
# cannot be avoided may be listed in test/vm/kernel-witness-allow.txt (or the
# file KERNEL_WITNESS_ALLOW names); see kernel-witness-scan.sh for both.
#
# How: a start marker goes to /dev/kmsg before COMMAND, a marker carrying
# each TAP result line right after the line appears (bats prints it once
# the test and its teardown are over), an end marker after COMMAND; then
# the kernel log (dmesg) is kept as RESULTS_DIR/kernel-witness-NAME.log and
# judged.  The markers carry a random nonce, so a witness run inside the
# suite (the self-test) is told apart.  Needs root (writes /dev/kmsg): the
# test bed (check-verbs.sh) uses it inside the soft-RoCE guest only.
#
# Exit status: COMMAND's (its TAP is judged by run-suite.sh as before).
set -u
[ $# -ge 3 ] || { echo "usage: $0 RESULTS_DIR NAME COMMAND..." >&2; exit 2; }
dir=$1 name=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir" || exit 2
tap=$dir/kernel-witness-$name.tap
log=$dir/kernel-witness-$name.log
allow=${KERNEL_WITNESS_ALLOW:-$here/kernel-witness-allow.txt}
nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')

# KERNEL_WITNESS_KMSG: a plain file standing in for /dev/kmsg and the
# kernel log (the host test, test/vm/witness-scan.bats)
kmsg_dev=${KERNEL_WITNESS_KMSG:-/dev/kmsg}
# one record; the kernel takes at most about 1000 bytes of it
kmsg() { printf '%s\n' "${1:0:900}" 2> /dev/null >> "$kmsg_dev"; }
kernel_log() {
	if [ "$kmsg_dev" = /dev/kmsg ]; then dmesg; else cat "$kmsg_dev"; fi
}

if ! kmsg "dat-witness $nonce: start $name"; then
	printf '1..1\nnot ok 1 - kernel-witness: %s: cannot write %s (not root?): nothing can be witnessed\n' \
		"$name" "$kmsg_dev" > "$tap"
	exec "$@"
fi
# (a last line without its newline is passed on too)
"$@" | while IFS= read -r line || [ -n "$line" ]; do
	printf '%s\n' "$line"
	case $line in
	'ok '* | 'not ok '*) kmsg "dat-witness $nonce: done $line" ;;
	esac
done
rc=${PIPESTATUS[0]}
kmsg "dat-witness $nonce: end $name"
kernel_log > "$log" 2>&1
"$here/kernel-witness-scan.sh" "$log" "$name" "$nonce" "$allow" > "$tap" ||
	printf '1..1\nnot ok 1 - kernel-witness: %s: the scan failed (kernel log %s)\n' "$name" "$log" > "$tap"
if grep -q '^not ok' "$tap"; then
	echo "kernel-witness: $name: the kernel log has reports (kept in $log):"
	grep '^not ok' "$tap"
fi
exit "$rc"
