/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udapl/progress_int.h: the progress engine's insides, shared by the
 * three files that make it up and included by no other: progress.c (what
 * a transport asks of the engine, and the thread's rounds),
 * progress_thread.c (the thread's loop, the engine's life cycle and the
 * pool of parked threads) and upcall.c (the upcall brackets and the
 * quiesce, which drops an EP's deferred event from the engine's list).
 */
#ifndef DAT_UDAPL_PROGRESS_INT_H
#define DAT_UDAPL_PROGRESS_INT_H

#include <time.h>

#include "udapl.h"

enum {
	ENGINE_MAX_WATCH = 8,
	/* Calls of one fd's callback per round, so that a flood of events
	 * cannot starve the timers. */
	ENGINE_FD_BURST = 64,
	/* POLL transports: bounds of the sleep between rounds, when the
	 * capability record leaves them 0 */
	ENGINE_POLL_MIN_US = 10,
	ENGINE_POLL_MAX_US = 10000,
	/* While a consumer blocks on a POLL transport, the engine's sleep is
	 * at least this many times what its rounds of the transport take
	 * (so that it spends at most about 1 % of a core on them), even
	 * where caps.poll_wait_us asks for less: a round costs 13-15 us
	 * natively over libfabric and several times that under emulation. */
	ENGINE_WAIT_DUTY = 100,
	/* The longest ppoll, so a lost kick costs at most this. */
	ENGINE_MAX_SLEEP_MS = 60000,
};

struct engine_watch {
	int fd;
	int (*fn)(void *arg);
	void *arg;
};

struct dapl_engine {
	struct dapl_ia *ia;
	pthread_mutex_t lock;
	pthread_cond_t idle;		/* a callback or a timer returned */
	int wake_fd;			/* eventfd: kick */
	pthread_t thread;
	int running;			/* the thread was started (atomic) */
	int stopping;
	int self_stop;			/* stopped from its own thread */
	int ended;			/* the thread left without a stop */
	int calling;			/* progress hook or deferred event runs */
	int stop_waits;			/* a stop waits on idle for a call out */
	int released;			/* pool_lock: the stop is done with it */
	int left;			/* pool_lock: the thread is done with it */
	struct engine_watch watch[ENGINE_MAX_WATCH];
	int nwatch;
	int busy_fd;			/* whose callback runs, or -1 */
	struct dapl_timer *firing;	/* whose fn runs, or NULL */
	struct dapl_list timers;	/* armed dapl_timer.link */
	struct dapl_list deferred;	/* dapl_ep.defer_link */
	dapl_cm_deliver_fn deliver;	/* where they go (cm.c's, at open) */
	uint32_t poll_us;		/* the next sleep of a POLL transport */
	int hurry;			/* a consumer began to block: poll_us
					 * from its minimum (atomic) */
	int blocked;			/* consumers blocked (atomic;
					 * dapl_progress_block) */
	uint64_t round_ns;		/* what ops->progress takes (average) */
};

/* progress.c; engine_run (progress_thread.c) sets it on the thread. */
extern __thread struct dapl_engine *engine_self DAPL_HIDDEN;

/* A list link that is in a list (zeroed memory counts as not). */
static inline int linked(const struct dapl_list *l)
{
	return l->next && l->next != l;
}

/* progress.c: the thread's rounds, which engine_run (progress_thread.c)
 * drives. */
struct timespec *engine_sleep(struct dapl_engine *e, struct timespec *ts);
void engine_round(struct dapl_engine *e, const int *ready, int nready);

#endif
