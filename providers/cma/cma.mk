# providers/cma/cma.mk - libdaplcma.so.1, the verbs provider whose
# connection manager is rdma_cm (included by the Makefile).
#
# udapl's objects, the rdma_cm connection manager (providers/cma) and the
# verbs archive (providers/verbs/verbs.mk).  It links libdat.so.1 itself,
# so that it loads even when the application opened libdat with
# RTLD_LOCAL, and exports only dat_provider_init and dat_provider_fini.
# PROVIDER and PROVIDER_SONAME (its installed name) are the Makefile's.

CMA_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard providers/cma/*.c)))

provider: $(PROVIDER)
$(PROVIDER): $(UDAPL_OBJS) $(CMA_OBJS) $(VERBS_LIB) providers/provider.map \
		$(B)/lib/libdat.so
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(PROVIDER_SONAME) \
		-Wl,--version-script=providers/provider.map -Wl,--no-undefined \
		-o $@ $(UDAPL_OBJS) $(CMA_OBJS) $(VERBS_LIB) -L$(B)/lib -ldat \
		$(LDLIBS_VERBS)
