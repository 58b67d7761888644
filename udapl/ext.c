/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The atomic extension (include/dat/dat_ib_extensions.h): the function
 * provider.c registers with libdat for every table (libdat's
 * dat_extension_op calls it with the rest of the arguments as a va_list).
 *
 *   DAT_IB_FETCH_AND_ADD_OP: ep, add_value, local_iov, user_cookie,
 *			     remote_iov, completion_flags
 *   DAT_IB_CMP_AND_SWAP_OP:  ep, compare_value, swap_value, local_iov,
 *			     user_cookie, remote_iov, completion_flags
 *
 * Everything that can be refused is refused before anything is posted,
 * with the subtype of the argument at fault (ARG1 is the EP); the post
 * itself is an ordinary request (dto.c), so the EP's state, completion
 * flag and cookie rules are those of dat_ep_post_rdma_read.  The
 * original value lands in the first 8 bytes of local_iov; the completion
 * is a DAT_IB_DTO_EVENT on the request EVD (evd_dequeue.c).
 */
#include <stdarg.h>

#include "dto.h"
#include <dat/dat_ib_extensions.h>

/*
 * One atomic, op a constant (each extension op is its own straight
 * line): the arguments from the va_list in the order of the op's
 * macro, then every check, then the post.  The common post (a
 * transport with post_atomic1) is dto.h's dto_submit_op, here; without
 * it dto.c's dapl_dto_post_atomic builds a struct dapl_post.
 */
static inline __attribute__((always_inline)) DAT_RETURN
ext_atomic(struct dapl_ep *ep, enum dapl_op op, va_list ap)
{
	const int cas = op == DAPL_OP_ATOMIC_CMP_SWAP;
	/* where the arguments sit (DAT_INVALID_ARGn; ARG1 is the EP) */
	const DAT_RETURN_SUBTYPE local_arg =
	    cas ? DAT_INVALID_ARG4 : DAT_INVALID_ARG3;
	const DAT_RETURN_SUBTYPE remote_arg =
	    cas ? DAT_INVALID_ARG6 : DAT_INVALID_ARG5;
	const DAT_RETURN_SUBTYPE flags_arg =
	    cas ? DAT_INVALID_ARG7 : DAT_INVALID_ARG6;
	const uint64_t compare_add = va_arg(ap, DAT_UINT64);
	const uint64_t swap = cas ? va_arg(ap, DAT_UINT64) : 0;
	const DAT_LMR_TRIPLET *const local = va_arg(ap, DAT_LMR_TRIPLET *);
	const DAT_DTO_COOKIE user_cookie = va_arg(ap, DAT_DTO_COOKIE);
	const DAT_RMR_TRIPLET *const remote =
	    va_arg(ap, const DAT_RMR_TRIPLET *);
	const DAT_COMPLETION_FLAGS flags =
	    (DAT_COMPLETION_FLAGS)va_arg(ap, unsigned int);
	DAT_LMR_TRIPLET one;
	struct dapl_sge sge;
	uint64_t total;
	DAT_RETURN rc;

	if (dapl_unlikely(!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP)))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (dapl_unlikely(!dapl_ia_has(ep->obj.ia, DAPL_CAP_ATOMICS)))
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (dapl_unlikely(!local))
		return DAPL_ERR(DAT_INVALID_PARAMETER, local_arg);
	if (dapl_unlikely(local->segment_length < 8))
		return DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (dapl_unlikely(!remote || (remote->target_address & 7)))
		return DAPL_ERR(DAT_INVALID_PARAMETER, remote_arg);
	/* The 8 bytes the device writes, checked against their LMR: the
	 * EP's last-LMR cache, its hit inline (lmr_lookup.h, as a one-segment
	 * post checks its segment; a miss is the table's lookup). */
	one = *local;
	one.segment_length = 8;
	rc = dapl_lmr_check_ep_one(ep, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &one,
				   &sge, &total);
	if (dapl_unlikely(rc)) {
		/* its checks name the local_iov of a post (ARG3) */
		if (DAT_GET_TYPE(rc) == DAT_INVALID_PARAMETER)
			rc = DAPL_ERR(DAT_INVALID_PARAMETER, local_arg);
		return rc;
	}
	if (dapl_unlikely(ep->post_atomic1 == NULL))
		return dapl_dto_post_atomic(ep, op, &sge, user_cookie, flags,
					    remote->target_address,
					    remote->rmr_context, compare_add,
					    swap, flags_arg);
	/* dapl_dto_post_atomic's checks, then the transport's op */
	rc = flags_check(flags, ep->req_flags_refused, flags_arg);
	if (dapl_unlikely(rc))
		return rc;
	return dto_submit_op(ep, op, NULL, &sge, user_cookie, flags, 8,
			     remote->target_address, remote->rmr_context,
			     compare_add, swap);
}

/* An unknown op is refused before the handle is looked at. */
DAT_RETURN dapl_extension_op(DAT_HANDLE handle, int op, va_list args)
{
	switch (op) {
	case DAT_IB_FETCH_AND_ADD_OP:
		return ext_atomic(handle, DAPL_OP_ATOMIC_FETCH_ADD, args);
	case DAT_IB_CMP_AND_SWAP_OP:
		return ext_atomic(handle, DAPL_OP_ATOMIC_CMP_SWAP, args);
	default:
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	}
}
