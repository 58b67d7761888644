/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_ia_openv and dat_ia_close: the two calls libdat answers itself
 * rather than dispatching, because they start and end a provider's use.
 *
 * libdat remembers every IA it opened and through which registry entry
 * (registry/open_ia.c).  So dat_ia_close releases exactly the entry the
 * open took (the reference had to ask the provider for its version and
 * thread safety to rebuild the key), and a handle libdat never returned
 * gets DAT_INVALID_HANDLE instead of a call through whatever its first
 * word holds.
 *
 * ia_open_func gets only the IA name, which several entries may share
 * (one per thread safety, say, with different ia_params).  So libdat
 * passes the table of the entry that matched the whole key in
 * *ia_handle: a provider with one table per entry (udapl's
 * dapl_provider_find) opens the IA through exactly that entry.  Any
 * provider overwrites *ia_handle on success; on failure the caller's
 * value is put back.
 */
#include <stdint.h>
#include <string.h>

#include "../registry/registry.h"

DAT_RETURN dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_HANDLE *ia_handle, DAT_UINT32 dapl_major,
			DAT_UINT32 dapl_minor, DAT_BOOLEAN thread_safety)
{
	DAT_PROVIDER_INFO key;
	DAT_IA_HANDLE callers_handle;
	DAT_PROVIDER *provider;
	struct dat_sr_entry *entry;
	struct dat_open_ia *o;
	DAT_RETURN rc;

	rc = dat_check_ia_name(name);
	if (rc != DAT_SUCCESS)
		return rc;
	if (!ia_handle)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	memset(&key, 0, sizeof(key));
	strcpy(key.ia_name, name);
	key.dapl_version_major = dapl_major;
	key.dapl_version_minor = dapl_minor;
	key.is_thread_safe = thread_safety ? DAT_TRUE : DAT_FALSE;

	o = dat_open_ia_new(); /* before the open: cannot fail after it */
	if (!o)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	rc = dat_registry_open_provider(&key, &provider, &entry);
	if (rc != DAT_SUCCESS) {
		dat_dbg(DAT_DBG_CONSUMER_API, "dat_ia_open %s u%u.%u: %#x", name,
			dapl_major, dapl_minor, rc);
		dat_open_ia_discard(o);
		return rc;
	}
	callers_handle = *ia_handle;
	*ia_handle = (DAT_IA_HANDLE)provider;
	rc = provider->ia_open_func(name, async_evd_qlen, async_evd_handle,
				    ia_handle);
	dat_dbg(DAT_DBG_CONSUMER_API, "dat_ia_open %s u%u.%u: %#x", name,
		dapl_major, dapl_minor, rc);
	if (rc != DAT_SUCCESS) {
		*ia_handle = callers_handle;
		dat_open_ia_discard(o);
		dat_dr_unhold(provider);
		dat_sr_release(entry);
		return rc;
	}
	dat_open_ia_add(o, *ia_handle, provider, entry);
	/* Counted now: dat_registry_remove_provider sees the IA. */
	dat_dr_unhold(provider);
	return DAT_SUCCESS;
}

DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags)
{
	struct dat_open_ia *o;
	DAT_PROVIDER *provider;
	DAT_RETURN rc;

	if (!ia_handle || ((uintptr_t)ia_handle & 3))
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	o = dat_open_ia_claim(ia_handle, &provider);
	if (!o)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	rc = provider->ia_close_func(ia_handle, close_flags);
	dat_dbg(DAT_DBG_CONSUMER_API, "dat_ia_close %p: %#x", ia_handle, rc);

	if (rc != DAT_SUCCESS) {
		dat_open_ia_unclaim(o);
		return rc;
	}
	dat_open_ia_remove(o); /* and releases its registry entry */
	return DAT_SUCCESS;
}
