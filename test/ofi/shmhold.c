/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shmhold.c - dattest-ofi-shmhold VICTIM SURVIVOR: kills (SIGKILL) the
 * process VICTIM at a moment it holds the lock of a data endpoint's shm
 * region of its connection with SURVIVOR (faults.bats, shm; issue 33
 * item 4).
 *
 * libfabric 1.17's shm guards each endpoint's region /dev/shm/<name>
 * with a process-shared spinlock in the region's header (byte 24; the
 * header starts with version byte 4 and has the owner's pid at byte 4):
 * a process takes its own region's lock to read its queue and the peer's
 * to put a command there.  A streaming process holds one of them a good
 * part of the time, but a kill at a random moment seldom finds it inside
 * (about 1 in 20), so this program makes that moment: it stops VICTIM
 * (SIGSTOP), looks at the lock words of the data endpoints' regions of
 * both processes, and kills VICTIM if one stays held for 200 ms while it
 * is stopped (a survivor's thread holds one for far less, even when the
 * host is busy: so VICTIM holds it); else it lets VICTIM run for a while
 * (SIGCONT) and tries again, up to 5,000 times.  Data endpoints' regions: "<pid>:<uid>:<n>"
 * with n > 0 (an IA's control endpoint is its process's first shm
 * endpoint, n = 0, and a listener's region is named "dat-..."; each test
 * process opens one IA).
 *
 * Prints "killed <pid> holding the lock of <region>" and exits 0, or
 * says why not and exits 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

enum { MAX_REGIONS = 16, TRIES = 5000 };

struct region {
	char name[300];
	volatile int *lock;
};

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* the data endpoints' regions of pid */
static int find_regions(pid_t pid, struct region *r, int n)
{
	char prefix[32];
	struct dirent *d;
	unsigned idx;
	DIR *dir = opendir("/dev/shm");

	if (!dir)
		return n;
	snprintf(prefix, sizeof(prefix), "%d:", (int)pid);
	while ((d = readdir(dir)) && n < MAX_REGIONS) {
		const char *last = strrchr(d->d_name, ':');
		void *map;
		int fd;

		if (strncmp(d->d_name, prefix, strlen(prefix)) || !last ||
		    sscanf(last + 1, "%u", &idx) != 1 || !idx)
			continue;
		snprintf(r[n].name, sizeof(r[n].name), "/%s", d->d_name);
		fd = shm_open(r[n].name, O_RDONLY, 0);
		if (fd < 0)
			continue;
		map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			continue;
		if (*(volatile unsigned char *)map != 4 ||
		    *(volatile int *)((char *)map + 4) != pid) {
			munmap(map, 4096);
			continue;
		}
		r[n].lock = (volatile int *)((char *)map + 24);
		n++;
	}
	closedir(dir);
	return n;
}

/* stopped: /proc/pid/stat says T (stopped) or t */
static int stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && (p[2] == 'T' || p[2] == 't');
}

/* which region's lock stays held (not the free value) for 200 ms; -1 */
static int held_one(struct region *r, int n, int free_value)
{
	long long end = now_ns() + 200000000ll;
	int still[MAX_REGIONS], i, any = 1;

	for (i = 0; i < n; i++)
		still[i] = 1;
	while (any && now_ns() < end) {
		any = 0;
		for (i = 0; i < n; i++) {
			if (still[i] && *r[i].lock == free_value)
				still[i] = 0;
			any |= still[i];
		}
	}
	for (i = 0; i < n; i++)
		if (still[i])
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	struct region r[MAX_REGIONS];
	pid_t victim, survivor;
	pthread_spinlock_t l;
	int free_value, n, i, t, waits;

	if (argc != 3) {
		fprintf(stderr, "usage: dattest-ofi-shmhold VICTIM SURVIVOR\n");
		return 2;
	}
	victim = atoi(argv[1]);
	survivor = atoi(argv[2]);
	pthread_spin_init(&l, PTHREAD_PROCESS_SHARED);
	free_value = *(volatile int *)&l;
	n = find_regions(victim, r, 0);
	n = find_regions(survivor, r, n);
	if (n < 2) {
		printf("FAIL: %d data endpoint regions of processes %d and %d "
		       "in /dev/shm (want both)\n",
		       n, (int)victim, (int)survivor);
		return 1;
	}
	for (t = 0; t < TRIES; t++) {
		if (kill(victim, SIGSTOP)) {
			printf("FAIL: SIGSTOP %d: %s\n", (int)victim,
			       strerror(errno));
			return 1;
		}
		for (waits = 0; stopped(victim) == 0 && waits < 100000;
		     waits++)
			sched_yield();
		i = held_one(r, n, free_value);
		if (i >= 0) {
			kill(victim, SIGKILL);
			kill(victim, SIGCONT);
			printf("killed %d holding the lock of %s (try %d)\n",
			       (int)victim, r[i].name + 1, t + 1);
			return 0;
		}
		kill(victim, SIGCONT);
		/* let it run into another section: 0.2 to 2 ms */
		{
			struct timespec d = {0, 200000 + (t % 10) * 200000};

			nanosleep(&d, NULL);
		}
	}
	kill(victim, SIGCONT);
	printf("FAIL: %d held no data region lock in %d stops\n",
	       (int)victim, TRIES);
	return 1;
}
