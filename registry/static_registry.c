/*
 * The static registry: the "u" + "default" entries of dat.conf, and the
 * loading of their provider libraries.
 *
 * dat.conf is read once, on the first call that needs it.  Its location:
 * DAT_OVERRIDE if set (no fallback when it cannot be read, so a typo in
 * the variable does not silently pick another registry), else the
 * compiled-in DAT_SYSCONF_PATH, else /etc/dat.conf.
 *
 * An entry's library is loaded on its first open: dlopen,
 * dat_provider_init (which registers the provider in the dynamic
 * registry), ...; when its last IA closes, dat_provider_fini and dlclose.
 * dlopen keeps its own count, so several entries may share one library.
 * The library is opened RTLD_NODELETE: dlclose leaves it (and what it
 * links, librdmacm and libibverbs with their device lists and driver
 * libraries) mapped and initialized, so the next dat_ia_open finds them
 * ready.  Unloading made every open after a last close pay for loading
 * and initializing that whole stack again: six shared objects, 7-11 ms
 * per open natively against 10 us without the unload (host, 2026-11-25),
 * and most of the 37 ms open + close make bench measured under emulation
 * on 2026-11-22.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "registry.h"

/* DAT_SYSCONF_PATH and DAT_DEFAULT_CONF: conf.h (shared with datadm). */

struct dat_sr_entry {
	struct dat_sr_entry *next;
	DAT_PROVIDER_INFO key;
	char *lib_path;
	char *ia_params;
	unsigned open_count;		/* IAs open through this entry */
	void *dl;
	DAT_PROVIDER_FINI_FUNC fini;
};

/* Recursive: a provider's init or fini runs under this lock and may call
 * back into the registry (list, add, remove) without deadlocking. */
static pthread_mutex_t sr_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct dat_sr_entry *sr_head, **sr_tail = &sr_head;
static int sr_loaded;
static int sr_broken;		/* DAT_OVERRIDE names an unreadable file */
static DAT_COUNT sr_count;

void dat_sr_lock(void)
{
	pthread_mutex_lock(&sr_mutex);
}

void dat_sr_unlock(void)
{
	pthread_mutex_unlock(&sr_mutex);
}

/*
 * In a forked child: a recursive mutex remembers its owner's thread id,
 * which the child's thread does not have, so it cannot be unlocked
 * there; make it new instead (the child has no other thread that could
 * hold it).
 */
void dat_sr_lock_reset(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&sr_mutex, &attr);
	pthread_mutexattr_destroy(&attr);
}

static struct dat_sr_entry *sr_find(const DAT_PROVIDER_INFO *key)
{
	struct dat_sr_entry *e;

	for (e = sr_head; e; e = e->next)
		if (dat_key_match(&e->key, key) == DAT_KEY_EXACT)
			return e;
	return NULL;
}

static void sr_add(const char *file, unsigned lineno,
		   const struct dat_conf_entry *c)
{
	struct dat_sr_entry *e;
	DAT_PROVIDER_INFO key;

	if (c->api_kind != 'u' || !c->is_default) {
		dat_dbg(DAT_DBG_SR, "%s:%u: %s: %s entry, not registered", file,
			lineno, c->ia_name,
			c->api_kind != 'u' ? "kernel" : "nondefault");
		return;
	}
	memset(&key, 0, sizeof(key));
	strcpy(key.ia_name, c->ia_name);	/* the parser checked the length */
	key.dapl_version_major = c->api_major;
	key.dapl_version_minor = c->api_minor;
	key.is_thread_safe = c->thread_safe ? DAT_TRUE : DAT_FALSE;
	if (sr_find(&key)) {
		dat_dbg(DAT_DBG_SR,
			"%s:%u: warning: %s u%u.%u %s repeats an earlier entry, ignored",
			file, lineno, c->ia_name, c->api_major, c->api_minor,
			c->thread_safe ? "threadsafe" : "nonthreadsafe");
		return;
	}
	e = calloc(1, sizeof(*e));
	if (e) {
		e->lib_path = strdup(c->lib_path);
		e->ia_params = strdup(c->ia_params);
	}
	if (!e || !e->lib_path || !e->ia_params) {
		dat_dbg(DAT_DBG_ERROR, "%s:%u: out of memory, entry dropped",
			file, lineno);
		if (e) {
			free(e->lib_path);
			free(e->ia_params);
			free(e);
		}
		return;
	}
	e->key = key;
	*sr_tail = e;
	sr_tail = &e->next;
	sr_count++;
	dat_dbg(DAT_DBG_SR, "%s:%u: registered %s u%u.%u %s -> %s \"%s\"", file,
		lineno, c->ia_name, c->api_major, c->api_minor,
		c->thread_safe ? "threadsafe" : "nonthreadsafe", c->lib_path,
		c->ia_params);
}

static void sr_parse(FILE *fp, const char *file)
{
	char *line = NULL, *scratch = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;

	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct dat_conf_entry c;
		const char *why = NULL;
		char *grown;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		grown = realloc(scratch, (size_t)len + DAT_CONF_FIELDS);
		if (!grown) {
			dat_dbg(DAT_DBG_ERROR, "%s:%u: out of memory", file, lineno);
			break;
		}
		scratch = grown;
		switch (dat_conf_parse_line(line, (size_t)len, scratch, &c, &why)) {
		case DAT_CONF_ENTRY:
			sr_add(file, lineno, &c);
			break;
		case DAT_CONF_MALFORMED:
			dat_dbg(DAT_DBG_SR, "%s:%u: warning: malformed line skipped: %s",
				file, lineno, why);
			break;
		case DAT_CONF_EMPTY:
			break;
		}
	}
	free(line);
	free(scratch);
}

/* Reads dat.conf on first use.  Called with sr_mutex held. */
static void sr_load(void)
{
	const char *override = secure_getenv("DAT_OVERRIDE");
	const char *candidates[2] = { DAT_SYSCONF_PATH, DAT_DEFAULT_CONF };
	FILE *fp = NULL;
	const char *file = NULL;
	unsigned i;

	if (sr_loaded)
		return;
	sr_loaded = 1;
	if (override && *override) {
		file = override;
		fp = fopen(file, "re");
		if (!fp) {
			sr_broken = 1;
			dat_dbg(DAT_DBG_ERROR,
				"DAT_OVERRIDE=%s cannot be read (%s): no provider of dat.conf can be opened",
				file, strerror(errno));
			return;
		}
	} else {
		for (i = 0; i < 2 && !fp; i++) {
			file = candidates[i];
			fp = fopen(file, "re");
		}
		if (!fp) {
			dat_dbg(DAT_DBG_SR, "no dat.conf (%s, %s): no static providers",
				DAT_SYSCONF_PATH, DAT_DEFAULT_CONF);
			return;
		}
	}
	dat_dbg(DAT_DBG_SR, "reading %s", file);
	sr_parse(fp, file);
	fclose(fp);
}

static DAT_RETURN sr_load_provider(struct dat_sr_entry *e)
{
	DAT_PROVIDER_INIT_FUNC init;
	void *sym;

	dlerror();
	e->dl = dlopen(e->lib_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!e->dl) {
		dat_dbg(DAT_DBG_ERROR, "%s: cannot load provider library: %s",
			e->key.ia_name, dlerror());
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	}
	sym = dlsym(e->dl, DAT_PROVIDER_INIT_FUNC_STR);
	if (!sym) {
		dat_dbg(DAT_DBG_ERROR, "%s: provider library %s has no %s: %s",
			e->key.ia_name, e->lib_path, DAT_PROVIDER_INIT_FUNC_STR,
			dlerror());
		dlclose(e->dl);
		e->dl = NULL;
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	}
	/* POSIX guarantees that dlsym's object pointer converts to a
	 * function pointer; copying the bytes avoids ISO C's warning. */
	*(void **)&init = sym;
	*(void **)&e->fini = dlsym(e->dl, DAT_PROVIDER_FINI_FUNC_STR);
	dat_dbg(DAT_DBG_SR, "%s: loaded %s, calling %s(\"%s\")", e->key.ia_name,
		e->lib_path, DAT_PROVIDER_INIT_FUNC_STR, e->ia_params);
	init(&e->key, e->ia_params);
	return DAT_SUCCESS;
}

static void sr_unload_provider(struct dat_sr_entry *e)
{
	dat_dbg(DAT_DBG_SR, "%s: unloading %s", e->key.ia_name, e->lib_path);
	if (e->fini)
		e->fini(&e->key);
	dlclose(e->dl);
	e->dl = NULL;
	e->fini = NULL;
}

DAT_RETURN dat_sr_acquire(const DAT_PROVIDER_INFO *key,
			  struct dat_sr_entry **entry)
{
	struct dat_sr_entry *e;
	DAT_RETURN rc = DAT_SUCCESS;

	*entry = NULL;
	dat_sr_lock();
	sr_load();
	e = sr_find(key);
	if (e) {
		if (e->open_count == 0)
			rc = sr_load_provider(e);
		if (rc == DAT_SUCCESS) {
			e->open_count++;
			*entry = e;
		}
	}
	dat_sr_unlock();
	return rc;
}

void dat_sr_release(struct dat_sr_entry *e)
{
	if (!e)
		return;
	dat_sr_lock();
	if (--e->open_count == 0)
		sr_unload_provider(e);
	dat_sr_unlock();
}

enum dat_key_match dat_sr_best_match(const DAT_PROVIDER_INFO *want)
{
	enum dat_key_match best = DAT_KEY_NO_NAME, m;
	struct dat_sr_entry *e;

	dat_sr_lock();
	sr_load();
	for (e = sr_head; e; e = e->next) {
		m = dat_key_match(&e->key, want);
		if (m > best)
			best = m;
	}
	dat_sr_unlock();
	return best;
}

int dat_sr_has_key(const DAT_PROVIDER_INFO *key)
{
	/* Called with the dynamic registry lock held, and only after
	 * dat_sr_list() has loaded dat.conf under the static registry lock:
	 * the list is complete and never changes again, so reading it
	 * without that lock is safe. */
	return sr_find(key) != NULL;
}

DAT_COUNT dat_sr_list(DAT_COUNT max, DAT_PROVIDER_INFO *list[])
{
	struct dat_sr_entry *e;
	DAT_COUNT n = 0;

	dat_sr_lock();
	sr_load();
	for (e = sr_head; e; e = e->next, n++)
		if (n < max)
			*list[n] = e->key;
	dat_sr_unlock();
	return n;
}

/* Broken DAT_OVERRIDE: reported once at load, and by every open. */
int dat_sr_is_broken(void)
{
	int broken;

	dat_sr_lock();
	sr_load();
	broken = sr_broken;
	dat_sr_unlock();
	return broken;
}
