/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datadm -v and --check: each entry of dat.conf judged as libdat would
 * use it, against this machine: whether libdat uses it at all, whether
 * its library loads, and whether what its ia_params name (an interface,
 * an address, an RDMA device and port, a libfabric provider and address)
 * is here and can carry an IA now.  Apart from the commands and the file
 * handling because it asks the machine (sysfs, the interfaces, the
 * resolver, libfabric) and changes nothing; -u's scan of the RDMA
 * devices reads sysfs through its helpers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "datadm.h"
#include "../providers/ofi/select.h"

/* ---- the status of an entry ---- */

const char *sysfs(void)
{
	const char *s = getenv("DATADM_SYSFS");

	return s && *s ? s : "/sys";
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
int read_attr(char *buf, size_t size, const char *fmt, ...)
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

int name_ok(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

/*
 * The netdev of an RDMA port: its first GID's netdev (RoCE, iWARP), or
 * an IPoIB interface whose device/infiniband names the RDMA device.
 */
int port_netdev(const char *dev, const char *port, char *nd, size_t size)
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
double resolve_left = -1;

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

int list(int verbose)
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
