/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine's thread: its loop (engine_run, which runs the
 * rounds of progress.c until the engine stops), the engine's life cycle
 * (dapl_progress_create, _start and _stop) and the pool of threads parked
 * between engines.  Apart from the rounds: here is how a thread comes to
 * an engine and how the two part.
 *
 * Stopping does not wait for the thread (dat_ia_close would otherwise
 * pay two wake-ups of blocked threads, the size of the whole raw device
 * open + close on the emulated test bed): dapl_progress_stop marks the
 * engine stopping under its lock, waits only for a call out that is
 * running (it uses the IA), and kicks the thread; the last of the two to
 * be done with the engine frees it (engine_leave); from then on the
 * thread touches nothing but the engine and the pool below.
 *
 * The threads outlive their engines (issue 21: an IA's open + close
 * should cost what the raw device open + close costs, and a thread's
 * creation, first round and exit were what was left on top): a thread
 * whose engine stopped parks, and the next dapl_progress_start of this
 * library hands it its engine instead of creating one.  Each engine
 * still has a thread of its own while it runs (IAs open at once need
 * one each: a thread sleeps in one engine's ppoll); only idle threads
 * are shared.  Why not start the thread lazily, at the first object
 * that needs progress: from dat_ia_open on, an IA already depends on it
 * (verbs watches the device's async fd at ia_open, rdma_cm its event
 * channel, a POLL transport's progress hook drives its completions and
 * connections), so the thread would be needed at open anyway.
 * A parked thread waits at most park_ms (POOL_PARK_MS) and at most
 * POOL_PARK_MAX of them wait, then they end.  Threads that end are
 * joined later (pool.retired): by the next start or stop of this
 * process, and at the latest by the destructor when the library is
 * unloaded or the process exits, which also ends and joins the parked
 * ones, so no thread runs code of an unloaded library.  A forked child
 * forgets the pool (the parent's threads do not exist in it: the pool's
 * lock is a module lock, which forgets in a new process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "progress_int.h"

static void unlink_all(struct dapl_list *head)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe (pos, tmp, head)
		dapl_list_del(pos);
}

/* ---- the thread ------------------------------------------------------------- */

static void engine_free(struct dapl_engine *e)
{
	unlink_all(&e->timers);
	unlink_all(&e->deferred);
	close(e->wake_fd);
	pthread_cond_destroy(&e->idle);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

static void engine_leave(struct dapl_engine *e);

/* Runs engine e until it is stopped (then frees it: 1) or its ppoll
 * fails (0: the stop to come frees it and joins the thread). */
static int engine_run(struct dapl_engine *e)
{
	struct pollfd pfd[1 + ENGINE_MAX_WATCH];
	int ready[ENGINE_MAX_WATCH];
	struct timespec ts, *tmo;
	uint64_t v;
	int i, n, nready, rc;

	engine_self = e;
	pthread_mutex_lock(&e->lock);
	while (!e->stopping) {
		pfd[0].fd = e->wake_fd;
		pfd[0].events = POLLIN;
		for (i = 0; i < e->nwatch; i++) {
			pfd[1 + i].fd = e->watch[i].fd;
			pfd[1 + i].events = POLLIN;
			pfd[1 + i].revents = 0;
		}
		n = 1 + e->nwatch;
		tmo = engine_sleep(e, &ts);
		pthread_mutex_unlock(&e->lock);
		rc = ppoll(pfd, (nfds_t)n, tmo, NULL);
		if (rc < 0 && errno != EINTR) {
			dapl_dbg(DAPL_DBG_ERR, "progress: ppoll: %s",
				 strerror(errno));
			pthread_mutex_lock(&e->lock);
			break;
		}
		if (rc > 0 && (pfd[0].revents & POLLIN) &&
		    read(e->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			dapl_dbg(DAPL_DBG_ERR, "progress: wake fd: %s",
				 strerror(errno));
		for (i = 1, nready = 0; rc > 0 && i < n; i++)
			if (pfd[i].revents)
				ready[nready++] = pfd[i].fd;
		pthread_mutex_lock(&e->lock);
		/* stopped while it slept: the IA may be gone already */
		if (!e->stopping)
			engine_round(e, ready, nready);
	}
	engine_self = NULL;
	if (e->stopping) {
		/* stopped (by dapl_progress_stop, or from one of its own
		 * callbacks): the engine is the thread's to free, once a stop
		 * that waited for a call out has left it */
		while (e->stop_waits)
			pthread_cond_wait(&e->idle, &e->lock);
		pthread_mutex_unlock(&e->lock);
		engine_leave(e);
		return 1;
	}
	/* ppoll failed: the stop to come frees the engine */
	e->ended = 1;
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/* ---- the pool: threads parked between engines, threads to join ------------- */

enum {
	/* Parked threads at most: a process that closes more IAs at once
	 * creates threads again when it reopens them beyond this many. */
	POOL_PARK_MAX = 16,
	/* How long a thread stays parked: it costs a stack mapping and
	 * a futex wait, and holds a provider library's code in use, so not
	 * forever; open + close cycles are far closer together than this. */
	POOL_PARK_MS = 2000,
	/* Ended threads not joined yet; beyond, the one that ends joins
	 * the oldest first. */
	POOL_RETIRED_MAX = 64,
};

/* A thread of the pool; on its own stack, and in pool.idle while parked.
 * Whoever takes it out of pool.idle (a start, the destructor, or the
 * thread itself when its time is up) decides what it does next. */
struct worker {
	pthread_t thread;
	pthread_cond_t cond;		/* engine or quit was set */
	struct dapl_engine *engine;	/* handed over by a start */
	int quit;			/* end: the destructor joins it */
	struct worker *next;		/* in pool.idle */
};

static void pool_forget(void);
static struct dapl_module_lock pool_lock =
    DAPL_MODULE_LOCK_INITIALIZER_FORGET(pool_forget);
static struct {
	struct worker *idle;		/* parked, the latest first */
	int nidle;
	/* threads whose engine was stopped and that are neither parked
	 * nor in retired yet: the destructor waits for them */
	int leaving;
	int closed;			/* unloading or exiting: no parking */
	pthread_t retired[POOL_RETIRED_MAX];
	int nretired;
	struct dapl_progress_stats stats;
} pool;
static unsigned park_ms = POOL_PARK_MS;
/* This thread's own stop counts in pool.leaving (a callback of its engine
 * closed the IA): the destructor, if it runs here, does not wait for it. */
static __thread int self_leaving;

/* In a forked child: the parent's threads do not exist here (their
 * stacks' copies are left alone). */
static void pool_forget(void)
{
	memset(&pool, 0, sizeof(pool));
}

/* A stopped engine is freed by the last of the two that use it: the
 * stop (engine_release) and its thread (engine_leave), each after its
 * last use of the engine's lock, decided under pool_lock.  Neither waits
 * for the other (for a POLL transport the thread often leaves first: it
 * wakes every few microseconds), and the free comes after a lock that the
 * other released after its last use, an order a race detector sees too
 * (helgrind counts a mutex released at the start of pthread_mutex_unlock,
 * which still writes the mutex after: a thread that freed the engine as
 * soon as it had seen the stop was reported destroying the engine's lock
 * during the stop's unlock).  The first of the two counts the thread in
 * pool.leaving, which it leaves when it parks or ends. */
static void engine_leave(struct dapl_engine *e)
{
	int last;

	dapl_module_lock(&pool_lock);
	last = e->released;
	if (!last) {
		e->left = 1;
		pool.leaving++;
	}
	dapl_module_unlock(&pool_lock);
	if (last)
		engine_free(e);
}

/* pool_lock: t, which has left or is leaving our code, to be joined;
 * may drop the lock to make room. */
static void retire_locked(pthread_t t)
{
	pthread_t oldest;

	while (pool.nretired == POOL_RETIRED_MAX) {
		/* full (many IAs closed at once): wait for the oldest,
		 * which took no lock after it was put here */
		oldest = pool.retired[0];
		pool.retired[0] = pool.retired[--pool.nretired];
		dapl_module_unlock(&pool_lock);
		pthread_join(oldest, NULL);
		dapl_module_lock(&pool_lock);
	}
	pool.retired[pool.nretired++] = t;
}

/* The thread w, its engine stopped and freed: parks until a start hands
 * it the next engine (returned), or ends (NULL). */
static struct dapl_engine *worker_park(struct worker *w)
{
	struct dapl_engine *e;
	struct timespec dl;
	struct worker **pp;
	uint64_t since, ns;

	dapl_module_lock(&pool_lock);
	self_leaving = 0;
	if (!pool.closed && pool.nidle < POOL_PARK_MAX) {
		w->engine = NULL;
		w->quit = 0;
		w->next = pool.idle;
		pool.idle = w;
		pool.nidle++;
		pool.stats.parked++;
		pool.leaving--;
		pthread_cond_broadcast(&pool_lock.cond);
		/* park_ms read on each wake-up: dapl_progress_park_ms wakes
		 * the parked threads */
		since = dapl_now_ns();
		while (!w->engine && !w->quit) {
			ns = since + (uint64_t)park_ms * 1000000;
			if (dapl_now_ns() >= ns)
				break;
			dl.tv_sec = (time_t)(ns / 1000000000ull);
			dl.tv_nsec = (long)(ns % 1000000000ull);
			pthread_cond_timedwait(&w->cond, &pool_lock.mutex, &dl);
		}
		if (w->engine || w->quit) {
			/* taken out of pool.idle by whoever set it */
			e = w->engine;
			dapl_module_unlock(&pool_lock);
			return e;
		}
		/* time is up: out of pool.idle by itself */
		for (pp = &pool.idle; *pp != w; pp = &(*pp)->next)
			;
		*pp = w->next;
		pool.nidle--;
		pool.stats.expired++;
		pool.leaving++;
	}
	retire_locked(w->thread);
	pool.leaving--;
	pthread_cond_broadcast(&pool_lock.cond);
	dapl_module_unlock(&pool_lock);
	return NULL;
}

/*
 * The engine's thread asks the scheduler for a short time slice.  Why: a
 * consumer pinned to a core (taskset, an MPI rank per core) that spins on
 * dat_evd_dequeue shares that core with its IA's engine, and the
 * kernel's EEVDF scheduler lets a running thread finish its slice (3 ms)
 * before a woken thread of the same weight runs, unless the woken one's
 * slice is shorter (PREEMPT_SHORT).  What waited for the engine then
 * waited milliseconds: a peer's key answer, a freed LMR's revocation
 * (make bench's fresh_read, a registration per 128 KiB fragment, moved
 * MB/s where raw libfabric moved GB/s).  The engine's rounds are short:
 * a slice of ENGINE_SLICE_NS lets it run when woken and costs nothing
 * else.  sched_setattr(2) with a custom slice for SCHED_OTHER
 * (sched_runtime) needs no privilege; a kernel without custom slices
 * (before Linux 6.12) ignores sched_runtime, one without sched_setattr
 * answers ENOSYS: either way the thread runs as before.  The nice value
 * is kept as it is.
 */
#define ENGINE_SLICE_NS 100000ull

struct engine_sched_attr {	/* struct sched_attr, sched_setattr(2) */
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static void engine_short_slice(void)
{
#ifdef SYS_sched_setattr
	struct engine_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	errno = 0;
	a.sched_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		return;
	a.sched_runtime = ENGINE_SLICE_NS;
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		dapl_dbg(DAPL_DBG_WARN, "progress: sched_setattr: %s",
			 strerror(errno));
#endif
}

static void *engine_thread(void *arg)
{
	struct dapl_engine *e = arg;
	pthread_condattr_t ca;
	struct worker w;

	memset(&w, 0, sizeof(w));
	w.thread = pthread_self();
	/* the park's deadline is on dapl_now_ns's clock */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cond, &ca);
	pthread_condattr_destroy(&ca);
	/* named by itself: for the calling thread glibc's
	 * pthread_setname_np is one prctl, not the opener's three calls on
	 * /proc/self/task/N/comm */
	pthread_setname_np(pthread_self(), "dapl-progress");
	engine_short_slice();
	while (e && engine_run(e))
		e = worker_park(&w);
	pthread_cond_destroy(&w.cond);
	return NULL;
}

/* pool_lock: joins the retired threads that have ended; how many. */
static int reap_try_locked(void)
{
	int i, n = 0;

	for (i = 0; i < pool.nretired;) {
		if (pthread_tryjoin_np(pool.retired[i], NULL) == 0) {
			pool.retired[i] = pool.retired[--pool.nretired];
			n++;
			continue;
		}
		i++;
	}
	return n;
}

/* Joins the retired threads that have ended (all of them, waiting, if
 * wait); returns how many were joined. */
int dapl_progress_reap(int wait)
{
	pthread_t t;
	int n;

	dapl_module_lock(&pool_lock);
	n = reap_try_locked();
	while (wait && pool.nretired) {
		/* join outside the lock: a thread takes it no more once it
		 * is here, but a start or stop may */
		t = pool.retired[--pool.nretired];
		dapl_module_unlock(&pool_lock);
		pthread_join(t, NULL);
		n++;
		dapl_module_lock(&pool_lock);
	}
	dapl_module_unlock(&pool_lock);
	return n;
}

void dapl_progress_unload(void)
{
	pthread_t quit[POOL_PARK_MAX];
	struct worker *w;
	int i, n = 0;

	dapl_module_lock(&pool_lock);
	pool.closed = 1;
	/* a stopped engine's thread on its way to park: let it get there
	 * (it only frees its engine first), then end it with the rest */
	while (pool.leaving > self_leaving)
		pthread_cond_wait(&pool_lock.cond, &pool_lock.mutex);
	while ((w = pool.idle) && n < POOL_PARK_MAX) {
		pool.idle = w->next;
		pool.nidle--;
		w->quit = 1;
		quit[n++] = w->thread;
		pthread_cond_signal(&w->cond);
	}
	dapl_module_unlock(&pool_lock);
	for (i = 0; i < n; i++)
		pthread_join(quit[i], NULL);
	dapl_progress_reap(1);
}

/* At dlclose of the provider, or at exit: no engine thread may still be
 * parked in, or on its way out through, this library's code. */
__attribute__((destructor)) static void progress_unload(void)
{
	dapl_progress_unload();
}

void dapl_progress_stats(struct dapl_progress_stats *s)
{
	dapl_module_lock(&pool_lock);
	*s = pool.stats;
	s->idle = (unsigned)pool.nidle;
	s->leaving = (unsigned)pool.leaving;
	dapl_module_unlock(&pool_lock);
}

void dapl_progress_park_ms(unsigned ms)
{
	struct worker *w;

	dapl_module_lock(&pool_lock);
	park_ms = ms ? ms : POOL_PARK_MS;
	for (w = pool.idle; w; w = w->next)
		pthread_cond_signal(&w->cond);
	dapl_module_unlock(&pool_lock);
}

/* ---- life cycle ---------------------------------------------------------------- */

int dapl_progress_create(struct dapl_ia *ia, dapl_cm_deliver_fn deliver)
{
	struct dapl_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->wake_fd < 0) {
		free(e);
		return -1;
	}
	e->ia = ia;
	e->deliver = deliver;
	e->busy_fd = -1;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->idle, NULL);
	dapl_list_init(&e->timers);
	dapl_list_init(&e->deferred);
	ia->engine = e;
	return 0;
}

int dapl_progress_start(struct dapl_ia *ia)
{
	struct dapl_engine *e = ia->engine;
	struct dapl_caps *c = &ia->caps;
	pthread_attr_t attr;
	struct worker *w;
	sigset_t all;
	int rc;

	if (c->progress == DAPL_PROGRESS_POLL) {
		if (!c->poll_max_us)
			c->poll_max_us = ENGINE_POLL_MAX_US;
		if (!c->poll_min_us)
			c->poll_min_us = ENGINE_POLL_MIN_US;
		if (c->poll_min_us > c->poll_max_us)
			c->poll_min_us = c->poll_max_us;
		if (!c->poll_wait_us || c->poll_wait_us > c->poll_max_us)
			c->poll_wait_us = c->poll_max_us;
		if (c->poll_wait_us < c->poll_min_us)
			c->poll_wait_us = c->poll_min_us;
		e->poll_us = c->poll_min_us;
	}
	/* before the thread has the engine: kicks from now on write its
	 * eventfd (before, there was nobody to wake), and
	 * dapl_progress_stop reads it */
	__atomic_store_n(&e->running, 1, __ATOMIC_RELEASE);
	dapl_module_lock(&pool_lock);
	reap_try_locked();
	if ((w = pool.idle)) {
		/* a parked thread: the latest, so the older ones time out */
		pool.idle = w->next;
		pool.nidle--;
		pool.stats.handed++;
		e->thread = w->thread;
		w->engine = e;
		pthread_cond_signal(&w->cond);
		dapl_module_unlock(&pool_lock);
		return 0;
	}
	dapl_module_unlock(&pool_lock);
	/* signals are the consumer's: the thread starts with all blocked
	 * (set by pthread_create itself, not around it by us) */
	sigfillset(&all);
	rc = pthread_attr_init(&attr);
	if (!rc) {
		rc = pthread_attr_setsigmask_np(&attr, &all);
		if (!rc)
			rc = pthread_create(&e->thread, &attr, engine_thread, e);
		pthread_attr_destroy(&attr);
	}
	if (rc) {
		__atomic_store_n(&e->running, 0, __ATOMIC_RELEASE);
		return -1;
	}
	dapl_module_lock(&pool_lock);
	pool.stats.created++;
	dapl_module_unlock(&pool_lock);
	return 0;
}

/* The stop is done with e (its lock released): see engine_leave.  kick:
 * wake the thread, unless it has left already. */
static void engine_release(struct dapl_engine *e, int kick)
{
	uint64_t one = 1;
	int last;

	dapl_module_lock(&pool_lock);
	reap_try_locked();
	last = e->left;
	if (!last) {
		e->released = 1;
		pool.leaving++;
		/* the kick after e's lock was dropped, so that the thread it
		 * wakes does not find it taken; under pool_lock, so that the
		 * thread cannot have freed the engine (its eventfd) yet */
		if (kick &&
		    write(e->wake_fd, &one, sizeof(one)) != sizeof(one))
			dapl_dbg(DAPL_DBG_ERR, "progress: cannot stop");
	}
	dapl_module_unlock(&pool_lock);
	if (last)
		engine_free(e);
}

void dapl_progress_stop(struct dapl_ia *ia)
{
	struct dapl_engine *e = ia->engine;

	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	e->stopping = 1;
	/* what is still armed or queued belongs to objects already gone */
	unlink_all(&e->timers);
	unlink_all(&e->deferred);
	ia->engine = NULL;
	if (!__atomic_load_n(&e->running, __ATOMIC_ACQUIRE) || e->ended) {
		/* no thread, or one that has left (its ppoll failed): nothing
		 * else has it */
		pthread_mutex_unlock(&e->lock);
		if (e->ended)
			pthread_join(e->thread, NULL);
		engine_free(e);
		return;
	}
	if (engine_self == e) {
		/* from a callback of the engine itself (a CNO agent closing
		 * the IA): the thread frees the engine when it returns */
		e->self_stop = 1;
		self_leaving = 1;
		pthread_mutex_unlock(&e->lock);
		engine_release(e, 0);
		return;
	}
	/* A call out that is running uses the IA: wait for it to return
	 * (the thread then sees stopping and calls nothing more). */
	e->stop_waits++;
	while (e->busy_fd != -1 || e->firing || e->calling)
		pthread_cond_wait(&e->idle, &e->lock);
	if (!--e->stop_waits)
		pthread_cond_broadcast(&e->idle);
	pthread_mutex_unlock(&e->lock);
	/* the thread, in ppoll or on its way there, is kicked by the
	 * release, and sees stopping */
	engine_release(e, 1);
}
