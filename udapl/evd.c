/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event dispatchers: the EVD object (create, query, CNO, state, resize,
 * free) and its software-made events.
 *
 * Every EVD has a software ring of qlen DAT_EVENTs.  A DTO or RMR_BIND
 * EVD also has a completion queue of its own (ops->cq_create), whose
 * completions stay in the CQ until somebody dequeues or waits
 * (evd_dequeue.c).  Software-made events (connection, CR, async,
 * software) are pushed into the ring by dapl_evd_post from any thread.
 *
 * Lock order: ia->lock, then the EVD's lock, then a CNO's lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "evd_int.h"
#include "slots.h"

#define EVD_STREAMS                                                            \
	(DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG |          \
	 DAT_EVD_CONNECTION_FLAG | DAT_EVD_RMR_BIND_FLAG | DAT_EVD_ASYNC_FLAG)
#define EVD_CQ_STREAMS (DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG)

/*
 * Any streams may share an EVD: the ring takes the software-made ones and
 * the CQ the completions, whatever the combination (so DAT_EVD_DEFAULT_FLAG
 * works too).  Order: software, CR, DTO, connection, RMR bind, async.
 */
const DAT_BOOLEAN dapl_evd_merging[6][6] = {
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
    {DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE},
};

static const DAT_EVD_FLAGS stream_bit[6] = {
    DAT_EVD_SOFTWARE_FLAG,   DAT_EVD_CR_FLAG,	    DAT_EVD_DTO_FLAG,
    DAT_EVD_CONNECTION_FLAG, DAT_EVD_RMR_BIND_FLAG, DAT_EVD_ASYNC_FLAG,
};

static int flags_ok(DAT_EVD_FLAGS flags)
{
	int i, j;

	if (!flags || (flags & ~EVD_STREAMS))
		return 0;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			if ((flags & stream_bit[i]) &&
			    (flags & stream_bit[j]) && !dapl_evd_merging[i][j])
				return 0;
	return 1;
}

/* ---- the ring ---- */

/* Moves the events into a new array of size entries (>= count). */
static int ring_resize(struct dapl_event_ring *r, DAT_COUNT size)
{
	DAT_EVENT *ev = calloc((size_t)size, sizeof(*ev));
	DAT_COUNT i, n = r->count;

	if (!ev)
		return -1;
	for (i = 0; i < n; i++)
		ring_pop(r, &ev[i]);
	free(r->ev);
	r->ev = ev;
	r->size = size;
	r->head = 0;
	r->count = n;
	return 0;
}

static void wake(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "eventfd write: %d", errno);
}

/* ---- create, query, free ---- */

static DAT_RETURN evd_init(struct dapl_evd *evd, DAT_COUNT qlen)
{
	struct dapl_ia *ia = evd->obj.ia;
	DAT_RETURN rc;

	evd->cq_fd = -1;
	/* cq_create may set a direct poll (transport.h) */
	memset(&evd->direct, 0, sizeof(evd->direct));
	evd->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (evd->wake_fd < 0)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	if (evd->flags & EVD_CQ_STREAMS) {
		int fd = -1;

		rc = ia->ops->cq_create(evd, &qlen, &fd);
		if (rc != DAT_SUCCESS)
			goto out_fd;
		evd->cq_fd = fd;
	}
	evd->qlen = qlen;
	evd->ring.size = qlen;
	evd->ring.ev = calloc((size_t)qlen, sizeof(DAT_EVENT));
	if (!evd->ring.ev) {
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out_cq;
	}
	dapl_lock_init(&evd->lock);
	dapl_cond_init(&evd->cond);
	return DAT_SUCCESS;

out_cq:
	if (evd_has_cq(evd))
		ia->ops->cq_destroy(evd);
	memset(&evd->direct, 0, sizeof(evd->direct));
out_fd:
	close(evd->wake_fd);
	return rc;
}

/* Under ia->lock and evd->lock: cno gets the EVD (evd_cno_detach below
 * takes it back). */
static void evd_cno_attach(struct dapl_evd *evd, struct dapl_cno *cno)
{
	dapl_list_add_tail(&cno->evds, &evd->cno_link);
	cno->use_count++;
	evd->cno = cno;
	dapl_cno_agent_attach(evd);
}

DAT_RETURN dapl_evd_alloc(struct dapl_ia *ia, DAT_COUNT qlen,
			  struct dapl_cno *cno, DAT_EVD_FLAGS flags,
			  struct dapl_evd **out)
{
	struct dapl_evd *evd;
	DAT_RETURN rc;

	evd = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_EVD, sizeof(*evd));
	if (!evd)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	evd->flags = flags;
	evd->state = DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_WAITABLE;
	evd->cno = cno; /* the provider may pick a channel by it */
	/* Only the consumer's dequeues and waits touch a CQ-only EVD's
	 * ring: software-made events (CM, async, dat_evd_post_se) come
	 * from other threads of ours and keep the lock. */
	evd->nolock = ia->nolock && !(flags & ~EVD_CQ_STREAMS);
	dapl_list_init(&evd->cno_link);
	rc = evd_init(evd, qlen);
	if (rc != DAT_SUCCESS) {
		dapl_obj_free(evd);
		return rc;
	}
	if (cno) {
		pthread_mutex_lock(&ia->lock);
		dapl_lock(&evd->lock);
		evd_cno_attach(evd, cno);
		dapl_unlock(&evd->lock);
		pthread_mutex_unlock(&ia->lock);
	}
	*out = evd;
	return DAT_SUCCESS;
}

static int cno_ok(struct dapl_ia *ia, DAT_CNO_HANDLE h)
{
	const struct dapl_cno *cno = h;

	return dapl_obj_ok(cno, DAT_HANDLE_TYPE_CNO) && cno->obj.ia == ia &&
	       !cno->closing;
}

DAT_RETURN dapl_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS evd_flags,
			   DAT_EVD_HANDLE *evd_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_evd *evd;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (evd_min_qlen < 1 || evd_min_qlen > ia->attr.max_evd_qlen)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (cno_handle && !cno_ok(ia, cno_handle))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	if (!flags_ok(evd_flags))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (!evd_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	rc = dapl_evd_alloc(ia, evd_min_qlen, cno_handle, evd_flags, &evd);
	if (rc == DAT_SUCCESS)
		*evd_handle = evd;
	return rc;
}

DAT_RETURN dapl_evd_query(DAT_EVD_HANDLE evd_handle,
			  DAT_EVD_PARAM_MASK evd_param_mask,
			  DAT_EVD_PARAM *evd_param)
{
	struct dapl_evd *evd = evd_handle;
	DAT_EVD_PARAM *p = evd_param;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	if (evd_param_mask & ~(DAT_EVD_PARAM_MASK)DAT_EVD_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	dapl_lock(&evd->lock);
	if (evd_param_mask & DAT_EVD_FIELD_IA_HANDLE)
		p->ia_handle = evd->obj.ia;
	if (evd_param_mask & DAT_EVD_FIELD_EVD_QLEN)
		p->evd_qlen = evd->qlen;
	if (evd_param_mask & DAT_EVD_FIELD_EVD_STATE)
		p->evd_state = evd->state;
	if (evd_param_mask & DAT_EVD_FIELD_CNO)
		p->cno_handle = evd->cno;
	if (evd_param_mask & DAT_EVD_FIELD_EVD_FLAGS)
		p->evd_flags = evd->flags;
	dapl_unlock(&evd->lock);
	return DAT_SUCCESS;
}

/* Under ia->lock and evd->lock. */
static void evd_cno_detach(struct dapl_evd *evd)
{
	struct dapl_cno *cno = evd->cno;

	if (!cno)
		return;
	dapl_cno_agent_detach(evd);
	dapl_list_del(&evd->cno_link);
	cno->use_count--;
	evd->cno = NULL;
	/* A cno_wait polling this EVD's fd must rescan. */
	wake(cno->wake_fd);
}

DAT_RETURN dapl_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
			       DAT_CNO_HANDLE cno_handle)
{
	struct dapl_evd *evd = evd_handle;
	struct dapl_cno *cno = cno_handle;
	struct dapl_ia *ia;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	ia = evd->obj.ia;
	if (cno && !cno_ok(ia, cno))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	pthread_mutex_lock(&ia->lock);
	dapl_lock(&evd->lock);
	if (evd->cno != cno) {
		evd_cno_detach(evd);
		if (cno) {
			evd_cno_attach(evd, cno);
			/* It may already hold events. */
			wake(cno->wake_fd);
		}
	}
	dapl_unlock(&evd->lock);
	pthread_mutex_unlock(&ia->lock);
	return DAT_SUCCESS;
}

/*
 * Sets the bits of one state pair (enabled/disabled, waitable/...).
 * dat_evd_enable(3DAT): "The enabling and disabling EVD has no effect on
 * direct waiters on the EVD" -- only its CNO: an EVD enabled with events
 * queued (a dat_evd_modify_cno between a disable and an enable, the
 * page's recipe) notifies its CNO then, as the events' arrival would
 * have.  A waiter must notice unwaitable at once.
 */
static DAT_RETURN evd_state_set(DAT_EVD_HANDLE h, int clear, int set)
{
	struct dapl_evd *evd = h;
	int enabled;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	dapl_lock(&evd->lock);
	enabled = (set & DAT_EVD_STATE_ENABLED) &&
		  !(evd->state & DAT_EVD_STATE_ENABLED);
	evd->state = (DAT_EVD_STATE)((evd->state & ~clear) | set);
	if (evd->waiters && (set & DAT_EVD_STATE_UNWAITABLE))
		wake(evd->wake_fd);
	else if (enabled && evd->cno && !evd->waiters &&
		 evd->obj.ia->evd_ready(evd))
		dapl_cno_notify(evd->cno, evd);
	dapl_unlock(&evd->lock);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	return evd_state_set(evd_handle, DAT_EVD_STATE_DISABLED,
			     DAT_EVD_STATE_ENABLED);
}

DAT_RETURN dapl_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	return evd_state_set(evd_handle, DAT_EVD_STATE_ENABLED,
			     DAT_EVD_STATE_DISABLED);
}

DAT_RETURN dapl_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return evd_state_set(evd_handle, DAT_EVD_STATE_WAITABLE,
			     DAT_EVD_STATE_UNWAITABLE);
}

DAT_RETURN dapl_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return evd_state_set(evd_handle, DAT_EVD_STATE_UNWAITABLE,
			     DAT_EVD_STATE_WAITABLE);
}

DAT_RETURN dapl_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	struct dapl_evd *evd = evd_handle;
	DAT_COUNT qlen = evd_min_qlen;
	DAT_RETURN rc = DAT_SUCCESS;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	if (qlen < 1 || qlen > evd->obj.ia->attr.max_evd_qlen)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	dapl_lock(&evd->lock);
	if (qlen < evd->ring.count + evd->reserved ||
	    (evd->waiters && qlen < evd->threshold)) {
		rc = DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	if (evd_has_cq(evd)) {
		rc = evd->obj.ia->ops->cq_resize(evd, &qlen);
		if (rc != DAT_SUCCESS)
			goto out;
	}
	if (ring_resize(&evd->ring, qlen)) {
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	evd->qlen = qlen;
out:
	dapl_unlock(&evd->lock);
	return rc;
}

void dapl_evd_get(struct dapl_evd *evd)
{
	__atomic_add_fetch(&evd->use_count, 1, __ATOMIC_ACQ_REL);
}

void dapl_evd_put(struct dapl_evd *evd)
{
	__atomic_sub_fetch(&evd->use_count, 1, __ATOMIC_ACQ_REL);
}

/* Marks the EVD closing and waits until its waiter has left. */
static void evd_abort_waiters(struct dapl_evd *evd)
{
	dapl_lock(&evd->lock);
	evd->closing = 1;
	if (evd->waiters)
		wake(evd->wake_fd);
	while (evd->waiters)
		dapl_cond_wait(&evd->cond, &evd->lock);
	dapl_unlock(&evd->lock);
}

void dapl_evd_quiesce(struct dapl_evd *evd)
{
	struct dapl_ia *ia = evd->obj.ia;

	/* the engine's agent set must not hold the CQ fd it destroys */
	pthread_mutex_lock(&ia->lock);
	dapl_lock(&evd->lock);
	dapl_cno_agent_detach(evd);
	dapl_unlock(&evd->lock);
	pthread_mutex_unlock(&ia->lock);
	evd_abort_waiters(evd);
	if (evd_has_cq(evd)) {
		evd->obj.ia->ops->cq_destroy(evd);
		evd->cq_fd = -1;
		/* whatever the transport did: no poll of a CQ that is gone */
		memset(&evd->direct, 0, sizeof(evd->direct));
	}
}

void dapl_evd_teardown(struct dapl_evd *evd)
{
	struct dapl_ia *ia = evd->obj.ia;

	dapl_evd_quiesce(evd);
	pthread_mutex_lock(&ia->lock);
	dapl_lock(&evd->lock);
	evd_cno_detach(evd);
	dapl_unlock(&evd->lock);
	pthread_mutex_unlock(&ia->lock);
	close(evd->wake_fd);
	evd->wake_fd = -1;
	free(evd->ring.ev);
	evd->ring.ev = NULL;
	dapl_lock_destroy(&evd->lock);
	dapl_obj_free(evd);
}

DAT_RETURN dapl_evd_free(DAT_EVD_HANDLE evd_handle)
{
	struct dapl_evd *evd = evd_handle;
	int busy;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	dapl_lock(&evd->lock);
	busy = __atomic_load_n(&evd->use_count, __ATOMIC_ACQUIRE) > 0 ||
	       evd->waiters > 0 || evd->closing;
	dapl_unlock(&evd->lock);
	if (busy)
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_IN_USE);
	dapl_evd_teardown(evd);
	return DAT_SUCCESS;
}

/* ---- software events ---- */

/*
 * Queues ev, under evd->lock.  Wakes the waiter, or else notifies the CNO
 * (whose agent the engine calls, cno.c).
 * Returns -1 if the ring is full.
 */
static int evd_enqueue(struct dapl_evd *evd, const DAT_EVENT *ev)
{
	if (evd->ring.count + evd->reserved >= evd->ring.size)
		return -1;
	ring_push(&evd->ring, ev);
	if (evd->waiters)
		wake(evd->wake_fd);
	else if (evd->cno && (evd->state & DAT_EVD_STATE_ENABLED))
		dapl_cno_notify(evd->cno, evd);
	return 0;
}

int dapl_evd_reserve(struct dapl_evd *evd)
{
	int rc = 0;

	dapl_lock(&evd->lock);
	if (evd->closing || evd->dead)
		rc = DAPL_EVD_GONE;
	else if (evd->ring.count + evd->reserved >= evd->ring.size)
		rc = DAPL_EVD_FULL;
	else
		evd->reserved++;
	dapl_unlock(&evd->lock);
	return rc;
}

void dapl_evd_unreserve(struct dapl_evd *evd)
{
	dapl_lock(&evd->lock);
	evd->reserved--;
	dapl_unlock(&evd->lock);
}

/* after_cq: the completions already in the EVD's CQ first (evd_int.h
 * dapl_evd_fill_locked), a connection's end behind them */
static void evd_post(struct dapl_evd *evd, const DAT_EVENT *event,
		     int reserved, int after_cq)
{
	int overflow = 0;
	DAT_EVENT ev = *event;

	ev.evd_handle = evd;
	dapl_lock(&evd->lock);
	/* the reserved slot becomes the event's own, so it cannot overflow */
	evd->reserved -= reserved;
	if (evd->closing || evd->dead) {
		dapl_unlock(&evd->lock);
		return;
	}
	if (after_cq)
		dapl_evd_fill_locked(evd, 1);
	if (evd_enqueue(evd, &ev)) {
		overflow = 1;
		/* Nowhere to report the async EVD's own overflow. */
		if (evd->flags & DAT_EVD_ASYNC_FLAG) {
			evd->dead = 1;
			overflow = 0;
			if (evd->waiters)
				wake(evd->wake_fd);
		}
	}
	dapl_unlock(&evd->lock);
	if (overflow) {
		dapl_dbg(DAPL_DBG_EVD, "evd %p overflow, event %#x dropped",
			 (void *)evd, event->event_number);
		dapl_evd_post_async(evd->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW,
				    evd, DAT_EVD_OVERFLOW_ERROR);
	}
}

void dapl_evd_post(struct dapl_evd *evd, const DAT_EVENT *event)
{
	evd_post(evd, event, 0, 0);
}

void dapl_evd_post_reserved(struct dapl_evd *evd, const DAT_EVENT *event)
{
	evd_post(evd, event, 1, 0);
}

void dapl_evd_post_end(struct dapl_evd *evd, const DAT_EVENT *event)
{
	evd_post(evd, event, 0, 1);
}

/*
 * An async event and the detach of an IA from another IA's async EVD
 * (ia.c, when that IA closes) are serialized by async_lock: once
 * dapl_evd_async_detach returned, no post to that EVD through ia is under
 * way, and its owner may tear it down.  Async events are rare: one
 * process-wide lock (a module lock: a forked child gets it new).
 */
static struct dapl_module_lock async_lock = DAPL_MODULE_LOCK_INITIALIZER;

void dapl_evd_post_async(struct dapl_ia *ia, DAT_EVENT_NUMBER number,
			 DAT_HANDLE handle, DAT_COUNT reason)
{
	struct dapl_evd *evd;
	DAT_EVENT ev;

	dapl_module_lock(&async_lock);
	evd = __atomic_load_n(&ia->async_evd, __ATOMIC_ACQUIRE);
	if (dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD)) {
		memset(&ev, 0, sizeof(ev));
		ev.event_number = number;
		ev.evd_handle = evd;
		ev.event_data.asynch_error_event_data.dat_handle = handle;
		ev.event_data.asynch_error_event_data.reason = reason;
		dapl_evd_post(evd, &ev);
	}
	dapl_module_unlock(&async_lock);
}

void dapl_evd_async_detach(struct dapl_ia *ia, struct dapl_evd *evd)
{
	dapl_module_lock(&async_lock);
	if (__atomic_load_n(&ia->async_evd, __ATOMIC_ACQUIRE) == evd) {
		__atomic_store_n(&ia->async_evd, NULL, __ATOMIC_RELEASE);
		dapl_evd_put(evd);
	}
	dapl_module_unlock(&async_lock);
}

void dapl_async_evd_error(struct dapl_evd *evd)
{
	dapl_evd_post_async(evd->obj.ia, DAT_ASYNC_ERROR_EVD_OVERFLOW, evd,
			    DAT_EVD_OVERFLOW_ERROR);
}

void dapl_async_ia_error(struct dapl_ia *ia)
{
	dapl_evd_post_async(ia, DAT_ASYNC_ERROR_IA_CATASTROPHIC, ia,
			    DAT_IA_CATASTROPHIC_ERROR);
}

DAT_RETURN dapl_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	struct dapl_evd *evd = evd_handle;
	DAT_EVENT ev;
	int full;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	if (!(evd->flags & DAT_EVD_SOFTWARE_FLAG))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!event || event->event_number != DAT_SOFTWARE_EVENT)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	ev = *event;
	ev.evd_handle = evd;
	dapl_lock(&evd->lock);
	/* A full queue refuses the event; no overflow is reported. */
	full = evd->closing || evd_enqueue(evd, &ev);
	dapl_unlock(&evd->lock);
	if (full)
		return DAPL_ERR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
	return DAT_SUCCESS;
}
