/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues of DTO and RMR_BIND EVDs.
 *
 * Each EVD gets its own CQ and its own completion channel, whose fd (set
 * non-blocking) udapl polls when it must block: arm, re-poll, then wait
 * for the fd.  cq_context is the struct dapl_evd, so async CQ errors find
 * their EVD.  Polling is a plain ibv_poll_cq into a small array on the
 * stack (no system call on rxe or any device with a user-space CQ).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "verbs.h"

enum { VERBS_POLL_BATCH = 16 };

DAT_DTO_COMPLETION_STATUS verbs_wc_status(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_SUCCESS:
		return DAT_DTO_SUCCESS;
	case IBV_WC_WR_FLUSH_ERR:
		return DAT_DTO_ERR_FLUSHED;
	case IBV_WC_LOC_LEN_ERR:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case IBV_WC_LOC_QP_OP_ERR:
	case IBV_WC_LOC_EEC_OP_ERR:
		return DAT_DTO_ERR_LOCAL_EP;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case IBV_WC_BAD_RESP_ERR:
		return DAT_DTO_ERR_BAD_RESPONSE;
	case IBV_WC_REM_ACCESS_ERR:
		return DAT_DTO_ERR_REMOTE_ACCESS;
	case IBV_WC_REM_OP_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_ABORT_ERR:
	case IBV_WC_REM_INV_RD_REQ_ERR:
		return DAT_DTO_ERR_REMOTE_RESPONDER;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return DAT_DTO_ERR_RECEIVER_NOT_READY;
	case IBV_WC_MW_BIND_ERR:
		return DAT_RMR_OPERATION_FAILED;
	case IBV_WC_RETRY_EXC_ERR:
	default:
		return DAT_DTO_ERR_TRANSPORT;
	}
}

static DAT_RETURN verbs_cq_new(struct dapl_evd *evd, struct dapl_tp_evd *c,
			     DAT_COUNT *qlen)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(evd);
	int fl;

	c->ch = ibv_create_comp_channel(cia->ctx);
	if (!c->ch)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD);
	fl = fcntl(c->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		ibv_destroy_comp_channel(c->ch);
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	}
	c->cq = ibv_create_cq(cia->ctx, *qlen > 0 ? *qlen : 1, evd, c->ch, 0);
	if (!c->cq) {
		int err = errno;

		ibv_destroy_comp_channel(c->ch);
		return err == EINVAL
			   ? DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)
			   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_TEVD);
	}
	*qlen = c->cq->cqe;
	return DAT_SUCCESS;
}

/*
 * udapl's direct poll of a dequeue (transport.h, struct dapl_cq_direct):
 * ibv_poll_cq itself, so that udapl reads the ibv_wc of a dequeue's
 * single completion in its own frame.  The layering stays: udapl calls a
 * function of ours through a pointer, as it calls every op, and reads
 * the record only at the offsets given here; the device call is made
 * here (a tail call into the device library's poll, the same call
 * ibv_poll_cq always makes), and whatever udapl does not take itself (an
 * error, an SRQ receive, a bind, an atomic) comes back to
 * verbs_cq_direct_cqe below.
 */
static int verbs_poll_direct(void *cq, int max, void *wc)
{
	return ibv_poll_cq(cq, max, wc);
}

static void verbs_cq_set_direct(struct dapl_evd *evd, struct ibv_cq *cq)
{
	const struct dapl_cq_direct d = {
	    .poll = verbs_poll_direct,
	    .cq = cq,
	    .status_off = offsetof(struct ibv_wc, status),
	    .len_off = offsetof(struct ibv_wc, byte_len),
	    .status_ok = IBV_WC_SUCCESS,
	};

	_Static_assert(sizeof(struct ibv_wc) <= DAPL_CQ_DIRECT_REC &&
			   offsetof(struct ibv_wc, wr_id) == 0 &&
			   sizeof(((struct ibv_wc *)0)->wr_id) == 8 &&
			   sizeof(((struct ibv_wc *)0)->status) == 4 &&
			   sizeof(((struct ibv_wc *)0)->byte_len) == 4,
		       "struct dapl_cq_direct's record rules");
	dapl_evd_set_cq_direct(evd, &d);
}

DAT_RETURN verbs_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen, int *fd)
{
	struct dapl_tp_evd *c = calloc(1, sizeof(*c));
	DAT_RETURN ret;

	if (!c)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ret = verbs_cq_new(evd, c, qlen);
	if (ret != DAT_SUCCESS) {
		free(c);
		return ret;
	}
	dapl_evd_set_tp(evd, c);
	verbs_cq_set_direct(evd, c->cq);
	*fd = c->ch->fd;
	return DAT_SUCCESS;
}

DAT_RETURN verbs_cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen)
{
	struct dapl_tp_evd *c = dapl_evd_tp(evd);
	int rc;

	if (!c)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	rc = ibv_resize_cq(c->cq, *qlen > 0 ? *qlen : 1);
	if (rc)
		return rc == EINVAL
			   ? DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)
			   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_TEVD);
	*qlen = c->cq->cqe;
	return DAT_SUCCESS;
}

void verbs_cq_destroy(struct dapl_evd *evd)
{
	struct dapl_tp_evd *c = dapl_evd_tp(evd);

	if (!c)
		return;
	dapl_evd_set_tp(evd, NULL);
	dapl_evd_set_cq_direct(evd, NULL);
	/* cq_ack acknowledges every event it takes, so this cannot wait. */
	if (ibv_destroy_cq(c->cq))
		dapl_dbg(DAPL_DBG_ERR, "verbs: ibv_destroy_cq failed (in use?)");
	else if (ibv_destroy_comp_channel(c->ch))
		dapl_dbg(DAPL_DBG_ERR, "verbs: comp channel destroy failed");
	free(c);
}

/*
 * An error completion: its DAT status.  One other than a flush means the
 * QP went to ERR by itself (retries exhausted on a dead link or a
 * vanished peer, a remote access or length error), which the CM may
 * never hear of (a dead link carries no DREQ): the CM ends the
 * connection as BROKEN (the CM's broken hook).  Error path only.
 */
static __attribute__((noinline)) void verbs_cq_error(struct dapl_cqe *e,
						    const struct ibv_wc *wc)
{
	struct dapl_ep *ep;

	e->status = verbs_wc_status(wc->status);
	e->byte_len = 0;
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		return;
	ep = dapl_wr_id_ep(wc->wr_id);
	if (ep && dapl_obj_ok(ep, DAT_HANDLE_TYPE_EP))
		verbs_conn_broken(ep);
}

/* One work completion into udapl's form. */
static inline void verbs_cqe_fill(struct dapl_cqe *e, const struct ibv_wc *wc,
				  struct dapl_tp_ia *cia)
{
	e->wr_id = wc->wr_id;
	if (dapl_likely(wc->status == IBV_WC_SUCCESS)) {
		e->status = DAT_DTO_SUCCESS;
		e->byte_len = wc->byte_len;
	} else {
		verbs_cq_error(e, wc);
	}
	/* an SRQ's receive: which EP took it (srq.c); the opcode of an
	 * error completion is not valid, so every completion of an IA
	 * with SRQ EPs looks */
	e->ep = dapl_unlikely(cia->qpn_map) ? verbs_qpn_lookup(cia, wc->qp_num)
					    : NULL;
}

/*
 * One ibv_poll_cq of at most VERBS_POLL_BATCH (udapl asks for at most 16:
 * a dequeue for one, a fill for the room of its ring, and calls again
 * while it got all it asked for).  A dequeue's single completion has a
 * path of its own, with one ibv_wc on the stack.
 */
static __attribute__((noinline)) int
verbs_cq_poll_batch(struct dapl_evd *evd, struct ibv_cq *cq,
		    struct dapl_cqe *cqe, int max)
{
	struct ibv_wc wc[VERBS_POLL_BATCH];
	struct dapl_tp_ia *cia;
	int n, i;

	n = ibv_poll_cq(cq, max < VERBS_POLL_BATCH ? max : VERBS_POLL_BATCH,
			wc);
	if (n <= 0)
		return n;
	cia = dapl_tp_ia_of(evd);
	for (i = 0; i < n; i++)
		verbs_cqe_fill(&cqe[i], &wc[i], cia);
	return n;
}

/* The batch is out of line, so that a dequeue's single completion has a
 * small frame with one ibv_wc. */
int verbs_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe, int max)
{
	struct dapl_tp_evd *c = dapl_evd_tp(evd);
	struct ibv_wc wc;
	int n;

	if (dapl_unlikely(!c))
		return -1;
	if (dapl_unlikely(max != 1))
		return verbs_cq_poll_batch(evd, c->cq, cqe, max);
	n = ibv_poll_cq(c->cq, 1, &wc);
	if (n == 1)
		verbs_cqe_fill(cqe, &wc, dapl_tp_ia_of(evd));
	return n;
}

/* A record of the direct poll that udapl did not take: cq_poll's
 * conversion (error status, the CM told of a broken QP, an SRQ
 * receive's EP). */
void verbs_cq_direct_cqe(struct dapl_evd *evd, const void *rec,
			 struct dapl_cqe *cqe)
{
	verbs_cqe_fill(cqe, rec, dapl_tp_ia_of(evd));
}

DAT_RETURN verbs_cq_arm(struct dapl_evd *evd, int solicited_only)
{
	struct dapl_tp_evd *c = dapl_evd_tp(evd);

	if (!c || ibv_req_notify_cq(c->cq, !!solicited_only))
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	return DAT_SUCCESS;
}

/* Takes every pending notification off the channel and acknowledges it
 * (acknowledging at once keeps ibv_destroy_cq from ever waiting). */
void verbs_cq_ack(struct dapl_evd *evd)
{
	struct dapl_tp_evd *c = dapl_evd_tp(evd);
	struct ibv_cq *cq;
	void *ctx;

	if (!c)
		return;
	while (!ibv_get_cq_event(c->ch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
}
