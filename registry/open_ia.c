/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IAs libdat opened, each with the provider table and registry entry
 * it was opened through.  dat/ia.c adds an IA once its provider opened
 * it, claims it for dat_ia_close (so two closes of one handle cannot both
 * reach the provider) and drops it when the close succeeded; the dynamic
 * registry asks how many IAs a table has before it lets the table go
 * (dat_registry_remove_provider: DAT_PROVIDER_IN_USE).  The list lives
 * here, below both, so that the registry never calls up into dat/.
 */
#include <pthread.h>
#include <stdlib.h>

#include "registry.h"

struct dat_open_ia {
	struct dat_open_ia *next;
	DAT_IA_HANDLE ia;
	DAT_PROVIDER *provider;
	struct dat_sr_entry *entry;
	int closing;			/* a dat_ia_close is in the provider */
};

static pthread_mutex_t ia_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct dat_open_ia *ia_head;

void dat_ia_lock(void)
{
	pthread_mutex_lock(&ia_mutex);
}

void dat_ia_unlock(void)
{
	pthread_mutex_unlock(&ia_mutex);
}

int dat_ia_count_for(const DAT_PROVIDER *provider)
{
	struct dat_open_ia *o;
	int n = 0;

	dat_ia_lock();
	for (o = ia_head; o; o = o->next)
		n += o->provider == provider;
	dat_ia_unlock();
	return n;
}

struct dat_open_ia *dat_open_ia_new(void)
{
	return calloc(1, sizeof(struct dat_open_ia));
}

void dat_open_ia_discard(struct dat_open_ia *o)
{
	free(o);
}

void dat_open_ia_add(struct dat_open_ia *o, DAT_IA_HANDLE ia,
		     DAT_PROVIDER *provider, struct dat_sr_entry *entry)
{
	o->ia = ia;
	o->provider = provider;
	o->entry = entry;
	dat_ia_lock();
	o->next = ia_head;
	ia_head = o;
	dat_ia_unlock();
}

struct dat_open_ia *dat_open_ia_claim(DAT_IA_HANDLE ia,
				      DAT_PROVIDER **provider)
{
	struct dat_open_ia *o;

	dat_ia_lock();
	for (o = ia_head; o && o->ia != ia; o = o->next)
		;
	if (o && !o->closing)
		o->closing = 1;
	else
		o = NULL;
	dat_ia_unlock();
	if (o)
		*provider = o->provider;
	return o;
}

void dat_open_ia_unclaim(struct dat_open_ia *o)
{
	dat_ia_lock();
	o->closing = 0;
	dat_ia_unlock();
}

void dat_open_ia_remove(struct dat_open_ia *o)
{
	struct dat_open_ia **link;

	dat_ia_lock();
	for (link = &ia_head; *link != o; link = &(*link)->next)
		;
	*link = o->next;
	dat_ia_unlock();

	dat_sr_release(o->entry);
	free(o);
}
