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
 *
 * -u writes the provider's drop-in dat.conf.d/libdaplcma1.conf instead of
 * the main file (which Debian's libdapl2 owns under /etc).
 *
 * This file is the command line and the changes: -a and -r (a provider's
 * service file), -u (the RDMA devices present).  datadm_status.c judges
 * the entries (-v, --check); datadm_file.c reads, locks and writes
 * dat.conf.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadm.h"

#define AUTO_TAG "auto"
#define SVC_TAG "svc="
#define DEFAULT_LIB "libdaplcma.so.1"
/* -u's second entry per active port: the socket CM */
#define SCM_LIB "libdaplscm.so.1"
/* -u's file in dat.conf.d: the verbs provider's own (see do_update) */
#define UPDATE_DROPIN "libdaplcma1.conf"


/* ---- -a and -r ---- */

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

/* ---- -u ---- */

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
