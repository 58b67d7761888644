/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FI_EP_MSG path: DAT connections over the libfabric provider's own
 * connected endpoints, where the provider named alone offers them with
 * what DAT needs (ia.c: libfabric's tcp; tcp;ofi_rxm and shm stay RDM,
 * rdm.c).
 *
 *   - A PSP/RSP is a passive endpoint listening at IP:port(Q), the port
 *     the RDM path maps the qualifier to (addr.c).  The connect data
 *     (struct ofi_msg_hdr, then the DAT private data) carries the full
 *     64-bit qualifier: a listener whose own qualifier differs rejects
 *     the request as "nobody listens" (NON_PEER_REJECTED), never takes it.
 *   - fi_connect with that data; FI_CONNREQ is the DAT CR; fi_accept and
 *     fi_reject answer it (the reject's data says peer or nobody), also
 *     after the PSP was freed (its passive endpoint lingers until then:
 *     struct ofi_msg_linger);
 *     At FI_CONNECTED the passive side's receives go to libfabric and
 *     it sends ACCEPT on the channel (below); that ACCEPT is ESTABLISHED
 *     on the active side, with the accept's private data, which answers
 *     RTU; the RTU is ESTABLISHED on the passive side.  So nothing is
 *     sent to the passive side before its receives are with libfabric,
 *     and an accept whose requester died ends ACCEPT_COMPLETION_ERROR
 *     (ofi_msg_connected says why).  A refused TCP connect is
 *     NON_PEER_REJECTED, another connect failure UNREACHABLE, the connect
 *     timeout TIMED_OUT.
 *   - The rest of our protocol (cm.c: key answers for RMA translation,
 *     window revocations, keepalives, DISC with its counts) travels on
 *     the connection itself, as a channel of RDMA writes: each side
 *     registers a ring of OFI_CHAN_SLOTS slots (its base and key are in
 *     the connect data) and the peer writes each message's head (the
 *     fixed part of struct ofi_wire) and a sequence number into the next
 *     slot with fi_inject_write.  The engine reads the slots (the
 *     sequence number is written last: a slot whose number is the next
 *     one is whole) and hands the messages to cm.c's handler; how many
 *     it read it writes back into the sender's credit word, and a sender
 *     never has more than OFI_CHAN_SLOTS unread.  Nothing of this uses
 *     the consumer's receives, and the messages are in order with the
 *     data: a DISC arrives after everything its sender sent before it.
 *   - Graceful disconnect: once the EP's requests completed (cm.c
 *     ofi_conn_leave, at most 2 s), the DISC goes behind the data; the
 *     peer ends the connection once it received the sends the DISC
 *     counts (as on RDM) and closes its endpoint; that close
 *     (FI_SHUTDOWN here) ends ours, or DAPL_OFI_DISC_MS (2 s) without
 *     it.  What is still in flight at the close is flushed, as on RDM.
 *   - A send completes once libfabric's tcp has written it to its socket
 *     (its transmit completion, as rxm's eager sends on the RDM path),
 *     not once the peer acknowledged it: dat_ep_post_send(3DAT) promises
 *     the local buffer back, and dat_ep_disconnect(3DAT) lets an abrupt
 *     disconnect end in-progress DTOs either way; a graceful one still
 *     delivers every send (the DISC's count).  FI_DELIVERY_COMPLETE made
 *     each send cost the receiver an acknowledgement, a message of its
 *     own and a system call before the receive's completion: a 64-byte
 *     ping-pong took 23 us a transfer against 8.4 without it (issue 35;
 *     fi_pingpong -e msg 7-9).  RDMA writes still ask for delivery
 *     (ep.c ofi_write_flags).
 *   - An FI_SHUTDOWN (or a connection error) with no DISC before it is a
 *     dead peer: BROKEN.  A SIGKILLed peer's kernel closes its sockets,
 *     so that comes at once; a peer that stops without closing (a host
 *     gone) is found by the keepalives (cm.c, DAPL_OFI_KEEPALIVE_*).
 *
 * Atomics: none on MSG (libfabric's tcp has no FI_ATOMIC; dat_ia_query
 * says so).  SRQ: none, as on RDM.  Events: the IA's EQ, read by the
 * engine under oia->lock; an event is matched to its connection or
 * listener by the fid it names, never through the fid's context.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "ofi.h"
#include "data.h"
#include "wire.h"
#include "cm.h"
#include "msg.h"

#define OFI_MSG_DISC_NS (2ull * 1000000000ull)

int ofi_msg_ia_open(struct dapl_tp_ia *oia)
{
	struct fi_eq_attr ea = {.size = 256, .wait_obj = FI_WAIT_UNSPEC};
	struct fid_pep *pep;
	size_t room = 0, len = sizeof(room);
	int rc;

	if (oia->info->addr_format != FI_SOCKADDR_IN ||
	    oia->info->tx_attr->inject_size < sizeof(struct ofi_chan_slot)) {
		dapl_dbg(DAPL_DBG_ERR, "ofi: %s: MSG endpoints without IPv4 "
				       "addresses or inject room",
			 oia->prov_name);
		return -FI_ENODATA;
	}
	/* how much connect data the provider carries: ours and DAT's */
	rc = fi_passive_ep(oia->fabric, oia->info, &pep, NULL);
	if (rc)
		return rc;
	rc = fi_getopt(&pep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, &room,
		       &len);
	fi_close(&pep->fid);
	if (rc || room < sizeof(struct ofi_msg_hdr) + OFI_MAX_PDATA) {
		dapl_dbg(DAPL_DBG_ERR, "ofi: %s: connect data room %zu",
			 oia->prov_name, room);
		return rc ? rc : -FI_ENODATA;
	}
	oia->fab.cm_data = room;
	return fi_eq_open(oia->fabric, &ea, &oia->eq, NULL);
}

void ofi_msg_ia_close(struct dapl_tp_ia *oia)
{
	while (oia->lingering.next != &oia->lingering) {
		struct ofi_msg_linger *l = dapl_container_of(
		    oia->lingering.next, struct ofi_msg_linger, link);

		dapl_list_del(&l->link);
		fi_close(&l->pep->fid);
		free(l);
	}
	if (oia->eq)
		fi_close(&oia->eq->fid);
	oia->eq = NULL;
}

/* Opens a MSG endpoint on info, bound to the EQ and the EP's CQs. */
static int ofi_msg_ep_open(struct dapl_tp_ia *oia, struct dapl_tp_ep *oep,
			   struct fi_info *info, struct fid_ep **out)
{
	struct fid_cq *tx = oep->sq.ocq ? oep->sq.ocq->cq : oia->null_cq;
	struct fid_cq *rx = oep->rq.ocq ? oep->rq.ocq->cq : oia->null_cq;
	struct ofi_wake *w = NULL;
	struct fid_ep *ep;
	int rc;

	rc = fi_endpoint(oia->domain, info, &ep, NULL);
	if (rc)
		return rc;
	rc = fi_ep_bind(ep, &oia->eq->fid, 0);
	/* the channel's writes want no completion (ep.c asks for every
	 * DTO's with FI_COMPLETION) */
	if (!rc && tx == rx)
		rc = fi_ep_bind(ep, &tx->fid,
				FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
	else if (!rc) {
		rc = fi_ep_bind(ep, &tx->fid,
				FI_TRANSMIT | FI_SELECTIVE_COMPLETION);
		if (!rc)
			rc = fi_ep_bind(ep, &rx->fid, FI_RECV);
	}
	if (!rc) {
		w = ofi_wake_bind(oia, ep, tx, rx); /* wake.c */
		rc = fi_enable(ep);
	}
	if (rc) {
		dapl_dbg(DAPL_DBG_CM, "ofi: MSG endpoint: %s", fi_strerror(-rc));
		fi_close(&ep->fid);
		ofi_wake_close(w);
		return rc;
	}
	ep->fid.context = w; /* ofi_ep_close closes it */
	ofi_wake_arm(w);
	*out = ep;
	return 0;
}

/* locked: the peer's messages in the ring; how many */
static int ofi_msg_read(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct ofi_msg_conn *m = c->m;
	struct ofi_wire w;
	struct fid_ep *fep;
	int got = 0;

	while ((c->state == OFI_CONN_CONNECTING && m->ready_wait) ||
	       c->state == OFI_CONN_ACCEPTING ||
	       c->state == OFI_CONN_ESTABLISHED ||
	       c->state == OFI_CONN_DRAINING ||
	       c->state == OFI_CONN_DISCONNECTING) {
		struct ofi_chan_slot *s = &m->chan->slot[m->rx_seq %
							 OFI_CHAN_SLOTS];

		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != m->rx_seq + 1)
			break;
		memset(&w, 0, offsetof(struct ofi_wire, pdata));
		memcpy(&w, s->head, sizeof(s->head));
		m->rx_seq++;
		got++;
		/* a head carries no addresses and no private data */
		w.ctl_len = w.data_len = 0;
		w.pdata_len = 0;
		if (w.magic != OFI_WIRE_MAGIC || w.version != OFI_WIRE_VERSION)
			continue;
		if (w.type == OFI_MSG_DISC &&
		    c->state == OFI_CONN_DISCONNECTING &&
		    w.src_id == c->peer_id) {
			/* both disconnected at once */
			ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 0);
			break;
		}
		oia->cm->rx(oia, &w); /* cm.c ofi_rx_conn */
	}
	fep = ofi_msg_fep(c);
	if (m->rx_seq != m->credit_sent && fep &&
	    !fi_inject_write(fep, &m->rx_seq, sizeof(m->rx_seq), 0,
			     ofi_msg_raddr(oia, m, 0), m->peer_key))
		m->credit_sent = m->rx_seq;
	return got;
}

/* ---- events ---- */

static struct ofi_conn *ofi_msg_conn_of(struct dapl_tp_ia *oia,
					const void *fid)
{
	struct dapl_list *pos;

	for (pos = oia->conns.next; pos != &oia->conns; pos = pos->next) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (c->m && c->m->fid == fid)
			return c;
	}
	return NULL;
}

static struct dapl_tp_sp *ofi_msg_sp_of(struct dapl_tp_ia *oia,
					const void *fid)
{
	struct dapl_list *pos;

	for (pos = oia->sps.next; pos != &oia->sps; pos = pos->next) {
		struct dapl_tp_sp *osp = dapl_container_of(
		    pos, struct dapl_tp_sp, link);

		if (osp->pep && &osp->pep->fid == fid)
			return osp;
	}
	return NULL;
}

static void ofi_msg_connreq(struct dapl_tp_ia *oia, const void *fid,
			    struct fi_info *info, const uint8_t *data,
			    size_t len)
{
	struct dapl_tp_sp *osp = ofi_msg_sp_of(oia, fid);
	const struct ofi_msg_hdr *h = (const void *)data;
	const struct sockaddr_in *peer = info->dest_addr;
	struct ofi_msg_linger *l;
	struct ofi_conn *c;

	/* the full qualifier: a request for another one that maps to this
	 * port found nobody; so did one to a freed listener (lingering) */
	if (!osp || !ofi_msg_hdr_ok(data, len, OFI_HDR_REQ) ||
	    h->qual != osp->qual || len - sizeof(*h) > OFI_MAX_PDATA) {
		l = osp ? NULL : ofi_msg_linger_of(oia, fid);
		ofi_msg_reject(oia, osp ? osp->pep : l ? l->pep : NULL, info,
			       0);
		return;
	}
	c = ofi_conn_new(oia);
	if (!c) {
		ofi_msg_reject(oia, osp->pep, info, 0);
		return;
	}
	if (!ofi_msg_conn_new(oia, c)) {
		ofi_msg_reject(oia, osp->pep, info, 0);
		ofi_conn_free(oia, c);
		return;
	}
	c->peer_id = h->conn_id;
	c->state = OFI_CONN_REQUEST;
	c->sp = osp->sp;
	c->peer_ia = h->ia_addr;
	c->peer_ia.sin_family = AF_INET;
	c->peer_port = peer && info->dest_addrlen >= sizeof(*peer)
			   ? ntohs(peer->sin_port)
			   : 0;
	c->m->info = info;
	c->m->pep = osp->pep;
	c->m->peer_base = h->chan_base;
	c->m->peer_key = h->chan_key;
	if (ofi_note_req(oia, osp->sp, c, data + sizeof(*h),
			 (int)(len - sizeof(*h)))) {
		ofi_msg_reject(oia, osp->pep, info, 0);
		c->m->info = NULL;
		ofi_conn_free(oia, c);
	}
}

/* locked: libfabric connected it: the EP takes the endpoint (its held
 * receives go to libfabric), and the peer hears type (ACCEPT, RTU) */
static void ofi_msg_attach(struct dapl_tp_ia *oia, struct ofi_conn *c,
			   struct dapl_tp_ep *oep, enum ofi_msg_type type)
{
	struct ofi_wire w;

	c->m->attached = 1;
	ofi_ep_attach(oep, c->m->fep); /* fep.c: held posts go */
	c->m->fep = NULL;
	c->last_heard = dapl_now_ns();
	ofi_wire_init(oia, &w, type);
	w.src_id = c->id;
	w.dst_id = c->peer_id;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &w);
}

static void ofi_msg_connected(struct dapl_tp_ia *oia, const void *fid,
			      const uint8_t *data, size_t len)
{
	struct ofi_conn *c = ofi_msg_conn_of(oia, fid);
	const struct ofi_msg_hdr *h = (const void *)data;
	struct dapl_tp_ep *oep;

	if (!c)
		return;
	oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	if (c->state == OFI_CONN_CONNECTING) {
		if (!oep || !ofi_msg_hdr_ok(data, len, OFI_HDR_ACCEPT) ||
		    len - sizeof(*h) > OFI_MAX_PDATA) {
			ofi_conn_end(oia, c, DAPL_CM_UNREACHABLE, 0);
			return;
		}
		c->peer_id = h->conn_id;
		c->m->peer_base = h->chan_base;
		c->m->peer_key = h->chan_key;
		c->m->pdata_len = (int)(len - sizeof(*h));
		memcpy(c->m->pdata, data + sizeof(*h), len - sizeof(*h));
		/* not yet: nothing goes from here until the passive side
		 * says, after its own FI_CONNECTED, that it is connected
		 * and its receives are with libfabric (they wait in its
		 * rings until then).  Sent at once, data could reach it
		 * first, and libfabric 1.17's tcp and net then sometimes
		 * never read that socket again: the passive side had
		 * ESTABLISHED, its socket's receive queue grew with our
		 * keepalives, the send never completed, and the
		 * keepalives ended the connection 10 s later (dapltest
		 * -T F over net, about once in 25 runs; the exact cause
		 * inside libfabric was not pinned down). */
		c->m->ready_wait = 1;
		return;
	}
	if (c->state != OFI_CONN_ACCEPTING || !oep || c->m->attached)
		return;
	/* the peer reports ESTABLISHED on this ACCEPT, and says so with
	 * an RTU (cm.c), which makes it ESTABLISHED here: libfabric's
	 * FI_CONNECTED comes also when the peer died after its request,
	 * and dat_cr_accept(3DAT) wants ACCEPT_COMPLETION_ERROR then, as
	 * an IB CM without RTU gives; on that peer's socket closed, the
	 * FI_SHUTDOWN (ofi_msg_down) or the timers end it so */
	ofi_msg_attach(oia, c, oep, OFI_MSG_ACCEPT);
}

/* An active connection's ACCEPT on the channel (cm.c): the passive side
 * is connected, both ends may send (ofi_msg_connected says why). */
void ofi_msg_ready(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;

	if (c->state != OFI_CONN_CONNECTING || !c->m->ready_wait)
		return;
	c->m->ready_wait = 0;
	if (!oep) {
		ofi_conn_end(oia, c, DAPL_CM_UNREACHABLE, 0);
		return;
	}
	c->state = OFI_CONN_ESTABLISHED;
	ofi_msg_attach(oia, c, oep, OFI_MSG_RTU);
	ofi_note_ep(oia, c->ep, DAPL_CM_ESTABLISHED, c->m->pdata,
		    c->m->pdata_len);
}

/* locked: what the peer wrote into the ring before an event that ends
 * the connection is read before that event is (an attached connection
 * only: before, the ring is not the peer's to write) */
void ofi_msg_catch_up(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	if (c->m && c->m->attached)
		ofi_msg_read(oia, c);
}

/* An FI_SHUTDOWN, or a connection's error (err, its data). */
static void ofi_msg_down(struct dapl_tp_ia *oia, const void *fid, int err,
			 const void *data, size_t len)
{
	struct ofi_conn *c = ofi_msg_conn_of(oia, fid);
	const struct ofi_msg_hdr *h = data;

	if (!c)
		return;
	dapl_dbg(DAPL_DBG_CM, "ofi: connection %llu down (state %d): %s",
		 (unsigned long long)c->id, c->state,
		 err ? fi_strerror(err) : "closed");
	switch (c->state) {
	case OFI_CONN_CONNECTING:
		if (data && ofi_msg_hdr_ok(data, len, OFI_HDR_REJECT))
			ofi_conn_end(oia, c,
				     h->status ? DAPL_CM_PEER_REJECTED
					       : DAPL_CM_NON_PEER_REJECTED,
				     0);
		else
			ofi_conn_end(oia, c,
				     err == FI_ECONNREFUSED
					 ? DAPL_CM_NON_PEER_REJECTED
					 : DAPL_CM_UNREACHABLE,
				     0);
		break;
	case OFI_CONN_ACCEPTING:
	case OFI_CONN_ESTABLISHED: /* no DISC came: the peer is gone */
		/* what it wrote before it went is read first: its RTU too,
		 * which libfabric put in the ring in the same CQ read as
		 * the send whose failure closed the connection (a send
		 * into a too short receive): ESTABLISHED, then BROKEN */
		ofi_msg_catch_up(oia, c);
		if (c->state == OFI_CONN_ACCEPTING)
			ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 0);
		else if (c->state == OFI_CONN_ESTABLISHED)
			ofi_conn_end(oia, c, DAPL_CM_BROKEN, 0);
		else if (c->state == OFI_CONN_DRAINING)
			ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 0);
		break;
	case OFI_CONN_DRAINING:
	case OFI_CONN_DISCONNECTING:
		ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 0);
		break;
	default:
		break;
	}
}

static int ofi_msg_events(struct dapl_tp_ia *oia)
{
	struct {
		struct fi_eq_cm_entry e;
		uint8_t data[512];
	} ev;
	struct fi_eq_err_entry err;
	uint32_t type;
	ssize_t n;
	int got = 0;

	for (;;) {
		n = fi_eq_read(oia->eq, &type, &ev, sizeof(ev), 0);
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_eq_readerr(oia->eq, &err, 0) < 0)
				break;
			got++;
			if (ofi_msg_sp_of(oia, err.fid))
				continue; /* a listener's: nothing to end */
			ofi_msg_down(oia, err.fid, ofi_err_code(err.err),
				     err.err_data, err.err_data_size);
			continue;
		}
		if (n < 0)
			break;
		got++;
		if ((size_t)n < sizeof(ev.e))
			continue;
		switch (type) {
		case FI_CONNREQ:
			ofi_msg_connreq(oia, ev.e.fid, ev.e.info, ev.data,
					(size_t)n - sizeof(ev.e));
			break;
		case FI_CONNECTED:
			ofi_msg_connected(oia, ev.e.fid, ev.data,
					  (size_t)n - sizeof(ev.e));
			break;
		case FI_SHUTDOWN:
			ofi_msg_down(oia, ev.e.fid, 0, NULL, 0);
			break;
		default:
			break;
		}
	}
	return got;
}

int ofi_msg_progress(struct dapl_tp_ia *oia, uint64_t now)
{
	struct dapl_list *pos, *tmp;
	int did;

	did = ofi_msg_events(oia);
	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (!c->m)
			continue;
		did += ofi_msg_read(oia, c);
		if (c->m->pend)
			ofi_msg_flush(oia, c);
		if (c->state == OFI_CONN_DISCONNECTING && now >= c->m->disc_end)
			ofi_conn_end(oia, c, DAPL_CM_DISCONNECTED, 0);
	}
	return did;
}

/* ---- the CM ops ---- */

/* locked: a passive endpoint listening at src (its port set): a freed
 * listener's lingering there (ofi_msg_linger) is ours and listens
 * already */
static int ofi_msg_pep_at(struct dapl_tp_ia *oia,
			  const struct sockaddr_in *src, void *arg)
{
	struct fid_pep **pep = arg;
	struct dapl_list *pos;
	struct fi_info *info;
	int rc;

	for (pos = oia->lingering.next; pos != &oia->lingering;
	     pos = pos->next) {
		struct ofi_msg_linger *l = dapl_container_of(
		    pos, struct ofi_msg_linger, link);

		if (l->port == ntohs(src->sin_port)) {
			*pep = l->pep;
			dapl_list_del(&l->link);
			free(l);
			return 0;
		}
	}
	info = fi_dupinfo(oia->info);
	if (!info)
		return -FI_ENOMEM;
	free(info->src_addr);
	info->src_addr = malloc(sizeof(*src));
	if (!info->src_addr) {
		fi_freeinfo(info);
		return -FI_ENOMEM;
	}
	memcpy(info->src_addr, src, sizeof(*src));
	info->src_addrlen = sizeof(*src);
	rc = fi_passive_ep(oia->fabric, info, pep, NULL);
	if (!rc) {
		rc = fi_pep_bind(*pep, &oia->eq->fid, 0);
		if (!rc)
			rc = fi_listen(*pep);
		if (rc)
			fi_close(&(*pep)->fid);
	}
	fi_freeinfo(info);
	return rc;
}

DAT_RETURN ofi_msg_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual)
{
	struct dapl_tp_ia *oia = ofi_ia_of(sp);
	struct dapl_tp_sp *osp = calloc(1, sizeof(*osp));
	struct sockaddr_in src = oia->addr;
	DAT_CONN_QUAL q = *qual;
	int rc;

	if (!osp)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	pthread_mutex_lock(&oia->lock);
	if (q) {
		src.sin_port = htons(ofi_qual_port(q));
		rc = ofi_sp_port_taken(oia, ofi_qual_port(q))
			 ? -FI_EADDRINUSE
			 : ofi_msg_pep_at(oia, &src, &osp->pep);
	} else {
		/* PSP_any: the first free port of its range (sp.c
		 * ofi_any_listen), which is the qualifier */
		rc = ofi_any_listen(oia, &src, ofi_msg_pep_at, &osp->pep);
		q = ntohs(src.sin_port);
	}
	return ofi_listen_done(oia, sp, osp, rc, q, qual);
}

void ofi_msg_listen_close(struct dapl_tp_sp *osp)
{
	struct dapl_tp_ia *oia = ofi_ia_of(osp->sp);
	struct ofi_msg_linger *l = NULL;
	struct dapl_list *pos;

	/* its requests still unanswered: it lingers until they are
	 * (ofi_msg_linger) */
	if (ofi_msg_pep_pending(oia, osp->pep))
		l = malloc(sizeof(*l));
	if (l) {
		l->pep = osp->pep;
		l->port = ofi_qual_port(osp->qual);
		dapl_list_add_tail(&oia->lingering, &l->link);
		osp->pep = NULL;
		return;
	}
	/* else they can still be accepted (their own sockets), not
	 * rejected through it any more */
	for (pos = oia->conns.next; pos != &oia->conns; pos = pos->next) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (c->m && c->m->pep == osp->pep)
			c->m->pep = NULL;
	}
	fi_close(&osp->pep->fid);
	osp->pep = NULL;
}

DAT_RETURN ofi_msg_connect(struct dapl_ep *ep, const struct sockaddr_in *dst,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *oia = ofi_ia_of(ep);
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	uint8_t data[sizeof(struct ofi_msg_hdr) + OFI_MAX_PDATA];
	struct ofi_msg_hdr h;
	struct fid_ep *fep;
	struct ofi_conn *c;
	int rc;

	pthread_mutex_lock(&oia->lock);
	if (!oep || oep->flushed || oep->conn) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	}
	c = ofi_conn_new(oia);
	if (!c || !ofi_msg_conn_new(oia, c)) {
		if (c)
			ofi_conn_free(oia, c);
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	rc = ofi_msg_ep_open(oia, oep, oia->info, &fep);
	if (rc) {
		ofi_conn_free(oia, c);
		pthread_mutex_unlock(&oia->lock);
		return ofi_fi_err(rc, DAT_RESOURCE_TEP);
	}
	c->m->fep = fep;
	c->m->fid = &fep->fid;
	c->active = 1;
	c->state = OFI_CONN_CONNECTING;
	c->dst = *dst;
	c->ep = ep;
	c->deadline = timeout == DAT_TIMEOUT_INFINITE
			  ? 0
			  : dapl_now_ns() + (uint64_t)timeout * 1000ull;
	oep->conn = c;
	ofi_msg_hdr_init(oia, &h, OFI_HDR_REQ, c);
	h.qual = qual;
	memcpy(data, &h, sizeof(h));
	if (plen)
		memcpy(data + sizeof(h), pdata, (size_t)plen);
	rc = fi_connect(fep, dst, data, sizeof(h) + (size_t)plen);
	if (rc) /* the event says it, as for a late refusal */
		ofi_conn_end(oia, c,
			     rc == -FI_ECONNREFUSED ? DAPL_CM_NON_PEER_REJECTED
						    : DAPL_CM_UNREACHABLE,
			     0);
	pthread_mutex_unlock(&oia->lock);
	dapl_progress_kick(oia->ia);
	return DAT_SUCCESS;
}

DAT_RETURN ofi_msg_accept(struct dapl_cr *cr, struct dapl_ep *ep,
			  const void *pdata, DAT_COUNT plen)
{
	struct dapl_tp_ia *oia = ofi_ia_of(cr);
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	uint8_t data[sizeof(struct ofi_msg_hdr) + OFI_MAX_PDATA];
	struct ofi_msg_hdr h;
	struct fid_ep *fep = NULL;
	struct ofi_conn *c;
	int rc;

	pthread_mutex_lock(&oia->lock);
	c = (struct ofi_conn *)(void *)dapl_cr_tp(cr);
	if (!c || !c->m || c->ep || !oep || oep->flushed || oep->conn) {
		pthread_mutex_unlock(&oia->lock);
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	}
	c->ep = ep;
	c->cr = NULL;
	oep->conn = c;
	rc = c->state == OFI_CONN_REQUEST && c->m->info
		 ? ofi_msg_ep_open(oia, oep, c->m->info, &fep)
		 : -FI_ECONNABORTED; /* the requester gave up meanwhile */
	if (!rc) {
		c->m->fep = fep;
		c->m->fid = &fep->fid;
		ofi_msg_hdr_init(oia, &h, OFI_HDR_ACCEPT, c);
		memcpy(data, &h, sizeof(h));
		if (plen)
			memcpy(data + sizeof(h), pdata, (size_t)plen);
		rc = fi_accept(fep, data, sizeof(h) + (size_t)plen);
	}
	if (c->m->info) {
		fi_freeinfo(c->m->info);
		c->m->info = NULL;
		ofi_msg_pep_answered(oia, c->m->pep);
	}
	c->state = OFI_CONN_ACCEPTING;
	c->last_heard = dapl_now_ns();
	if (rc) {
		dapl_dbg(DAPL_DBG_CM, "ofi: accept: %s", fi_strerror(-rc));
		ofi_conn_end(oia, c, DAPL_CM_ACCEPT_ERROR, 0);
	}
	pthread_mutex_unlock(&oia->lock);
	return DAT_SUCCESS;
}

void ofi_msg_disconnect(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	struct ofi_wire w;

	if (c->state == OFI_CONN_DISCONNECTING)
		return;
	ofi_wire_init(oia, &w, OFI_MSG_DISC);
	w.src_id = c->id;
	w.dst_id = c->peer_id;
	if (oep) { /* what the peer waits for, as on RDM (link.c) */
		w.base = ofi_ep_recvd(oep);
		dapl_lock(&oep->lock);
		w.len = oep->sends_issued;
		dapl_unlock(&oep->lock);
	}
	ofi_msg_send(oia, c, &w);
	c->state = OFI_CONN_DISCONNECTING;
	c->m->disc_end = dapl_now_ns() +
			 ofi_env_num("DAPL_OFI_DISC_MS", 2000, 600000) *
			     1000000ull;
	dapl_progress_kick(oia->ia);
}
