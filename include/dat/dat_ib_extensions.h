/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_ib_extensions.h - the InfiniBand atomic extension of this uDAPL.
 *
 * DAT 1.2 has no atomic operation; DAT 2.0 added them as "IB extensions".
 * This header brings the two atomics of that extension to DAT 1.2 under
 * the DAT 2.0 names, so that sources written for it port unchanged:
 *
 *	dat_ib_post_fetch_and_add(ep, add_value, local_iov, user_cookie,
 *				  remote_iov, completion_flags)
 *	dat_ib_post_cmp_and_swap(ep, compare_value, swap_value, local_iov,
 *				 user_cookie, remote_iov, completion_flags)
 *
 * Both are macros over dat_extension_op(), a call of libdat.so.1 outside
 * the 72 of DAT 1.2 (version node DAT_1.2_EXT), which dispatches to the
 * extension function the handle's provider registered with
 * dat_registry_add_extension().  The DAT 1.2 ABI is unchanged: libdat
 * never reads the provider-private `extension` slot of DAT_PROVIDER.
 *
 * local_iov is one DAT_LMR_TRIPLET of at least 8 bytes: the original
 * 64-bit value of the remote location lands in its first 8 bytes.
 * remote_iov is one DAT_RMR_TRIPLET whose target_address is 8-byte
 * aligned and whose region was registered with
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC.  The completion is an event numbered
 * DAT_IB_DTO_EVENT on the EP's request EVD, carrying the ordinary
 * DAT_DTO_COMPLETION_EVENT_DATA (ep_handle, user_cookie, status,
 * transfered_length 8).
 *
 * Errors before anything is posted: DAT_INVALID_HANDLE (not an EP),
 * DAT_INVALID_PARAMETER with the subtype of the argument (a remote
 * address not 8-byte aligned, a NULL iov, bad completion flags),
 * DAT_LENGTH_ERROR (a local segment shorter than 8 bytes),
 * DAT_MODEL_NOT_SUPPORTED (the device has no atomics, see the provider
 * attributes DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP, or the
 * provider registered no extension at all).
 */
#ifndef _DAT_IB_EXTENSIONS_H_
#define _DAT_IB_EXTENSIONS_H_

#ifndef _UDAT_H_
#error "include <dat/udat.h> before <dat/dat_ib_extensions.h>"
#endif

#include <stdarg.h>

#include <dat/udat_redirection.h>	/* DAT_PROVIDER */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this extension, as dat_ib_extensions.h of DAT 2.0. */
#define DAT_IB_EXTENSION_VERSION	1

/* Named provider-specific attributes (DAT_PROVIDER_ATTR): value "TRUE"
 * if the IA's device can do the operation, else "FALSE". */
#define DAT_IB_ATTR_FETCH_AND_ADD	"DAT_IB_FETCH_AND_ADD"
#define DAT_IB_ATTR_CMP_AND_SWAP	"DAT_IB_CMP_AND_SWAP"

/* The IB extension range of event numbers (DAT 2.0) and its DTO event. */
#define DAT_IB_EXTENSION_RANGE_BASE	0x40000
#define DAT_IB_DTO_EVENT		((DAT_EVENT_NUMBER)0x40000)

/* Memory privilege: the region may be the target of remote atomics
 * (or it into the DAT_MEM_PRIV_FLAGS of dat_lmr_create). */
#define DAT_IB_MEM_PRIV_REMOTE_ATOMIC	((DAT_MEM_PRIV_FLAGS)0x40)

/* The operations of dat_extension_op. */
typedef enum dat_ib_op {
	DAT_IB_FETCH_AND_ADD_OP = 0,
	DAT_IB_CMP_AND_SWAP_OP = 1
} DAT_IB_OP;

typedef int DAT_EXTENDED_OP;

/*
 * Calls extension operation op on handle with the operation's arguments.
 * DAT_INVALID_HANDLE if handle is not a handle of a registered provider,
 * DAT_MODEL_NOT_SUPPORTED if that provider registered no extension,
 * else what the provider's extension function returns.
 */
extern DAT_RETURN dat_extension_op(
	IN DAT_HANDLE			handle,
	IN DAT_EXTENDED_OP		op,
	...);

/*
 * Provider side.  A provider registers one extension function per
 * registered DAT_PROVIDER table, after dat_registry_add_provider();
 * libdat forgets it when the table is removed.  A NULL func unregisters.
 * Returns DAT_SUCCESS, or DAT_INVALID_PARAMETER (DAT_INVALID_ARG1: the
 * table is not registered now).
 */
typedef DAT_RETURN (*DAT_EXTENSION_FUNC)(
	IN DAT_HANDLE			handle,
	IN DAT_EXTENDED_OP		op,
	IN va_list			args);

extern DAT_RETURN dat_registry_add_extension(
	IN const DAT_PROVIDER		*provider,
	IN DAT_EXTENSION_FUNC		func);

/* The arguments go through "..." with the types the extension reads. */
#define dat_ib_post_fetch_and_add(ep, add_value, local_iov, user_cookie,     \
				  remote_iov, completion_flags)               \
	dat_extension_op((ep), DAT_IB_FETCH_AND_ADD_OP,                       \
			 (DAT_UINT64)(add_value),                             \
			 (DAT_LMR_TRIPLET *)(local_iov),                      \
			 (user_cookie),                                        \
			 (const DAT_RMR_TRIPLET *)(remote_iov),               \
			 (DAT_COMPLETION_FLAGS)(completion_flags))

#define dat_ib_post_cmp_and_swap(ep, compare_value, swap_value, local_iov,   \
				 user_cookie, remote_iov, completion_flags)   \
	dat_extension_op((ep), DAT_IB_CMP_AND_SWAP_OP,                        \
			 (DAT_UINT64)(compare_value),                         \
			 (DAT_UINT64)(swap_value),                            \
			 (DAT_LMR_TRIPLET *)(local_iov),                      \
			 (user_cookie),                                        \
			 (const DAT_RMR_TRIPLET *)(remote_iov),               \
			 (DAT_COMPLETION_FLAGS)(completion_flags))

#ifdef __cplusplus
}
#endif

#endif /* _DAT_IB_EXTENSIONS_H_ */
