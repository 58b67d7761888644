/* SPDX-License-Identifier: BSD-3-Clause */
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
 * else /etc/dat.conf), parsed by the same dat_conf_parse_line(); -u
 * writes the provider's drop-in dat.conf.d/libdaplcma1.conf instead of
 * the main file (which Debian's libdapl2 owns under /etc).  Lines
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
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "conf.h"
#include "../providers/ofi/select.h"

#define OWN_MARK "# datadm:"
#define AUTO_TAG "auto"
#define SVC_TAG "svc="
#define DEFAULT_LIB "libdaplcma.so.1"
/* -u's second entry per active port: the socket CM */
#define SCM_LIB "libdaplscm.so.1"
/* -u's file in dat.conf.d: the verbs provider's own (see do_update) */
#define UPDATE_DROPIN "libdaplcma1.conf"

/* One line of a file, with its exact bytes (including the '\n' if any). */
struct line {
	char *text;
	size_t len;		/* bytes in text, '\n' included */
	char *owner;		/* an entry's tag after "# datadm:", or NULL */
	char *marked;		/* that tag on any line, even a malformed one */
	int kind;		/* enum dat_conf_result */
	const char *why;	/* DAT_CONF_MALFORMED: the parser's reason */
	struct dat_conf_entry e;
	char *scratch;
};

struct file {
	const char *path;
	int exists;
	int crlf;		/* its lines end in "\r\n": new ones will too */
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

/*
 * Reads path as libdat does (a regular file of bounded size, see
 * conf_file.c), split into lines; a missing file is empty unless
 * must_exist.  -1 and *why if it cannot be read.
 */
static int read_file(struct file *f, const char *path, int must_exist,
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

/*
 * Host names in ia_params are looked up only with --resolve, within a
 * time budget for all of them: a resolver that does not answer would
 * otherwise cost its full timeout per entry (getaddrinfo_a, given up at
 * the deadline).  resolve_left < 0: no lookups.
 */
static double resolve_left = -1;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 0 and *res, or -1 with the reason in st. */
static int lookup(const char *name, struct addrinfo **res, char *st,
		  size_t size)
{
	struct gaicb *req = calloc(1, sizeof(*req));
	struct addrinfo *hints = calloc(1, sizeof(*hints));
	double start = now_s(), left;
	int rc;

	if (!req || !hints || !(req->ar_name = strdup(name)))
		die(1, "out of memory");
	hints->ai_family = AF_UNSPEC;
	hints->ai_socktype = SOCK_STREAM;
	req->ar_request = hints;
	if (resolve_left <= 0 || getaddrinfo_a(GAI_NOWAIT, &req, 1, NULL)) {
		snprintf(st, size, "host name %s not looked up: --resolve time spent",
			 name);
		return -1;
	}
	for (;;) {
		const struct gaicb *list[1] = {req};
		struct timespec ts;

		left = resolve_left - (now_s() - start);
		if (left <= 0 || gai_error(req) != EAI_INPROGRESS)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		gai_suspend(list, 1, &ts);
	}
	resolve_left -= now_s() - start;
	rc = gai_error(req);
	if (rc == EAI_INPROGRESS) {
		/* The resolver's thread may still write into req: leave it. */
		gai_cancel(req);
		snprintf(st, size, "lookup of %s timed out (--resolve)", name);
		return -1;
	}
	if (rc) {
		snprintf(st, size,
			 "no interface, address or RDMA device named %s (lookup: %s)",
			 name, gai_strerror(rc));
		return -1;
	}
	*res = req->ar_result;
	return 0;
}

/* Whether interface nd can carry an IA now: "" if it is up, running and
 * has an IP address, else why not, in now. */
static void netdev_now(const char *nd, char *now, size_t size)
{
	struct ifaddrs *ifa, *i;
	unsigned flags = 0;
	int seen = 0, addr = 0;

	if (getifaddrs(&ifa)) {
		snprintf(now, size, "cannot list interfaces: %s",
			 strerror(errno));
		return;
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (strcmp(i->ifa_name, nd))
			continue;
		seen = 1;
		flags |= i->ifa_flags;
		addr |= i->ifa_addr && (i->ifa_addr->sa_family == AF_INET ||
					i->ifa_addr->sa_family == AF_INET6);
	}
	freeifaddrs(ifa);
	if (!seen)
		snprintf(now, size, "interface %s is not here", nd);
	else if (!(flags & IFF_UP))
		snprintf(now, size, "interface %s is down", nd);
	else if (!(flags & IFF_RUNNING))
		snprintf(now, size, "interface %s has no link", nd);
	else if (!addr)
		snprintf(now, size, "interface %s has no IP address", nd);
}

/* A verbs port can carry an IA now: it is ACTIVE and, if it has an
 * interface, that one can (the provider binds to its address). */
static void port_now(const char *dev, unsigned port, char *now, size_t size)
{
	char state[64], p[16], nd[IF_NAMESIZE + 1];

	if (!port)
		return;
	snprintf(p, sizeof(p), "%u", port);
	if (read_attr(state, sizeof(state), "%s/class/infiniband/%s/ports/%u/state",
		      sysfs(), dev, port) ||
	    !strstr(state, "ACTIVE")) {
		snprintf(now, size, "RDMA device %s port %u is not active", dev,
			 port);
		return;
	}
	if (!port_netdev(dev, p, nd, sizeof(nd)))
		netdev_now(nd, now, size);
}

/* The address /etc/hosts gives name (into hosts_addr), read as a file:
 * no resolver, nothing that can block. */
static char hosts_addr[64];

static int hosts_file(const char *name)
{
	char line[1024], *tok, *sp, *addr;
	FILE *fp = fopen("/etc/hosts", "re");
	int found = 0;

	if (!fp)
		return 0;
	while (!found && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "#\n")] = '\0';
		addr = strtok_r(line, " \t", &sp);
		while (addr && !found && (tok = strtok_r(NULL, " \t", &sp)))
			found = !strcmp(tok, name) &&
				strlen(addr) < sizeof(hosts_addr);
		if (found)
			strcpy(hosts_addr, addr);
	}
	fclose(fp);
	return found;
}

/*
 * What the first ia_params word names, checked like the verbs provider
 * reads it: an IP address, a netdev, "<device> <port>", or a host name
 * (in /etc/hosts, else looked up only with --resolve).  st gets a problem of the entry, now
 * why it cannot open at this moment ("" for both: it opens now; *unknown
 * when that could not be told).
 */
static void check_params(const char *params, char *st, size_t size,
			 char *now, size_t now_size, int *unknown)
{
	char name[256], nd[IF_NAMESIZE + 1];
	struct addrinfo hints, *ai = NULL, *a;
	unsigned port = 0;
	int n = sscanf(params, " %255s %u", name, &port);

	*unknown = 0;
	if (n < 1) {
		snprintf(st, size, "ia_params: empty");
		return;
	}
	if (path_exists("%s/class/net/%s", sysfs(), name) && name_ok(name)) {
		if (!netdev_has_rdma(name))
			snprintf(st, size, "interface %s has no RDMA device",
				 name);
		else
			netdev_now(name, now, now_size);
		return;
	}
	if (name_ok(name) &&
	    path_exists("%s/class/infiniband/%s", sysfs(), name)) {
		if (port && !path_exists("%s/class/infiniband/%s/ports/%u",
					 sysfs(), name, port))
			snprintf(st, size, "RDMA device %s has no port %u",
				 name, port);
		else
			port_now(name, port, now, now_size);
		return;
	}
	/* An address literal needs no resolver; a host name does. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(name, NULL, &hints, &ai) &&
	    (!hosts_file(name) ||
	     getaddrinfo(hosts_addr, NULL, &hints, &ai))) {
		ai = NULL;
		if (resolve_left < 0) {
			snprintf(st, size,
				 "no interface, address or RDMA device named %s (host names are looked up only with --resolve)",
				 name);
			return;
		}
		if (lookup(name, &ai, st, size))
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
	else
		netdev_now(nd, now, now_size);
}

/* The entries seen so far, in every file listed: for "repeats". */
struct seen {
	const char *path;
	size_t line;
	const struct dat_conf_entry *e;
};
static struct seen *seen;
static size_t n_seen, cap_seen;

static const struct seen *seen_key(const struct dat_conf_entry *e)
{
	size_t j;

	for (j = 0; j < n_seen; j++) {
		const struct dat_conf_entry *o = seen[j].e;

		if (!strcmp(o->ia_name, e->ia_name) &&
		    o->api_major == e->api_major &&
		    o->api_minor == e->api_minor &&
		    o->thread_safe == e->thread_safe)
			return &seen[j];
	}
	return NULL;
}

static void seen_add(const char *path, size_t line,
		     const struct dat_conf_entry *e)
{
	if (n_seen == cap_seen) {
		cap_seen = cap_seen ? 2 * cap_seen : 64;
		seen = realloc(seen, cap_seen * sizeof(*seen));
		if (!seen)
			die(1, "out of memory");
	}
	seen[n_seen++] = (struct seen){path, line, e};
}

/*
 * An entry of the libfabric provider (libdaplofi.so.1): ia_params are
 * "<libfabric provider> <IPv4 address>", usable if the address is local
 * (a socket binds to it) and libfabric offers the endpoints the IA will
 * open there: the provider's own selection (providers/ofi/select.c: MSG
 * for a provider named alone where offered, else RDM), with fi_getinfo
 * reached through dlopen (datadm does not link libfabric).
 */
static int is_ofi_library(const char *lib)
{
	const char *b = strrchr(lib, '/');

	return !strncmp(b ? b + 1 : lib, "libdaplofi.", 11);
}

static void check_ofi_params(const char *params, char *st, size_t size)
{
	char prov[128], host[256], extra[2], ip[INET_ADDRSTRLEN];
	struct addrinfo hints, *ai = NULL;
	struct fi_info *info = NULL;
	struct ofi_fi_calls fi;
	struct sockaddr_in sin;
	void *dl;
	int rc, fd;

	if (sscanf(params, " %127s %255s %1s", prov, host, extra) != 2) {
		snprintf(st, size, "ia_params: want \"<libfabric provider> "
				   "<IPv4 address>\"");
		return;
	}
	/* an address literal, or a name of /etc/hosts: no resolver */
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_flags = AI_NUMERICHOST;
	if ((getaddrinfo(host, NULL, &hints, &ai) &&
	     (!hosts_file(host) ||
	      getaddrinfo(hosts_addr, NULL, &hints, &ai))) ||
	    !ai) {
		snprintf(st, size, "no IPv4 address %s", host);
		return;
	}
	sin = *(struct sockaddr_in *)ai->ai_addr;
	inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));
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
	/* the provider's own calls, ours through dlopen */
	fi.getinfo = dl ? (__typeof__(fi.getinfo))dlsym(dl, "fi_getinfo")
			: NULL;
	fi.dupinfo = dl ? (__typeof__(fi.dupinfo))dlsym(dl, "fi_dupinfo")
			: NULL;
	fi.freeinfo = dl ? (__typeof__(fi.freeinfo))dlsym(dl, "fi_freeinfo")
			 : NULL;
	if (!fi.getinfo || !fi.dupinfo || !fi.freeinfo) {
		snprintf(st, size, "libfabric.so.1 cannot be loaded");
		return;
	}
	rc = ofi_select_info(&fi, prov, &sin, &info);
	if (rc == -FI_ENOSYS)
		snprintf(st, size, "refused: %s", ofi_refused(prov));
	else if (rc == -FI_ENOMEM)
		snprintf(st, size, "out of memory");
	else if (rc)
		snprintf(st, size,
			 "libfabric has no provider %s for %s endpoints on %s",
			 prov, ofi_msg_wanted(prov) ? "MSG or RDM" : "RDM",
			 ip);
	else
		fi.freeinfo(info);
}

/*
 * The status of an entry as libdat would use it: st "" when all is well
 * (else what is wrong, or why libdat ignores it), *problem if --check
 * should fail on it, and in opens "yes", "no" (now says why), "?" or "-"
 * (not used by libdat).  Libraries are loaded the way libdat loads them
 * (RTLD_NOW) and left loaded: their constructors run, dat_provider_init
 * does not.
 */
static void entry_status(const struct file *f, size_t idx, char *st,
			 size_t size, int *problem, const char **opens,
			 char *now, size_t now_size)
{
	const struct line *l = &f->lines[idx];
	const struct dat_conf_entry *e = &l->e;
	const struct seen *o;
	int unknown = 0;
	void *dl;

	*st = '\0';
	*now = '\0';
	*problem = 0;
	*opens = "-";
	if (e->api_kind != 'u') {
		snprintf(st, size, "ignored: kernel entry");
		return;
	}
	if (!e->is_default) {
		snprintf(st, size, "ignored: nondefault");
		return;
	}
	o = seen_key(e);
	if (o) {
		if (o->path == f->path)
			snprintf(st, size, "ignored: repeats line %zu", o->line);
		else
			snprintf(st, size, "ignored: repeats %s:%zu", o->path,
				 o->line);
		*problem = 1;
		return;
	}
	seen_add(f->path, idx + 1, e);
	/* DAT 2.0's entries (a libdapl2 installation's /etc/dat.conf) are
	 * for its own libdat: neither used nor broken here. */
	if (e->api_major != 1) {
		snprintf(st, size, "other DAT version (u%u.%u), not checked",
			 e->api_major, e->api_minor);
		return;
	}
	*problem = 1;
	*opens = "no";
	if (strchr(e->lib_path, '/') && e->lib_path[0] != '/') {
		snprintf(st, size,
			 "library path %s is relative to the current directory: libdat refuses it",
			 e->lib_path);
		return;
	}
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
		check_params(e->ia_params, st, size, now, now_size, &unknown);
	*problem = *st != '\0';
	if (!*problem)
		*opens = unknown ? "?" : *now ? "no" : "yes";
}

/* ---- which files ---- */

/* --file or --drop-in: the one file to list or change. */
static const char *target_file;

/* The files libdat reads, in its order; *override when DAT_OVERRIDE
 * chose (or --file named) the one file.  The main dat.conf is listed
 * only if it exists. */
static size_t conf_files(const char ***paths, int *override)
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

/* ---- -v and --check ---- */

static int list_file(const char *path, int override, int verbose,
		     size_t *entries)
{
	char st[512], now[512];
	int problems = 0, problem;
	const char *why, *opens;
	struct file *f = xmalloc(sizeof(*f));	/* kept: seen[] points in */
	size_t i;

	if (read_file(f, path, 1, &why))
		die(1, "%s%s: %s", override ? "DAT_OVERRIDE=" : "", path, why);
	if (verbose) {
		printf("# %s%s\n", override && !target_file ? "DAT_OVERRIDE=" : "",
		       path);
		printf("%-5s %-20s %-5s %-13s %-20s %-16s %-10s %-5s %s\n",
		       "LINE", "IA_NAME", "API", "THREADSAFETY", "LIBRARY",
		       "IA_PARAMS", "OWNER", "OPENS", "STATUS");
	}
	for (i = 0; i < f->n; i++) {
		const struct line *l = &f->lines[i];
		char params[260];

		if (l->kind == DAT_CONF_EMPTY)
			continue;
		if (l->kind == DAT_CONF_MALFORMED) {
			problems++;
			if (verbose)
				printf("%-5zu %-20s %-5s %-13s %-20s %-16s %-10s %-5s malformed: %s\n",
				       i + 1, "-", "-", "-", "-", "-", "-", "-",
				       l->why);
			else
				printf("%s:%zu: malformed: %s\n", path, i + 1,
				       l->why);
			continue;
		}
		(*entries)++;
		entry_status(f, i, st, sizeof(st), &problem, &opens, now,
			     sizeof(now));
		problems += problem;
		snprintf(params, sizeof(params), "\"%s\"", l->e.ia_params);
		if (verbose) {
			char api[32];

			snprintf(api, sizeof(api), "%c%u.%u", l->e.api_kind,
				 l->e.api_major, l->e.api_minor);
			printf("%-5zu %-20s %-5s %-13s %-20s %-16s %-10s %-5s %s%s%s%s\n",
			       i + 1, l->e.ia_name, api,
			       l->e.thread_safe ? "threadsafe"
						: "nonthreadsafe",
			       l->e.lib_path, params,
			       l->owner ? l->owner : "-", opens,
			       *st ? st : "ok", *now ? " (" : "", now,
			       *now ? ")" : "");
		} else if (problem) {
			printf("%s:%zu: %s: %s\n", path, i + 1, l->e.ia_name,
			       st);
		}
	}
	return problems;
}

static int list(int verbose)
{
	int override, problems = 0;
	const char **paths;
	size_t n = conf_files(&paths, &override), i, entries = 0;

	if (!n) {
		if (verbose)
			printf("no dat.conf (%s, %s, %s/*.conf): no providers registered\n",
			       DAT_SYSCONF_PATH, DAT_DEFAULT_CONF,
			       DAT_SYSCONF_DIR);
		else
			fprintf(stderr, "%s: no dat.conf (%s, %s, %s/*.conf)\n",
				prog, DAT_SYSCONF_PATH, DAT_DEFAULT_CONF,
				DAT_SYSCONF_DIR);
		return verbose ? 0 : 1;
	}
	for (i = 0; i < n; i++)
		problems += list_file(paths[i], override, verbose, &entries);
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
static void commit(const struct file *f)
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

/* The first character of s that field may not hold, or NULL; bare
 * fields (written unquoted, as every DAT parser reads them) take no blank,
 * '#' or quote either. */
static const char *bad_char(const char *s, int bare)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f ||
		    (bare && (*s == ' ' || *s == '#' || *s == '"')))
			return s;
	return NULL;
}

static int same_entry(const struct dat_conf_entry *a,
		      const struct dat_conf_entry *b)
{
	return !strcmp(a->ia_name, b->ia_name) && a->api_kind == b->api_kind &&
	       a->api_major == b->api_major && a->api_minor == b->api_minor &&
	       a->thread_safe == b->thread_safe &&
	       a->is_default == b->is_default &&
	       !strcmp(a->lib_path, b->lib_path) &&
	       !strcmp(a->provider_id, b->provider_id) &&
	       a->provider_major == b->provider_major &&
	       a->provider_minor == b->provider_minor &&
	       !strcmp(a->ia_params, b->ia_params) &&
	       !strcmp(a->platform_params, b->platform_params);
}

/*
 * Refuses an entry that would not be read back exactly as it is: a
 * control character anywhere, a blank, '#' or quote in a bare field, or
 * (to be sure) a written line that parses into anything else.  0, or -1
 * and the reason in why.
 */
static int check_entry(const struct dat_conf_entry *e, const char *text,
		       size_t len, char *why, size_t size)
{
	static const char *const names[] = {"ia_name", "library",
					     "provider_version", "ia_params",
					     "platform_params"};
	const char *fields[] = {e->ia_name, e->lib_path, e->provider_id,
				e->ia_params, e->platform_params};
	struct dat_conf_entry back;
	const char *bad, *pwhy;
	char *scratch;
	unsigned i;
	int ok;

	for (i = 0; i < 5; i++) {
		bad = bad_char(fields[i], i < 3);
		if (!bad)
			continue;
		if ((unsigned char)*bad < 0x20 || *bad == 0x7f)
			snprintf(why, size, "%s holds the control character 0x%02x",
				 names[i], (unsigned char)*bad);
		else
			snprintf(why, size, "%s holds '%c', which a dat.conf parser would not read back",
				 names[i], *bad);
		return -1;
	}
	scratch = xmalloc(len + DAT_CONF_FIELDS);
	ok = dat_conf_parse_line(text, len - 1, scratch, &back, &pwhy) ==
		     DAT_CONF_ENTRY &&
	     same_entry(e, &back);
	free(scratch);
	if (!ok) {
		snprintf(why, size, "the line would not be read back as written");
		return -1;
	}
	return 0;
}

/* Reads and checks a service file; its entries in canonical owned form. */
static void read_service(const char *file, const char *tag, struct file *out)
{
	struct file s;
	size_t i, j, len, entries = 0;
	char *text, why[160];
	const char *rwhy;

	if (read_file(&s, file, 1, &rwhy))
		die(1, "%s: %s; nothing changed", file, rwhy);
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
		if (check_entry(&s.lines[i].e, text, len, why, sizeof(why)))
			die(1, "%s:%zu: %s; nothing changed", file, i + 1,
			    why);
		add_line(out, text, len);
		entries++;
	}
	if (!entries)
		die(1, "%s: no entries; nothing changed", file);
}

/*
 * Starts a change: the file (a symlink's target), checked, locked and
 * read.  *shown is the name to report.  Returns the lock's descriptor.
 */
static int begin_edit(struct file *f, const char **shown, const char *tag)
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

static int do_add(const char *file)
{
	char *tag = service_tag(file);
	const char *path;
	struct file f, add;
	size_t old;
	int lk;

	read_service(file, tag, &add);
	lk = begin_edit(&f, &path, tag);
	old = drop_owned(&f, tag);
	append_entries(&f, &add, file);
	commit(&f);
	close(lk);
	printf("%s: %s %zu entries of %s\n", path, old ? "replaced" : "added",
	       add.n, tag + strlen(SVC_TAG));
	return 0;
}

static int do_remove(const char *file)
{
	char *tag = service_tag(file);
	const char *path;
	struct file f, svc;
	size_t n;
	int lk;

	/* The file may be gone already (a package being removed); if it
	 * is there, it must be a service file. */
	if (access(file, F_OK) == 0)
		read_service(file, tag, &svc);
	lk = begin_edit(&f, &path, tag);
	n = drop_owned(&f, tag);
	if (n)
		commit(&f);
	close(lk);
	printf("%s: removed %zu entries of %s\n", path, n,
	       tag + strlen(SVC_TAG));
	return 0;
}

static const char *update_lib = DEFAULT_LIB;

/* The number of a name made of prefix and digits ("ib2": 2), or -1. */
static long numbered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long k;

	if (strncmp(name, prefix, n) || name[n] < '0' || name[n] > '9')
		return -1;
	k = strtol(name + n, &end, 10);
	return *end ? -1 : k;
}

/*
 * The IA name -u gives interface nd (of port `port` of RDMA device dev):
 * compat-dapl's names for IPoIB and bonds, OpenIB-cma-roe-<nd> (RoCE) and
 * OpenIB-iwarp-<nd> (iWARP) for the others, OpenIB-cma-<dev>-<port> for a
 * port without an interface.  The table is in datadm(8).
 */
static void auto_name(const char *dev, const char *port, const char *nd,
		      char *name, size_t size)
{
	char attr[64];
	long k;

	if (!nd) {
		fmt(name, size, "OpenIB-cma-%s-%s", dev, port);
	} else if ((k = numbered(nd, "ib")) >= 0) {
		if (k)
			fmt(name, size, "OpenIB-cma-%ld", k);
		else
			fmt(name, size, "OpenIB-cma");
	} else if ((k = numbered(nd, "bond")) >= 0) {
		if (k)
			fmt(name, size, "OpenIB-bond-%ld", k);
		else
			fmt(name, size, "OpenIB-bond");
	} else if (dev && !read_attr(attr, sizeof(attr),
				     "%s/class/infiniband/%s/node_type", sysfs(),
				     dev) && attr[0] == '4') {
		/* node type 4: RNIC, an iWARP device */
		fmt(name, size, "OpenIB-iwarp-%s", nd);
	} else if (dev && !read_attr(attr, sizeof(attr),
				     "%s/class/infiniband/%s/ports/%s/link_layer",
				     sysfs(), dev, port) &&
		   !strcmp(attr, "Ethernet")) {
		fmt(name, size, "OpenIB-cma-roe-%s", nd);
	} else {
		fmt(name, size, "OpenIB-cma-%s", nd);
	}
}

/* Adds the two entries (nonthreadsafe, threadsafe) of name for lib,
 * unless -u made that name already (ports sharing an interface). */
static size_t add_auto_lib(struct file *add, const char *name,
			   const char *lib, const char *params)
{
	char line[1024];
	size_t i, len;
	int ts;

	for (i = 0; i < add->n; i++)
		if (!strcmp(add->lines[i].e.ia_name, name))
			return 0;
	for (ts = 0; ts < 2; ts++) {
		struct line *l;
		char *text;

		fmt(line, sizeof(line),
		    "%s u1.2 %s default %s dapl.1.2 \"%s\" \"\"", name,
		    ts ? "threadsafe" : "nonthreadsafe", lib, params);
		add_line(add, xstrndup(line, strlen(line)), strlen(line));
		l = &add->lines[add->n - 1];
		if (l->kind != DAT_CONF_ENTRY)
			die(1, "cannot make an entry for %s: %s", name, l->why);
		text = entry_text(&l->e, AUTO_TAG, &len);
		free(l->text);
		free(l->scratch);
		add->n--;
		add_line(add, text, len);
	}
	return 2;
}

static size_t add_auto(struct file *add, const char *name,
		       const char *params)
{
	return add_auto_lib(add, name, update_lib, params);
}

/*
 * The socket CM's entries (libdaplscm.so.1), compat-dapl's
 * OpenIB-<dev>-<port> with ia_params "<dev> <port>", for a port that is
 * up (ACTIVE): beside rdma_cm's, unless --library named another library
 * for -u.
 */
static size_t add_scm(struct file *add, const char *dev, const char *port)
{
	char state[64], name[300], params[300];

	if (strcmp(update_lib, DEFAULT_LIB) ||
	    read_attr(state, sizeof(state), "%s/class/infiniband/%s/ports/%s/state",
		      sysfs(), dev, port) ||
	    !strstr(state, "ACTIVE"))
		return 0;
	fmt(name, sizeof(name), "OpenIB-%s-%s", dev, port);
	fmt(params, sizeof(params), "%s %s", dev, port);
	return add_auto_lib(add, name, SCM_LIB, params);
}

/* The bonds over interfaces of RDMA ports (nds, n of them): one entry
 * pair each, for rdma_cm over the bond's address. */
static size_t scan_bonds(struct file *add, char (*nds)[IF_NAMESIZE + 1],
			 size_t n)
{
	char dir[PATH_MAX], slaves[1024], name[300], params[300], *tok, *sp;
	struct dirent **nets = NULL;
	size_t added = 0, i;
	int nn, j, hit;

	fmt(dir, sizeof(dir), "%s/class/net", sysfs());
	nn = scandir(dir, &nets, NULL, alphasort);
	for (j = 0; j < nn; j++) {
		const char *bond = nets[j]->d_name;

		hit = 0;
		if (name_ok(bond) &&
		    !read_attr(slaves, sizeof(slaves), "%s/%s/bonding/slaves",
			       dir, bond))
			for (tok = strtok_r(slaves, " \t", &sp); tok && !hit;
			     tok = strtok_r(NULL, " \t", &sp))
				for (i = 0; i < n && !hit; i++)
					hit = !strcmp(tok, nds[i]);
		if (hit) {
			auto_name(NULL, NULL, bond, name, sizeof(name));
			if (!strncmp(name, "OpenIB-cma-", 11))
				fmt(name, sizeof(name), "OpenIB-bond-%s", bond);
			fmt(params, sizeof(params), "%s 0", bond);
			added += add_auto(add, name, params);
		}
		free(nets[j]);
	}
	free(nets);
	return added;
}

/* Two entries per RDMA port (or its interface), two more for the socket
 * CM where the port is active, and two per bond, into add. */
static size_t scan_devices(struct file *add)
{
	char dir[PATH_MAX], pdir[PATH_MAX], nd[IF_NAMESIZE + 1];
	char (*nds)[IF_NAMESIZE + 1] = NULL;
	struct dirent **devs = NULL, **ports = NULL;
	int nd_n, np, i, j;
	size_t n = 0, n_nds = 0;

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
			if (!port_netdev(dev, port, nd, sizeof(nd))) {
				fmt(params, sizeof(params), "%s 0", nd);
				auto_name(dev, port, nd, name, sizeof(name));
				nds = realloc(nds, (n_nds + 1) * sizeof(*nds));
				if (!nds)
					die(1, "out of memory");
				strcpy(nds[n_nds++], nd);
			} else {
				fmt(params, sizeof(params), "%s %s", dev, port);
				auto_name(dev, port, NULL, name, sizeof(name));
			}
			n += add_auto(add, name, params);
			n += add_scm(add, dev, port);
			free(ports[j]);
		}
		free(ports);
		ports = NULL;
		free(devs[i]);
	}
	free(devs);
	n += scan_bonds(add, nds, n_nds);
	free(nds);
	return n;
}

/*
 * Drops from add the entries that f already holds exactly as -u would
 * write them, on a line datadm does not own (the sample entries of the
 * provider's drop-in file, OpenIB-cma for ib0 and so on): that line
 * serves, and -u neither repeats nor refuses it.  Returns how many.
 */
static size_t drop_present(const struct file *f, struct file *add)
{
	size_t i, j, k = 0, n = 0;

	for (i = 0; i < add->n; i++) {
		int there = 0;

		for (j = 0; j < f->n && !there; j++)
			there = f->lines[j].kind == DAT_CONF_ENTRY &&
				!f->lines[j].owner &&
				same_entry(&f->lines[j].e, &add->lines[i].e);
		if (there) {
			n++;
			continue;
		}
		add->lines[k++] = add->lines[i];
	}
	add->n = k;
	return n;
}

static int do_update(void)
{
	const char *path, *env = secure_getenv("DAT_OVERRIDE");
	struct file f, add;
	size_t old, n, present;
	int lk;

	/*
	 * Without --file, --drop-in or DAT_OVERRIDE, the entries go to the
	 * provider's own drop-in file (the one make install and the
	 * libdaplcma1 package install), never to the main dat.conf: under
	 * SYSCONFDIR=/etc that is Debian's libdapl2's conffile, which no
	 * other package or tool may edit.
	 */
	if (!target_file && !(env && *env)) {
		target_file = DAT_SYSCONF_DIR "/" UPDATE_DROPIN;
		printf("%s: -u writes the drop-in file %s; %s is not edited\n",
		       prog, target_file, DAT_SYSCONF_PATH);
	}
	n = scan_devices(&add);
	lk = begin_edit(&f, &path, AUTO_TAG);
	old = drop_owned(&f, AUTO_TAG);
	present = drop_present(&f, &add);
	append_entries(&f, &add, "-u");
	if (old || add.n)
		commit(&f);
	close(lk);
	if (!n)
		printf("%s: no RDMA devices (%s/class/infiniband): removed %zu entries\n",
		       path, sysfs(), old);
	else if (present)
		printf("%s: %zu entries for the RDMA devices present (%zu removed, %zu already there as written)\n",
		       path, n, old, present);
	else
		printf("%s: %zu entries for the RDMA devices present (%zu removed)\n",
		       path, n, old);
	return 0;
}

/* --drop-in NAME: SYSCONFDIR/dat.conf.d/NAME.conf. */
static const char *drop_in(const char *name)
{
	size_t i, n = strlen(name);
	char *path;

	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-",
			    name[i]))
			die(2, "--drop-in %s: a name of letters, digits and ._+- only",
			    name);
	if (!n || name[0] == '.')
		die(2, "--drop-in %s: not a file name", name);
	if (asprintf(&path, "%s/%s%s", DAT_SYSCONF_DIR, name,
		     n > 5 && !strcmp(name + n - 5, ".conf") ? "" : ".conf") < 0)
		die(1, "out of memory");
	return path;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: %s -v | --check | -a SERVICE_FILE | -r SERVICE_FILE | -u\n"
		"          [--file FILE | --drop-in NAME] [--resolve[=SECONDS]]\n"
		"          [--lock-timeout SECONDS] [--library LIB]\n"
		"       %s --version\n"
		"  -v, --verbose      list the registry as libdat reads it: each entry's\n"
		"                     status and whether it opens now\n"
		"      --check        print the problems only; exit 1 if there are any\n"
		"  -a, --add FILE     add (or replace) the entries of a service file\n"
		"  -r, --remove FILE  remove the entries of a service file\n"
		"  -u, --update       regenerate the entries for the RDMA devices present\n"
		"                     into %s/" UPDATE_DROPIN "\n"
		"  -f, --file FILE    list or change FILE only\n"
		"  -d, --drop-in NAME list or change %s/NAME.conf only\n"
		"      --resolve[=S]  look host names in ia_params up, for S seconds in all (10)\n"
		"The registry: $DAT_OVERRIDE, else %s (or %s)\n"
		"and %s/*.conf.  See datadm(8).\n",
		prog, prog, DAT_SYSCONF_DIR, DAT_SYSCONF_DIR, DAT_SYSCONF_PATH,
		DAT_DEFAULT_CONF, DAT_SYSCONF_DIR);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"verbose", no_argument, NULL, 'v'},
		{"check", no_argument, NULL, 'c'},
		{"add", required_argument, NULL, 'a'},
		{"remove", required_argument, NULL, 'r'},
		{"update", no_argument, NULL, 'u'},
		{"file", required_argument, NULL, 'f'},
		{"drop-in", required_argument, NULL, 'd'},
		{"resolve", optional_argument, NULL, 'R'},
		{"lock-timeout", required_argument, NULL, 't'},
		{"library", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *arg = NULL;
	char *end;
	int c, op = 0;

	while ((c = getopt_long(argc, argv, "vca:r:uf:d:h", opts, NULL)) != -1) {
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
		case 'f':
		case 'd':
			if (target_file)
				die(2, "one --file or --drop-in at a time");
			target_file = c == 'f' ? optarg : drop_in(optarg);
			break;
		case 'R':
			resolve_left = 10;
			if (optarg) {
				errno = 0;
				resolve_left = strtod(optarg, &end);
				if (errno || *end || end == optarg ||
				    resolve_left < 0)
					die(2, "--resolve: not a number of seconds: %s",
					    optarg);
			}
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
		case 'V':	/* --version: the release, not the DAT level */
			printf("datadm (uDAPL) %s, DAT API 1.2\n",
			       PROJECT_VERSION);
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
