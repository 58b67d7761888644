/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The post path: one work request built on the stack and one
 * ibv_post_send / ibv_post_recv, nothing else (no allocation, no system
 * call of ours, no lock: udapl holds the EP's, or the consumer opted out
 * of locks (DAPL_NONTHREADSAFE_NOLOCK): the CM thread then only changes
 * the QP's state, through librdmacm or ibv_modify_qp, which libibverbs
 * allows alongside a post; the QP is destroyed by the consumer's calls).  struct dapl_sge has the
 * layout of struct ibv_sge, so the caller's array goes to the device
 * as is; wr_id is the address of the udapl cookie.
 */
#include <errno.h>
#include <stddef.h>

#include "verbs.h"

_Static_assert(sizeof(struct dapl_sge) == sizeof(struct ibv_sge),
	       "dapl_sge must be an ibv_sge");
_Static_assert(
    offsetof(struct dapl_sge, addr) == offsetof(struct ibv_sge, addr) &&
	offsetof(struct dapl_sge, length) == offsetof(struct ibv_sge, length) &&
	offsetof(struct dapl_sge, lkey) == offsetof(struct ibv_sge, lkey),
    "dapl_sge must be an ibv_sge");

_Static_assert((int)DAPL_POST_SIGNALED == (int)IBV_SEND_SIGNALED &&
		       (int)DAPL_POST_FENCE == (int)IBV_SEND_FENCE &&
		       (int)DAPL_POST_SOLICITED == (int)IBV_SEND_SOLICITED &&
		       (int)DAPL_POST_INLINE == (int)IBV_SEND_INLINE,
	       "udapl's post flags must be the verbs send flags");

/*
 * The work request is filled field by field, not zeroed whole (it is
 * larger than all a post sets): what the device library reads for these
 * opcodes on an RC QP is set, the rest it ignores.
 */
DAT_RETURN verbs_post_send(struct dapl_ep *ep, const struct dapl_post *p)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct ibv_send_wr *bad, wr;
	int rc;

	wr.wr_id = (uintptr_t)p->cookie;
	wr.next = NULL;
	wr.sg_list = (struct ibv_sge *)p->sge;
	wr.num_sge = p->num_sge;
	wr.send_flags = p->flags;
	wr.imm_data = 0;
	/* a send is the common post: no switch for it */
	if (dapl_likely(p->op == DAPL_OP_SEND)) {
		wr.opcode = IBV_WR_SEND;
		goto post;
	}
	switch (p->op) {
	case DAPL_OP_RDMA_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = p->remote_addr;
		wr.wr.rdma.rkey = p->rkey;
		break;
	case DAPL_OP_RDMA_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = p->remote_addr;
		wr.wr.rdma.rkey = p->rkey;
		break;
	case DAPL_OP_ATOMIC_FETCH_ADD:
	case DAPL_OP_ATOMIC_CMP_SWAP:
		wr.opcode = p->op == DAPL_OP_ATOMIC_FETCH_ADD
				? IBV_WR_ATOMIC_FETCH_AND_ADD
				: IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = p->remote_addr;
		wr.wr.atomic.rkey = p->rkey;
		wr.wr.atomic.compare_add = p->compare_add;
		wr.wr.atomic.swap = p->swap;
		break;
	case DAPL_OP_BIND_MW:
	case DAPL_OP_LOCAL_INV:
		return verbs_post_mw(ep, p); /* mw.c */
	default:
		return DAPL_ERR(DAT_INVALID_PARAMETER, 0);
	}
post:
	if (dapl_unlikely(!cep || !cep->qp))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	rc = ibv_post_send(cep->qp, &wr, &bad);
	return dapl_likely(!rc) ? DAT_SUCCESS : dapl_post_errno(rc);
}

DAT_RETURN verbs_post_recv(struct dapl_ep *ep, const struct dapl_post *p)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct ibv_recv_wr *bad, wr;
	int rc;

	if (dapl_unlikely(!cep || !cep->qp))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	wr.wr_id = (uintptr_t)p->cookie;
	wr.next = NULL;
	wr.sg_list = (struct ibv_sge *)p->sge;
	wr.num_sge = p->num_sge;
	rc = ibv_post_recv(cep->qp, &wr, &bad);
	return dapl_likely(!rc) ? DAT_SUCCESS : dapl_post_errno(rc);
}

/*
 * The one-segment send and receive (udapl's post_send1/post_recv1):
 * the work requests were built once per endpoint; a post sets the
 * cookie, copies the checked segment and, for a send, the flags.  Each
 * ends in a tail call: the device library's answer goes back as it is,
 * an errno that udapl turns into the DAT error (udapl/transport.h); an
 * endpoint without its queue pair is ENOTCONN.
 */
void verbs_post_init(struct dapl_tp_ep *cep)
{
	cep->send1.next = NULL;
	cep->send1.sg_list = &cep->send1_sge;
	cep->send1.num_sge = 1;
	cep->send1.opcode = IBV_WR_SEND;
	cep->send1.imm_data = 0;
	cep->recv1.next = NULL;
	cep->recv1.sg_list = &cep->recv1_sge;
	cep->recv1.num_sge = 1;
	cep->req1.next = NULL;
	cep->req1.sg_list = &cep->req1_sge;
	cep->req1.num_sge = 1;
	cep->req1.imm_data = 0;
}

int verbs_post_send1(struct dapl_ep *ep, struct dapl_cookie *c,
		     const struct dapl_sge *sge, unsigned flags)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (dapl_unlikely(!cep || !cep->qp))
		return ENOTCONN;
	cep->send1.wr_id = (uintptr_t)c;
	cep->send1.send_flags = flags;
	cep->send1_sge = *(const struct ibv_sge *)sge;
	return ibv_post_send(cep->qp, &cep->send1, &cep->bad_send);
}

int verbs_post_recv1(struct dapl_ep *ep, struct dapl_cookie *c,
		     const struct dapl_sge *sge)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (dapl_unlikely(!cep || !cep->qp))
		return ENOTCONN;
	cep->recv1.wr_id = (uintptr_t)c;
	cep->recv1_sge = *(const struct ibv_sge *)sge;
	return ibv_post_recv(cep->qp, &cep->recv1, &cep->bad_recv);
}

/*
 * The one-segment RDMA write and read and the atomics (udapl's
 * post_write1/post_read1/post_atomic1): one template for the three, of
 * which a post sets the opcode and the remote side as well.
 */
static inline __attribute__((always_inline)) int
verbs_post_req1(struct dapl_tp_ep *cep, struct dapl_cookie *c,
		const struct dapl_sge *sge, unsigned flags)
{
	cep->req1.wr_id = (uintptr_t)c;
	cep->req1.send_flags = flags;
	cep->req1_sge = *(const struct ibv_sge *)sge;
	return ibv_post_send(cep->qp, &cep->req1, &cep->bad_send);
}

/* An RDMA write or read (opcode a constant in each caller). */
static inline __attribute__((always_inline)) int
verbs_post_rdma1(struct dapl_ep *ep, struct dapl_cookie *c,
		 const struct dapl_sge *sge, unsigned flags,
		 enum ibv_wr_opcode opcode, uint64_t remote_addr, uint32_t rkey)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (dapl_unlikely(!cep || !cep->qp))
		return ENOTCONN;
	cep->req1.opcode = opcode;
	cep->req1.wr.rdma.remote_addr = remote_addr;
	cep->req1.wr.rdma.rkey = rkey;
	return verbs_post_req1(cep, c, sge, flags);
}

int verbs_post_write1(struct dapl_ep *ep, struct dapl_cookie *c,
		      const struct dapl_sge *sge, unsigned flags,
		      uint64_t remote_addr, uint32_t rkey)
{
	return verbs_post_rdma1(ep, c, sge, flags, IBV_WR_RDMA_WRITE,
				remote_addr, rkey);
}

int verbs_post_read1(struct dapl_ep *ep, struct dapl_cookie *c,
		     const struct dapl_sge *sge, unsigned flags,
		     uint64_t remote_addr, uint32_t rkey)
{
	return verbs_post_rdma1(ep, c, sge, flags, IBV_WR_RDMA_READ,
				remote_addr, rkey);
}

int verbs_post_atomic1(struct dapl_ep *ep, struct dapl_cookie *c,
		       const struct dapl_sge *sge, unsigned flags,
		       enum dapl_op op, uint64_t remote_addr, uint32_t rkey,
		       uint64_t compare_add, uint64_t swap)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);

	if (dapl_unlikely(!cep || !cep->qp))
		return ENOTCONN;
	cep->req1.opcode = op == DAPL_OP_ATOMIC_FETCH_ADD
			       ? IBV_WR_ATOMIC_FETCH_AND_ADD
			       : IBV_WR_ATOMIC_CMP_AND_SWP;
	cep->req1.wr.atomic.remote_addr = remote_addr;
	cep->req1.wr.atomic.rkey = rkey;
	cep->req1.wr.atomic.compare_add = compare_add;
	cep->req1.wr.atomic.swap = swap;
	return verbs_post_req1(cep, c, sge, flags);
}
