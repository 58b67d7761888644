/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry as libdat's entry points see it: finding the provider for
 * a key across dat.conf and the dynamic registry, listing, and the fork
 * handlers that keep the registry usable in a child.
 */
#include <pthread.h>

#include "registry.h"

/*
 * The precise "not found" error: how far the best registered key gets in
 * matching name, major, minor and thread safety, in that order.
 */
static DAT_RETURN dat_registry_miss(const DAT_PROVIDER_INFO *key)
{
	static const DAT_RETURN_SUBTYPE subtype[] = {
		[DAT_KEY_NO_NAME] = DAT_NAME_NOT_REGISTERED,
		[DAT_KEY_NAME] = DAT_MAJOR_NOT_FOUND,
		[DAT_KEY_NAME_MAJOR] = DAT_MINOR_NOT_FOUND,
		[DAT_KEY_NAME_MAJOR_MINOR] = DAT_THREAD_SAFETY_NOT_FOUND,
		[DAT_KEY_EXACT] = DAT_NAME_NOT_REGISTERED,
	};
	enum dat_key_match m = dat_sr_best_match(key), d = dat_dr_best_match(key);

	if (d > m)
		m = d;
	return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, subtype[m]);
}

DAT_RETURN dat_registry_open_provider(const DAT_PROVIDER_INFO *key,
				      DAT_PROVIDER **provider,
				      struct dat_sr_entry **entry)
{
	DAT_RETURN rc;

	rc = dat_sr_acquire(key, entry);
	if (rc != DAT_SUCCESS)
		return rc;
	rc = dat_dr_hold(key, provider);
	if (rc == DAT_SUCCESS)
		return rc;
	if (*entry)
		dat_dbg(DAT_DBG_ERROR,
			"%s: the provider library did not register this IA name",
			key->ia_name);
	else if (dat_sr_is_broken())
		dat_dbg(DAT_DBG_ERROR, "%s: not opened: DAT_OVERRIDE cannot be read",
			key->ia_name);
	dat_sr_release(*entry);
	*entry = NULL;
	return dat_registry_miss(key);
}

DAT_RETURN dat_registry_list_providers(DAT_COUNT max_to_return,
				       DAT_COUNT *entries_returned,
				       DAT_PROVIDER_INFO *(dat_provider_list[]))
{
	DAT_COUNT n;

	if (!entries_returned)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (max_to_return < 0)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (max_to_return > 0 && !dat_provider_list)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	n = dat_sr_list(max_to_return, dat_provider_list);
	n += dat_dr_list_extra(max_to_return, n, dat_provider_list);
	if (max_to_return == 0) {
		/* The spec's way to ask for the count: store it, and say
		 * ARG1 because nothing could be returned. */
		*entries_returned = n;
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	*entries_returned = n < max_to_return ? n : max_to_return;
	return DAT_SUCCESS;
}

/*
 * fork(): a child gets a copy of the registry but only the forking
 * thread.  Taking every lock around fork() means no child starts with a
 * lock that a vanished thread holds.
 */
static void dat_fork_prepare(void)
{
	dat_sr_lock();
	dat_dr_lock();
	dat_ia_lock();
}

static void dat_fork_parent(void)
{
	dat_ia_unlock();
	dat_dr_unlock();
	dat_sr_unlock();
}

static void dat_fork_child(void)
{
	dat_ia_unlock();
	dat_dr_unlock();
	dat_sr_lock_reset();
}

__attribute__((constructor)) static void dat_registry_init(void)
{
	pthread_atfork(dat_fork_prepare, dat_fork_parent, dat_fork_child);
}
