/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A connection's messages on either path and its end (layer 4):
 * ofi_ctl_send hands a control message to ctl.c's ofi_ctl_post (RDM) or
 * msg_chan.c's ofi_msg_send (MSG); ofi_conn_end sends the DISC with its
 * counts and reports the connection's last event; ofi_send_reject and
 * ofi_conn_detach_ep.
 *
 * It calls conn.c, ctl.c, msg_chan.c, notes.c, wire.c and the data path
 * (ep.c, fep.c).  Everything above that talks on a connection sends
 * through it: rdm.c, msg.c, cm.c, qp.c and the engine (progress.c).
 */
#include "ofi.h"
#include "data.h"
#include "wire.h"
#include "cm.h"
#include "keytab.h"

int ofi_ctl_send(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		 fi_addr_t dest, uint64_t conn_id, const struct ofi_wire *msg)
{
	if (ofi_is_msg(oia)) /* on the connection itself */
		return ofi_msg_send(oia, ofi_conn_find(oia, msg->src_id),
				    msg);
	return ofi_ctl_post(oia, g, dest, conn_id, msg);
}

/* What a DISC tells the peer: how many sends we made (it waits for
 * them: they travel on the data endpoints, not with the DISC), and how
 * many of its messages we received, in order (its sends among them that
 * have no completion yet complete as sent, not flushed: a rendezvous
 * send's completion comes with our ack on the data endpoint, which the
 * DISC may overtake). */
static void ofi_disc_counts(struct dapl_tp_ep *oep, struct ofi_wire *m)
{
	m->base = ofi_ep_recvd(oep);
	dapl_lock(&oep->lock);
	m->len = oep->sends_issued;
	dapl_unlock(&oep->lock);
}

void ofi_conn_detach_ep(struct dapl_tp_ep *oep)
{
	struct ofi_conn *c = oep->conn;

	if (!c)
		return;
	oep->conn = NULL;
	c->ep = NULL;
	if (c->state != OFI_CONN_CLOSED) {
		/* freed or reset while connected: the peer hears of it */
		struct ofi_wire m;

		ofi_wire_init(oep->oia, &m, OFI_MSG_DISC);
		m.src_id = c->id;
		m.dst_id = c->peer_id;
		ofi_disc_counts(oep, &m);
		ofi_ctl_send(oep->oia, c->gen,
			     c->state == OFI_CONN_CONNECTING ? c->dest
							     : c->peer_ctl,
			     0, &m);
	}
	ofi_conn_free(oep->oia, c);
}

/* locked: the connection's last event; its EP stops moving data */
void ofi_conn_end(struct dapl_tp_ia *oia, struct ofi_conn *c,
		  enum dapl_cm_event ev, int tell_peer)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;

	if (tell_peer) {
		struct ofi_wire m;

		ofi_wire_init(oia, &m, OFI_MSG_DISC);
		m.src_id = c->id;
		m.dst_id = c->peer_id;
		if (ev == DAPL_CM_BROKEN)
			m.status = OFI_DISC_BROKEN;
		if (oep)
			ofi_disc_counts(oep, &m);
		ofi_ctl_send(oia, c->gen,
			     c->state == OFI_CONN_CONNECTING ? c->dest
							     : c->peer_ctl,
			     0, &m);
	}
	c->state = OFI_CONN_CLOSED;
	if (c->m)
		ofi_msg_conn_end(oia, c);
	if (oep)
		ofi_ep_flush(oep);
	ofi_note_ep(oia, c->ep, ev, NULL, 0);
}

void ofi_send_reject(struct dapl_tp_ia *oia, struct ofi_conn *c,
		     int peer)
{
	struct ofi_wire m;

	ofi_wire_init(oia, &m, OFI_MSG_REJECT);
	m.src_id = c->id;
	m.dst_id = c->peer_id;
	m.status = (uint32_t)peer;
	ofi_ctl_send(oia, c->gen, c->peer_ctl, 0, &m);
	c->state = OFI_CONN_CLOSED;
}

/* locked, shm: the connection's peer is told where our key table is
 * (keytab.c), once the connection is established; it answers KEYTA */
void ofi_keyt_send(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	struct dapl_tp_ep *oep = c->ep ? dapl_ep_tp(c->ep) : NULL;
	struct ofi_wire m;

	if (!oia->keytab || !oep || !oep->guard)
		return;
	ofi_wire_init(oia, &m, OFI_MSG_KEYT);
	m.src_id = c->id;
	m.dst_id = c->peer_id;
	m.base = (uint64_t)oia->pid;
	ofi_keytab_where(oia->keytab, &m.len, &m.fkey);
	ofi_ctl_send(oia, c->gen, c->peer_ctl, c->id, &m);
}
