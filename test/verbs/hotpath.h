/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hotpath.h - what hotpath-dat and hotpath-verbs share: the loop's
 * boundaries and the allocation counter.
 *
 * The loop is bracketed by two marker system calls that do nothing,
 * access("/hotpath/begin") and access("/hotpath/end"): hotpath.bats runs
 * each program under strace -f and counts the system calls between them,
 * in every thread.  Allocations are counted by the program itself: it
 * defines malloc, calloc, realloc and the aligned allocators, which every
 * library in the process then calls (the executable comes first in symbol
 * lookup), and forwards them to glibc's own entry points; only calls made
 * while the loop runs are counted, from any thread.
 *
 * Header-only (static functions): each program includes it once.
 */
#ifndef HOTPATH_H
#define HOTPATH_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

static int hp_counting;			/* atomic: inside the loop */
static unsigned long hp_allocs;		/* atomic */

static inline void hp_count(void)
{
	if (__atomic_load_n(&hp_counting, __ATOMIC_RELAXED))
		__atomic_add_fetch(&hp_allocs, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
	hp_count();
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	hp_count();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	hp_count();
	return __libc_realloc(p, size);
}

void free(void *p)
{
	__libc_free(p);
}

void *memalign(size_t align, size_t size)
{
	hp_count();
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	hp_count();
	return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	hp_count();
	if (align < sizeof(void *) || (align & (align - 1)))
		return 22; /* EINVAL */
	p = __libc_memalign(align, size);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

/* The loop starts: the marker, then counting (so the marker's own work,
 * if any, is not counted). */
static void hp_begin(void)
{
	if (access("/hotpath/begin", F_OK) == 0)
		fprintf(stderr, "hotpath: /hotpath/begin exists?\n");
	__atomic_store_n(&hp_allocs, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&hp_counting, 1, __ATOMIC_SEQ_CST);
}

static void hp_end(void)
{
	__atomic_store_n(&hp_counting, 0, __ATOMIC_SEQ_CST);
	if (access("/hotpath/end", F_OK) == 0)
		fprintf(stderr, "hotpath: /hotpath/end exists?\n");
}

/* "allocations N": what hotpath.bats compares. */
static void hp_report(const char *what, int n)
{
	printf("%s: %d iterations\n", what, n);
	printf("allocations %lu\n",
	       __atomic_load_n(&hp_allocs, __ATOMIC_RELAXED));
}

#endif /* HOTPATH_H */
