/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The upcall brackets (dapl_upcall_begin/end) with the one wait,
 * dapl_progress_quiesce, that makes an object quiet before its memory is
 * recycled.  Apart from the engine (progress.c), which is one of their
 * users (it delivers a deferred connection event inside a bracket): a
 * transport brackets every upcall, from whichever thread makes it.  The
 * one reach into the engine here is dapl_progress_purge_ep, with which
 * the quiesce begins: it drops an EP's event from the engine's deferred
 * list (struct dapl_engine, progress_int.h).
 *
 * Upcall brackets: each object that gets upcalls (EP, service point, IA)
 * counts the brackets open for it (obj->upcalls) and refuses new ones
 * once it is closing (obj->closing); both under one global lock, since
 * an upcall may come from any IA's engine (a verbs device's async fd is
 * shared by its IAs).  A thread remembers the brackets it holds
 * (upcall_held), so a consumer that frees the object from inside its own
 * upcall does not wait for itself.  The wait has no time bound: it ends
 * when the bracket closes.
 */
#define _GNU_SOURCE
#include "progress_int.h"

enum {
	/* Upcall brackets one thread may hold at once (a device error is
	 * reported to each IA of the device). */
	UPCALL_HELD_MAX = 32,
};

static struct dapl_module_lock upcall_lock = DAPL_MODULE_LOCK_INITIALIZER;
static __thread const struct dapl_obj *upcall_held[UPCALL_HELD_MAX];

/* ---- upcall brackets ---------------------------------------------------- */

int dapl_upcall_begin(void *obj)
{
	struct dapl_obj *o = obj;
	int i, rc = -1;

	dapl_module_lock(&upcall_lock);
	for (i = 0; i < UPCALL_HELD_MAX; i++) {
		if (upcall_held[i])
			continue;
		if (!o->closing && o->magic == DAPL_MAGIC(o->type)) {
			o->upcalls++;
			upcall_held[i] = o;
			rc = 0;
		}
		break;
	}
	if (i == UPCALL_HELD_MAX)
		dapl_dbg(DAPL_DBG_ERR, "too many upcalls open in one thread");
	dapl_module_unlock(&upcall_lock);
	return rc;
}

void dapl_upcall_end(void *obj)
{
	struct dapl_obj *o = obj;
	int i;

	dapl_module_lock(&upcall_lock);
	for (i = 0; i < UPCALL_HELD_MAX; i++) {
		if (upcall_held[i] == o) {
			upcall_held[i] = NULL;
			o->upcalls--;
			break;
		}
	}
	pthread_cond_broadcast(&upcall_lock.cond);
	dapl_module_unlock(&upcall_lock);
}

/* upcall_lock: the brackets this thread holds for o. */
static uint32_t upcalls_of_self(const struct dapl_obj *o)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < UPCALL_HELD_MAX; i++)
		n += upcall_held[i] == o;
	return n;
}

void dapl_progress_purge_ep(struct dapl_ep *ep)
{
	struct dapl_engine *e = ep->obj.ia->engine;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	if (linked(&ep->defer_link))
		dapl_list_del(&ep->defer_link);
	pthread_mutex_unlock(&e->lock);
}

void dapl_progress_quiesce(void *obj)
{
	struct dapl_obj *o = obj;

	if (o->type == DAT_HANDLE_TYPE_EP)
		dapl_progress_purge_ep(obj);
	dapl_module_lock(&upcall_lock);
	o->closing = 1;
	while (o->upcalls > upcalls_of_self(o))
		pthread_cond_wait(&upcall_lock.cond, &upcall_lock.mutex);
	dapl_module_unlock(&upcall_lock);
}
