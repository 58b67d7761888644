/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles: allocation with a per-type magic, per-type free lists, the
 * consumer context calls and debug output.
 *
 * Freed objects are never given back to malloc while the provider is
 * loaded: the magic is cleared, the provider word kept, and the memory
 * parked on its type's free list.  A stale handle therefore still points
 * at readable memory whose first word dispatches into this provider and
 * whose magic no longer matches, so it gets DAT_INVALID_HANDLE.
 *
 * A freed block is reused only once FREE_QUARANTINE more blocks of its
 * type were freed after it (the lists are FIFO): a handle freed a moment
 * ago still meets a cleared magic even when a new object of its type is
 * made at once (a CR rejected while the engine takes the next request),
 * instead of silently naming the new one.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slots.h"

/* Every object's memory starts with a struct dapl_obj_hdr (udapl.h):
 * its link, and the size it was allocated with, so that a free-listed
 * block is reused only for a request it can hold. */
enum { FREE_QUARANTINE = 16 };

static void free_lists_forget(void);
static struct dapl_module_lock free_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(free_lists_forget);
static struct dapl_list free_list[DAPL_OBJ_TYPES];
static unsigned free_count[DAPL_OBJ_TYPES];
static int free_list_ready;
/* The parent's lists as a forked child found them (free_lists_forget). */
static struct dapl_list free_list_parent[DAPL_OBJ_TYPES] __attribute__((used));

/* In a forked child: the parent's parked blocks may be half unlinked;
 * the child starts with empty lists and leaves them be, but keeps
 * pointing at them, so that valgrind's leak check in a child that exits
 * without the library's destructor calls that memory reachable. */
static void free_lists_forget(void)
{
	if (free_list_ready)
		memcpy(free_list_parent, free_list, sizeof(free_list));
	memset(free_count, 0, sizeof(free_count));
	free_list_ready = 0;
}

static void free_lists_init(void)
{
	int t;

	if (free_list_ready)
		return;
	for (t = 0; t < DAPL_OBJ_TYPES; t++)
		dapl_list_init(&free_list[t]);
	free_list_ready = 1;
}

/* The oldest parked block of this type big enough for size, or NULL
 * while the type has no more than FREE_QUARANTINE parked. */
static struct dapl_obj *free_list_take(DAT_HANDLE_TYPE type, size_t size)
{
	struct dapl_list *pos, *tmp;
	struct dapl_obj *o = NULL;

	dapl_module_lock(&free_lock);
	free_lists_init();
	if (free_count[type] <= FREE_QUARANTINE) {
		dapl_module_unlock(&free_lock);
		return NULL;
	}
	dapl_list_for_each_safe(pos, tmp, &free_list[type])
	{
		struct dapl_obj *cand = dapl_obj_of_link(pos);

		if (dapl_obj_hdr(cand)->size >= size) {
			dapl_list_del(pos);
			free_count[type]--;
			o = cand;
			break;
		}
	}
	dapl_module_unlock(&free_lock);
	return o;
}

static void ia_objects_init(struct dapl_ia *ia)
{
	int t;

	pthread_mutex_init(&ia->lock, NULL);
	for (t = 0; t < DAPL_OBJ_TYPES; t++)
		dapl_list_init(&ia->objects[t]);
}

void *dapl_obj_alloc(struct dapl_ia *ia, DAT_HANDLE_TYPE type, size_t size)
{
	struct dapl_obj *o;
	struct dapl_obj_hdr *h;

	if ((unsigned)type >= DAPL_OBJ_TYPES || size < sizeof(*o))
		return NULL;
	o = free_list_take(type, size);
	if (o) {
		/* Everything but the provider word, which a racing stale
		 * dispatch may still be reading. */
		memset((char *)o + sizeof(o->provider), 0,
		       dapl_obj_hdr(o)->size - sizeof(o->provider));
	} else {
		h = calloc(1, sizeof(*h) + size);
		if (!h)
			return NULL;
		h->size = size;
		o = (struct dapl_obj *)(h + 1);
	}
	o->type = type;
	dapl_list_init(&dapl_obj_hdr(o)->link);
	if (type == DAT_HANDLE_TYPE_IA) {
		struct dapl_ia *self = (struct dapl_ia *)o;

		ia_objects_init(self);
		o->ia = self;
		dapl_list_add_tail(&self->objects[type],
				   &dapl_obj_hdr(o)->link);
	} else {
		o->ia = ia;
		o->provider = ia->obj.provider;
		pthread_mutex_lock(&ia->lock);
		dapl_list_add_tail(&ia->objects[type], &dapl_obj_hdr(o)->link);
		pthread_mutex_unlock(&ia->lock);
	}
	__atomic_store_n(&o->magic, DAPL_MAGIC(type), __ATOMIC_RELEASE);
	return o;
}

void dapl_obj_free(void *obj)
{
	struct dapl_obj *o = obj;
	struct dapl_ia *ia = o->ia;

	__atomic_store_n(&o->magic, 0, __ATOMIC_RELEASE);
	if (o->type == DAT_HANDLE_TYPE_IA || !ia) {
		dapl_list_del(&dapl_obj_hdr(o)->link);
	} else {
		pthread_mutex_lock(&ia->lock);
		dapl_list_del(&dapl_obj_hdr(o)->link);
		pthread_mutex_unlock(&ia->lock);
	}
	/* the same link, now in the free list */
	dapl_module_lock(&free_lock);
	free_lists_init();
	dapl_list_add_tail(&free_list[o->type], &dapl_obj_hdr(o)->link);
	free_count[o->type]++;
	dapl_module_unlock(&free_lock);
}

void dapl_obj_release_all(void)
{
	struct dapl_list *pos, *tmp;
	int t;

	dapl_module_lock(&free_lock);
	free_lists_init();
	for (t = 0; t < DAPL_OBJ_TYPES; t++) {
		dapl_list_for_each_safe(pos, tmp, &free_list[t])
		{
			dapl_list_del(pos);
			free(dapl_obj_hdr(dapl_obj_of_link(pos)));
		}
		free_count[t] = 0;
	}
	dapl_module_unlock(&free_lock);
}

/* Any live object of ours, whatever its type. */
static struct dapl_obj *obj_live(DAT_HANDLE h)
{
	struct dapl_obj *o = h;
	uint32_t magic;

	if (!h || ((uintptr_t)h & 7))
		return NULL;
	magic = __atomic_load_n(&o->magic, __ATOMIC_ACQUIRE);
	if ((magic & 0xFFFF0000u) != DAPL_MAGIC_BASE ||
	    (magic & 0xFFFFu) >= DAPL_OBJ_TYPES || magic != DAPL_MAGIC(o->type))
		return NULL;
	return o;
}

#define BAD_HANDLE DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1)

DAT_RETURN dapl_set_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT context)
{
	struct dapl_obj *o = obj_live(dat_handle);

	if (!o)
		return BAD_HANDLE;
	o->context = context;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_get_consumer_context(DAT_HANDLE dat_handle,
				     DAT_CONTEXT *context)
{
	struct dapl_obj *o = obj_live(dat_handle);

	if (!o)
		return BAD_HANDLE;
	if (!context)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*context = o->context;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_get_handle_type(DAT_HANDLE dat_handle,
				DAT_HANDLE_TYPE *handle_type)
{
	struct dapl_obj *o = obj_live(dat_handle);

	if (!o)
		return BAD_HANDLE;
	if (!handle_type)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*handle_type = o->type;
	return DAT_SUCCESS;
}

/* ---- debug output ---- */

static unsigned dbg_mask_read(void)
{
	const char *s = secure_getenv("DAPL_DBG_TYPE");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return DAPL_DBG_ERR;
	v = strtoul(s, &end, 0);
	return *end ? DAPL_DBG_ERR : (unsigned)v;
}

void dapl_dbg(unsigned type, const char *fmt, ...)
{
	static int mask = -1;
	int m = __atomic_load_n(&mask, __ATOMIC_RELAXED);
	va_list ap;

	if (m < 0) {
		m = (int)(dbg_mask_read() & 0x7fffffff);
		__atomic_store_n(&mask, m, __ATOMIC_RELAXED);
	}
	if (!(type & (unsigned)m))
		return;
	/* one line, one write: stderr is unbuffered, so pieces written
	 * apart could let the application's own output (another stream on
	 * the same file) land inside the line (seen: a test's stdout line
	 * between "dapl: " and the message) */
	{
		char line[1024];
		int n = snprintf(line, sizeof(line), "dapl: ");

		va_start(ap, fmt);
		vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
		va_end(ap);
		strcat(line, "\n");
		fputs(line, stderr);
	}
}
