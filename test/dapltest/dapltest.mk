# SPDX-License-Identifier: BSD-3-Clause
# test/dapltest/dapltest.mk - dapltest, the conformance and performance
# runner (included by the Makefile).  It uses only the public API
# (<dat/udat.h>, -ldat): the registry and the provider, as any legacy
# application.  Installed as $(BINDIR)/dapltest1 with dapltest1(1).

DAPLTEST := $(B)/bin/dapltest
DAPLTEST_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard test/dapltest/*.c)))

$(DAPLTEST_OBJS): test/dapltest/dt.h test/dapltest/dt_func.h

$(DAPLTEST): $(DAPLTEST_OBJS) $(B)/lib/libdat.so
	@mkdir -p $(dir $@)
	$(LINK) -o $@ $(DAPLTEST_OBJS) -L$(B)/lib -ldat -lpthread

# Installed by make install: part of all.
all test-programs: $(DAPLTEST)

# The demo script (server on rxe1-cma, client from rxe0-cma) and the
# suites; make check-verbs runs them in the guest.
VERBS_SUITES += test/dapltest/dapltest.bats test/dapltest/demo.bats

.PHONY: install-dapltest uninstall-dapltest
# Installed as dapltest1 with dapltest1(1): Debian's dapl2-utils owns
# dapltest and its page (the Makefile's install section has the scheme).
DAPLTEST_INSTALLED := dapltest1
install-dapltest: $(DAPLTEST)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(DAPLTEST) $(DESTDIR)$(BINDIR)/$(DAPLTEST_INSTALLED)
	install -m 644 man1/dapltest.1 $(DESTDIR)$(MANDIR)/man1/$(DAPLTEST_INSTALLED).1
install: install-dapltest

uninstall-dapltest:
	rm -f $(DESTDIR)$(BINDIR)/$(DAPLTEST_INSTALLED) \
		$(DESTDIR)$(MANDIR)/man1/$(DAPLTEST_INSTALLED).1
uninstall: uninstall-dapltest

# dapltest's command line (OFA's lines, the default IA) on the host
HOST_BATS_SUITES += test/dapltest/cmdline.bats
