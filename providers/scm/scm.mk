# SPDX-License-Identifier: BSD-3-Clause
# providers/scm/scm.mk - libdaplscm.so.1, the verbs provider whose
# connection manager is a TCP socket per connection (compat-dapl's
# OpenIB-<device>-<port> entries; included by the Makefile).
#
# udapl's objects, the socket CM (providers/scm) and the verbs archive
# (providers/verbs/verbs.mk), as libdaplcma.so.1 is made.  No rdma_cm:
# only libibverbs.

SCM_SONAME := libdaplscm.so.1
SCM_PROVIDER := $(B)/lib/$(SCM_SONAME)
SCM_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard providers/scm/*.c)))
LDLIBS_SCM := -libverbs -lpthread

all: $(SCM_PROVIDER)
provider: $(SCM_PROVIDER)

$(SCM_OBJS): providers/scm/scm.h providers/scm/wire.h

$(SCM_PROVIDER): $(UDAPL_OBJS) $(SCM_OBJS) $(VERBS_LIB) \
		providers/provider.map $(B)/lib/libdat.so
	$(LINK) -shared -Wl,-soname,$(SCM_SONAME) \
		-Wl,--version-script=providers/provider.map -Wl,--no-undefined \
		-o $@ $(UDAPL_OBJS) $(SCM_OBJS) $(VERBS_LIB) -L$(B)/lib -ldat \
		$(LDLIBS_SCM)

.PHONY: install-scm uninstall-scm
install-scm: $(SCM_PROVIDER)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 $(SCM_PROVIDER) $(DESTDIR)$(LIBDIR)/$(SCM_SONAME)
install: install-scm

uninstall-scm:
	rm -f $(DESTDIR)$(LIBDIR)/$(SCM_SONAME)
uninstall: uninstall-scm

# test_scm_wire (host): the socket CM's messages, encoded and decoded,
# and every kind of bad input the parser must refuse (wire.c is pure).
$(B)/test/unit/test_scm_wire: $(B)/test/unit/test_scm_wire.o \
		$(B)/providers/scm/wire.o
	$(LINK) -o $@ $^
HOST_TAP_TESTS += $(B)/test/unit/test_scm_wire

# replay_scm_wire (host): the fuzz target test/fuzz/fuzz_scm_wire.c over
# its seed corpus with plain gcc (make check-host); make fuzz runs it
# under libFuzzer (test/fuzz/run-fuzz.sh).
$(B)/test/fuzz/replay_scm_wire: $(B)/test/fuzz/fuzz_scm_wire.o \
		$(B)/test/fuzz/replay.o $(B)/providers/scm/wire.o
	$(LINK) -o $@ $^
TEST_BINS += $(B)/test/fuzz/replay_scm_wire

# scm-peer (test/verbs/scm_peer.c): what answers, or calls, where a
# socket CM should and is none, for scm.bats; wire.c encodes the REQ it
# cuts short.
SCM_PEER := $(B)/test/verbs/scm-peer
$(B)/test/verbs/scm_peer.o: providers/scm/wire.h
$(SCM_PEER): $(B)/test/verbs/scm_peer.o $(B)/providers/scm/wire.o
	$(LINK) -o $@ $^
test-programs: $(SCM_PEER)

# In the guest, over OpenIB-rxe0-1 and OpenIB-rxe1-1 (test/lib/
# check-verbs.sh: a group whose name begins with scm runs over them),
# each group in one bats process.
#   make check (check-verbs): scm.bats, the socket CM's own cases (2 min
#     of the guest), and dapltest's transaction, performance and
#     functional tests and make demo's script (dapltest.bats, demo.bats:
#     DAPLTEST_* and DEMO_SERVER_IA/CLIENT_IA).
#   make check-verbs-scm: those and the verbs suites that are not about
#     rdma_cm, whose programs take their IAs from DATTEST_SERVER_IA /
#     DATTEST_CLIENT_IA (data transfer, atomics, SRQ, memory windows,
#     EVDs and CNOs, the legacy MPI sequence, threads and overflow, the
#     hot path, IA close ABRUPT under valgrind, the bad-input matrix,
#     dead peers and fork, netem's 1 % and 5 % loss, the examples), in
#     one lane (no VERBS_LANES: netem changes the links under everything
#     that runs).  Their paths are the verbs glue's, which make check
#     runs over cma; with the first four the group took nearly 5 minutes
#     of the guest under make check's load (clean-clone make check 17
#     min 34 s, 4168058).  Not faults.bats' broken link nor netem's 100 %
#     loss: the socket CM's TCP between 10.77.0.1 and 10.77.0.2 runs over
#     the guest's loopback, not the veths, so there a dead data path
#     leaves the CM alive and the side whose QP fails first tells the
#     other (a DREQ: DISCONNECTED, its writes flushed), where those tests
#     want each side's own QP to fail (BROKEN), as between two hosts.
SCM_VERBS_DT := \
	'scmdt=test/dapltest/dapltest.bats,test/dapltest/demo.bats:transaction test, validated: 3|performance test|functional suite|functional rmr and atomic groups: every|make demo'
SCM_VERBS_SUITES := scm=test/verbs/scm.bats $(SCM_VERBS_DT)
VERBS_SUITES += $(SCM_VERBS_SUITES)

.PHONY: check-verbs-scm
check-verbs-scm: WERROR = 1
check-verbs-scm: test-programs
	CHECK_VERBS_TARGET=check-verbs-scm test/lib/check-verbs.sh \
		"$(RESULTS)/verbs-scm" "$(TESTS)" \
		scm=test/verbs/scm.bats,test/verbs/dto.bats,test/verbs/atomic.bats,test/verbs/srq.bats,test/verbs/rmr.bats,test/verbs/evd.bats,test/verbs/legacy.bats,test/verbs/stress.bats,test/verbs/hotpath.bats,test/verbs/memcheck.bats,test/verbs/badinput.bats,examples/examples.bats \
		'scmlinks=test/verbs/faults.bats,test/verbs/netem.bats:sloppy teardown|dead peer|fork|1% loss|5% loss' \
		$(SCM_VERBS_DT)
	test/lib/summary.sh $(RESULTS)/verbs-scm
