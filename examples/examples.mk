# SPDX-License-Identifier: BSD-3-Clause
# examples/examples.mk - small commented programs to copy from (included by
# the Makefile).  Built by make (part of all); examples.bats runs each as
# a server and a client in make check-verbs.  They use only the public API
# (<dat/udat.h>, -ldat), as an application would; example.c holds the
# steps they share.

EXAMPLES := $(addprefix $(B)/examples/,pingpong rdma_write mw_bind fetch_add)
EXAMPLE_COMMON := $(B)/examples/example.o

$(EXAMPLE_COMMON) $(EXAMPLES:=.o): examples/example.h

$(B)/examples/%: $(B)/examples/%.o $(EXAMPLE_COMMON) $(B)/lib/libdat.so
	$(LINK) -o $@ $< $(EXAMPLE_COMMON) -L$(B)/lib -ldat

.PHONY: examples
examples: $(EXAMPLES)
all: examples

VERBS_SUITES += examples/examples.bats

# Their sources go to $(DOCDIR)/examples, for people to copy from (the
# man3 pages' EXAMPLES sections point there).
EXAMPLE_SOURCES := $(sort $(wildcard examples/*.c examples/*.h))
.PHONY: install-examples uninstall-examples
install: install-examples
install-examples:
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 644 $(EXAMPLE_SOURCES) $(DESTDIR)$(DOCDIR)/examples/

uninstall: uninstall-examples
uninstall-examples:
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(notdir $(EXAMPLE_SOURCES)))
	[ ! -d $(DESTDIR)$(DOCDIR)/examples ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DOCDIR)/examples
	[ ! -d $(DESTDIR)$(DOCDIR) ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(DOCDIR)
