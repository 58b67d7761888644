/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tuning variables from the environment (secure_getenv, so a setuid
 * program ignores them).  A value that is not a whole number in its range
 * is reported once, on stderr, and the default is used: callers read each
 * variable once per process (pthread_once), so "once" holds per variable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "verbs.h"

long verbs_env_long(const char *name, long lo, long hi, long def, int *set)
{
	const char *s = secure_getenv(name);
	char *end;
	long v;

	if (set)
		*set = 0;
	if (!s)
		return def;
	errno = 0;
	v = strtol(s, &end, 0);
	if (!*s || *end || errno || v < lo || v > hi) {
		/* shown whatever DAPL_DBG_TYPE says: a job script's typo
		 * must not go unnoticed */
		dapl_dbg(DAPL_DBG_ERR | DAPL_DBG_WARN,
			 "warning: %s=\"%s\" is not a number in [%ld, %ld]; "
			 "using the default %ld",
			 name, s, lo, hi, def);
		return def;
	}
	if (set)
		*set = 1;
	return v;
}
