/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection state machine (layer 6): the control messages of
 * connections that exist (ofi_rx_conn: ACCEPT, REJECT, RTU, DISC, KA,
 * REQACK, KEYX, KEYXA, KEYQ, KEYR), their timers and ends, the upcalls made
 * from notes, and the CM ops (listen, connect, accept, reject,
 * disconnect), which check their arguments and go to rdm.c or msg.c.
 * rdm.c says what the protocol is.
 *
 * It calls the layers below: the data path, ctl.c, conn.c, link.c,
 * notes.c, wire.c, lep.c, rdm.c and msg.c.  init.c's ops table, the
 * engine (progress.c), rmr.c and ia.c (ofi_rx_conn in the upcall table)
 * call it.
 *
 * Upcalls: everything here runs under oia->lock; events are queued as
 * notes (qp_destroy and listen_stop drop their object's notes under the
 * lock), and ofi_notes_deliver opens each upcall bracket under the lock,
 * which proves the EP or service point is still ours, then makes the
 * upcall without it and closes the bracket on the same thread (brackets
 * belong to the thread that opened them).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "ofi.h"
#include "data.h"
#include "keytab.h"
#include "wire.h"
#include "cm.h"

/* How long a disconnect waits for the peer's last sends (they travel on
 * another libfabric connection than the DISC). */
#define OFI_DRAIN_NS (2ull * 1000000000ull)

static void ofi_conn_drained(struct dapl_tp_ia *oia, struct ofi_conn *c,
			     uint64_t now);

void ofi_notes_deliver(struct dapl_tp_ia *oia)
{
	struct ofi_note *n;
	int held;

	for (;;) {
		pthread_mutex_lock(&oia->lock);
		if (dapl_list_empty(&oia->notes)) {
			pthread_mutex_unlock(&oia->lock);
			return;
		}
		n = dapl_container_of(oia->notes.next, struct ofi_note, link);
		dapl_list_del(&n->link);
		/* The bracket is opened here, under the lock that proves the
		 * object is still ours (qp_destroy and listen_stop drop its
		 * notes under it), and closed by this same thread: brackets
		 * belong to the thread that holds them. */
		held = !dapl_upcall_begin(n->kind == OFI_NOTE_EP
						  ? (void *)n->ep
						  : (void *)n->sp);
		pthread_mutex_unlock(&oia->lock);
		if (n->kind == OFI_NOTE_EP) {
			if (held) {
				dapl_cm_ep_event(n->ep, n->event, n->pdata,
						 n->plen);
				dapl_upcall_end(n->ep);
			}
		} else {
			struct ofi_conn *c = n->conn;
			int rc = -1;

			if (held) {
				rc = dapl_cm_request(
				    n->sp, ofi_conn_cr(c),
				    (const struct sockaddr *)&c->peer_ia,
				    c->peer_port, n->pdata, n->plen);
				dapl_upcall_end(n->sp);
			}
			if (rc) { /* udapl could not queue it: no */
				pthread_mutex_lock(&oia->lock);
				if (c->state == OFI_CONN_REQUEST)
					ofi_send_reject(oia, c, 0);
				ofi_conn_free(oia, c);
				pthread_mutex_unlock(&oia->lock);
			}
		}
		free(n);
	}
}

void ofi_notes_drop(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->notes) {
		struct ofi_note *n = dapl_container_of(pos, struct ofi_note,
						       link);

		dapl_list_del(&n->link);
		if (n->kind == OFI_NOTE_REQ)
			ofi_conn_free(oia, n->conn);
		free(n);
	}
}

void ofi_conn_broken(struct dapl_tp_ep *oep)
{
	struct ofi_conn *c = oep->conn;

	/* on MSG the RTU that makes an accepted connection ESTABLISHED
	 * can be in the ring, unread, behind the failed DTO (msg.c) */
	if (c && c->state == OFI_CONN_ACCEPTING)
		ofi_msg_catch_up(oep->oia, c);
	if (c && c->state == OFI_CONN_ESTABLISHED)
		ofi_conn_end(oep->oia, c, DAPL_CM_BROKEN, 1);
}

void ofi_conn_peer_gone(struct dapl_tp_ep *oep)
{
	struct ofi_conn *c = oep->conn;

	if (c && c->state == OFI_CONN_ESTABLISHED)
		ofi_conn_end(oep->oia, c, DAPL_CM_BROKEN, 0);
	else if (c && c->state == OFI_CONN_ACCEPTING)
		ofi_conn_end(oep->oia, c, DAPL_CM_ACCEPT_ERROR, 0);
}

/*
 * locked: r becomes a KEYR (or KEYN: type) to connection c about key,
 * with the registration's base, length, privileges and libfabric key
 * (status 0) if c may be told of it, else status 1.  A window's key is
 * told only to connections of its PZ's EPs (dat_rmr_create(3DAT)); any
 * key told is remembered, to be revoked (rmr.c ofi_mr_revoke,
 * ofi_mw_revoke).  0 if told.
 */
static int ofi_key_tell(struct dapl_tp_ia *oia, struct ofi_conn *c,
			uint32_t key, uint16_t type, struct ofi_wire *r)
{
	struct dapl_list *pos;

	ofi_wire_init(oia, r, type);
	r->src_id = c->id;
	r->dst_id = c->peer_id;
	r->key = key;
	r->status = 1;
	for (pos = oia->mrs.next; pos != &oia->mrs; pos = pos->next) {
		struct dapl_tp_lmr *mr =
		    dapl_container_of(pos, struct dapl_tp_lmr, link);

		if (mr->key == key && mr->remote &&
		    (!mr->pz ||
		     (c->ep && dapl_ep_pz(c->ep) == mr->pz)) &&
		    !ofi_mw_told(mr, c->id)) {
			r->status = 0;
			r->base = mr->base;
			r->len = mr->len;
			r->qual = mr->perm;
			r->fkey = mr->fkey;
			break;
		}
	}
	return (int)r->status;
}

/* locked: is key's registration in our key table (keytab.c)? */
static int ofi_key_listed(struct dapl_tp_ia *oia, uint32_t key)
{
	struct dapl_list *pos;

	for (pos = oia->mrs.next; pos != &oia->mrs; pos = pos->next) {
		const struct dapl_tp_lmr *mr =
		    dapl_container_of(pos, struct dapl_tp_lmr, link);

		if (mr->key == key)
			return mr->published;
	}
	return 0;
}

static void ofi_rx_keyq(struct dapl_tp_ia *oia, struct ofi_conn *c,
			const struct ofi_wire *m)
{
	struct ofi_wire r;

	ofi_key_tell(oia, c, (uint32_t)m->key, OFI_MSG_KEYR, &r);
	dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: key %u asked: %s",
		 (unsigned long long)c->id, (unsigned)m->key,
		 r.status ? "none here for it" : "told");
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
}

/*
 * locked, shm: the peer's key table (keytab.c), mapped if it is one and
 * we have a table of our own for the busy marks it must see; the peer is
 * told whether (KEYTA).  Its pid is the one its data endpoint's region
 * names (the connection's guard, shm_guard.c), not one a message says.
 */
static void ofi_rx_keyt(struct dapl_tp_ia *oia, struct ofi_conn *c,
			const struct ofi_wire *m)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	struct ofi_keytab_view *v = NULL, *old = NULL;
	struct ofi_wire r;

	if (oep && oep->guard && oia->keytab)
		v = ofi_keytab_view_open(oep->guard->peer_pid, m->len,
					 m->fkey);
	if (v) {
		dapl_lock(&oep->lock);
		old = oep->peer_tab;
		oep->peer_tab = v;
		dapl_unlock(&oep->lock);
		ofi_keytab_view_close(old);
	}
	dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: the peer's key table: %s",
		 (unsigned long long)c->id, v ? "mapped" : "not used");
	ofi_wire_init(oia, &r, OFI_MSG_KEYTA);
	r.src_id = c->id;
	r.dst_id = c->peer_id;
	r.status = !v;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
}

/* Does the send's data hold key (its 4 bytes, at any offset)?  Only its
 * first OFI_FRESH_SCAN bytes are looked at: a message that carries a
 * key for an RDMA is a small one. */
#define OFI_FRESH_SCAN 256
static int ofi_sge_holds(const struct dapl_sge *sge, int num, uint32_t key)
{
	size_t left = OFI_FRESH_SCAN, i, n;
	int s;

	for (s = 0; s < num && left >= sizeof(key); s++) {
		const unsigned char *p =
		    (const unsigned char *)(uintptr_t)sge[s].addr;

		n = sge[s].length < left ? sge[s].length : left;
		left -= n;
		for (i = 0; i + sizeof(key) <= n; i++)
			if (!memcmp(p + i, &key, sizeof(key)))
				return 1;
	}
	return 0;
}

/*
 * A send about to be posted on oep while keys are fresh (mr.c
 * ofi_key_fresh: registered lately for remote access, told to nobody):
 * each fresh key its data holds is told to the connection first (KEYN,
 * the same record as a KEYR), so that the peer's first RDMA through it
 * finds it known instead of asking (KEYQ) and waiting a round trip
 * (issue 35: an MPI library's rendezvous registers a fragment and sends
 * its key; fresh_read).  The KEYN goes on the control endpoint before
 * the send goes on the data endpoint: over shm it is in the peer's queue
 * first, and the peer drains its control CQ before it asks (progress.c
 * ofi_progress_ctl); over TCP it may come second, and the query goes as
 * before.  A key found is fresh no more; after OFI_FRESH_SENDS sends
 * none is, so that a consumer that never sends its keys pays this scan
 * on a few sends only.  A value that matches a key by chance only tells
 * the peer a key it may use anyway (keys look like no small number: mr.c
 * ofi_key_next).
 */
void ofi_keys_announce(struct dapl_tp_ep *oep, const struct dapl_sge *sge,
		       int num)
{
	struct dapl_tp_ia *oia = oep->oia;
	struct ofi_conn *c;
	struct ofi_wire r;
	int left, i;

	pthread_mutex_lock(&oia->lock);
	left = oia->fresh_sends;
	if (left > 0)
		__atomic_store_n(&oia->fresh_sends, left - 1,
				 __ATOMIC_RELAXED);
	c = oep->conn;
	for (i = 0; i < OFI_FRESH && c && c->state == OFI_CONN_ESTABLISHED;
	     i++) {
		uint32_t key = oia->fresh[i];

		if (!key || !ofi_sge_holds(sge, num, key))
			continue;
		/* shm: the peer reads it in our table (keytab.c) */
		if (ofi_ep_tab_ok(oep) && ofi_key_listed(oia, key))
			continue;
		oia->fresh[i] = 0;
		if (!ofi_key_tell(oia, c, key, OFI_MSG_KEYN, &r))
			ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
	}
	if (left <= 1)
		memset(oia->fresh, 0, sizeof(oia->fresh));
	pthread_mutex_unlock(&oia->lock);
}

/* A message for one of our connections (not a REQ). */
void ofi_rx_conn(struct dapl_tp_ia *oia, const struct ofi_wire *m)
{
	struct ofi_conn *c = m->dst_id ? ofi_conn_find(oia, m->dst_id) : NULL;
	struct dapl_tp_ep *oep;

	if (!c && m->type == OFI_MSG_DISC) {
		/* a requester gave up (timeout, disconnect) before it heard
		 * from us: its request is void */
		struct dapl_list *pos, *tmp;

		dapl_list_for_each_safe(pos, tmp, &oia->conns) {
			struct ofi_conn *r =
			    dapl_container_of(pos, struct ofi_conn, link);

			if (!r->active && r->peer_id == m->src_id &&
			    r->state == OFI_CONN_REQUEST)
				r->state = OFI_CONN_CLOSED;
		}
		return;
	}
	if (!c)
		return;
	/* the peer's id is known from the first answer on */
	if (c->state != OFI_CONN_CONNECTING && c->peer_id != m->src_id)
		return;
	c->last_heard = dapl_now_ns();
	switch (m->type) {
	case OFI_MSG_ACCEPT:
		if (c->m) /* MSG: on the channel, once the peer is connected */
			ofi_msg_ready(oia, c);
		else
			ofi_rx_accept(oia, c, m);
		break;
	case OFI_MSG_REJECT:
		if (c->state == OFI_CONN_CONNECTING)
			ofi_conn_end(oia, c,
				     m->status ? DAPL_CM_PEER_REJECTED
					       : DAPL_CM_NON_PEER_REJECTED,
				     0);
		break;
	case OFI_MSG_RTU:
		if (c->state == OFI_CONN_ACCEPTING) {
			c->state = OFI_CONN_ESTABLISHED;
			ofi_keyt_send(oia, c); /* shm: our key table */
			ofi_note_ep(oia, c->ep, DAPL_CM_ESTABLISHED, NULL, 0);
		}
		break;
	case OFI_MSG_DISC:
		if (m->status & OFI_DISC_BROKEN &&
		    (c->state == OFI_CONN_ESTABLISHED ||
		     c->state == OFI_CONN_DRAINING ||
		     c->state == OFI_CONN_DISCONNECTING)) {
			/* the peer's end broke (a failed DTO there): a send
			 * of ours it received may have failed at it, so the
			 * connection is not ended gracefully here either */
			ofi_conn_end(oia, c, DAPL_CM_BROKEN, 0);
		} else if (c->state == OFI_CONN_ESTABLISHED) {
			/* the data endpoints are another connection than
			 * ours: what the peer sent before it disconnected
			 * may still be on its way; the timers end it */
			c->state = OFI_CONN_DRAINING;
			c->drain_sends = m->len;
			if (c->ep && dapl_ep_tp(c->ep))
				ofi_ep_peer_recvd(dapl_ep_tp(c->ep),
						  (uint32_t)m->base);
			c->drain_end = dapl_now_ns() + OFI_DRAIN_NS;
			ofi_conn_drained(oia, c, dapl_now_ns());
		}
		else if (c->state == OFI_CONN_ACCEPTING)
			ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 0);
		else if (c->state == OFI_CONN_CONNECTING)
			ofi_conn_end(oia, c, DAPL_CM_NON_PEER_REJECTED, 0);
		else if (c->state == OFI_CONN_REQUEST)
			c->state = OFI_CONN_CLOSED;
		break;
	case OFI_MSG_KA: /* CONNECTING: the request is still pending */
		if (c->state == OFI_CONN_CONNECTING)
			c->listener_heard = 1;
		break;
	case OFI_MSG_REQACK: /* the listener has it: no more resends */
		if (c->state == OFI_CONN_CONNECTING) {
			c->req_resend = 0;
			c->listener_heard = 1;
		}
		break;
	case OFI_MSG_KEYX: /* rmr.c: forget the key, then say so */
		oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
		if (oep)
			ofi_ep_key_revoked(oep, (uint32_t)m->key);
		if (c->state == OFI_CONN_ESTABLISHED) {
			struct ofi_wire r;

			ofi_wire_init(oia, &r, OFI_MSG_KEYXA);
			r.src_id = c->id;
			r.dst_id = c->peer_id;
			r.key = m->key;
			ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
		}
		break;
	case OFI_MSG_KEYXA:
		c->keyx_acked = m->key;
		break;
	case OFI_MSG_KEYQ:
		if (c->state == OFI_CONN_ESTABLISHED ||
		    c->state == OFI_CONN_ACCEPTING)
			ofi_rx_keyq(oia, c, m);
		break;
	case OFI_MSG_KEYT: /* shm: where the peer's key table is */
		if (c->state == OFI_CONN_ESTABLISHED)
			ofi_rx_keyt(oia, c, m);
		break;
	case OFI_MSG_KEYTA: /* shm: the peer maps our key table, or not */
		oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
		if (oep) {
			dapl_lock(&oep->lock);
			oep->tab_acked = !m->status;
			dapl_unlock(&oep->lock);
		}
		break;
	case OFI_MSG_KEYN: /* a key told before it was asked for */
		oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
		if (oep && !m->status &&
		    ofi_ep_key_told(oep, (uint32_t)m->key, m->base, m->len,
				    (uint32_t)m->qual, m->fkey))
			ofi_cq_kick_owe(oep);
		break;
	case OFI_MSG_KEYR:
		oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
		/* what waited for the answer goes: by the poller of the
		 * EP's request EVD if a consumer spins there, else now
		 * (cq.c ofi_cq_kick_owe) */
		if (oep &&
		    ofi_ep_key_answer(oep, (uint32_t)m->key, !m->status,
				      m->base, m->len, (uint32_t)m->qual,
				      m->fkey))
			ofi_cq_kick_owe(oep);
		break;
	default:
		break;
	}
}

/* ---- timers ---- */

/* locked: a DRAINING connection ends once every send the peer made
 * before its DISC was received here, and every send of ours it received
 * completed here (ep.c ofi_ep_sends_pending), or the bound passed. */
static void ofi_conn_drained(struct dapl_tp_ia *oia, struct ofi_conn *c,
			     uint64_t now)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	int done = 1;

	if (oep) {
		dapl_lock(&oep->lock);
		done = oep->recvs_done >= c->drain_sends;
		dapl_unlock(&oep->lock);
		if (done)
			done = !ofi_ep_sends_pending(oep);
	}
	if (done || now >= c->drain_end)
		ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 0);
}

/*
 * Our graceful disconnect (oia->lock held): dat_ep_disconnect(3DAT), "For
 * graceful disconnect, all outstanding and in-progress request DTOs and
 * RMR Binds must try to be completed successfully first, before
 * disconnect proceeds."  The DISC, with its counts, goes once none of the
 * EP's requests is held or with libfabric (ep_peer.c
 * ofi_ep_requests_out), or when c->leave_end passed; until then the
 * connection stays ESTABLISHED (key answers, keepalives; a failed DTO or
 * the peer's own DISC ends it as ever), and the consumer's EP is
 * DISCONNECT_PENDING (udapl).  RDM: the DISC ends the connection here;
 * MSG: it goes behind the data and the peer's close ends it (msg.c).
 * Before, the DISC went at once: over RDM the EP's requests were flushed,
 * the sends among them never sent (test/verbs/vt_graceful.c), and over
 * MSG a request still held went after the DISC.
 */
static void ofi_conn_leave(struct dapl_tp_ia *oia, struct ofi_conn *c,
			   uint64_t now)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;

	if (oep && now < c->leave_end && ofi_ep_requests_out(oep))
		return;
	if (c->m)
		ofi_msg_disconnect(oia, c);
	else
		ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 1);
}

void ofi_cm_timers(struct dapl_tp_ia *oia, uint64_t now)
{
	struct dapl_list *pos, *tmp;
	int ka = now >= oia->next_ka;

	if (ka)
		oia->next_ka = now + oia->ka_interval_ns;
	ofi_lep_linger_end(oia, 0);
	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);
		struct ofi_wire m;

		switch (c->state) {
		case OFI_CONN_CONNECTING:
			if (c->deadline && now >= c->deadline) {
				/* shm: the REQ went and no word came: the
				 * next connect sends under a fresh address
				 * (addr.c) */
				if (c->req_resend)
					ofi_addr_dest_stale(oia, c->gen, &c->dst);
				ofi_conn_end(oia, c, DAPL_CM_TIMED_OUT,
					     c->probe_fd < 0);
			}
			else if (c->probe_fd >= 0)
				ofi_probe_check(oia, c);
			else if (c->listener_heard &&
				 now - c->last_heard > oia->ka_timeout_ns)
				/* the listener read the REQ, then went
				 * silent (its process closed the IA or
				 * died): even DAT_TIMEOUT_INFINITE ends */
				ofi_conn_end(oia, c, DAPL_CM_TIMED_OUT, 0);
			else if (c->req_resend && now >= c->req_resend)
				ofi_req_resend(oia, c);
			break;
		case OFI_CONN_REQUEST:
			/* a request the consumer has not answered yet: the
			 * requester hears that its listener is alive (RDM;
			 * a MSG requester has the connection itself) */
			if (ka && !c->m) {
				ofi_wire_init(oia, &m, OFI_MSG_KA);
				m.src_id = c->id;
				m.dst_id = c->peer_id;
				ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &m);
			}
			break;
		case OFI_CONN_DRAINING:
			ofi_conn_drained(oia, c, now);
			break;
		case OFI_CONN_ACCEPTING:
			if (now - c->last_heard > oia->ka_timeout_ns) {
				dapl_dbg(DAPL_DBG_CM,
					 "ofi: connection %llu: accepted %llu ms ago, never established",
					 (unsigned long long)c->id,
					 (unsigned long long)((now - c->last_heard) / 1000000));
				ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 1);
			}
			break;
		case OFI_CONN_ESTABLISHED:
			if (c->leave_end) {
				ofi_conn_leave(oia, c, now);
				if (c->state != OFI_CONN_ESTABLISHED)
					break;
			}
			if (c->ep && dapl_ep_tp(c->ep))
				ofi_ep_stuck(dapl_ep_tp(c->ep), now); /* ep.c */
			if (now - c->last_heard > oia->ka_timeout_ns) {
				dapl_dbg(DAPL_DBG_CM,
					 "ofi: connection %llu: peer silent for %llu ms: broken",
					 (unsigned long long)c->id,
					 (unsigned long long)((now - c->last_heard) / 1000000));
				ofi_conn_end(oia, c, DAPL_CM_BROKEN, 1);
			} else if (ka) {
				ofi_wire_init(oia, &m, OFI_MSG_KA);
				m.src_id = c->id;
				m.dst_id = c->peer_id;
				ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &m);
			}
			break;
		default:
			break;
		}
	}
}

/* ---- revoked window keys (rmr.c) ---- */

int ofi_keyx_send(struct dapl_tp_ia *oia, uint64_t conn_id, uint32_t key)
{
	struct ofi_conn *c = ofi_conn_find(oia, conn_id);
	struct ofi_wire m;

	if (!c || c->state != OFI_CONN_ESTABLISHED)
		return 0;
	ofi_wire_init(oia, &m, OFI_MSG_KEYX);
	m.src_id = c->id;
	m.dst_id = c->peer_id;
	m.key = key;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &m);
	return 1;
}

int ofi_keyx_done(struct dapl_tp_ia *oia, uint64_t conn_id, uint32_t key)
{
	struct ofi_conn *c = ofi_conn_find(oia, conn_id);

	return !c || c->state != OFI_CONN_ESTABLISHED || c->keyx_acked == key;
}

DAT_RETURN ofi_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual)
{
	if (ofi_is_msg(ofi_ia_of(sp)))
		return ofi_msg_listen(sp, qual);
	return ofi_rdm_listen(sp, qual);
}

void ofi_listen_stop(struct dapl_sp *sp)
{
	struct dapl_tp_ia *oia = ofi_ia_of(sp);
	struct dapl_tp_sp *osp = dapl_sp_tp(sp);
	struct dapl_list *pos, *tmp;

	if (!osp)
		return;
	pthread_mutex_lock(&oia->lock);
	dapl_list_del(&osp->link);
	if (osp->lep && oia->fab.linger) {
		ofi_lep_linger(oia, osp->lep, ofi_qual_port(osp->qual));
	} else if (osp->lep) {
		osp->lep->sp = NULL;
		ofi_ctl_shut(osp->lep);
		ofi_ctl_drain(oia);
		ofi_ctl_free(osp->lep);
	}
	/* requests not yet handed to udapl die with the listener */
	dapl_list_for_each_safe(pos, tmp, &oia->notes) {
		struct ofi_note *n = dapl_container_of(pos, struct ofi_note,
						       link);

		if (n->kind != OFI_NOTE_REQ || n->sp != sp)
			continue;
		dapl_list_del(&n->link);
		ofi_send_reject(oia, n->conn, 0);
		ofi_conn_free(oia, n->conn);
		free(n);
	}
	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (c->sp == sp)
			c->sp = NULL;
	}
	if (osp->pep) /* MSG: after its requests' rejects (msg.c) */
		ofi_msg_listen_close(osp);
	dapl_sp_set_tp(sp, NULL);
	pthread_mutex_unlock(&oia->lock);
	free(osp);
}

DAT_RETURN ofi_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen)
{
	struct sockaddr_in dst;

	if (remote->sa_family != AF_INET)
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (!qual)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (plen < 0 || plen > OFI_MAX_PDATA)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	memcpy(&dst, remote, sizeof(dst));
	dst.sin_port = htons(ofi_qual_port(qual));
	if (ofi_is_msg(ofi_ia_of(ep)))
		return ofi_msg_connect(ep, &dst, qual, timeout, pdata, plen);
	return ofi_rdm_connect(ep, &dst, qual, timeout, pdata, plen);
}

DAT_RETURN ofi_accept(struct dapl_cr *cr, struct dapl_ep *ep, const void *pdata,
		      DAT_COUNT plen)
{
	if (plen < 0 || plen > OFI_MAX_PDATA)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (ofi_is_msg(ofi_ia_of(cr)))
		return ofi_msg_accept(cr, ep, pdata, plen);
	return ofi_rdm_accept(cr, ep, pdata, plen);
}

DAT_RETURN ofi_reject(struct dapl_cr *cr)
{
	struct dapl_tp_ia *oia = ofi_ia_of(cr);
	struct ofi_conn *c;

	pthread_mutex_lock(&oia->lock);
	c = ofi_cr_conn(cr);
	if (!c || c->ep) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	}
	if (c->state == OFI_CONN_REQUEST)
		ofi_send_reject(oia, c, 1);
	ofi_conn_free(oia, c);
	dapl_cr_set_tp(cr, NULL);
	pthread_mutex_unlock(&oia->lock);
	return DAT_SUCCESS;
}

void ofi_cr_destroy(struct dapl_cr *cr)
{
	struct dapl_tp_ia *oia = ofi_ia_of(cr);
	struct ofi_conn *c;

	pthread_mutex_lock(&oia->lock);
	c = ofi_cr_conn(cr);
	if (c && !c->ep) {
		/* nobody answered it (its PSP or IA went): not the peer's
		 * reject, as an IB CM's REJ for a destroyed request is not */
		if (c->state == OFI_CONN_REQUEST)
			ofi_send_reject(oia, c, 0);
		ofi_conn_free(oia, c);
	}
	dapl_cr_set_tp(cr, NULL);
	pthread_mutex_unlock(&oia->lock);
}

DAT_RETURN ofi_disconnect(struct dapl_ep *ep, int abrupt)
{
	struct dapl_tp_ia *oia = ofi_ia_of(ep);
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct ofi_conn *c;

	if (!oep)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	pthread_mutex_lock(&oia->lock);
	c = oep->conn;
	if (c && c->m && !abrupt && c->state == OFI_CONN_DISCONNECTING) {
		/* MSG: our DISC went; the peer's close ends it (msg.c) */
	} else if (c && !abrupt && c->state == OFI_CONN_ESTABLISHED) {
		/* the EP's requests first (ofi_conn_leave); each engine
		 * round looks again (ofi_cm_timers) */
		if (!c->leave_end) {
			c->leave_end = dapl_now_ns() + OFI_DRAIN_NS;
			ofi_conn_leave(oia, c, dapl_now_ns());
		}
	} else if (c && c->state != OFI_CONN_CLOSED) {
		ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 1);
		if (abrupt) { /* udapl reported it already: no note */
			struct dapl_list *pos, *tmp;

			dapl_list_for_each_safe(pos, tmp, &oia->notes) {
				struct ofi_note *n = dapl_container_of(
				    pos, struct ofi_note, link);

				if (n->kind == OFI_NOTE_EP && n->ep == ep &&
				    n->event == DAPL_CM_DISCONNECTED) {
					dapl_list_del(&n->link);
					free(n);
				}
			}
		}
	} else {
		ofi_ep_flush(oep);
	}
	pthread_mutex_unlock(&oia->lock);
	return DAT_SUCCESS;
}
