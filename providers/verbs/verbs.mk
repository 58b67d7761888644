# SPDX-License-Identifier: BSD-3-Clause
# providers/verbs/verbs.mk - the verbs building blocks every verbs
# provider links (included by the Makefile before the providers' .mk).
#
# Built once as a static archive of PIC objects; a provider's link line
# names $(VERBS_LIB) and $(LDLIBS_VERBS).  Nothing here is a provider by
# itself: the connection manager (providers/cma) supplies ia_open and the
# hooks the glue calls, a struct verbs_cm_ops (verbs.h) it hands
# verbs_ia_open.

VERBS_OBJS := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard providers/verbs/*.c)))
VERBS_LIB := $(B)/providers/verbs/libdapl-verbs.a
LDLIBS_VERBS := -libverbs -lrdmacm -lpthread

$(VERBS_LIB): $(VERBS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $(VERBS_OBJS)
