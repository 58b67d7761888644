/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data transfer posts: the hot path.
 *
 * A post checks the EP (magic, state), the segment count and the
 * completion flags, turns the LMR triplets into a struct dapl_sge array
 * on the stack (dapl_lmr_check_sge, inline in lmr_lookup.h, checks each one
 * against its LMR), takes a cookie from the EP's ring and hands one work
 * request to the provider.  No allocation, no system call of our own,
 * one uncontended lock (ep->lock, lock.h: inline, no call; it orders the
 * ring's head and the state against CM upcalls).
 *
 * The common post, one segment, is cheaper twice: its LMR is found
 * through the EP's last-LMR cache (lmr_lookup.h dapl_lmr_check_ep_hit, inline
 * in the post: the cached LMR's lmr_context, magic and IA compared, then
 * dapl_lmr_check_found's privilege, PZ and bounds checks, as every post
 * makes them; a miss takes the general path out of line), and it goes
 * to the transport's one-segment op (post_send1, post_recv1,
 * post_write1, post_read1; kept in the EP) when it has one, without a
 * struct dapl_post.  Everything
 * else (other segment counts, a transport without those ops, a read cut
 * to nothing) is out of line, so the common post's frame carries none of
 * it.  The atomics' common post is made the same way in ext.c, with
 * dto.h's core and post_atomic1.
 */
#include <errno.h>

#include "dto.h"

/*
 * A post's errno as the device library gave it (a one-segment op's
 * answer, transport.h, or what a transport's post_send/post_recv got):
 * no room in the work queue is DAT_INSUFFICIENT_RESOURCES (of the
 * endpoint), a work request the device refuses DAT_INVALID_PARAMETER,
 * an endpoint without its queue pair DAT_INVALID_STATE, and anything
 * else DAT_INTERNAL_ERROR.
 */
DAT_RETURN dapl_post_errno(int err)
{
	switch (err) {
	case ENOMEM:
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	case EINVAL:
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE);
	case ENOTCONN:
		return DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	default:
		return DAPL_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	}
}

/* A post described by a struct dapl_post (p->op its op). */
DTO_INLINE DAT_RETURN dto_submit(struct dapl_ep *ep, struct dapl_post *p,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS flags, uint64_t total)
{
	return dto_submit_op(ep, p->op, p, NULL, user_cookie, flags, total, 0,
			     0, 0, 0);
}

/* The local side of a post: segment count and triplets into sge[]. */
DTO_INLINE DAT_RETURN dto_local(struct dapl_ep *ep, DAT_COUNT num,
				const DAT_LMR_TRIPLET *iov, DAT_COUNT max,
				DAT_MEM_PRIV_FLAGS need_priv,
				struct dapl_sge *sge, uint64_t *total)
{
	/* One segment is the common post: straight-line, no loop, and
	 * the same two checks as below for num 1 (more than max: only a
	 * max of 0, as an unsigned compare). */
	if (dapl_likely(num == 1)) {
		if (dapl_unlikely(max == 0))
			return bad_arg(DAT_INVALID_ARG2);
		if (dapl_unlikely(!iov))
			return bad_arg(DAT_INVALID_ARG3);
		return dapl_lmr_check_ep_one(ep, need_priv, iov, sge, total);
	}
	if (dapl_unlikely((unsigned)num > (unsigned)max ||
			  num > DAPL_MAX_SGE))
		return bad_arg(DAT_INVALID_ARG2);
	if (dapl_unlikely(num && !iov))
		return bad_arg(DAT_INVALID_ARG3);
	return dapl_lmr_triplets_to_sge(ep, need_priv, num, iov, sge, total);
}

/*
 * The posts that are not the common one, out of line so that the common
 * one's frame carries neither the SGE array nor a struct dapl_post nor
 * their registers: a segment count other than 1, one segment on an EP
 * whose one-segment post is not short (send1_ok/recv1_ok false: an SRQ,
 * no segment allowed, or a transport without the one-segment op), and
 * one segment whose LMR missed the EP's cache.  The handle and flags
 * were checked by the caller; the rest is checked here, in the same
 * order as always.
 */
static __attribute__((noinline)) DAT_RETURN
post_two_sided_many(struct dapl_ep *ep, DAT_COUNT num_segments,
		    const DAT_LMR_TRIPLET *local_iov,
		    DAT_DTO_COOKIE user_cookie, DAT_COMPLETION_FLAGS flags,
		    int recv)
{
	struct dapl_sge sge[DAPL_MAX_SGE];
	struct dapl_post p;
	uint64_t total;
	DAT_RETURN rc;

	/* dat_ep_create_with_srq(3DAT): receives go to the SRQ only. */
	if (recv && ep->srq)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	rc = dto_local(ep, num_segments, local_iov,
		       recv ? ep->attr.max_recv_iov : ep->attr.max_request_iov,
		       recv ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG : 0, sge, &total);
	if (dapl_unlikely(rc))
		return rc;
	if (num_segments == 1 &&
	    (recv ? ep->post_recv1 != NULL : ep->post_send1 != NULL))
		return dto_submit_op(ep, recv ? DAPL_OP_RECV : DAPL_OP_SEND,
				     NULL, sge, user_cookie, flags, total, 0,
				     0, 0, 0);
	p.op = recv ? DAPL_OP_RECV : DAPL_OP_SEND;
	p.sge = sge;
	p.num_sge = num_segments;
	return dto_submit(ep, &p, user_cookie, flags, total);
}

DTO_INLINE DAT_RETURN post_two_sided(DAT_EP_HANDLE ep_handle,
				     DAT_COUNT num_segments,
				     const DAT_LMR_TRIPLET *local_iov,
				     DAT_DTO_COOKIE user_cookie,
				     DAT_COMPLETION_FLAGS flags, int recv)
{
	struct dapl_ep *ep = ep_handle;
	struct dapl_sge one;
	uint64_t total;
	DAT_RETURN rc;

	if (dapl_unlikely(!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP)))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rc = flags_check(flags,
			 recv ? ep->recv_flags_refused : ep->req_flags_refused,
			 DAT_INVALID_ARG5);
	if (dapl_unlikely(rc))
		return rc;
	/* Anything but one segment on an EP whose one-segment post is
	 * short (send1_ok/recv1_ok: no SRQ for a receive, a segment
	 * allowed, the transport's one-segment op) takes the general path,
	 * which makes the remaining checks in their order. */
	if (dapl_unlikely(num_segments != 1 ||
			  !(recv ? ep->recv1_ok : ep->send1_ok)))
		return post_two_sided_many(ep, num_segments, local_iov,
					   user_cookie, flags, recv);
	/* one segment: dto_local's last check for num 1 */
	if (dapl_unlikely(!local_iov))
		return bad_arg(DAT_INVALID_ARG3);
	/* The segment's LMR through the EP's cache (lmr_lookup.h
	 * dapl_lmr_check_ep_hit, inline here); a miss takes the
	 * general path out of line, which makes the same checks with the
	 * table's lookup, so that no call is left before the lock. */
	rc = dapl_lmr_check_ep_hit(ep, recv ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG : 0,
				   local_iov, &one, &total);
	if (dapl_unlikely(rc)) {
		if (rc == DAPL_LMR_MISS)
			return post_two_sided_many(ep, 1, local_iov,
						   user_cookie, flags, recv);
		return rc;
	}
	/* The transport has the one-segment op (send1_ok/recv1_ok): the
	 * segment goes to it as it is, no struct dapl_post. */
	return dto_submit_op(ep, recv ? DAPL_OP_RECV : DAPL_OP_SEND, NULL,
			     &one, user_cookie, flags, total, 0, 0, 0, 0);
}

DAT_RETURN dapl_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			     DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie,
			     DAT_COMPLETION_FLAGS completion_flags)
{
	return post_two_sided(ep_handle, num_segments, local_iov, user_cookie,
			      completion_flags, 0);
}

DAT_RETURN dapl_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			     DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie,
			     DAT_COMPLETION_FLAGS completion_flags)
{
	return post_two_sided(ep_handle, num_segments, local_iov, user_cookie,
			      completion_flags, 1);
}

/*
 * An RDMA read fills the local segments in order with the remote buffer:
 * a local buffer smaller than the remote one is DAT_LENGTH_ERROR, a larger
 * one is cut to the remote length (the transport reads what the SGEs
 * say).  A write may not carry more than the remote buffer holds.
 */
static inline DAT_RETURN rdma_fit(struct dapl_post *p, uint64_t *total,
				  uint64_t remote_len, int read)
{
	uint64_t left = remote_len;
	int i;

	if (!read)
		return *total <= remote_len
			   ? DAT_SUCCESS
			   : DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	if (*total == remote_len)
		return DAT_SUCCESS;
	if (*total < remote_len)
		return DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	for (i = 0; i < p->num_sge && left; i++) {
		if (p->sge[i].length > left)
			p->sge[i].length = (uint32_t)left;
		left -= p->sge[i].length;
	}
	p->num_sge = i;
	*total = remote_len;
	return DAT_SUCCESS;
}

/*
 * An RDMA post that is not the common one, out of line (as
 * post_two_sided_many): a segment count other than 1, from the segment
 * checks on; one segment whose LMR missed the EP's cache (the cache is
 * refilled here, and the segment goes to the transport's one-segment op
 * as on a hit); a read of one segment cut to nothing (a remote length of
 * 0: no segment left).  The checks before were made by the caller.
 */
static __attribute__((noinline)) DAT_RETURN
post_rdma_many(struct dapl_ep *ep, DAT_COUNT num_segments,
	       const DAT_LMR_TRIPLET *local_iov, DAT_DTO_COOKIE user_cookie,
	       const DAT_RMR_TRIPLET *remote_iov, DAT_COMPLETION_FLAGS flags,
	       int read)
{
	struct dapl_sge sge[DAPL_MAX_SGE];
	struct dapl_post p;
	uint64_t total;
	DAT_RETURN rc;

	rc = dto_local(ep, num_segments, local_iov,
		       read ? ep->attr.max_rdma_read_iov
			    : ep->attr.max_rdma_write_iov,
		       read ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG : 0, sge, &total);
	if (dapl_unlikely(rc))
		return rc;
	p.sge = sge;
	p.num_sge = num_segments;
	rc = rdma_fit(&p, &total, remote_iov->segment_length, read);
	if (dapl_unlikely(rc))
		return rc;
	p.op = read ? DAPL_OP_RDMA_READ : DAPL_OP_RDMA_WRITE;
	p.remote_addr = remote_iov->target_address;
	p.rkey = remote_iov->rmr_context;
	if (p.num_sge == 1 &&
	    (read ? ep->post_read1 != NULL : ep->post_write1 != NULL))
		return dto_submit_op(ep, p.op, NULL, sge, user_cookie, flags,
				     total, p.remote_addr, p.rkey, 0, 0);
	return dto_submit(ep, &p, user_cookie, flags, total);
}

/* One checked segment through post_send, for a transport without the
 * one-segment op: one per op, each the op's own straight line. */
DTO_INLINE DAT_RETURN post_rdma_post(struct dapl_ep *ep, struct dapl_sge *one,
				     DAT_DTO_COOKIE user_cookie,
				     DAT_COMPLETION_FLAGS flags, uint64_t total,
				     const DAT_RMR_TRIPLET *remote_iov,
				     int read)
{
	struct dapl_post p;

	p.op = read ? DAPL_OP_RDMA_READ : DAPL_OP_RDMA_WRITE;
	p.sge = one;
	p.num_sge = 1;
	p.remote_addr = remote_iov->target_address;
	p.rkey = remote_iov->rmr_context;
	return dto_submit(ep, &p, user_cookie, flags, total);
}

static __attribute__((noinline)) DAT_RETURN
post_write_post(struct dapl_ep *ep, struct dapl_sge *one,
		DAT_DTO_COOKIE user_cookie, DAT_COMPLETION_FLAGS flags,
		uint64_t total, const DAT_RMR_TRIPLET *remote_iov)
{
	return post_rdma_post(ep, one, user_cookie, flags, total, remote_iov,
			      0);
}

static __attribute__((noinline)) DAT_RETURN
post_read_post(struct dapl_ep *ep, struct dapl_sge *one,
	       DAT_DTO_COOKIE user_cookie, DAT_COMPLETION_FLAGS flags,
	       uint64_t total, const DAT_RMR_TRIPLET *remote_iov)
{
	return post_rdma_post(ep, one, user_cookie, flags, total, remote_iov,
			      1);
}

/*
 * The checks of an RDMA post, in the order of the general path: the
 * handle, the flags (ARG6), the remote triplet (ARG5), then the local
 * segments (dto_local: count ARG2, iov ARG3, each LMR), then rdma_fit.
 * One segment (the common post) is done here, straight-line: the LMR
 * through the EP's cache as post_two_sided does, rdma_fit for one
 * segment, and the transport's post_write1/post_read1.
 */
DTO_INLINE DAT_RETURN post_rdma(DAT_EP_HANDLE ep_handle,
				DAT_COUNT num_segments,
				const DAT_LMR_TRIPLET *local_iov,
				DAT_DTO_COOKIE user_cookie,
				const DAT_RMR_TRIPLET *remote_iov,
				DAT_COMPLETION_FLAGS flags, int read)
{
	struct dapl_ep *ep = ep_handle;
	struct dapl_sge one;
	uint64_t total, rlen;
	DAT_RETURN rc;

	if (dapl_unlikely(!dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP)))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	rc = flags_check(flags, ep->req_flags_refused, DAT_INVALID_ARG6);
	if (dapl_unlikely(rc))
		return rc;
	if (dapl_unlikely(!remote_iov))
		return bad_arg(DAT_INVALID_ARG5);
	if (dapl_unlikely(num_segments != 1))
		return post_rdma_many(ep, num_segments, local_iov, user_cookie,
				      remote_iov, flags, read);
	/* one segment: dto_local's checks for num 1 */
	if (dapl_unlikely((read ? ep->attr.max_rdma_read_iov
				: ep->attr.max_rdma_write_iov) == 0))
		return bad_arg(DAT_INVALID_ARG2);
	if (dapl_unlikely(!local_iov))
		return bad_arg(DAT_INVALID_ARG3);
	/* a read's target is written by the device */
	rc = dapl_lmr_check_ep_hit(ep, read ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG : 0,
				   local_iov, &one, &total);
	if (dapl_unlikely(rc)) {
		if (rc == DAPL_LMR_MISS)
			return post_rdma_many(ep, 1, local_iov, user_cookie,
					      remote_iov, flags, read);
		return rc;
	}
	/* rdma_fit for one segment */
	rlen = remote_iov->segment_length;
	if (read) {
		if (dapl_unlikely(total < rlen))
			return DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
		if (dapl_unlikely(total > rlen)) {
			/* cut to the remote length; cut to nothing, no
			 * segment is left: the general path */
			if (dapl_unlikely(!rlen))
				return post_rdma_many(ep, 1, local_iov,
						      user_cookie, remote_iov,
						      flags, read);
			one.length = (uint32_t)rlen;
			total = rlen;
		}
	} else if (dapl_unlikely(total > rlen)) {
		return DAPL_ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
	}
	if (dapl_unlikely(read ? ep->post_read1 == NULL
			       : ep->post_write1 == NULL))
		return read ? post_read_post(ep, &one, user_cookie, flags,
					     total, remote_iov)
			    : post_write_post(ep, &one, user_cookie, flags,
					      total, remote_iov);
	return dto_submit_op(ep, read ? DAPL_OP_RDMA_READ : DAPL_OP_RDMA_WRITE,
			     NULL, &one, user_cookie, flags, total,
			     remote_iov->target_address,
			     remote_iov->rmr_context, 0, 0);
}

DAT_RETURN dapl_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags)
{
	return post_rdma(ep_handle, num_segments, local_iov, user_cookie,
			 remote_iov, completion_flags, 1);
}

DAT_RETURN dapl_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				   DAT_COUNT num_segments,
				   DAT_LMR_TRIPLET *local_iov,
				   DAT_DTO_COOKIE user_cookie,
				   const DAT_RMR_TRIPLET *remote_iov,
				   DAT_COMPLETION_FLAGS completion_flags)
{
	return post_rdma(ep_handle, num_segments, local_iov, user_cookie,
			 remote_iov, completion_flags, 0);
}

/*
 * One 8-byte atomic of the extension through post_send, for a transport
 * without post_atomic1 (ext.c makes the common one itself, after its own
 * argument checks and the segment's): the request path of a post, with
 * the EP's flag, state and cookie rules; the original value lands in
 * sge.
 */
DAT_RETURN dapl_dto_post_atomic(struct dapl_ep *ep, enum dapl_op op,
				struct dapl_sge *sge,
				DAT_DTO_COOKIE user_cookie,
				DAT_COMPLETION_FLAGS flags, uint64_t remote_addr,
				uint32_t rkey, uint64_t compare_add,
				uint64_t swap, DAT_RETURN_SUBTYPE flags_arg)
{
	struct dapl_post p;
	DAT_RETURN rc;

	rc = flags_check(flags, ep->req_flags_refused, flags_arg);
	if (dapl_unlikely(rc))
		return rc;
	p.op = op;
	p.sge = sge;
	p.num_sge = 1;
	p.remote_addr = remote_addr;
	p.rkey = rkey;
	p.compare_add = compare_add;
	p.swap = swap;
	return dto_submit(ep, &p, user_cookie, flags, sge->length);
}
