/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The static registry: the "u" + "default" entries of dat.conf and its
 * drop-in files, and the loading of their provider libraries.
 *
 * The registry is read once, on the first call that needs it: the file
 * DAT_OVERRIDE names if it is set (nothing else then, and no fallback when
 * it cannot be read, so a typo in the variable does not silently pick
 * another registry), else the compiled-in DAT_SYSCONF_PATH (or
 * /etc/dat.conf) and then DAT_SYSCONF_DIR/ *.conf in name order.  The files
 * are read and parsed with no lock held (a slow file never stalls other
 * registry calls or fork()); the first complete result is installed under
 * the lock and any other thread's copy is dropped.  Entries are kept in a
 * hash table on their key, so reading and each lookup are linear in the
 * number of entries, not quadratic.
 *
 * An entry's library is loaded on its first open: dlopen, then
 * dat_provider_init (which registers the provider in the dynamic
 * registry).  When its last IA closes, dat_provider_fini runs but the
 * library stays loaded, and the next first open calls dat_provider_init
 * on it again.  Unloading it there would make a process that opens and
 * closes its only IA load the provider and its whole stack again each
 * time (libdaplcma: librdmacm, libibverbs with its device scan and
 * driver, libnl: 0.4-11 ms natively, 37 ms in the emulated test bed).
 * The libraries are unloaded at exit() instead, by a handler libdat
 * registers with atexit (so before the loader runs any library's
 * destructors, and at a dlclose of libdat itself), which dlcloses every
 * library no IA uses: the same unload a last close used to make, so
 * memory checkers see at exit what they saw before.  (librdmacm keeps
 * its device tables until it is unloaded: with the library left loaded
 * to the end they would be reported as possibly lost.)  A forked child
 * does not reuse a library its parent left loaded without an IA: its
 * first open unloads that copy and loads the library afresh, as if the
 * parent had unloaded it (librdmacm cannot start again in a child).
 * dlopen keeps its own count, so several entries may share one library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "registry.h"

/* DAT_SYSCONF_PATH, DAT_SYSCONF_DIR, DAT_DEFAULT_CONF: conf.h (shared
 * with datadm). */

struct dat_sr_entry {
	struct dat_sr_entry *next;	/* in file order */
	struct dat_sr_entry *hash_next;
	DAT_PROVIDER_INFO key;
	char *lib_path;
	char *ia_params;
	unsigned open_count;		/* IAs open through this entry */
	void *dl;			/* loaded, maybe with no IA open */
	pid_t dl_pid;			/* the process that loaded dl */
	DAT_PROVIDER_INIT_FUNC init;
	DAT_PROVIDER_FINI_FUNC fini;
};

/* The entries of one reading of the files. */
struct sr_table {
	struct dat_sr_entry *head, **tail;
	struct dat_sr_entry **bucket;
	size_t buckets;			/* a power of two */
	DAT_COUNT count;
	int broken;			/* DAT_OVERRIDE names an unreadable file */
};

/* Recursive: a provider's init or fini runs under this lock and may call
 * back into the registry (list, add, remove) without deadlocking. */
static pthread_mutex_t sr_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* Installed once, under sr_mutex, and never changed again but for the
 * entries' open counts and libraries. */
static struct sr_table sr;
static _Atomic int sr_loaded;

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

/* FNV-1a over the key's fields; thread safety as 0/1 like dat_key_match. */
static size_t key_hash(const DAT_PROVIDER_INFO *k)
{
	uint64_t h = 1469598103934665603ull;
	const unsigned char *c = (const unsigned char *)k->ia_name;
	size_t i;

	for (i = 0; i < DAT_NAME_MAX_LENGTH && c[i]; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	h = (h ^ k->dapl_version_major) * 1099511628211ull;
	h = (h ^ k->dapl_version_minor) * 1099511628211ull;
	h = (h ^ (k->is_thread_safe ? 1u : 0u)) * 1099511628211ull;
	return (size_t)h;
}

static struct dat_sr_entry *sr_find_in(const struct sr_table *t,
				       const DAT_PROVIDER_INFO *key)
{
	struct dat_sr_entry *e;

	if (!t->buckets)
		return NULL;
	for (e = t->bucket[key_hash(key) & (t->buckets - 1)]; e;
	     e = e->hash_next)
		if (dat_key_match(&e->key, key) == DAT_KEY_EXACT)
			return e;
	return NULL;
}

static struct dat_sr_entry *sr_find(const DAT_PROVIDER_INFO *key)
{
	return sr_find_in(&sr, key);
}

/* Keeps the table at no more than one entry per bucket on average. */
static int sr_grow(struct sr_table *t)
{
	size_t n = t->buckets ? 2 * t->buckets : 64, i;
	struct dat_sr_entry **b = calloc(n, sizeof(*b)), *e;

	if (!b)
		return -1;
	for (e = t->head; e; e = e->next) {
		i = key_hash(&e->key) & (n - 1);
		e->hash_next = b[i];
		b[i] = e;
	}
	free(t->bucket);
	t->bucket = b;
	t->buckets = n;
	return 0;
}

static void sr_free_table(struct sr_table *t)
{
	struct dat_sr_entry *e, *next;

	for (e = t->head; e; e = next) {
		next = e->next;
		free(e->lib_path);
		free(e->ia_params);
		free(e);
	}
	free(t->bucket);
	memset(t, 0, sizeof(*t));
}

static void sr_add(struct sr_table *t, const char *file, unsigned lineno,
		   const struct dat_conf_entry *c)
{
	struct dat_sr_entry *e;
	DAT_PROVIDER_INFO key;
	size_t i;

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
	if (sr_find_in(t, &key)) {
		dat_dbg(DAT_DBG_SR,
			"%s:%u: warning: %s u%u.%u %s repeats an earlier entry, ignored",
			file, lineno, c->ia_name, c->api_major, c->api_minor,
			c->thread_safe ? "threadsafe" : "nonthreadsafe");
		return;
	}
	if ((size_t)t->count >= t->buckets && sr_grow(t)) {
		dat_dbg(DAT_DBG_ERROR, "%s:%u: out of memory, entry dropped",
			file, lineno);
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
	*t->tail = e;
	t->tail = &e->next;
	i = key_hash(&key) & (t->buckets - 1);
	e->hash_next = t->bucket[i];
	t->bucket[i] = e;
	t->count++;
	dat_dbg(DAT_DBG_SR, "%s:%u: registered %s u%u.%u %s -> %s \"%s\"", file,
		lineno, c->ia_name, c->api_major, c->api_minor,
		c->thread_safe ? "threadsafe" : "nonthreadsafe", c->lib_path,
		c->ia_params);
}

/* Parses a whole file, line by line (buf is NUL-terminated). */
static void sr_parse(struct sr_table *t, const char *buf, size_t len,
		     const char *file)
{
	char *scratch = malloc(DAT_CONF_LINE_MAX + DAT_CONF_FIELDS);
	const char *line = buf, *end = buf + len, *nl;
	unsigned lineno = 0;

	if (!scratch) {
		dat_dbg(DAT_DBG_ERROR, "%s: out of memory, not read", file);
		return;
	}
	for (; line < end; line = nl + 1) {
		struct dat_conf_entry c;
		const char *why = NULL;
		size_t n;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		n = (size_t)(nl - line);
		lineno++;
		/* The parser refuses lines this long before using scratch. */
		if (n >= DAT_CONF_LINE_MAX)
			n = DAT_CONF_LINE_MAX;
		switch (dat_conf_parse_line(line, n, scratch, &c, &why)) {
		case DAT_CONF_ENTRY:
			sr_add(t, file, lineno, &c);
			break;
		case DAT_CONF_MALFORMED:
			dat_dbg(DAT_DBG_SR, "%s:%u: warning: malformed line skipped: %s",
				file, lineno, why);
			break;
		case DAT_CONF_EMPTY:
			break;
		}
	}
	free(scratch);
}

/* Reads and parses one file; -1 (with a message) if it cannot be read. */
static int sr_read(struct sr_table *t, const char *file, int secure,
		   const char *prefix, const char *consequence)
{
	const char *why = NULL;
	size_t len;
	char *buf;

	if (dat_conf_read_file(file, secure, &buf, &len, &why)) {
		dat_dbg(DAT_DBG_ERROR, "%s%s cannot be read (%s): %s", prefix,
			file, why, consequence);
		return -1;
	}
	dat_dbg(DAT_DBG_SR, "reading %s", file);
	sr_parse(t, buf, len, file);
	free(buf);
	return 0;
}

/* Reads the registry into t, with no lock held. */
static void sr_read_all(struct sr_table *t)
{
	const char *override = secure_getenv("DAT_OVERRIDE");
	int secure = dat_conf_secure(), n, i;
	const char *why = NULL, *file = NULL;
	char **dropins = NULL;

	memset(t, 0, sizeof(*t));
	t->tail = &t->head;
	if (override && *override) {
		if (sr_read(t, override, secure, "DAT_OVERRIDE=",
			    "no provider of dat.conf can be opened"))
			t->broken = 1;
		return;
	}
	if (access(DAT_SYSCONF_PATH, F_OK) == 0)
		file = DAT_SYSCONF_PATH;
	else if (access(DAT_DEFAULT_CONF, F_OK) == 0)
		file = DAT_DEFAULT_CONF;
	if (file)
		sr_read(t, file, secure, "", "its entries are ignored");
	else
		dat_dbg(DAT_DBG_SR, "no dat.conf (%s, %s)", DAT_SYSCONF_PATH,
			DAT_DEFAULT_CONF);
	n = dat_conf_dropins(DAT_SYSCONF_DIR, secure, &dropins, &why);
	if (n < 0)
		dat_dbg(DAT_DBG_ERROR, "%s cannot be read (%s): its files are ignored",
			DAT_SYSCONF_DIR, why);
	for (i = 0; i < n; i++) {
		sr_read(t, dropins[i], secure, "", "its entries are ignored");
		free(dropins[i]);
	}
	free(dropins);
}

/* Reads the registry on first use; call with sr_mutex NOT held. */
static void sr_load(void)
{
	struct sr_table t;

	if (atomic_load_explicit(&sr_loaded, memory_order_acquire))
		return;
	sr_read_all(&t);
	dat_sr_lock();
	if (!sr_loaded) {
		sr = t;
		if (!sr.head)
			sr.tail = &sr.head;
		atomic_store_explicit(&sr_loaded, 1, memory_order_release);
	} else {
		sr_free_table(&t);
	}
	dat_sr_unlock();
}

/*
 * A library path that contains '/' but does not start with it would be
 * found relative to the current directory; in a set-uid program a library
 * anyone but root can change would run as its owner.  Both are refused.
 */
static int sr_library_ok(const struct dat_sr_entry *e)
{
	const char *why = NULL;
	struct stat st;

	if (strchr(e->lib_path, '/') && e->lib_path[0] != '/') {
		dat_dbg(DAT_DBG_ERROR,
			"%s: library path %s is relative to the current directory: refused (write an absolute path, or a bare library name)",
			e->key.ia_name, e->lib_path);
		return 0;
	}
	if (!dat_conf_secure() || e->lib_path[0] != '/')
		return 1;	/* a bare name: the loader's trusted directories */
	if (stat(e->lib_path, &st))
		why = strerror(errno);
	else
		dat_conf_root_only(&st, &why);
	if (why) {
		dat_dbg(DAT_DBG_ERROR, "%s: library %s: %s", e->key.ia_name,
			e->lib_path, why);
		return 0;
	}
	return 1;
}

/*
 * At exit() (or at a dlclose of libdat): unloads the libraries that no
 * IA uses, as a last dat_ia_close used to.  A library an open IA uses
 * stays, as before: its threads may still run.  If another thread holds
 * the registry lock (inside an open or a close), nothing is unloaded
 * rather than blocking the exit.
 */
static void sr_unload_idle(void)
{
	struct dat_sr_entry *e;

	if (pthread_mutex_trylock(&sr_mutex))
		return;
	for (e = sr.head; e; e = e->next) {
		if (!e->dl || e->open_count)
			continue;
		dat_dbg(DAT_DBG_SR, "%s: unloading %s", e->key.ia_name,
			e->lib_path);
		dlclose(e->dl);
		e->dl = NULL;
	}
	pthread_mutex_unlock(&sr_mutex);
}

static DAT_RETURN sr_load_provider(struct dat_sr_entry *e)
{
	static int exit_handler;
	void *sym;

	if (e->dl && e->dl_pid == getpid()) {
		/* Left loaded by the last close: only the init again. */
		dat_dbg(DAT_DBG_SR, "%s: %s still loaded, calling %s(\"%s\")",
			e->key.ia_name, e->lib_path,
			DAT_PROVIDER_INIT_FUNC_STR, e->ia_params);
		e->init(&e->key, e->ia_params);
		return DAT_SUCCESS;
	}
	if (e->dl) {
		/* A forked child's copy of a library its parent had left
		 * loaded with no IA: unloaded so that it starts afresh. */
		dat_dbg(DAT_DBG_SR, "%s: unloading %s, loaded before fork",
			e->key.ia_name, e->lib_path);
		dlclose(e->dl);
		e->dl = NULL;
	}
	if (!exit_handler && atexit(sr_unload_idle) == 0)
		exit_handler = 1;
	if (!sr_library_ok(e))
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	dlerror();
	e->dl = dlopen(e->lib_path, RTLD_NOW | RTLD_LOCAL);
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
	*(void **)&e->init = sym;
	*(void **)&e->fini = dlsym(e->dl, DAT_PROVIDER_FINI_FUNC_STR);
	e->dl_pid = getpid();
	dat_dbg(DAT_DBG_SR, "%s: loaded %s, calling %s(\"%s\")", e->key.ia_name,
		e->lib_path, DAT_PROVIDER_INIT_FUNC_STR, e->ia_params);
	e->init(&e->key, e->ia_params);
	return DAT_SUCCESS;
}

/* The last IA closed: the provider's fini; the library stays (above). */
static void sr_release_provider(struct dat_sr_entry *e)
{
	dat_dbg(DAT_DBG_SR, "%s: calling %s, %s stays loaded until exit",
		e->key.ia_name, DAT_PROVIDER_FINI_FUNC_STR, e->lib_path);
	if (e->fini)
		e->fini(&e->key);
}

DAT_RETURN dat_sr_acquire(const DAT_PROVIDER_INFO *key,
			  struct dat_sr_entry **entry)
{
	struct dat_sr_entry *e;
	DAT_RETURN rc = DAT_SUCCESS;

	*entry = NULL;
	sr_load();
	dat_sr_lock();
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
		sr_release_provider(e);
	dat_sr_unlock();
}

enum dat_key_match dat_sr_best_match(const DAT_PROVIDER_INFO *want)
{
	enum dat_key_match best = DAT_KEY_NO_NAME, m;
	struct dat_sr_entry *e;

	sr_load();
	dat_sr_lock();
	for (e = sr.head; e; e = e->next) {
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
	 * dat_sr_list() has loaded dat.conf: the table is complete and
	 * never changes again, so reading it without that lock is safe. */
	return sr_find(key) != NULL;
}

DAT_COUNT dat_sr_list(DAT_COUNT max, DAT_PROVIDER_INFO *list[])
{
	struct dat_sr_entry *e;
	DAT_COUNT n = 0;

	sr_load();
	dat_sr_lock();
	for (e = sr.head; e; e = e->next, n++)
		if (n < max)
			*list[n] = e->key;
	dat_sr_unlock();
	return n;
}

/* Broken DAT_OVERRIDE: reported once at load, and by every open. */
int dat_sr_is_broken(void)
{
	sr_load();
	return sr.broken;
}
