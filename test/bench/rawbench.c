/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawbench.c - the raw twins of datbench's scaling figures (make bench),
 * on librdmacm, libibverbs and the kernel alone, so that DAT's figure
 * can be set against what it is built on, in the same boot.
 *
 *   rawbench open -a ADDR
 *	What a DAT IA holds, opened and torn down: the device opened
 *	(ibv_get_device_list, ibv_open_device, ibv_query_device,
 *	ibv_query_port, ibv_close_device) and an rdma_cm event channel with
 *	an id bound to ADDR (rdma_create_event_channel, rdma_create_id,
 *	rdma_bind_addr, rdma_destroy_id, rdma_destroy_event_channel).  The
 *	libraries stay loaded in between, as they do for any program
 *	linked with them.  Prints "RAW open_close_first_us .." and
 *	"RAW open_close_us .." (median of 10).
 *   rawbench wake
 *	The kernel's own wake-up: a thread blocked in poll(2) on an eventfd
 *	woken by a write(2), against a thread spinning on a memory flag,
 *	taken in turn; "RAW wake_poll_us .." and "RAW wake_spin_us .."
 *	(medians of 30).  This is the floor under any blocked
 *	dat_evd_wait, whose provider also blocks in poll(2).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint64_t *d, int n)
{
	qsort(d, (size_t)n, sizeof(*d), cmp_u64);
	return (double)d[n / 2] / 1000.0;
}

/* One open + teardown of what an IA holds; returns nanoseconds. */
static uint64_t open_cycle(struct sockaddr_in *sin)
{
	struct rdma_event_channel *ch;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct rdma_cm_id *id;
	uint64_t t0 = now_ns();
	const char *name;
	int n, i;

	ch = rdma_create_event_channel();
	if (!ch)
		fail("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		fail("rdma_create_id");
	if (rdma_bind_addr(id, (struct sockaddr *)sin) || !id->verbs)
		fail("rdma_bind_addr");
	name = ibv_get_device_name(id->verbs->device);
	list = ibv_get_device_list(&n);
	if (!list)
		fail("ibv_get_device_list");
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("ibv_open_device");
	if (ibv_query_device(ctx, &dattr) ||
	    ibv_query_port(ctx, id->port_num, &pattr))
		fail("ibv_query_device/port");
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return now_ns() - t0;
}

static int open_run(const char *addr)
{
	enum { K = 10 };
	struct sockaddr_in sin;
	uint64_t d[K];
	int i;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "rawbench: bad address %s\n", addr);
		return 2;
	}
	printf("RAW open_close_first_us %.1f\n",
	       (double)open_cycle(&sin) / 1000.0);
	for (i = 0; i < K; i++)
		d[i] = open_cycle(&sin);
	printf("RAW open_close_us %.1f\n", median_us(d, K));
	return 0;
}

struct waiter {
	int fd, blocking;
	volatile int ready, flag;
	uint64_t t_end;
};

static void *waiter_run(void *arg)
{
	struct waiter *w = arg;
	struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
	uint64_t v;

	__atomic_store_n(&w->ready, 1, __ATOMIC_SEQ_CST);
	if (w->blocking) {
		if (poll(&pfd, 1, 60000) != 1 ||
		    read(w->fd, &v, sizeof(v)) != sizeof(v))
			fail("poll/read eventfd");
	} else {
		while (!__atomic_load_n(&w->flag, __ATOMIC_ACQUIRE))
			;
	}
	w->t_end = now_ns();
	return NULL;
}

static uint64_t wake_once(int fd, int blocking)
{
	struct waiter w = {.fd = fd, .blocking = blocking};
	uint64_t one = 1, t0;
	pthread_t th;

	if (pthread_create(&th, NULL, waiter_run, &w))
		fail("pthread_create");
	while (!__atomic_load_n(&w.ready, __ATOMIC_SEQ_CST))
		;
	usleep(3000);
	t0 = now_ns();
	if (blocking) {
		if (write(fd, &one, sizeof(one)) != sizeof(one))
			fail("write eventfd");
	} else {
		__atomic_store_n(&w.flag, 1, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	return w.t_end - t0;
}

static int wake_run(void)
{
	enum { K = 30 };
	uint64_t d[2][K];
	int fd = eventfd(0, EFD_CLOEXEC), i, b;

	if (fd < 0)
		fail("eventfd");
	for (i = 0; i < K; i++)
		for (b = 0; b < 2; b++)
			d[b][i] = wake_once(fd, b);
	printf("RAW wake_spin_us %.1f\n", median_us(d[0], K));
	printf("RAW wake_poll_us %.1f\n", median_us(d[1], K));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "open") && !strcmp(argv[2], "-a"))
		return open_run(argv[3]);
	if (argc == 2 && !strcmp(argv[1], "wake"))
		return wake_run();
	fprintf(stderr, "usage: rawbench open -a ADDR\n"
			"       rawbench wake\n");
	return 2;
}
