/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/status.h - a field of /proc/self/status, for the bench
 * programs that report memory (datbench's scale rows, connbench's
 * memory per connection).
 */
#ifndef DAT_BENCH_STATUS_H
#define DAT_BENCH_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* field "VmRSS:" or "VmSize:" of /proc/self/status, in KiB; -1 if not
 * found */
static inline long status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(field);
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n)) {
			v = atol(line + n);
			break;
		}
	fclose(f);
	return v;
}

#endif
