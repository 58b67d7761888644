/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a DAT EP's data path knows of its peer (layer 3, beside ep.c):
 * how many of the peer's messages it received and how many of its sends
 * the peer received, at a disconnect (link.c, cm.c); and the peer's
 * remote keys in the EP's cache, as the peer's answers (KEYR), notices
 * (KEYN) and revocations (KEYX) set them (cm.c).  ep.c reads the cache
 * when it issues an RDMA (ofi_rma_addr).
 *
 * It calls ep.c (ofi_ring_kick).
 */
#include "ofi.h"
#include "data.h"

/* ---- what the peer received, at a disconnect ---- */

uint32_t ofi_ep_recvd(struct dapl_tp_ep *oep)
{
	struct ofi_ring *r = &oep->rq;
	uint32_t s;

	dapl_lock(&oep->lock);
	for (s = r->emitted; s != r->posted; s++) {
		const struct ofi_op *op = &r->op[s & (r->size - 1)];

		if (op->state != OFI_OP_DONE || op->status == DAT_DTO_ERR_FLUSHED)
			break;
	}
	dapl_unlock(&oep->lock);
	return s;
}

/*
 * A send the peer received (its DISC said how many: ofi_ep_peer_recvd)
 * that has not completed here yet.  Over rxm a rendezvous send completes
 * when the peer's acknowledgement, a message on the data endpoint,
 * is handled; closing the endpoint before that crashes libfabric 1.17
 * (ofi_ep_settle), so a disconnect the peer made waits for it (cm.c
 * ofi_conn_drained).
 */
int ofi_ep_sends_pending(struct dapl_tp_ep *oep)
{
	struct ofi_ring *r = &oep->sq;
	int pending = 0;
	uint32_t s;

	dapl_lock(&oep->lock);
	if (oep->peer_recvd_known && oep->fep)
		for (s = r->emitted; s != r->issued && !pending; s++) {
			const struct ofi_op *op = &r->op[s & (r->size - 1)];

			pending = op->state == OFI_OP_ISSUED &&
				  op->op == DAPL_OP_SEND &&
				  (int32_t)(op->send_no - oep->peer_recvd) < 0;
		}
	dapl_unlock(&oep->lock);
	return pending;
}

/*
 * A request of the EP (a send, an RDMA, an atomic, a bind) posted and not
 * done yet: held in its ring or with libfabric.  One done but not yet
 * dequeued by the consumer is not: a graceful disconnect waits for these
 * (cm.c ofi_conn_leave), and the consumer may read its request EVD only
 * after DISCONNECTED.
 */
int ofi_ep_requests_out(struct dapl_tp_ep *oep)
{
	struct ofi_ring *r = &oep->sq;
	int out = 0;
	uint32_t s;

	dapl_lock(&oep->lock);
	if (oep->fep)
		for (s = r->emitted; s != r->posted && !out; s++) {
			const struct ofi_op *op = &r->op[s & (r->size - 1)];

			out = op->state == OFI_OP_HELD ||
			      op->state == OFI_OP_ISSUED;
		}
	dapl_unlock(&oep->lock);
	return out;
}

void ofi_ep_peer_recvd(struct dapl_tp_ep *oep, uint32_t n)
{
	dapl_lock(&oep->lock);
	oep->peer_recvd = n;
	oep->peer_recvd_known = 1;
	dapl_unlock(&oep->lock);
}

/* ---- remote keys ---- */

int ofi_ep_key_answer(struct dapl_tp_ep *oep, uint32_t key, int ok,
		      uint64_t base, uint64_t len, uint32_t perm,
		      uint64_t fkey)
{
	struct ofi_keycache *k = &oep->keys[key % OFI_KEYCACHE];
	int answered = 0;

	dapl_lock(&oep->lock);
	if (k->key == key && k->state == OFI_KEY_ASKED) {
		k->state = ok ? OFI_KEY_KNOWN : OFI_KEY_BAD;
		k->base = base;
		k->len = len;
		k->perm = (uint8_t)perm;
		k->fkey = fkey;
		answered = 1;
	}
	dapl_unlock(&oep->lock);
	return answered;
}

int ofi_ep_key_told(struct dapl_tp_ep *oep, uint32_t key, uint64_t base,
		    uint64_t len, uint32_t perm, uint64_t fkey)
{
	struct ofi_keycache *k = &oep->keys[key % OFI_KEYCACHE];
	int waited = 0;

	dapl_lock(&oep->lock);
	if (k->key == key &&
	    (k->state == OFI_KEY_WANTED || k->state == OFI_KEY_ASKED))
		waited = 1;
	else if (k->state == OFI_KEY_WANTED || k->state == OFI_KEY_ASKED)
		goto out; /* another key's query in flight keeps its slot */
	k->key = key;
	k->state = OFI_KEY_KNOWN;
	k->base = base;
	k->len = len;
	k->perm = (uint8_t)perm;
	k->fkey = fkey;
out:
	dapl_unlock(&oep->lock);
	return waited;
}

void ofi_ep_key_revoked(struct dapl_tp_ep *oep, uint32_t key)
{
	struct ofi_keycache *k = &oep->keys[key % OFI_KEYCACHE];

	dapl_lock(&oep->lock);
	if (k->key == key && k->state != OFI_KEY_EMPTY) {
		k->state = OFI_KEY_BAD;
		if (oep->fep)
			ofi_ring_kick(&oep->sq);
	}
	dapl_unlock(&oep->lock);
}
