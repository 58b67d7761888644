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
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "registry.h"

enum { DEST_STDOUT = 0x1, DEST_SYSLOG = 0x2, DEST_STDERR = 0x100 };

#ifndef PROJECT_VERSION
#error "PROJECT_VERSION (the release, from VERSION) must be defined"
#endif

static _Atomic unsigned dbg_mask = DAT_DBG_ERROR;
static _Atomic unsigned dbg_dest = DEST_STDERR;
static _Atomic int dbg_asked;	/* DAT_DBG_TYPE was set */
/* 0: not read yet, 1: reading, 2: read.  Not pthread_once: a child
 * forked while another thread was inside it would wait forever. */
static _Atomic int dbg_state;
/* The release banner goes out once (the same rule: no pthread_once). */
static _Atomic int banner_done;

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
	unsigned dest, mask;

	if (env_number("DAT_DBG_TYPE", &mask)) {
		dbg_mask = mask;
		dbg_asked = 1;
	}
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

	if (atomic_load_explicit(&dbg_state, memory_order_acquire) != 2) {
		int expect = 0;

		if (atomic_compare_exchange_strong(&dbg_state, &expect, 1)) {
			dbg_init();
			atomic_store_explicit(&dbg_state, 2,
					      memory_order_release);
		}
		/* Another thread (or a parent's, before fork) is reading
		 * the variables: use the defaults for this message. */
	}
	if (!(dbg_mask & type))
		return;
	if (dbg_asked && !atomic_exchange(&banner_done, 1))
		banner();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(type, msg);
}
