/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs devices and their async threads.
 *
 * librdmacm opens each device once per process and every IA on that
 * device shares the context, so async events (ibv_get_async_event) are
 * read by one thread per device, not per IA: two readers would steal each
 * other's events.  The thread maps each event to its object through the
 * context pointers we set at creation (a QP's qp_context is its
 * struct dapl_ep, a CQ's cq_context its struct dapl_evd) and reports it
 * with the udapl async upcalls, after acknowledging it: ibv_destroy_qp and
 * ibv_destroy_cq wait for those acknowledgements, and a consumer may be
 * destroying while we report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "cma.h"

static pthread_mutex_t cma_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dapl_list cma_devs = {&cma_devs, &cma_devs};

enum { CMA_MAX_IA_REPORT = 32 };

/* A fatal device error: every IA on the device hears it. */
static void cma_async_device(struct cma_dev *dev)
{
	struct dapl_ia *ias[CMA_MAX_IA_REPORT];
	struct dapl_list *pos, *tmp;
	int n = 0, i;

	pthread_mutex_lock(&cma_devs_lock);
	dapl_list_for_each_safe (pos, tmp, &dev->ias) {
		struct cma_ia *cia =
		    dapl_container_of(pos, struct cma_ia, dev_link);

		if (n == CMA_MAX_IA_REPORT)
			break;
		ias[n++] = cia->ia;
	}
	pthread_mutex_unlock(&cma_devs_lock);
	for (i = 0; i < n; i++)
		dapl_async_ia_error(ias[i]);
}

/*
 * A receive that arrived before the connection's RTU: rdma_cm must hear
 * of it (rdma_notify) or it will keep the connection half-open.  Runs
 * before the event is acknowledged, so the QP and its EP are alive.
 */
static void cma_async_comm_est(struct dapl_ep *ep)
{
	struct cma_ia *cia = cma_ia_of(ep);
	struct cma_ep *cep;

	pthread_mutex_lock(&cia->lock);
	cep = ep->prov;
	if (cep && cep->conn && cep->conn->id)
		rdma_notify(cep->conn->id, IBV_EVENT_COMM_EST);
	pthread_mutex_unlock(&cia->lock);
}

/*
 * Before the acknowledgement (the QP, its EP and IA are alive): is the EP
 * still reportable?  If so it is marked as in an upcall, which keeps
 * qp_destroy waiting until cma_upcall_end.
 */
static struct cma_ia *cma_async_ep_begin(struct dapl_ep *ep)
{
	struct cma_ia *cia = cma_ia_of(ep);
	int alive;

	pthread_mutex_lock(&cia->lock);
	alive = ep->prov != NULL;
	if (alive)
		cia->async_upcall_ep = ep;
	pthread_mutex_unlock(&cia->lock);
	return alive ? cia : NULL;
}

static void cma_async_one(struct cma_dev *dev, struct ibv_async_event *e)
{
	struct cma_ia *cia = NULL;
	struct dapl_ep *ep = NULL;
	struct dapl_evd *evd = NULL;
	DAT_EVENT_NUMBER number = DAT_ASYNC_ERROR_EP_BROKEN;

	switch (e->event_type) {
	case IBV_EVENT_COMM_EST:
		cma_async_comm_est(e->element.qp->qp_context);
		break;
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
		dapl_dbg(DAPL_DBG_WARN, "cma: async event %s",
			 ibv_event_type_str(e->event_type));
		cma_async_device(dev);
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
		/* PORT_ACTIVE, LID/PKEY/GID changes, SQ drained, SRQ
		 * errors: nothing the consumer must hear. */
		break;
	}
	dapl_dbg(DAPL_DBG_WARN, "cma: async event %s",
		 ibv_event_type_str(e->event_type));
	if (ep)
		cia = cma_async_ep_begin(ep);
	ibv_ack_async_event(e);
	if (cia) {
		dapl_async_ep_error(ep, number);
		cma_upcall_end(cia, &cia->async_upcall_ep);
	}
	if (evd && dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		dapl_async_evd_error(evd);
}

static void *cma_async_thread(void *arg)
{
	struct cma_dev *dev = arg;
	struct pollfd pfd[2] = {
	    {.fd = dev->stop_fd, .events = POLLIN},
	    {.fd = dev->ctx->async_fd, .events = POLLIN},
	};
	struct ibv_async_event e;

	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		while (!ibv_get_async_event(dev->ctx, &e))
			cma_async_one(dev, &e);
	}
	return NULL;
}

/* Starts a thread with every signal blocked: signals are the consumer's. */
int cma_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
		     const char *name)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc)
		pthread_setname_np(*t, name);
	return rc;
}

static struct cma_dev *cma_dev_new(struct ibv_context *ctx)
{
	struct cma_dev *dev = calloc(1, sizeof(*dev));
	int fl;

	if (!dev)
		return NULL;
	dev->ctx = ctx;
	dev->refs = 1;
	dapl_list_init(&dev->ias);
	dev->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fl = fcntl(ctx->async_fd, F_GETFL);
	if (dev->stop_fd < 0 || fl < 0 ||
	    fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    cma_thread_start(&dev->thread, cma_async_thread, dev,
			     "dapl-cma-async")) {
		if (dev->stop_fd >= 0)
			close(dev->stop_fd);
		free(dev);
		return NULL;
	}
	return dev;
}

struct cma_dev *cma_dev_get(struct ibv_context *ctx)
{
	struct dapl_list *pos, *tmp;
	struct cma_dev *dev = NULL;

	pthread_mutex_lock(&cma_devs_lock);
	dapl_list_for_each_safe (pos, tmp, &cma_devs) {
		struct cma_dev *d =
		    dapl_container_of(pos, struct cma_dev, link);

		if (d->ctx == ctx) {
			dev = d;
			dev->refs++;
			break;
		}
	}
	if (!dev) {
		dev = cma_dev_new(ctx);
		if (dev)
			dapl_list_add_tail(&cma_devs, &dev->link);
	}
	pthread_mutex_unlock(&cma_devs_lock);
	return dev;
}

void cma_dev_add_ia(struct cma_dev *dev, struct cma_ia *cia)
{
	pthread_mutex_lock(&cma_devs_lock);
	dapl_list_add_tail(&dev->ias, &cia->dev_link);
	pthread_mutex_unlock(&cma_devs_lock);
}

/* Drops an IA's reference (cia may be NULL if it was never added). */
void cma_dev_put(struct cma_dev *dev, struct cma_ia *cia)
{
	uint64_t one = 1;
	int last;

	pthread_mutex_lock(&cma_devs_lock);
	if (cia)
		dapl_list_del(&cia->dev_link);
	last = --dev->refs == 0;
	if (last)
		dapl_list_del(&dev->link);
	pthread_mutex_unlock(&cma_devs_lock);
	if (!last)
		return;
	if (write(dev->stop_fd, &one, sizeof(one)) != sizeof(one)) {
		/* the thread still runs: leave it its memory */
		dapl_dbg(DAPL_DBG_ERR, "cma: cannot stop the async thread");
		return;
	}
	pthread_join(dev->thread, NULL);
	close(dev->stop_fd);
	free(dev);
}
