/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qualspace.c - dattest-ofi-qualspace: issue 39, qualifiers that never
 * collide with the host's other sockets (test/ofi/qualspace.bats).
 *
 * dattest-ofi-qualspace qualspace local -i IA -a ADDR [-n N]
 *   with VT_FIRST_IA naming the listening IA, whose address is ADDR.
 *   - A TCP socket of this process holds a port E of ADDR that the kernel
 *     picked (an ephemeral one, where any outgoing socket of the host may
 *     sit), listening.
 *   - N service points (-n, 1,000 by default; fewer where the IA has
 *     fewer endpoints, each listener taking one: shm's domain has 256) on
 *     distinct qualifiers of the listening IA: E itself, E + 65535 (where
 *     the old mapping put E too), and a run of consecutive qualifiers
 *     near 0xAffab1e (the issue's, whose 33rd was refused); every tenth
 *     an RSP, the others PSPs.  Their ports (providers/ofi/addr.c:
 *     1024 + (Q - 1024) mod 31744) are in 2000..8999, where no other
 *     suite's listeners go (free_qual 10000 up, planted.bats 20000 up,
 *     PSP_any 24576 up): the socket is bound again until E's two are,
 *     and the run is a stretch away from them and from every port that
 *     another program's socket or shm region holds when it is chosen;
 *     qualspace.bats keeps two runs from overlapping.  Each create
 *     returns DAT_SUCCESS (dat_psp_create(3DAT): "When the Public
 *     Service Point is created, DAT_SUCCESS is returned"): no DAT
 *     listener holds any of them.  The one exception, at most 3 of them:
 *     a port that another program of the host took after the choice,
 *     shown holding it (qs_held_elsewhere), gets DAT_CONN_QUAL_IN_USE
 *     ("The specified Connection Qualifier was in use"), as it must; a
 *     refusal on a port nobody else holds fails.
 *   - A second PSP on one of them: DAT_CONN_QUAL_IN_USE (dat_psp_create(3DAT):
 *     "The specified Connection Qualifier was in use.").
 *   - A connect from IA to E, to the last RSP's qualifier and to one of
 *     the middle: each request reaches its own service point (the
 *     Connection Request Notice "includes ... Public Service Point, its
 *     Connection Qualifier"), which rejects it: PEER_REJECTED at the
 *     client, the request having reached a listener that took it.
 *   - Every service point freed: DAT_SUCCESS.
 * PASS and exit status 0 only if every check passed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "../verbs/vt.h"

#define QS_MAX 1000
#define QS_BASE 0xAffab1eULL
/* the run's ports: a stretch of QS_LO..QS_HI - 1 */
#define QS_LO 2000
#define QS_HI 9000

/* the port of a qualifier, as providers/ofi/sp.c ofi_qual_port has it
 * (for qualifiers of 1024 up) */
static unsigned qs_port(DAT_CONN_QUAL q)
{
	return (unsigned)(1024 + (q - 1024) % 31744);
}

/* the first qualifier of the run: near QS_BASE, its port p0 */
static DAT_CONN_QUAL qs_run_base(unsigned p0)
{
	return QS_BASE - (QS_BASE - 1024) % 31744 + (p0 - 1024);
}

struct qs_sp {
	DAT_CONN_QUAL qual;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_EP_HANDLE ep;	/* an RSP's */
};

static int qs_in(unsigned port, unsigned lo, unsigned hi)
{
	return port >= lo && port < hi;
}

/* a listening TCP socket at (addr, the kernel's pick E) where E's and
 * E + 65535's ports are in QS_LO..QS_HI - 1: E */
static int qs_hold_port(const char *addr, int *fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int i;

	for (i = 0; i < 1000; i++) {
		vt_sockaddr(&sin, addr);
		sin.sin_port = 0;
		*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (*fd < 0 ||
		    bind(*fd, (struct sockaddr *)&sin, sizeof(sin)) ||
		    getsockname(*fd, (struct sockaddr *)&sin, &len))
			vt_die("a socket on an ephemeral port: %s",
			       strerror(errno));
		if (qs_in(qs_port(ntohs(sin.sin_port)), QS_LO, QS_HI) &&
		    qs_in(qs_port(ntohs(sin.sin_port) + 65535ULL), QS_LO,
			  QS_HI))
			break;
		close(*fd);
	}
	if (i == 1000 || listen(*fd, 4))
		vt_die("no ephemeral port whose qualifiers' ports are in "
		       "%u..%u", QS_LO, QS_HI - 1);
	return ntohs(sin.sin_port);
}

/* whether the socket of that inode is one of this process's fds */
static int qs_sock_ours(unsigned long inode)
{
	char want[40], got[40], path[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int ours = 0;

	if (!dir)
		vt_die("/proc/self/fd: %s", strerror(errno));
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (!ours && (d = readdir(dir))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%.24s", d->d_name);
		n = readlink(path, got, sizeof(got) - 1);
		if (n > 0) {
			got[n] = 0;
			ours = !strcmp(got, want);
		}
	}
	closedir(dir);
	return ours;
}

/*
 * Another program's hold on (addr, port), the reason a create on a port
 * of the run may rightly get DAT_CONN_QUAL_IN_USE ("The specified
 * Connection Qualifier was in use"): a TCP socket of the host at addr or
 * the wildcard address that is no socket of this process, or shm's
 * region /dev/shm/dat-<addr>-<port> that this process has not mapped.
 * The test's ports are chosen free of both, but the host's other
 * programs (another suite's, another tree's) may take one between the
 * choice and the create.  NULL if nothing but this process holds it;
 * else what holds it, in buf.  A listener of this process that made a
 * create fail is no excuse: that is the provider's own collision.
 */
static const char *qs_held_elsewhere(const char *addr, unsigned port, char *buf,
				     size_t len)
{
	static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	struct sockaddr_in sin;
	char line[512], name[96];
	unsigned t;

	vt_sockaddr(&sin, addr);
	for (t = 0; t < 2; t++) {
		FILE *f = fopen(tables[t], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char local[40];
			unsigned p, st, i;
			unsigned long inode;
			int wild = 1;

			/* sl local rem st tx:rx tr:when retrnsmt uid timeout
			 * inode */
			if (sscanf(line,
				   " %*s %39[0-9A-Fa-f]:%x %*s %x %*s %*s "
				   "%*s %*s %*s %lu",
				   local, &p, &st, &inode) != 4 ||
			    p != port)
				continue;
			for (i = 0; local[i]; i++)
				wild &= local[i] == '0';
			/* /proc/net/tcp prints the address's 32 bits as
			 * this host's unsigned int; tcp6 counts with the
			 * wildcard, or addr as ::ffff:addr (its last 8
			 * digits) */
			if (!wild && t &&
			    (strlen(local) != 32 ||
			     strncmp(local, "0000000000000000FFFF0000", 24)))
				continue;
			if (!wild && strtoul(local + (t ? 24 : 0), NULL, 16) !=
					 sin.sin_addr.s_addr)
				continue;
			if (inode && qs_sock_ours(inode))
				continue;
			snprintf(buf, len,
				 "a TCP socket of another program "
				 "(%s, state %#x, inode %lu)",
				 tables[t], st, inode);
			fclose(f);
			return buf;
		}
		fclose(f);
	}
	snprintf(name, sizeof(name), "/dev/shm/dat-%.40s-%u", addr, port);
	if (!access(name, F_OK)) {
		FILE *f = fopen("/proc/self/maps", "r");
		int mapped = 0;

		while (f && !mapped && fgets(line, sizeof(line), f))
			mapped = strstr(line, name) != NULL;
		if (f)
			fclose(f);
		if (!mapped) {
			snprintf(buf, len,
				 "shm's region %s, of another "
				 "program",
				 name);
			return buf;
		}
	}
	return NULL;
}

/* connect from c to (addr, sps[i].qual): l's CR names sps[i]; rejected */
static void qs_reach(struct vt *l, struct vt *c, const char *addr,
		     const struct qs_sp *sp)
{
	char what[96];
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep = vt_ep(c, NULL);
	DAT_EVENT ev;

	vt_sockaddr(&sin, addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, sp->qual,
			       vt_secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	snprintf(what, sizeof(what), "the request to qualifier %#llx",
		 (unsigned long long)sp->qual);
	if (vt_expect_event(what, l->cr_evd,
			    DAT_CONNECTION_REQUEST_EVENT, &ev)) {
		const DAT_CR_ARRIVAL_EVENT_DATA *cr =
		    &ev.event_data.cr_arrival_event_data;

		vt_expect_true("its Connection Qualifier",
			       cr->conn_qual == sp->qual);
		vt_expect_true("its service point",
			       sp->rsp ? cr->sp_handle.rsp_handle == sp->rsp
				       : cr->sp_handle.psp_handle == sp->psp);
		vt_expect("dat_cr_reject", dat_cr_reject(cr->cr_handle),
			  DAT_SUCCESS);
	}
	vt_expect_event("the client's answer", c->conn_evd,
			DAT_CONNECTION_EVENT_PEER_REJECTED, &ev);
	vt_ep_free(ep);
}

static int qualspace_local(const struct vt_opts *o)
{
	const char *first = getenv("VT_FIRST_IA");
	static struct qs_sp sps[QS_MAX];
	DAT_PSP_HANDLE again = DAT_HANDLE_NULL;
	DAT_CONN_QUAL base = 0;
	struct rlimit rl;
	char why[160];
	int n, i, fd, e, ok = 0, held = 0;
	struct vt l, c;

	if (!first || !*first || !o->addr)
		vt_die("qualspace: VT_FIRST_IA names the listening IA, -a "
		       "its address");
	/* a listener is a socket or more over TCP: the hard limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	vt_open(&l, first);
	vt_open(&c, o->ia_name);
	n = o->count > 0 && o->count < QS_MAX ? o->count : QS_MAX;
	/* each listener an endpoint of the IA; a few left for the EPs */
	if (l.ia_attr.max_eps - 16 < n)
		n = l.ia_attr.max_eps - 16;
	if (n < 8)
		vt_die("qualspace: the IA has %d endpoints", l.ia_attr.max_eps);
	e = qs_hold_port(o->addr, &fd);
	/* the run's stretch, clear of E's two ports */
	srand((unsigned)getpid());
	for (i = 0; i < 1000; i++) {
		unsigned p0 = QS_LO + (unsigned)rand() % (QS_HI - QS_LO - n);

		unsigned p;

		base = qs_run_base(p0);
		if (qs_in(qs_port(e), p0, p0 + n) ||
		    qs_in(qs_port(e + 65535ULL), p0, p0 + n))
			continue;
		/* no other program's socket or region on the stretch now */
		for (p = p0; p < p0 + (unsigned)n; p++)
			if (qs_held_elsewhere(o->addr, p, why, sizeof(why)))
				break;
		if (p == p0 + (unsigned)n)
			break;
	}
	if (i == 1000)
		vt_die("no stretch of %d ports in %u..%u free of E's and of "
		       "the host's other programs", n, QS_LO, QS_HI - 1);
	vt_note("a socket of this process holds port %d of %s; %d service "
		"points, the run from qualifier %#llx (port %u)", e, o->addr,
		n, (unsigned long long)base, qs_port(base));
	for (i = 0; i < n; i++) {
		DAT_RETURN rc;

		sps[i].qual = i == 0   ? (DAT_CONN_QUAL)e
			      : i == 1 ? (DAT_CONN_QUAL)e + 65535
				       : base + (DAT_CONN_QUAL)i;
		if (i % 10 == 9) {
			sps[i].ep = vt_ep(&l, NULL);
			rc = dat_rsp_create(l.ia, sps[i].qual, sps[i].ep,
					    l.cr_evd, &sps[i].rsp);
		} else
			rc = dat_psp_create(l.ia, sps[i].qual, l.cr_evd,
					    DAT_PSP_CONSUMER_FLAG,
					    &sps[i].psp);
		if (rc == DAT_SUCCESS)
			ok++;
		else if (i > 1 && DAT_GET_TYPE(rc) == DAT_CONN_QUAL_IN_USE &&
			 qs_held_elsewhere(o->addr, qs_port(sps[i].qual),
					   why, sizeof(why))) {
			/* taken since the stretch was chosen: in use,
			 * rightly so; not one of the run's free ports */
			vt_note("note: qualifier %#llx (its port %u): "
				"DAT_CONN_QUAL_IN_USE, held by %s",
				(unsigned long long)sps[i].qual,
				qs_port(sps[i].qual), why);
			held++;
		} else
			vt_fail("%s on qualifier %#llx (its port %u): %s",
				i % 10 == 9 ? "dat_rsp_create"
					    : "dat_psp_create",
				(unsigned long long)sps[i].qual,
				qs_port(sps[i].qual), vt_rc(rc));
	}
	/* a few taken by others is the host's doing; more is no test */
	if (ok + held == n && held <= 3)
		vt_note("ok every service point created: %d (%d on a port "
			"another program took meanwhile)", ok, held);
	else
		vt_fail("%d of %d service points created, %d on ports "
			"another program took", ok, n, held);
	vt_expect_type("a second PSP on a qualifier in use",
		       dat_psp_create(l.ia, sps[5].qual, l.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &again),
		       DAT_CONN_QUAL_IN_USE);
	if (again)
		dat_psp_free(again);

	qs_reach(&l, &c, o->addr, &sps[0]);
	for (i = n / 2; i < n - 1 && !sps[i].psp && !sps[i].rsp; i++)
		;
	qs_reach(&l, &c, o->addr, &sps[i]);
	for (i = n - 1; i > 0 && !sps[i].rsp; i--)
		;
	qs_reach(&l, &c, o->addr, &sps[i]);

	ok = 0;
	for (i = 0; i < n; i++) {
		DAT_RETURN rc = DAT_SUCCESS;

		if (sps[i].psp)
			rc = dat_psp_free(sps[i].psp);
		else if (sps[i].rsp)
			rc = dat_rsp_free(sps[i].rsp);
		if (sps[i].ep)
			vt_ep_free(sps[i].ep);
		if (rc != DAT_SUCCESS)
			vt_fail("freeing the service point on %#llx: %s",
				(unsigned long long)sps[i].qual, vt_rc(rc));
		else
			ok++;
	}
	if (ok == n)
		vt_note("ok every service point freed");
	else
		vt_fail("%d of %d service points freed", ok, n);
	close(fd);
	vt_close(&c);
	vt_close(&l);
	return 0;
}

static const struct vt_test tests[] = {
	{ "qualspace", qualspace_local, NULL },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	static const struct vt_test *const tables[] = { tests };

	return vt_run(argc, argv, "dattest-ofi-qualspace", tables, 1, 300, 0);
}
