# Manual pages (man3/, man5/, man8/), the datadm admin tool, and the
# install/uninstall of both; included by the main Makefile.
#
# The section 3 pages are generated from man/pages.py (one table entry per
# call) with `make man-pages`; the generated pages are kept in the tree so
# that a build needs no Python.  test/bats/manpages.bats lints them with
# mandoc and checks that every symbol libdat exports has one.

MANDIR  ?= $(PREFIX)/share/man
SBINDIR ?= $(EXEC_PREFIX)/sbin

MAN3_PAGES := $(sort $(wildcard man3/*.3))
MAN5_PAGES := man5/dat.conf.5
MAN8_PAGES := man8/datadm.8

# ---- datadm ----------------------------------------------------------------
# Links the registry's dat.conf parser statically: it reads dat.conf
# exactly as libdat does, and knows the same compiled-in location.
DATADM := $(B)/bin/datadm

$(B)/registry/datadm.o: ALL_CFLAGS += \
	-DDAT_SYSCONF_PATH='"$(SYSCONFDIR)/dat.conf"' \
	-DDAT_SYSCONF_DIR='"$(SYSCONFDIR)/dat.conf.d"'
$(B)/registry/datadm.o: $(SYSCONF_STAMP)

$(DATADM): $(B)/registry/datadm.o $(B)/registry/conf.o \
		$(B)/registry/conf_file.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -ldl

test-programs: $(DATADM)

HOST_BATS_SUITES += test/bats/datadm.bats test/bats/manpages.bats

.PHONY: man-pages install-man install-datadm uninstall
man-pages:
	python3 man/gen.py man3

# ---- install, uninstall ----------------------------------------------------
install: install-man install-datadm

install-man:
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	install -m 644 $(MAN3_PAGES) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(MAN5_PAGES) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(MAN8_PAGES) $(DESTDIR)$(MANDIR)/man8/

install-datadm: $(DATADM)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 755 $(DATADM) $(DESTDIR)$(SBINDIR)/datadm

# Removes exactly what install installs, with one rule for dat.conf:
# it goes only if it is still byte for byte the sample that install
# copied; a dat.conf that was there before, or that an administrator or
# datadm changed since, stays (and uninstall says so).  Directories are
# left alone except include/dat, which is ours, when it is empty.
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(LIBDAT_SONAME) $(DESTDIR)$(LIBDIR)/libdat.so \
		$(DESTDIR)$(LIBDIR)/$(PROVIDER_SONAME) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/dat.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/dat/,$(notdir $(wildcard include/dat/*.h))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3_PAGES))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5_PAGES))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8_PAGES))) \
		$(DESTDIR)$(SBINDIR)/datadm
	[ ! -d $(DESTDIR)$(INCLUDEDIR)/dat ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/dat
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/dat.conf ]; then \
		if cmp -s dat.conf $(DESTDIR)$(SYSCONFDIR)/dat.conf; then \
			rm -f $(DESTDIR)$(SYSCONFDIR)/dat.conf; \
		else \
			echo "keeping $(DESTDIR)$(SYSCONFDIR)/dat.conf (not the installed sample)"; \
		fi; \
	fi
