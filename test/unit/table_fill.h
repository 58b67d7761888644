/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' own DAT_PROVIDER tables (test_registry_set.c, dattest.c):
 * libdat refuses a table with an empty entry point
 * (dat_registry_add_provider), so a test fills every one with fn, a call
 * it never makes, then sets the ones it uses.
 */
#ifndef DAT_TEST_TABLE_FILL_H
#define DAT_TEST_TABLE_FILL_H

#include <stddef.h>
#include <string.h>

#include <dat/udat.h>

static inline void table_fill(DAT_PROVIDER *p, DAT_RETURN (*fn)(void))
{
	size_t off;

	for (off = offsetof(DAT_PROVIDER, ia_open_func);
	     off + sizeof(fn) <= sizeof(*p); off += sizeof(fn))
		memcpy((char *)p + off, &fn, sizeof(fn));
}

#endif /* DAT_TEST_TABLE_FILL_H */
