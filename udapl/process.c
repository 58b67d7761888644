/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What udapl knows of the process it runs in: its id, read without a
 * system call (dapl_self_pid in transport.h), so that the module locks,
 * which check on every use that they are not a forked parent's, cost a
 * load and not a getpid().
 */
#define _GNU_SOURCE
#include <unistd.h>
#include <sys/mman.h>

#include "udapl.h"

/* dapl_self_pid's page (transport.h): mapped before any other
 * constructor of the library runs, unmapped after every destructor (the
 * engine's joins at unload take module locks). */
_Atomic pid_t *dapl_pid_page;

__attribute__((constructor(101))) static void pid_page_map(void)
{
	long size = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	if (madvise(p, (size_t)size, MADV_WIPEONFORK)) {
		/* an older kernel: a child would read its parent's pid */
		munmap(p, (size_t)size);
		return;
	}
	dapl_pid_page = p;
}

__attribute__((destructor(101))) static void pid_page_unmap(void)
{
	void *p = dapl_pid_page;

	dapl_pid_page = NULL;
	if (p)
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
}
