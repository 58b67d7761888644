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
 *     and the run is a stretch away from them; qualspace.bats keeps two
 *     runs from overlapping.  Each create returns DAT_SUCCESS
 *     (dat_psp_create(3DAT): "When the Public Service Point is created,
 *     DAT_SUCCESS is returned"): no DAT listener holds any of them.
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
#include <errno.h>
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
	int n, i, fd, e, ok = 0;
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

		base = qs_run_base(p0);
		if (!qs_in(qs_port(e), p0, p0 + n) &&
		    !qs_in(qs_port(e + 65535ULL), p0, p0 + n))
			break;
	}
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
		if (rc != DAT_SUCCESS)
			vt_fail("%s on qualifier %#llx (its port %u): %s",
				i % 10 == 9 ? "dat_rsp_create"
					    : "dat_psp_create",
				(unsigned long long)sps[i].qual,
				qs_port(sps[i].qual), vt_rc(rc));
		else
			ok++;
	}
	if (ok == n)
		vt_note("ok every service point created: %d", n);
	else
		vt_fail("%d of %d service points created", ok, n);
	vt_expect_type("a second PSP on a qualifier in use",
		       dat_psp_create(l.ia, sps[5].qual, l.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &again),
		       DAT_CONN_QUAL_IN_USE);
	if (again)
		dat_psp_free(again);

	qs_reach(&l, &c, o->addr, &sps[0]);
	qs_reach(&l, &c, o->addr, &sps[n / 2]);
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
