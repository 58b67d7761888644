/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdat internals shared by dat/ (the consumer entry points) and
 * registry/ (dat.conf, the static and dynamic registries, provider
 * loading, debug output).  Nothing here is exported from libdat.so.1.
 *
 * Locks, always taken in this order: the static registry lock (held
 * across dat.conf reading and provider init/fini, because init calls back
 * into dat_registry_add_provider), the dynamic registry lock, the
 * open-IA lock.
 */
#ifndef DAT_REGISTRY_REGISTRY_H
#define DAT_REGISTRY_REGISTRY_H

#include <stdatomic.h>

#include <dat/udat.h>
#include <dat/dat_registry.h>
#include <dat/dat_ib_extensions.h>

#define DAT_ERROR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_RETURN)(type) | (DAT_RETURN)(subtype)))

/* Debug output: DAT_DBG_TYPE selects, DAT_DBG_DEST routes (debug.c). */
enum dat_dbg_type {
	DAT_DBG_ERROR = 0x01,
	DAT_DBG_GENERIC = 0x02,
	DAT_DBG_SR = 0x04,
	DAT_DBG_DR = 0x08,
	DAT_DBG_PROVIDER_API = 0x10,
	DAT_DBG_CONSUMER_API = 0x20,
};

void dat_dbg(unsigned type, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* How closely a registry key matches a wanted one (for the error subtype). */
enum dat_key_match {
	DAT_KEY_NO_NAME = 0,		/* -> DAT_NAME_NOT_REGISTERED */
	DAT_KEY_NAME,			/* -> DAT_MAJOR_NOT_FOUND */
	DAT_KEY_NAME_MAJOR,		/* -> DAT_MINOR_NOT_FOUND */
	DAT_KEY_NAME_MAJOR_MINOR,	/* -> DAT_THREAD_SAFETY_NOT_FOUND */
	DAT_KEY_EXACT,
};

enum dat_key_match dat_key_match(const DAT_PROVIDER_INFO *have,
				 const DAT_PROVIDER_INFO *want);
/* Validates a caller's IA name: NULL or too long gives ARG1. */
DAT_RETURN dat_check_ia_name(const char *name);

/*
 * Finds the provider for key, loading its dat.conf library if needed.
 * On success *entry (maybe NULL) must go to dat_sr_release() when the IA
 * closes or fails to open, and the provider is held (dat_dr_hold) until
 * the IA is counted or the open failed.  On failure, the precise
 * PROVIDER_NOT_FOUND.
 */
struct dat_sr_entry;
DAT_RETURN dat_registry_open_provider(const DAT_PROVIDER_INFO *key,
				      DAT_PROVIDER **provider,
				      struct dat_sr_entry **entry);

/* Static registry: the u/default entries of dat.conf (static_registry.c). */
struct dat_sr_entry;

/*
 * Finds the dat.conf entry with exactly this key and, on its first use,
 * loads its library and calls dat_provider_init.  *entry is NULL when
 * dat.conf has no such entry (the key may still be registered
 * dynamically).  Each successful call with a non-NULL *entry must be
 * paired with dat_sr_release().
 */
DAT_RETURN dat_sr_acquire(const DAT_PROVIDER_INFO *key,
			  struct dat_sr_entry **entry);
/* Drops one use; the last one calls dat_provider_fini (the library stays
 * loaded until exit: static_registry.c). */
void dat_sr_release(struct dat_sr_entry *entry);
enum dat_key_match dat_sr_best_match(const DAT_PROVIDER_INFO *want);
/* Copies up to max keys (all of them are counted) into list. */
DAT_COUNT dat_sr_list(DAT_COUNT max, DAT_PROVIDER_INFO *list[]);
int dat_sr_has_key(const DAT_PROVIDER_INFO *key);
/* True when DAT_OVERRIDE names a file that cannot be read. */
int dat_sr_is_broken(void);

/* Dynamic registry: providers registered by dat_registry_add_provider. */
/*
 * Finds the provider registered under key and holds it: until the
 * matching dat_dr_unhold(), dat_registry_remove_provider of that table
 * returns DAT_PROVIDER_IN_USE.  An open holds it from the lookup until
 * its IA is counted (dat_ia_count_for), so no removal slips in between.
 */
DAT_RETURN dat_dr_hold(const DAT_PROVIDER_INFO *key, DAT_PROVIDER **provider);
void dat_dr_unhold(const DAT_PROVIDER *provider);
enum dat_key_match dat_dr_best_match(const DAT_PROVIDER_INFO *want);
/* Appends keys not already in dat.conf; returns how many there are. */
DAT_COUNT dat_dr_list_extra(DAT_COUNT max, DAT_COUNT filled,
			    DAT_PROVIDER_INFO *list[]);
/*
 * True if p is the table of a provider registered now.  Lock-free and
 * inline: it runs in front of every dispatched call.  The registered
 * tables are a hash set (dynamic_registry.c): a hit is a hash, a load and
 * a compare; a miss (a bad handle) ends at an empty entry.
 */
#define DAT_DR_SLOTS 256
#define DAT_DR_SET_SIZE (2 * DAT_DR_SLOTS)
#define DAT_DR_SET_TOMB ((const DAT_PROVIDER *)1)
extern const DAT_PROVIDER *_Atomic dat_dr_set[DAT_DR_SET_SIZE]
    __attribute__((visibility("hidden")));

/*
 * The dispatch's common case: the two tables registered or opened last
 * (a process often opens two IAs, e.g. one per port, and each dat.conf
 * entry has a table of its own) kept in two words of their own, so a
 * handle of either is checked with one load and compare (two for the
 * second).  Never NULL: an empty word holds dat_dr_none, a table with no
 * slot filled that is never registered, so a handle whose first word is
 * NULL (or the tombstone) never matches it; a match of dat_dr_none itself
 * finds an empty slot, and the dispatch's empty-slot path asks the set
 * before answering.  Written under dr_mutex only, after the set.
 */
#define DAT_DR_HOT 2
extern const DAT_PROVIDER dat_dr_none __attribute__((visibility("hidden")));
extern const DAT_PROVIDER *_Atomic dat_dr_hot[DAT_DR_HOT]
    __attribute__((visibility("hidden")));

static inline unsigned dat_dr_set_hash(const DAT_PROVIDER *p)
{
	/* tables are at least 8-aligned: drop the zero bits, then spread */
	return (unsigned)(((uintptr_t)p >> 3) * 2654435761u) %
	       DAT_DR_SET_SIZE;
}

static inline int dat_dr_is_provider(const DAT_PROVIDER *p)
{
	unsigned i = dat_dr_set_hash(p), n;
	const DAT_PROVIDER *q;

	if ((uintptr_t)p <= (uintptr_t)DAT_DR_SET_TOMB)
		return 0;
	for (n = 0; n < DAT_DR_SET_SIZE;
	     n++, i = (i + 1) & (DAT_DR_SET_SIZE - 1)) {
		q = atomic_load_explicit(&dat_dr_set[i], memory_order_acquire);
		if (q == p)
			return 1;
		if (!q)
			return 0;
	}
	return 0;
}

/*
 * True if p is the table of a provider registered now; *ext then gets its
 * extension function (NULL if none was registered).  Lock-free.
 */
int dat_dr_extension(const DAT_PROVIDER *p, DAT_EXTENSION_FUNC *ext);

/*
 * Open IAs (open_ia.c), for dat/ia.c: an entry allocated before the
 * provider's open (discarded if that fails), added with what the IA was
 * opened through; claimed by one dat_ia_close at a time (NULL: not an IA
 * libdat opened, or being closed), unclaimed if the provider's close
 * failed, else removed, which releases the registry entry.
 */
struct dat_open_ia;
struct dat_open_ia *dat_open_ia_new(void);
void dat_open_ia_discard(struct dat_open_ia *o);
void dat_open_ia_add(struct dat_open_ia *o, DAT_IA_HANDLE ia,
		     DAT_PROVIDER *provider, struct dat_sr_entry *entry);
struct dat_open_ia *dat_open_ia_claim(DAT_IA_HANDLE ia,
				      DAT_PROVIDER **provider);
void dat_open_ia_unclaim(struct dat_open_ia *o);
void dat_open_ia_remove(struct dat_open_ia *o);
/* How many open IAs were opened through this table. */
int dat_ia_count_for(const DAT_PROVIDER *provider);

/* Fork safety: the three locks, taken and dropped around fork(). */
void dat_sr_lock(void);
void dat_sr_unlock(void);
void dat_sr_lock_reset(void);
void dat_dr_lock(void);
void dat_dr_unlock(void);
void dat_ia_lock(void);
void dat_ia_unlock(void);

#endif
