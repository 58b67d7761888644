/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FI_EP_MSG (layer 4): a connection's libfabric side, struct
 * ofi_msg_conn (its endpoint until the EP takes it, its channel ring),
 * the control messages written on the channel (ofi_msg_send), the
 * connect data's header, a connection's end, and the passive endpoints
 * kept open for requests not answered yet.
 *
 * It calls fabric.c and mr.c.  link.c sends through it and conn.c frees
 * through it; msg.c (the adapter above) uses the helpers msg.h declares;
 * ia.c's close frees the connections left.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ofi.h"
#include "wire.h"
#include "cm.h"
#include "msg.h"

struct ofi_msg_linger *ofi_msg_linger_of(struct dapl_tp_ia *oia,
					 const void *fid)
{
	struct dapl_list *pos;

	for (pos = oia->lingering.next; pos != &oia->lingering;
	     pos = pos->next) {
		struct ofi_msg_linger *l = dapl_container_of(
		    pos, struct ofi_msg_linger, link);

		if (&l->pep->fid == fid)
			return l;
	}
	return NULL;
}

/* oia->lock held: a request taken from pep is still unanswered */
int ofi_msg_pep_pending(struct dapl_tp_ia *oia,
			const struct fid_pep *pep)
{
	struct dapl_list *pos;

	for (pos = oia->conns.next; pos != &oia->conns; pos = pos->next) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (c->m && c->m->pep == pep && c->m->info)
			return 1;
	}
	return 0;
}

/* oia->lock held: a request taken from pep was answered; a lingering pep
 * whose last one that was closes */
void ofi_msg_pep_answered(struct dapl_tp_ia *oia, struct fid_pep *pep)
{
	struct ofi_msg_linger *l = pep ? ofi_msg_linger_of(oia, &pep->fid)
				       : NULL;

	if (!l || ofi_msg_pep_pending(oia, pep))
		return;
	dapl_list_del(&l->link);
	fi_close(&l->pep->fid);
	free(l);
}

/* ---- connections' libfabric side ---- */

struct ofi_msg_conn *ofi_msg_conn_new(struct dapl_tp_ia *oia,
				      struct ofi_conn *c)
{
	struct ofi_msg_conn *m = calloc(1, sizeof(*m));
	int rc = -FI_ENOKEY, tries;

	if (!m)
		return NULL;
	m->chan = calloc(1, sizeof(*m->chan));
	if (!m->chan) {
		free(m);
		return NULL;
	}
	for (tries = 0; tries < 64 && rc == -FI_ENOKEY; tries++) {
		m->key = ofi_key_next(oia);
		rc = fi_mr_reg(oia->domain, m->chan, sizeof(*m->chan),
			       FI_REMOTE_WRITE, 0, m->key, 0, &m->mr, NULL);
	}
	if (rc) {
		dapl_dbg(DAPL_DBG_CM, "ofi: channel registration: %s",
			 fi_strerror(-rc));
		free(m->chan);
		free(m);
		return NULL;
	}
	m->pend_tail = &m->pend;
	c->m = m;
	return m;
}

static void ofi_msg_pend_drop(struct ofi_msg_conn *m)
{
	while (m->pend) {
		struct ofi_msg_pend *p = m->pend;

		m->pend = p->next;
		free(p);
	}
	m->pend_tail = &m->pend;
}

void ofi_msg_conn_end(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct ofi_msg_conn *m = c->m;

	(void)oia;
	if (m->fep) { /* never connected: the EP never had it */
		ofi_ep_close(m->fep);
		m->fep = NULL;
	}
	/* its endpoint closes now (here, or the EP's at its flush), and the
	 * next one libfabric opens may have the same address: an ended
	 * connection that still named it took the new one's FI_CONNECTED
	 * (the new accept never completed, ACCEPT_COMPLETION_ERROR 10 s
	 * later, while its peer had ESTABLISHED) */
	m->fid = NULL;
	ofi_msg_pend_drop(m);
}

void ofi_msg_conn_free(struct ofi_conn *c)
{
	struct ofi_msg_conn *m = c->m;

	if (m->fep)
		ofi_ep_close(m->fep);
	if (m->info)
		fi_freeinfo(m->info);
	/* the registration first: nothing lands in the ring any more */
	fi_close(&m->mr->fid);
	free(m->chan);
	ofi_msg_pend_drop(m);
	free(m);
	c->m = NULL;
}

/* The connection's endpoint, to write on (oia->lock held). */
struct fid_ep *ofi_msg_fep(struct ofi_conn *c)
{
	struct dapl_tp_ep *oep;

	if (!c->m->attached)
		return c->m->fep;
	oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	return oep ? oep->fep : NULL;
}

uint64_t ofi_msg_raddr(struct dapl_tp_ia *oia, struct ofi_msg_conn *m,
		       size_t off)
{
	return oia->fab.virt_addr ? m->peer_base + off : off;
}

void ofi_msg_hdr_init(struct dapl_tp_ia *oia, struct ofi_msg_hdr *h,
		      int type, struct ofi_conn *c)
{
	memset(h, 0, sizeof(*h));
	h->magic = OFI_WIRE_MAGIC;
	h->version = OFI_WIRE_VERSION;
	h->type = (uint16_t)type;
	h->ia_addr = oia->addr;
	if (c) {
		h->conn_id = c->id;
		h->chan_base = (uint64_t)(uintptr_t)c->m->chan;
		h->chan_key = c->m->key;
	}
}

int ofi_msg_hdr_ok(const void *data, size_t len, int type)
{
	const struct ofi_msg_hdr *h = data;

	return len >= sizeof(*h) && h->magic == OFI_WIRE_MAGIC &&
	       h->version == OFI_WIRE_VERSION && h->type == type;
}

/* ---- the channel ---- */

/* locked: writes what waits, as far as the peer has room */
void ofi_msg_flush(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct ofi_msg_conn *m = c->m;
	struct fid_ep *fep = ofi_msg_fep(c);
	struct ofi_chan_slot s;
	int rc;

	if (!fep) {
		ofi_msg_pend_drop(m);
		return;
	}
	while (m->pend &&
	       m->tx_seq - __atomic_load_n(&m->chan->credit, __ATOMIC_ACQUIRE) <
		   OFI_CHAN_SLOTS) {
		struct ofi_msg_pend *p = m->pend;
		size_t off = offsetof(struct ofi_chan, slot) +
			     (m->tx_seq % OFI_CHAN_SLOTS) * sizeof(s);

		memcpy(s.head, p->head, sizeof(s.head));
		s.seq = m->tx_seq + 1;
		rc = (int)fi_inject_write(fep, &s, sizeof(s), 0,
					  ofi_msg_raddr(oia, m, off),
					  m->peer_key);
		if (rc == -FI_EAGAIN)
			return; /* the next round */
		if (rc) { /* the connection fails: its error event ends it */
			dapl_dbg(DAPL_DBG_CM, "ofi: channel write: %s",
				 fi_strerror(-rc));
			ofi_msg_pend_drop(m);
			return;
		}
		m->tx_seq++;
		m->pend = p->next;
		if (!m->pend)
			m->pend_tail = &m->pend;
		free(p);
	}
}

void ofi_msg_reject(struct dapl_tp_ia *oia, struct fid_pep *pep,
		    struct fi_info *info, int peer)
{
	struct ofi_msg_hdr h;

	ofi_msg_hdr_init(oia, &h, OFI_HDR_REJECT, NULL);
	h.status = (uint32_t)peer;
	if (pep && fi_reject(pep, info->handle, &h, sizeof(h)))
		dapl_dbg(DAPL_DBG_CM, "ofi: fi_reject failed");
	fi_freeinfo(info);
}

int ofi_msg_send(struct dapl_tp_ia *oia, struct ofi_conn *c,
		 const struct ofi_wire *w)
{
	struct ofi_msg_pend *p;

	if (!c || !c->m)
		return 0;
	if (w->type == OFI_MSG_REJECT) {
		if (c->m->info)
			ofi_msg_reject(oia, c->m->pep, c->m->info,
				       (int)w->status);
		c->m->info = NULL;
		ofi_msg_pep_answered(oia, c->m->pep);
		return 0;
	}
	/* nothing is connected yet (a connect timed out): its close says
	 * it to the listener */
	if (c->state == OFI_CONN_CONNECTING || c->state == OFI_CONN_REQUEST)
		return 0;
	p = malloc(sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	p->next = NULL;
	memcpy(p->head, w, sizeof(p->head));
	*c->m->pend_tail = p;
	c->m->pend_tail = &p->next;
	ofi_msg_flush(oia, c);
	return 0;
}
