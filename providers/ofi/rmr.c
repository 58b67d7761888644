/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Revoked keys: RMRs, and LMRs at dat_lmr_free (ofi_mr_deregister: the
 * same telling and waiting as a window's revocation, below).
 *
 * RMRs: memory windows, emulated with application keys.  libfabric has
 * no memory windows; a window here is a registration of its own.
 *
 *   - dat_rmr_create makes the window's transport part: no registration.
 *   - dat_rmr_bind posts DAPL_OP_BIND_MW on the EP's send ring (udapl's
 *     rmr.c; its cookie is an ordinary request's).  The window's new key
 *     is chosen at the post (the IA's key counter: never 0, never reused
 *     while the IA is open), so dat_rmr_bind returns the new rmr_context
 *     at once.  The bind itself waits in the ring until every earlier
 *     request of the EP completed (the DAT fence: ep.c holds it), then
 *     the engine runs it (ofi_mw_run, under oia->lock): fi_mr_reg of the
 *     window's range [addr, addr + length) of the LMR's memory under the
 *     new key, with the window's remote access only, then fi_close of
 *     the previous registration.  The bind then completes in order like
 *     any request: DAT_RMR_BIND_COMPLETION_EVENT on the request EVD.
 *     udapl marks the next request posted after a bind with a fence, so
 *     nothing posted later starts before the bind ran.
 *   - A peer learns a key by asking (cm.c KEYQ/KEYR).  A window's key is
 *     told only to connections of EPs of the window's PZ
 *     (dat_rmr_create(3DAT): the PZ restricts the RMR "to authorized
 *     connections"), whichever EP it was bound through and whether that
 *     EP still exists; the window's registration remembers each
 *     connection told (told[]).
 *   - An unbind (length 0), a rebind and dat_rmr_free close the previous
 *     registration and tell every connection told its key to forget it
 *     (KEYX); the bind completes, and dat_rmr_free returns, once each
 *     peer confirmed (KEYXA) or its connection ended (w->wait).  From
 *     then on a peer's RDMA with the old key fails before anything is
 *     sent: DAT_DTO_ERR_REMOTE_ACCESS, and the connection breaks (rxm's
 *     target drops an RDMA with an unknown key and its initiator sees
 *     success, so the target's deregistration alone would not show).  An
 *     initiator that never learnt the key asks for it, hears "none" and
 *     fails the same way.
 *
 * What the emulation does not give (dat_ia_query reports it as the
 * provider attribute DAPL_RMR_EMULATION, and dat_rmr_bind(3)): an RDMA
 * already accepted by the target's libfabric when the window is revoked
 * completes; hardware revokes a window at once, in the middle of an
 * operation.  A bind
 * that libfabric refuses (no memory there) completes with
 * DAT_RMR_OPERATION_FAILED and breaks the connection, as on verbs, but a
 * range the process may not write is not refused (registration pins
 * nothing on tcp).
 */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "ofi.h"
#include "data.h"
#include "cm.h"

/* How long a revocation's wait yields before it sleeps (ofi_keyx_await) */
#define OFI_KEYX_SPIN_NS (1000ull * 1000ull)

DAT_RETURN ofi_mw_alloc(struct dapl_rmr *rmr)
{
	struct dapl_tp_rmr *w = calloc(1, sizeof(*w));

	if (!w)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	w->oia = ofi_ia_of(rmr);
	w->pz = dapl_rmr_pz(rmr);
	w->refs = 1;
	dapl_rmr_set_tp(rmr, w);
	/* a rebind replaces the binding itself (type 1 windows) */
	dapl_rmr_set_inv_first(rmr, 0);
	return DAT_SUCCESS;
}

/*
 * oia->lock held: the window's registration goes, and every peer that
 * was told its key is told to forget it (KEYX); their confirmations
 * (KEYXA) are awaited in w->wait.  rxm's target drops an RDMA with an
 * unknown key and its initiator sees success, so the revocation is the
 * peers': a cached key turns bad and the next RDMA with it fails as
 * DAT_DTO_ERR_REMOTE_ACCESS before anything is sent.
 */
static void ofi_mw_revoke(struct dapl_tp_rmr *w)
{
	struct dapl_tp_lmr *m = w->cur;
	uint32_t i;

	if (!m)
		return;
	w->cur = NULL;
	dapl_list_del(&m->link);
	fi_close(&m->mr->fid);
	for (i = 0; i < m->ntold; i++) {
		if (!ofi_keyx_send(w->oia, m->told[i], m->key))
			continue;
		if (w->nwait == w->maxwait) {
			uint32_t n = w->maxwait ? 2 * w->maxwait : 4;
			struct ofi_keyx_wait *t =
			    realloc(w->wait, n * sizeof(*t));

			if (!t) /* that peer's cached key stays usable */
				break;
			w->wait = t;
			w->maxwait = n;
		}
		w->wait[w->nwait].conn = m->told[i];
		w->wait[w->nwait].key = m->key;
		w->nwait++;
	}
	free(m->told);
	free(m);
}

/* oia->lock held: revocations not confirmed yet (those confirmed, or
 * whose connection ended, are forgotten) */
static uint32_t ofi_mw_waiting(struct dapl_tp_rmr *w)
{
	uint32_t i = 0;

	while (i < w->nwait) {
		if (ofi_keyx_done(w->oia, w->wait[i].conn, w->wait[i].key))
			w->wait[i] = w->wait[--w->nwait];
		else
			i++;
	}
	return w->nwait;
}

/* oia->lock held: until waiting(arg) says no revocation is left
 * unconfirmed (a peer forgot the key, or its connection ended), or the
 * keepalive's bound passed.  It drives the control endpoint itself: it
 * may run on the engine's thread (a CNO agent freeing from its upcall). */
static void ofi_keyx_await(struct dapl_tp_ia *oia, uint32_t (*waiting)(void *),
			   void *arg)
{
	uint64_t start = dapl_now_ns(), now = start;
	uint64_t until = start + oia->ka_timeout_ns;

	while (waiting(arg) && now < until) {
		pthread_mutex_unlock(&oia->lock);
		/* a peer that spins answers within microseconds (its
		 * polls serve its control path: progress.c
		 * ofi_progress_ctl); a sleep of 50 us costs 100 or more
		 * per round, two per fresh key.  So the first
		 * OFI_KEYX_SPIN_NS yield instead (the engine on this core
		 * may be what answers), then sleep. */
		if (now - start < OFI_KEYX_SPIN_NS)
			sched_yield();
		else
			usleep(50);
		pthread_mutex_lock(&oia->lock);
		ofi_ctl_drain(oia);
		ofi_ctl_backlog(oia);
		now = dapl_now_ns();
	}
}

/* ofi_mw_waiting for ofi_keyx_await */
static uint32_t ofi_mw_waiting_arg(void *w)
{
	return ofi_mw_waiting(w);
}

struct ofi_mr_wait {
	struct dapl_tp_ia *oia;
	struct dapl_tp_lmr *m;
};

/* oia->lock held: the LMR's revocations not confirmed yet (those
 * confirmed, or whose connection ended, are forgotten) */
static uint32_t ofi_mr_waiting(void *arg)
{
	const struct ofi_mr_wait *mw = arg;
	struct dapl_tp_lmr *m = mw->m;
	uint32_t i = 0;

	while (i < m->ntold) {
		if (ofi_keyx_done(mw->oia, m->told[i], m->key))
			m->told[i] = m->told[--m->ntold];
		else
			i++;
	}
	return m->ntold;
}

/*
 * oia->lock held, m's registration closed: every connection told m's key
 * (cm.c KEYR) is told to forget it (KEYX), and dat_lmr_free returns once
 * each confirmed (KEYXA), its connection ended, or the keepalive's bound
 * passed.  dat_lmr_free(3DAT): "Any DTO operation that uses the destroyed
 * LMR after the dat_lmr_free() is completed shall fail and report a
 * protection violation", and dat_lmr_create(3DAT): the rmr_context's
 * "only way to invalidate it is to destroy the LMR".  The registration's
 * close alone does not give that: shm checks no key (a peer's cached key
 * read the freed memory: test/verbs/vt_lmr_life.c fresh-keys; a write
 * would have written it) and rxm's target drops an RDMA with an unknown
 * key while its initiator sees success (above).  A revoked key turns bad
 * in the peer's cache, so its next RDMA fails before anything is sent:
 * DAT_DTO_ERR_REMOTE_ACCESS.  The wait is dat_rmr_free's
 * (ofi_keyx_await).
 */
static void ofi_mr_revoke(struct dapl_tp_ia *oia, struct dapl_tp_lmr *m)
{
	struct ofi_mr_wait mw = {oia, m};
	uint32_t i, n = 0;

	for (i = 0; i < m->ntold; i++)
		if (ofi_keyx_send(oia, m->told[i], m->key))
			m->told[n++] = m->told[i];
	m->ntold = n;
	ofi_keyx_await(oia, ofi_mr_waiting, &mw);
}

DAT_RETURN ofi_mr_deregister(struct dapl_lmr *lmr)
{
	struct dapl_tp_ia *oia = ofi_ia_of(lmr);
	struct dapl_tp_lmr *m;
	DAT_RETURN rc;

	pthread_mutex_lock(&oia->lock);
	rc = ofi_mr_drop(lmr, &m); /* mr.c */
	if (m)
		ofi_mr_revoke(oia, m);
	pthread_mutex_unlock(&oia->lock);
	if (m) {
		free(m->told);
		free(m);
	}
	return rc;
}

void ofi_mw_free(struct dapl_rmr *rmr)
{
	struct dapl_tp_rmr *w = dapl_rmr_tp(rmr);
	struct dapl_tp_ia *oia;

	if (!w)
		return;
	oia = w->oia;
	pthread_mutex_lock(&oia->lock);
	w->freed = 1;
	ofi_mw_revoke(w);
	/* dat_rmr_free returns once each peer told forgot the key */
	ofi_keyx_await(oia, ofi_mw_waiting_arg, w);
	pthread_mutex_unlock(&oia->lock);
	dapl_rmr_set_tp(rmr, NULL);
	ofi_mw_put(w); /* a bind still held in a ring keeps it */
}

/* oia->lock held: the bind's registration; its DAT status. */
static DAT_DTO_COMPLETION_STATUS ofi_mw_bind(struct dapl_tp_ia *oia,
					     struct ofi_op *op)
{
	struct dapl_tp_rmr *w = op->rmr;
	struct dapl_tp_lmr *m = NULL;
	uint64_t access = 0;
	int rc;

	if (w->freed)
		return DAT_DTO_SUCCESS; /* dat_rmr_free came first */
	if (op->mw_priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		access |= FI_REMOTE_READ;
	if (op->mw_priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		access |= FI_REMOTE_WRITE;
	/* A window without remote privileges needs no registration: its
	 * key is unknown at the peer's first use, as for a revoked one. */
	if (op->mw_len && access) {
		m = calloc(1, sizeof(*m));
		if (!m)
			rc = -FI_ENOMEM;
		else
			rc = fi_mr_reg(oia->domain,
				       (void *)(uintptr_t)op->remote_addr,
				       op->mw_len, access, 0, op->rkey, 0,
				       &m->mr, NULL);
		if (rc) {
			dapl_dbg(DAPL_DBG_ERR, "ofi: window bind: %s",
				 fi_strerror(-rc));
			free(m);
			ofi_mw_revoke(w);
			return DAT_RMR_OPERATION_FAILED;
		}
		m->refs = 1;
		m->key = op->rkey;
		m->fkey = fi_mr_key(m->mr);
		m->remote = 1;
		/* remote write on a window carries remote atomics, as the
		 * verbs provider's windows do */
		m->perm = (access & FI_REMOTE_READ ? OFI_PERM_READ : 0) |
			  (access & FI_REMOTE_WRITE
			       ? OFI_PERM_WRITE | OFI_PERM_ATOMIC
			       : 0);
		m->base = op->remote_addr;
		m->len = op->mw_len;
		m->pz = w->pz;
	}
	ofi_mw_revoke(w);
	if (m) {
		dapl_list_add_tail(&oia->mrs, &m->link);
		w->cur = m;
	}
	return DAT_DTO_SUCCESS;
}

int ofi_mw_run(struct dapl_tp_ep *oep)
{
	struct ofi_ring *r = &oep->sq;
	struct ofi_op *op;
	DAT_DTO_COMPLETION_STATUS st;

	if (r->issued == r->posted || !oep->fep || oep->ops_out)
		return 0;
	op = &r->op[r->issued & (r->size - 1)];
	if (op->state != OFI_OP_HELD || op->op != DAPL_OP_BIND_MW)
		return 0;
	if (!op->mw_ran) {
		op->status = op->mw_flush ? DAT_DTO_ERR_FLUSHED
					  : ofi_mw_bind(oep->oia, op);
		op->mw_ran = 1;
	}
	/* the bind completes once the peers forgot the old key: what the
	 * consumer posts after it (fenced) reaches a peer that fails it */
	if (op->rmr && ofi_mw_waiting(op->rmr)) {
		ofi_ep_want(oep, OFI_WORK_BIND); /* again next round */
		return 0;
	}
	st = op->status;
	ofi_mw_unhold(op);
	op->state = OFI_OP_DONE;
	op->status = st;
	op->len = 0;
	r->issued++;
	if (st != DAT_DTO_SUCCESS && st != DAT_DTO_ERR_FLUSHED) {
		oep->halted = 1; /* as any failed request (ep.c) */
		return 2;
	}
	ofi_ring_kick(r);
	return 1;
}
