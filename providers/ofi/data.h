/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/data.h - the data path (layer 3): an EP's rings and posts
 * (ep.c), the EVDs' CQs (cq.c), an EP's libfabric endpoint (fep.c), a
 * window bind's op (bind.c).
 */
#ifndef DAPL_OFI_DATA_H
#define DAPL_OFI_DATA_H

#include "ofi.h"

/* ep.c */
DAT_RETURN ofi_post_send(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;
DAT_RETURN ofi_post_recv(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;
/* the one-segment posts (udapl/transport.h post_send1 ...) */
dapl_post_send1_fn ofi_post_send1 DAPL_HIDDEN;
dapl_post_recv1_fn ofi_post_recv1 DAPL_HIDDEN;
dapl_post_rdma1_fn ofi_post_write1 DAPL_HIDDEN;
dapl_post_rdma1_fn ofi_post_read1 DAPL_HIDDEN;
/* locked (ocq, then oep): a libfabric completion of op */
void ofi_op_complete(struct ofi_op *op, DAT_DTO_COMPLETION_STATUS st,
		     uint32_t len) DAPL_HIDDEN;
/* oep locked: issues what was held and may go now */
void ofi_ring_kick(struct ofi_ring *r) DAPL_HIDDEN;
/* ocq and oep locked: a ring whose oldest op is done is ready; a ring
 * without an EVD retires its done ops at once */
void ofi_ring_ready(struct ofi_ring *r) DAPL_HIDDEN;

/* Whether an issued op counts in writes_out, the RDMA writes a send
 * waits behind until they are delivered: a CMA write is delivered when
 * it is issued, so it does not (ep.c ofi_write_flags). */
static inline int ofi_op_undelivered_write(const struct ofi_op *op)
{
	return op->op == DAPL_OP_RDMA_WRITE && !op->cma;
}

/* oep locked: the counts an issued op leaves when it completes */
static inline void ofi_op_account(struct dapl_tp_ep *oep, struct ofi_ring *r,
				  const struct ofi_op *op)
{
	if (r == &oep->sq) {
		oep->ops_out--;
		if (ofi_op_undelivered_write(op))
			oep->writes_out--;
	} else {
		oep->recvs_done++;
	}
}

/*
 * oep locked: a successful completion of op, read from ocq, handed
 * straight to cqe (1) when op is the oldest of its ring that udapl has
 * not had, with everything ofi_op_complete and the CQ's ready list would
 * have done; else 0 and nothing done (cq.c: the consumer's poll).
 * Inline: it is most of a dequeue's own work.
 */
static inline __attribute__((always_inline)) int
ofi_op_complete_direct(struct ofi_op *op, const struct dapl_tp_evd *ocq,
		       uint32_t len, struct dapl_cqe *cqe)
{
	struct ofi_ring *r = op->ring;
	struct dapl_tp_ep *oep = r->oep;

	/* the oldest op of its ring that udapl has not had: nothing of
	 * the ring is DONE before it or on the CQ's ready list */
	if (dapl_unlikely(op->state != OFI_OP_ISSUED || r->ocq != ocq ||
			  r->on_ready || op->seq != r->emitted))
		return 0;
	ofi_op_account(oep, r, op);
	cqe->wr_id = op->wr_id;
	cqe->status = DAT_DTO_SUCCESS;
	cqe->byte_len = op->op == DAPL_OP_RECV ? len : 0;
	cqe->ep = NULL;
	op->state = OFI_OP_FREE;
	r->emitted++;
	/* later ops of the ring that completed before this one (rxm
	 * completes out of order) are the ring's to hand out now */
	if (dapl_unlikely(r->emitted != r->posted &&
			  r->op[r->emitted & (r->size - 1)].state ==
			      OFI_OP_DONE))
		ofi_ring_ready(r);
	/* what this completion lets go: requests held behind it (a fence,
	 * a send after writes) */
	if (dapl_unlikely(oep->sq.issued != oep->sq.posted))
		ofi_ring_kick(&oep->sq);
	return 1;
}
/* The peer's answer about a key (cm.c, oia->lock held): 1 if an asked
 * key's entry took it (what waited for it may go: cq.c ofi_cq_kick_owe) */
int ofi_ep_key_answer(struct dapl_tp_ep *oep, uint32_t key, int ok,
		      uint64_t base, uint64_t len, uint32_t perm,
		      uint64_t fkey) DAPL_HIDDEN;
/* The peer told a key before it was asked (KEYN, cm.c, oia->lock held):
 * its entry takes it unless another key's query holds it; 1 if an RDMA
 * waited for it (cq.c ofi_cq_kick_owe) */
int ofi_ep_key_told(struct dapl_tp_ep *oep, uint32_t key, uint64_t base,
		    uint64_t len, uint32_t perm, uint64_t fkey) DAPL_HIDDEN;
/* The number of the peer's messages received here: the receives
 * complete in posting order from the first (they match the peer's sends
 * in its order), for the DISC (link.c). */
uint32_t ofi_ep_recvd(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* The peer's DISC said it received the first n of our sends. */
void ofi_ep_peer_recvd(struct dapl_tp_ep *oep, uint32_t n) DAPL_HIDDEN;
/* A send of ours the peer received that has not completed here yet. */
int ofi_ep_sends_pending(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* a request of the EP posted and not done yet (ep_peer.c) */
int ofi_ep_requests_out(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oia->lock held: the key of a window the peer revoked is bad now */
void ofi_ep_key_revoked(struct dapl_tp_ep *oep, uint32_t key) DAPL_HIDDEN;
/* ep.c, errors: oia->lock held; fails the oldest issued request of oep
 * once it went without a completion for oia->dto_timeout_ns */
void ofi_ep_stuck(struct dapl_tp_ep *oep, uint64_t now) DAPL_HIDDEN;

/* cq.c */
DAT_RETURN ofi_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen,
			 int *fd) DAPL_HIDDEN;
DAT_RETURN ofi_cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen) DAPL_HIDDEN;
void ofi_cq_destroy(struct dapl_evd *evd) DAPL_HIDDEN;
int ofi_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe,
		int max) DAPL_HIDDEN;
void ofi_cq_direct_cqe(struct dapl_evd *evd, const void *rec,
		       struct dapl_cqe *cqe) DAPL_HIDDEN;
DAT_RETURN ofi_cq_arm(struct dapl_evd *evd, int solicited_only) DAPL_HIDDEN;
void ofi_cq_ack(struct dapl_evd *evd) DAPL_HIDDEN;
/* locked (ocq): reads what libfabric has; how many it read */
int ofi_cq_read_locked(struct dapl_tp_evd *ocq) DAPL_HIDDEN;
void ofi_cq_complete(void *op_context, int err, uint32_t len) DAPL_HIDDEN;
void ofi_cq_notify(struct dapl_tp_evd *ocq) DAPL_HIDDEN;

/* fep.c */
/* ocq locked, then oep: makes the ring ready if its oldest op is done */
void ofi_ring_ready_locked(struct ofi_ring *r) DAPL_HIDDEN;
/* oia->lock held: closes the data endpoint and completes every
 * outstanding op as flushed (takes the CQ and EP locks). */
void ofi_ep_flush(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oia->lock held: the EP's data endpoint opened and bound to its EVDs'
 * CQs (qp_create, qp_reset) */
int ofi_ep_fep_open(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oia->lock held: the data endpoint closed; nothing more lands in the
 * consumer's buffers and nothing more completes */
void ofi_ep_close_fep(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* The ring's CQ read, then what is still outstanding completed as
 * flushed or, with clear, forgotten (the EP goes away or starts again) */
void ofi_ring_drain(struct ofi_ring *r, int clear) DAPL_HIDDEN;
/* shm: the dead-peer guard of oep's connection to the endpoint named
 * peer (oia->lock held); the watchdog's walk over the IA's guards */
void ofi_ep_guard(struct dapl_tp_ep *oep, const uint8_t *peer,
		  size_t len) DAPL_HIDDEN;
void ofi_ep_guards_watch(void *arg) DAPL_HIDDEN;
/* fep.c: the connected endpoint becomes the EP's; held posts go */
void ofi_ep_attach(struct dapl_tp_ep *oep, struct fid_ep *fep) DAPL_HIDDEN;

/* bind.c */
/* post_send of DAPL_OP_BIND_MW: fills op (a reference on the window) */
DAT_RETURN ofi_mw_post(struct dapl_tp_ep *oep, struct ofi_op *op,
		       const struct dapl_post *p) DAPL_HIDDEN;
/* oep locked: a bind op leaves HELD without running */
void ofi_mw_unhold(struct ofi_op *op) DAPL_HIDDEN;
/* One reference on the window dropped (the RMR's or a HELD bind's): the
 * last frees it. */
void ofi_mw_put(struct dapl_tp_rmr *w) DAPL_HIDDEN;

#endif
