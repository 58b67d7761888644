/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event dispatchers: the consumer's side, dat_evd_dequeue and
 * dat_evd_wait, with the completions they turn into events.  Apart from
 * the EVD object (evd.c) because the dequeue is the data path: it stays
 * in one file with the helpers it inlines (cqe_deliver, evd_poll_direct).
 *
 * Dequeue takes the ring first, then polls one completion straight into
 * the caller's event; wait moves completions into the ring (only as many
 * as fit, so none is lost or counted twice) until the threshold is met.
 *
 * Blocking (dat_evd_wait) is poll(2) on the CQ's fd and the EVD's eventfd
 * (wake_fd), which software posts, set_unwaitable and teardown write
 * (evd.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evd_int.h"
#include "slots.h"
#include <dat/dat_ib_extensions.h>

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

/* Moves completions into the free part of the ring, all but keep of its
 * slots; under evd->lock.  evd.c: a connection's end leaves one for
 * itself (dat_ep_disconnect(3DAT), evd_int.h). */
void dapl_evd_fill_locked(struct dapl_evd *evd, int keep)
{
	struct dapl_cqe cqe[16];
	int n, i, room;
	DAT_EVENT ev;

	if (!evd_has_cq(evd))
		return;
	while ((room = evd->ring.size - evd->ring.count - evd->reserved -
		       keep) > 0) {
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
	dapl_evd_fill_locked(evd, 0);
	return evd->ring.count > 0;
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

static void drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "eventfd read: %d", errno);
}

/* Blocks on the CQ's fd and wake_fd, evd->lock dropped meanwhile (after
 * DAPL_EVD_WAIT_SPIN_US of checking them and the ring, if set), and on
 * prog_fd (ops->progress_fd) if not -1.  1 if prog_fd alone woke it. */
static int evd_block(struct dapl_evd *evd, int ms, int prog_fd)
{
	struct pollfd pfd[3] = {
	    {.fd = evd->wake_fd, .events = POLLIN},
	    {.fd = evd->cq_fd, .events = POLLIN},
	    {.fd = prog_fd, .events = POLLIN},
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
				return 0;
			}
			t = dapl_now_ns();
			spun = t - t0;
			if (spun >= spin)
				break;
			/* The fds (completions) between peeks, at most a
			 * fifth of the time: a poll(2) costs 0.3 us natively
			 * but tens of us under emulation. */
			if (t >= next) {
				n = poll(pfd, 3, 0);
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
		n = poll(pfd, 3, ms);
		dapl_progress_block(evd->obj.ia, 0);
	}
	dapl_lock(&evd->lock);
	if (n <= 0)
		return 0; /* timeout, or EINTR: the loop goes on */
	if (pfd[0].revents & POLLIN)
		drain(evd->wake_fd);
	if ((pfd[1].revents & POLLIN) && evd_has_cq(evd))
		evd->obj.ia->ops->cq_ack(evd);
	return !(pfd[0].revents | pfd[1].revents);
}

static DAT_RETURN evd_wait_locked(struct dapl_evd *evd, DAT_TIMEOUT timeout,
				  DAT_COUNT threshold, DAT_EVENT *event)
{
	const struct dapl_ops *ops = evd->obj.ia->ops;
	struct dapl_deadline dl;
	int armed = 0, ms, prog_fd = -1, prog_woke = 0;
	DAT_RETURN rc;

	/* The transport's progress fd (transport.h progress_fd): watched
	 * until it once wakes this wait for nothing of this CQ's (traffic
	 * of other endpoints, or what the engine alone handles): from then
	 * on the engine's round and the CQ's fd tell, as without it, so
	 * that a wait does not spin on an fd only the engine clears. */
	if (evd_has_cq(evd) && ops->progress_fd)
		prog_fd = ops->progress_fd(evd->obj.ia);
	dapl_deadline_set(&dl, timeout);
	for (;;) {
		DAT_COUNT had;

		rc = evd_wait_state(evd);
		if (rc != DAT_SUCCESS)
			return rc;
		had = evd->ring.count;
		dapl_evd_fill_locked(evd, 0);
		if (prog_woke && evd->ring.count == had)
			prog_fd = -1;
		prog_woke = 0;
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
		prog_woke = evd_block(evd, ms, prog_fd);
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
