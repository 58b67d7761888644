# uDAPL 1.2: libdat.so.1, its headers, and the project's tests.
# GNU Make.  See README.md for the targets.

PREFIX     ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
LIBDIR     ?= $(EXEC_PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
SYSCONFDIR ?= $(PREFIX)/etc
DESTDIR    ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
# Objects of shared libraries and everything linked with them.
ALL_CFLAGS := -std=gnu11 $(WARN) -fPIC -Iinclude $(CFLAGS)
LDLIBS_DAT := -lpthread -ldl

B := build
RESULTS := $(B)/test-results
SYSCONF_STAMP := $(B)/sysconfdir.stamp

LIBDAT_SONAME := libdat.so.1
LIBDAT := $(B)/lib/$(LIBDAT_SONAME)
LIBDAT_OBJS := $(addprefix $(B)/,dat/api.o dat/ia.o dat/strerror.o \
	registry/conf.o registry/conf_file.o registry/debug.o registry/dynamic_registry.o \
	registry/registry.o registry/static_registry.o)

# The verbs provider: the shared object layer (udapl/) and the verbs and
# rdma_cm glue (providers/cma/), installed as the compat-dapl name.
PROVIDER_SONAME := libdaplcma.so.1
PROVIDER := $(B)/lib/$(PROVIDER_SONAME)
UDAPL_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard udapl/*.c)))
CMA_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard providers/cma/*.c)))
LDLIBS_VERBS := -libverbs -lrdmacm -lpthread

TEST_PROVIDER := $(B)/test/libdattest.so.1
TEST_BINS := $(B)/test/dattest $(B)/test/unit/test_conf \
	$(B)/test/unit/test_registry_set \
	$(B)/test/unit/test_abi_layout $(B)/test/fuzz/replay_conf

# Fragments of the areas that add their own programs and tests: C unit
# tests that speak TAP go to HOST_TAP_TESTS, host Bats suites to
# HOST_BATS_SUITES, Bats suites that need RDMA devices to VERBS_SUITES.
.DEFAULT_GOAL := all
HOST_TAP_TESTS :=
HOST_BATS_SUITES :=
VERBS_SUITES := test/vm/selftest.bats
-include $(wildcard udapl/udapl.mk providers/cma/cma.mk test/verbs/verbs.mk \
	man/man.mk test/dapltest/dapltest.mk test/bench/bench.mk)

.PHONY: all check check-host check-verbs demo bench fuzz install clean \
	test-programs provider run-host-suites
all: $(LIBDAT) $(B)/lib/libdat.so $(PROVIDER)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(B)/registry/static_registry.o: ALL_CFLAGS += \
	-DDAT_SYSCONF_PATH='"$(SYSCONFDIR)/dat.conf"' \
	-DDAT_SYSCONF_DIR='"$(SYSCONFDIR)/dat.conf.d"'

# The compiled-in dat.conf location follows SYSCONFDIR: a stamp that
# changes with it rebuilds what embeds it (make install SYSCONFDIR=/etc
# after a plain make must not install a library that looks elsewhere).
$(SYSCONF_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(SYSCONFDIR)' | cmp -s - $@ || echo '$(SYSCONFDIR)' > $@
$(B)/registry/static_registry.o: $(SYSCONF_STAMP)
.PHONY: FORCE
FORCE:

$(LIBDAT): $(LIBDAT_OBJS) dat/libdat.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(LIBDAT_SONAME) \
		-Wl,--version-script=dat/libdat.map -Wl,--no-undefined \
		-o $@ $(LIBDAT_OBJS) $(LDLIBS_DAT)

$(B)/lib/libdat.so: $(LIBDAT)
	ln -sf $(LIBDAT_SONAME) $@

# A provider links libdat.so.1 itself, so that it loads even when the
# application opened libdat with RTLD_LOCAL, and exports only
# dat_provider_init and dat_provider_fini.
provider: $(PROVIDER)
$(PROVIDER): $(UDAPL_OBJS) $(CMA_OBJS) providers/provider.map $(B)/lib/libdat.so
	$(CC) -shared -Wl,-soname,$(PROVIDER_SONAME) \
		-Wl,--version-script=providers/provider.map -Wl,--no-undefined \
		-o $@ $(UDAPL_OBJS) $(CMA_OBJS) -L$(B)/lib -ldat $(LDLIBS_VERBS)

# ---- test programs -------------------------------------------------------
test-programs: all $(TEST_PROVIDER) $(TEST_BINS) $(HOST_TAP_TESTS)

$(TEST_PROVIDER): $(B)/test/provider/dattest_provider.o \
		test/provider/provider.map $(B)/lib/libdat.so
	$(CC) -shared -Wl,-soname,libdattest.so.1 \
		-Wl,--version-script=test/provider/provider.map \
		-Wl,--no-undefined -o $@ $< -L$(B)/lib -ldat

$(B)/test/dattest: $(B)/test/dattest.o $(B)/lib/libdat.so
	$(CC) -o $@ $< -L$(B)/lib -ldat -lpthread

$(B)/test/unit/test_conf: $(B)/test/unit/test_conf.o $(B)/registry/conf.o
	$(CC) -o $@ $^

$(B)/test/unit/test_registry_set: $(B)/test/unit/test_registry_set.o \
		$(B)/lib/libdat.so
	$(CC) -o $@ $< -L$(B)/lib -ldat

$(B)/test/unit/test_abi_layout: $(B)/test/unit/test_abi_layout.o
	$(CC) -o $@ $^

$(B)/test/fuzz/replay_conf: $(B)/test/fuzz/fuzz_conf.o \
		$(B)/test/fuzz/replay.o $(B)/registry/conf.o
	$(CC) -o $@ $^

# ---- tests ---------------------------------------------------------------
# Every suite writes TAP to $(RESULTS)/<part>/<suite>.tap through
# test/lib/run-suite.sh; test/lib/summary.sh adds them up into the one
# line "N passed, N failed, N skipped" and fails if anything failed.
RUN_SUITE = test/lib/run-suite.sh
HOST_ENV = LD_LIBRARY_PATH=$(CURDIR)/$(B)/lib:$(CURDIR)/$(B)/test \
	DATTEST_BUILD=$(CURDIR)/$(B)

check-host: test-programs
	rm -rf $(RESULTS)/host
	$(MAKE) --no-print-directory run-host-suites
	test/lib/summary.sh $(RESULTS)/host

run-host-suites:
	$(RUN_SUITE) $(RESULTS)/host abi-layout plain $(B)/test/unit/test_abi_layout
	$(foreach t,$(HOST_TAP_TESTS),$(RUN_SUITE) $(RESULTS)/host $(notdir $(t)) tap $(t) &&) :
	$(RUN_SUITE) $(RESULTS)/host conf-parser tap $(B)/test/unit/test_conf
	$(RUN_SUITE) $(RESULTS)/host registry-set tap env $(HOST_ENV) \
		$(B)/test/unit/test_registry_set
	$(RUN_SUITE) $(RESULTS)/host fuzz-corpus plain \
		$(B)/test/fuzz/replay_conf test/fuzz/corpus
	$(RUN_SUITE) $(RESULTS)/host libdat tap env $(HOST_ENV) \
		bats --tap test/bats/libdat.bats
	$(RUN_SUITE) $(RESULTS)/host registry tap env $(HOST_ENV) \
		bats --tap test/bats/registry.bats
	$(RUN_SUITE) $(RESULTS)/host valgrind tap env $(HOST_ENV) \
		bats --tap test/bats/valgrind.bats
	$(foreach s,$(HOST_BATS_SUITES),$(RUN_SUITE) $(RESULTS)/host \
		$(basename $(notdir $(s))) tap env $(HOST_ENV) \
		bats --tap $(s) &&) :

# Verbs suites: run here when the machine has RDMA devices (as inside the
# soft-RoCE guest), else in one boot of the guest (test/vm/).
TESTS ?=
# Last of all: suites that leave the bed unusable (none now; faults.bats
# restores rxe1 after its link flap).
FINAL_VERBS_SUITES :=
check-verbs: test-programs
	test/lib/check-verbs.sh "$(RESULTS)/verbs" "$(TESTS)" $(VERBS_SUITES) $(FINAL_VERBS_SUITES)
	test/lib/summary.sh $(RESULTS)/verbs

check: test-programs
	rm -rf $(RESULTS)
	$(MAKE) --no-print-directory run-host-suites
	test/lib/check-verbs.sh "$(RESULTS)/verbs" "$(TESTS)" $(VERBS_SUITES) $(FINAL_VERBS_SUITES)
	test/lib/summary.sh $(RESULTS)

# ---- demo, fuzzing -------------------------------------------------------
# dapltest's demo (test/dapltest/run-demo.sh): here when the machine has
# RDMA devices, else in one boot of the soft-RoCE guest.
demo: test-programs
	@if [ -n "$$(ls /sys/class/infiniband 2>/dev/null)" ]; then \
		test/dapltest/run-demo.sh; \
	else \
		echo "=== no RDMA device here: running the demo in the soft-RoCE guest"; \
		test/vm/run.sh -t $${VM_TIMEOUT:-900} -- test/dapltest/run-demo.sh; \
	fi

FUZZ_SECONDS ?= 60
fuzz:
	test/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# ---- install -------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/dat \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(SYSCONFDIR)
	install -m 755 $(LIBDAT) $(DESTDIR)$(LIBDIR)/$(LIBDAT_SONAME)
	install -m 755 $(PROVIDER) $(DESTDIR)$(LIBDIR)/$(PROVIDER_SONAME)
	ln -sf $(LIBDAT_SONAME) $(DESTDIR)$(LIBDIR)/libdat.so
	install -m 644 include/dat/*.h $(DESTDIR)$(INCLUDEDIR)/dat/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' dat.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/dat.pc
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/dat.conf ]; then \
		echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/dat.conf"; \
	else \
		install -m 644 dat.conf $(DESTDIR)$(SYSCONFDIR)/dat.conf; \
	fi

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
