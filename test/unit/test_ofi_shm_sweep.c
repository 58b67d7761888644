/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of providers/ofi/shm_sweep.c: the regions a dead
 * process of the same pid left (named "<pid>:<uid>:<index>", older than
 * the process) go; the process's own (as new as it), other pids' and
 * other names stay.  In a directory of its own, with times set by hand;
 * no libfabric call is made.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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
	return tap_done();
}
