/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal TAP producer for the C unit tests: "ok N - what" or
 * "not ok N - what" per check, the plan at the end.
 */
#ifndef DAT_TEST_TAP_H
#define DAT_TEST_TAP_H

#include <stdio.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *what)
{
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_count, what);
	return cond;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}

#endif
