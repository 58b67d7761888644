/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_vendor_specific.h - hook for vendor additions common to uDAPL and
 * kDAPL.  Empty in this implementation.
 */
#ifndef _DAT_VENDOR_SPECIFIC_H_
#define _DAT_VENDOR_SPECIFIC_H_

#ifdef __cplusplus
extern "C" {
#endif

/* no vendor-specific definitions */

#ifdef __cplusplus
}
#endif

#endif /* _DAT_VENDOR_SPECIFIC_H_ */
