/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDM's control path (layer 4): the control and listening endpoints
 * (struct ofi_ctl_ep) with their receive buffers, the control messages
 * sent through them (txbufs, held on -FI_EAGAIN, rxm's stuck connections
 * renewed), and the control CQ's reader.  What it reads goes up through
 * the IA's table (cm.h struct ofi_cm_upcalls): a REQ to rx_req, any
 * other message to rx, a failed send to tx_failed.
 *
 * It calls conn.c, fabric.c and wake.c.  gen.c opens and closes the
 * control endpoints, lep.c the listening ones; link.c sends through
 * ofi_ctl_post; the engine (progress.c) drains the CQ and retries what
 * was held; rdm.c, cm.c, ia.c and rmr.c (a bind waiting for its peers)
 * use the rest.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ofi.h"
#include "wire.h"
#include "cm.h"

/* Reads of the control CQ before a control endpoint closes
 * (ofi_ctl_shut) */
#define OFI_CTL_CLOSE_READS 16
/* How long the IA's close waits for its control messages in flight to
 * complete (ofi_ctl_sent_wait) */
#define OFI_CTL_SENT_WAIT_NS (1000ull * 1000000ull)
/* TCP: how long a REQ may wait in rxm for its connection to the listener
 * before that connection is started anew (ofi_rxm_unstick), doubling
 * each time up to the max: a listener slow to answer is not cut off
 * for ever */
#define OFI_RXM_STUCK_NS (1000ull * 1000000ull)
#define OFI_RXM_STUCK_MAX_NS (8000ull * 1000000ull)

/* ---- control endpoints and messages ---- */

static void ofi_rx_post(struct ofi_rxbuf *rb)
{
	rb->posted = !fi_recv(rb->owner->ep, &rb->msg, sizeof(rb->msg), NULL,
			      FI_ADDR_UNSPEC, rb);
}

int ofi_ctl_rx_repost(struct ofi_ctl_ep *c)
{
	int i, did = 0;

	for (i = 0; i < OFI_CTL_RX; i++)
		if (!c->rx[i].posted) {
			ofi_rx_post(&c->rx[i]);
			did += c->rx[i].posted;
		}
	return did;
}

int ofi_ctl_open(struct dapl_tp_ia *oia, struct fid_av *av,
		 const struct sockaddr_in *src, struct dapl_sp *sp,
		 struct ofi_ctl_ep **out)
{
	struct ofi_ctl_ep *c = calloc(1, sizeof(*c));
	int rc, i;

	if (!c)
		return -FI_ENOMEM;
	c->rx = calloc(OFI_CTL_RX, sizeof(*c->rx));
	if (!c->rx) {
		free(c);
		return -FI_ENOMEM;
	}
	c->oia = oia;
	c->sp = sp;
	rc = ofi_ep_open(oia, src, av, oia->ctl_cq, oia->ctl_cq, &c->ep);
	if (rc) {
		free(c->rx);
		free(c);
		return rc;
	}
	c->namelen = sizeof(c->name);
	rc = fi_getname(&c->ep->fid, c->name, &c->namelen);
	if (rc) {
		ofi_ep_close(c->ep);
		free(c->rx);
		free(c);
		return rc;
	}
	for (i = 0; i < OFI_CTL_RX; i++) {
		c->rx[i].kind = OFI_CTX_CTL_RX;
		c->rx[i].owner = c;
		ofi_rx_post(&c->rx[i]);
	}
	*out = c;
	return 0;
}

/*
 * The caller drains the control CQ after the close and before the free
 * (ofi_ctl_free), so that no entry names a freed buffer.
 *
 * And the CQ is read before the close, while the endpoint is alive.
 * libfabric 1.17's rxm, closing an endpoint, closes each connection's
 * verbs endpoint first and only then handles what its verbs CQ still
 * holds (rxm_close_conn: fi_close, then rxm_flush_msg_cq); a message
 * received there has its buffer posted again on the closed verbs
 * endpoint (rxm_free_rx_buf tests conn->msg_ep, cleared only after the
 * flush): SIGSEGV in rxm_post_recv.  A listener's endpoint is closed
 * while clients send it REQs: the server of churn.bats over verbs died
 * so in dat_psp_free (fi_close, rxm_ep_close, rxm_close_conn,
 * rxm_handle_comp, rxm_post_recv: 1 run of 13 in the soft-RoCE guest;
 * the message was a credit message of verbs' flow control, which verbs
 * IAs no longer have: init.c FI_OFI_RXM_USE_SRX).  rxm handles a
 * bounded number of its verbs completions per read of our CQ (64 over
 * verbs, init.c), and a read
 * that returns nothing may still have handled some: a bounded number
 * of reads, as for a DAT EP's data endpoint (fep.c ofi_ep_settle).  A
 * REQ read here finds the listener gone (ofi_listen_stop cleared its
 * service point first): nobody there.  A message that arrives between
 * these reads and the close is libfabric's risk still.
 */
void ofi_ctl_shut(struct ofi_ctl_ep *c)
{
	int i;

	for (i = 0; i < OFI_CTL_CLOSE_READS; i++)
		ofi_ctl_drain(c->oia);
	c->closing = 1;
	ofi_ep_close(c->ep);
}

void ofi_ctl_free(struct ofi_ctl_ep *c)
{
	free(c->rx);
	free(c);
}

/*
 * Before the IA's control endpoint closes: its control messages that
 * went (not held back) complete first, bounded (OFI_CTL_SENT_WAIT_NS).
 * A send completes once the peer's side received it (a verbs RC send:
 * the peer acknowledged it), so the message is in the peer's CQ before
 * the close ends rxm's connection to it.  The peer's rxm, libfabric
 * 1.17, handles the end of a connection (an rdma_cm event, read from
 * fi_cq_read once its verbs CQ was found empty, or from inside fi_send)
 * by closing the verbs endpoint and only then handling the completions
 * left in its CQ: a message that arrived in between has its buffer
 * posted again on the closed endpoint, SIGSEGV (ofi_ctl_shut; the
 * client of cr_overflow.bats, init.c).  The last REJECT of a
 * churn.bats server that exits at once is such a message.
 */
void ofi_ctl_sent_wait(struct dapl_tp_ia *oia)
{
	uint64_t end = dapl_now_ns() + OFI_CTL_SENT_WAIT_NS;

	for (;;) {
		struct dapl_list *pos, *tmp;
		int flying = 0;

		dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
			struct ofi_txbuf *tb =
			    dapl_container_of(pos, struct ofi_txbuf, link);

			flying |= !tb->held;
		}
		if (!flying || dapl_now_ns() >= end)
			return;
		if (!ofi_ctl_drain(oia))
			usleep(100);
	}
}

void ofi_ctl_close(struct ofi_ctl_ep *c)
{
	ofi_ctl_shut(c);
	ofi_ctl_drain(c->oia);
	ofi_ctl_free(c);
}

static int ofi_tx_try(struct dapl_tp_ia *oia, struct ofi_txbuf *tb)
{
	size_t len = offsetof(struct ofi_wire, pdata) + tb->msg.pdata_len;
	int rc = (int)fi_send(tb->gen->ctl->ep, &tb->msg, len, NULL, tb->dest,
			      tb);

	if (!rc) {
		tb->held = 0;
		ofi_wake_ring_addr(oia, tb->gen->av, tb->dest); /* shm: wake.c */
	}
	return rc;
}

/* locked: a held control message to dest of g's AV? */
int ofi_tx_held_to(struct dapl_tp_ia *oia, const struct ofi_ctl_gen *g,
		   fi_addr_t dest)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
		struct ofi_txbuf *tb =
		    dapl_container_of(pos, struct ofi_txbuf, link);

		if (tb->held && tb->gen == g && tb->dest == dest)
			return 1;
	}
	return 0;
}

int ofi_ctl_post(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		 fi_addr_t dest, uint64_t conn_id, const struct ofi_wire *msg)
{
	struct ofi_txbuf *tb;
	int rc;

	tb = malloc(sizeof(*tb));
	if (!tb)
		return -FI_ENOMEM;
	tb->kind = OFI_CTX_CTL_TX;
	tb->gen = g;
	tb->dest = dest;
	tb->conn_id = conn_id;
	memcpy(&tb->msg, msg, offsetof(struct ofi_wire, pdata) + msg->pdata_len);
	/* where the answer goes: the endpoint this goes through */
	tb->msg.ctl_len = (uint16_t)g->ctl->namelen;
	memcpy(tb->msg.ctl_addr, g->ctl->name, g->ctl->namelen);
	tb->held = 1;
	tb->since = dapl_now_ns();
	tb->stuck_ns = OFI_RXM_STUCK_NS;
	/* behind held ones to the same place: the messages of a
	 * connection stay in order (one that cannot go, e.g. to a shm name
	 * whose listener went away, holds back no one else's) */
	if (ofi_tx_held_to(oia, g, dest)) {
		dapl_list_add_tail(&oia->txbufs, &tb->link);
		dapl_progress_kick(oia->ia);
		return 0;
	}
	dapl_list_add_tail(&oia->txbufs, &tb->link);
	rc = ofi_tx_try(oia, tb);
	if (rc == -FI_EAGAIN) {
		dapl_progress_kick(oia->ia);
		return 0;
	}
	if (rc) {
		dapl_list_del(&tb->link);
		free(tb);
	}
	return rc;
}

void ofi_ctl_backlog(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;
	struct {
		const struct ofi_ctl_gen *gen;
		fi_addr_t dest;
	} stuck[8];
	int nstuck = 0, i, rc;

	dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
		struct ofi_txbuf *tb =
		    dapl_container_of(pos, struct ofi_txbuf, link);
		struct ofi_conn *c;

		if (!tb->held)
			continue;
		/* the message of a connection that ended meanwhile (its
		 * connect timed out) is of no use any more */
		c = tb->conn_id ? ofi_conn_find(oia, tb->conn_id) : NULL;
		if (tb->conn_id && (!c || c->state == OFI_CONN_CLOSED)) {
			dapl_list_del(&tb->link);
			free(tb);
			continue;
		}
		for (i = 0; i < nstuck && (stuck[i].gen != tb->gen ||
					   stuck[i].dest != tb->dest);
		     i++)
			;
		if (i < nstuck)
			continue; /* in order behind a held one */
		rc = ofi_tx_try(oia, tb);
		if (rc == -FI_EAGAIN) {
			if (nstuck == (int)(sizeof(stuck) / sizeof(stuck[0])))
				return;
			stuck[nstuck].gen = tb->gen;
			stuck[nstuck++].dest = tb->dest;
		} else if (rc) {
			dapl_list_del(&tb->link);
			free(tb);
		}
	}
}

static void ofi_ctl_rx(struct dapl_tp_ia *oia, struct ofi_rxbuf *rb,
		       size_t len)
{
	const struct ofi_wire *m = &rb->msg;

	if (len < offsetof(struct ofi_wire, pdata) ||
	    m->magic != OFI_WIRE_MAGIC || m->version != OFI_WIRE_VERSION ||
	    m->ctl_len > OFI_ADDR_MAX || m->data_len > OFI_ADDR_MAX ||
	    m->pdata_len > OFI_MAX_PDATA ||
	    len < offsetof(struct ofi_wire, pdata) + m->pdata_len) {
		dapl_dbg(DAPL_DBG_CM, "ofi: malformed control message");
		return;
	}
	if (m->type == OFI_MSG_REQ) {
		/* to a listener, or a lingering one (no service point:
		 * ofi_rx_req rejects it as finding nobody) */
		if (!rb->owner->control)
			oia->cm->rx_req(oia, rb->owner, m);
		return;
	}
	oia->cm->rx(oia, m);
}

/* A REQ of connection id completed: libfabric delivered it. */
static void ofi_req_delivered(struct dapl_tp_ia *oia, uint64_t id)
{
	struct ofi_conn *c = ofi_conn_find(oia, id);

	if (c && c->state == OFI_CONN_CONNECTING && !c->req_delivered) {
		c->req_delivered = 1;
		c->req_delivered_at = dapl_now_ns();
	}
}

static void ofi_ctl_entry(struct dapl_tp_ia *oia, void *ctx, int err,
			  size_t len)
{
	enum ofi_ctx_kind kind = ctx ? *(enum ofi_ctx_kind *)ctx : 0;

	if (kind == OFI_CTX_CTL_RX) {
		struct ofi_rxbuf *rb = ctx;

		rb->posted = 0;
		if (rb->owner->closing)
			return;
		if (!err)
			ofi_ctl_rx(oia, rb, len);
		/* the handler may have closed nothing of ours: repost */
		if (!rb->owner->closing)
			ofi_rx_post(rb);
	} else if (kind == OFI_CTX_CTL_TX) {
		struct ofi_txbuf *tb = ctx;

		dapl_list_del(&tb->link);
		if (err)
			oia->cm->tx_failed(oia, tb, err);
		else if (tb->msg.type == OFI_MSG_REQ && tb->conn_id)
			ofi_req_delivered(oia, tb->conn_id);
		free(tb);
	}
}

int ofi_ctl_drain(struct dapl_tp_ia *oia)
{
	struct fi_cq_data_entry ent[16];
	int got = 0, i;
	ssize_t n;

	for (;;) {
		n = fi_cq_read(oia->ctl_cq, ent, 16);
		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry e = {0};

			if (fi_cq_readerr(oia->ctl_cq, &e, 0) != 1)
				break;
			ofi_ctl_entry(oia, e.op_context, ofi_err_code(e.err),
				      0);
			got++;
			continue;
		}
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			ofi_ctl_entry(oia, ent[i].op_context, 0, ent[i].len);
		got += (int)n;
	}
	return got;
}

/* locked: rxm's connection to dest closed (FI_AV_REMOVE_CLEANUP=1,
 * init.c) and the address inserted again under the same fi_addr_t: the
 * next send connects afresh.  0 if so. */
int ofi_av_renew(struct fid_av *av, fi_addr_t dest)
{
	uint8_t a[OFI_ADDR_MAX];
	size_t n = sizeof(a);
	fi_addr_t again;

	if (fi_av_lookup(av, dest, a, &n) || n > sizeof(a) ||
	    fi_av_insert(av, a, 1, &again, 0, NULL) != 1)
		return -1;
	if (again != dest) { /* not the same entry: leave it as it was */
		fi_av_remove(av, &again, 1, 0);
		return -1;
	}
	fi_av_remove(av, &dest, 1, 0);
	return 0;
}

/*
 * locked, TCP: the control messages held for dest have waited
 * OFI_RXM_STUCK_NS for rxm's connection to it?  Then rxm's connection
 * is started anew.  libfabric 1.17's tcp, closing a passive endpoint
 * (a freed PSP's listener), leaves open the connections it accepted
 * whose connection request it had not read yet: nobody reads them again.
 * rxm's connect that went there waits for an answer for ever (it has no
 * timeout): its connection stays CONNECTING, every send to the address
 * is -FI_EAGAIN, and rxm never connects to it again, also not to the
 * listener created next on the port (churn.bats; ss showed the client's
 * socket established to a server socket holding rxm's 56-byte request
 * unread).  fi_av_remove closes rxm's connections to the address
 * (rxm_av_remove_handler); inserted once more first, the entry and its
 * fi_addr_t stay, and the next send connects afresh.
 */
void ofi_rxm_unstick(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		     fi_addr_t dest, uint64_t now)
{
	struct dapl_list *pos, *tmp;
	struct ofi_txbuf *first = NULL;
	uint64_t next;

	dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
		struct ofi_txbuf *tb =
		    dapl_container_of(pos, struct ofi_txbuf, link);

		if (tb->held && tb->gen == g && tb->dest == dest) {
			first = tb;
			break;
		}
	}
	if (!first || now - first->since < first->stuck_ns)
		return;
	if (ofi_av_renew(g->av, dest))
		return;
	dapl_dbg(DAPL_DBG_CM, "ofi: control messages held %llu ms: rxm's "
		 "connection to their address started anew",
		 (unsigned long long)((now - first->since) / 1000000ull));
	next = first->stuck_ns < OFI_RXM_STUCK_MAX_NS / 2 ? 2 * first->stuck_ns
						       : OFI_RXM_STUCK_MAX_NS;
	dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
		struct ofi_txbuf *tb =
		    dapl_container_of(pos, struct ofi_txbuf, link);

		if (tb->held && tb->gen == g && tb->dest == dest) {
			tb->since = now;
			tb->stuck_ns = next;
		}
	}
	dapl_progress_kick(oia->ia);
}
