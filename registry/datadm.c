/*
 * datadm: the administrator's view of dat.conf, and the only safe way to
 * change it.  See datadm(8).
 *
 *   datadm -v        every line as libdat parses it, with each entry's status
 *   datadm --check   the problems only; exit 1 if there are any
 *   datadm -a FILE   add (or replace) the entries of a provider's service file
 *   datadm -r FILE   remove them
 *   datadm -u        regenerate the entries for the RDMA devices present
 *
 * The file is the one libdat reads (DAT_OVERRIDE, else DAT_SYSCONF_PATH,
 * else /etc/dat.conf), parsed by the same dat_conf_parse_line().  Lines
 * datadm owns end in "# datadm:<tag>"; a change rewrites only those and
 * copies every other byte as it was, into a temporary file that replaces
 * dat.conf by rename(2) while datadm holds flock(2) on dat.conf's
 * directory (a lock on dat.conf itself would stay on the replaced inode).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>

#include "conf.h"

#define OWN_MARK "# datadm:"
#define AUTO_TAG "auto"
#define SVC_TAG "svc="
#define DEFAULT_LIB "libdaplcma.so.1"

/* One line of a file, with its exact bytes (including the '\n' if any). */
struct line {
	char *text;
	size_t len;		/* bytes in text, '\n' included */
	char *owner;		/* the tag after "# datadm:", or NULL */
	int kind;		/* enum dat_conf_result */
	const char *why;	/* DAT_CONF_MALFORMED: the parser's reason */
	struct dat_conf_entry e;
	char *scratch;
};

struct file {
	const char *path;
	int exists;
	struct line *lines;
	size_t n, cap;
};

static const char *prog = "datadm";

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(1, "out of memory");
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* ---- reading ---- */

/* The tag of an owned line: what follows "# datadm:" up to the end. */
static char *owner_of(const char *text, size_t len)
{
	size_t mlen = strlen(OWN_MARK), end = len, i, start;

	if (end && text[end - 1] == '\n')
		end--;
	while (end && (text[end - 1] == ' ' || text[end - 1] == '\t'))
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
	/* Only an entry can be owned: a marker on a comment line is text. */
	l->owner = l->kind == DAT_CONF_ENTRY ? owner_of(l->text, l->len) : NULL;
}

static void add_line(struct file *f, char *text, size_t len)
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

/* Reads path line by line, as libdat does; a missing file is empty. */
static int read_file(struct file *f, const char *path, int must_exist)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	f->path = path;
	fp = fopen(path, "re");
	if (!fp) {
		if (errno == ENOENT && !must_exist)
			return 0;
		return -1;
	}
	f->exists = 1;
	while ((len = getline(&buf, &cap, fp)) >= 0)
		add_line(f, xstrndup(buf, (size_t)len), (size_t)len);
	free(buf);
	if (ferror(fp)) {
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return 0;
}

/* ---- which dat.conf ---- */

static const char *conf_path(int *override)
{
	const char *env = secure_getenv("DAT_OVERRIDE");

	*override = env && *env;
	if (*override)
		return env;
	if (access(DAT_SYSCONF_PATH, F_OK) == 0)
		return DAT_SYSCONF_PATH;
	if (access(DAT_DEFAULT_CONF, F_OK) == 0)
		return DAT_DEFAULT_CONF;
	return NULL;
}

/* The file a change goes to: the one libdat reads, or a new one. */
static const char *conf_path_for_write(void)
{
	int override;
	const char *p = conf_path(&override);

	return p ? p : DAT_SYSCONF_PATH;
}

/* ---- the status of an entry ---- */

static const char *sysfs(void)
{
	const char *s = getenv("DATADM_SYSFS");

	return s && *s ? s : "/sys";
}

/* snprintf that refuses to truncate: a path or name that does not fit
 * is an error, never a different, shorter one. */
static void fmt(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		die(1, "name too long: %s...", buf);
}

static int path_exists(const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	return n > 0 && (size_t)n < sizeof(p) && access(p, F_OK) == 0;
}

/* Reads a one-line sysfs attribute into buf without its newline. */
static int read_attr(char *buf, size_t size, const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;
	ssize_t n;
	int fd;

	va_start(ap, fmt);
	n = vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(p))
		return -1;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

static int name_ok(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

/*
 * The netdev of an RDMA port: its first GID's netdev (RoCE, iWARP), or
 * an IPoIB interface whose device/infiniband names the RDMA device.
 */
static int port_netdev(const char *dev, const char *port, char *nd,
		       size_t size)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int found = -1;

	if (!read_attr(nd, size, "%s/class/infiniband/%s/ports/%s/gid_attrs/ndevs/0",
		       sysfs(), dev, port))
		return 0;
	snprintf(dir, sizeof(dir), "%s/class/net", sysfs());
	dp = opendir(dir);
	if (!dp)
		return -1;
	while (found && (d = readdir(dp))) {
		char dp_s[16];
		unsigned long p;

		if (!name_ok(d->d_name) ||
		    !path_exists("%s/%s/device/infiniband/%s", dir, d->d_name,
				 dev))
			continue;
		/* dev_port counts from 0, RDMA ports from 1. */
		p = read_attr(dp_s, sizeof(dp_s), "%s/%s/dev_port", dir,
			      d->d_name) ? 0 : strtoul(dp_s, NULL, 0);
		if (p + 1 == strtoul(port, NULL, 10) &&
		    strlen(d->d_name) < size) {
			strcpy(nd, d->d_name);
			found = 0;
		}
	}
	closedir(dp);
	return found;
}

/* True if some port of some RDMA device has netdev nd. */
static int netdev_has_rdma(const char *nd)
{
	char dir[PATH_MAX], pdir[PATH_MAX], got[IF_NAMESIZE + 1];
	struct dirent *d, *p;
	DIR *dd, *pd;
	int yes = 0;

	snprintf(dir, sizeof(dir), "%s/class/infiniband", sysfs());
	dd = opendir(dir);
	if (!dd)
		return 0;
	while (!yes && (d = readdir(dd))) {
		if (!name_ok(d->d_name))
			continue;
		fmt(pdir, sizeof(pdir), "%s/%s/ports", dir, d->d_name);
		pd = opendir(pdir);
		if (!pd)
			continue;
		while (!yes && (p = readdir(pd)))
			yes = name_ok(p->d_name) &&
			      !port_netdev(d->d_name, p->d_name, got,
					   sizeof(got)) &&
			      !strcmp(got, nd);
		closedir(pd);
	}
	closedir(dd);
	return yes;
}

/* The interface that has address a (AF_INET/AF_INET6), into nd. */
static int addr_netdev(const struct sockaddr *a, char *nd, size_t size)
{
	struct ifaddrs *ifa, *i;
	int found = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i && found; i = i->ifa_next) {
		const struct sockaddr *s = i->ifa_addr;

		if (!s || s->sa_family != a->sa_family)
			continue;
		if ((a->sa_family == AF_INET &&
		     !memcmp(&((const struct sockaddr_in *)s)->sin_addr,
			     &((const struct sockaddr_in *)a)->sin_addr, 4)) ||
		    (a->sa_family == AF_INET6 &&
		     !memcmp(&((const struct sockaddr_in6 *)s)->sin6_addr,
			     &((const struct sockaddr_in6 *)a)->sin6_addr,
			     16))) {
			if (strlen(i->ifa_name) < size) {
				strcpy(nd, i->ifa_name);
				found = 0;
			}
		}
	}
	freeifaddrs(ifa);
	return found;
}

/* What the first ia_params word names, checked like the verbs provider
 * reads it: an IP address or hostname, a netdev, or "<device> <port>". */
static void check_params(const char *params, char *st, size_t size)
{
	char name[256], nd[IF_NAMESIZE + 1];
	struct addrinfo hints, *ai = NULL, *a;
	unsigned port = 0;
	int n = sscanf(params, " %255s %u", name, &port);

	if (n < 1) {
		snprintf(st, size, "ia_params: empty");
		return;
	}
	if (path_exists("%s/class/net/%s", sysfs(), name) && name_ok(name)) {
		if (!netdev_has_rdma(name))
			snprintf(st, size, "interface %s has no RDMA device",
				 name);
		return;
	}
	if (name_ok(name) &&
	    path_exists("%s/class/infiniband/%s", sysfs(), name)) {
		if (port && !path_exists("%s/class/infiniband/%s/ports/%u",
					 sysfs(), name, port))
			snprintf(st, size, "RDMA device %s has no port %u",
				 name, port);
		return;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(name, NULL, &hints, &ai) || !ai) {
		snprintf(st, size,
			 "no interface, address or RDMA device named %s",
			 name);
		return;
	}
	for (a = ai; a; a = a->ai_next)
		if (!addr_netdev(a->ai_addr, nd, sizeof(nd)))
			break;
	freeaddrinfo(ai);
	if (!a)
		snprintf(st, size, "address %s is not on a local interface",
			 name);
	else if (!netdev_has_rdma(nd))
		snprintf(st, size, "%s is on interface %s, which has no RDMA device",
			 name, nd);
}

/*
 * An entry of the libfabric provider (libdaplofi.so.1): ia_params are
 * "<libfabric provider> <IPv4 address>", usable if the address is local
 * (a socket binds to it) and libfabric offers that provider's RDM endpoints on it (fi_getinfo,
 * reached through dlopen: datadm does not link libfabric).
 */
static int is_ofi_library(const char *lib)
{
	const char *b = strrchr(lib, '/');

	return !strncmp(b ? b + 1 : lib, "libdaplofi.", 11);
}

static void check_ofi_params(const char *params, char *st, size_t size)
{
	int (*getinfo)(uint32_t, const char *, const char *, uint64_t,
		       const struct fi_info *, struct fi_info **);
	struct fi_info *(*dupinfo)(const struct fi_info *);
	void (*freeinfo)(struct fi_info *);
	char prov[128], host[256], extra[2], ip[INET_ADDRSTRLEN];
	struct addrinfo hints, *ai = NULL;
	struct fi_info *h, *info = NULL;
	void *dl;
	int rc, fd;

	if (sscanf(params, " %127s %255s %1s", prov, host, extra) != 2) {
		snprintf(st, size, "ia_params: want \"<libfabric provider> "
				   "<IPv4 address>\"");
		return;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	if (getaddrinfo(host, NULL, &hints, &ai) || !ai) {
		snprintf(st, size, "no IPv4 address %s", host);
		return;
	}
	inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, ip,
		  sizeof(ip));
	/* local: a socket binds to it (127.0.0.2 is, without being an
	 * interface's own address) */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	rc = fd < 0 || bind(fd, ai->ai_addr, sizeof(struct sockaddr_in));
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	if (rc) {
		snprintf(st, size, "address %s is not on a local interface",
			 host);
		return;
	}
	dl = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
	getinfo = dl ? (__typeof__(getinfo))dlsym(dl, "fi_getinfo") : NULL;
	dupinfo = dl ? (__typeof__(dupinfo))dlsym(dl, "fi_dupinfo") : NULL;
	freeinfo = dl ? (__typeof__(freeinfo))dlsym(dl, "fi_freeinfo") : NULL;
	if (!getinfo || !dupinfo || !freeinfo) {
		snprintf(st, size, "libfabric.so.1 cannot be loaded");
		return;
	}
	h = dupinfo(NULL);
	if (!h) {
		snprintf(st, size, "out of memory");
		return;
	}
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG | FI_RMA;
	h->fabric_attr->prov_name = strdup(prov);
	rc = getinfo(FI_VERSION(1, 17), ip, NULL, FI_SOURCE, h, &info);
	if (rc == -FI_ENODATA) /* providers whose addresses are not IP */
		rc = getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &info);
	freeinfo(h);
	if (rc)
		snprintf(st, size,
			 "libfabric has no provider %s for RDM endpoints on %s",
			 prov, ip);
	else
		freeinfo(info);
}

/*
 * The status of an entry as libdat would use it; "" when all is well.
 * Libraries are loaded the way libdat loads them (RTLD_NOW) and left
 * loaded: their constructors run, dat_provider_init does not.
 */
static void entry_status(const struct file *f, size_t idx, char *st,
			 size_t size, int *problem)
{
	const struct line *l = &f->lines[idx];
	const struct dat_conf_entry *e = &l->e;
	void *dl;
	size_t j;

	*st = '\0';
	*problem = 0;
	if (e->api_kind != 'u') {
		snprintf(st, size, "ignored: kernel entry");
		return;
	}
	if (!e->is_default) {
		snprintf(st, size, "ignored: nondefault");
		return;
	}
	for (j = 0; j < idx; j++) {
		const struct dat_conf_entry *o = &f->lines[j].e;

		if (f->lines[j].kind == DAT_CONF_ENTRY && o->api_kind == 'u' &&
		    o->is_default && !strcmp(o->ia_name, e->ia_name) &&
		    o->api_major == e->api_major &&
		    o->api_minor == e->api_minor &&
		    o->thread_safe == e->thread_safe) {
			snprintf(st, size, "ignored: repeats line %zu", j + 1);
			*problem = 1;
			return;
		}
	}
	*problem = 1;
	dlerror();
	dl = dlopen(e->lib_path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *why = dlerror();

		snprintf(st, size, "library cannot be loaded: %s",
			 why ? why : "?");
		return;
	}
	if (!dlsym(dl, "dat_provider_init")) {
		snprintf(st, size, "library %s has no dat_provider_init",
			 e->lib_path);
		return;
	}
	if (is_ofi_library(e->lib_path))
		check_ofi_params(e->ia_params, st, size);
	else
		check_params(e->ia_params, st, size);
	*problem = *st != '\0';
}

/* ---- -v and --check ---- */

static int list(int verbose)
{
	char st[512];
	int override, problems = 0, problem;
	const char *path = conf_path(&override);
	struct file f;
	size_t i, entries = 0;

	if (!path) {
		if (verbose)
			printf("no dat.conf (%s, %s): no providers registered\n",
			       DAT_SYSCONF_PATH, DAT_DEFAULT_CONF);
		else
			fprintf(stderr, "%s: no dat.conf (%s, %s)\n", prog,
				DAT_SYSCONF_PATH, DAT_DEFAULT_CONF);
		return verbose ? 0 : 1;
	}
	if (read_file(&f, path, 1))
		die(1, "%s%s: %s", override ? "DAT_OVERRIDE=" : "", path,
		    strerror(errno));
	if (verbose) {
		printf("# %s%s\n", override ? "DAT_OVERRIDE=" : "", path);
		printf("%-5s %-20s %-5s %-13s %-20s %-16s %-10s %s\n", "LINE",
		       "IA_NAME", "API", "THREADSAFETY", "LIBRARY",
		       "IA_PARAMS", "OWNER", "STATUS");
	}
	for (i = 0; i < f.n; i++) {
		const struct line *l = &f.lines[i];
		char params[260];

		if (l->kind == DAT_CONF_EMPTY)
			continue;
		if (l->kind == DAT_CONF_MALFORMED) {
			problems++;
			if (verbose)
				printf("%-5zu %-20s %-5s %-13s %-20s %-16s %-10s malformed: %s\n",
				       i + 1, "-", "-", "-", "-", "-", "-",
				       l->why);
			else
				printf("%s:%zu: malformed: %s\n", path, i + 1,
				       l->why);
			continue;
		}
		entries++;
		entry_status(&f, i, st, sizeof(st), &problem);
		problems += problem;
		snprintf(params, sizeof(params), "\"%s\"", l->e.ia_params);
		if (verbose) {
			char api[32];

			snprintf(api, sizeof(api), "%c%u.%u", l->e.api_kind,
				 l->e.api_major, l->e.api_minor);
			printf("%-5zu %-20s %-5s %-13s %-20s %-16s %-10s %s\n",
			       i + 1, l->e.ia_name, api,
			       l->e.thread_safe ? "threadsafe"
						: "nonthreadsafe",
			       l->e.lib_path, params,
			       l->owner ? l->owner : "-", *st ? st : "ok");
		} else if (problem) {
			printf("%s:%zu: %s: %s\n", path, i + 1, l->e.ia_name,
			       st);
		}
	}
	if (verbose)
		printf("# %zu entries, %d problems\n", entries, problems);
	return problems ? 1 : 0;
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
static char *entry_text(const struct dat_conf_entry *e, const char *tag,
			size_t *len)
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

static int same_key(const struct dat_conf_entry *a,
		    const struct dat_conf_entry *b)
{
	return a->api_kind == b->api_kind && !strcmp(a->ia_name, b->ia_name) &&
	       a->api_major == b->api_major && a->api_minor == b->api_minor &&
	       a->thread_safe == b->thread_safe;
}

static double lock_timeout = 10;

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
	if (access(dir, W_OK))
		die(1, "cannot write in %s (%s); nothing changed", dir,
		    strerror(errno));
	free(dir);
}

/* Writes the lines to a temporary file and renames it over f->path. */
static void commit(const struct file *f)
{
	char *dir = dir_of(f->path), *tmp;
	const char *base = strrchr(f->path, '/');
	struct stat st;
	int fd, dfd, err;
	size_t i;
	FILE *fp = NULL;

	base = base ? base + 1 : f->path;
	if (asprintf(&tmp, "%s/.%s.datadm.XXXXXX", dir, base) < 0)
		die(1, "out of memory");
	fd = mkstemp(tmp);
	if (fd < 0)
		die(1, "%s: %s; nothing changed", tmp, strerror(errno));
	if (stat(f->path, &st) == 0) {
		if (fchmod(fd, st.st_mode & 07777) ||
		    (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid)))
			goto fail;
	} else if (fchmod(fd, 0644)) {
		goto fail;
	}
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
	if (fp)
		fclose(fp);
	else if (fd >= 0)
		close(fd);
	unlink(tmp);
	die(1, "cannot write %s: %s; nothing changed", f->path, strerror(err));
}

/* A line datadm marked but cannot parse was edited by hand: stop. */
static void check_owned_lines(const struct file *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->lines[i].kind == DAT_CONF_MALFORMED &&
		    strstr(f->lines[i].text, OWN_MARK))
			die(1, "%s:%zu: a line marked \"%s\" is malformed (%s): fix or remove it; nothing changed",
			    f->path, i + 1, OWN_MARK, f->lines[i].why);
}

/* Ensures the last line ends in '\n' before lines are appended. */
static void terminate_last(struct file *f)
{
	struct line *l;

	if (!f->n)
		return;
	l = &f->lines[f->n - 1];
	if (l->len && l->text[l->len - 1] == '\n')
		return;
	l->text = realloc(l->text, l->len + 1);
	if (!l->text)
		die(1, "out of memory");
	l->text[l->len++] = '\n';
}

/* Drops the lines owned by tag; returns how many. */
static size_t drop_owned(struct file *f, const char *tag)
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
static void append_entries(struct file *f, const struct file *add,
			   const char *what)
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
	for (i = 0; i < add->n; i++)
		add_line(f, add->lines[i].text, add->lines[i].len);
}

/* The service id of a service file: its file name. */
static char *service_tag(const char *file)
{
	const char *base = strrchr(file, '/');
	char *tag;
	size_t i;

	base = base ? base + 1 : file;
	for (i = 0; base[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-",
			    base[i]))
			die(2, "%s: a service file's name may contain only letters, digits and ._+-",
			    file);
	if (!*base || *base == '.')
		die(2, "%s: not a service file name", file);
	if (asprintf(&tag, "%s%s", SVC_TAG, base) < 0)
		die(1, "out of memory");
	return tag;
}

/* Reads and checks a service file; its entries in canonical owned form. */
static void read_service(const char *file, const char *tag, struct file *out)
{
	struct file s;
	size_t i, j, len, entries = 0;
	char *text;

	if (read_file(&s, file, 1))
		die(1, "%s: %s; nothing changed", file, strerror(errno));
	memset(out, 0, sizeof(*out));
	for (i = 0; i < s.n; i++) {
		if (s.lines[i].kind == DAT_CONF_EMPTY)
			continue;
		if (s.lines[i].kind == DAT_CONF_MALFORMED)
			die(1, "%s:%zu: malformed: %s; nothing changed", file,
			    i + 1, s.lines[i].why);
		for (j = 0; j < i; j++)
			if (s.lines[j].kind == DAT_CONF_ENTRY &&
			    same_key(&s.lines[j].e, &s.lines[i].e))
				die(1, "%s:%zu: repeats line %zu; nothing changed",
				    file, i + 1, j + 1);
		text = entry_text(&s.lines[i].e, tag, &len);
		add_line(out, text, len);
		entries++;
	}
	if (!entries)
		die(1, "%s: no entries; nothing changed", file);
}

static int do_add(const char *file)
{
	const char *path = conf_path_for_write();
	char *tag = service_tag(file);
	struct file f, add;
	size_t old;
	int lk;

	read_service(file, tag, &add);
	check_writable(path);
	lk = lock_dir(path);
	if (read_file(&f, path, 0))
		die(1, "%s: %s; nothing changed", path, strerror(errno));
	check_owned_lines(&f);
	old = drop_owned(&f, tag);
	append_entries(&f, &add, file);
	commit(&f);
	close(lk);
	printf("%s: %s %zu entries of %s%s\n", path,
	       old ? "replaced" : "added", add.n, tag + strlen(SVC_TAG),
	       old ? "" : "");
	return 0;
}

static int do_remove(const char *file)
{
	const char *path = conf_path_for_write();
	char *tag = service_tag(file);
	struct file f, svc;
	size_t n;
	int lk;

	/* The file may be gone already (a package being removed); if it
	 * is there, it must be a service file. */
	if (access(file, F_OK) == 0)
		read_service(file, tag, &svc);
	check_writable(path);
	lk = lock_dir(path);
	if (read_file(&f, path, 0))
		die(1, "%s: %s; nothing changed", path, strerror(errno));
	check_owned_lines(&f);
	n = drop_owned(&f, tag);
	if (n)
		commit(&f);
	close(lk);
	printf("%s: removed %zu entries of %s\n", path, n,
	       tag + strlen(SVC_TAG));
	return 0;
}

static const char *update_lib = DEFAULT_LIB;

/* One entry per RDMA port and thread safety, into add. */
static size_t scan_devices(struct file *add)
{
	char dir[PATH_MAX], pdir[PATH_MAX], line[1024], nd[IF_NAMESIZE + 1];
	struct dirent **devs = NULL, **ports = NULL;
	int nd_n, np, i, j, ts;
	size_t n = 0;

	memset(add, 0, sizeof(*add));
	snprintf(dir, sizeof(dir), "%s/class/infiniband", sysfs());
	nd_n = scandir(dir, &devs, NULL, alphasort);
	for (i = 0; i < nd_n; i++) {
		const char *dev = devs[i]->d_name;

		if (!name_ok(dev))
			continue;
		fmt(pdir, sizeof(pdir), "%s/%s/ports", dir, dev);
		np = scandir(pdir, &ports, NULL, alphasort);
		for (j = 0; j < np; j++) {
			const char *port = ports[j]->d_name;
			char params[300], name[300];

			if (!name_ok(port))
				continue;
			if (!port_netdev(dev, port, nd, sizeof(nd)))
				snprintf(params, sizeof(params), "%s 0", nd);
			else
				fmt(params, sizeof(params), "%s %s", dev, port);
			fmt(name, sizeof(name), "%s-%s-cma", dev, port);
			for (ts = 0; ts < 2; ts++) {
				struct line *l;
				char *text;
				size_t len;

				snprintf(line, sizeof(line),
					 "%s u1.2 %s default %s dapl.1.2 \"%s\" \"\"",
					 name, ts ? "threadsafe" : "nonthreadsafe",
					 update_lib, params);
				add_line(add, xstrndup(line, strlen(line)),
					 strlen(line));
				l = &add->lines[add->n - 1];
				if (l->kind != DAT_CONF_ENTRY)
					die(1, "%s: cannot make an entry for %s port %s: %s",
					    dir, dev, port, l->why);
				text = entry_text(&l->e, AUTO_TAG, &len);
				free(l->text);
				free(l->scratch);
				add->n--;
				add_line(add, text, len);
				n++;
			}
			free(ports[j]);
		}
		free(ports);
		ports = NULL;
		free(devs[i]);
	}
	free(devs);
	return n;
}

static int do_update(void)
{
	const char *path = conf_path_for_write();
	struct file f, add;
	size_t old, n;
	int lk;

	n = scan_devices(&add);
	check_writable(path);
	lk = lock_dir(path);
	if (read_file(&f, path, 0))
		die(1, "%s: %s; nothing changed", path, strerror(errno));
	check_owned_lines(&f);
	old = drop_owned(&f, AUTO_TAG);
	append_entries(&f, &add, "-u");
	if (old || n)
		commit(&f);
	close(lk);
	if (!n)
		printf("%s: no RDMA devices (%s/class/infiniband): removed %zu entries\n",
		       path, sysfs(), old);
	else
		printf("%s: %zu entries for the RDMA devices present (%zu removed)\n",
		       path, n, old);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: %s -v | --check | -a SERVICE_FILE | -r SERVICE_FILE | -u\n"
		"          [--lock-timeout SECONDS] [--library LIB]\n"
		"  -v, --verbose      list dat.conf as libdat reads it, with each entry's status\n"
		"      --check        print the problems only; exit 1 if there are any\n"
		"  -a, --add FILE     add (or replace) the entries of a service file\n"
		"  -r, --remove FILE  remove the entries of a service file\n"
		"  -u, --update       regenerate the entries for the RDMA devices present\n"
		"The file: $DAT_OVERRIDE, else %s, else %s.  See datadm(8).\n",
		prog, DAT_SYSCONF_PATH, DAT_DEFAULT_CONF);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"verbose", no_argument, NULL, 'v'},
		{"check", no_argument, NULL, 'c'},
		{"add", required_argument, NULL, 'a'},
		{"remove", required_argument, NULL, 'r'},
		{"update", no_argument, NULL, 'u'},
		{"lock-timeout", required_argument, NULL, 't'},
		{"library", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *arg = NULL;
	char *end;
	int c, op = 0;

	while ((c = getopt_long(argc, argv, "vca:r:uh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
		case 'c':
		case 'a':
		case 'r':
		case 'u':
			if (op && op != c)
				die(2, "one of -v, --check, -a, -r, -u at a time");
			op = c;
			arg = optarg;
			break;
		case 't':
			errno = 0;
			lock_timeout = strtod(optarg, &end);
			if (errno || *end || end == optarg || lock_timeout < 0)
				die(2, "--lock-timeout: not a number of seconds: %s",
				    optarg);
			break;
		case 'l':
			update_lib = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !op) {
		usage(stderr);
		return 2;
	}
	switch (op) {
	case 'v':
		list(1);
		return 0;
	case 'c':
		return list(0);
	case 'a':
		return do_add(arg);
	case 'r':
		return do_remove(arg);
	default:
		return do_update();
	}
}
