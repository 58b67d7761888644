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
 * is a DAT_IB_DTO_EVENT on the request EVD (evd.c).
 */
#include <stdarg.h>

#include "slots.h"
#include <dat/dat_ib_extensions.h>

/* Where the arguments of an operation sit (DAT_INVALID_ARGn). */
struct ext_args {
	enum dapl_op op;
	uint64_t compare_add, swap;
	DAT_LMR_TRIPLET *local;
	DAT_DTO_COOKIE user_cookie;
	const DAT_RMR_TRIPLET *remote;
	DAT_COMPLETION_FLAGS flags;
	DAT_RETURN_SUBTYPE local_arg, remote_arg, flags_arg;
};

/* Reads the operation's arguments; 0, or -1 for an unknown op. */
static int ext_read(int op, va_list ap, struct ext_args *a)
{
	switch (op) {
	case DAT_IB_FETCH_AND_ADD_OP:
		a->op = DAPL_OP_ATOMIC_FETCH_ADD;
		a->compare_add = va_arg(ap, DAT_UINT64);
		a->swap = 0;
		a->local_arg = DAT_INVALID_ARG3;
		a->remote_arg = DAT_INVALID_ARG5;
		a->flags_arg = DAT_INVALID_ARG6;
		break;
	case DAT_IB_CMP_AND_SWAP_OP:
		a->op = DAPL_OP_ATOMIC_CMP_SWAP;
		a->compare_add = va_arg(ap, DAT_UINT64);
		a->swap = va_arg(ap, DAT_UINT64);
		a->local_arg = DAT_INVALID_ARG4;
		a->remote_arg = DAT_INVALID_ARG6;
		a->flags_arg = DAT_INVALID_ARG7;
		break;
	default:
		return -1;
	}
	a->local = va_arg(ap, DAT_LMR_TRIPLET *);
	a->user_cookie = va_arg(ap, DAT_DTO_COOKIE);
	a->remote = va_arg(ap, const DAT_RMR_TRIPLET *);
	a->flags = (DAT_COMPLETION_FLAGS)va_arg(ap, unsigned int);
	return 0;
}

static DAT_RETURN ext_atomic(struct dapl_ep *ep, const struct ext_args *a)
{
	DAT_LMR_TRIPLET local;
	struct dapl_sge sge;
	uint64_t total;
	DAT_RETURN rc;

	if (!dapl_ia_has(ep->obj.ia, DAPL_CAP_ATOMICS))
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!a->local)
		return DAPL_ERR(DAT_INVALID_PARAMETER, a->local_arg);
	if (a->local->segment_length < 8)
		return DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (!a->remote || (a->remote->target_address & 7))
		return DAPL_ERR(DAT_INVALID_PARAMETER, a->remote_arg);
	/* The 8 bytes the device writes, checked against their LMR: the
	 * EP's last-LMR cache, its hit inline (udapl.h, as a one-segment
	 * post checks its segment; a miss is the table's lookup). */
	local = *a->local;
	local.segment_length = 8;
	rc = dapl_lmr_check_ep_one(ep, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &local,
				   &sge, &total);
	if (rc) {
		/* its checks name the local_iov of a post (ARG3) */
		if (DAT_GET_TYPE(rc) == DAT_INVALID_PARAMETER)
			rc = DAPL_ERR(DAT_INVALID_PARAMETER, a->local_arg);
		return rc;
	}
	return dapl_dto_post_atomic(ep, a->op, &sge, a->user_cookie, a->flags,
				    a->remote->target_address,
				    a->remote->rmr_context, a->compare_add,
				    a->swap, a->flags_arg);
}

DAT_RETURN dapl_extension_op(DAT_HANDLE handle, int op, va_list args)
{
	struct dapl_ep *ep = handle;
	struct ext_args a;
	va_list ap;
	int bad;

	va_copy(ap, args);
	bad = ext_read(op, ap, &a);
	va_end(ap);
	if (bad)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	return ext_atomic(ep, &a);
}
