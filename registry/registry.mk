# SPDX-License-Identifier: BSD-3-Clause
# registry/registry.mk - datadm, the dat.conf admin tool (included by the
# Makefile; libdat's own objects are the Makefile's LIBDAT_OBJS).
#
# datadm links the registry's dat.conf parser statically: it reads
# dat.conf exactly as libdat does, and knows the same compiled-in
# location.  Plain `make` builds it; its man page is man8/datadm.8.

DATADM := $(B)/bin/datadm

# datadm.c the command line and the changes, datadm_status.c the
# judgement of entries (-v, --check), datadm_file.c dat.conf read,
# locked and written.
DATADM_OBJS := $(B)/registry/datadm.o $(B)/registry/datadm_status.o \
	$(B)/registry/datadm_file.o

# All of them: each names the compiled-in files (conf.h's defaults
# would otherwise stand in silently).
$(DATADM_OBJS): private ALL_CFLAGS += \
	-DDAT_SYSCONF_PATH='"$(SYSCONFDIR)/dat.conf"' \
	-DDAT_SYSCONF_DIR='"$(SYSCONFDIR)/dat.conf.d"' \
	-DDAT_DEFAULT_CONF='"$(DAT_FALLBACK_CONF)"'
$(DATADM_OBJS): $(SYSCONF_STAMP)

# providers/ofi/select.o: the libfabric provider's choice of endpoints,
# by which datadm judges its entries.
$(DATADM): $(DATADM_OBJS) $(B)/registry/conf.o \
		$(B)/registry/conf_file.o $(B)/providers/ofi/select.o
	@mkdir -p $(dir $@)
	$(LINK) -o $@ $^ -ldl

# Installed by make install: part of all.
all test-programs: $(DATADM)

HOST_BATS_SUITES += test/bats/datadm.bats

.PHONY: install-datadm uninstall-datadm
install: install-datadm
install-datadm: $(DATADM)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 755 $(DATADM) $(DESTDIR)$(SBINDIR)/datadm
uninstall: uninstall-datadm
uninstall-datadm:
	rm -f $(DESTDIR)$(SBINDIR)/datadm


# The registry's suite that needs RDMA devices (check-verbs): libdat
# binding IAs to their entries through the verbs provider, and datadm -v
# and -u against the guest's rxe devices.
VERBS_SUITES += test/verbs/registry-verbs.bats
