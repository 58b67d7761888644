# SPDX-License-Identifier: BSD-3-Clause
# The udapl object layer: its host unit test.  The objects themselves
# build through the main Makefile's pattern rule and go into the provider
# by wildcard.
#
# test_udapl_evd drives the transport-independent state machines (handles,
# IA, PZ, LMR, EVD, CNO) through a fake struct dapl_ops; it links only the
# files that need no EP/CM code (stubs for the rest live in the test).
UDAPL_CORE_OBJS := $(addprefix $(B)/udapl/,handle.o ia.o pz.o lmr.o evd.o \
	cno.o rmr.o srq.o)

$(B)/test/unit/test_udapl_evd: $(B)/test/unit/test_udapl_evd.o \
		$(UDAPL_CORE_OBJS)
	$(LINK) -o $@ $^ -lpthread

HOST_TAP_TESTS += $(B)/test/unit/test_udapl_evd

# test_udapl_ep drives EP, DTO and CM (ep.c, dto.c, cm.c) the same way.
$(B)/test/unit/test_udapl_ep: $(B)/test/unit/test_udapl_ep.o \
		$(addprefix $(B)/udapl/,handle.o evd.o lmr.o pz.o cno.o ep.o dto.o cm.o)
	$(LINK) -o $@ $^ -lpthread

HOST_TAP_TESTS += $(B)/test/unit/test_udapl_ep
