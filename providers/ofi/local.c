/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/local.c - shm: the endpoints this process has open.
 *
 * libfabric 1.17's shm reaches a peer endpoint of the same process
 * through that endpoint's own region (smr_map_to_region finds the name in
 * its process-wide list and takes the pointer), not through a mapping of
 * its own, and nothing tells it when that endpoint closes: the region is
 * unmapped, and the next send to the name dereferences it (SIGSEGV in
 * pthread_spin_lock: two shm IAs of one process connected to each other,
 * the listening one closed first, then the other's EP freed; issue 33).
 * And a connect to a listener of this process made again on the name of
 * one that had closed spun for ever inside shm (the second round of
 * dattest-verbs close-order: shm's list takes the first entry of a name,
 * which looks like the old one's).  So every shm endpoint we open is
 * listed here, and a
 * peer name that is one of them goes into an AV under an alias that
 * shm's list does not know (addr.c ofi_shm_insert): shm maps the region
 * file itself, a mapping that outlives the endpoint's close.  Under
 * ofi_global, which every endpoint open and close already holds.
 */
#include <stdlib.h>
#include <string.h>

#include "ofi.h"

struct ofi_local_ep {
	struct ofi_local_ep *next;
	size_t len;
	uint8_t name[OFI_ADDR_MAX];
};

static struct ofi_local_ep *ofi_local_eps;

/* ofi_global held: is any shm endpoint of ours open? */
int ofi_local_any(void)
{
	return ofi_local_eps != NULL;
}

/* ofi_global held: the endpoint just opened is named name */
void ofi_local_add(const void *name, size_t len)
{
	struct ofi_local_ep *l;

	if (!len || len > OFI_ADDR_MAX)
		return;
	l = calloc(1, sizeof(*l));
	if (!l)
		return; /* that endpoint's peers in this process use its name */
	l->len = len;
	memcpy(l->name, name, len);
	l->next = ofi_local_eps;
	ofi_local_eps = l;
}

/* ofi_global held: the endpoint named name closes */
void ofi_local_del(const void *name, size_t len)
{
	struct ofi_local_ep **pp, *l;

	for (pp = &ofi_local_eps; (l = *pp); pp = &l->next) {
		if (l->len == len && !memcmp(l->name, name, len)) {
			*pp = l->next;
			free(l);
			return;
		}
	}
}

/* Is name the name of an endpoint this process has open? */
int ofi_local_has(const void *name, size_t len)
{
	struct ofi_local_ep *l;
	int found = 0;

	ofi_global_enter();
	for (l = ofi_local_eps; l && !found; l = l->next)
		found = l->len == len && !memcmp(l->name, name, len);
	ofi_global_leave();
	return found;
}
