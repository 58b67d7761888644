# SPDX-License-Identifier: BSD-3-Clause
# test/soak/soak.mk - make soak (issue 18): dat-soak (test/soak/soak.c) run
# by test/soak/run-soak.sh for SOAK_MINUTES minutes (default 10) on the
# libfabric provider natively and on the verbs provider in the soft-RoCE
# guest.  Not part of make check.  SOAK_PROVIDERS=ofi (or verbs) runs one;
# SOAK_VALGRIND=1 runs both processes under valgrind memcheck.
SOAK_BIN := $(B)/test/soak/dat-soak
SOAK_PROVIDERS ?=

$(SOAK_BIN): $(B)/test/soak/soak.o $(B)/lib/libdat.so
	$(LINK) -o $@ $(B)/test/soak/soak.o -L$(B)/lib -ldat -lpthread

test-programs: $(SOAK_BIN)

.PHONY: soak
soak: all $(SOAK_BIN)
	test/soak/run-soak.sh $(SOAK_PROVIDERS)
