/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of providers/ofi/shm_guard.c and udapl/watchdog.c: a
 * lock of a shm region whose holder died is given back, and only then.
 *
 * Two regions in /dev/shm laid out as libfabric 1.17's shm lays out its
 * header (version 4, the owner's pid at byte 4, the process-shared
 * spinlock at byte 24, the room for commands at 48, the command and
 * response queues' offsets at 64 and 72, each queue's head: size, mask,
 * read count, write count): "ours", owned by this process, and "the
 * peer's", owned by a child.  A child takes a lock with
 * pthread_spin_lock through its own mapping and then dies (or stops); a
 * thread of this process then spins in pthread_spin_lock on it, as
 * libfabric's fi_cq_read did.  No libfabric call is made.
 *
 *   - a lock held by a live (stopped) process is left alone;
 *   - the same lock once its holder is dead and reaped: released, the
 *     spinning thread goes on, our queues are emptied (read count = write
 *     count) or the peer's room for commands set to 0;
 *   - a dead holder that is a zombie counts as dead;
 *   - a region of another header version is not guarded;
 *   - the watchdog calls what is registered again and again; its thread
 *     is gone once nothing is registered.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../providers/ofi/ofi.h"
#include "tap.h"

enum { REGION = 1 << 20, CMDQ = 128, RESPQ = 0x40000 + 160 };

static char own_name[64], peer_name[64];

struct cirque {
	uint64_t size, mask, rcnt, wcnt;
};

/* a region file /NAME as libfabric 1.17 writes one, owned by pid */
static void *region(const char *name, pid_t pid, int version)
{
	uint64_t q[2] = {CMDQ, RESPQ}, cmd_cnt = 1024;
	struct cirque c = {1024, 1023, 5, 7};
	void *m;
	int fd = shm_open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, REGION))
		abort();
	m = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		abort();
	*(uint8_t *)m = (uint8_t)version;
	memcpy((char *)m + 4, &pid, sizeof(pid));
	pthread_spin_init((pthread_spinlock_t *)((char *)m + 24),
			  PTHREAD_PROCESS_SHARED);
	memcpy((char *)m + 48, &cmd_cnt, sizeof(cmd_cnt));
	memcpy((char *)m + 64, q, sizeof(q));
	memcpy((char *)m + CMDQ, &c, sizeof(c));
	memcpy((char *)m + RESPQ, &c, sizeof(c));
	return m;
}

static pthread_spinlock_t *lock_of(void *m)
{
	return (pthread_spinlock_t *)((char *)m + 24);
}

/* a child that takes the lock of m, says so and then dies (or waits to
 * be killed, stop: stops itself) */
static pid_t holder(void *m, int stay)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		pthread_spin_lock(lock_of(m));
		(void)!write(p[1], "x", 1);
		if (stay)
			for (;;)
				pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		abort();
	close(p[0]);
	return pid;
}

static void *spinner(void *arg)
{
	pthread_spin_lock(lock_of(arg));
	pthread_spin_unlock(lock_of(arg));
	return NULL;
}

/* the guard of ours <-> the peer's whose peer pid is set to pid */
static int guard(struct ofi_shm_guard *g, void *peer_map, pid_t pid)
{
	memcpy((char *)peer_map + 4, &pid, sizeof(pid));
	return ofi_shm_guard_init(g, (const uint8_t *)own_name,
				  strlen(own_name), (const uint8_t *)peer_name,
				  strlen(peer_name));
}

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

static int calls;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void count(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	calls++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

int main(void)
{
	struct ofi_shm_guard g;
	struct cirque *cq, *rq;
	void *own, *peer;
	pthread_t t;
	pid_t pid;
	int before, rc;

	snprintf(own_name, sizeof(own_name), "fi_shm:///%d:0:91",
		 (int)getpid());
	snprintf(peer_name, sizeof(peer_name), "fi_shm://%d:0:92",
		 (int)getpid());
	own = region(own_name + 9, getpid(), 4);
	peer = region(peer_name + 9, getpid(), 4);
	cq = (struct cirque *)((char *)own + CMDQ);
	rq = (struct cirque *)((char *)own + RESPQ);

	/* our region's lock, held by a live process */
	pid = holder(own, 1);
	tap_ok(!guard(&g, peer, pid), "a 1.17 region pair is guarded");
	kill(pid, SIGSTOP);
	tap_ok(!ofi_shm_guard_rescue(&g),
	       "our lock held by a live (stopped) peer: left alone");
	tap_ok(*(volatile int *)lock_of(own) != g.free_value,
	       "  and still held");
	pthread_create(&t, NULL, spinner, own);
	/* dead, not yet reaped: a zombie */
	kill(pid, SIGKILL);
	waitid(P_PID, (id_t)pid, NULL, WEXITED | WNOWAIT);
	tap_ok(ofi_shm_guard_rescue(&g),
	       "our lock, its holder a zombie: released");
	tap_ok(!pthread_join(t, NULL), "  the thread spinning on it went on");
	tap_ok(cq->rcnt == cq->wcnt && rq->rcnt == rq->wcnt,
	       "  our command and response queues emptied");
	waitpid(pid, NULL, 0);
	tap_ok(!ofi_shm_guard_rescue(&g), "a free lock: nothing to do");
	ofi_shm_guard_fini(&g);

	/* the peer's region's lock, its holder dead and reaped */
	pid = holder(peer, 0);
	waitpid(pid, NULL, 0);
	tap_ok(!guard(&g, peer, pid), "guarded, the peer gone");
	pthread_create(&t, NULL, spinner, peer);
	tap_ok(ofi_shm_guard_rescue(&g), "the peer's lock, its holder dead: "
					 "released");
	tap_ok(!pthread_join(t, NULL), "  the thread spinning on it went on");
	tap_ok(*(volatile uint64_t *)((char *)peer + 48) == 0,
	       "  no room for commands in the peer's region");
	ofi_shm_guard_fini(&g);

	/* another header version */
	*(uint8_t *)peer = 5;
	tap_ok(guard(&g, peer, getpid()) == -1,
	       "a region of another version: not guarded");
	*(uint8_t *)peer = 4;

	/* the watchdog */
	before = threads();
	{
		struct dapl_watchdog *w = dapl_watchdog_add(count, NULL);

		tap_ok(w != NULL, "watchdog: registered");
		tap_ok(threads() == before + 1, "  its thread runs");
		pthread_mutex_lock(&mu);
		rc = 0;
		while (calls < 3 && !rc) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 30;
			rc = pthread_cond_timedwait(&cv, &mu, &ts);
		}
		pthread_mutex_unlock(&mu);
		tap_ok(calls >= 3, "  called again and again");
		dapl_watchdog_remove(w);
		/* pthread_join returns once the thread cleared its tid; the
		 * kernel drops it from /proc/self/task as its exit ends,
		 * a moment later on a busy machine (seen once in make
		 * check-host): up to 5 s for that, not a timing */
		for (rc = 0; threads() != before && rc < 5000; rc++)
			usleep(1000);
		tap_ok(threads() == before,
		       "  its thread gone once nothing is registered");
	}
	shm_unlink(own_name + 9);
	shm_unlink(peer_name + 9);
	return tap_done();
}
