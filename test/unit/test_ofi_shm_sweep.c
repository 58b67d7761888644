/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of providers/ofi/shm_sweep.c: the regions a dead
 * process of the same pid left (named "<pid>:<uid>:<index>", older than
 * the process) go; the process's own (as new as it), other pids' and
 * other names stay.  And the sweep of regions whose owner is gone
 * (ofi_shm_sweep_dead): shm's "<pid>:<uid>:<index>" of a pid that no
 * longer exists, and a listener's "dat-<IP>-<port>" whose header (as
 * libfabric 1.17 writes it: version 4, the owner's pid at byte 4) names
 * such a pid, go; those of a live process, a header still being written
 * (pid 0), another header version and other names stay.  In a directory
 * of its own, with times set by hand; no libfabric call is made.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../providers/ofi/ofi.h"
#include "tap.h"

static char dir[64];

static void make(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	close(fd);
}

/* a region with libfabric 1.17's header: version, owner pid at byte 4 */
static void make_region(const char *name, unsigned char version, int32_t pid)
{
	unsigned char h[64] = { 0 };
	char path[256];
	int fd;

	h[0] = version;
	memcpy(h + 4, &pid, sizeof(pid));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, h, sizeof(h)) != (ssize_t)sizeof(h))
		abort();
	close(fd);
}

/* the pid of a child that has exited and been reaped: no process has it
 * (until the kernel gives it out again, which takes a wrap of pid_max) */
static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p < 0)
		abort();
	if (!p)
		_exit(0);
	if (waitpid(p, NULL, 0) != p)
		abort();
	return p;
}

static int exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

int main(void)
{
	time_t now = time(NULL);
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/test_ofi_shm_sweep.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	make("4242:0:0");
	make("4242:0:17");
	make("4242:1000:3");
	make("42420:0:0");	/* another pid with our pid's digits first */
	make("4243:0:0");	/* another pid */
	make("dat-127.0.0.1-5000"); /* a listener's name */
	make("4242:0:0x");	/* not shm's pattern */
	/* the files are as new as "now": a process that started at now
	 * (or before) owns them, or may */
	tap_ok(ofi_shm_sweep(dir, 4242, now) == 0,
	       "regions as new as the process are not removed");
	tap_ok(exists("4242:0:0") && exists("4242:0:17"), "they stay");
	/* a process that started after they were made */
	tap_ok(ofi_shm_sweep(dir, 4242, now + 2) == 3,
	       "regions of the pid older than the process are removed");
	tap_ok(!exists("4242:0:0") && !exists("4242:0:17") &&
		   !exists("4242:1000:3"),
	       "every uid and index of that pid");
	tap_ok(exists("42420:0:0") && exists("4243:0:0"),
	       "other pids' regions stay");
	tap_ok(exists("dat-127.0.0.1-5000") && exists("4242:0:0x"),
	       "names not of shm's <pid>:<uid>:<index> form stay");
	tap_ok(ofi_shm_sweep(dir, 4242, 0) == 0 &&
		   ofi_shm_sweep("/nonexistent-dir", 4242, now + 2) == 0,
	       "an unknown start time or a missing directory removes nothing");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;

	/* regions whose owner is gone, whatever their times (a directory
	 * of their own: the pids above may or may not be alive) */
	snprintf(dir, sizeof(dir), "/tmp/test_ofi_shm_sweep.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	{
		pid_t dead = dead_pid(), me = getpid();
		char n[64];

		snprintf(n, sizeof(n), "%d:0:0", (int)dead);
		make(n);
		snprintf(n, sizeof(n), "%d:1000:7", (int)dead);
		make(n);
		snprintf(n, sizeof(n), "%d:0:0", (int)me);
		make(n);
		make_region("dat-127.0.0.1-5001", 4, dead);
		make_region("dat-127.0.0.1-5002", 4, me);
		make_region("dat-127.0.0.1-5003", 4, 0);
		make_region("dat-127.0.0.1-5004", 3, dead);
		make("dat-127.0.0.1-5005"); /* empty: no header yet */
		tap_ok(ofi_shm_sweep_dead(dir) == 3,
		       "the regions of a process that is gone are removed");
		snprintf(n, sizeof(n), "%d:0:0", (int)dead);
		tap_ok(!exists(n), "its control endpoint's region");
		snprintf(n, sizeof(n), "%d:1000:7", (int)dead);
		tap_ok(!exists(n), "every uid and index of its pid");
		tap_ok(!exists("dat-127.0.0.1-5001"),
		       "its listener's region, by the owner in the header");
		snprintf(n, sizeof(n), "%d:0:0", (int)me);
		tap_ok(exists(n) && exists("dat-127.0.0.1-5002"),
		       "a live process's regions stay");
		tap_ok(exists("dat-127.0.0.1-5003") &&
			   exists("dat-127.0.0.1-5005"),
		       "a listener's region not ready yet (pid 0, no "
		       "header) stays");
		tap_ok(exists("dat-127.0.0.1-5004"),
		       "a header of another version stays");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
