# Manual pages (man3/, man5/, man8/) and their install; included by the
# main Makefile.  (datadm is registry/registry.mk's, uninstall the
# Makefile's.)
#
# The section 3 pages are generated from man/pages.py (one table entry per
# call) with `make man-pages`; the generated pages are kept in the tree so
# that a build needs no Python.  test/bats/manpages.bats lints them with
# mandoc and checks that every symbol libdat exports has one.

MANDIR  ?= $(PREFIX)/share/man

MAN3_PAGES := $(sort $(wildcard man3/*.3))
MAN5_PAGES := man5/dat.conf.5
MAN8_PAGES := man8/datadm.8

HOST_BATS_SUITES += test/bats/manpages.bats

.PHONY: man-pages install-man
man-pages:
	python3 man/gen.py man3

# ---- install ----------------------------------------------------
install: install-man

install-man:
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	install -m 644 $(MAN3_PAGES) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(MAN5_PAGES) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(MAN8_PAGES) $(DESTDIR)$(MANDIR)/man8/
