#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/udapl-cg.sh - udapl's hot-path functions, natively, under
# callgrind: self instructions per call of dapl_ep_post_send,
# dapl_ep_post_recv (one segment, through post_send1/post_recv1) and
# dapl_evd_dequeue (one completion, through a direct poll), with the unit
# tests' fake transports (udapl_cg_post.c, udapl_cg_dequeue.c); and of the
# one-segment RDMA write, RDMA read, fetch-and-add and compare-and-swap
# posts (udapl_cg_rdma.c, through post_write1/post_read1/post_atomic1
# where the tree's transport.h has them): their public function's self
# figure and all of udapl's code per call (an atomic spans ext.c and
# dto.c; the fake transport's own code is not counted).  They
# matched the soft-RoCE guest's `make bench` per-function figures exactly
# in round 3 (test/bench/results/2026-11-26-hotpath.md), so udapl's side
# can be iterated without the guest; the verbs glue, libdat and the
# whole-path figure still need `make bench`.  The verbs glue of the
# one-sided posts (providers/verbs/post.c) is counted natively too, on a
# fake QP (verbs_cg_post.c): the general verbs_post_send of a struct
# dapl_post against the one-segment ops' template.  Two runs of N and 2N rounds,
# subtracted, so set-up and teardown drop out.  Built here with the
# Makefile's flags (-O2 -g), outside the build tree.
#
# UDAPL_CG_TREE=DIR: measure the udapl/ and test/unit/ of another
# checkout (e.g. a worktree of main, for a before figure) with this
# tree's harnesses.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TREE=$(cd "${UDAPL_CG_TREE:-$TOP}" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
CFLAGS="-std=gnu11 -O2 -g -I$TREE/include"
command -v valgrind > /dev/null || { echo "udapl-cg: valgrind is missing" >&2; exit 2; }
# the harnesses next to the tree's test/unit (they include it relatively)
mkdir -p "$W/t/test/bench"
ln -s "$TREE/test/unit" "$W/t/test/unit"
ln -s "$TREE/udapl" "$W/t/udapl"
cp "$TOP"/test/bench/udapl_cg_*.c "$W/t/test/bench/"
OLD=
grep -q post_write1 "$TREE/udapl/transport.h" || OLD=-DUDAPL_CG_OLD
cd "$TREE"
for f in udapl/*.c; do
	cc $CFLAGS -c "$f" -o "$W/$(basename "$f" .c).o"
done
cd "$W/t"
cc $CFLAGS -w -c test/bench/udapl_cg_post.c -o "$W/post.o"
cc $CFLAGS -w -c test/bench/udapl_cg_dequeue.c -o "$W/dequeue.o"
cc $CFLAGS $OLD -w -c test/bench/udapl_cg_rdma.c -o "$W/rdma.o"
# each links what its unit test links (udapl.mk), ext.o for the atomics;
# objs NAME...: those of the tree's objects (evd_dequeue.c, ep_param.c,
# ep_ring.c, sp.c, progress_thread.c and upcall.c came out of evd.c,
# ep.c, cm.c and progress.c: an older tree has none of them)
objs() { for o in "$@"; do [ ! -e "$W/$o.o" ] || printf '%s ' "$W/$o.o"; done; }
CORE="handle evd evd_dequeue lmr pz cno deadline progress progress_thread upcall ops process"
cc -o "$W/post" "$W/post.o" $(objs $CORE ep ep_param ep_ring dto cm sp ext) -lpthread
cc -o "$W/dequeue" "$W/dequeue.o" $(objs $CORE ia rmr srq) -lpthread
cc -o "$W/rdma" "$W/rdma.o" $(objs $CORE ep ep_param ep_ring dto cm sp ext) -lpthread
if [ -z "$OLD" ]; then
	cd "$TREE"
	cc $CFLAGS -c providers/verbs/post.c -o "$W/vpost.o"
	cc $CFLAGS -w -c test/bench/verbs_cg_post.c -o "$W/verbs.o"
	cc -o "$W/verbs" "$W/verbs.o" "$W/vpost.o"
fi
cd "$TOP"
# self Ir of FN ("udapl": every function of udapl/*.c) over N and 2N
# rounds of PROG ARG, per call (CALLS calls per round)
selfir() {
	awk -f test/bench/cgsum.awk "$1" | awk -F'\t' -v fn="$2" '
		$1 == "self" && ($4 == fn || (fn == "udapl" && $3 ~ /(^|\/)udapl\/[a-z_]+\.c$/) ||
				 (fn == "verbs" && $3 ~ /(^|\/)providers\/verbs\/post\.c$/)) { s += $5 }
		END { print s + 0 }'
}
percall() {
	local prog=$1 arg=$2 fn=$3 calls=$4 label=${5:-$3} n=100 a b
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.$n" "$W/$prog" $n $arg > /dev/null 2>&1
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.$((2 * n))" "$W/$prog" $((2 * n)) $arg > /dev/null 2>&1
	a=$(selfir "$W/cg.$n" "$fn")
	b=$(selfir "$W/cg.$((2 * n))" "$fn")
	awk -v a="$a" -v b="$b" -v n=$n -v c="$calls" -v fn="$label" 'BEGIN { printf "%-32s %7.2f instructions per call\n", fn, (b - a) / (n * c) }'
}
percall post "" dapl_ep_post_send 1
percall post "" dapl_ep_post_recv 1
percall dequeue "" dapl_evd_dequeue 2
percall rdma write dapl_ep_post_rdma_write 1
percall rdma write udapl 1 "RDMA write, all of udapl"
percall rdma read dapl_ep_post_rdma_read 1
percall rdma read udapl 1 "RDMA read, all of udapl"
percall rdma faa dapl_extension_op 1 "dapl_extension_op (fetch-add)"
percall rdma faa udapl 1 "fetch-and-add, all of udapl"
percall rdma cas dapl_extension_op 1 "dapl_extension_op (cmp-swap)"
percall rdma cas udapl 1 "compare-and-swap, all of udapl"
[ -n "$OLD" ] && exit 0
for op in write read faa cas; do
	percall verbs $op-gen verbs 1 "verbs glue, $op, verbs_post_send"
	percall verbs $op verbs 1 "verbs glue, $op, one-segment op"
done
