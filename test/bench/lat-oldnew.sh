#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/lat-oldnew.sh OLDTOP WORKDIR - latency rows of two builds in
# one boot: run-bench.sh's lat part (BENCH_PARTS=lat) of the checkout
# OLDTOP (e.g. a worktree of main with `make bench-programs` done) and of
# this one in turn, ALTS times over (default "1 2"), each into
# WORKDIR/old-N and WORKDIR/new-N, so that drift in the guest hits both
# alike.  BENCH_ROWS and BENCH_REPS as run-bench.sh takes them (here by
# default the RDMA write/read rows at 64 B and 4 KiB and the atomics).
# Then test/bench/lat-pairs.awk over WORKDIR/*/runs.tsv gives each row's
# DAT - perftest gap per pair.  Run it in the guest, e.g.
#   flock /tmp/dat-guest.lock env VM_SMP=4 test/vm/run.sh -t 2400 -- \
#       test/bench/lat-oldnew.sh /tmp/oldmain build/bench-X
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OLD=${1:?usage: lat-oldnew.sh OLDTOP WORKDIR}
D=${2:?usage: lat-oldnew.sh OLDTOP WORKDIR}
mkdir -p "$D"
export BENCH_PARTS=lat BENCH_REPS=${BENCH_REPS:-3}
export BENCH_ROWS=${BENCH_ROWS:-'^(write_lat|read_lat) .* (64|4096) [0-9]+$|^atomic'}
rc=0
for i in ${ALTS:-1 2}; do
	for v in old new; do
		if [ $v = old ]; then top=$OLD; else top=$TOP; fi
		echo "=== $v $i $(date -u +%T)"
		"$top/test/bench/run-bench.sh" "$D/$v-$i" > "$D/$v-$i.log" 2>&1 || rc=1
		echo "=== $v $i done $(date -u +%T)"
	done
done
exit $rc
