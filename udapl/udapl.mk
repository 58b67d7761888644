# SPDX-License-Identifier: BSD-3-Clause
# The udapl object layer: its objects, which every provider links
# (UDAPL_OBJS, built by the main Makefile's pattern rule), and its host
# unit tests.

UDAPL_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard udapl/*.c)))

#
# test_udapl_evd drives the transport-independent state machines (handles,
# IA, PZ, LMR, EVD, CNO) through a fake struct dapl_ops; it links only the
# files that need no EP/CM code (stubs for the rest live in the test).
UDAPL_CORE_OBJS := $(addprefix $(B)/udapl/,handle.o ia.o pz.o lmr.o evd.o \
	evd_dequeue.o cno.o deadline.o rmr.o srq.o progress.o progress_thread.o \
	upcall.o ops.o process.o)

$(B)/test/unit/test_udapl_evd: $(B)/test/unit/test_udapl_evd.o \
		$(UDAPL_CORE_OBJS)
	$(LINK) -o $@ $^ -lpthread

HOST_TAP_TESTS += $(B)/test/unit/test_udapl_evd

# test_udapl_ep drives EP, DTO and CM (ep.c, ep_param.c, ep_ring.c, dto.c,
# cm.c, sp.c) the same way.
$(B)/test/unit/test_udapl_ep: $(B)/test/unit/test_udapl_ep.o \
		$(addprefix $(B)/udapl/,handle.o evd.o evd_dequeue.o lmr.o pz.o cno.o \
		deadline.o ep.o ep_param.o ep_ring.o dto.o cm.o sp.o ext.o \
		progress.o progress_thread.o upcall.o ops.o process.o)
	$(LINK) -o $@ $^ -lpthread

HOST_TAP_TESTS += $(B)/test/unit/test_udapl_ep

# The seam's rules for providers/ (test/seam/seam.bats), and the layers
# that call only downward (test/seam/layers.bats, issue 36).
HOST_BATS_SUITES += test/seam/seam.bats test/seam/layers.bats

# test_progress drives the progress engine (progress.c, progress_thread.c,
# upcall.c) on its own: fd watches, timers, deferred events, brackets and
# quiesce, polling, the pool of parked threads.
$(B)/test/unit/test_progress: $(B)/test/unit/test_progress.o \
		$(addprefix $(B)/udapl/,progress.o progress_thread.o upcall.o \
		handle.o process.o)
	$(LINK) -o $@ $^ -lpthread

HOST_TAP_TESTS += $(B)/test/unit/test_progress
