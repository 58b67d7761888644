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
 *
 * And the regions of any process that is gone (ofi_shm_sweep_dead): a
 * process killed (SIGKILL) or crashed inside libfabric leaves its
 * control endpoint's region and its listeners' ("dat-<IP>-<port>": see
 * addr.c) for ever, 16 MB of memory each, and a listener's region makes
 * its qualifier look taken (DAT_CONN_QUAL_IN_USE) and listened on (a
 * connect there waits out its timeout).  make check-ofi left such a pair
 * at every run: connect.bats' stopped shm server, continued after its
 * client timed out and exited, died of SIGSEGV in libfabric 1.17's shm
 * progress reading that client's first messages, and shm's own signal
 * handler removed nothing.  A region "<pid>:<uid>:<index>" is its pid's;
 * a listener's names its owner in its header, where libfabric 1.17's
 * smr_create looks too before it takes over a dead process's region
 * (smr.h: the owner's pid, written last, once the region is ready: 0
 * before).  A region whose owner is gone (ofi_smr_pid_gone: no such pid,
 * or a zombie) goes; a region of another header version stays.
 * DAPL_OFI_SHM_SWEEP=0 turns this sweep off (fork.bats, whose check that
 * no child left a region behind a later child's sweep would hide).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ofi.h"
#include "smr.h"

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

/* The process is gone: no such pid, or a zombie nobody has reaped (its
 * regions are nobody's: it will never run again). */
int ofi_smr_pid_gone(long pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	if (kill((pid_t)pid, 0) < 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* the owner's pid in the header of a listener's region, 0: unknown */
static long ofi_region_owner(int dfd, const char *name)
{
	unsigned char h[SMR_HDR_PID + sizeof(int32_t)];
	int32_t pid;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h[0] != SMR_HDR_VERSION) {
		close(fd);
		return 0;
	}
	close(fd);
	memcpy(&pid, h + SMR_HDR_PID, sizeof(pid));
	return pid;
}

int ofi_shm_sweep_dead(const char *dir)
{
	struct dirent *de;
	struct stat st;
	int removed = 0, dfd;
	long pid;
	char *end;
	DIR *d;

	if (!(d = opendir(dir)))
		return 0;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (!strncmp(n, "dat-", 4)) {
			pid = 0; /* below, from its header */
		} else {
			/* shm's own names: <pid>:<uid>:<index> */
			if (n[0] < '1' || n[0] > '9' ||
			    strspn(n, "0123456789:") != strlen(n))
				continue;
			errno = 0;
			pid = strtol(n, &end, 10);
			if (errno || *end != ':' || !strchr(end + 1, ':'))
				continue;
		}
		if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!pid)
			pid = ofi_region_owner(dfd, n);
		if (!ofi_smr_pid_gone(pid))
			continue;
		if (unlinkat(dfd, n, 0) == 0) {
			removed++;
			dapl_dbg(DAPL_DBG_WARN,
				 "ofi: removed %s/%s, left by process %ld, "
				 "which is gone",
				 dir, n, pid);
		}
	}
	closedir(d);
	return removed;
}

void ofi_shm_sweep_stale(void)
{
	static pid_t swept;
	pid_t me = getpid();
	const char *off = getenv("DAPL_OFI_SHM_SWEEP");

	if (__atomic_load_n(&swept, __ATOMIC_RELAXED) == me)
		return;
	__atomic_store_n(&swept, me, __ATOMIC_RELAXED);
	ofi_shm_sweep("/dev/shm", me, process_start());
	if (!off || strcmp(off, "0"))
		ofi_shm_sweep_dead("/dev/shm");
}
