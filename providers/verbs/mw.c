/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows (the RMR ops): ibv_alloc_mw, binds and invalidations.
 *
 * A window is type 1 where the device has type 1 windows, else type 2
 * (type 2A or 2B); DAPL_CMA_MW_TYPE=2 asks for type 2 where the device
 * has both (rxe has 1 and 2B; the tests use it to cover that path).  Why
 * type 1 first: an RMR belongs to its PZ (dat_rmr_create(3DAT): the PZ
 * restricts it "to authorized connections"), and a type 1 window is the
 * PD's, open to every QP of it, while a type 2 window is tied to the QP
 * it was bound through, so its context would not serve the PZ's other
 * connections and would die with that QP's EP (dat_ep_free(3DAT) frees
 * only the EP's own DTOs and binds).  The RMR's transport part holds the
 * struct ibv_mw.
 *
 * Type 2: a bind is an IBV_WR_BIND_MW work request with the next key of
 * the window (ibv_inc_rkey); a bound window must be invalidated
 * (IBV_WR_LOCAL_INV) before it is bound again, and an unbind is that
 * invalidation alone -- rxe, like the IB rules for type 2, refuses to
 * bind a window that is not free and refuses a zero-length bind, and
 * either would move the QP to error.  So the window's inv_first is set and
 * udapl posts the invalidation first.  Type 1: ibv_bind_mw, which
 * rebinds a bound window itself and unbinds with a zero length.
 *
 * A type 2 window is tied to the QP it was bound through: the device
 * holds that QP while the window is bound (rxe takes a reference), so
 * ibv_destroy_qp of an EP freed with a window still bound through it
 * waits for a reference that never goes (rxe: ~50 s, a WARN in its pool
 * cleanup, and a refcount underflow when the window is deallocated
 * later), and the device is not usable meanwhile.  An RMR belongs to its
 * PZ, not to the EP (DAT 1.2), so the window must not die with the QP:
 * before a QP goes (qp.c), each type 2 window last bound through it is
 * deallocated -- which releases the QP at once, whatever the QP's state,
 * where an invalidation could only be posted on a QP that still works --
 * and replaced by a fresh window of the same PD.  The RMR stays valid
 * and unbound (udapl: dapl_rmr_revoked), its old rmr_context fails at
 * this side, and it can be bound again through any EP of its PZ.  The
 * IA keeps its type 2 windows in cia->mws, with the QP of each one's last
 * bind, under cia->mw_lock (the bind posts of type 2 take it too; binds
 * are not the hot path).  A rebind through another EP moves the tie: its
 * invalidation releases the old QP once it executed (not a concern
 * unless that QP is destroyed in the few microseconds before: udapl
 * posts the bind right behind it).
 *
 * ibv_mw.rkey is the key the window has once the binds posted so far
 * are done (verbs leaves it to the caller for type 2; the provider
 * library updates it for type 1).  A bind posted only to be flushed (the
 * EP is DISCONNECTED) leaves it alone, since the device will not bind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static enum ibv_mw_type verbs_mw_type(const struct dapl_tp_ia *cia)
{
	const char *e = secure_getenv("DAPL_CMA_MW_TYPE");
	int has2 = !!(cia->dattr.device_cap_flags &
		      (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
		       IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	int has1 = !!(cia->dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW);

	if (e && e[0] == '2' && !e[1] && has2)
		return IBV_MW_TYPE_2;
	if (e && e[0] == '1' && !e[1])
		return IBV_MW_TYPE_1;
	return has1 || !has2 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;
}

uint32_t verbs_mw_types(const struct dapl_tp_ia *cia)
{
	return verbs_mw_type(cia) == IBV_MW_TYPE_2 ? DAPL_MW_TYPE_2
						 : DAPL_MW_TYPE_1;
}

DAT_RETURN verbs_mw_alloc(struct dapl_rmr *rmr)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(rmr);
	struct ibv_pd *pd = verbs_pd(dapl_rmr_pz(rmr));
	struct dapl_tp_rmr *t;
	int err;

	if (!pd)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	t = calloc(1, sizeof(*t));
	if (!t)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	t->mw = ibv_alloc_mw(pd, verbs_mw_type(cia));
	if (!t->mw) {
		err = errno;
		free(t);
		return err == EOPNOTSUPP || err == ENOSYS
			   ? DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE)
			   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_MEMORY_REGION);
	}
	t->rmr = rmr;
	dapl_list_init(&t->link);
	dapl_rmr_set_tp(rmr, t);
	dapl_rmr_set_inv_first(rmr, t->mw->type == IBV_MW_TYPE_2);
	if (t->mw->type == IBV_MW_TYPE_2) {
		pthread_mutex_lock(&cia->mw_lock);
		dapl_list_add_tail(&cia->mws, &t->link);
		pthread_mutex_unlock(&cia->mw_lock);
	}
	return DAT_SUCCESS;
}

void verbs_mw_free(struct dapl_rmr *rmr)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(rmr);
	struct dapl_tp_rmr *t = dapl_rmr_tp(rmr);

	if (!t)
		return;
	pthread_mutex_lock(&cia->mw_lock);
	dapl_list_del(&t->link);
	/* NULL: a replacement that failed (verbs_mw_qp_gone) */
	if (t->mw && ibv_dealloc_mw(t->mw))
		dapl_dbg(DAPL_DBG_ERR, "verbs: ibv_dealloc_mw failed");
	t->mw = NULL;
	pthread_mutex_unlock(&cia->mw_lock);
	dapl_rmr_set_tp(rmr, NULL);
	free(t);
}

void verbs_mw_qp_gone(struct dapl_tp_ia *cia, struct ibv_qp *qp)
{
	struct dapl_list *pos, *tmp;

	if (!cia)
		return;
	pthread_mutex_lock(&cia->mw_lock);
	dapl_list_for_each_safe(pos, tmp, &cia->mws) {
		struct dapl_tp_rmr *t = (struct dapl_tp_rmr *)((char *)pos -
			offsetof(struct dapl_tp_rmr, link));
		struct ibv_pd *pd;

		if (t->qp != qp)
			continue;
		t->qp = NULL;
		pd = t->mw->pd;
		if (ibv_dealloc_mw(t->mw))
			dapl_dbg(DAPL_DBG_ERR, "verbs: ibv_dealloc_mw failed");
		t->mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		if (!t->mw)
			/* the RMR stays, unbound; a bind fails with
			 * DAT_INVALID_HANDLE until it is freed */
			dapl_dbg(DAPL_DBG_ERR,
				 "verbs: no window to replace one bound "
				 "through a destroyed QP");
		dapl_rmr_revoked(t->rmr);
	}
	pthread_mutex_unlock(&cia->mw_lock);
}

/* The window's remote access: what the LMRs would give (mr.c). */
static unsigned verbs_mw_access(const struct dapl_tp_ia *cia, DAT_MEM_PRIV_FLAGS priv)
{
	unsigned a = 0;

	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		a |= IBV_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG) {
		a |= IBV_ACCESS_REMOTE_WRITE;
		if (!(cia->disable & VERBS_NO_ATOMIC) &&
		    cia->dattr.atomic_cap != IBV_ATOMIC_NONE)
			a |= IBV_ACCESS_REMOTE_ATOMIC;
	}
	return a;
}

static unsigned verbs_mw_send_flags(unsigned f)
{
	unsigned v = 0;

	if (f & DAPL_POST_SIGNALED)
		v |= IBV_SEND_SIGNALED;
	if (f & DAPL_POST_FENCE)
		v |= IBV_SEND_FENCE;
	return v;
}

static DAT_RETURN verbs_mw_error(int err)
{
	switch (err) {
	case ENOMEM:
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	case EPERM:
	case EACCES:
		return DAPL_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	case EINVAL:
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE);
	default:
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	}
}

/* The MR of the bind; of an unbind, the one the window is bound to. */
static struct ibv_mr *verbs_mw_mr(const struct dapl_mw_post *m)
{
	const struct dapl_lmr *lmr = m->lmr ? m->lmr : dapl_rmr_lmr(m->rmr);
	const struct dapl_tp_lmr *cm = lmr ? dapl_lmr_tp(lmr) : NULL;

	return cm ? cm->mr : NULL;
}

/* Type 1: the provider library makes the work request. */
static DAT_RETURN verbs_mw_bind1(struct ibv_qp *qp, struct ibv_mw *mw,
			       const struct dapl_post *p)
{
	struct dapl_mw_post *m = p->mw;
	struct dapl_tp_ia *cia = dapl_tp_ia_of(m->rmr);
	uint32_t old = mw->rkey;
	struct ibv_mw_bind b;
	int rc;

	memset(&b, 0, sizeof(b));
	b.wr_id = (uintptr_t)p->cookie;
	b.send_flags = verbs_mw_send_flags(p->flags);
	/* An unbind (length 0) names the MR too: rxe's library reads it. */
	b.bind_info.mr = verbs_mw_mr(m);
	if (!b.bind_info.mr)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_FREE);
	if (m->length) {
		b.bind_info.addr = m->addr;
		b.bind_info.length = m->length;
		b.bind_info.mw_access_flags = verbs_mw_access(cia, m->priv);
	}
	rc = ibv_bind_mw(qp, mw, &b);
	if (rc)
		return verbs_mw_error(rc);
	m->context = mw->rkey;
	if (m->flush)
		mw->rkey = old;
	return DAT_SUCCESS;
}

/* Type 2: the bind (or the invalidation) is ours to post. */
static DAT_RETURN verbs_mw_post2(struct ibv_qp *qp, struct ibv_mw *mw,
			       const struct dapl_post *p)
{
	struct dapl_mw_post *m = p->mw;
	struct ibv_send_wr *bad, wr;
	uint32_t key = mw->rkey;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)p->cookie;
	wr.send_flags = verbs_mw_send_flags(p->flags);
	if (p->op == DAPL_OP_LOCAL_INV) {
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.invalidate_rkey = key;
	} else {
		struct dapl_tp_ia *cia = dapl_tp_ia_of(m->rmr);

		key = ibv_inc_rkey(key);
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = key;
		wr.bind_mw.bind_info.mr = verbs_mw_mr(m);
		if (!wr.bind_mw.bind_info.mr)
			return DAPL_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_LMR_FREE);
		wr.bind_mw.bind_info.addr = m->addr;
		wr.bind_mw.bind_info.length = m->length;
		wr.bind_mw.bind_info.mw_access_flags =
		    verbs_mw_access(cia, m->priv);
	}
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		return verbs_mw_error(rc);
	m->context = key;
	if (!m->flush) {
		mw->rkey = key;
		if (p->op == DAPL_OP_BIND_MW)
			dapl_rmr_tp(m->rmr)->qp = qp; /* the device's tie */
	}
	return DAT_SUCCESS;
}

DAT_RETURN verbs_post_mw(struct dapl_ep *ep, const struct dapl_post *p)
{
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct ibv_mw *mw;
	DAT_RETURN rc;

	if (!cep || !cep->qp)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	if (!p->mw || !dapl_rmr_tp(p->mw->rmr))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	/* The window (type 2: replaced when its QP goes) and its tie. */
	pthread_mutex_lock(&cia->mw_lock);
	mw = verbs_mw(p->mw->rmr);
	if (!mw)
		rc = DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	else if (mw->type == IBV_MW_TYPE_1)
		rc = p->op != DAPL_OP_BIND_MW
			 ? DAPL_ERR(DAT_INVALID_PARAMETER, 0)
			 : verbs_mw_bind1(cep->qp, mw, p);
	else
		rc = verbs_mw_post2(cep->qp, mw, p);
	pthread_mutex_unlock(&cia->mw_lock);
	return rc;
}
