/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datadm's dat.conf: which files, read as lines, and changed safely.
 *
 * The file is the one libdat reads (DAT_OVERRIDE, else DAT_SYSCONF_PATH,
 * else /etc/dat.conf), parsed by the same dat_conf_parse_line().  Lines
 * datadm owns end in "# datadm:<tag>"; a change rewrites only those and
 * copies every other byte as it was, into a temporary file that replaces
 * dat.conf by rename(2) while datadm holds flock(2) on dat.conf's
 * directory (a lock on dat.conf itself would stay on the replaced inode).
 *
 * Apart from the commands (datadm.c) so that -a, -r and -u change the
 * file by one path.  The lowest of datadm's files, it also holds the
 * program's error exit and allocation, which all of them use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "datadm.h"

#define OWN_MARK "# datadm:"

const char *prog = "datadm";

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(1, "out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die(1, "name too long: %s...", buf);
}

/* ---- reading ---- */

/* The tag of an owned line: what follows "# datadm:" up to the end. */
static char *owner_of(const char *text, size_t len)
{
	size_t mlen = strlen(OWN_MARK), end = len, i, start;

	if (end && text[end - 1] == '\n')
		end--;
	while (end && (text[end - 1] == ' ' || text[end - 1] == '\t' ||
		       text[end - 1] == '\r'))
		end--;
	for (i = end; i > 0; i--) {
		if (i - 1 + mlen > end ||
		    memcmp(text + i - 1, OWN_MARK, mlen))
			continue;
		start = i - 1 + mlen;
		if (start == end || memchr(text + start, ' ', end - start) ||
		    memchr(text + start, '\t', end - start))
			return NULL;
		return xstrndup(text + start, end - start);
	}
	return NULL;
}

static void parse_line(struct line *l)
{
	size_t len = l->len;

	if (len && l->text[len - 1] == '\n')
		len--;
	l->scratch = xmalloc(len + DAT_CONF_FIELDS);
	l->kind = dat_conf_parse_line(l->text, len, l->scratch, &l->e, &l->why);
	/* Only an entry can be owned: a marker on a comment line is text.
	 * A malformed line's marker says whose line was damaged. */
	l->marked = l->kind != DAT_CONF_EMPTY ? owner_of(l->text, l->len)
					      : NULL;
	l->owner = l->kind == DAT_CONF_ENTRY ? l->marked : NULL;
}

void add_line(struct file *f, char *text, size_t len)
{
	struct line *l;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->lines = realloc(f->lines, f->cap * sizeof(*f->lines));
		if (!f->lines)
			die(1, "out of memory");
	}
	l = &f->lines[f->n++];
	memset(l, 0, sizeof(*l));
	l->text = text;
	l->len = len;
	parse_line(l);
}

/*
 * Reads path as libdat does (a regular file of bounded size, see
 * conf_file.c), split into lines; a missing file is empty unless
 * must_exist.  -1 and *why if it cannot be read.
 */
int read_file(struct file *f, const char *path, int must_exist,
	      const char **why)
{
	char *buf, *p, *nl;
	size_t len;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (!must_exist && access(path, F_OK) && errno == ENOENT)
		return 0;
	if (dat_conf_read_file(path, 0, &buf, &len, why))
		return -1;
	f->exists = 1;
	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl)
			nl = buf + len - 1;
		add_line(f, xstrndup(p, (size_t)(nl - p + 1)),
			 (size_t)(nl - p + 1));
	}
	f->crlf = f->n && f->lines[0].len >= 2 &&
		  !memcmp(f->lines[0].text + f->lines[0].len - 2, "\r\n", 2);
	free(buf);
	return 0;
}

/* ---- which files ---- */

/* --file or --drop-in: the one file to list or change. */
const char *target_file;

/* The files libdat reads, in its order; *override when DAT_OVERRIDE
 * chose (or --file named) the one file.  The main dat.conf is listed
 * only if it exists. */
size_t conf_files(const char ***paths, int *override)
{
	const char *env = secure_getenv("DAT_OVERRIDE"), *why;
	static const char *one[1];
	char **dropins = NULL;
	const char **all;
	int n, i;
	size_t k = 0;

	*override = target_file || (env && *env);
	if (*override) {
		one[0] = target_file ? target_file : env;
		*paths = one;
		return 1;
	}
	n = dat_conf_dropins(DAT_SYSCONF_DIR, 0, &dropins, &why);
	if (n < 0)
		die(1, "%s: %s", DAT_SYSCONF_DIR, why);
	all = xmalloc(((size_t)n + 1) * sizeof(*all));
	if (access(DAT_SYSCONF_PATH, F_OK) == 0)
		all[k++] = DAT_SYSCONF_PATH;
	else if (access(DAT_DEFAULT_CONF, F_OK) == 0)
		all[k++] = DAT_DEFAULT_CONF;
	for (i = 0; i < n; i++)
		all[k++] = dropins[i];
	free(dropins);
	*paths = all;
	return k;
}

/* The file a change goes to: --file/--drop-in, DAT_OVERRIDE, the main
 * dat.conf that exists, or a new SYSCONFDIR/dat.conf. */
static const char *conf_path_for_write(void)
{
	const char *env = secure_getenv("DAT_OVERRIDE");

	if (target_file)
		return target_file;
	if (env && *env)
		return env;
	if (access(DAT_SYSCONF_PATH, F_OK) == 0)
		return DAT_SYSCONF_PATH;
	if (access(DAT_DEFAULT_CONF, F_OK) == 0)
		return DAT_DEFAULT_CONF;
	return DAT_SYSCONF_PATH;
}

/* ---- writing ---- */

/* The directory part of path ("." or "/" where it has none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrndup(".", 1);
	if (slash == path)
		return xstrndup("/", 1);
	return xstrndup(path, (size_t)(slash - path));
}

/* Appends s to a line being built, quoted if it needs it. */
static void put_field(char **buf, size_t *len, const char *s, int quote)
{
	size_t n = strlen(s), i;
	char *p;

	if (!quote && (!*s || strpbrk(s, " \t#\"")))
		quote = 1;
	*buf = realloc(*buf, *len + 2 * n + 4);
	if (!*buf)
		die(1, "out of memory");
	p = *buf + *len;
	if (*len)
		*p++ = ' ';
	if (quote)
		*p++ = '"';
	for (i = 0; i < n; i++) {
		if (quote && (s[i] == '"' || s[i] == '\\'))
			*p++ = '\\';
		*p++ = s[i];
	}
	if (quote)
		*p++ = '"';
	*len = (size_t)(p - *buf);
}

/* The canonical text of an entry, owned by tag, with its newline. */
char *entry_text(const struct dat_conf_entry *e, const char *tag, size_t *len)
{
	char num[64], *buf = NULL;

	*len = 0;
	put_field(&buf, len, e->ia_name, 0);
	snprintf(num, sizeof(num), "%c%u.%u", e->api_kind, e->api_major,
		 e->api_minor);
	put_field(&buf, len, num, 0);
	put_field(&buf, len, e->thread_safe ? "threadsafe" : "nonthreadsafe",
		  0);
	put_field(&buf, len, e->is_default ? "default" : "nondefault", 0);
	put_field(&buf, len, e->lib_path, 0);
	snprintf(num, sizeof(num), "%u.%u", e->provider_major,
		 e->provider_minor);
	buf = realloc(buf, *len + strlen(e->provider_id) + strlen(num) + 3);
	if (!buf)
		die(1, "out of memory");
	*len += (size_t)sprintf(buf + *len, " %s.%s", e->provider_id, num);
	put_field(&buf, len, e->ia_params, 1);
	put_field(&buf, len, e->platform_params, 1);
	buf = realloc(buf, *len + strlen(OWN_MARK) + strlen(tag) + 3);
	if (!buf)
		die(1, "out of memory");
	*len += (size_t)sprintf(buf + *len, " %s%s\n", OWN_MARK, tag);
	return buf;
}

int same_key(const struct dat_conf_entry *a, const struct dat_conf_entry *b)
{
	return a->api_kind == b->api_kind && !strcmp(a->ia_name, b->ia_name) &&
	       a->api_major == b->api_major && a->api_minor == b->api_minor &&
	       a->thread_safe == b->thread_safe;
}

double lock_timeout = 10;

/* flock(2) on dat.conf's directory, waiting up to lock_timeout seconds. */
static int lock_dir(const char *path)
{
	char *dir = dir_of(path);
	struct timespec step = {0, 20 * 1000 * 1000};
	double waited = 0;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die(1, "%s: %s; nothing changed", dir, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			die(1, "cannot lock %s: %s", dir, strerror(errno));
		if (waited >= lock_timeout)
			die(1, "%s is locked by another datadm; gave up after %g s, nothing changed",
			    path, lock_timeout);
		nanosleep(&step, NULL);
		waited += 0.02;
	}
	free(dir);
	return fd;
}

/*
 * The file a change really goes to: a symlinked dat.conf stays a symlink
 * and its target is edited (a rename over the link would replace it).
 */
static const char *resolve_target(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return path;
	real = realpath(path, NULL);
	if (!real)
		die(1, "%s is a symlink to %s; nothing changed", path,
		    errno == ENOENT ? "a file that does not exist"
				    : strerror(errno));
	return real;
}

/* Refuses a file datadm must not or cannot change, before any work. */
static void check_writable(const char *path)
{
	char *dir = dir_of(path);
	struct stat st;

	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			die(1, "%s is not a regular file; nothing changed",
			    path);
		/* Root could replace it anyway: a file without write
		 * permission is the administrator saying "do not touch". */
		if (!(st.st_mode & 0222) || access(path, W_OK))
			die(1, "%s is read-only; nothing changed", path);
	}
	/* A new drop-in file may need its directory. */
	if (target_file && !strcmp(dir, DAT_SYSCONF_DIR) &&
	    mkdir(dir, 0755) && errno != EEXIST)
		die(1, "cannot create %s: %s; nothing changed", dir,
		    strerror(errno));
	if (access(dir, W_OK))
		die(1, "cannot write in %s (%s); nothing changed", dir,
		    strerror(errno));
	free(dir);
}

/*
 * The extended attributes of from (POSIX ACLs are among them, as
 * system.posix_acl_*), copied to to after its owner and mode are set.
 */
static int copy_xattrs(int from, int to)
{
	ssize_t n = flistxattr(from, NULL, 0), v;
	char *names, *name, *val;

	if (n < 0)
		return errno == ENOTSUP ? 0 : -1;
	if (!n)
		return 0;
	names = xmalloc((size_t)n);
	n = flistxattr(from, names, (size_t)n);
	if (n < 0) {
		free(names);
		return -1;
	}
	for (name = names; name < names + n; name += strlen(name) + 1) {
		v = fgetxattr(from, name, NULL, 0);
		if (v < 0)
			goto fail;
		val = xmalloc((size_t)v);
		v = fgetxattr(from, name, val, (size_t)v);
		if (v < 0 || fsetxattr(to, name, val, (size_t)v, 0)) {
			free(val);
			goto fail;
		}
		free(val);
	}
	free(names);
	return 0;
fail:
	free(names);
	return -1;
}

/* Writes the lines to a temporary file and renames it over f->path. */
void commit(const struct file *f)
{
	char *dir = dir_of(f->path), *tmp;
	const char *base = strrchr(f->path, '/');
	struct stat st;
	int fd, dfd, err, old = -1;
	size_t i;
	FILE *fp = NULL;

	base = base ? base + 1 : f->path;
	if (asprintf(&tmp, "%s/.%s.datadm.XXXXXX", dir, base) < 0)
		die(1, "out of memory");
	fd = mkstemp(tmp);
	if (fd < 0)
		die(1, "%s: %s; nothing changed", tmp, strerror(errno));
	old = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (old >= 0 && fstat(old, &st) == 0) {
		/* Owner first (it clears set-id bits), then mode, then the
		 * extended attributes and ACLs, which the mode would clip. */
		if ((fchown(fd, st.st_uid, st.st_gid) &&
		     (geteuid() == 0 || errno != EPERM)) ||
		    fchmod(fd, st.st_mode & 07777) || copy_xattrs(old, fd))
			goto fail;
	} else if (fchmod(fd, 0644)) {
		goto fail;
	}
	if (old >= 0)
		close(old);
	old = -1;
	fp = fdopen(fd, "w");
	if (!fp)
		goto fail;
	for (i = 0; i < f->n; i++)
		fwrite(f->lines[i].text, 1, f->lines[i].len, fp);
	if (fflush(fp) || ferror(fp) || fsync(fd))
		goto fail;
	fd = -1;
	if (fclose(fp)) {
		fp = NULL;
		goto fail;
	}
	fp = NULL;
	if (rename(tmp, f->path))
		goto fail;
	/* The rename itself on disk. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(dir);
	return;
fail:
	err = errno;
	if (old >= 0)
		close(old);
	if (fp)
		fclose(fp);
	else if (fd >= 0)
		close(fd);
	unlink(tmp);
	die(1, "cannot write %s: %s; nothing changed", f->path, strerror(err));
}

/*
 * Malformed lines: one marked with the tag being changed was datadm's and
 * was edited by hand, so the change stops; any other is reported with its
 * line number and kept as it is, and the change goes on.
 */
static void check_malformed(const struct file *f, const char *tag)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct line *l = &f->lines[i];

		if (l->kind != DAT_CONF_MALFORMED)
			continue;
		if (l->marked && !strcmp(l->marked, tag))
			die(1, "%s:%zu: a line marked \"%s%s\" is malformed (%s): fix or remove it; nothing changed",
			    f->path, i + 1, OWN_MARK, tag, l->why);
		fprintf(stderr, "%s: warning: %s:%zu: malformed (%s), kept as it is\n",
			prog, f->path, i + 1, l->why);
	}
}

/* The end of line of f's own lines: new lines follow the file's style. */
static const char *eol_of(const struct file *f)
{
	return f->crlf ? "\r\n" : "\n";
}

/* Ensures the last line ends in a newline before lines are appended. */
static void terminate_last(struct file *f)
{
	const char *eol = eol_of(f);
	struct line *l;

	if (!f->n)
		return;
	l = &f->lines[f->n - 1];
	if (l->len && l->text[l->len - 1] == '\n')
		return;
	l->text = realloc(l->text, l->len + strlen(eol));
	if (!l->text)
		die(1, "out of memory");
	memcpy(l->text + l->len, eol, strlen(eol));
	l->len += strlen(eol);
}

/* Drops the lines owned by tag; returns how many. */
size_t drop_owned(struct file *f, const char *tag)
{
	size_t i, j = 0, n = 0;

	for (i = 0; i < f->n; i++) {
		if (f->lines[i].owner && !strcmp(f->lines[i].owner, tag)) {
			n++;
			continue;
		}
		f->lines[j++] = f->lines[i];
	}
	f->n = j;
	return n;
}

/*
 * Adds the entries (owned by tag) at the end, after checking that none
 * collides with a line datadm does not own under this tag.  new is a
 * file of owned lines already in canonical form.
 */
void append_entries(struct file *f, const struct file *add, const char *what)
{
	size_t i, j;

	for (i = 0; i < add->n; i++)
		for (j = 0; j < f->n; j++)
			if (f->lines[j].kind == DAT_CONF_ENTRY &&
			    same_key(&f->lines[j].e, &add->lines[i].e))
				die(1, "%s: %s %c%u.%u %s is already in %s line %zu%s%s; nothing changed",
				    what, add->lines[i].e.ia_name,
				    add->lines[i].e.api_kind,
				    add->lines[i].e.api_major,
				    add->lines[i].e.api_minor,
				    add->lines[i].e.thread_safe
					    ? "threadsafe"
					    : "nonthreadsafe",
				    f->path, j + 1,
				    f->lines[j].owner ? ", owned by " : "",
				    f->lines[j].owner ? f->lines[j].owner
						      : "");
	terminate_last(f);
	for (i = 0; i < add->n; i++) {
		const struct line *l = &add->lines[i];

		if (f->crlf) {	/* "...\n" -> "...\r\n" */
			char *t = xmalloc(l->len + 1);

			memcpy(t, l->text, l->len - 1);
			memcpy(t + l->len - 1, "\r\n", 2);
			add_line(f, t, l->len + 1);
		} else {
			add_line(f, l->text, l->len);
		}
	}
}

/*
 * Starts a change: the file (a symlink's target), checked, locked and
 * read.  *shown is the name to report.  Returns the lock's descriptor.
 */
int begin_edit(struct file *f, const char **shown, const char *tag)
{
	const char *path, *why;
	int lk;

	*shown = conf_path_for_write();
	path = resolve_target(*shown);
	check_writable(path);
	lk = lock_dir(path);
	if (read_file(f, path, 0, &why))
		die(1, "%s: %s; nothing changed", path, why);
	check_malformed(f, tag);
	return lk;
}
