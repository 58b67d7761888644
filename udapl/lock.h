/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udapl/lock.h: the lock of an EP (ep->lock) and of an EVD (evd->lock),
 * and the condition variable that goes with evd->lock.  A provider never
 * takes those two locks, but may use the same kind of lock for its own
 * sections on the post and poll paths (transport.h includes this file;
 * providers/ofi: its endpoints' and CQs' locks).
 *
 * Why not a pthread mutex: these two locks are taken on every post and
 * every dequeue, and glibc's pthread_mutex_lock + unlock cost 57
 * instructions per pair there (type dispatch, owner and count
 * bookkeeping, elision checks), more than a third of the whole post.
 * This lock is one word (Drepper, "Futexes Are Tricky", mutex 3):
 * 0 free, 1 held, 2 held and somebody may sleep on it.  Taking a free
 * lock is one compare-and-swap inline, giving it back one exchange; only
 * a contended lock calls out of line (a short spin, then futex(2)), and
 * only an unlock that finds 2 wakes a sleeper.  So an uncontended lock
 * makes no system call and no call at all.
 *
 * It is a plain mutex for everybody else that takes these locks (cm.c's
 * and sp.c's state changes, rmr.c's bind post, evd.c's enqueue from the
 * progress engine, evd_dequeue.c's dat_evd_wait, cno.c): not recursive,
 * no owner checks, like the PTHREAD_MUTEX_DEFAULT mutexes it replaces.
 * dapl_cond is the condition variable evd->cond was (only EVD teardown
 * waits on it): a sequence number and futex(2), with no lost wake-up
 * because the number is read and bumped under the lock.
 *
 * Fork: an object's own lock needs no adoption (transport.h's struct
 * dapl_module_lock is for the module-wide locks): a forked child does not
 * use the parent's EPs and EVDs.
 *
 * Race detectors: helgrind and DRD do not see a futex lock.  The helgrind
 * build of the provider (-DDAPL_HELGRIND, test/verbs/verbs.mk) tells them
 * with the reader-writer lock annotations (always as writer) and a
 * happens-before arc for the condition variable; the lock word is only
 * touched by __atomic builtins, which they do not model.
 */
#ifndef DAT_UDAPL_LOCK_H
#define DAT_UDAPL_LOCK_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#ifdef DAPL_HELGRIND
#include <valgrind/helgrind.h>
#define DAPL_LOCK_CREATED(l)                                                   \
	do {                                                                   \
		ANNOTATE_BENIGN_RACE_SIZED(&(l)->v, sizeof((l)->v),            \
					   "futex word: __atomic only");       \
		ANNOTATE_RWLOCK_CREATE(l);                                     \
	} while (0)
#define DAPL_LOCK_DESTROYED(l) ANNOTATE_RWLOCK_DESTROY(l)
#define DAPL_LOCK_ACQUIRED(l) ANNOTATE_RWLOCK_ACQUIRED(l, 1)
#define DAPL_LOCK_RELEASED(l) ANNOTATE_RWLOCK_RELEASED(l, 1)
#define DAPL_COND_CREATED(c)                                                   \
	ANNOTATE_BENIGN_RACE_SIZED(&(c)->seq, sizeof((c)->seq),                \
				   "futex word: __atomic only")
#define DAPL_COND_SIGNALLED(c) ANNOTATE_HAPPENS_BEFORE(c)
#define DAPL_COND_WOKEN(c) ANNOTATE_HAPPENS_AFTER(c)
#else
#define DAPL_LOCK_CREATED(l) ((void)(l))
#define DAPL_LOCK_DESTROYED(l) ((void)(l))
#define DAPL_LOCK_ACQUIRED(l) ((void)(l))
#define DAPL_LOCK_RELEASED(l) ((void)(l))
#define DAPL_COND_CREATED(c) ((void)(c))
#define DAPL_COND_SIGNALLED(c) ((void)(c))
#define DAPL_COND_WOKEN(c) ((void)(c))
#endif

struct dapl_lock {
	uint32_t v;	/* 0 free, 1 held, 2 held, sleepers possible */
};

struct dapl_cond {
	uint32_t seq;	/* bumped (under the lock) by every broadcast */
};

static inline long dapl_futex(uint32_t *word, int op, uint32_t val)
{
	/* The locks live in process-private memory: the private futexes
	 * skip the kernel's shared-mapping lookup. */
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		       NULL, 0);
}

static inline void dapl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline void dapl_lock_init(struct dapl_lock *l)
{
	l->v = 0;
	DAPL_LOCK_CREATED(l);
}

static inline void dapl_lock_destroy(struct dapl_lock *l)
{
	DAPL_LOCK_DESTROYED(l);
}

/*
 * The contended lock, out of line: a short spin (the sections these
 * locks guard are a few hundred instructions, so the holder is usually
 * about to leave), then sleep with the word at 2 so that the unlock
 * knows to wake somebody.
 */
static __attribute__((noinline, cold, unused)) void
dapl_lock_slow(struct dapl_lock *l)
{
	uint32_t c;
	int i;

	for (i = 0; i < 64; i++) {
		dapl_cpu_relax();
		c = __atomic_load_n(&l->v, __ATOMIC_RELAXED);
		if (c == 2)
			break;
		if (c == 0 && __atomic_compare_exchange_n(&l->v, &c, 1, 0,
							  __ATOMIC_ACQUIRE,
							  __ATOMIC_RELAXED))
			return;
	}
	/* Whoever takes it from here on takes it as 2: a sleeper may be
	 * left behind it. */
	while (__atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE) != 0)
		dapl_futex(&l->v, FUTEX_WAIT, 2);
}

static __attribute__((noinline, cold, unused)) void
dapl_unlock_wake(struct dapl_lock *l)
{
	dapl_futex(&l->v, FUTEX_WAKE, 1);
}

static inline __attribute__((always_inline)) void
dapl_lock(struct dapl_lock *l)
{
	uint32_t c = 0;

	if (dapl_unlikely(!__atomic_compare_exchange_n(
		&l->v, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		dapl_lock_slow(l);
	DAPL_LOCK_ACQUIRED(l);
}

/* 0 with the lock taken, EBUSY if it is held (pthread_mutex_trylock). */
static inline int dapl_trylock(struct dapl_lock *l)
{
	uint32_t c = 0;

	if (!__atomic_compare_exchange_n(&l->v, &c, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return EBUSY;
	DAPL_LOCK_ACQUIRED(l);
	return 0;
}

static inline __attribute__((always_inline)) void
dapl_unlock(struct dapl_lock *l)
{
	DAPL_LOCK_RELEASED(l);
	if (dapl_unlikely(__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) ==
			  2))
		dapl_unlock_wake(l);
}

static inline void dapl_cond_init(struct dapl_cond *c)
{
	c->seq = 0;
	DAPL_COND_CREATED(c);
}

/* Under l (the lock the waiter holds around its condition). */
static inline void dapl_cond_broadcast(struct dapl_cond *c)
{
	DAPL_COND_SIGNALLED(c);
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_RELEASE);
	dapl_futex(&c->seq, FUTEX_WAKE, INT_MAX);
}

/*
 * Called with l held; returns with it held, after a broadcast or
 * spuriously (the caller loops on its condition, as with
 * pthread_cond_wait).  The number is read under l and a broadcast bumps
 * it under l, so a broadcast after the unlock makes FUTEX_WAIT return
 * at once instead of being lost.
 */
static inline void dapl_cond_wait(struct dapl_cond *c, struct dapl_lock *l)
{
	uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);

	dapl_unlock(l);
	dapl_futex(&c->seq, FUTEX_WAIT, seq);
	dapl_lock(l);
	DAPL_COND_WOKEN(c);
}

#endif
