# SPDX-License-Identifier: BSD-3-Clause
# test/bench/bench.mk - `make bench`: DAT against raw verbs (perftest) on
# the same devices in the same run (issue 10; included by the Makefile),
# and DAT over libfabric against fi_pingpong natively (issue 16).
#
# datbench uses only the public API (<dat/udat.h>, -ldat); its raw-verbs
# twin for the callgrind instruction counts is hotpath-verbs (callgrind
# mode), the loop test/verbs/hotpath.bats holds the DAT path to; rawbench
# is the raw twin of its scaling figures (IA open, wake-up).  run-bench.sh
# does the runs (here when the machine has RDMA devices, else in one boot
# of the soft-RoCE guest) and writes test/bench/results/<date>.md and
# <date>.png.  Nothing here asserts timing.

DATBENCH := $(B)/test/bench/datbench
RAWBENCH := $(B)/test/bench/rawbench
BENCH_DATE ?= $(shell date +%Y-%m-%d)
BENCH_OUT ?= test/bench/results/$(BENCH_DATE)

$(DATBENCH): $(B)/test/bench/datbench.o $(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/bench/datbench.o -L$(B)/lib -ldat -lpthread

# report.sh's judging of a row, on synthetic runs (host suite)
HOST_BATS_SUITES += test/bench/report.bats test/bench/judge.bats

$(RAWBENCH): $(B)/test/bench/rawbench.o
	$(LINK) -o $@ $< -libverbs -lrdmacm -lpthread

# ofibench: datbench's rows on raw libfabric (issue 35), the DAT-over-
# libfabric rows' twin (run-bench-ofi.sh)
OFIBENCH := $(B)/test/bench/ofibench
$(OFIBENCH): $(B)/test/bench/ofibench.o
	$(LINK) -o $@ $< -lfabric
# built with the test programs: its host suite runs it natively, and
# datbench beside it (ofi-cg.sh's DAT loop)
test-programs: $(OFIBENCH) $(DATBENCH)
HOST_BATS_SUITES += test/bench/ofibench.bats

# The libfabric rows alone (issue 16): natively, no guest, into
# $(BENCH_OUT)-ofi.md (test/bench/run-bench-ofi.sh says how).
.PHONY: bench-ofi
bench-ofi: bench-programs
	@mkdir -p $(dir $(BENCH_OUT))
	test/bench/run-bench-ofi.sh $(BENCH_OUT)-ofi.md

# connbench: a first exchange (connect, accept, a send each way) through
# DAT, per fabric (issue 35 item 4; run-bench-ofi.sh)
CONNBENCH := $(B)/test/bench/connbench
$(CONNBENCH): $(B)/test/bench/connbench.o $(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/bench/connbench.o -L$(B)/lib -ldat

.PHONY: bench-programs bench-deps
bench-programs: all $(DATBENCH) $(RAWBENCH) $(OFIBENCH) $(CONNBENCH) \
	$(HOTPATH_VERBS)

# gnuplot draws the PNGs, rdmacm-utils has rsocket's rstream, time (GNU
# time) and util-linux (taskset) time and pin each side; only the
# benchmark needs them.
bench-deps:
	sh scripts/deps.sh gnuplot-nox perftest valgrind rdmacm-utils time util-linux

# In the guest: 4 vCPUs where the host has 4 cores or more, so that two
# spinning processes leave one for rxe's kernel work; else 2, each side
# pinned to its own (run-bench.sh).  More vCPUs than host cores, all busy,
# slow a run down by phases of 10-60 ms, on both stacks
# (results/2026-11-27-phases.md); with 2 vCPUs pinned on a 2-core host
# there were none (results/2026-11-27-smp2.md).  (Unpinned, 2 vCPUs made
# a ping-pong wait out scheduler ticks: 4 ms steps.)
BENCH_VM_SMP = $(shell n=$$(nproc); [ "$$n" -ge 4 ] && echo 4 || echo 2)
bench: bench-deps bench-programs
	@mkdir -p $(dir $(BENCH_OUT))
	@echo "=== DAT over libfabric (ofi-tcp, shm) against fi_pingpong, natively"
	test/bench/run-bench-ofi.sh $(BENCH_OUT)-ofi.md
	@if [ -n "$$(ls /sys/class/infiniband 2>/dev/null)" ]; then \
		test/bench/run-bench.sh $(B)/bench; \
	else \
		echo "=== no RDMA device here: running the benchmark in the soft-RoCE guest"; \
		VM_SMP=$${VM_SMP:-$(BENCH_VM_SMP)} test/vm/run.sh -t $${VM_TIMEOUT:-2400} -- \
			test/bench/run-bench.sh $(B)/bench; \
	fi
	test/bench/report.sh $(B)/bench $(BENCH_OUT)
