# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/verbs.mk - the provider's verbs tests (included by the Makefile).
#
# dattest-verbs runs each test as a server process on rxe0-cma and a client
# process on rxe1-cma; the Bats suites below drive it inside the soft-RoCE
# guest (make check-verbs).  It uses only the public DAT API: -ldat.

VERBS_TEST := $(B)/test/verbs/dattest-verbs
VERBS_TEST_OBJS := $(addprefix $(B)/test/verbs/,vt_main.o vt_util.o vt_accept_dead.o vt_cm.o vt_cm_many.o \
	vt_cno_agent.o vt_dto.o vt_evd.o vt_graceful.o vt_legacy.o vt_lmr_life.o vt_order.o vt_passive.o vt_reuse.o vt_rmr_pz.o \
	atomic.o srq.o)

$(VERBS_TEST_OBJS): test/verbs/vt.h

$(VERBS_TEST): $(VERBS_TEST_OBJS) $(B)/lib/libdat.so
	$(LINK) -o $@ $(VERBS_TEST_OBJS) -L$(B)/lib -ldat -lpthread

test-programs: $(VERBS_TEST)

VERBS_SUITES += test/verbs/connect.bats test/verbs/rtu-lost.bats \
	test/verbs/dto.bats \
	test/verbs/evd.bats test/verbs/legacy.bats

# dattest-stress (test/verbs/stress.c): threads, EVD overflow and IA close
# ABRUPT under valgrind (issue 5), with the helpers of dattest-verbs.
STRESS_TEST := $(B)/test/verbs/dattest-stress
$(B)/test/verbs/stress.o: test/verbs/vt.h
$(STRESS_TEST): $(B)/test/verbs/stress.o $(B)/test/verbs/vt_util.o \
		$(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/verbs/stress.o $(B)/test/verbs/vt_util.o \
		-L$(B)/lib -ldat -lpthread

# hotpath-dat and hotpath-verbs (test/verbs/hotpath*.c): the same
# steady-state post/poll loop through DAT and through raw verbs, whose
# system calls (strace) and mallocs (counted inside the program) the
# hotpath suite compares.
HOTPATH_DAT := $(B)/test/verbs/hotpath-dat
HOTPATH_VERBS := $(B)/test/verbs/hotpath-verbs
$(B)/test/verbs/hotpath.o $(B)/test/verbs/hotpath_verbs.o: \
	test/verbs/hotpath.h
$(B)/test/verbs/hotpath.o: test/verbs/vt.h
$(HOTPATH_DAT): $(B)/test/verbs/hotpath.o $(B)/test/verbs/vt_util.o \
		$(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/verbs/hotpath.o $(B)/test/verbs/vt_util.o \
		-L$(B)/lib -ldat -lpthread
$(HOTPATH_VERBS): $(B)/test/verbs/hotpath_verbs.o
	$(LINK) -o $@ $(B)/test/verbs/hotpath_verbs.o -libverbs -lrdmacm

# The provider once more with udapl.h's helgrind annotations compiled in
# (-DDAPL_HELGRIND); only helgrind.bats loads it, through LD_LIBRARY_PATH.
HELGRIND_PROVIDER := $(B)/helgrind/lib/$(PROVIDER_SONAME)
HELGRIND_OBJS := $(patsubst $(B)/%,$(B)/helgrind/%,$(UDAPL_OBJS) $(CMA_OBJS) \
	$(VERBS_OBJS))
$(B)/helgrind/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DDAPL_HELGRIND -MMD -MP -c $< -o $@
$(HELGRIND_PROVIDER): $(HELGRIND_OBJS) providers/provider.map $(B)/lib/libdat.so
	@mkdir -p $(dir $@)
	$(LINK) -shared -Wl,-soname,$(PROVIDER_SONAME) \
		-Wl,--version-script=providers/provider.map -Wl,--no-undefined \
		-o $@ $(HELGRIND_OBJS) -L$(B)/lib -ldat $(LDLIBS_VERBS)

test-programs: $(STRESS_TEST) $(HOTPATH_DAT) $(HOTPATH_VERBS) \
	$(HELGRIND_PROVIDER)

VERBS_SUITES += test/verbs/stress.bats test/verbs/hotpath.bats \
	test/verbs/memcheck.bats test/verbs/helgrind.bats

# dattest-faults (test/verbs/faults.c): sloppy teardown, broken link, dead
# peer and fork, driven by faults.bats.  It shares vt_util.o's helpers.
FAULTS_TEST := $(B)/test/verbs/dattest-faults
FAULTS_OBJS := $(B)/test/verbs/faults.o $(B)/test/verbs/vt_util.o
$(B)/test/verbs/faults.o: test/verbs/vt.h
$(FAULTS_TEST): $(FAULTS_OBJS) $(B)/lib/libdat.so
	$(LINK) -o $@ $(FAULTS_OBJS) -L$(B)/lib -ldat -lpthread

test-programs: $(FAULTS_TEST)

# Its broken-link test leaves the bed as it found it (link_up in
# faults.bats re-creates rxe1: a soft-RoCE kernel bug, explained there).
VERBS_SUITES += test/verbs/faults.bats

# The bad-input matrix (issue 5): one row per DAT_PROVIDER slot and bad
# input, each asserting the exact DAT_RETURN; also run under valgrind.
BADINPUT_TEST := $(B)/test/verbs/dattest-badinput

$(BADINPUT_TEST): $(B)/test/verbs/badinput.o $(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/verbs/badinput.o -L$(B)/lib -ldat -lpthread

test-programs: $(BADINPUT_TEST)

VERBS_SUITES += test/verbs/badinput.bats

# Memory windows (issue 6): dattest-rmr (test/verbs/rmr.c) with the helpers
# of dattest-verbs, driven by rmr.bats.
RMR_TEST := $(B)/test/verbs/dattest-rmr
RMR_OBJS := $(B)/test/verbs/rmr.o $(B)/test/verbs/vt_util.o
$(B)/test/verbs/rmr.o: test/verbs/vt.h
$(RMR_TEST): $(RMR_OBJS) $(B)/lib/libdat.so
	$(LINK) -o $@ $(RMR_OBJS) -L$(B)/lib -ldat -lpthread

test-programs: $(RMR_TEST)

VERBS_SUITES += test/verbs/rmr.bats

# The atomic extension, SRQs and CR handoff (issue 7): tests in
# dattest-verbs (test/verbs/atomic.c, srq.c).
VERBS_SUITES += test/verbs/atomic.bats test/verbs/srq.bats

# dattest-compat (test/verbs/compat.c): issue 19's provider-created EPs,
# 64-bit qualifiers and OFA's tuning variables, one process with both
# IAs.  It defines ibv_create_qp (exported: -rdynamic) to find the
# provider's QPs and query them with ibv_query_qp.
COMPAT_TEST := $(B)/test/verbs/dattest-compat
$(B)/test/verbs/compat.o: test/verbs/vt.h
$(COMPAT_TEST): $(B)/test/verbs/compat.o $(B)/test/verbs/vt_util.o \
		$(B)/lib/libdat.so
	$(LINK) -rdynamic -o $@ $(B)/test/verbs/compat.o \
		$(B)/test/verbs/vt_util.o -L$(B)/lib -ldat -libverbs -ldl \
		-lpthread
test-programs: $(COMPAT_TEST)
VERBS_SUITES += test/verbs/compat.bats
# the provider-ep test over libfabric too (udapl makes the EPs)
OFI_SUITES += test/ofi/compat.bats

# Lossy links (issue 18): dattest-netem (test/verbs/netem.c), driven by
# netem.bats, which puts tc netem on the guest's veths.
NETEM_TEST := $(B)/test/verbs/dattest-netem
NETEM_OBJS := $(B)/test/verbs/netem.o $(B)/test/verbs/vt_util.o
$(B)/test/verbs/netem.o: test/verbs/vt.h
$(NETEM_TEST): $(NETEM_OBJS) $(B)/lib/libdat.so
	$(LINK) -o $@ $(NETEM_OBJS) -L$(B)/lib -ldat -lpthread

test-programs: $(NETEM_TEST)

VERBS_SUITES += test/verbs/netem.bats
