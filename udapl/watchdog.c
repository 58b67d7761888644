/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The watchdog: one thread of the process that calls what providers
 * registered every DAPL_WATCHDOG_MS, for what no other thread can do
 * while one is stuck inside a transport call.  providers/ofi's use: a
 * thread spinning for ever in libfabric's shm on a lock a dead peer
 * process left held, with the CQ's or EP's lock held, so that the
 * progress engine waits behind it (or is the one spinning): only a
 * thread that waits for none of those locks can give the lock back
 * (providers/ofi/shm_guard.c).
 *
 * The thread exists while anything is registered: the first add starts
 * it, the last remove stops and joins it, so that an idle process has
 * none and a closed IA leaves nothing behind.  A callback runs under the
 * watchdog's lock, which dapl_watchdog_remove takes too: once that
 * returns, the callback runs no more.  So a callback must not wait for
 * anything a caller of remove may hold.  A forked child starts with no
 * thread and no registrations (the parent's IAs are not the child's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "udapl.h"

enum { DAPL_WATCHDOG_MS = 100 };

struct dapl_watchdog {
	void (*fn)(void *);
	void *arg;
	struct dapl_list link;
};

/* one per started thread: the thread leaves once told */
struct watchdog_run {
	int stop;
};

static void watchdog_forget(void);

static struct dapl_module_lock wd_lock =
    DAPL_MODULE_LOCK_INITIALIZER_FORGET(watchdog_forget);
static struct dapl_list wd_list = {&wd_list, &wd_list};
static struct watchdog_run *wd_run;	/* the running thread's, or NULL */
static pthread_t wd_thread;

/* A forked child: the parent's registrations and thread are not its. */
static void watchdog_forget(void)
{
	dapl_list_init(&wd_list);
	wd_run = NULL;
}

static void *watchdog_main(void *arg)
{
	struct watchdog_run *run = arg;
	struct dapl_list *pos;
	struct timespec t;

	dapl_module_lock(&wd_lock);
	while (!run->stop) {
		for (pos = wd_list.next; pos != &wd_list; pos = pos->next) {
			struct dapl_watchdog *w =
			    dapl_container_of(pos, struct dapl_watchdog, link);

			w->fn(w->arg);
		}
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += DAPL_WATCHDOG_MS * 1000000l;
		if (t.tv_nsec >= 1000000000l) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000l;
		}
		while (!run->stop &&
		       pthread_cond_timedwait(&wd_lock.cond, &wd_lock.mutex,
					      &t) != ETIMEDOUT)
			;
	}
	dapl_module_unlock(&wd_lock);
	free(run);
	return NULL;
}

struct dapl_watchdog *dapl_watchdog_add(void (*fn)(void *), void *arg)
{
	struct dapl_watchdog *w = calloc(1, sizeof(*w));
	struct watchdog_run *run;
	pthread_attr_t attr;
	sigset_t all;
	int rc;

	if (!w)
		return NULL;
	w->fn = fn;
	w->arg = arg;
	dapl_module_lock(&wd_lock);
	if (!wd_run) {
		run = calloc(1, sizeof(*run));
		/* signals are the consumer's, as for the engine's threads */
		sigfillset(&all);
		rc = run ? pthread_attr_init(&attr) : -1;
		if (!rc) {
			rc = pthread_attr_setsigmask_np(&attr, &all);
			if (!rc)
				rc = pthread_create(&wd_thread, &attr,
						    watchdog_main, run);
			pthread_attr_destroy(&attr);
		}
		if (rc) {
			dapl_module_unlock(&wd_lock);
			dapl_dbg(DAPL_DBG_ERR, "watchdog: no thread");
			free(run);
			free(w);
			return NULL;
		}
		wd_run = run;
	}
	dapl_list_add_tail(&wd_list, &w->link);
	dapl_module_unlock(&wd_lock);
	return w;
}

void dapl_watchdog_remove(struct dapl_watchdog *w)
{
	struct watchdog_run *run = NULL;
	pthread_t thread;

	if (!w)
		return;
	dapl_module_lock(&wd_lock);
	dapl_list_del(&w->link);
	if (dapl_list_empty(&wd_list) && wd_run) {
		run = wd_run;
		run->stop = 1;
		thread = wd_thread;
		wd_run = NULL;
		pthread_cond_broadcast(&wd_lock.cond);
	}
	dapl_module_unlock(&wd_lock);
	if (run)
		pthread_join(thread, NULL);
	free(w);
}
