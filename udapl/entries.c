/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dat.conf entries this provider registered (struct dapl_provider),
 * one list for the process: provider.c adds each at dat_provider_init
 * and takes it out at dat_provider_fini, ia.c finds the one an IA opens
 * through.  Below both, so that neither calls up into the other.
 */
#include <string.h>
#include <unistd.h>

#include "udapl.h"

static struct dapl_module_lock entries_lock = DAPL_MODULE_LOCK_INITIALIZER;
static struct dapl_provider *entries;
/* The process that registered the entries: a forked child inherits the
 * list but not the threads behind it. */
static pid_t entries_pid;

/* Held by provider.c across an entry's registration with libdat and its
 * place in the list, so that both change together. */
void dapl_entries_lock(void)
{
	dapl_module_lock(&entries_lock);
}

void dapl_entries_unlock(void)
{
	dapl_module_unlock(&entries_lock);
}

/* locked */
void dapl_entries_add(struct dapl_provider *p)
{
	p->next = entries;
	entries = p;
	entries_pid = dapl_self_pid();
}

static int info_same(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b)
{
	return !strncmp(a->ia_name, b->ia_name, DAT_NAME_MAX_LENGTH) &&
	       a->dapl_version_major == b->dapl_version_major &&
	       a->dapl_version_minor == b->dapl_version_minor &&
	       a->is_thread_safe == b->is_thread_safe;
}

/* locked: the entry of info, out of the list (NULL: none); *last says
 * whether the list is empty now. */
struct dapl_provider *dapl_entries_take(const DAT_PROVIDER_INFO *info,
					int *last)
{
	struct dapl_provider **link, *p = NULL;

	for (link = &entries; *link; link = &(*link)->next) {
		if (info_same(&(*link)->info, info)) {
			p = *link;
			*link = p->next;
			break;
		}
	}
	*last = !entries;
	return p;
}

int dapl_provider_forked(void)
{
	pid_t pid;

	dapl_module_lock(&entries_lock);
	pid = entries_pid;
	dapl_module_unlock(&entries_lock);
	return pid && pid != dapl_self_pid();
}

/*
 * The entry an IA opens through.  Several entries may share the IA name
 * (one per thread safety, or with different ia_params); libdat matched
 * the whole key and passes that entry's table as table_hint (the
 * caller's *ia_handle, see dat/ia.c), so the IA gets that entry's
 * ia_params and goes away with that entry only.  Without a hint that is
 * one of ours (another libdat), the first entry of that name.
 */
struct dapl_provider *dapl_provider_find(const char *ia_name,
					 const void *table_hint)
{
	struct dapl_provider *p, *by_name = NULL;

	dapl_module_lock(&entries_lock);
	for (p = entries; p; p = p->next) {
		if (strncmp(p->info.ia_name, ia_name, DAT_NAME_MAX_LENGTH))
			continue;
		if ((const void *)&p->table == table_hint)
			break;
		if (!by_name)
			by_name = p;
	}
	dapl_module_unlock(&entries_lock);
	return p ? p : by_name;
}
