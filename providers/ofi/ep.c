/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EPs: one FI_EP_RDM data endpoint each, and two rings of ops (requests,
 * receives) in posting order.
 *
 * A post takes the next op of its ring and issues it at once unless an
 * earlier op of the ring is still held or this one must wait; held ops
 * go out in order as soon as they may (ofi_ring_kick: after a
 * completion, a key answer, or an engine round).  An op waits for:
 *   - DAT_COMPLETION_BARRIER_FENCE_FLAG (and the fence after an RMR
 *     bind): every earlier request complete;
 *   - a send after RDMA writes: those writes complete, so that the
 *     written data is in place when the send arrives (rxm neither orders
 *     nor fences them itself);
 *   - an RDMA to a key we do not know yet (its base, where the provider
 *     addresses RMA by offset: rxm; its range and privileges, which shm
 *     checks nowhere): the peer is asked (cm.c KEYQ) and the op goes
 *     once it answered, unless the peer told it with the send that
 *     carried it (KEYN) or, over shm, its key table lists it (keytab.c,
 *     ofi_op_issue_tab: no question at all);
 *   - -FI_EAGAIN: the engine tries again next round;
 *   - a memory window bind (rmr.c): every earlier request complete, then
 *     the engine registers the window and, where a key was revoked,
 *     waits for the peer's confirmation.
 * Nothing spins in a post and -FI_EAGAIN never reaches the consumer.
 * Atomics go like RDMA (translated, checked against the peer's
 * registration: atomic.c).  Once a request fails, nothing more of the EP
 * is issued (halted, as a verbs QP in error): the connection breaks and
 * flushes the rest.  A request that never completes fails after
 * DAPL_OFI_DTO_TIMEOUT_MS (ofi_ep_stuck, at the end).
 *
 * Completions are handed to udapl in posting order per ring (cq.c):
 * rxm completes out of order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofi.h"
#include "data.h"
#include "keytab.h"

/* ocq and oep locked: a ring whose oldest op is done is ready.  A ring
 * without an EVD retires its done ops at once. */
void ofi_ring_ready(struct ofi_ring *r)
{
	struct ofi_op *op;

	while (r->emitted != r->posted) {
		op = &r->op[r->emitted & (r->size - 1)];
		if (op->state != OFI_OP_DONE)
			return;
		if (r->ocq) {
			if (!r->on_ready) {
				dapl_list_add_tail(&r->ocq->ready,
						   &r->ready_link);
				r->on_ready = 1;
			}
			return;
		}
		op->state = OFI_OP_FREE;
		r->emitted++;
	}
}

/* oep locked: op ends here, outside any CQ read; the engine makes its
 * ring ready (it needs the CQ's lock, which comes before ours). */
static void ofi_op_fail(struct dapl_tp_ep *oep, struct ofi_op *op,
			DAT_DTO_COMPLETION_STATUS st)
{
	ofi_mw_unhold(op);
	op->state = OFI_OP_DONE;
	op->status = st;
	op->len = 0;
	if (st != DAT_DTO_ERR_FLUSHED)
		oep->halted = 1;
	ofi_ep_want(oep, OFI_WORK_READY);
	dapl_progress_kick(oep->oia->ia);
}

static uint64_t ofi_op_total(const struct ofi_op *op)
{
	uint64_t t = 0;
	unsigned i;

	for (i = 0; i < op->num; i++)
		t += op->iov[i].iov_len;
	return t;
}

/* What the op needs of the target's registration (OFI_PERM_*). */
static uint8_t ofi_op_perm(const struct ofi_op *op)
{
	switch (op->op) {
	case DAPL_OP_RDMA_READ:
		return OFI_PERM_READ;
	case DAPL_OP_RDMA_WRITE:
		return OFI_PERM_WRITE;
	default:
		return OFI_PERM_ATOMIC;
	}
}

/* Does a registration of base, len and privileges perm (OFI_PERM_*)
 * hold all of op's target range, with the privilege op needs? */
static int ofi_op_allowed(const struct ofi_op *op, uint64_t base,
			  uint64_t len, uint32_t perm)
{
	uint64_t total = ofi_op_total(op);

	return op->remote_addr >= base && op->remote_addr - base <= len &&
	       total <= len - (op->remote_addr - base) &&
	       (perm & ofi_op_perm(op));
}

/* oep locked: its OFI_WORK_KEYS is set.  Who sends the query: the
 * consumer's next poll of the request EVD if a consumer spins on it (cq.c
 * ofi_cq_serve_maybe, progress.c ofi_progress_ctl), which drains the control
 * CQ first (a KEYN the peer sent with the key may be there already);
 * else the engine. */
static void ofi_ep_keys_wanted(struct dapl_tp_ep *oep)
{
	struct dapl_tp_evd *ocq = oep->sq.ocq;

	__atomic_store_n(&oep->oia->keys_wanted, 1, __ATOMIC_RELEASE);
	if (ocq && oep->oia->serve &&
	    __atomic_load_n(&ocq->spinning, __ATOMIC_RELAXED))
		__atomic_store_n(&ocq->serve_now, 1, __ATOMIC_RELEASE);
	else
		dapl_progress_kick(oep->oia->ia);
}

/*
 * The target address of an RDMA or atomic: the consumer's virtual
 * address where the provider takes those (shm), else its offset in the
 * peer's registration (rxm).  1: known (*addr), 0: not yet (the op
 * waits), -1: no such registration, outside it, or without the privilege
 * the op needs.  The peer's answer about the key is asked for either
 * way: libfabric checks no atomic privilege, and shm neither a key nor a
 * range (it reads and writes the peer's memory itself), so these checks
 * are what gives DAT_DTO_ERR_REMOTE_ACCESS there.  *fkey: the key the
 * op goes with, the registration's libfabric key of the answer (the DAT
 * key itself unless the provider picks keys: FI_MR_PROV_KEY, verbs).
 */
static int ofi_rma_addr(struct dapl_tp_ep *oep, const struct ofi_op *op,
			uint64_t *addr, uint64_t *fkey)
{
	struct ofi_keycache *k;

	k = &oep->keys[op->rkey % OFI_KEYCACHE];
	if (k->key != op->rkey || k->state == OFI_KEY_EMPTY) {
		/* another key's query in flight keeps its slot */
		if (k->state == OFI_KEY_WANTED || k->state == OFI_KEY_ASKED)
			return 0;
		k->key = op->rkey;
		k->state = OFI_KEY_WANTED;
		ofi_ep_want(oep, OFI_WORK_KEYS);
		ofi_ep_keys_wanted(oep);
		return 0;
	}
	switch (k->state) {
	case OFI_KEY_KNOWN:
		if (!ofi_op_allowed(op, k->base, k->len, k->perm))
			return -1;
		*addr = oep->oia->fab.virt_addr ? op->remote_addr
					    : op->remote_addr - k->base;
		*fkey = k->fkey;
		return 1;
	case OFI_KEY_BAD:
		return -1;
	default:
		return 0;
	}
}

/*
 * oep locked: what an RDMA or an atomic waits for before it is issued:
 * the fence, then its target address (*addr).  1: it must wait; 0: it
 * failed (completed with DAT_DTO_ERR_REMOTE_ACCESS, the EP breaks);
 * OFI_TARGET_READY: issue it.
 */
#define OFI_TARGET_READY 2
static int ofi_op_target(struct dapl_tp_ep *oep, struct ofi_op *op,
			 uint64_t *addr, uint64_t *fkey)
{
	int rc;

	if (op->fence && oep->ops_out)
		return 1;
	rc = ofi_rma_addr(oep, op, addr, fkey);
	if (rc == 0)
		return 1;
	if (rc < 0) {
		dapl_dbg(DAPL_DBG_EP,
			 "ofi: RDMA with key %u at 0x%llx refused here (key %s)",
			 (unsigned)op->rkey,
			 (unsigned long long)op->remote_addr,
			 oep->keys[op->rkey % OFI_KEYCACHE].state == OFI_KEY_BAD
				 ? "unknown or revoked"
				 : "known: range or privilege");
		ofi_op_fail(oep, op, DAT_DTO_ERR_REMOTE_ACCESS);
		ofi_ep_want(oep, OFI_WORK_BROKEN);
		return 0;
	}
	return OFI_TARGET_READY;
}

/*
 * oep locked: what an RDMA write asks for beyond FI_COMPLETION.  A write
 * completes once its data is at the target (FI_DELIVERY_COMPLETE): DAT's
 * completion says the data is there.  Over shm with CMA that holds of
 * itself: libfabric 1.17's shm writes into the target with
 * process_vm_writev before fi_writemsg returns (its "fast RMA": one
 * segment at the target, FI_MR_VIRT_ADDR, no RMA ordering asked, and
 * neither FI_DELIVERY_COMPLETE nor remote CQ data), and reads the same
 * byte of our region as ofi_shm_guard_cma to decide.  Asking for delivery
 * there would instead make the write a command that the target's library
 * carries out when it progresses: a target that calls nothing then waits
 * for its engine to wake (issue 35: an RDMA-write ping-pong 9 x raw
 * libfabric's; issue 38).  Without CMA (FI_SHM_DISABLE_CMA, ptrace
 * limits) the byte says no and the write asks for delivery, as before.
 */
static uint64_t ofi_write_flags(const struct dapl_tp_ep *oep)
{
	return oep->guard && ofi_shm_guard_cma(oep->guard)
		   ? 0
		   : FI_DELIVERY_COMPLETE;
}

/* oep locked: an RDMA read or write of op to target address or offset
 * addr of the registration of libfabric key fkey; a write with wflags
 * beyond FI_COMPLETION (ofi_write_flags).  As fi_readmsg/fi_writemsg. */
static int ofi_rma_issue(struct dapl_tp_ep *oep, struct ofi_op *op,
			 uint64_t addr, uint64_t fkey, uint64_t wflags)
{
	struct fi_msg_rma rma;
	struct fi_rma_iov riov;

	riov.addr = addr;
	riov.len = ofi_op_total(op);
	riov.key = fkey;
	rma.msg_iov = op->iov;
	rma.desc = NULL;
	rma.iov_count = op->num;
	rma.addr = oep->peer;
	rma.rma_iov = &riov;
	rma.rma_iov_count = 1;
	rma.context = op;
	rma.data = 0;
	if (op->op == DAPL_OP_RDMA_READ)
		return (int)fi_readmsg(oep->fep, &rma, FI_COMPLETION);
	op->cma = !wflags;
	return (int)fi_writemsg(oep->fep, &rma, FI_COMPLETION | wflags);
}

/*
 * oep locked, shm with the peer's key table (keytab.c): an RDMA read or
 * write through a key the table lists goes out at once, by CMA, with
 * neither a key query nor, at the target's dat_lmr_free, a revocation
 * round trip.  The key is marked busy in our own table before the slot
 * is read and until the CMA call returned (keytab.c says why).  What the
 * table does not decide (no CMA towards the peer, every busy mark taken,
 * a key it does not list: freed, or its slot held by another) goes the
 * message way: OFI_TAB_NOT.  Else as ofi_op_issue.
 */
#define OFI_TAB_NOT 2
static int ofi_op_issue_tab(struct dapl_tp_ep *oep, struct ofi_op *op)
{
	struct ofi_keytab *own = oep->oia->keytab;
	uint64_t base, len;
	uint32_t perm;
	int busy, rc;

	if (!ofi_shm_guard_cma(oep->guard))
		return OFI_TAB_NOT;
	if (op->fence && oep->ops_out)
		return 1;
	busy = ofi_keytab_claim(own, op->rkey);
	if (busy < 0)
		return OFI_TAB_NOT;
	if (!ofi_keytab_find(oep->peer_tab, op->rkey, &perm, &base, &len)) {
		ofi_keytab_release(own, busy);
		return OFI_TAB_NOT;
	}
	if (!ofi_op_allowed(op, base, len, perm)) {
		ofi_keytab_release(own, busy);
		dapl_dbg(DAPL_DBG_EP,
			 "ofi: RDMA with key %u at 0x%llx refused here (the "
			 "peer's table: range or privilege)",
			 (unsigned)op->rkey,
			 (unsigned long long)op->remote_addr);
		ofi_op_fail(oep, op, DAT_DTO_ERR_REMOTE_ACCESS);
		ofi_ep_want(oep, OFI_WORK_BROKEN);
		return 0;
	}
	/* shm: FI_MR_VIRT_ADDR, the key is ours (no FI_MR_PROV_KEY), and
	 * a write by CMA (ofi_write_flags) */
	rc = ofi_rma_issue(oep, op, op->remote_addr, op->rkey, 0);
	ofi_keytab_release(own, busy);
	return rc;
}

/* oep locked: issues op; 0, 1 (must wait), or a negative fi error. */
static int ofi_op_issue(struct dapl_tp_ep *oep, struct ofi_op *op)
{
	struct fi_msg msg;
	uint64_t addr = 0, fkey = 0;
	int rc;

	switch (op->op) {
	case DAPL_OP_RECV:
		msg.msg_iov = op->iov;
		msg.desc = NULL;
		msg.iov_count = op->num;
		msg.addr = FI_ADDR_UNSPEC;
		msg.context = op;
		msg.data = 0;
		return (int)fi_recvmsg(oep->fep, &msg, FI_COMPLETION);
	case DAPL_OP_SEND:
		if ((op->fence && oep->ops_out) || oep->writes_out)
			return 1;
		msg.msg_iov = op->iov;
		msg.desc = NULL;
		msg.iov_count = op->num;
		msg.addr = oep->peer;
		msg.context = op;
		msg.data = 0;
		return (int)fi_sendmsg(oep->fep, &msg, FI_COMPLETION);
	case DAPL_OP_RDMA_WRITE:
	case DAPL_OP_RDMA_READ:
		if (ofi_ep_tab_ok(oep)) {
			rc = ofi_op_issue_tab(oep, op);
			if (rc != OFI_TAB_NOT)
				return rc;
		}
		rc = ofi_op_target(oep, op, &addr, &fkey);
		if (rc != OFI_TARGET_READY)
			return rc;
		return ofi_rma_issue(oep, op, addr, fkey,
				     ofi_write_flags(oep));
	case DAPL_OP_ATOMIC_FETCH_ADD:
	case DAPL_OP_ATOMIC_CMP_SWAP:
		rc = ofi_op_target(oep, op, &addr, &fkey);
		if (rc != OFI_TARGET_READY)
			return rc;
		return ofi_atomic_issue(oep, op, addr, fkey); /* atomic.c */
	case DAPL_OP_BIND_MW:
		/* the DAT fence: every earlier request complete; then the
		 * engine registers the window (rmr.c ofi_mw_run) */
		if (!oep->ops_out) {
			ofi_ep_want(oep, OFI_WORK_BIND);
			dapl_progress_kick(oep->oia->ia);
		}
		return 1;
	default:
		ofi_op_fail(oep, op, DAT_DTO_ERR_LOCAL_EP);
		return 0;
	}
}

void ofi_ring_kick(struct ofi_ring *r)
{
	struct dapl_tp_ep *oep = r->oep;
	struct ofi_op *op;
	int rc;

	while (r->issued != r->posted) {
		op = &r->op[r->issued & (r->size - 1)];
		if (op->state != OFI_OP_HELD) { /* failed already */
			r->issued++;
			continue;
		}
		if (!oep->fep && !oep->flushed)
			return; /* MSG: not connected yet (ofi_ep_attach) */
		/* halted: the break's flush completes what waits here; a
		 * request posted after that flush (udapl saw the EP still
		 * connected: the BROKEN upcall was on its way) is flushed
		 * below, else it would wait for ever */
		if (oep->halted && oep->fep)
			return;
		if (!oep->fep) {
			ofi_op_fail(oep, op, DAT_DTO_ERR_FLUSHED);
			r->issued++;
			continue;
		}
		rc = ofi_op_issue(oep, op);
		if (rc == 1)
			return;
		if (rc == -FI_EAGAIN) {
			ofi_ep_want(oep, OFI_WORK_RETRY);
			dapl_progress_kick(oep->oia->ia);
			/* shm: the target's queue may be full of what only
			 * its progress empties (the CMA writes' notices) */
			if (oep->bell_to_len)
				ofi_wake_ring(oep);
			return;
		}
		if (rc < 0) {
			dapl_dbg(DAPL_DBG_EP, "ofi: post: %s", fi_strerror(-rc));
			ofi_op_fail(oep, op, DAT_DTO_ERR_LOCAL_EP);
		} else if (op->state == OFI_OP_HELD) {
			op->state = OFI_OP_ISSUED;
			if (r == &oep->sq) {
				oep->ops_out++;
				/* shm: a target that calls nothing learns of
				 * it only if its engine wakes (wake.c).  A
				 * CMA write is at the target already; it
				 * leaves a notice in the target's queue
				 * that the target's progress removes, so
				 * every 64th rings (the queue holds 1,024) */
				if (oep->bell_to_len &&
				    op->op == DAPL_OP_RDMA_WRITE && op->cma) {
					if (!(oep->cma_writes++ & 63))
						ofi_wake_ring(oep);
				} else if (oep->bell_to_len &&
					   oep->ops_out == 1 &&
					   op->op != DAPL_OP_SEND &&
					   op->op != DAPL_OP_RDMA_READ) {
					ofi_wake_ring_op(oep, op);
				}
				if (ofi_op_undelivered_write(op))
					oep->writes_out++;
				else if (op->op == DAPL_OP_SEND)
					op->send_no =
					    (uint32_t)oep->sends_issued++;
			}
		}
		r->issued++;
	}
}

void ofi_op_complete(struct ofi_op *op, DAT_DTO_COMPLETION_STATUS st,
		     uint32_t len)
{
	struct ofi_ring *r = op->ring;
	struct dapl_tp_ep *oep = r->oep;

	if (op->state != OFI_OP_ISSUED)
		return; /* flushed meanwhile */
	op->state = OFI_OP_DONE;
	op->status = st;
	op->len = op->op == DAPL_OP_RECV ? len : 0;
	ofi_op_account(oep, r, op);
	if (st != DAT_DTO_SUCCESS && st != DAT_DTO_ERR_FLUSHED) {
		oep->halted = 1;
		ofi_ep_want(oep, OFI_WORK_BROKEN);
		dapl_progress_kick(oep->oia->ia);
	}
	ofi_ring_ready(r);
	/* what this completion lets go: requests held behind it (a fence,
	 * a send after writes); nothing if none is held */
	if (oep->sq.issued != oep->sq.posted)
		ofi_ring_kick(&oep->sq);
}

/* ---- posts ---- */

/* oep locked: the next op of r with what every post sets, or NULL if
 * the ring is full (every slot posted and not yet handed to udapl). */
static inline __attribute__((always_inline)) struct ofi_op *
ofi_op_next(struct ofi_ring *r, uint8_t opcode, unsigned flags, int num,
	    uint64_t wr_id, uint64_t remote_addr, uint32_t rkey)
{
	struct ofi_op *op;

	if (dapl_unlikely(r->posted - r->emitted >= r->size))
		return NULL;
	op = &r->op[r->posted & (r->size - 1)];
	op->seq = r->posted;
	op->op = opcode;
	op->fence = !!(flags & DAPL_POST_FENCE);
	op->num = (uint8_t)num;
	op->wr_id = wr_id;
	op->remote_addr = remote_addr;
	op->rkey = rkey;
	op->status = DAT_DTO_SUCCESS;
	op->len = 0;
	op->rmr = NULL;
	return op;
}

/* oep locked: op, filled, goes out now or in its turn (ofi_ring_kick) */
static inline __attribute__((always_inline)) void
ofi_op_post(struct ofi_ring *r, struct ofi_op *op)
{
	op->state = OFI_OP_HELD;
	r->posted++;
	ofi_ring_kick(r);
}

static DAT_RETURN ofi_post(struct dapl_ep *ep, struct ofi_ring *r,
			   const struct dapl_post *p)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct ofi_op *op;
	int i;

	if (dapl_unlikely(!oep))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (dapl_unlikely((uint32_t)p->num_sge > r->iov_per_op))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	dapl_lock(&oep->lock);
	op = ofi_op_next(r, (uint8_t)p->op, p->flags, p->num_sge,
			 (uint64_t)(uintptr_t)p->cookie, p->remote_addr,
			 p->rkey);
	if (dapl_unlikely(!op)) {
		dapl_unlock(&oep->lock);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	op->operand[0] = p->compare_add;
	op->operand[1] = p->swap;
	if (p->op == DAPL_OP_BIND_MW) {
		DAT_RETURN rc = ofi_mw_post(oep, op, p); /* bind.c */

		if (rc) {
			dapl_unlock(&oep->lock);
			return rc;
		}
	}
	for (i = 0; i < p->num_sge; i++) {
		op->iov[i].iov_base = (void *)(uintptr_t)p->sge[i].addr;
		op->iov[i].iov_len = p->sge[i].length;
		op->lkey[i] = p->sge[i].lkey;
	}
	ofi_op_post(r, op);
	dapl_unlock(&oep->lock);
	return DAT_SUCCESS;
}

/*
 * oep locked: the send or receive just filled (one segment) goes out at
 * once, without ofi_ring_kick's loop, when nothing of its ring is held
 * and it waits for nothing: the same call and bookkeeping ofi_ring_kick
 * makes for it (a send rings no doorbell there either).  0: issued and
 * posted; 1: it goes the ring's way instead (ofi_op_post), where
 * whatever libfabric answered (-FI_EAGAIN, an error) is met as ever, by
 * issuing it again.
 */
static inline __attribute__((always_inline)) int
ofi_op_post_now(struct dapl_tp_ep *oep, struct ofi_ring *r,
		struct ofi_op *op)
{
	struct fi_msg msg;
	ssize_t rc;

	if (dapl_unlikely(r->issued != r->posted || !oep->fep ||
			  oep->halted))
		return 1;
	msg.msg_iov = op->iov;
	msg.desc = NULL;
	msg.iov_count = 1;
	msg.context = op;
	msg.data = 0;
	if (op->op == DAPL_OP_RECV) {
		msg.addr = FI_ADDR_UNSPEC;
		rc = fi_recvmsg(oep->fep, &msg, FI_COMPLETION);
	} else {
		if (dapl_unlikely((op->fence && oep->ops_out) ||
				  oep->writes_out))
			return 1;
		msg.addr = oep->peer;
		rc = fi_sendmsg(oep->fep, &msg, FI_COMPLETION);
	}
	if (dapl_unlikely(rc))
		return 1;
	op->state = OFI_OP_ISSUED;
	r->posted++;
	r->issued++;
	if (op->op == DAPL_OP_SEND) {
		oep->ops_out++;
		op->send_no = (uint32_t)oep->sends_issued++;
	}
	return 0;
}

/*
 * The one-segment send, receive, RDMA write and read (udapl's
 * post_send1 ... post_read1, transport.h): what ofi_post does for one
 * checked segment, without a struct dapl_post or udapl's general
 * segment path before it.  Answers an errno, which udapl turns into the
 * DAT error ofi_post gives: ENOTCONN (no endpoint: DAT_INVALID_STATE),
 * ENOMEM (the ring is full: DAT_INSUFFICIENT_RESOURCES, TEP).  Atomics
 * keep the general path: an IA without them answers
 * DAT_MODEL_NOT_SUPPORTED, which no errno says.
 */
static inline __attribute__((always_inline)) int
ofi_post1(struct dapl_tp_ep *oep, struct ofi_ring *r, uint8_t opcode,
	  unsigned flags, struct dapl_cookie *c, const struct dapl_sge *sge,
	  uint64_t remote_addr, uint32_t rkey)
{
	struct ofi_op *op;

	dapl_lock(&oep->lock);
	op = ofi_op_next(r, opcode, flags, 1, (uint64_t)(uintptr_t)c,
			 remote_addr, rkey);
	if (dapl_unlikely(!op)) {
		dapl_unlock(&oep->lock);
		return ENOMEM;
	}
	op->iov[0].iov_base = (void *)(uintptr_t)sge->addr;
	op->iov[0].iov_len = sge->length;
	op->lkey[0] = sge->lkey;
	/* opcode is a constant in each caller: the test folds away */
	if ((opcode == DAPL_OP_SEND || opcode == DAPL_OP_RECV) &&
	    !ofi_op_post_now(oep, r, op)) {
		dapl_unlock(&oep->lock);
		return 0;
	}
	ofi_op_post(r, op);
	dapl_unlock(&oep->lock);
	return 0;
}

int ofi_post_send1(struct dapl_ep *ep, struct dapl_cookie *c,
		   const struct dapl_sge *sge, unsigned flags)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	if (dapl_unlikely(!oep))
		return ENOTCONN;
	/* keys registered lately may be in it (cm.c ofi_keys_announce) */
	if (dapl_unlikely(__atomic_load_n(&oep->oia->fresh_sends,
					  __ATOMIC_RELAXED)))
		oep->oia->announce(oep, sge, 1);
	return ofi_post1(oep, &oep->sq, DAPL_OP_SEND, flags, c, sge, 0, 0);
}

int ofi_post_recv1(struct dapl_ep *ep, struct dapl_cookie *c,
		   const struct dapl_sge *sge)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	if (dapl_unlikely(!oep))
		return ENOTCONN;
	return ofi_post1(oep, &oep->rq, DAPL_OP_RECV, 0, c, sge, 0, 0);
}

int ofi_post_write1(struct dapl_ep *ep, struct dapl_cookie *c,
		    const struct dapl_sge *sge, unsigned flags,
		    uint64_t remote_addr, uint32_t rkey)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	if (dapl_unlikely(!oep))
		return ENOTCONN;
	return ofi_post1(oep, &oep->sq, DAPL_OP_RDMA_WRITE, flags, c, sge,
			 remote_addr, rkey);
}

int ofi_post_read1(struct dapl_ep *ep, struct dapl_cookie *c,
		   const struct dapl_sge *sge, unsigned flags,
		   uint64_t remote_addr, uint32_t rkey)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	if (dapl_unlikely(!oep))
		return ENOTCONN;
	return ofi_post1(oep, &oep->sq, DAPL_OP_RDMA_READ, flags, c, sge,
			 remote_addr, rkey);
}

DAT_RETURN ofi_post_send(struct dapl_ep *ep, const struct dapl_post *p)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	switch (p->op) {
	case DAPL_OP_SEND:
	case DAPL_OP_RDMA_WRITE:
	case DAPL_OP_RDMA_READ:
	case DAPL_OP_BIND_MW:
		break;
	case DAPL_OP_ATOMIC_FETCH_ADD:
	case DAPL_OP_ATOMIC_CMP_SWAP:
		if (oep && oep->oia->fab.atomics)
			break;
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	default: /* no invalidation: our windows rebind themselves */
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	}
	if (dapl_unlikely(!oep))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (p->op == DAPL_OP_SEND &&
	    __atomic_load_n(&oep->oia->fresh_sends, __ATOMIC_RELAXED))
		oep->oia->announce(oep, p->sge, p->num_sge);
	return ofi_post(ep, &oep->sq, p);
}

DAT_RETURN ofi_post_recv(struct dapl_ep *ep, const struct dapl_post *p)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);

	if (dapl_unlikely(!oep))
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	return ofi_post(ep, &oep->rq, p);
}

/* ---- errors: a request that never completes ---- */

/*
 * Where the libfabric provider reports nothing for a failed operation
 * (shm and rxd: a bad key gives no completion at all), or the peer never
 * answers what a held request waits for, the engine fails the oldest
 * request of a connected EP once it went without a completion for
 * oia->dto_timeout_ns (DAPL_OFI_DTO_TIMEOUT_MS, default
 * 30 s: a 1 MiB read on rxm takes milliseconds even on a loaded
 * two-core host; the bound only has to be finite): it completes with
 * DAT_DTO_ERR_TRANSPORT (as a verbs retry timeout does) and the
 * connection breaks, which closes the endpoint (a late completion then
 * never comes) and flushes the rest.  Progress is watched per EP: a new
 * oldest request restarts the clock, so a long queue of ops that keep
 * completing never trips it.  Each round of the engine looks, unless the
 * EP's lock is held: a poster is inside a post then (over shm an RDMA
 * write's whole copy is made inside fi_writemsg, under that lock), and
 * a look that waited for it would take the poster's core from it for
 * the rest of the copy and a futex wake-up (a 64 KiB write_bw over shm:
 * about one round in two of the 1 ms rounds, wake.c); a look missed
 * delays a failure of seconds by one round.
 */
void ofi_ep_stuck(struct dapl_tp_ep *oep, uint64_t now)
{
	struct ofi_ring *r = &oep->sq;
	struct ofi_op *op = NULL;
	uint32_t s;

	if (dapl_trylock(&oep->lock))
		return;
	if (!oep->fep || !r->op)
		goto out;
	/* the oldest request not done: issued, or held for what only the
	 * peer can give (a key's base, a revocation's confirmation, room
	 * after -FI_EAGAIN; nothing older is outstanding, so no fence) */
	for (s = r->emitted; s != r->posted; s++) {
		op = &r->op[s & (r->size - 1)];
		if (op->state == OFI_OP_ISSUED || op->state == OFI_OP_HELD)
			break;
		op = NULL;
	}
	if (!op)
		goto out;
	if (op->seq != oep->stuck_seq || !oep->stuck_since) {
		oep->stuck_seq = op->seq;
		oep->stuck_since = now;
		goto out;
	}
	if (now - oep->stuck_since < oep->oia->dto_timeout_ns)
		goto out;
	dapl_dbg(DAPL_DBG_EP, "ofi: a request went %llu ms without a "
			      "completion: failed, connection broken",
		 (unsigned long long)((now - oep->stuck_since) / 1000000));
	if (op->state == OFI_OP_ISSUED) {
		oep->ops_out--;
		if (ofi_op_undelivered_write(op))
			oep->writes_out--;
	} else if (s == r->issued) {
		r->issued++; /* ofi_ring_kick skips it from now on */
	}
	oep->stuck_since = 0;
	ofi_op_fail(oep, op, DAT_DTO_ERR_TRANSPORT);
	ofi_ep_want(oep, OFI_WORK_BROKEN);
out:
	dapl_unlock(&oep->lock);
}
