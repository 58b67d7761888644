/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udat_vendor_specific.h - hook for vendor additions to the uDAPL API.
 * Empty in this implementation.
 */
#ifndef _UDAT_VENDOR_SPECIFIC_H_
#define _UDAT_VENDOR_SPECIFIC_H_

#include <dat/dat_vendor_specific.h>

#ifdef __cplusplus
extern "C" {
#endif

/* no vendor-specific definitions */

#ifdef __cplusplus
}
#endif

#endif /* _UDAT_VENDOR_SPECIFIC_H_ */
