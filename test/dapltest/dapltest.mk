# test/dapltest/dapltest.mk - dapltest, the conformance and performance
# runner (included by the Makefile).  It uses only the public API
# (<dat/udat.h>, -ldat): the registry and the provider, as any legacy
# application.  Installed as $(PREFIX)/bin/dapltest with dapltest(1).

MANDIR ?= $(PREFIX)/share/man
DAPLTEST := $(B)/bin/dapltest
DAPLTEST_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard test/dapltest/*.c)))

$(DAPLTEST_OBJS): test/dapltest/dt.h test/dapltest/dt_func.h

$(DAPLTEST): $(DAPLTEST_OBJS) $(B)/lib/libdat.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(DAPLTEST_OBJS) -L$(B)/lib -ldat -lpthread

# installed (install-dapltest): plain make builds it
all: $(DAPLTEST)

# The demo script (server on rxe1-cma, client from rxe0-cma) and the
# suites; make check-verbs runs them in the guest.
VERBS_SUITES += test/dapltest/dapltest.bats test/dapltest/demo.bats

.PHONY: install-dapltest
install-dapltest: $(DAPLTEST)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(DAPLTEST) $(DESTDIR)$(PREFIX)/bin/dapltest
	install -m 644 man1/dapltest.1 $(DESTDIR)$(MANDIR)/man1/dapltest.1
install: install-dapltest

.PHONY: uninstall-dapltest
uninstall-dapltest:
	rm -f $(DESTDIR)$(PREFIX)/bin/dapltest $(DESTDIR)$(MANDIR)/man1/dapltest.1
uninstall: uninstall-dapltest
