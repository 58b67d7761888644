/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udat_config.h - build-time configuration of the uDAPL consumer API.
 *
 * A consumer compiled against these headers asks the registry for a
 * DAT 1.2, non-thread-safe provider (see the dat_ia_open macro in dat.h).
 */
#ifndef _UDAT_CONFIG_H_
#define _UDAT_CONFIG_H_

#ifdef __cplusplus
extern "C" {
#endif

#define DAT_VERSION_MAJOR	1
#define DAT_VERSION_MINOR	2

/* The DAT 1.2 reference always selects non-thread-safe providers. */
#define DAT_THREADSAFE		DAT_FALSE

#ifdef __cplusplus
}
#endif

#endif /* _UDAT_CONFIG_H_ */
