#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# under-load.sh COMMAND...: runs COMMAND (make check) while a CPU hog, a
# busy loop at the same priority, keeps one core busy, as a developer's
# compile beside the suite would.  A suite that is green only on a quiet
# machine is not trusted (issue 34): timeouts are there to catch hangs, so
# this must pass too, only slower.  Exit status: COMMAND's.
set -u
[ $# -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2> /dev/null' EXIT
trap 'exit 130' INT TERM HUP
echo "=== under load: a busy loop (pid $hog) holds one of $(nproc) cores"
start=$(date +%s)
"$@"
rc=$?
echo "=== under load: $* exited $rc after $(($(date +%s) - start)) s"
exit $rc
