/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registered-table set in front of every libdat dispatch
 * (registry/dynamic_registry.c, dat_dr_is_provider): through the public
 * calls only.  A handle is a word pointing to a DAT_PROVIDER; a call on
 * it reaches the table while the table is registered under at least one
 * name, and is DAT_INVALID_HANDLE otherwise.
 */
#include <stdio.h>
#include <string.h>

#include <dat/udat.h>
#include <dat/dat_registry.h>

#include "tap.h"
#include "table_fill.h"

#define NTABLES 300 /* more than libdat's 256 registrations */

static DAT_PROVIDER tables[NTABLES];
static DAT_PROVIDER *handles[NTABLES]; /* each "handle" is its first word */

static DAT_RETURN t_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			 DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	(void)name, (void)qlen, (void)evd, (void)ia;
	return DAT_INTERNAL_ERROR;
}

static DAT_RETURN t_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	(void)h;
	*type = DAT_HANDLE_TYPE_CNO;
	return DAT_SUCCESS;
}

static DAT_RETURN t_ctx(DAT_HANDLE h, DAT_CONTEXT *ctx)
{
	(void)h;
	ctx->as_64 = 42;
	return DAT_SUCCESS;
}

static DAT_RETURN t_unused(void)
{
	return DAT_INTERNAL_ERROR;
}

/* every entry point filled (libdat refuses a table with an empty one),
 * the three this test calls with their own */
static void fill(DAT_PROVIDER *p)
{
	table_fill(p, t_unused);
	p->ia_open_func = t_open;
	p->get_handle_type_func = t_type;
	p->get_consumer_context_func = t_ctx;
}

static void info(DAT_PROVIDER_INFO *pi, int t, int name)
{
	memset(pi, 0, sizeof(*pi));
	snprintf(pi->ia_name, sizeof(pi->ia_name), "set-%d-%d", t, name);
	pi->dapl_version_major = 1;
	pi->dapl_version_minor = 2;
}

/* The call reaches table t (DAT_SUCCESS from its slot). */
static int reaches(int t)
{
	DAT_HANDLE_TYPE type = 0;

	return dat_get_handle_type(&handles[t], &type) == DAT_SUCCESS &&
	       type == DAT_HANDLE_TYPE_CNO;
}

static int refused(int t)
{
	DAT_HANDLE_TYPE type = 0;

	return DAT_GET_TYPE(dat_get_handle_type(&handles[t], &type)) ==
	       DAT_INVALID_HANDLE;
}

static DAT_RETURN add(int t, int name)
{
	DAT_PROVIDER_INFO pi;

	info(&pi, t, name);
	return dat_registry_add_provider(&tables[t], &pi);
}

static DAT_RETURN del(int t, int name)
{
	DAT_PROVIDER_INFO pi;

	info(&pi, t, name);
	return dat_registry_remove_provider(&tables[t], &pi);
}

int main(void)
{
	int t, ok, round;

	for (t = 0; t < NTABLES; t++) {
		fill(&tables[t]);
		handles[t] = &tables[t];
	}
	tap_ok(refused(0), "an unregistered table is refused");
	{
		DAT_PROVIDER holey = tables[0];
		DAT_PROVIDER_INFO pi;

		info(&pi, 0, 0);
		holey.srq_set_lw_func = NULL;
		ok = dat_registry_add_provider(&holey, &pi) ==
		     (DAT_RETURN)(DAT_CLASS_ERROR | DAT_INVALID_PARAMETER |
				  DAT_INVALID_ARG1);
		holey = tables[0];
		holey.ep_post_send_func = NULL;
		ok = ok && dat_registry_add_provider(&holey, &pi) ==
			       (DAT_RETURN)(DAT_CLASS_ERROR |
					    DAT_INVALID_PARAMETER |
					    DAT_INVALID_ARG1);
		tap_ok(ok, "a table with an empty entry point is not registered (the last one, one in the middle)");
	}
	tap_ok(add(0, 1) == DAT_SUCCESS && add(0, 2) == DAT_SUCCESS,
	       "one table under two names");
	tap_ok(reaches(0), "it is reached");
	tap_ok(del(0, 1) == DAT_SUCCESS && reaches(0),
	       "still reached with one name left");
	tap_ok(del(0, 2) == DAT_SUCCESS && refused(0),
	       "refused once its last name is removed");

	/* fill, empty and refill the registry several times: removed
	 * entries must neither linger nor stop later ones being found */
	for (round = 0; round < 4; round++) {
		int added = 0, full = 0;

		for (t = 0; t < NTABLES; t++) {
			DAT_RETURN rc = add(t, round);

			if (rc == DAT_SUCCESS)
				added++;
			else if (DAT_GET_TYPE(rc) == DAT_INSUFFICIENT_RESOURCES)
				full++;
		}
		ok = added == 256 && full == NTABLES - 256;
		for (t = 0; t < NTABLES; t++)
			ok = ok && (t < added ? reaches(t) : refused(t));
		tap_ok(ok, "256 tables registered, all reached; the rest refused");
		for (t = 0; t < added; t += 2)
			ok = ok && del(t, round) == DAT_SUCCESS;
		for (t = 0; t < NTABLES; t++)
			ok = ok && (t < added && (t & 1) ? reaches(t)
						      : refused(t));
		tap_ok(ok, "every other one removed: exactly those refused");
		for (t = 1; t < added; t += 2)
			ok = ok && del(t, round) == DAT_SUCCESS;
		for (t = 0; t < NTABLES; t++)
			ok = ok && refused(t);
		tap_ok(ok, "all removed: all refused");
	}
	{
		/* the words a bad handle may hold: NULL, 1 (the set's own
		 * tombstone), a misaligned pointer */
		DAT_PROVIDER *bad[3] = {NULL, (DAT_PROVIDER *)1,
					(DAT_PROVIDER *)((char *)&tables[0] + 1)};
		DAT_HANDLE_TYPE type;

		ok = 1;
		for (t = 0; t < 3; t++)
			ok = ok && DAT_GET_TYPE(dat_get_handle_type(&bad[t],
								    &type)) ==
				       DAT_INVALID_HANDLE;
		tap_ok(ok, "a handle whose first word is NULL, 1 or misaligned is refused");
	}
	{
		/* libdat checks the two tables registered (or opened) last
		 * with one compare each (registry.h dat_dr_hot) and every
		 * other one through the set: all paths give the same
		 * answers, a slot emptied after registering included, and
		 * the words follow removals */
		DAT_PROVIDER *bad[2] = {NULL, (DAT_PROVIDER *)1};
		DAT_CONTEXT ctx;
		DAT_HANDLE_TYPE type;
		const DAT_RETURN badh = (DAT_RETURN)(DAT_CLASS_ERROR |
						    DAT_INVALID_HANDLE |
						    DAT_INVALID_HANDLE1);

		ok = add(0, 9) == DAT_SUCCESS && add(1, 9) == DAT_SUCCESS &&
		     add(2, 9) == DAT_SUCCESS;
		/* 2 and 1 are the common cases now, 0 goes through the set */
		ok = ok && reaches(0) && reaches(1) && reaches(2);
		for (t = 0; t < 3; t++)
			ok = ok && dat_get_consumer_context(&handles[t], &ctx) ==
					   DAT_SUCCESS;
		for (t = 0; t < 2; t++)
			ok = ok && DAT_GET_TYPE(dat_get_handle_type(&bad[t],
								    &type)) ==
				       DAT_INVALID_HANDLE;
		tap_ok(ok, "three tables: each reached, through every slot; NULL and 1 refused");
		/* a provider that empties a slot after registering: that
		 * call is refused, on both paths, never made */
		for (t = 0; t < 3; t++)
			tables[t].get_consumer_context_func = NULL;
		for (t = 0; t < 3; t++)
			ok = ok && dat_get_consumer_context(&handles[t], &ctx) ==
					   badh;
		ok = ok && reaches(0) && reaches(1) && reaches(2);
		for (t = 0; t < 3; t++)
			tables[t].get_consumer_context_func = t_ctx;
		tap_ok(ok, "a slot emptied after registering: DAT_INVALID_HANDLE on both paths, the other slots still reached");
		ok = del(2, 9) == DAT_SUCCESS && refused(2) && reaches(1) &&
		     reaches(0) &&
		     dat_get_consumer_context(&handles[2], &ctx) == badh;
		ok = ok && del(1, 9) == DAT_SUCCESS && refused(1) &&
		     refused(2) && reaches(0) &&
		     dat_get_consumer_context(&handles[1], &ctx) == badh &&
		     dat_get_consumer_context(&handles[0], &ctx) == DAT_SUCCESS;
		tap_ok(ok, "the last ones registered removed one by one: refused (every slot), the other still reached");
		ok = del(0, 9) == DAT_SUCCESS && refused(0) &&
		     dat_get_consumer_context(&handles[0], &ctx) == badh;
		for (t = 0; t < 2; t++)
			ok = ok && DAT_GET_TYPE(dat_get_handle_type(&bad[t],
								    &type)) ==
				       DAT_INVALID_HANDLE;
		tap_ok(ok, "none registered: refused, every slot; NULL and 1 refused");
	}
	return tap_done();
}
