/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regions a dead process left in /dev/shm under this process's pid.
 *
 * shm names a port-0 endpoint "<pid>:<uid>:<index>", the index counting
 * from 0 in each process, and its region /dev/shm/<name> outlives a
 * process killed before it closed the endpoint.  A later process given
 * the same pid then finds its own first names taken: libfabric 1.17's
 * shm fails the endpoint (EBUSY), or maps the stale region and dies of
 * SIGBUS when it is shorter.  So before this process's first shm
 * endpoint, the regions named by its pid that are older than the process
 * (both their times before its start, to the second) are removed: they
 * cannot be its own, and their owner is gone, since the pid was free for
 * this process to get.  Once per process.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ofi.h"

/* This process's start, in seconds since the epoch (0: unknown). */
static time_t process_start(void)
{
	unsigned long long ticks = 0;
	char buf[1024], *p;
	long btime = 0, hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int field;

	f = fopen("/proc/self/stat", "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* field 22, counted after the command's closing parenthesis (the
	 * command may hold spaces and parentheses) */
	p = p ? strrchr(buf, ')') : NULL;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1 || hz <= 0)
		return 0;
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %ld", &btime) == 1)
			break;
	fclose(f);
	return btime ? (time_t)(btime + (long)(ticks / (unsigned long long)hz))
		     : 0;
}

int ofi_shm_sweep(const char *dir, pid_t pid, time_t start)
{
	char prefix[32], path[512];
	struct dirent *de;
	struct stat st;
	int removed = 0;
	size_t n;
	DIR *d;

	if (!start || !(d = opendir(dir)))
		return 0;
	n = (size_t)snprintf(prefix, sizeof(prefix), "%d:", (int)pid);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, n) ||
		    strspn(de->d_name + n, "0123456789:") !=
			strlen(de->d_name + n))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    st.st_mtime >= start || st.st_ctime >= start)
			continue;
		if (unlink(path) == 0) {
			removed++;
			dapl_dbg(DAPL_DBG_WARN,
				 "ofi: removed %s, left by a dead process that "
				 "had this pid", path);
		}
	}
	closedir(d);
	return removed;
}

void ofi_shm_sweep_stale(void)
{
	static pid_t swept;
	pid_t me = getpid();

	if (__atomic_load_n(&swept, __ATOMIC_RELAXED) == me)
		return;
	__atomic_store_n(&swept, me, __ATOMIC_RELAXED);
	ofi_shm_sweep("/dev/shm", me, process_start());
}
