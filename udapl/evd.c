/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event dispatchers.
 *
 * Every EVD has a software ring of qlen DAT_EVENTs.  A DTO or RMR_BIND
 * EVD also has a completion queue of its own (ops->cq_create), whose
 * completions stay in the CQ until somebody dequeues or waits: dequeue
 * takes the ring first, then polls one completion straight into the
 * caller's event; wait moves completions into the ring (only as many as
 * fit, so none is lost or counted twice) until the threshold is met.
 * Software-made events (connection, CR, async, software) are pushed into
 * the ring by dapl_evd_post from any thread.
 *
 * Blocking (dat_evd_wait) is poll(2) on the CQ's fd and the EVD's eventfd
 * (wake_fd), which software posts, set_unwaitable and teardown write.
 * Lock order: ia->lock, then the EVD's lock, then a CNO's lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "slots.h"
#include <dat/dat_ib_extensions.h>

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

/* The subtype libdat's wrappers give a NULL EVD handle (the reference's
 * DAT_INVALID_HANDLE1), so that both checks answer alike. */
#define BAD_EVD DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1)

/* ---- the ring ---- */

static void ring_push(struct dapl_event_ring *r, const DAT_EVENT *ev)
{
	r->ev[(r->head + r->count) % r->size] = *ev;
	r->count++;
}

static void ring_pop(struct dapl_event_ring *r, DAT_EVENT *ev)
{
	*ev = r->ev[r->head];
	r->head = (r->head + 1) % r->size;
	r->count--;
}

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

static void drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "eventfd read: %d", errno);
}

/* ---- completions ---- */

/*
 * The event of a completion that is not a plain DTO of an EP: an SRQ
 * receive, an RMR bind, an atomic, a completion of a freed EP, the
 * invalidation before a rebind.  0 when nobody is to be told.
 */
static int cqe_deliver_other(struct dapl_evd *evd,
			     const struct dapl_cqe *cqe, DAT_EVENT *ev)
{
	struct dapl_cookie *c = (struct dapl_cookie *)(uintptr_t)cqe->wr_id;
	DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev->event_data.dto_completion_event_data;
	struct dapl_ep *ep = c->ep;
	DAT_CONTEXT user_cookie = c->user_cookie;
	uint64_t length = c->length;
	int signaled = c->signaled;
	void *rmr = c->rmr;
	uint8_t op = c->op;

	/* SRQ receives: the cookie belongs to the SRQ, not to an EP. */
	if (op == DAPL_OP_SRQ_RECV) {
		if (!dapl_srq_cqe_to_event(cqe, ev))
			return 0;
		ev->evd_handle = evd;
		return 1;
	}
	/* The EP was freed or reset with this post outstanding: its ring is
	 * retired and nobody is left to tell. */
	if (!ep)
		return 0;
	/* The fields are copied first: once put, a poster may reuse it. */
	dapl_cookie_put(op == DAPL_OP_RECV ? &ep->recv_ring : &ep->send_ring,
			c);
	/* The invalidation rmr.c posts before a rebind is no consumer's
	 * request: only its slot is retired (a failure breaks the
	 * connection and flushes the bind, which the consumer sees). */
	if (op == DAPL_OP_LOCAL_INV ||
	    (!signaled && cqe->status == DAT_DTO_SUCCESS))
		return 0;
	ev->evd_handle = evd;
	if (op == DAPL_OP_BIND_MW) {
		DAT_RMR_BIND_COMPLETION_EVENT_DATA *b =
		    &ev->event_data.rmr_completion_event_data;

		ev->event_number = DAT_RMR_BIND_COMPLETION_EVENT;
		b->rmr_handle = rmr;
		b->user_cookie = user_cookie;
		b->status = cqe->status;
		return 1;
	}
	/* The atomic extension's completions have their own number
	 * (dat_ib_extensions.h), with the same data (length 8).  Only a
	 * failed one comes here: a success is cqe_deliver's (dto_atomic). */
	ev->event_number = DAT_IB_DTO_EVENT;
	d->ep_handle = ep;
	d->user_cookie = user_cookie;
	d->status = cqe->status;
	d->transfered_length = cqe->status == DAT_DTO_SUCCESS ? length : 0;
	return 1;
}

/*
 * A success of one of the atomic extension's 8-byte operations on a
 * live EP: the event a plain DTO's would be, but numbered
 * DAT_IB_DTO_EVENT (dat_ib_extensions.h); its length is the cookie's (8).
 * Both dequeue paths take it here rather than through the transport's
 * conversion and cqe_deliver_other, so that an atomic's completion costs
 * what an RDMA read's does.  Its callers' common test (op up to
 * DAPL_OP_RDMA_READ) stays one compare: an atomic is checked only once
 * that failed.  1 with the event, 0 when it was unsignaled.
 */
static inline int dto_atomic(struct dapl_evd *evd, struct dapl_cookie *c,
			     struct dapl_ep *ep, DAT_EVENT *ev)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev->event_data.dto_completion_event_data;
	DAT_DTO_COOKIE user_cookie = c->user_cookie;
	uint64_t length = c->length;
	int signaled = c->signaled;

	/* The fields are read first: once put, a poster may reuse it. */
	dapl_cookie_put(&ep->send_ring, c);
	if (!signaled)
		return 0;
	ev->event_number = DAT_IB_DTO_EVENT;
	ev->evd_handle = evd;
	d->ep_handle = ep;
	d->user_cookie = user_cookie;
	d->status = DAT_DTO_SUCCESS;
	d->transfered_length = length;
	return 1;
}

static inline int op_is_atomic(uint8_t op)
{
	return op == DAPL_OP_ATOMIC_FETCH_ADD || op == DAPL_OP_ATOMIC_CMP_SWAP;
}

/*
 * The event of a completion, unless the consumer suppressed it: a
 * successful post made with DAT_COMPLETION_SUPPRESS_FLAG (and each
 * unsignalled post that gets a wire completion every half ring) still
 * makes a verbs completion, which only retires its cookie.  Inline: the
 * sends, receives, RDMA writes and reads of an EP are the dequeue path.
 */
static inline int cqe_deliver(struct dapl_evd *evd,
			      const struct dapl_cqe *cqe, DAT_EVENT *ev)
{
	struct dapl_cookie *c = (struct dapl_cookie *)(uintptr_t)cqe->wr_id;
	DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev->event_data.dto_completion_event_data;
	DAT_DTO_COOKIE user_cookie;
	struct dapl_ep *ep;
	uint64_t length;
	int signaled;
	uint8_t op;

	DAPL_HAPPENS_AFTER(c); /* filled by the poster (dto.c) */
	op = c->op;
	ep = c->ep;
	if (dapl_unlikely(op > DAPL_OP_RDMA_READ || !ep)) {
		if (ep && op_is_atomic(op) &&
		    cqe->status == DAT_DTO_SUCCESS)
			return dto_atomic(evd, c, ep, ev);
		return cqe_deliver_other(evd, cqe, ev);
	}
	/* The fields are read first: once put, a poster may reuse it. */
	user_cookie = c->user_cookie;
	length = op == DAPL_OP_RECV ? cqe->byte_len : c->length;
	signaled = c->signaled;
	dapl_cookie_put(op == DAPL_OP_RECV ? &ep->recv_ring : &ep->send_ring,
			c);
	if (dapl_unlikely(!signaled) && cqe->status == DAT_DTO_SUCCESS)
		return 0;
	ev->event_number = DAT_DTO_COMPLETION_EVENT;
	ev->evd_handle = evd;
	d->ep_handle = ep;
	d->user_cookie = user_cookie;
	d->status = cqe->status;
	d->transfered_length =
	    dapl_likely(cqe->status == DAT_DTO_SUCCESS) ? length : 0;
	return 1;
}

static int evd_has_cq(const struct dapl_evd *evd)
{
	return evd->cq_fd >= 0;
}

/* Moves completions into the free part of the ring; under evd->lock. */
static void evd_fill(struct dapl_evd *evd)
{
	struct dapl_cqe cqe[16];
	int n, i, room;
	DAT_EVENT ev;

	if (!evd_has_cq(evd))
		return;
	while ((room = evd->ring.size - evd->ring.count - evd->reserved) > 0) {
		if (room > 16)
			room = 16;
		n = evd->obj.ia->ops->cq_poll(evd, cqe, room);
		for (i = 0; i < n; i++)
			if (cqe_deliver(evd, &cqe[i], &ev))
				ring_push(&evd->ring, &ev);
		if (n < room)
			break;
	}
}

int dapl_evd_ready(struct dapl_evd *evd)
{
	if (evd->ring.count)
		return 1;
	if (!evd_has_cq(evd))
		return 0;
	/* Arm, then look: a completion in between still fires the fd. */
	evd->obj.ia->ops->cq_arm(evd, 0);
	evd_fill(evd);
	return evd->ring.count > 0;
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

/* Sets the bits of one state pair (enabled/disabled, waitable/...). */
static DAT_RETURN evd_state_set(DAT_EVD_HANDLE h, int clear, int set)
{
	struct dapl_evd *evd = h;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	dapl_lock(&evd->lock);
	evd->state = (DAT_EVD_STATE)((evd->state & ~clear) | set);
	/* A waiter must notice unwaitable or disabled at once. */
	if (evd->waiters)
		wake(evd->wake_fd);
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

static void evd_post(struct dapl_evd *evd, const DAT_EVENT *event,
		     int reserved)
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
	evd_post(evd, event, 0);
}

void dapl_evd_post_reserved(struct dapl_evd *evd, const DAT_EVENT *event)
{
	evd_post(evd, event, 1);
}

void dapl_evd_post_async(struct dapl_ia *ia, DAT_EVENT_NUMBER number,
			 DAT_HANDLE handle, DAT_COUNT reason)
{
	struct dapl_evd *evd =
	    __atomic_load_n(&ia->async_evd, __ATOMIC_ACQUIRE);
	DAT_EVENT ev;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.event_number = number;
	ev.evd_handle = evd;
	ev.event_data.asynch_error_event_data.dat_handle = handle;
	ev.event_data.asynch_error_event_data.reason = reason;
	dapl_evd_post(evd, &ev);
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

/* ---- dequeue, wait ---- */

/*
 * A dequeue's completion through the transport's direct poll
 * (transport.h, struct dapl_cq_direct): the record is read here, in
 * udapl's frame.  A success of a plain send, receive, RDMA write or read
 * of a live EP is the event at once, as cqe_deliver makes it; anything
 * else goes out of line (evd_direct_other).  1 with the event, 0 when the
 * CQ has nothing more for the consumer.
 */
/* A record the dequeue does not take itself (c and status as the caller
 * read them from it): an atomic's success through dto_atomic, anything
 * else through the transport's conversion, then cqe_deliver.  Out of
 * line, so that the common path's frame does not carry a struct
 * dapl_cqe. */
static __attribute__((noinline)) int
evd_direct_other(struct dapl_evd *evd, const void *rec, DAT_EVENT *ev,
		 struct dapl_cookie *c, uint32_t status)
{
	struct dapl_cqe cqe;

	/* An atomic's success needs nothing the transport's conversion
	 * gives (dto_atomic). */
	if (status == evd->direct.status_ok && c->ep && op_is_atomic(c->op))
		return dto_atomic(evd, c, c->ep, ev);
	evd->obj.ia->ops->cq_direct_cqe(evd, rec, &cqe);
	return cqe_deliver(evd, &cqe, ev);
}

static inline __attribute__((always_inline)) int
evd_poll_direct(struct dapl_evd *evd, DAT_EVENT *ev)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &ev->event_data.dto_completion_event_data;
	uint64_t rec[DAPL_CQ_DIRECT_REC / sizeof(uint64_t)];

	while (evd->direct.poll(evd->direct.cq, 1, rec) == 1) {
		struct dapl_cookie *c = (struct dapl_cookie *)(uintptr_t)rec[0];
		DAT_DTO_COOKIE user_cookie;
		struct dapl_ep *ep;
		uint32_t status, len;
		uint64_t length;
		int signaled;
		uint8_t op;

		memcpy(&status, (const char *)rec + evd->direct.status_off,
		       sizeof(status));
		DAPL_HAPPENS_AFTER(c); /* filled by the poster (dto.c) */
		op = c->op;
		ep = c->ep;
		if (dapl_unlikely(status != evd->direct.status_ok ||
				  op > DAPL_OP_RDMA_READ || !ep)) {
			if (evd_direct_other(evd, rec, ev, c, status))
				return 1;
			continue;
		}
		/* The fields are read first: once put, a poster may reuse
		 * it. */
		user_cookie = c->user_cookie;
		if (op == DAPL_OP_RECV) {
			memcpy(&len, (const char *)rec + evd->direct.len_off,
			       sizeof(len));
			length = len;
		} else {
			length = c->length;
		}
		signaled = c->signaled;
		dapl_cookie_put(op == DAPL_OP_RECV ? &ep->recv_ring
						   : &ep->send_ring,
				c);
		if (dapl_unlikely(!signaled))
			continue;
		ev->event_number = DAT_DTO_COMPLETION_EVENT;
		ev->evd_handle = evd;
		d->ep_handle = ep;
		d->user_cookie = user_cookie;
		d->status = DAT_DTO_SUCCESS;
		d->transfered_length = length;
		return 1;
	}
	return 0;
}

/* A dequeue through the transport's cq_poll (no direct poll). */
static inline __attribute__((always_inline)) DAT_RETURN
evd_dequeue_cq(struct dapl_evd *evd, DAT_EVENT *event)
{
	struct dapl_cqe cqe;

	/* A completion is turned into the caller's event in place: the
	 * DAT_EVENT is written once. */
	if (evd_has_cq(evd))
		while (evd->obj.ia->ops->cq_poll(evd, &cqe, 1) == 1)
			if (cqe_deliver(evd, &cqe, event))
				return DAT_SUCCESS;
	return DAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

/* The dequeue itself: under evd->lock, or on a nolock EVD without it. */
static inline __attribute__((always_inline)) DAT_RETURN
evd_dequeue_body(struct dapl_evd *evd, DAT_EVENT *event)
{
	/* Neither a waiter nor a queued event, the common case, is one
	 * test of the two words (both change only under evd->lock, or on
	 * a nolock EVD only in the consumer's own calls). */
	if (dapl_unlikely(evd->waiters | evd->ring.count)) {
		/* dat_evd_wait(3DAT): a blocked waiter owns the EVD. */
		if (evd->waiters)
			return DAPL_ERR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EVD_IN_USE);
		ring_pop(&evd->ring, event);
		return DAT_SUCCESS;
	}
	if (evd->direct.poll)
		return evd_poll_direct(evd, event)
			   ? DAT_SUCCESS
			   : DAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	return evd_dequeue_cq(evd, event);
}

DAT_RETURN dapl_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	struct dapl_evd *evd = evd_handle;
	DAT_RETURN rc;

	if (dapl_unlikely(!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD)))
		return BAD_EVD;
	if (dapl_unlikely(!event))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	/* No lock for a CQ-only EVD of an IA whose consumer opted out
	 * (evd->nolock, ia.c).  Two copies of the body, so that neither
	 * carries the other's lock bookkeeping. */
	if (evd->nolock)
		return evd_dequeue_body(evd, event);
	dapl_lock(&evd->lock);
	rc = evd_dequeue_body(evd, event);
	dapl_unlock(&evd->lock);
	return rc;
}

/* Why a waiter must leave now, or DAT_SUCCESS. */
static DAT_RETURN evd_wait_state(const struct dapl_evd *evd)
{
	if (evd->closing)
		return DAPL_ERR(DAT_ABORT, DAT_NO_SUBTYPE);
	if (evd->state & DAT_EVD_STATE_UNWAITABLE)
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_UNWAITABLE);
	if (evd->state & DAT_EVD_STATE_DISABLED)
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EVD_DISABLED);
	if (evd->dead)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_ASYNC);
	return DAT_SUCCESS;
}

/*
 * DAPL_EVD_WAIT_SPIN_US=<0..1000000> (read once): before it sleeps, a
 * dat_evd_wait checks its fds without blocking for up to that many
 * microseconds, like rsocket's polling_time, so that an event coming
 * within that time wakes it without the kernel waking a sleeping thread
 * (2.5-3 times a spinning dequeue's delay on the emulated test bed), at
 * the price of a CPU kept busy meanwhile.  Unset or 0, the default: no
 * spinning.  A value out of range is ignored with a warning.
 */
static unsigned evd_spin_us(void)
{
	static _Atomic long spin = -1;
	long v = atomic_load_explicit(&spin, memory_order_relaxed);
	const char *s;
	char *end;

	if (v >= 0)
		return (unsigned)v;
	v = 0;
	s = secure_getenv("DAPL_EVD_WAIT_SPIN_US");
	if (s && *s) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || *end || v < 0 || v > 1000000) {
			dapl_dbg(DAPL_DBG_WARN,
				 "DAPL_EVD_WAIT_SPIN_US=%s: not 0..1000000, ignored",
				 s);
			v = 0;
		}
	}
	atomic_store_explicit(&spin, v, memory_order_relaxed);
	return (unsigned)v;
}

/* Blocks on the CQ's fd and wake_fd, evd->lock dropped meanwhile (after
 * DAPL_EVD_WAIT_SPIN_US of checking them and the ring, if set). */
static void evd_block(struct dapl_evd *evd, int ms)
{
	struct pollfd pfd[2] = {
	    {.fd = evd->wake_fd, .events = POLLIN},
	    {.fd = evd->cq_fd, .events = POLLIN},
	};
	uint64_t spin = evd_spin_us() * 1000ull, t0, t, spun = 0, gap = 0;
	uint64_t next = 0;
	int n = 0;

	dapl_unlock(&evd->lock);
	if (spin) {
		if (ms >= 0 && spin > ms * 1000000ull)
			spin = ms * 1000000ull;
		t0 = dapl_now_ns();
		for (;;) {
			/* A software event is in the ring before its eventfd
			 * is written: seen here without a system call.  A
			 * racy peek (the lock is not held): the caller's loop
			 * checks again under the lock, and the eventfd left
			 * set only makes the next wait look once more. */
			if (__atomic_load_n(&evd->ring.count, __ATOMIC_RELAXED) >=
			    evd->threshold) {
				dapl_lock(&evd->lock);
				return;
			}
			t = dapl_now_ns();
			spun = t - t0;
			if (spun >= spin)
				break;
			/* The fds (completions) between peeks, at most a
			 * fifth of the time: a poll(2) costs 0.3 us natively
			 * but tens of us under emulation. */
			if (t >= next) {
				n = poll(pfd, 2, 0);
				if (n)
					break;
				gap = 4 * (dapl_now_ns() - t);
				next = t + (gap < 100000 ? gap : 100000);
			}
		}
		if (ms > 0)
			ms -= (int)(spun / 1000000);
	}
	if (n == 0) {
		dapl_progress_block(evd->obj.ia, 1);
		n = poll(pfd, 2, ms);
		dapl_progress_block(evd->obj.ia, 0);
	}
	dapl_lock(&evd->lock);
	if (n <= 0)
		return; /* timeout, or EINTR: the loop goes on */
	if (pfd[0].revents & POLLIN)
		drain(evd->wake_fd);
	if ((pfd[1].revents & POLLIN) && evd_has_cq(evd))
		evd->obj.ia->ops->cq_ack(evd);
}

static DAT_RETURN evd_wait_locked(struct dapl_evd *evd, DAT_TIMEOUT timeout,
				  DAT_COUNT threshold, DAT_EVENT *event)
{
	const struct dapl_ops *ops = evd->obj.ia->ops;
	struct dapl_deadline dl;
	int armed = 0, ms;
	DAT_RETURN rc;

	dapl_deadline_set(&dl, timeout);
	for (;;) {
		rc = evd_wait_state(evd);
		if (rc != DAT_SUCCESS)
			return rc;
		evd_fill(evd);
		if (evd->ring.count >= threshold) {
			ring_pop(&evd->ring, event);
			return DAT_SUCCESS;
		}
		/* Arm, then poll again: a completion that came in between
		 * would not fire the notification. */
		if (evd_has_cq(evd) && !armed) {
			if (ops->cq_arm(evd, 0) == DAT_SUCCESS)
				armed = 1;
			continue;
		}
		ms = dapl_deadline_ms(&dl);
		if (!ms)
			return DAPL_ERR(DAT_TIMEOUT_EXPIRED, DAT_NO_SUBTYPE);
		evd_block(evd, ms);
		armed = 0;
	}
}

DAT_RETURN dapl_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			 DAT_COUNT threshold, DAT_EVENT *event,
			 DAT_COUNT *n_more_events)
{
	struct dapl_evd *evd = evd_handle;
	DAT_RETURN rc;

	if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
		return BAD_EVD;
	if (!event)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	dapl_lock(&evd->lock);
	if (threshold < 1 || threshold > evd->qlen) {
		dapl_unlock(&evd->lock);
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}
	rc = evd_wait_state(evd);
	if (rc == DAT_SUCCESS && evd->waiters)
		rc = DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
	if (rc != DAT_SUCCESS) {
		dapl_unlock(&evd->lock);
		return rc;
	}
	evd->waiters = 1;
	evd->threshold = threshold;
	rc = evd_wait_locked(evd, timeout, threshold, event);
	if (n_more_events)
		*n_more_events = evd->ring.count;
	evd->waiters = 0;
	if (evd->closing)
		dapl_cond_broadcast(&evd->cond);
	/* the waiter took the notification the CNO's agent waits for */
	else if (__atomic_load_n(&evd->agent_watched, __ATOMIC_RELAXED))
		evd->obj.ia->ops->cq_arm(evd, 0);
	dapl_unlock(&evd->lock);
	return rc;
}
