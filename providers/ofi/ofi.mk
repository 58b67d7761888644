# SPDX-License-Identifier: BSD-3-Clause
# providers/ofi/ofi.mk - the libfabric provider, libdaplofi.so.1, and its
# native test suites (make check-ofi; part of make check).
#
# It links the same udapl object layer as the verbs provider, and
# libfabric (Debian's libfabric-dev), not verbs.

OFI_SONAME := libdaplofi.so.1
OFI_PROVIDER := $(B)/lib/$(OFI_SONAME)
OFI_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard providers/ofi/*.c)))
LDLIBS_OFI := -lfabric -lpthread

all: $(OFI_PROVIDER)
provider: $(OFI_PROVIDER)

$(OFI_OBJS): $(wildcard providers/ofi/*.h)

$(OFI_PROVIDER): $(UDAPL_OBJS) $(OFI_OBJS) providers/provider.map \
		$(B)/lib/libdat.so
	$(LINK) -shared -Wl,-soname,$(OFI_SONAME) \
		-Wl,--version-script=providers/provider.map -Wl,--no-undefined \
		-o $@ $(UDAPL_OBJS) $(OFI_OBJS) -L$(B)/lib -ldat $(LDLIBS_OFI)

# The one-file test programs of test/ofi: dattest-ofi-NAME from
# test/ofi/NAME.c and the helpers of dattest-verbs (vt_util.c).
#   errors    failed DTOs over libfabric (errors.bats)
#   relisten  a PSP created again on its qualifier after the freed one's
#             endpoint closed (relisten.bats)
#   planted   shm: a file another user planted at a listener's name
#             (planted.bats)
#   qualspace 1,000 service points on qualifiers the host's other sockets
#             cannot take from them (qualspace.bats, issue 39)
#   shmhold   shm: kills a process while it holds a region's lock
#             (shm-dead.bats)
OFI_TEST_NAMES := errors relisten planted qualspace shmhold
OFI_TEST_PROGS := $(OFI_TEST_NAMES:%=$(B)/test/ofi/dattest-ofi-%)
$(OFI_TEST_NAMES:%=$(B)/test/ofi/%.o): test/verbs/vt.h
$(B)/test/ofi/dattest-ofi-%: $(B)/test/ofi/%.o $(B)/test/verbs/vt_util.o \
		$(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/ofi/$*.o $(B)/test/verbs/vt_util.o -L$(B)/lib \
		-ldat -lpthread
test-programs: $(OFI_TEST_PROGS)

.PHONY: install-ofi uninstall-ofi check-ofi run-ofi-suites
# (lane-ofi-% is not phony: make does not search pattern rules for
# phony targets; no file has such a name)
install-ofi: $(OFI_PROVIDER)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 $(OFI_PROVIDER) $(DESTDIR)$(LIBDIR)/$(OFI_SONAME)
install: install-ofi

uninstall-ofi:
	rm -f $(DESTDIR)$(LIBDIR)/$(OFI_SONAME)
uninstall: uninstall-ofi

# The DAT suites natively, once per fabric (OFI_FABRICS): tcp, libfabric's
# tcp;ofi_rxm on loopback, two IAs of the test registry (test/ofi/dat.conf),
# ofi-a on 127.0.0.1 and ofi-b on 127.0.0.2, a server process on one and a
# client on the other; shm, libfabric's shm, IAs ofi-shm-a and ofi-shm-b;
# tcpmsg, libfabric's tcp MSG endpoints, IAs ofi-msg-a and ofi-msg-b.
# Results go to $(RESULTS)/ofi/<fabric>/, test names begin with the fabric.
OFI_SUITES := test/ofi/connect.bats test/ofi/dto.bats test/ofi/evd.bats \
	test/ofi/cr_overflow.bats \
	test/ofi/ordering.bats test/ofi/faults.bats test/ofi/dapltest.bats \
	test/ofi/datadm.bats test/ofi/rmr.bats test/ofi/atomic.bats \
	test/ofi/errors.bats test/ofi/errors-stuck.bats test/ofi/badinput.bats test/ofi/memcheck.bats \
	test/ofi/memcheck-part2.bats \
	test/ofi/fork.bats test/ofi/passive.bats test/ofi/ia-table.bats \
	test/ofi/qualspace.bats

check-ofi: WERROR = 1
check-ofi: test-programs
	rm -rf $(RESULTS)/ofi
	$(MAKE) --no-print-directory run-ofi-suites WERROR=$(WERROR)
	test/lib/summary.sh $(RESULTS)/ofi

# Over shm since 2026-12-01, faults.bats: a peer SIGKILLed while it held
# the lock of a shm region of the connection left it locked and the
# survivor spun in fi_cq_read or fi_writemsg for ever (about 1 kill in
# 20); udapl's watchdog now gives such a lock back (shm_guard.c), and
# shm-dead.bats kills a peer at such a moment every time.
# Not over shm: cr_overflow.bats (the client crashes now and then in
# libfabric 1.17's shm smr_progress_connreq, which dereferences the NULL
# region of a peer that sent its first message and exited before it was
# read: see its head), errors-stuck.bats (over shm a read from a stopped
# target completes: shm reads the peer's memory itself).
# psp-gone.bats (a CR rejected after its PSP was freed must reach the
# client as PEER_REJECTED, and the PSP created meanwhile on its qualifier
# must get the next request) runs over tcp;ofi_rxm and shm since
# 2026-11-26, churn.bats (PSPs freed while requests arrive) over shm and
# over tcp (below):
#   tcp: no REQACK or REJECT reached the client for 1.3 s after the
#     listener's endpoint closed, so its resent REQs went on rxm's dead
#     connection and failed ENOTCONN (NON_PEER_REJECTED).  rxm reads an
#     endpoint's connection events only when its CQ read found nothing
#     or every 128 reads (FI_OFI_RXM_CQ_EQ_FAIRNESS): the dead
#     connection kept the client's reads finding something, and the
#     connection the server's IA opened to send its answers waited
#     (strace; the stall shrank with the setting).  init.c sets it to 1.
#   shm: the client's second request went to the freed listener's
#     region: shm keeps the first region it mapped for a name until the
#     address leaves the AV, and the new PSP's listener has a new one.
#     Removing and inserting the address again crashed libfabric 1.17's
#     shm (SIGSEGV in smr_generic_sendmsg on a NULL region, core of a
#     churn client).  A freed listener's endpoint now lingers 5 s, taken
#     over by a PSP created on its qualifier meanwhile (lep.c
#     ofi_lep_linger).  A qualifier listened on again after the linger
#     was still not reached by an IA that sent to it before (its connect
#     timed out; relisten.bats, shm only): the client now sends to a
#     listener whose region was made anew under a fresh alias of its
#     name (addr.c ofi_addr_dest).
# Over tcp since 2026-11-27, churn.bats: about 1 run in 20 hung until its
# bound (more often under load).  rxm's connection to the qualifier's
# address stayed CONNECTING for ever: every send to it was -FI_EAGAIN,
# the server saw none but our TCP probes, and every later connect to the
# qualifier timed out, also to the PSPs created on it next.  ss of a
# hung pair: the client's rxm socket ESTABLISHED to a server socket that
# held rxm's 56-byte connection request unread, and more server sockets
# on the port in CLOSE-WAIT (our probes), none of them read again:
# libfabric 1.17's tcp, closing a passive endpoint (the freed PSP's
# listener), leaves open the connections it accepted whose request it had
# not read yet, and rxm has no connect timeout.  (The "connection
# failure (sockerr -111)" seen before the hang is rxm connecting while no
# listener was there: it handles that, frees the connection and connects
# again.)  The client now starts rxm's connection anew once a REQ has
# waited 1 s in it (then 2, 4, 8 s, so that a listener slow to answer is
# not cut off for ever): it removes the address from the AV after
# inserting it
# once more, and with FI_AV_REMOVE_CLEANUP=1 (init.c) that closes rxm's
# connections to it; without that setting fi_av_remove leaves them
# (rxm-stuck.bats with the removal but without the setting: the removal
# ran 16 times, the socket stayed, the connect timed out), which is
# likely why removing and inserting the address did not help before (ctl.c
# ofi_rxm_unstick).  rxm-stuck.bats plays a listener that accepted and
# never answered with a plain TCP socket; with the provider of main before
# this (307e47b) its second connect TIMED_OUT, 3 of 3 runs (by hand: the
# suite's helpers put the tree's own library first), and so it does now
# with FI_AV_REMOVE_CLEANUP=0 in the environment.  The server's leaked
# sockets stay (libfabric's).  Measured 2026-11-27: churn.bats 50 of 50
# in a loop; under load (two loops at once, FI_LOG_LEVEL=debug) the
# old provider hung in the 1st and 3rd runs, this one passed 60 of 60
# (the restart was used in 5) and, in 135 runs before that (without the
# doubling), failed twice otherwise: the client found nobody in all its
# 24 tries and its last word was not answered as rejected (once the
# server heard it and passed, once it never heard it and ran into its
# bound); the client's rxm had not connected once, no restart was
# involved.  Not understood; not seen in the loop without load.
# stopped.bats (an RDMA write to a stopped target: when it completes) on
# the three native fabrics; over verbs rxe's kernel side takes the data.
OFI_SUITES_tcp = $(OFI_SUITES) test/ofi/psp-gone.bats test/ofi/churn.bats \
	test/ofi/rxm-stuck.bats test/ofi/setuid.bats test/ofi/dapltest-cli.bats \
	test/ofi/stopped.bats
OFI_SUITES_shm = $(filter-out \
	test/ofi/cr_overflow.bats test/ofi/errors-stuck.bats, $(OFI_SUITES)) \
	test/ofi/psp-gone.bats test/ofi/churn.bats test/ofi/relisten.bats \
	test/ofi/shm-sweep.bats test/ofi/shm-names.bats test/ofi/planted.bats \
	test/ofi/shm-dead.bats test/ofi/stopped.bats test/ofi/stopped-nocma.bats
# tcpmsg: libfabric's tcp alone, whose FI_EP_MSG connections the provider
# uses (msg.c), IAs ofi-msg-a and ofi-msg-b.  Not over tcpmsg:
# atomic.bats (tcp has no atomics: atomic-absent.bats checks that
# dat_ia_query says so and both calls are DAT_MODEL_NOT_SUPPORTED; the
# atomic cases of dapltest.bats and memcheck-part2.bats check the same),
# churn.bats: it passes its checks, but the server crashes now and then
# inside libfabric 1.17's tcp (fi_eq_read: an incoming connection that
# the passive endpoint accepted before fi_close reads the freed endpoint
# when its request arrives; newer libfabric aborts such connections at
# close).
OFI_SUITES_tcpmsg = $(filter-out test/ofi/atomic.bats, $(OFI_SUITES)) \
	test/ofi/atomic-absent.bats test/ofi/psp-gone.bats test/ofi/stopped.bats
# The other providers libfabric 1.17 has here (README.md: which
# libfabric providers), with the suite that covers the most for its
# time: every case of dapltest -T F (dapltest.bats: connections, every
# DTO, RDMA, windows, atomics, bad input).  rxd: udp;ofi_rxd, reliable
# datagrams over UDP (EFA's RDM semantics), IAs ofi-rxd-a/-b, 42 s;
# netrxm: net;ofi_rxm, 27 s; net: net's MSG endpoints, no atomics
# (ofi-net-a/-b), 11 s.  dto.bats passes on each too (by hand, 2026-11-29:
# 40, 31 and 14 s more).
OFI_SUITES_rxd = test/ofi/dapltest.bats test/ofi/passive.bats test/ofi/ia-table.bats
OFI_SUITES_netrxm = test/ofi/dapltest.bats test/ofi/passive.bats test/ofi/ia-table.bats
OFI_SUITES_net = test/ofi/dapltest.bats test/ofi/passive.bats test/ofi/ia-table.bats
OFI_FABRICS := tcp shm tcpmsg rxd netrxm net

# Over libfabric's verbs;ofi_rxm on rxe0/rxe1 (OFI_FABRIC=verbs, IAs of
# test/ofi/dat-verbs.conf): only in the soft-RoCE guest, by make
# check-verbs (test/lib/check-verbs.sh names these results
# ofi-verbs-<suite>).  Not over verbs:
#   errors-stuck.bats: rxm turns an RDMA read into a verbs RDMA read,
#     which rxe serves in the target's kernel: a stopped target process
#     does not stop it (as over shm).
#   qualspace.bats: its point is TCP's ephemeral ports, which rdma_cm's
#     port space is not; 1,000 rxm listeners over verbs under emulation
#     were not tried.
# Over verbs since 2026-11-27:
#   churn.bats: 12 of 14 runs passed before (two boots, the suite in a
#     loop; one client SIGSEGV).  Its pair in a loop in the guest, with
#     backtraces and a core: the server died in dat_psp_free (fi_close of
#     the listener's rxm endpoint, rxm_close_conn, rxm_handle_comp,
#     rxm_post_recv: 1 run of 13), and, once the control CQ was read
#     before a listener's close (ctl.c ofi_ctl_shut), the client in the
#     engine's fi_cq_read (rxm_conn_progress, rxm_process_shutdown of its
#     connection to a freed listener, rxm_close_conn, the same: 1 of
#     48).  libfabric 1.17's rxm closes a connection's verbs endpoint and
#     then reposts on it the buffer of a message still in its CQ, here a
#     credit message of verbs' flow control (init.c).  init.c gives verbs
#     IAs rxm's shared receive context (128 buffers): no flow control,
#     buffers reposted on the shared context; no crash in 223 runs of
#     the pair in four boots.  With it, a REQ sent on rxm's connection
#     to a freed listener is now and then canceled (rxm heard no end of
#     that connection; in 1 of 55 runs, and 2 of 19 with rxm's 4096
#     buffers, every REQ of the client's last word was); rdm.c
#     ofi_ctl_tx_failed renews the connection and the REQ goes again:
#     149 of 149 runs of the pair passed in two boots, and the suite in
#     two more.  Not understood, seen once before the shared context (1
#     of 48 runs): the client's last-word connect got no event in 117 s
#     (its timeout is 20 s); not seen since.
# Over verbs since 2026-11-26:
#   cr_overflow.bats: its client died of SIGSEGV now and then (1 run in
#     30 of the pair in one guest boot; core): after the server rejected
#     one request and exited, libfabric 1.17's rxm handled the end of
#     that connection (an rdma_cm event it reads from inside fi_send, here
#     of a control message held back) by closing the verbs endpoint and
#     only then handling the completions left in its CQ: the server's
#     message still there had its receive buffer posted again on the
#     closed endpoint.  init.c sets FI_OFI_RXM_COMP_PER_PROGRESS=64 for
#     verbs IAs, so that the engine's read of the control CQ, right
#     before it sends what was held back (progress.c), leaves no
#     completion behind; 30 runs in one boot then passed.  A message that
#     arrives between that read and the send still meets libfabric's bug.
#   dto.bats: its 1 MiB echo rounds crashed the server (SIGSEGV, every
#     run; cores from the guest): libfabric 1.17's rxm, closing an
#     endpoint, closes each connection's verbs endpoint first and then
#     handles what its CQ still holds; the peer's "read done" of a 1 MiB
#     rendezvous send, still unread there, had its receive buffer posted
#     again on the closed verbs endpoint.  The provider now waits, at the
#     peer's disconnect, until the sends the peer received completed
#     here, and reads an endpoint's CQs before it closes it (fep.c
#     ofi_ep_settle, ep.c ofi_ep_sends_pending).  The registration cache
#     (off, init.c) has no part in it.
#   badinput.bats, memcheck.bats, memcheck-part2.bats: valgrind reported
#     rdma-core's globals (librdmacm's ucma_init and ucma_init_device,
#     libibverbs' device cache, reached through libfabric's verbs
#     provider) as lost at exit, and uninitialised bytes that rdma_accept
#     copied from libfabric's stack into its command (--track-origins);
#     test/ofi/libfabric-verbs.supp suppresses exactly those,
#     each entry saying why it is not ours (OFI_VG_SUPP in
#     ofi_helpers.bash).
OFI_SUITES_verbs = $(filter-out test/ofi/errors-stuck.bats \
	test/ofi/qualspace.bats, $(OFI_SUITES)) \
	test/ofi/psp-gone.bats test/ofi/churn.bats
# make check runs over verbs only the suites that guard what is verbs's
# own (issue 34: with the whole list the guest ran past its 30 minutes
# under emulation in CI, with these 15; most of the list runs the
# provider's rxm paths that tcp;ofi_rxm runs natively): the crashes inside libfabric's verbs above
# (dto.bats's sizes up to 1 MiB, which rxm sends by rendezvous over
# verbs, and its 1 MiB echo rounds; cr_overflow.bats, churn.bats),
# atomics (verbs's own, not emulated) and a tcp IA beside a verbs IA
# (mixed.bats).  dto.bats's other cases (offsets, segments, shared
# LMRs, flags, flushes, legacy patterns: 80 s of the emulated guest) run
# the provider's generic paths, which tcp, shm and tcpmsg run natively.
# make check-ofi-verbs runs every suite of the list, whole, in one boot
# of the guest.
OFI_SUITES_verbs_check = \
	test/ofi/cr_overflow.bats test/ofi/atomic.bats test/ofi/churn.bats
# and, of the others, the DAT semantics issue 32 wants on every fabric:
# the README's row, and windows that belong to their PZ, CNO agents, the
# same status for the same event, a graceful disconnect's DTOs
# (graceful-sends, shared-evd-end; lmr-life is in dto.bats).  These and
# dto.bats's cases named above run in one bats process, picked by one
# filter (test/lib/check-verbs.sh GROUP=...:REGEX, quoted for the shell;
# result ofi-verbs-picked), which picks in each file the cases that
# file's own filter did (issue 34).
OFI_SUITES_verbs_check += test/ofi/ia-table.bats
OFI_VERBS_PICKED := 'picked=test/ofi/dto.bats,test/ofi/rmr.bats,test/ofi/evd.bats,test/ofi/connect.bats,test/ofi/errors.bats:send/recv of 1 B|40 rounds of a 1 MiB echo|lmr-life|rmr-pz|cno-agent|status-matrix|ended-kept|graceful-sends|shared-evd-end'
OFI_SUITES_verbs_check += $(OFI_VERBS_PICKED)
VERBS_SUITES += $(OFI_SUITES_verbs_check)
# one process with a tcp IA and a verbs IA: only where verbs is
VERBS_SUITES += test/ofi/mixed.bats

.PHONY: check-ofi-verbs
check-ofi-verbs: test-programs
	CHECK_VERBS_TARGET=check-ofi-verbs test/lib/check-verbs.sh \
		"$(RESULTS)/ofi-verbs" "$(TESTS)" $(OFI_SUITES_verbs) test/ofi/mixed.bats
	test/lib/summary.sh $(RESULTS)/ofi-verbs

# One lane per fabric (make check and check-ofi run NATIVE_JOBS of them
# at a time, Makefile run-native-suites): a fabric's suites one after the
# other, as some count or sweep what the fabric leaves behind (/dev/shm
# regions, a listener's port); the lanes of different fabrics share
# nothing that a test looks at, and no qualifier a test picks itself is
# one the kernel may hand another lane's socket (ofi_helpers.bash
# free_qual).
OFI_LANES := $(addprefix lane-ofi-,$(OFI_FABRICS))
run-ofi-suites:
	$(MAKE) --no-print-directory -j$(NATIVE_JOBS) WERROR=$(WERROR) $(OFI_LANES)

lane-ofi-%:
	@$(foreach s,$(OFI_SUITES_$*),RUN_SUITE_TAG=$* \
		$(RUN_SUITE) $(RESULTS)/ofi/$* \
		$(basename $(notdir $(s))) tap env $(HOST_ENV) OFI_FABRIC=$* \
		bats --tap --timing $(s) &&) :

# test_ofi_shm_sweep (host): the sweep of stale shm regions (shm_sweep.c)
# in a directory of its own; no libfabric call.
$(B)/test/unit/test_ofi_shm_sweep: $(B)/test/unit/test_ofi_shm_sweep.o \
		$(B)/providers/ofi/shm_sweep.o $(B)/udapl/handle.o \
		$(B)/udapl/process.o
	$(LINK) -o $@ $^ -lpthread
HOST_TAP_TESTS += $(B)/test/unit/test_ofi_shm_sweep

# test_ofi_keytab (host): the shm key table peers map (keytab.c), a view
# of it in this process and in a child; no libfabric call.
$(B)/test/unit/test_ofi_keytab: $(B)/test/unit/test_ofi_keytab.o \
		$(B)/providers/ofi/keytab.o $(B)/udapl/handle.o \
		$(B)/udapl/process.o
	$(LINK) -o $@ $^ -lpthread
HOST_TAP_TESTS += $(B)/test/unit/test_ofi_keytab

# test_ofi_spin (host): the engine's verdict on a spinning consumer
# (spin.h); no libfabric call.
$(B)/test/unit/test_ofi_spin: $(B)/test/unit/test_ofi_spin.o
	$(LINK) -o $@ $^
HOST_TAP_TESTS += $(B)/test/unit/test_ofi_spin

# test_ofi_shm_guard (host): a lock of a shm region whose holder died is
# given back (shm_guard.c), by udapl's watchdog (watchdog.c); regions laid
# out as libfabric 1.17's, no libfabric call.
$(B)/test/unit/test_ofi_shm_guard: $(B)/test/unit/test_ofi_shm_guard.o \
		$(B)/providers/ofi/shm_guard.o $(B)/providers/ofi/shm_sweep.o \
		$(B)/udapl/watchdog.o $(B)/udapl/handle.o $(B)/udapl/process.o
	$(LINK) -o $@ $^ -lpthread
HOST_TAP_TESTS += $(B)/test/unit/test_ofi_shm_guard
