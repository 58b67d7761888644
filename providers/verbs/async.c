/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs devices and their async events.
 *
 * librdmacm opens each device once per process and every IA on that
 * device shares the context, so the context's async fd is made
 * non-blocking once and every IA's progress engine watches it: whichever
 * engine reads an event (ibv_get_async_event) reports it, the others find
 * nothing.  verbs_async_event maps each event to its object through the
 * context pointers we set at creation (a QP's qp_context is its
 * struct dapl_ep, a CQ's cq_context its struct dapl_evd) and reports it
 * with the udapl async upcalls, after acknowledging it: ibv_destroy_qp and
 * ibv_destroy_cq wait for those acknowledgements, and a consumer may be
 * destroying while we report.  An EP's upcall bracket is opened before
 * the acknowledgement, while its QP (and so the EP) is certainly alive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "verbs.h"

static void verbs_devs_forget(void);
static struct dapl_module_lock verbs_devs_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(verbs_devs_forget);
static struct dapl_list verbs_devs = {&verbs_devs, &verbs_devs};

/* In a forked child: the parent's device contexts are not the child's. */
static void verbs_devs_forget(void)
{
	dapl_list_init(&verbs_devs);
}

enum { VERBS_MAX_IA_REPORT = 32 };

/* A fatal device error: every IA on the device hears it (an IA leaves
 * the list in ia_close, under the lock its bracket is opened in). */
static void verbs_async_device(struct verbs_dev *dev)
{
	struct dapl_ia *ias[VERBS_MAX_IA_REPORT];
	struct dapl_list *pos, *tmp;
	int n = 0, i;

	dapl_module_lock(&verbs_devs_lock);
	dapl_list_for_each_safe (pos, tmp, &dev->ias) {
		struct dapl_tp_ia *cia =
		    dapl_container_of(pos, struct dapl_tp_ia, dev_link);

		if (n == VERBS_MAX_IA_REPORT)
			break;
		if (!dapl_upcall_begin(cia->ia))
			ias[n++] = cia->ia;
	}
	dapl_module_unlock(&verbs_devs_lock);
	for (i = 0; i < n; i++) {
		dapl_async_ia_error(ias[i]);
		dapl_upcall_end(ias[i]);
	}
}

/*
 * Before the acknowledgement (the QP, its EP and IA are alive): is the EP
 * still reportable (qp_destroy has not begun)?  If so its upcall bracket
 * is opened: udapl frees the EP only once it is closed.
 */
static int verbs_async_ep_begin(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	int held;

	pthread_mutex_lock(&cia->lock);
	held = dapl_ep_tp(ep) && !dapl_upcall_begin(ep);
	pthread_mutex_unlock(&cia->lock);
	return held;
}

static void verbs_async_one(struct verbs_dev *dev, struct ibv_async_event *e)
{
	struct dapl_ep *ep = NULL;
	int held = 0;
	struct dapl_evd *evd = NULL;
	DAT_EVENT_NUMBER number = DAT_ASYNC_ERROR_EP_BROKEN;

	switch (e->event_type) {
	case IBV_EVENT_COMM_EST:
		/* a receive before the RTU: the CM must hear of it; before
		 * the acknowledgement, so the QP and its EP are alive */
		{
			struct dapl_ep *qp_ep = e->element.qp->qp_context;

			verbs_cm(qp_ep)->comm_est(qp_ep);
		}
		break;
	case IBV_EVENT_SQ_DRAINED:
		/* a graceful disconnect waits for it (its CM); before the
		 * acknowledgement, as COMM_EST */
		{
			struct dapl_ep *qp_ep = e->element.qp->qp_context;

			if (qp_ep)
				verbs_cm(qp_ep)->sq_drained(qp_ep);
		}
		ibv_ack_async_event(e);
		return;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_PATH_MIG_ERR:
		ep = e->element.qp->qp_context;
		break;
	case IBV_EVENT_CQ_ERR:
		evd = e->element.cq->cq_context; /* NULL: a dummy CQ */
		break;
	case IBV_EVENT_DEVICE_FATAL:
		/* the device is gone for this process: the IA must be
		 * closed (and opened again) to be of any use */
		ibv_ack_async_event(e);
		dapl_dbg(DAPL_DBG_WARN, "verbs: async event %s",
			 ibv_event_type_str(e->event_type));
		verbs_async_device(dev);
		return;
	case IBV_EVENT_PORT_ERR:
		/*
		 * Not an async error.  A port that went down (a cable, a
		 * link flap) does not end the IA: each connection through
		 * it ends by itself (BROKEN on its connection EVD, its DTOs
		 * flushed) and, once the port is ACTIVE again, the same IA
		 * connects anew (test/verbs/faults.bats, "broken link").
		 * DAT 1.2's async errors have no "port down", and
		 * DAT_ASYNC_ERROR_IA_CATASTROPHIC tells the consumer that
		 * the IA is unusable and must be closed: a consumer that
		 * did so would turn a link flap into a lost IA.  (OFA
		 * dapl's dapls_ib_get_async_event does map PORT_ERR to
		 * IA_CATASTROPHIC.)  Logged below, nothing is posted.
		 */
		break;
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		/* the low watermark (udapl/srq.c); the SRQ object's memory
		 * outlives its handle, so the magic check is safe */
		struct dapl_srq *srq = e->element.srq->srq_context;

		ibv_ack_async_event(e);
		if (dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ))
			dapl_srq_lw_event(srq);
		return;
	}
	default:
		/* PORT_ACTIVE, LID/PKEY/GID changes, SRQ errors: nothing
		 * the consumer must hear. */
		break;
	}
	dapl_dbg(DAPL_DBG_WARN, "verbs: async event %s",
		 ibv_event_type_str(e->event_type));
	if (ep)
		held = verbs_async_ep_begin(ep);
	ibv_ack_async_event(e);
	if (held) {
		dapl_async_ep_error(ep, number);
		dapl_upcall_end(ep);
	}
	if (evd && dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		dapl_async_evd_error(evd);
}

/* The engine's callback for the device's async fd: one event, 1 if there
 * was one. */
int verbs_async_event(void *arg)
{
	struct verbs_dev *dev = arg;
	struct ibv_async_event e;

	if (ibv_get_async_event(dev->ctx, &e))
		return 0;
	verbs_async_one(dev, &e);
	return 1;
}

static struct verbs_dev *verbs_dev_new(struct ibv_context *ctx)
{
	struct verbs_dev *dev = calloc(1, sizeof(*dev));
	int fl;

	if (!dev)
		return NULL;
	dev->ctx = ctx;
	dev->refs = 1;
	dapl_list_init(&dev->ias);
	fl = fcntl(ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		free(dev);
		return NULL;
	}
	return dev;
}

struct verbs_dev *verbs_dev_get(struct ibv_context *ctx)
{
	struct dapl_list *pos, *tmp;
	struct verbs_dev *dev = NULL;

	dapl_module_lock(&verbs_devs_lock);
	dapl_list_for_each_safe (pos, tmp, &verbs_devs) {
		struct verbs_dev *d =
		    dapl_container_of(pos, struct verbs_dev, link);

		if (d->ctx == ctx) {
			dev = d;
			dev->refs++;
			break;
		}
	}
	if (!dev) {
		dev = verbs_dev_new(ctx);
		if (dev)
			dapl_list_add_tail(&verbs_devs, &dev->link);
	}
	dapl_module_unlock(&verbs_devs_lock);
	return dev;
}

void verbs_dev_add_ia(struct verbs_dev *dev, struct dapl_tp_ia *cia)
{
	dapl_module_lock(&verbs_devs_lock);
	dapl_list_add_tail(&dev->ias, &cia->dev_link);
	dapl_module_unlock(&verbs_devs_lock);
}

/* Drops an IA's reference (cia may be NULL if it was never added).  The
 * engines of the IAs still on the device keep watching its fd. */
void verbs_dev_put(struct verbs_dev *dev, struct dapl_tp_ia *cia)
{
	int last;

	dapl_module_lock(&verbs_devs_lock);
	if (cia)
		dapl_list_del(&cia->dev_link);
	last = --dev->refs == 0;
	if (last)
		dapl_list_del(&dev->link);
	dapl_module_unlock(&verbs_devs_lock);
	if (last)
		free(dev);
}
