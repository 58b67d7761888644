/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EP's cookie rings: made and given up here (dapl_ep_ring_alloc,
 * dapl_ep_ring_release, for ep.c and ep_param.c through ep_int.h), with the
 * rings kept for completions still in a CQ.  Apart from ep.c because the
 * retired rings are state of their own (a list and its lock) that no
 * other EP code touches.
 *
 * Each EP owns two cookie rings (requests, receives).  A completion that
 * is still in a CQ when its EP is freed or reset must not touch freed
 * memory, so a ring with posts outstanding is not freed but retired: its
 * outstanding cookies lose their EP (the poller drops them) and the
 * memory stays until the provider is unloaded.
 */
#include <stdlib.h>

#include "udapl.h"
#include "ep_int.h"

/* ---- cookie rings ---- */

struct retired_ring {
	struct retired_ring *next;
	struct dapl_cookie *slot;
};

static void retired_forget(void);
static struct dapl_module_lock retired_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(retired_forget);
static struct retired_ring *retired;

/* In a forked child: the parent's rings stay where they are. */
static void retired_forget(void)
{
	retired = NULL;
}

void dapl_ep_release_retired(void)
{
	struct retired_ring *r;

	dapl_module_lock(&retired_lock);
	while ((r = retired)) {
		retired = r->next;
		free(r->slot);
		free(r);
	}
	dapl_module_unlock(&retired_lock);
}

/* A ring of ep's: every slot names ep from the start, so that a post
 * need not (only a retired ring's cookies lose it:
 * dapl_ep_ring_release). */
int dapl_ep_ring_alloc(struct dapl_cookie_ring *r, DAT_COUNT n,
		       struct dapl_ep *ep)
{
	uint32_t size = 1, i;

	while (size < (uint32_t)n)
		size <<= 1;
	r->slot = calloc(size, sizeof(*r->slot));
	if (!r->slot)
		return -1;
	for (i = 0; i < size; i++)
		r->slot[i].ep = ep;
	r->size = size;
	r->head = r->tail = 0;
	r->sig_mask = size > 1 ? (size >> 1) - 1 : 0;
	return 0;
}

/*
 * Gives up a ring: freed if nothing is outstanding, else its outstanding
 * cookies forget their EP and the memory is kept for the completions
 * that may still be in a CQ.
 */
void dapl_ep_ring_release(struct dapl_cookie_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	struct retired_ring *node;
	uint32_t i;

	if (!r->slot)
		return;
	if (r->head == tail) {
		free(r->slot);
		goto out;
	}
	for (i = tail; i != r->head; i++)
		__atomic_store_n(&r->slot[i & (r->size - 1)].ep, NULL,
				 __ATOMIC_RELEASE);
	node = malloc(sizeof(*node));
	if (node) { /* without it the ring leaks: better than a crash */
		node->slot = r->slot;
		dapl_module_lock(&retired_lock);
		node->next = retired;
		retired = node;
		dapl_module_unlock(&retired_lock);
	}
out:
	r->slot = NULL;
	r->size = r->head = r->tail = 0;
}
