/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A registry key (DAT_PROVIDER_INFO): how closely one matches another,
 * and whether a caller's IA name can be one.  Below the static and the
 * dynamic registry, which both match keys, and registry.c, which asks
 * both.
 */
#include <string.h>

#include "registry.h"

enum dat_key_match dat_key_match(const DAT_PROVIDER_INFO *have,
				 const DAT_PROVIDER_INFO *want)
{
	if (strncmp(have->ia_name, want->ia_name, DAT_NAME_MAX_LENGTH))
		return DAT_KEY_NO_NAME;
	if (have->dapl_version_major != want->dapl_version_major)
		return DAT_KEY_NAME;
	if (have->dapl_version_minor != want->dapl_version_minor)
		return DAT_KEY_NAME_MAJOR;
	/* Any non-zero DAT_BOOLEAN a consumer passes means "thread safe". */
	if (!have->is_thread_safe != !want->is_thread_safe)
		return DAT_KEY_NAME_MAJOR_MINOR;
	return DAT_KEY_EXACT;
}

DAT_RETURN dat_check_ia_name(const char *name)
{
	if (!name || !memchr(name, '\0', DAT_NAME_MAX_LENGTH))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	return DAT_SUCCESS;
}
