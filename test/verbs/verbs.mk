# test/verbs/verbs.mk - the provider's verbs tests (included by the Makefile).
#
# dattest-verbs runs each test as a server process on rxe0-cma and a client
# process on rxe1-cma; the Bats suites below drive it inside the soft-RoCE
# guest (make check-verbs).  It uses only the public DAT API: -ldat.

VERBS_TEST := $(B)/test/verbs/dattest-verbs
VERBS_TEST_OBJS := $(addprefix $(B)/test/verbs/,vt_main.o vt_util.o vt_cm.o \
	vt_dto.o vt_evd.o vt_legacy.o)

$(VERBS_TEST_OBJS): test/verbs/vt.h

$(VERBS_TEST): $(VERBS_TEST_OBJS) $(B)/lib/libdat.so
	$(CC) -o $@ $(VERBS_TEST_OBJS) -L$(B)/lib -ldat -lpthread

test-programs: $(VERBS_TEST)

VERBS_SUITES += test/verbs/connect.bats test/verbs/dto.bats \
	test/verbs/evd.bats test/verbs/legacy.bats
