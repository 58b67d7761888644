/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Debug output of libdat.
 *
 * DAT_DBG_TYPE is a bit mask of the dat_dbg_type classes (errors only by
 * default); DAT_DBG_DEST routes it: 1 stdout, 2 syslog, 3 both; unset, it
 * goes to stderr, where an administrator running a program by hand sees
 * it.  Both are read once, with secure_getenv so that set-uid programs
 * ignore them.  When DAT_DBG_TYPE is set, the first line printed names
 * the release (VERSION) and the DAT API level, so a log says which libdat
 * wrote it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "registry.h"

enum { DEST_STDOUT = 0x1, DEST_SYSLOG = 0x2, DEST_STDERR = 0x100 };

#ifndef PROJECT_VERSION
#error "PROJECT_VERSION (the release, from VERSION) must be defined"
#endif

static unsigned dbg_mask = DAT_DBG_ERROR;
static unsigned dbg_dest = DEST_STDERR;
static int dbg_asked;	/* DAT_DBG_TYPE was set */
static pthread_once_t dbg_once = PTHREAD_ONCE_INIT;
static pthread_once_t banner_once = PTHREAD_ONCE_INIT;

static int env_number(const char *name, unsigned *out)
{
	const char *s = secure_getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 0);
	if (*end)
		return 0;
	*out = (unsigned)v;
	return 1;
}

static void dbg_init(void)
{
	unsigned dest;

	dbg_asked = env_number("DAT_DBG_TYPE", &dbg_mask);
	if (env_number("DAT_DBG_DEST", &dest))
		dbg_dest = dest & (DEST_STDOUT | DEST_SYSLOG);
}

static void emit(unsigned type, const char *msg)
{
	if (dbg_dest & DEST_STDERR)
		fprintf(stderr, "libdat: %s\n", msg);
	if (dbg_dest & DEST_STDOUT) {
		printf("libdat: %s\n", msg);
		fflush(stdout);
	}
	if (dbg_dest & DEST_SYSLOG)
		syslog(type & DAT_DBG_ERROR ? LOG_ERR : LOG_DEBUG, "libdat: %s", msg);
}

static void banner(void)
{
	emit(DAT_DBG_GENERIC, "uDAPL " PROJECT_VERSION ", DAT API 1.2");
}

void dat_dbg(unsigned type, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	pthread_once(&dbg_once, dbg_init);
	if (!(dbg_mask & type))
		return;
	if (dbg_asked)
		pthread_once(&banner_once, banner);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(type, msg);
}
