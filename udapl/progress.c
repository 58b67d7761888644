/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine: per IA, the one thread that waits on the
 * transport's file descriptors, runs its progress hook and its DAT timers
 * and delivers the connection events it deferred.  Here: what a
 * transport asks of the engine (kicks, fd watches, timers, deferred
 * events) and the thread's rounds.  Apart, each to be read on its own:
 * the upcall brackets and the quiesce (upcall.c); the thread's loop, the
 * engine's life cycle and the pool of parked threads
 * (progress_thread.c).  What the three share is in progress_int.h.
 *
 * One round of the thread, all with the engine's lock dropped around
 * each call out:
 *   1. ppoll on the wake eventfd and the watched fds, until the nearest
 *      timer, or the polling interval of a DAPL_PROGRESS_POLL transport;
 *   2. the callback of each readable fd, once per event it reports;
 *   3. ops->progress, if the transport has one;
 *   4. expired timers, one at a time;
 *   5. deferred connection events (kept in the EPs), one at a time.
 * Every call out may end in a consumer's CNO agent, which may free
 * objects or close the IA itself: after each one the thread looks at
 * e->stopping first, and an IA closed from its own engine thread leaves
 * the engine to free itself on the way out (it cannot join itself).
 *
 * Lock order: a transport's lock -> the engine's lock -> upcall_lock,
 * and the engine's lock -> pool_lock.  None of the last three is held
 * while anything outside the engine's three files runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "progress_int.h"

/* The engine whose thread this is. */
__thread struct dapl_engine *engine_self;

uint64_t dapl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- what a transport asks of the engine ---------------------------------- */

void dapl_progress_kick(struct dapl_ia *ia)
{
	struct dapl_engine *e = ia->engine;
	uint64_t one = 1;

	/* Before the thread starts there is nobody to wake: it reads the
	 * watches, timers and deferred events when it starts. */
	if (e && __atomic_load_n(&e->running, __ATOMIC_ACQUIRE) &&
	    write(e->wake_fd, &one, sizeof(one)) != sizeof(one) &&
	    errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "progress: cannot wake the engine");
}

/*
 * A consumer blocks (dat_evd_wait, dat_cno_wait: begin before it sleeps,
 * end after) on an IA whose transport the engine must drive
 * (DAPL_PROGRESS_POLL).  Without this, after a quiet spell the engine
 * sleeps poll_max_us (10 ms over libfabric) and a completion waits that
 * long for its round.  Now the begin sends the engine's sleep back to
 * poll_min_us, doubling from there, so that a completion that comes t
 * after the wait began is read within about 2t + poll_min_us; and while
 * anybody is blocked the sleep stays at most poll_wait_us, which bounds
 * what a completion waits after a long quiet spell, for that many rounds
 * a second of the engine, but never less than ENGINE_WAIT_DUTY times
 * what a round of the transport takes (at most about 1 % of a core).
 * An FD transport's completions wake the waiter by themselves: nothing
 * to do.
 */
void dapl_progress_block(struct dapl_ia *ia, int begin)
{
	struct dapl_engine *e = ia->engine;

	if (!e || ia->caps.progress != DAPL_PROGRESS_POLL)
		return;
	if (!begin) {
		__atomic_sub_fetch(&e->blocked, 1, __ATOMIC_ACQ_REL);
		return;
	}
	__atomic_add_fetch(&e->blocked, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&e->hurry, 1, __ATOMIC_RELEASE);
	dapl_progress_kick(ia);
}

int dapl_progress_watch(struct dapl_ia *ia, int fd, int (*fn)(void *arg),
			void *arg)
{
	struct dapl_engine *e = ia->engine;
	int rc = -1;

	if (!e || fd < 0 || !fn)
		return -1;
	pthread_mutex_lock(&e->lock);
	if (e->nwatch < ENGINE_MAX_WATCH) {
		e->watch[e->nwatch].fd = fd;
		e->watch[e->nwatch].fn = fn;
		e->watch[e->nwatch].arg = arg;
		e->nwatch++;
		rc = 0;
	}
	pthread_mutex_unlock(&e->lock);
	dapl_progress_kick(ia);
	return rc;
}

void dapl_progress_unwatch(struct dapl_ia *ia, int fd)
{
	struct dapl_engine *e = ia->engine;
	int i;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->nwatch; i++) {
		if (e->watch[i].fd != fd)
			continue;
		e->watch[i] = e->watch[--e->nwatch];
		break;
	}
	while (e->busy_fd == fd && engine_self != e)
		pthread_cond_wait(&e->idle, &e->lock);
	pthread_mutex_unlock(&e->lock);
	dapl_progress_kick(ia);
}

void dapl_timer_init(struct dapl_timer *t, struct dapl_ia *ia,
		     void (*fn)(struct dapl_timer *t))
{
	dapl_list_init(&t->link);
	t->deadline = 0;
	t->ia = ia;
	t->fn = fn;
}

void dapl_timer_arm(struct dapl_timer *t, uint64_t deadline_ns)
{
	struct dapl_engine *e = t->ia->engine;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	t->deadline = deadline_ns;
	if (!linked(&t->link))
		dapl_list_add_tail(&e->timers, &t->link);
	pthread_mutex_unlock(&e->lock);
	/* the engine's sleep may be too long now; armed by the engine's own
	 * thread (a timer's callback, a round), no: it works out its next
	 * sleep from the timers before it sleeps again, and a kick would
	 * only make it wake at once for a round that finds nothing (over
	 * libfabric the 1 ms timer while a consumer spins, wake.c, made
	 * two rounds a millisecond so, each one taking the locks the
	 * spinning consumer takes) */
	if (engine_self != e)
		dapl_progress_kick(t->ia);
}

static void timer_cancel(struct dapl_timer *t, int sync)
{
	struct dapl_engine *e = t->ia ? t->ia->engine : NULL;

	if (!e) {
		dapl_list_init(&t->link);
		return;
	}
	pthread_mutex_lock(&e->lock);
	if (linked(&t->link))
		dapl_list_del(&t->link);
	while (sync && e->firing == t && engine_self != e)
		pthread_cond_wait(&e->idle, &e->lock);
	pthread_mutex_unlock(&e->lock);
}

void dapl_timer_cancel(struct dapl_timer *t)
{
	timer_cancel(t, 0);
}

void dapl_timer_cancel_sync(struct dapl_timer *t)
{
	timer_cancel(t, 1);
}

void dapl_ep_defer_cm_event(struct dapl_ep *ep, enum dapl_cm_event event)
{
	struct dapl_engine *e = ep->obj.ia->engine;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	if (!linked(&ep->defer_link)) {
		ep->deferred = event;
		dapl_list_add_tail(&e->deferred, &ep->defer_link);
	}
	pthread_mutex_unlock(&e->lock);
	dapl_progress_kick(ep->obj.ia);
}

/* ---- the thread's rounds ------------------------------------------------ */

/* locked: the sleep before the next round, for ppoll (NULL: forever). */
struct timespec *engine_sleep(struct dapl_engine *e, struct timespec *ts)
{
	const struct dapl_caps *c = &e->ia->caps;
	struct dapl_list *pos, *tmp;
	uint64_t now = dapl_now_ns(), next = UINT64_MAX, ns;

	dapl_list_for_each_safe (pos, tmp, &e->timers) {
		struct dapl_timer *t =
		    dapl_container_of(pos, struct dapl_timer, link);

		if (t->deadline < next)
			next = t->deadline;
	}
	if (!dapl_list_empty(&e->deferred))
		next = now;
	if (c->progress == DAPL_PROGRESS_POLL &&
	    now + (uint64_t)e->poll_us * 1000 < next)
		next = now + (uint64_t)e->poll_us * 1000;
	if (next == UINT64_MAX)
		return NULL;
	ns = next > now ? next - now : 0;
	if (ns > (uint64_t)ENGINE_MAX_SLEEP_MS * 1000000)
		ns = (uint64_t)ENGINE_MAX_SLEEP_MS * 1000000;
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
	return ts;
}

/* locked: calls fd's callback while it reports more; nonzero if the
 * callback did anything.  Returns with the lock held. */
static int engine_run_fd(struct dapl_engine *e, int fd)
{
	int i, burst, did = 0;

	for (burst = 0; burst < ENGINE_FD_BURST && !e->stopping; burst++) {
		struct engine_watch w;
		int more;

		for (i = 0; i < e->nwatch && e->watch[i].fd != fd; i++)
			;
		if (i == e->nwatch)
			break; /* unwatched meanwhile */
		w = e->watch[i];
		e->busy_fd = fd;
		pthread_mutex_unlock(&e->lock);
		more = w.fn(w.arg);
		pthread_mutex_lock(&e->lock);
		e->busy_fd = -1;
		pthread_cond_broadcast(&e->idle);
		did = 1;
		if (!more)
			break;
	}
	return did;
}

/* locked: one expired timer, if any; nonzero if one ran. */
static int engine_run_timer(struct dapl_engine *e, uint64_t now)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe (pos, tmp, &e->timers) {
		struct dapl_timer *t =
		    dapl_container_of(pos, struct dapl_timer, link);

		if (t->deadline > now)
			continue;
		dapl_list_del(&t->link);
		e->firing = t;
		pthread_mutex_unlock(&e->lock);
		t->fn(t);
		pthread_mutex_lock(&e->lock);
		e->firing = NULL;
		pthread_cond_broadcast(&e->idle);
		return 1;
	}
	return 0;
}

/* locked: one deferred connection event, if any. */
static int engine_run_deferred(struct dapl_engine *e)
{
	struct dapl_ep *ep;
	enum dapl_cm_event ev;
	int held;

	if (dapl_list_empty(&e->deferred))
		return 0;
	ep = dapl_container_of(e->deferred.next, struct dapl_ep, defer_link);
	dapl_list_del(&ep->defer_link);
	ev = ep->deferred;
	/* the bracket under the engine's lock, so that a quiesce (which
	 * purges under it first) either finds the event still queued or
	 * waits for this bracket */
	held = !dapl_upcall_begin(ep);
	e->calling++;
	pthread_mutex_unlock(&e->lock);
	if (held) {
		e->deliver(ep, ev, NULL, 0);
		dapl_upcall_end(ep);
	}
	pthread_mutex_lock(&e->lock);
	e->calling--;
	pthread_cond_broadcast(&e->idle);
	return 1;
}

/* locked: everything due after a wake-up, with ready[] the readable fds. */
void engine_round(struct dapl_engine *e, const int *ready, int nready)
{
	const struct dapl_caps *c = &e->ia->caps;
	int (*progress)(struct dapl_ia *) = e->ia->ops->progress;
	int i, work = nready > 0;

	for (i = 0; i < nready && !e->stopping; i++)
		engine_run_fd(e, ready[i]);
	if (progress && !e->stopping) {
		uint64_t t0 = dapl_now_ns();

		e->calling++;
		pthread_mutex_unlock(&e->lock);
		work |= progress(e->ia) > 0;
		pthread_mutex_lock(&e->lock);
		e->round_ns = (e->round_ns * 7 + (dapl_now_ns() - t0)) / 8;
		e->calling--;
		pthread_cond_broadcast(&e->idle);
	}
	while (!e->stopping && engine_run_timer(e, dapl_now_ns()))
		;
	while (!e->stopping && engine_run_deferred(e))
		;
	if (!e->stopping && c->progress == DAPL_PROGRESS_POLL) {
		uint32_t us = e->poll_us;

		/* a blocking consumer's hurry counts as work: the next
		 * sleep is the shortest */
		if (__atomic_exchange_n(&e->hurry, 0, __ATOMIC_ACQ_REL))
			work = 1;
		if (work)
			us = c->poll_min_us;
		else if (us < c->poll_max_us)
			us = us * 2 > c->poll_max_us ? c->poll_max_us
						     : us * 2 + 1;
		if (__atomic_load_n(&e->blocked, __ATOMIC_ACQUIRE)) {
			uint64_t cap = c->poll_wait_us,
				 duty = e->round_ns * ENGINE_WAIT_DUTY / 1000;

			if (cap < duty)
				cap = duty < c->poll_max_us ? duty
							    : c->poll_max_us;
			if (us > cap)
				us = (uint32_t)cap;
		}
		e->poll_us = us;
	}
}
