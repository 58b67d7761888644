/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core of a post, inline (dto.c's posts, and ext.c's atomics, so
 * that each public post is one function with its op a constant): the
 * completion flag rules, the post flags, and dto_submit_op, which takes
 * the cookie and hands the work request to the transport under the
 * EP's lock.
 */
#ifndef UDAPL_DTO_H
#define UDAPL_DTO_H

#include "udapl.h"
#include "slots.h"

/* REQUEST_POST_FLAGS and RECV_POST_FLAGS: udapl.h, beside the EP's
 * limits worked out from them (ep.c dapl_ep_post_limits). */

/* States that take a request: CONNECTED, and DISCONNECTED where the post
 * is flushed at once (the queue pair is in the error state). */
static inline int request_state_ok(DAT_EP_STATE s)
{
	return s == DAT_EP_STATE_CONNECTED || s == DAT_EP_STATE_DISCONNECTED;
}

/* Receives may be posted in every state that has a queue pair. */
static inline int recv_state_ok(DAT_EP_STATE s)
{
	return !((1u << s) & ((1u << DAT_EP_STATE_UNCONFIGURED_UNCONNECTED) |
			      (1u << DAT_EP_STATE_UNCONFIGURED_RESERVED) |
			      (1u << DAT_EP_STATE_UNCONFIGURED_PASSIVE) |
			      (1u << DAT_EP_STATE_UNCONFIGURED_TENTATIVE)));
}

/*
 * The post functions below are forced inline into each public post, so
 * that every one is a single function with its op a constant (the recv
 * and read branches fold away): no call between the checks and the
 * provider's post.
 */
#define DTO_INLINE static inline __attribute__((always_inline))

static inline DAT_RETURN bad_arg(DAT_RETURN_SUBTYPE arg)
{
	return DAPL_ERR(DAT_INVALID_PARAMETER, arg);
}

/*
 * Checks a post's completion flags against the set the EP refuses
 * (ep->req_flags_refused or ep->recv_flags_refused,
 * dapl_ep_post_limits): a flag the post kind does not take, or
 * UNSIGNALLED where the EP's completion flags do not allow it; arg is
 * the subtype of their argument.
 */
static inline DAT_RETURN flags_check(DAT_COMPLETION_FLAGS flags,
				     DAT_COMPLETION_FLAGS refused,
				     DAT_RETURN_SUBTYPE arg)
{
	if (dapl_unlikely(flags & refused))
		return bad_arg(arg);
	return DAT_SUCCESS;
}

/*
 * A request's completion flags (checked against REQUEST_POST_FLAGS, so
 * below 32) as post flags, one table load instead of bit moves: FENCE
 * for BARRIER_FENCE, SOLICITED for SOLICITED_WAIT (kept for a send
 * only), SIGNALED unless SUPPRESS (the consumer wants the completion;
 * dto_submit_op adds it for the half-ring rule too).
 */
_Static_assert(REQUEST_POST_FLAGS < 32 &&
		   !(RECV_POST_FLAGS & DAT_COMPLETION_SUPPRESS_FLAG),
	       "dto_pf's index; a receive is always signaled");
#define DTO_PF(f)                                                              \
	((((f) & DAT_COMPLETION_BARRIER_FENCE_FLAG) ? DAPL_POST_FENCE : 0) |  \
	 (((f) & DAT_COMPLETION_SOLICITED_WAIT_FLAG) ? DAPL_POST_SOLICITED     \
						      : 0) |                   \
	 (((f) & DAT_COMPLETION_SUPPRESS_FLAG) ? 0 : DAPL_POST_SIGNALED))
#define DTO_PF4(f) DTO_PF(f), DTO_PF((f) + 1), DTO_PF((f) + 2), DTO_PF((f) + 3)
#define DTO_PF16(f) DTO_PF4(f), DTO_PF4((f) + 4), DTO_PF4((f) + 8), DTO_PF4((f) + 12)
static const uint8_t dto_pf[32] = {DTO_PF16(0), DTO_PF16(16)};

/*
 * Takes a cookie and posts under ep->lock, after the state check.  The
 * caller filled p's op, SGEs and remote side; total is the local length.
 * What does not depend on the cookie or the EP's state is worked out
 * before the lock, so the locked part is the state check, the cookie
 * and the transport's post.  An IA opened nonthreadsafe with
 * DAPL_NONTHREADSAFE_NOLOCK=1 takes no lock at all (ia.c): dto_submit_op
 * below makes two copies of this, so that neither tests for the lock
 * twice nor keeps the test's answer in a register across the call.
 */
DTO_INLINE DAT_RETURN dto_submit_body(struct dapl_ep *ep, enum dapl_op op,
				      struct dapl_post *p,
				      const struct dapl_sge *one,
				      DAT_DTO_COOKIE user_cookie,
				      DAT_COMPLETION_FLAGS flags,
				      uint64_t total, uint64_t remote_addr,
				      uint32_t rkey, uint64_t compare_add,
				      uint64_t swap, const int locked)
{
	const int recv = op == DAPL_OP_RECV;
	const struct dapl_ops *ops = ep->obj.ia->ops;
	struct dapl_cookie_ring *r = recv ? &ep->recv_ring : &ep->send_ring;
	/* SUPPRESS: no event for a success.  UNSIGNALLED is a
	 * "non-notification completion": the event is still queued, it
	 * only need not wake anybody, which verbs cannot tell apart. */
	uint8_t signaled;
	struct dapl_cookie *c;
	unsigned pf;
	DAT_RETURN rc;

	if (!recv) {
		pf = dto_pf[flags];
		if (op != DAPL_OP_SEND)
			pf &= ~(unsigned)DAPL_POST_SOLICITED;
		if ((op == DAPL_OP_SEND || op == DAPL_OP_RDMA_WRITE) &&
		    total <= ep->max_inline)
			pf |= DAPL_POST_INLINE;
		/* a truth value as it is (the pollers test it for 0) */
		signaled = pf & DAPL_POST_SIGNALED;
	} else {
		/* a receive's flags were checked against RECV_POST_FLAGS,
		 * which has no SUPPRESS: its completion is always wanted */
		signaled = 1;
		pf = 0;
	}
	if (locked)
		dapl_lock(&ep->lock);
	if (dapl_unlikely(recv ? !recv_state_ok(ep->state)
			       : !request_state_ok(ep->state))) {
		rc = dapl_ep_state_error(ep->state);
		goto out;
	}
	c = dapl_cookie_get(r);
	if (dapl_unlikely(!c)) {
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	/* c->ep names ep already (ep_ring.c dapl_ep_ring_alloc); c->rmr is
	 * read only for a bind (rmr.c sets it), so neither is stored here */
	c->user_cookie = user_cookie;
	c->length = total;
	c->op = (uint8_t)op;
	c->signaled = signaled;
	/* Whether the work request asks the transport for a completion:
	 * the consumer's unsignalled posts still get one every half ring
	 * (r->sig_mask, dapl_ep_ring_alloc), or the ring (and the send queue)
	 * would never see its slots retired; the cookie says the consumer
	 * does not want it, so the poller drops it. */
	if (signaled || (c->seq & r->sig_mask) == r->sig_mask)
		pf |= DAPL_POST_SIGNALED;
	/* dat_rmr_bind(3DAT): nothing posted after a bind starts before
	 * the bind completed (a per-EP flag, no queue). */
	if (!recv && dapl_unlikely(ep->rmr_fence))
		pf |= DAPL_POST_FENCE;
	/* read by the poller (evd_dequeue.c cqe_deliver) */
	DAPL_HAPPENS_BEFORE(c);
	if (one) {
		/* the transport's one-segment op (the caller made sure it
		 * has one): no struct dapl_post; op is a constant in each
		 * public post, so this is one call.  It answers 0 or an
		 * errno (transport.h), turned into the DAT error off the
		 * common path. */
		int err;

		if (recv)
			err = ep->post_recv1(ep, c, one);
		else if (op == DAPL_OP_SEND)
			err = ep->post_send1(ep, c, one, pf);
		else if (op == DAPL_OP_RDMA_WRITE)
			err = ep->post_write1(ep, c, one, pf, remote_addr,
					      rkey);
		else if (op == DAPL_OP_RDMA_READ)
			err = ep->post_read1(ep, c, one, pf, remote_addr,
					     rkey);
		else
			err = ep->post_atomic1(ep, c, one, pf, op, remote_addr,
					       rkey, compare_add, swap);
		rc = dapl_likely(!err) ? DAT_SUCCESS : dapl_post_errno(err);
	} else {
		p->flags = pf;
		p->cookie = c;
		rc = recv ? ops->post_recv(ep, p) : ops->post_send(ep, p);
	}
	if (dapl_unlikely(rc))
		dapl_cookie_unget(r);
	else if (!recv && dapl_unlikely(ep->rmr_fence))
		dapl_rmr_fenced(ep);
out:
	if (locked)
		dapl_unlock(&ep->lock);
	return rc;
}

DTO_INLINE DAT_RETURN dto_submit_op(struct dapl_ep *ep, enum dapl_op op,
				    struct dapl_post *p,
				    const struct dapl_sge *one,
				    DAT_DTO_COOKIE user_cookie,
				    DAT_COMPLETION_FLAGS flags, uint64_t total,
				    uint64_t remote_addr, uint32_t rkey,
				    uint64_t compare_add, uint64_t swap)
{
	if (dapl_unlikely(ep->nolock))
		return dto_submit_body(ep, op, p, one, user_cookie, flags,
				       total, remote_addr, rkey, compare_add,
				       swap, 0);
	return dto_submit_body(ep, op, p, one, user_cookie, flags, total,
			       remote_addr, rkey, compare_add, swap, 1);
}

#endif /* UDAPL_DTO_H */
