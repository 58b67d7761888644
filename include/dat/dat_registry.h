/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_registry.h - the provider side of the DAT registry.
 *
 * Used by provider libraries and by libdat.  A provider library exports
 * dat_provider_init() and dat_provider_fini(); libdat finds them with
 * dlsym() when dat.conf names the library, and calls init with the
 * registry key and the entry's instance data.  The provider then calls
 * dat_registry_add_provider() with its DAT_PROVIDER table, whose
 * device_name must be the IA name it registers.
 */
#ifndef _DAT_REGISTRY_H_
#define _DAT_REGISTRY_H_

#ifndef _UDAT_H_
#error "include <dat/udat.h> before <dat/dat_registry.h>"
#endif

#include <dat/udat_redirection.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the key is *provider_info: IA name, DAT major/minor, thread safety */
extern DAT_RETURN dat_registry_add_provider(
	IN DAT_PROVIDER			*provider,
	IN const DAT_PROVIDER_INFO	*provider_info);

extern DAT_RETURN dat_registry_remove_provider(
	IN DAT_PROVIDER			*provider,
	IN const DAT_PROVIDER_INFO	*provider_info);

/* entry points of a provider library: symbol names and dlsym() strings */
#define DAT_PROVIDER_INIT_FUNC_NAME	dat_provider_init
#define DAT_PROVIDER_FINI_FUNC_NAME	dat_provider_fini

#define DAT_PROVIDER_INIT_FUNC_STR	"dat_provider_init"
#define DAT_PROVIDER_FINI_FUNC_STR	"dat_provider_fini"

typedef void (*DAT_PROVIDER_INIT_FUNC)(
	IN const DAT_PROVIDER_INFO	*provider_info,
	IN const char			*instance_data);

typedef void (*DAT_PROVIDER_FINI_FUNC)(
	IN const DAT_PROVIDER_INFO	*provider_info);

#ifdef __cplusplus
}
#endif

#endif /* _DAT_REGISTRY_H_ */
