#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/udapl-cg.sh - udapl's hot-path functions, natively, under
# callgrind: self instructions per call of dapl_ep_post_send,
# dapl_ep_post_recv (one segment, through post_send1/post_recv1) and
# dapl_evd_dequeue (one completion, through a direct poll), with the unit
# tests' fake transports (udapl_cg_post.c, udapl_cg_dequeue.c).  They
# matched the soft-RoCE guest's `make bench` per-function figures exactly
# in round 3 (test/bench/results/2026-11-26-hotpath.md), so udapl's side
# can be iterated without the guest; the verbs glue, libdat and the
# whole-path figure still need `make bench`.  Two runs of N and 2N rounds,
# subtracted, so set-up and teardown drop out.  Built here with the
# Makefile's flags (-O2 -g), outside the build tree.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CFLAGS="-std=gnu11 -O2 -g -I$TOP/include"
cd "$TOP"
command -v valgrind > /dev/null || { echo "udapl-cg: valgrind is missing" >&2; exit 2; }
for f in udapl/*.c; do
	cc $CFLAGS -c "$f" -o "$W/$(basename "$f" .c).o"
done
cc $CFLAGS -w -c test/bench/udapl_cg_post.c -o "$W/post.o"
cc $CFLAGS -w -c test/bench/udapl_cg_dequeue.c -o "$W/dequeue.o"
# each links what its unit test links (udapl.mk)
cc -o "$W/post" "$W/post.o" $(printf "$W/%s.o " handle evd lmr pz cno ep dto cm progress ops) -lpthread
cc -o "$W/dequeue" "$W/dequeue.o" $(printf "$W/%s.o " handle ia pz lmr evd cno rmr srq progress ops) -lpthread
# self Ir of FN over N and 2N rounds, per call (CALLS calls per round)
percall() {
	local prog=$1 fn=$2 calls=$3 n=100 a b
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.$n" "$W/$prog" $n > /dev/null 2>&1
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.$((2 * n))" "$W/$prog" $((2 * n)) > /dev/null 2>&1
	a=$(awk -f test/bench/cgsum.awk "$W/cg.$n" | awk -F'\t' -v fn="$fn" '$1 == "self" && $4 == fn { s += $5 } END { print s + 0 }')
	b=$(awk -f test/bench/cgsum.awk "$W/cg.$((2 * n))" | awk -F'\t' -v fn="$fn" '$1 == "self" && $4 == fn { s += $5 } END { print s + 0 }')
	awk -v a="$a" -v b="$b" -v n=$n -v c="$calls" -v fn="$fn" 'BEGIN { printf "%-20s %7.2f instructions per call\n", fn, (b - a) / (n * c) }'
}
percall post dapl_ep_post_send 1
percall post dapl_ep_post_recv 1
percall dequeue dapl_evd_dequeue 2
