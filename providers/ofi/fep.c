/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DAT EP's libfabric endpoint (layer 3, the data path): opened and
 * bound to its EVDs' CQs, settled and closed before its rings are
 * flushed, attached when a MSG connection hands it over, and, over shm,
 * the guard of its connection against a peer that died holding a lock.
 *
 * It calls ep.c (the rings), cq.c (reads before a close), bind.c,
 * fabric.c and shm_guard.c, and nothing of the connections.  qp.c opens
 * and closes the endpoint; the connections (link.c, rdm.c, msg.c, cm.c)
 * flush, guard and attach it; ia.c starts the guards' watch; the engine
 * (progress.c) makes rings ready.
 */
#include <stdlib.h>
#include "ofi.h"
#include "keytab.h"
#include "data.h"

/* ocq locked (if any), then oep: the ring leaves the ready list and
 * starts again empty. */
static void ofi_ring_clear(struct ofi_ring *r)
{
	uint32_t i;

	if (r->on_ready) {
		dapl_list_del(&r->ready_link);
		r->on_ready = 0;
	}
	for (i = 0; i < r->size; i++) {
		if (r->op[i].state == OFI_OP_HELD)
			ofi_mw_unhold(&r->op[i]);
		r->op[i].state = OFI_OP_FREE;
	}
	r->emitted = r->issued = r->posted = 0;
	r->failed = 0;
	/* the send ring's seqs start again at 0: so does its watchdog
	 * (ofi_ep_stuck), or the first request after a dat_ep_reset would
	 * inherit the time the last connection's first one waited, and
	 * an EP reused for a few clients failed a healthy send (issue 39) */
	if (r == &r->oep->sq)
		r->oep->stuck_since = 0;
}

/* ---- create, flush, reset, destroy ---- */

static void ofi_ep_cqs(struct dapl_tp_ep *oep, int lock);

/* oia->lock held (it keeps the engine's CQ reads away). */
int ofi_ep_fep_open(struct dapl_tp_ep *oep)
{
	struct dapl_tp_ia *oia = oep->oia;
	struct fid_cq *tx = oep->sq.ocq ? oep->sq.ocq->cq : oia->null_cq;
	struct fid_cq *rx = oep->rq.ocq ? oep->rq.ocq->cq : oia->null_cq;
	struct fid_ep *fep;
	int rc = 0;

	if (ofi_is_msg(oia)) {
		/* the endpoint comes with the connection (msg.c); posts
		 * wait for it */
		dapl_lock(&oep->lock);
		oep->fep = NULL;
		oep->namelen = 0;
		oep->flushed = 0;
		oep->halted = 0;
		dapl_unlock(&oep->lock);
		return 0;
	}
	ofi_ep_cqs(oep, 1);
	/* shm: an AV of the endpoint's own, for its one peer, closed with
	 * it; the IA's would keep every peer's name for the IA's life
	 * (addr.c ofi_addr_insert) */
	if (oia->fab.ep_av) {
		struct fi_av_attr aa = {.type = FI_AV_UNSPEC, .count = 1};

		rc = fi_av_open(oia->domain, &aa, &oep->av, NULL);
		if (rc)
			oep->av = NULL;
	}
	if (!rc)
		rc = ofi_ep_open(oia, &oia->addr,
				 oep->av ? oep->av : oia->gen->av,
				 tx, rx, &fep);
	if (!rc) {
		oep->namelen = sizeof(oep->name);
		rc = fi_getname(&fep->fid, oep->name, &oep->namelen);
		if (rc)
			ofi_ep_close(fep);
	}
	if (rc && oep->av) {
		fi_close(&oep->av->fid);
		oep->av = NULL;
	}
	if (!rc) {
		dapl_lock(&oep->lock);
		oep->fep = fep;
		oep->flushed = 0;
		oep->halted = 0;
		dapl_unlock(&oep->lock);
	}
	ofi_ep_cqs(oep, 0);
	return rc;
}

/* The ring's CQ is read (completions of the closed endpoint included),
 * then what is still outstanding ends as flushed, or, with clear, is
 * forgotten (the EP goes away or starts again). */
void ofi_ring_drain(struct ofi_ring *r, int clear)
{
	struct dapl_tp_ep *oep = r->oep;
	uint32_t s;

	if (r->ocq) {
		dapl_lock(&r->ocq->lock);
		ofi_cq_read_locked(r->ocq);
	}
	dapl_lock(&oep->lock);
	if (clear) {
		ofi_ring_clear(r);
	} else {
		for (s = r->emitted; s != r->posted; s++) {
			struct ofi_op *op = &r->op[s & (r->size - 1)];

			if (op->state == OFI_OP_HELD)
				ofi_mw_unhold(op);
			if (op->state == OFI_OP_ISSUED &&
			    op->op == DAPL_OP_SEND && oep->peer_recvd_known &&
			    (int32_t)(op->send_no - oep->peer_recvd) < 0) {
				/* the peer received it before it disconnected;
				 * rxm's completion (a rendezvous send's comes
				 * with the receiver's ack, on the data
				 * endpoint) is just late: it was sent */
				op->state = OFI_OP_DONE;
				op->status = DAT_DTO_SUCCESS;
				op->len = 0;
			} else if (op->state == OFI_OP_HELD ||
				   op->state == OFI_OP_ISSUED) {
				op->state = OFI_OP_DONE;
				op->status = DAT_DTO_ERR_FLUSHED;
				op->len = 0;
			}
		}
		r->issued = r->posted;
		ofi_ring_ready(r);
	}
	if (r == &oep->sq)
		oep->ops_out = oep->writes_out = 0;
	dapl_unlock(&oep->lock);
	if (r->ocq) {
		if (!clear)
			ofi_cq_notify(r->ocq);
		dapl_unlock(&r->ocq->lock);
	}
}

/*
 * An endpoint is opened and closed with its CQs locked: rxm's CQ progress
 * walks the CQ's endpoints and must not meet one coming or going
 * (libfabric 1.17 crashed in fi_cq_read while another thread closed an
 * endpoint of that CQ).  Two CQs in address order.
 */
static void ofi_ep_cqs(struct dapl_tp_ep *oep, int lock)
{
	struct dapl_tp_evd *a = oep->sq.ocq, *b = oep->rq.ocq, *t;

	if (a == b)
		b = NULL;
	if (!a || (b && (uintptr_t)a > (uintptr_t)b)) {
		t = a;
		a = b;
		b = t;
	}
	if (lock) {
		if (a)
			dapl_lock(&a->lock);
		if (b)
			dapl_lock(&b->lock);
	} else {
		if (b)
			dapl_unlock(&b->lock);
		if (a)
			dapl_unlock(&a->lock);
	}
}

/*
 * CQs locked, before the data endpoint closes: libfabric 1.17's rxm,
 * closing an endpoint, closes each connection's MSG endpoint first and
 * only then handles the completions still in its own CQ (rxm_close_conn:
 * fi_close, then rxm_flush_msg_cq).  A message received there has its
 * buffer posted again, on the endpoint just closed: a use after free
 * (SIGSEGV in the guest over verbs;ofi_rxm, the peer's rendezvous
 * acknowledgement, "read done", still unread at the close).  So its CQs
 * are read first, while the endpoint is alive; rxm handles a bounded
 * number of its own completions per read (its comp_per_progress: 1 by
 * default, 64 over verbs, init.c), and a read that returns nothing may
 * still have handled some: a bounded number of reads.  A message that
 * arrives after them is libfabric's risk still.
 */
enum { OFI_CLOSE_READS = 16 };

static void ofi_ep_settle(struct dapl_tp_ep *oep)
{
	struct dapl_tp_evd *a = oep->sq.ocq, *b = oep->rq.ocq;
	int i, got = 0;

	if (b == a)
		b = NULL;
	for (i = 0; i < OFI_CLOSE_READS; i++) {
		if (a)
			got += ofi_cq_read_locked(a);
		if (b)
			got += ofi_cq_read_locked(b);
	}
	/* what the reads completed, of this EP or another on these CQs */
	if (got) {
		if (a && !dapl_list_empty(&a->ready))
			ofi_cq_notify(a);
		if (b && !dapl_list_empty(&b->ready))
			ofi_cq_notify(b);
	}
}

/* oia->lock held, shm: the guard of oep's connection to the endpoint
 * named peer (shm_guard.c), on the IA's list the watchdog walks. */
void ofi_ep_guard(struct dapl_tp_ep *oep, const uint8_t *peer, size_t len)
{
	struct dapl_tp_ia *oia = oep->oia;
	struct ofi_shm_guard *g;

	if (oep->guard || !oep->fep || !oia->watchdog)
		return;
	g = malloc(sizeof(*g));
	if (!g || ofi_shm_guard_init(g, oep->name, oep->namelen, peer, len)) {
		free(g);
		dapl_dbg(DAPL_DBG_CM, "ofi: shm: a connection without the "
				      "dead-peer guard (not libfabric 1.17's "
				      "regions)");
		return;
	}
	g->oep = oep;
	pthread_mutex_lock(&oia->guard_lock);
	dapl_list_add_tail(&oia->guards, &g->link);
	pthread_mutex_unlock(&oia->guard_lock);
	dapl_lock(&oep->lock);
	oep->guard = g;
	dapl_unlock(&oep->lock);
}

/* The watchdog's call (ia.c; every 100 ms, from a thread of udapl's
 * that waits for no lock of ours but guard_lock): a lock a dead peer
 * left held is given back, and the engine's next round ends the
 * connection (no kick: the engine polls shm anyway, and a kick from
 * here could meet an engine the IA's close is stopping). */
void ofi_ep_guards_watch(void *arg)
{
	struct dapl_tp_ia *oia = arg;
	struct dapl_list *pos;

	pthread_mutex_lock(&oia->guard_lock);
	for (pos = oia->guards.next; pos != &oia->guards; pos = pos->next) {
		struct ofi_shm_guard *g =
		    dapl_container_of(pos, struct ofi_shm_guard, link);

		if (ofi_shm_guard_rescue(g))
			ofi_ep_want(g->oep, OFI_WORK_DEAD);
	}
	pthread_mutex_unlock(&oia->guard_lock);
}

/* oia->lock held.  Closes the data endpoint: nothing more lands in the
 * consumer's buffers and nothing more completes. */
void ofi_ep_close_fep(struct dapl_tp_ep *oep)
{
	struct ofi_keytab_view *tab;
	struct ofi_shm_guard *g;
	struct fid_ep *fep;

	ofi_ep_cqs(oep, 1);
	if (oep->fep)
		ofi_ep_settle(oep);
	dapl_lock(&oep->lock);
	fep = oep->fep;
	oep->fep = NULL;
	oep->flushed = 1;
	oep->connected = 0;
	g = oep->guard;
	oep->guard = NULL;
	tab = oep->peer_tab; /* under oia->lock too (mr.c ofi_mr_unlist) */
	oep->peer_tab = NULL;
	oep->tab_acked = 0;
	dapl_unlock(&oep->lock);
	ofi_keytab_view_close(tab);
	if (g) {
		pthread_mutex_lock(&oep->oia->guard_lock);
		dapl_list_del(&g->link);
		pthread_mutex_unlock(&oep->oia->guard_lock);
		ofi_shm_guard_fini(g);
		free(g);
	}
	if (fep)
		ofi_ep_close(fep);
	/* the endpoint's own AV (shm), after the endpoint bound to it */
	if (oep->av) {
		fi_close(&oep->av->fid);
		oep->av = NULL;
	}
	ofi_ep_cqs(oep, 0);
}

void ofi_ep_attach(struct dapl_tp_ep *oep, struct fid_ep *fep)
{
	dapl_lock(&oep->lock);
	oep->fep = fep;
	oep->connected = 1;
	ofi_ring_kick(&oep->rq);
	ofi_ring_kick(&oep->sq);
	dapl_unlock(&oep->lock);
}

void ofi_ep_flush(struct dapl_tp_ep *oep)
{
	ofi_ep_close_fep(oep);
	ofi_ring_drain(&oep->sq, 0);
	ofi_ring_drain(&oep->rq, 0);
}

/* ocq locked, then oep: makes the ring ready if its oldest op is done. */
void ofi_ring_ready_locked(struct ofi_ring *r)
{
	if (r->ocq)
		dapl_lock(&r->ocq->lock);
	dapl_lock(&r->oep->lock);
	ofi_ring_ready(r);
	dapl_unlock(&r->oep->lock);
	if (r->ocq) {
		if (r->on_ready)
			ofi_cq_notify(r->ocq);
		dapl_unlock(&r->ocq->lock);
	}
}
