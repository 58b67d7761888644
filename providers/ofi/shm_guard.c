/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm: a peer that died holding a lock of libfabric's.
 *
 * libfabric 1.17's shm guards each endpoint's region (the 16 MB file
 * /dev/shm/<name> both processes map) with a process-shared spinlock in
 * the region's header: a sender takes the target region's lock to put a
 * command in its queue, a process takes its own region's lock to read its
 * queue (fi_cq_read's progress) and to post a receive.  A process killed
 * (SIGKILL) inside one of those sections leaves the lock held for ever,
 * and the survivor's threads spin in pthread_spin_lock without end, in
 * fi_writemsg or fi_cq_read, with our EP's or CQ's lock held: the engine
 * then waits for that lock (or is the one spinning), no keepalive fires
 * and the whole IA is frozen.  Seen in about 1 of 20 SIGKILLs of a
 * streaming peer (gdb: the survivor in fi_writemsg on the dead server's
 * region, or in fi_cq_read on its own region while the client was
 * putting a command there); most often the survivor was already
 * waiting for the lock when its holder was killed, so no look before a
 * call can help: the lock has to be given back from outside.
 *
 * A data endpoint's region is known only to the two endpoints of one
 * connection (each EP's endpoint has an AV of its own, fep.c), so a held
 * lock of either region is ours or the peer's.  udapl's watchdog thread
 * (udapl/watchdog.c), which waits for no lock a stuck thread could hold,
 * calls ofi_shm_guard_rescue for each connection every 100 ms, which
 * reads both regions' lock words through mappings of our own of their
 * first pages (the header and the queues' heads).  A lock word found
 * held while the peer process is gone (ofi_smr_pid_gone: ESRCH, a zombie)
 * is watched for 200 ms; seen free once, its holder was one of our
 * threads; held all that time, it is the dead peer's (none of our threads
 * holds it so long: a section is a few hundred instructions, and even a
 * thread preempted inside one runs again sooner on a loaded host), and the
 * free value is stored into it: a thread spinning there takes it and goes
 * on.  The connection then ends, BROKEN, without a word to the dead peer
 * (progress.c, cm.c ofi_conn_peer_gone), and its endpoint closes.  What the
 * dead process left half done must not be read: an RDMA write is two
 * commands, and a survivor that read the first without the second died
 * of SIGSEGV in libfabric's progress (test/ofi/shm-dead.bats, before
 * this).  So before the lock is given back, our region's command and
 * response queues are emptied (their read counts set to their write
 * counts: nothing the dead peer sent is read, and our ops it answered end
 * flushed with the connection), or, for the peer's region, its room for
 * commands is set to 0, so that a send of ours is refused (-FI_EAGAIN,
 * held until the connection's end flushes it) before it touches the
 * region's queues or buffers.
 *
 * The header's layout is libfabric 1.17's (smr.h); the lock is a glibc
 * pthread_spinlock_t whose free value this file reads from a lock of its
 * own.  A region of another version is not guarded.
 * A peer whose pid is reused before the watchdog looks, or that lives in
 * another pid namespace (see README.md's DAPL_OFI_SHM_SWEEP), looks
 * alive: its lock stays held.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ofi.h"
#include "smr.h"

/* how long a lock must be seen held, its peer gone, to be the peer's */
#define GUARD_WATCH_NS 200000000ll

/* What a free pthread spinlock holds (1 in glibc's x86-64 assembly, 0 in
 * its generic C). */
static int spin_free_value(void)
{
	static int value = -1;
	pthread_spinlock_t l;

	if (__atomic_load_n(&value, __ATOMIC_RELAXED) < 0) {
		pthread_spin_init(&l, PTHREAD_PROCESS_SHARED);
		__atomic_store_n(&value, *(const volatile int *)&l,
				 __ATOMIC_RELAXED);
		pthread_spin_destroy(&l);
	}
	return value;
}

/* A command or response queue (libfabric's struct ofi_cirque): a power
 * of two entries, rcnt advanced by the region's owner, wcnt by senders,
 * both under the region's lock. */
struct smr_cirque {
	uint64_t size, size_mask, rcnt, wcnt;
};

/* The start of the region an shm address names ("fi_shm://NAME", or an
 * alias with leading slashes: addr.c), through its two queues' heads, in
 * *map_len bytes, and those heads' offsets, as checked (q); NULL if it
 * cannot be mapped or is not a 1.17 region. */
static void *map_header(const uint8_t *addr, size_t len, size_t *map_len,
			uint64_t q[2])
{
	char name[OFI_ADDR_MAX + 2];
	size_t page = (size_t)getpagesize(), span;
	const char *p;
	struct stat st;
	void *map;
	int fd, i;

	if (!len || len > OFI_ADDR_MAX)
		return NULL;
	memcpy(name, addr, len);
	name[len] = '\0';
	p = strstr(name, "://");
	p = p ? p + 3 : name;
	while (*p == '/')
		p++;
	if (!*p || strchr(p, '/'))
		return NULL;
	name[0] = '/';
	memmove(name + 1, p, strlen(p) + 1);
	fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	map = MAP_FAILED;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < page)
		goto out;
	map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	memcpy(q, (char *)map + SMR_HDR_QUEUES, 2 * sizeof(*q));
	span = page;
	for (i = 0; i < 2; i++) {
		if (q[i] % 8 || q[i] > (uint64_t)st.st_size - 32)
			goto bad;
		if (q[i] + 32 > span)
			span = (q[i] + 32 + page - 1) / page * page;
	}
	if (*(const volatile uint8_t *)map != SMR_HDR_VERSION)
		goto bad;
	munmap(map, page);
	map = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map != MAP_FAILED)
		*map_len = span;
	goto out;
bad:
	munmap(map, page);
	map = MAP_FAILED;
out:
	close(fd);
	return map == MAP_FAILED ? NULL : map;
}

static volatile int *lock_word(void *map)
{
	return (volatile int *)((char *)map + SMR_HDR_LOCK);
}

static pid_t owner_pid(void *map)
{
	return *(const volatile int *)((char *)map + SMR_HDR_PID);
}

static int queue_ok(const struct smr_cirque *q)
{
	return q->size && !(q->size & (q->size - 1)) &&
	       q->size_mask == q->size - 1 && q->wcnt - q->rcnt <= q->size;
}

int ofi_shm_guard_init(struct ofi_shm_guard *g, const uint8_t *own,
		       size_t own_len, const uint8_t *peer, size_t peer_len)
{
	uint64_t q[2], peer_q[2];

	memset(g, 0, sizeof(*g));
	g->map[0] = map_header(own, own_len, &g->map_len[0], q);
	g->map[1] = g->map[0] ? map_header(peer, peer_len, &g->map_len[1],
					   peer_q)
			      : NULL;
	if (!g->map[1] || owner_pid(g->map[0]) != getpid() ||
	    owner_pid(g->map[1]) <= 0) {
		ofi_shm_guard_fini(g);
		return -1;
	}
	/* where map_header found them in range: the header is shared,
	 * and is not read for them again */
	g->queue[0] = (struct smr_cirque *)((char *)g->map[0] + q[0]);
	g->queue[1] = (struct smr_cirque *)((char *)g->map[0] + q[1]);
	g->lock[0] = lock_word(g->map[0]);
	g->lock[1] = lock_word(g->map[1]);
	g->peer_pid = owner_pid(g->map[1]);
	g->free_value = spin_free_value();
	return 0;
}

int ofi_shm_guard_cma(const struct ofi_shm_guard *g)
{
	return *(const volatile uint8_t *)((const char *)g->map[0] +
					   SMR_HDR_CMA_PEER) == SMR_CMA_ON;
}

void ofi_shm_guard_fini(struct ofi_shm_guard *g)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (g->map[i])
			munmap(g->map[i], g->map_len[i]);
		g->map[i] = NULL;
		g->lock[i] = NULL;
	}
}

/* lock held without a moment free for GUARD_WATCH_NS */
static int held_throughout(const volatile int *lock, int free_value)
{
	struct timespec t0, t;
	unsigned n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (__atomic_load_n(lock, __ATOMIC_ACQUIRE) == free_value)
			return 0;
		if (++n % 1024)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000ll +
			(t.tv_nsec - t0.tv_nsec) >=
		    GUARD_WATCH_NS)
			return 1;
	}
}

int ofi_shm_guard_rescue(struct ofi_shm_guard *g)
{
	int i, released = 0, gone = -1;

	for (i = 0; i < 2; i++) {
		if (__atomic_load_n(g->lock[i], __ATOMIC_ACQUIRE) ==
		    g->free_value)
			continue;
		if (gone < 0)
			gone = ofi_smr_pid_gone(g->peer_pid);
		if (!gone || !held_throughout(g->lock[i], g->free_value))
			continue;
		if (!i) {
			/* our region: what the dead peer queued is dropped
			 * (its last command may be half of a pair, whose
			 * reading crashed us), and so are its answers
			 * (our ops to it end flushed with the connection) */
			struct smr_cirque *cmd = g->queue[0];
			struct smr_cirque *resp = g->queue[1];

			if (!queue_ok(cmd) || !queue_ok(resp)) {
				if (!g->gave_up++)
					dapl_dbg(DAPL_DBG_ERR,
						 "ofi: shm: peer process %d "
						 "died holding our region's "
						 "lock; its queues look "
						 "wrong: left held",
						 (int)g->peer_pid);
				continue;
			}
			cmd->rcnt = cmd->wcnt;
			resp->rcnt = resp->wcnt;
		} else {
			/* its region: no room for any command, so that no
			 * send of ours touches what it left half done */
			*(volatile uint64_t *)((char *)g->map[1] +
					       SMR_HDR_CMD_CNT) = 0;
		}
		__atomic_store_n(g->lock[i], g->free_value, __ATOMIC_RELEASE);
		dapl_dbg(DAPL_DBG_ERR | DAPL_DBG_WARN,
			 "ofi: shm: peer process %d died holding the lock of "
			 "%s region of a connection: released, the "
			 "connection is broken",
			 (int)g->peer_pid, i ? "its" : "our");
		released = 1;
	}
	return released;
}
