/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/lat.h - how make bench's latency programs time and report
 * (datbench.c on DAT, ofibench.c on raw libfabric): one clock, one loop
 * of timestamps, one RESULT line, so that a DAT row and its raw twin are
 * measured alike.  Each program defines LAT_PROG (its name, for
 * messages) before including this.
 */
#ifndef DAT_BENCH_LAT_H
#define DAT_BENCH_LAT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef LAT_PROG
#error "define LAT_PROG before including lat.h"
#endif

static inline uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * The latency loops' timestamps, taken as perftest takes its own: its
 * get_cycles() reads the x86-64 time-stamp counter, one instruction.
 * clock_gettime() is a system call wherever the vDSO cannot read the
 * clocksource: in the soft-RoCE guest (QEMU TCG) the clocksource is the
 * HPET, and one call cost 720-800 ns there (2026-11-27), which a read or
 * atomic row, timed over the whole round trip, carried in full and a
 * ping-pong row in half.  The counter's rate is measured against
 * CLOCK_MONOTONIC before the loop (lat_clock_init), so the figures stay
 * in microseconds.  DATBENCH_CLOCK=monotonic times with clock_gettime()
 * as before (to compare the two methods in one boot); elsewhere than
 * x86-64 that is the only clock.
 */
#if defined(__x86_64__)
#include <x86intrin.h>
#define LAT_HAVE_TSC 1
#else
#define LAT_HAVE_TSC 0
#endif

static int lat_use_tsc;
static double lat_ticks_per_ns = 1.0;

static inline uint64_t lat_stamp(void)
{
#if LAT_HAVE_TSC
	if (lat_use_tsc)
		return __rdtsc();
#endif
	return now_ns();
}

/* Picks the clock (at start, so that a bad value is refused before
 * anything connects). */
static inline void lat_clock_pick(void)
{
	const char *c = getenv("DATBENCH_CLOCK");

	if (c && strcmp(c, "tsc") && strcmp(c, "monotonic")) {
		fprintf(stderr, "%s: DATBENCH_CLOCK=%s: tsc or monotonic\n",
			LAT_PROG, c);
		exit(2);
	}
	lat_use_tsc = LAT_HAVE_TSC && !(c && !strcmp(c, "monotonic"));
}

/* Measures the counter's rate over ~50 ms (the loops' stamps are
 * counter ticks, converted once in lat_report). */
static inline void lat_clock_init(void)
{
#if LAT_HAVE_TSC
	if (lat_use_tsc) {
		uint64_t n0 = now_ns(), c0 = __rdtsc(), n1, c1;

		do {
			n1 = now_ns();
			c1 = __rdtsc();
		} while (n1 - n0 < 50000000u);
		if (c1 <= c0) {
			fprintf(stderr, "%s: the time-stamp counter does not advance\n",
				LAT_PROG);
			exit(1);
		}
		lat_ticks_per_ns = (double)(c1 - c0) / (double)(n1 - n0);
	}
#endif
	printf("CLOCK %s %.4f ticks/ns\n", lat_use_tsc ? "tsc" : "monotonic",
	       lat_ticks_per_ns);
	fflush(stdout);
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* DATBENCH_SAMPLES=FILE: every iteration's latency in microseconds, in
 * the order measured, one per line (to see how a run's figures are
 * spread in time, which a median and a p99 do not show). */
static inline void lat_samples_dump(const uint64_t *d, int n,
				    double per_us)
{
	const char *path = getenv("DATBENCH_SAMPLES");
	FILE *f;
	int i;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: DATBENCH_SAMPLES=%s: %s\n", LAT_PROG, path,
			strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%.3f\n", (double)d[i] / per_us);
	if (fclose(f)) {
		fprintf(stderr, "%s: DATBENCH_SAMPLES=%s: %s\n", LAT_PROG, path,
			strerror(errno));
		exit(1);
	}
}

/* perftest's way: consecutive timestamps t[0..n], halved for
 * ping-pongs; prints the RESULT line of TEST at SIZE. */
static inline void lat_report(const char *test, unsigned long size,
			      int n, uint64_t *t, int halve)
{
	uint64_t *d = calloc((size_t)n, sizeof(*d));
	/* ticks to microseconds, halved for the ping-pongs */
	double sum = 0, f = (halve ? 2000.0 : 1000.0) * lat_ticks_per_ns;
	int i;

	if (!d) {
		fprintf(stderr, "%s: out of memory\n", LAT_PROG);
		exit(1);
	}
	for (i = 0; i < n; i++) {
		d[i] = t[i + 1] - t[i];
		sum += (double)d[i];
	}
	lat_samples_dump(d, n, f);
	qsort(d, (size_t)n, sizeof(*d), cmp_u64);
	/* perftest's 99% percentile: the sample at index 0.99 * n */
	printf("RESULT %s %lu %d typ=%.2f min=%.2f max=%.2f avg=%.2f "
	       "p99=%.2f\n",
	       test, size, n, (double)d[n / 2] / f, (double)d[0] / f,
	       (double)d[n - 1] / f, sum / n / f,
	       (double)d[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1] / f);
	free(d);
}

#endif
