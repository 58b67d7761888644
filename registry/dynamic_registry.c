/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dynamic registry: the providers registered now, by
 * dat_registry_add_provider (called by a provider's dat_provider_init, or
 * by an application that carries its own provider).
 *
 * A fixed table of slots keeps the provider pointers where the dispatch
 * check of every wrapper can read them without a lock: a handful of
 * atomic loads and compares in front of each call.  Slots are reused but
 * the table never moves.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "registry.h"


struct dat_dr_slot {
	DAT_PROVIDER_INFO key;			/* valid while provider != NULL */
	DAT_PROVIDER *_Atomic provider;
	/* dat_registry_add_extension: the table's extension function */
	_Atomic DAT_EXTENSION_FUNC ext;
	/* dat_ia_openv calls between finding this slot and counting their
	 * IA (dat_dr_hold .. dat_dr_unhold): removal must wait for them */
	unsigned opening;
};

static pthread_mutex_t dr_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct dat_dr_slot dr_slots[DAT_DR_SLOTS];
/* slots [0, dr_high) were ever used */
static _Atomic unsigned dr_high;

/*
 * The set of registered tables that dat_dr_is_provider reads: open
 * addressing over twice as many entries as there can be tables, so a
 * registered table is found at its hash or a few entries on.  A table
 * registered under several names is in it once (dr_set_refs counts the
 * names); a removed one leaves DAT_DR_SET_TOMB, which an insert reuses.
 * Written under dr_mutex only.
 */
const DAT_PROVIDER *_Atomic dat_dr_set[DAT_DR_SET_SIZE];
static unsigned dr_set_refs[DAT_DR_SET_SIZE];
const DAT_PROVIDER dat_dr_none;
const DAT_PROVIDER *_Atomic dat_dr_hot[DAT_DR_HOT] = {&dat_dr_none,
						    &dat_dr_none};

/* Under dr_mutex: p (registered) becomes the dispatch's first common
 * case, the first one before it the second. */
static void dr_hot_set(const DAT_PROVIDER *p)
{
	const DAT_PROVIDER *h0 =
	    atomic_load_explicit(&dat_dr_hot[0], memory_order_relaxed);

	if (h0 == p)
		return;
	/* a reader between the two stores misses p and takes the set */
	atomic_store_explicit(&dat_dr_hot[1], h0, memory_order_release);
	atomic_store_explicit(&dat_dr_hot[0], p, memory_order_release);
}

/* Under dr_mutex, once p has left the set: registered tables not in the
 * other word (or none) take its place in the common case. */
static void dr_hot_drop(const DAT_PROVIDER *p)
{
	const DAT_PROVIDER *q, *other;
	unsigned h, i;

	for (h = 0; h < DAT_DR_HOT; h++) {
		if (atomic_load_explicit(&dat_dr_hot[h],
					 memory_order_relaxed) != p)
			continue;
		other = atomic_load_explicit(&dat_dr_hot[h ^ 1],
					     memory_order_relaxed);
		q = &dat_dr_none;
		for (i = 0; i < DAT_DR_SET_SIZE; i++) {
			const DAT_PROVIDER *e = atomic_load_explicit(
			    &dat_dr_set[i], memory_order_relaxed);

			if ((uintptr_t)e > (uintptr_t)DAT_DR_SET_TOMB &&
			    e != other) {
				q = e;
				break;
			}
		}
		atomic_store_explicit(&dat_dr_hot[h], q, memory_order_release);
	}
}

/* Under dr_mutex: the entry of p, or of the place to insert it. */
static unsigned dr_set_find(const DAT_PROVIDER *p, int *found)
{
	unsigned i = dat_dr_set_hash(p), n, spare = DAT_DR_SET_SIZE;
	const DAT_PROVIDER *q;

	for (n = 0; n < DAT_DR_SET_SIZE;
	     n++, i = (i + 1) & (DAT_DR_SET_SIZE - 1)) {
		q = atomic_load_explicit(&dat_dr_set[i], memory_order_relaxed);
		if (q == p) {
			*found = 1;
			return i;
		}
		if (q == DAT_DR_SET_TOMB && spare == DAT_DR_SET_SIZE)
			spare = i;
		if (!q)
			break;
	}
	*found = 0;
	return spare != DAT_DR_SET_SIZE ? spare : i;
}

/* Under dr_mutex; there is always room (twice the slots). */
static void dr_set_add(const DAT_PROVIDER *p)
{
	int found;
	unsigned i = dr_set_find(p, &found);

	if (!found)
		atomic_store_explicit(&dat_dr_set[i], p, memory_order_release);
	dr_set_refs[i]++;
	dr_hot_set(p);
}

static void dr_set_del(const DAT_PROVIDER *p)
{
	int found;
	unsigned i = dr_set_find(p, &found);

	if (found && !--dr_set_refs[i]) {
		atomic_store_explicit(&dat_dr_set[i], DAT_DR_SET_TOMB,
				      memory_order_release);
		dr_hot_drop(p);
	}
}

void dat_dr_lock(void)
{
	pthread_mutex_lock(&dr_mutex);
}

void dat_dr_unlock(void)
{
	pthread_mutex_unlock(&dr_mutex);
}

/* Called with dr_mutex held. */
static struct dat_dr_slot *dr_find(const DAT_PROVIDER_INFO *key)
{
	unsigned i, n = atomic_load_explicit(&dr_high, memory_order_relaxed);

	for (i = 0; i < n; i++)
		if (dr_slots[i].provider &&
		    dat_key_match(&dr_slots[i].key, key) == DAT_KEY_EXACT)
			return &dr_slots[i];
	return NULL;
}

/* Under dr_mutex: opens of table p under way, through any of its names. */
static unsigned dr_opening(const DAT_PROVIDER *p)
{
	unsigned i, n = atomic_load_explicit(&dr_high, memory_order_relaxed),
		 sum = 0;

	for (i = 0; i < n; i++)
		if (dr_slots[i].provider == p)
			sum += dr_slots[i].opening;
	return sum;
}

/*
 * The first empty entry point of table p (its number in the table, as
 * udat_redirection.h counts them), or 0 when every one is filled.  A
 * table with an empty slot is refused here, once, so that no call
 * through libdat can reach a slot that is not there: a provider without
 * a feature still fills its slots, with calls that say so
 * (DAT_MODEL_NOT_SUPPORTED where dat_ia_query reports the feature
 * absent).
 */
static unsigned dr_empty_slot(const DAT_PROVIDER *p)
{
	const size_t first = offsetof(DAT_PROVIDER, ia_open_func);
	const size_t step = sizeof(p->ia_open_func);
	size_t off;

	for (off = first; off + step <= sizeof(*p); off += step) {
		uintptr_t fn;

		memcpy(&fn, (const char *)p + off, sizeof(fn));
		if (!fn)
			return (unsigned)(off / step);
	}
	return 0;
}

static int ia_name_ok(const DAT_PROVIDER_INFO *info)
{
	return info->ia_name[0] &&
	       memchr(info->ia_name, '\0', DAT_NAME_MAX_LENGTH) != NULL;
}

DAT_RETURN dat_registry_add_provider(DAT_PROVIDER *provider,
				     const DAT_PROVIDER_INFO *info)
{
	struct dat_dr_slot *slot = NULL;
	DAT_RETURN rc = DAT_SUCCESS;
	unsigned i, n, empty;

	if (!provider)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!info || !ia_name_ok(info))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	empty = dr_empty_slot(provider);
	if (empty) {
		dat_dbg(DAT_DBG_ERROR,
			"provider %s: entry %u of its DAT_PROVIDER table is "
			"empty: not registered",
			info->ia_name, empty);
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}

	dat_dr_lock();
	n = atomic_load_explicit(&dr_high, memory_order_relaxed);
	if (dr_find(info)) {
		rc = DAT_ERROR(DAT_PROVIDER_ALREADY_REGISTERED, DAT_NO_SUBTYPE);
		goto out;
	}
	for (i = 0; i < n && !slot; i++)
		if (!dr_slots[i].provider)
			slot = &dr_slots[i];
	if (!slot && n < DAT_DR_SLOTS)
		slot = &dr_slots[n];
	if (!slot) {
		rc = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	slot->key = *info;
	atomic_store_explicit(&slot->ext, NULL, memory_order_relaxed);
	atomic_store_explicit(&slot->provider, provider, memory_order_release);
	dr_set_add(provider);
	if (slot == &dr_slots[n])
		atomic_store_explicit(&dr_high, n + 1, memory_order_release);
out:
	dat_dr_unlock();
	dat_dbg(DAT_DBG_DR, "add %s u%u.%u %s: %#x", info->ia_name,
		info->dapl_version_major, info->dapl_version_minor,
		info->is_thread_safe ? "threadsafe" : "nonthreadsafe", rc);
	return rc;
}

DAT_RETURN dat_registry_remove_provider(DAT_PROVIDER *provider,
					const DAT_PROVIDER_INFO *info)
{
	struct dat_dr_slot *slot;
	DAT_RETURN rc = DAT_SUCCESS;

	if (!provider)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!info || !ia_name_ok(info))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	dat_dr_lock();
	slot = dr_find(info);
	if (!slot)
		rc = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	else if (slot->provider != provider)
		rc = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	else if (dr_opening(provider) || dat_ia_count_for(provider))
		rc = DAT_ERROR(DAT_PROVIDER_IN_USE, DAT_NO_SUBTYPE);
	else {
		atomic_store_explicit(&slot->ext, NULL, memory_order_relaxed);
		atomic_store_explicit(&slot->provider, NULL, memory_order_release);
		dr_set_del(provider);
	}
	dat_dr_unlock();
	dat_dbg(DAT_DBG_DR, "remove %s u%u.%u %s: %#x", info->ia_name,
		info->dapl_version_major, info->dapl_version_minor,
		info->is_thread_safe ? "threadsafe" : "nonthreadsafe", rc);
	return rc;
}

DAT_RETURN dat_dr_hold(const DAT_PROVIDER_INFO *key, DAT_PROVIDER **provider)
{
	struct dat_dr_slot *slot;

	dat_dr_lock();
	slot = dr_find(key);
	*provider = slot ? slot->provider : NULL;
	if (slot) {
		slot->opening++;
		/* the provider of the IA opened last is the likeliest to
		 * be dispatched to next */
		dr_hot_set(slot->provider);
	}
	dat_dr_unlock();
	return slot ? DAT_SUCCESS :
		      DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
}

void dat_dr_unhold(const DAT_PROVIDER *provider)
{
	unsigned i, n;

	dat_dr_lock();
	n = atomic_load_explicit(&dr_high, memory_order_relaxed);
	for (i = 0; i < n; i++)
		if (dr_slots[i].provider == provider && dr_slots[i].opening) {
			dr_slots[i].opening--;
			break;
		}
	dat_dr_unlock();
}

enum dat_key_match dat_dr_best_match(const DAT_PROVIDER_INFO *want)
{
	enum dat_key_match best = DAT_KEY_NO_NAME, m;
	unsigned i, n;

	dat_dr_lock();
	n = atomic_load_explicit(&dr_high, memory_order_relaxed);
	for (i = 0; i < n; i++) {
		if (!dr_slots[i].provider)
			continue;
		m = dat_key_match(&dr_slots[i].key, want);
		if (m > best)
			best = m;
	}
	dat_dr_unlock();
	return best;
}

DAT_COUNT dat_dr_list_extra(DAT_COUNT max, DAT_COUNT filled,
			    DAT_PROVIDER_INFO *list[])
{
	DAT_COUNT n = 0;
	unsigned i, high;

	dat_dr_lock();
	high = atomic_load_explicit(&dr_high, memory_order_relaxed);
	for (i = 0; i < high; i++) {
		if (!dr_slots[i].provider || dat_sr_has_key(&dr_slots[i].key))
			continue;
		if (filled + n < max)
			*list[filled + n] = dr_slots[i].key;
		n++;
	}
	dat_dr_unlock();
	return n;
}

/*
 * Extensions (dat_ib_extensions.h): one function per registered table,
 * kept in the table's slot so that it goes away with the table.  libdat
 * never looks at the table's provider-private `extension` slot.
 */
DAT_RETURN dat_registry_add_extension(const DAT_PROVIDER *provider,
				      DAT_EXTENSION_FUNC func)
{
	DAT_RETURN rc = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	unsigned i, n;

	if (!provider)
		return rc;
	dat_dr_lock();
	n = atomic_load_explicit(&dr_high, memory_order_relaxed);
	for (i = 0; i < n; i++)
		if (atomic_load_explicit(&dr_slots[i].provider,
					 memory_order_relaxed) == provider) {
			atomic_store_explicit(&dr_slots[i].ext, func,
					      memory_order_release);
			rc = DAT_SUCCESS;
		}
	dat_dr_unlock();
	dat_dbg(DAT_DBG_DR, "add extension %p: %#x", (const void *)provider,
		rc);
	return rc;
}

int dat_dr_extension(const DAT_PROVIDER *p, DAT_EXTENSION_FUNC *ext)
{
	unsigned i, n = atomic_load_explicit(&dr_high, memory_order_acquire);

	for (i = 0; p && i < n; i++)
		if (atomic_load_explicit(&dr_slots[i].provider,
					 memory_order_acquire) == p) {
			*ext = atomic_load_explicit(&dr_slots[i].ext,
						    memory_order_acquire);
			return 1;
		}
	return 0;
}
