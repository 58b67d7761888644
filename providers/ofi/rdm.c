/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDM path (layer 5): our connection handshake (REQ, REQACK, ACCEPT,
 * REJECT, RTU) over the control endpoints, the listener probe, the REQ
 * resent, and the RDM listen, connect and accept, beside msg.c's for
 * MSG.
 *
 * It calls addr.c, sp.c, env.c, wake.c, the data path (fep.c), ctl.c,
 * conn.c, link.c, notes.c, wire.c and lep.c.  cm.c's listen, connect and
 * accept and its timers call it; ia.c registers ofi_rx_req and
 * ofi_ctl_tx_failed in the upcall table, which ctl.c calls.
 *
 * Our connection protocol over FI_EP_RDM, on the IA's control endpoint
 * and the listening endpoints (addr.c: where a qualifier listens).
 *
 *   active                         passive
 *   REQ(qual, pdata, addrs) ---->  listener: the full qualifier must be
 *                                  its own, else REJECT(nobody)
 *                                  DAT_CONNECTION_REQUEST_EVENT
 *                           <----  ACCEPT(pdata, data address)
 *                                  or REJECT(peer)
 *   ESTABLISHED, RTU        ---->  ESTABLISHED
 *
 *   The listener answers a REQ it read with REQACK at once.  A REQ that
 *   reached a listening endpoint closed (dat_psp_free) before it read it
 *   is lost, though rxm and shm report it sent: without a REQACK the
 *   connect sends the REQ again after 250 ms (doubling, up to 2 s), each
 *   time after the same check that somebody listens (the probe below),
 *   so that it reaches the qualifier's next listener or ends
 *   NON_PEER_REJECTED instead of waiting out its timeout.  A listener
 *   knows the REQs it read lately (by the requester's control address
 *   and connection id) and answers a repeated one only with REQACK.
 *   Over shm a freed listener's endpoint lingers, rejecting a REQ as
 *   finding nobody, until a PSP on its qualifier takes it over
 *   (ofi_lep_linger: why).
 *
 *   DISC either way: DISCONNECTED on the other side, once the sends the
 *   peer made before it (their number is in the DISC) were received there,
 *   or after 2 s: they travel on the data endpoints' own connection and
 *   may arrive after the DISC.  The DISC also says how many of the other
 *   side's messages its sender received (receives complete in posting
 *   order and match sends in sending order): the other side's sends among
 *   them complete as sent, not flushed, though rxm's completion has not
 *   come yet (a rendezvous send completes with the receiver's ack, on the
 *   data endpoint, which the DISC may overtake; on verbs the ack comes
 *   before the DREQ).
 *   KA either way every DAPL_OFI_KEEPALIVE_MS on established connections;
 *   DAPL_OFI_KEEPALIVE_TIMEOUT_MS of silence: BROKEN.
 *   KEYQ/KEYR: the base, length and remote privileges (OFI_PERM_* in
 *   qual) of a registration by key (ep.c).
 *
 * Every message names the sender's and the receiver's connection ids;
 * one that matches no connection of ours is dropped.  A connect timeout
 * gives TIMED_OUT (and a DISC to the listener, which drops the request).
 * Nobody listening gives NON_PEER_REJECTED: rxm retries a send to a
 * refused address for ever without a word, so over TCP a connect first
 * probes the listener's port with a TCP connect of its own (non-blocking,
 * watched by the timers) and sends the REQ once that connected; a refused
 * probe is NON_PEER_REJECTED, another failure UNREACHABLE.  Peer
 * addresses stay in the IA's address vector until the IA closes
 * (libfabric does not count references to them).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "ofi.h"
#include "data.h"
#include "wire.h"
#include "cm.h"

/* How long a connect waits for the listener's REQACK before it sends the
 * REQ again (doubling up to the max): a REQ that reached a listening
 * endpoint closed before it read it is lost without a word. */
#define OFI_REQ_RESEND_NS (250ull * 1000000ull)
#define OFI_REQ_RESEND_MAX_NS (2ull * 1000000000ull)

static void ofi_req_sent(struct ofi_conn *c);

/* A peer's control address into the AV of c's control endpoint (addr.c
 * ofi_addr_insert_gen). */
static int ofi_av_insert(struct dapl_tp_ia *oia, struct ofi_conn *c,
			 const void *addr, size_t len, fi_addr_t *out)
{
	return ofi_addr_insert_gen(oia, c->gen, addr, len, out);
}

/* The peer's data endpoint, for oep's endpoint: into its own AV where it
 * has one (shm), else the IA's, which is the one AV the IA has there
 * (only shm moves on to new ones: gen.c). */
static int ofi_av_insert_data(struct dapl_tp_ia *oia, struct dapl_tp_ep *oep,
			      const void *addr, size_t len, fi_addr_t *out)
{
	return ofi_addr_insert(oia, oep->av ? oep->av : oia->gen->av, addr,
			       len, out);
}

/* ---- received messages ---- */

static void ofi_send_reqack(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct ofi_wire r;

	ofi_wire_init(oia, &r, OFI_MSG_REQACK);
	r.src_id = c->id;
	r.dst_id = c->peer_id;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
}

/* locked: a REQ read before (the requester sent it again: its REQACK is
 * late)?  Then the request it made, if still unanswered, acknowledges it
 * again; else it is remembered. */
static int ofi_req_repeated(struct dapl_tp_ia *oia, const struct ofi_wire *m)
{
	const unsigned nseen = sizeof(oia->req_seen) / sizeof(oia->req_seen[0]);
	struct ofi_req_seen *s;
	struct dapl_list *pos, *tmp;
	unsigned i;

	for (i = 0; i < nseen; i++) {
		s = &oia->req_seen[i];
		if (s->len && s->id == m->src_id && s->len == m->ctl_len &&
		    !memcmp(s->addr, m->ctl_addr, m->ctl_len))
			break;
	}
	if (i == nseen) {
		s = &oia->req_seen[oia->req_seen_next++ % nseen];
		s->id = m->src_id;
		s->len = m->ctl_len;
		memcpy(s->addr, m->ctl_addr, m->ctl_len);
		return 0;
	}
	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (!c->active && c->state == OFI_CONN_REQUEST &&
		    c->peer_id == m->src_id && c->peer_ctl_len == m->ctl_len &&
		    !memcmp(c->peer_ctl_addr, m->ctl_addr, m->ctl_len))
			ofi_send_reqack(oia, c);
	}
	return 1;
}

/* locked: a REQ read is forgotten: the next copy of it is a new one */
static void ofi_req_forget(struct dapl_tp_ia *oia, const struct ofi_wire *m)
{
	const unsigned nseen = sizeof(oia->req_seen) / sizeof(oia->req_seen[0]);
	unsigned i;

	for (i = 0; i < nseen; i++) {
		struct ofi_req_seen *s = &oia->req_seen[i];

		if (s->len && s->id == m->src_id && s->len == m->ctl_len &&
		    !memcmp(s->addr, m->ctl_addr, m->ctl_len))
			s->len = 0;
	}
}

void ofi_rx_req(struct dapl_tp_ia *oia, struct ofi_ctl_ep *lep,
		const struct ofi_wire *m)
{
	struct dapl_tp_sp *osp = lep->sp ? dapl_sp_tp(lep->sp) : NULL;
	struct ofi_conn *c;
	struct ofi_note *n;

	if (!m->ctl_len || ofi_req_repeated(oia, m))
		return;
	c = ofi_conn_new(oia);
	if (!c)
		return;
	c->peer_id = m->src_id;
	c->state = OFI_CONN_REQUEST;
	memcpy(c->peer_ctl_addr, m->ctl_addr, m->ctl_len);
	c->peer_ctl_len = m->ctl_len;
	if (ofi_av_insert(oia, c, m->ctl_addr, m->ctl_len, &c->peer_ctl)) {
		/* shm: the AV is full until the IA moves on (gen.c): the
		 * REQ sent again is a new one then */
		ofi_req_forget(oia, m);
		ofi_conn_free(oia, c);
		return;
	}
	/* the full qualifier: a request for another one that maps to this
	 * port found nobody */
	if (!osp || osp->qual != m->qual || !m->data_len ||
	    m->data_len > OFI_ADDR_MAX) {
		ofi_send_reject(oia, c, 0);
		ofi_conn_free(oia, c);
		return;
	}
	c->sp = lep->sp;
	memcpy(c->peer_data, m->data_addr, m->data_len);
	c->peer_data_len = m->data_len;
	c->peer_ia = m->ia_addr;
	c->peer_ia.sin_family = AF_INET;
	c->peer_port = ofi_addr_port(oia, m->ctl_addr, m->ctl_len);
	n = ofi_note_new(oia, m->pdata, m->pdata_len);
	if (!n) {
		ofi_send_reject(oia, c, 0);
		ofi_conn_free(oia, c);
		return;
	}
	n->kind = OFI_NOTE_REQ;
	n->sp = lep->sp;
	n->conn = c;
	ofi_send_reqack(oia, c);
	dapl_progress_kick(oia->ia);
}

void ofi_rx_accept(struct dapl_tp_ia *oia, struct ofi_conn *c,
		   const struct ofi_wire *m)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	struct ofi_wire r;
	fi_addr_t peer;

	if (c->state != OFI_CONN_CONNECTING || !oep)
		return;
	c->peer_id = m->src_id;
	if (ofi_av_insert(oia, c, m->ctl_addr, m->ctl_len, &c->peer_ctl) ||
	    ofi_av_insert_data(oia, oep, m->data_addr, m->data_len, &peer)) {
		ofi_conn_end(oia, c, DAPL_CM_UNREACHABLE, 0);
		return;
	}
	if (oia->fab.ep_av) /* shm: a peer dying in a lock (shm_guard.c) */
		ofi_ep_guard(oep, m->data_addr, m->data_len);
	dapl_lock(&oep->lock);
	oep->peer = peer;
	oep->connected = 1;
	if (oia->fab.ep_av) /* shm: its doorbell (wake.c) */
		ofi_wake_bell_peer(oep, m->data_addr, m->data_len);
	dapl_unlock(&oep->lock);
	c->state = OFI_CONN_ESTABLISHED;
	c->last_heard = dapl_now_ns();
	ofi_wire_init(oia, &r, OFI_MSG_RTU);
	r.src_id = c->id;
	r.dst_id = c->peer_id;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &r);
	ofi_keyt_send(oia, c); /* shm: our key table (link.c) */
	ofi_note_ep(oia, c->ep, DAPL_CM_ESTABLISHED, m->pdata, m->pdata_len);
}

/*
 * locked: nobody listens where the REQ went (a probe refused, shm's name
 * gone), but the listener read an earlier REQ (REQACK, keepalives) or
 * libfabric delivered one lately: its endpoint went (the PSP freed, or
 * freed and made anew) while the request stays the consumer's to answer
 * over the IA's own endpoint (psp-gone.bats under load: the resend 250 ms
 * on, before the REQACK was read, found the freed PSP's port closed, and
 * the connect ended NON_PEER_REJECTED before the consumer's reject came).
 * 1: wait for the answer; the listener's keepalives and silence, the
 * connect's timeout, or the keepalive timeout after a delivery nobody
 * acknowledged end it.
 */
static int ofi_req_kept(struct dapl_tp_ia *oia, const struct ofi_conn *c)
{
	return c->listener_heard ||
	       (c->req_delivered &&
		dapl_now_ns() - c->req_delivered_at < oia->ka_timeout_ns);
}

/* A control send failed: libfabric could not reach the peer. */
void ofi_ctl_tx_failed(struct dapl_tp_ia *oia, struct ofi_txbuf *tb,
		       int err)
{
	struct ofi_conn *c = tb->conn_id ? ofi_conn_find(oia, tb->conn_id)
					 : NULL;

	dapl_dbg(DAPL_DBG_CM, "ofi: control message %u: %s", tb->msg.type,
		 fi_strerror(err));
	if (!c)
		return;
	/*
	 * verbs: a REQ canceled (its verbs send flushed) went on rxm's
	 * connection to a listener whose endpoint was closed, which rxm
	 * still takes for connected: it heard no end of it, and every send
	 * there is canceled again (churn.bats in the soft-RoCE guest, with
	 * the shared receive context of init.c: the client's last word,
	 * sent 100 times, never reached the next listener on the
	 * qualifier).  That connection is closed and the REQ goes again at
	 * its resend (ofi_req_resend), on a new one; the connect's timeout
	 * bounds it.
	 */
	if (oia->fab.renew_canceled && err == FI_ECANCELED &&
	    c->state == OFI_CONN_CONNECTING &&
	    tb->msg.type == OFI_MSG_REQ && c->req_resend &&
	    !ofi_av_renew(tb->gen->av, tb->dest)) {
		dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: REQ canceled: "
			 "rxm's connection to the listener started anew",
			 (unsigned long long)c->id);
		return;
	}
	/*
	 * A REQ sent again (no REQACK read yet) that failed after an earlier
	 * one reached the listener: its endpoint went (the PSP freed, or
	 * made anew), but the request is the consumer's to answer, over the
	 * IA's own endpoint, and its reject must not turn into "nobody
	 * listens" (psp-gone.bats beside a busy loop: the resend 250 ms on,
	 * before the REQACK was read, to the freed PSP's closed endpoint,
	 * gave NON_PEER_REJECTED).  The answer, the listener's keepalives
	 * and silence, or the connect's timeout end it.
	 */
	if (c->state == OFI_CONN_CONNECTING && tb->msg.type == OFI_MSG_REQ &&
	    (c->req_delivered || c->listener_heard)) {
		dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: a REQ sent again "
			 "failed; the listener has the first one",
			 (unsigned long long)c->id);
		return;
	}
	/* rxm: ENOTCONN when the listener went away while it connected */
	if (c->state == OFI_CONN_CONNECTING)
		ofi_conn_end(oia, c,
			     err == FI_ECONNREFUSED || err == FI_ENOTCONN
				 ? DAPL_CM_NON_PEER_REJECTED
				 : DAPL_CM_UNREACHABLE,
			     0);
	else if (c->state == OFI_CONN_ESTABLISHED)
		ofi_conn_end(oia, c, DAPL_CM_BROKEN, 0);
	else if (c->state == OFI_CONN_ACCEPTING)
		ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 0);
}

/* ---- the listener probe (TCP) ---- */

/* 0: probing (fd in c), 1: connected, or a negative errno */
static int ofi_probe_start(struct ofi_conn *c, const struct sockaddr_in *dst)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (!connect(fd, (const struct sockaddr *)dst, sizeof(*dst))) {
		close(fd);
		return 1;
	}
	if (errno != EINPROGRESS) {
		int err = errno;

		close(fd);
		return -err;
	}
	c->probe_fd = fd;
	return 0;
}

/* locked: a probe finished?  Then the REQ goes, or the connection ends. */
void ofi_probe_check(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct pollfd p = {.fd = c->probe_fd, .events = POLLOUT};
	socklen_t len = sizeof(int);
	int err = 0;

	if (poll(&p, 1, 0) <= 0)
		return;
	if (getsockopt(c->probe_fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	close(c->probe_fd);
	c->probe_fd = -1;
	if (!err && !ofi_ctl_send(oia, c->gen, c->dest, c->id, c->req)) {
		ofi_req_sent(c);
		return;
	}
	if (err == ECONNREFUSED && ofi_req_kept(oia, c)) {
		dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: nobody at the "
			 "port now; the listener has the first REQ",
			 (unsigned long long)c->id);
		ofi_req_sent(c);
		return;
	}
	ofi_conn_end(oia, c,
		     err == ECONNREFUSED ? DAPL_CM_NON_PEER_REJECTED
					 : DAPL_CM_UNREACHABLE,
		     0);
}

/* locked: the REQ went to the listener; when to send it again unless
 * it is read (REQACK) */
static void ofi_req_sent(struct ofi_conn *c)
{
	c->req_gap = !c->req_gap ? OFI_REQ_RESEND_NS
		     : c->req_gap >= OFI_REQ_RESEND_MAX_NS / 2
			 ? OFI_REQ_RESEND_MAX_NS
			 : 2 * c->req_gap;
	c->req_resend = dapl_now_ns() + c->req_gap;
}

/* locked: no REQACK came: the REQ again, once somebody listens there */
void ofi_req_resend(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	int rc;

	c->req_resend = 0;
	if (ofi_tx_held_to(oia, c->gen, c->dest)) {
		/* the last one has not even gone yet (shm: the listener's
		 * queue is full, or its name went away; TCP: rxm's
		 * connection to the listener may be stuck) */
		uint64_t now = dapl_now_ns();

		if (oia->fab.tcp_probe)
			ofi_rxm_unstick(oia, c->gen, c->dest, now);
		c->req_resend = now + c->req_gap;
		return;
	}
	dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu: no REQACK: REQ again",
		 (unsigned long long)c->id);
	if (oia->fab.tcp_probe) {
		rc = ofi_probe_start(c, &c->dst);
	} else {
		/* shm: to the listener's region as it is now
		 * (ofi_addr_dest); -1, unknown: it goes all the same */
		rc = oia->info->addr_format == FI_ADDR_STR
			 ? ofi_addr_dest(oia, c->gen, &c->dst, &c->dest)
			 : ofi_addr_listening(oia, &c->dst);
		rc = rc == OFI_ADDR_PLANTED ? -EIO : rc ? 1 : -ECONNREFUSED;
	}
	if (rc == 1) {
		rc = ofi_ctl_send(oia, c->gen, c->dest, c->id, c->req);
		if (!rc) {
			ofi_req_sent(c);
			return;
		}
		rc = -EIO;
	}
	if (rc == -ECONNREFUSED && ofi_req_kept(oia, c)) {
		ofi_req_sent(c);
		return;
	}
	if (rc < 0)
		ofi_conn_end(oia, c,
			     rc == -ECONNREFUSED ? DAPL_CM_NON_PEER_REJECTED
						 : DAPL_CM_UNREACHABLE,
			     0);
	/* 0: probing; ofi_probe_check sends it */
}

DAT_RETURN ofi_rdm_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual)
{
	struct dapl_tp_ia *oia = ofi_ia_of(sp);
	struct sockaddr_in src = oia->addr;
	struct dapl_tp_sp *osp = calloc(1, sizeof(*osp));
	DAT_CONN_QUAL q = *qual;
	int rc;

	if (!osp)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	src.sin_port = htons(ofi_qual_port(q));
	pthread_mutex_lock(&oia->lock);
	rc = ofi_sp_port_taken(oia, ofi_qual_port(q))
		 ? -FI_EADDRINUSE
		 : ofi_listen_open(oia, &src, sp, &osp->lep);
	if (!rc && !q)
		q = ofi_addr_port(oia, osp->lep->name, osp->lep->namelen);
	return ofi_listen_done(oia, sp, osp, rc, q, qual);
}

DAT_RETURN ofi_rdm_connect(struct dapl_ep *ep, const struct sockaddr_in *to,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *oia = ofi_ia_of(ep);
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct sockaddr_in dst = *to;
	struct ofi_conn *c;
	struct ofi_wire *m;
	int rc, listening;

	pthread_mutex_lock(&oia->lock);
	if (!oep || !oep->fep || oep->conn) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	}
	c = ofi_conn_new(oia);
	if (!c) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	c->active = 1;
	c->state = OFI_CONN_CONNECTING;
	c->dst = dst;
	if (oia->info->addr_format == FI_ADDR_STR) {
		/* shm: a look at the listener's region, which picks the
		 * address to send there under (ofi_addr_dest) */
		listening = ofi_addr_dest(oia, c->gen, &dst, &c->dest);
		rc = listening < 0;
	} else {
		uint8_t a[OFI_ADDR_MAX];
		size_t n = ofi_addr_make(oia, &dst, a, sizeof(a));

		rc = !n || ofi_av_insert(oia, c, a, n, &c->dest);
		listening = rc ? 0 : ofi_addr_listening(oia, &dst);
	}
	if (rc) {
		ofi_conn_free(oia, c);
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNREACHABLE);
	}
	c->ep = ep;
	c->deadline = timeout == DAT_TIMEOUT_INFINITE
			  ? 0
			  : dapl_now_ns() + (uint64_t)timeout * 1000ull;
	oep->conn = c;
	c->req = malloc(sizeof(*c->req));
	if (!c->req) {
		ofi_conn_free(oia, c);
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	m = c->req;
	ofi_wire_init(oia, m, OFI_MSG_REQ);
	m->qual = qual;
	m->src_id = c->id;
	m->data_len = (uint16_t)oep->namelen;
	memcpy(m->data_addr, oep->name, oep->namelen);
	m->pdata_len = (uint16_t)plen;
	if (plen)
		memcpy(m->pdata, pdata, (size_t)plen);
	/* nobody listening: tcp probes the port, shm looked for the name */
	rc = oia->fab.tcp_probe ? ofi_probe_start(c, &dst)
	     : !listening	    ? -ECONNREFUSED
				    : 1;
	if (rc == 1) {
		rc = ofi_ctl_send(oia, c->gen, c->dest, c->id, m);
		if (rc) {
			ofi_conn_free(oia, c);
			pthread_mutex_unlock(&oia->lock);
			return ofi_fi_err(rc, DAT_RESOURCE_MEMORY);
		}
		ofi_req_sent(c);
	} else if (rc < 0) { /* the event says it, as for a late refusal */
		ofi_conn_end(oia, c,
			     rc == -ECONNREFUSED ? DAPL_CM_NON_PEER_REJECTED
						 : DAPL_CM_UNREACHABLE,
			     0);
	}
	pthread_mutex_unlock(&oia->lock);
	dapl_progress_kick(oia->ia);
	return DAT_SUCCESS;
}

DAT_RETURN ofi_rdm_accept(struct dapl_cr *cr, struct dapl_ep *ep,
			  const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *oia = ofi_ia_of(cr);
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct ofi_conn *c;
	struct ofi_wire m;
	fi_addr_t peer;

	pthread_mutex_lock(&oia->lock);
	c = ofi_cr_conn(cr);
	if (!c || c->ep || !oep || !oep->fep || oep->conn) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	}
	c->ep = ep;
	c->cr = NULL;
	oep->conn = c;
	if (c->state != OFI_CONN_REQUEST ||
	    ofi_av_insert_data(oia, oep, c->peer_data, c->peer_data_len,
			       &peer)) {
		/* the requester gave up meanwhile */
		c->state = OFI_CONN_ACCEPTING;
		ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 0);
		pthread_mutex_unlock(&oia->lock);
		return DAT_SUCCESS;
	}
	if (oia->fab.ep_av) /* shm: a peer dying in a lock (shm_guard.c) */
		ofi_ep_guard(oep, c->peer_data, c->peer_data_len);
	dapl_lock(&oep->lock);
	oep->peer = peer;
	oep->connected = 1;
	if (oia->fab.ep_av) /* shm: its doorbell (wake.c) */
		ofi_wake_bell_peer(oep, c->peer_data, c->peer_data_len);
	dapl_unlock(&oep->lock);
	c->state = OFI_CONN_ACCEPTING;
	c->last_heard = dapl_now_ns();
	ofi_wire_init(oia, &m, OFI_MSG_ACCEPT);
	m.src_id = c->id;
	m.dst_id = c->peer_id;
	m.data_len = (uint16_t)oep->namelen;
	memcpy(m.data_addr, oep->name, oep->namelen);
	m.pdata_len = (uint16_t)plen;
	if (plen)
		memcpy(m.pdata, pdata, (size_t)plen);
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &m);
	pthread_mutex_unlock(&oia->lock);
	return DAT_SUCCESS;
}
