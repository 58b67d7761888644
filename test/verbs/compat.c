/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest-compat: what OFA dapl's users rely on (issue 19), in one process
 * with both IAs of the guest: rxe0-cma serves, rxe1-cma connects.
 *
 *   provider-ep  DAT_PSP_PROVIDER_FLAG: the provider's EP of a request,
 *                set up with dat_ep_modify, accepted with ep_handle NULL,
 *                data both ways over it; a rejected request's EP is freed
 *   quals        qualifiers above 65535: Q and (1 << 32) | Q (one rdma_cm
 *                port) both listen, each connect reaches its own PSP, a
 *                third qualifier on that port is NON_PEER_REJECTED, the
 *                private data limit leaves room for the header
 *   tunables     a connected pair; prints the attributes of both QPs as
 *                ibv_query_qp reports them ("qp NAME VALUE" lines) for
 *                compat.bats to compare with the DAPL_* variables
 *   unreachable  connects to -a (an address nobody answers) with a DAT
 *                timeout of -n seconds; prints "event NAME"
 *
 * The QPs: the provider creates them with ibv_create_qp, which this
 * program defines (exported, -rdynamic) to keep each QP it returns;
 * qp_context is the EP handle, so a QP is found by its EP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "vt.h"

/* the guest's IAs, or DATTEST_SERVER_IA / DATTEST_CLIENT_IA (the
 * provider-ep test also runs over libfabric: test/ofi/compat.bats) */
static const char *ia_env(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}
#define SRV_IA ia_env("DATTEST_SERVER_IA", "rxe0-cma")
#define CLI_IA ia_env("DATTEST_CLIENT_IA", "rxe1-cma")

/* ---- the QPs the provider made ---- */

#define MAX_QPS 64
static struct ibv_qp *qps[MAX_QPS];
static unsigned nqps;

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	static struct ibv_qp *(*real)(struct ibv_pd *,
				      struct ibv_qp_init_attr *);
	struct ibv_qp *qp;

	if (!real) {
		real = (struct ibv_qp * (*)(struct ibv_pd *,
					    struct ibv_qp_init_attr *))
		    dlvsym(RTLD_NEXT, "ibv_create_qp", "IBVERBS_1.1");
		if (!real)
			vt_die("no ibv_create_qp@IBVERBS_1.1: %s", dlerror());
	}
	qp = real(pd, qp_init_attr);
	if (qp && nqps < MAX_QPS)
		qps[nqps++] = qp;
	return qp;
}

/* The live QP of an EP (the last one made for it). */
static struct ibv_qp *ep_qp(DAT_EP_HANDLE ep)
{
	unsigned i = nqps;

	while (i--)
		if (qps[i]->qp_context == (void *)ep)
			return qps[i];
	vt_die("no QP of EP %p among the %u made", (void *)ep, nqps);
}

static void print_qp(const char *who, DAT_EP_HANDLE ep)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		   IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | IBV_QP_CAP |
		   IBV_QP_AV;

	memset(&a, 0, sizeof(a));
	memset(&init, 0, sizeof(init));
	if (ibv_query_qp(ep_qp(ep), &a, mask, &init)) {
		vt_fail("ibv_query_qp(%s)", who);
		return;
	}
	vt_expect_u64("QP state RTS", a.qp_state, IBV_QPS_RTS);
	printf("qp %s timeout %u\n", who, a.timeout);
	printf("qp %s retry_cnt %u\n", who, a.retry_cnt);
	printf("qp %s rnr_retry %u\n", who, a.rnr_retry);
	printf("qp %s min_rnr_timer %u\n", who, a.min_rnr_timer);
	printf("qp %s max_inline_data %u\n", who, init.cap.max_inline_data);
	/* RoCE: the IP type of service of the QP's packets */
	printf("qp %s traffic_class %u\n", who, a.ah_attr.grh.traffic_class);
}

/* ---- helpers ---- */

static void connect_start(struct vt *c, DAT_EP_HANDLE ep, DAT_CONN_QUAL q,
			  const void *pdata, DAT_COUNT plen)
{
	struct sockaddr_in sin;

	vt_sockaddr(&sin, VT_SERVER_ADDR);
	(void)c;
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, q, vt_secs(20),
			       plen, (DAT_PVOID)pdata, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
}

static void expect_conn(struct vt *v, DAT_EP_HANDLE ep, DAT_EVENT_NUMBER n,
			const char *what)
{
	DAT_EVENT ev;

	if (vt_expect_event(what, v->conn_evd, n, &ev))
		vt_expect_ptr("event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle, ep);
}

/* One message each way over a connected pair (control messages). */
static void exchange(struct vt *s, DAT_EP_HANDLE sep, struct vt *c,
		     DAT_EP_HANDLE cep, const char *tag)
{
	struct vt_msg m;

	vt_msg_init(&m, tag);
	vt_ctl_send(c, cep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(s, sep, &m, tag, 0);
	vt_msg_init(&m, "reply");
	vt_ctl_send(s, sep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_ctl_recv(c, cep, &m, "reply", 0);
}

static void close_pair(struct vt *s, DAT_EP_HANDLE sep, struct vt *c,
		       DAT_EP_HANDLE cep)
{
	vt_disconnect(c, cep);
	vt_wait_disconnected(s, sep);
	vt_ep_free(cep);
	vt_ep_free(sep);
}

/* ---- provider-ep ---- */

static int provider_ep(const struct vt_opts *o)
{
	DAT_CONN_QUAL q = o->qual;
	unsigned char pd[8] = "prov-ep";
	DAT_EP_HANDLE cep, pep;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM pp;
	DAT_EP_PARAM ep;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM cp;
	DAT_EVENT ev;
	struct vt s, c;

	vt_open(&s, SRV_IA);
	vt_open(&c, CLI_IA);
	vt_expect_u64("provider_attr.ep_creator", s.prov_attr.ep_creator,
		      DAT_PSP_CREATES_EP_IFASKED);
	vt_must("dat_psp_create(DAT_PSP_PROVIDER_FLAG)",
		dat_psp_create(s.ia, q, s.cr_evd, DAT_PSP_PROVIDER_FLAG,
			       &psp));
	vt_must("dat_psp_query", dat_psp_query(psp, DAT_PSP_FIELD_ALL, &pp));
	vt_expect_u64("psp_flags", pp.psp_flags, DAT_PSP_PROVIDER_FLAG);

	/* a request: accepted on the provider's EP */
	cep = vt_ep(&c, NULL);
	vt_ctl_post(&c, cep);
	connect_start(&c, cep, q, pd, sizeof(pd));
	cr = vt_wait_cr(&s, &ev);
	vt_must("dat_cr_query", dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp));
	pep = cp.local_ep_handle;
	vt_expect_true("local_ep_handle is set", pep != DAT_HANDLE_NULL);
	vt_expect_u64("private data size", cp.private_data_size, sizeof(pd));
	vt_expect_true("private data",
		       cp.private_data &&
			   !memcmp(cp.private_data, pd, sizeof(pd)));
	vt_expect_state("provider EP without a PZ", pep,
			DAT_EP_STATE_UNCONFIGURED_TENTATIVE);
	vt_must("dat_ep_query", dat_ep_query(pep, DAT_EP_FIELD_ALL, &ep));
	vt_expect_ptr("its pz_handle", ep.pz_handle, DAT_HANDLE_NULL);
	vt_expect_ptr("its connect_evd_handle", ep.connect_evd_handle,
		      DAT_HANDLE_NULL);
	vt_expect_type("dat_ep_free while its CR is pending",
		       dat_ep_free(pep), DAT_INVALID_STATE);
	ep.pz_handle = s.pz;
	ep.recv_evd_handle = s.rcv_evd;
	ep.request_evd_handle = s.req_evd;
	ep.connect_evd_handle = s.conn_evd;
	vt_must("dat_ep_modify(PZ, EVDs)",
		dat_ep_modify(pep,
			      DAT_EP_FIELD_PZ_HANDLE |
				  DAT_EP_FIELD_RECV_EVD_HANDLE |
				  DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				  DAT_EP_FIELD_CONNECT_EVD_HANDLE,
			      &ep));
	vt_expect_state("configured provider EP", pep,
			DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
	vt_ctl_post(&s, pep);
	vt_must("dat_cr_accept(ep_handle NULL)",
		dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	expect_conn(&s, pep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "provider EP established");
	expect_conn(&c, cep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "client established");
	exchange(&s, pep, &c, cep, "prov-ep-data");
	close_pair(&s, pep, &c, cep);

	/* a request rejected: its EP goes back to the provider */
	cep = vt_ep(&c, NULL);
	connect_start(&c, cep, q, NULL, 0);
	cr = vt_wait_cr(&s, &ev);
	vt_must("dat_cr_query", dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp));
	pep = cp.local_ep_handle;
	vt_expect_true("second local_ep_handle", pep != DAT_HANDLE_NULL);
	vt_must("dat_cr_reject", dat_cr_reject(cr));
	expect_conn(&c, cep, DAT_CONNECTION_EVENT_PEER_REJECTED,
		    "client: PEER_REJECTED");
	vt_expect_type("the rejected request's EP is freed",
		       dat_ep_free(pep), DAT_INVALID_HANDLE);
	vt_ep_free(cep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&c);
	vt_close(&s);
	return 0;
}

/* ---- quals ---- */

static int quals(const struct vt_opts *o)
{
	DAT_CONN_QUAL lo = o->qual, hi = (1ULL << 32) | o->qual,
		      none = (2ULL << 32) | o->qual;
	struct sockaddr_in sin;
	DAT_EVD_HANDLE cr_hi;
	DAT_PSP_HANDLE p_lo, p_hi, dup;
	unsigned char pd[64];
	DAT_EP_HANDLE cep, sep;
	DAT_COUNT max;
	DAT_PSP_PARAM pp;
	DAT_CR_PARAM cp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	struct vt s, c;
	int i;

	vt_open(&s, SRV_IA);
	vt_open(&c, CLI_IA);
	max = c.prov_attr.max_private_data_size;
	vt_expect_u64("max_private_data_size (56 less our 16-byte header)",
		      max, 40);
	vt_must("second CR EVD",
		dat_evd_create(s.ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			       &cr_hi));
	vt_must("dat_psp_create(Q)",
		dat_psp_create(s.ia, lo, s.cr_evd, DAT_PSP_CONSUMER_FLAG,
			       &p_lo));
	vt_must("dat_psp_create((1 << 32) | Q)",
		dat_psp_create(s.ia, hi, cr_hi, DAT_PSP_CONSUMER_FLAG, &p_hi));
	vt_expect_type("dat_psp_create((1 << 32) | Q) again",
		       dat_psp_create(s.ia, hi, cr_hi, DAT_PSP_CONSUMER_FLAG,
				      &dup),
		       DAT_CONN_QUAL_IN_USE);
	vt_must("dat_psp_query", dat_psp_query(p_hi, DAT_PSP_FIELD_ALL, &pp));
	vt_expect_u64("psp_query conn_qual", pp.conn_qual, hi);

	for (i = 0; i < (int)sizeof(pd); i++)
		pd[i] = (unsigned char)(0x40 + i);
	cep = vt_ep(&c, NULL);
	vt_sockaddr(&sin, VT_SERVER_ADDR);
	vt_expect_type("dat_ep_connect(max_private_data_size + 1 bytes)",
		       dat_ep_connect(cep, (DAT_IA_ADDRESS_PTR)&sin,
				      hi, vt_secs(20), max + 1, pd,
				      DAT_QOS_BEST_EFFORT,
				      DAT_CONNECT_DEFAULT_FLAG),
		       DAT_INVALID_PARAMETER);

	/* each qualifier reaches its own PSP, in either order */
	for (i = 0; i < 2; i++) {
		DAT_CONN_QUAL want = i ? lo : hi;
		DAT_EVD_HANDLE evd = i ? s.cr_evd : cr_hi, other =
							     i ? cr_hi
							       : s.cr_evd;
		DAT_PSP_HANDLE psp = i ? p_lo : p_hi;

		vt_note("connect to qualifier %#llx",
			(unsigned long long)want);
		if (i)
			cep = vt_ep(&c, NULL);
		vt_ctl_post(&c, cep);
		pd[0] = (unsigned char)i;
		connect_start(&c, cep, want, pd, max);
		if (!vt_expect_event("connection request", evd,
				     DAT_CONNECTION_REQUEST_EVENT, &ev))
			vt_die("no request at the qualifier's PSP");
		vt_expect_ptr("request's psp_handle",
			      ev.event_data.cr_arrival_event_data.sp_handle
				  .psp_handle,
			      psp);
		vt_expect_u64("request's conn_qual",
			      ev.event_data.cr_arrival_event_data.conn_qual,
			      want);
		vt_expect_empty("the other PSP's CR EVD", other);
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		vt_must("dat_cr_query", dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp));
		vt_expect_u64("private data size", cp.private_data_size, max);
		vt_expect_true("private data intact",
			       cp.private_data &&
				   !memcmp(cp.private_data, pd, max));
		sep = vt_ep(&s, NULL);
		vt_ctl_post(&s, sep);
		vt_must("dat_cr_accept", dat_cr_accept(cr, sep, 0, NULL));
		expect_conn(&s, sep, DAT_CONNECTION_EVENT_ESTABLISHED,
			    "server established");
		expect_conn(&c, cep, DAT_CONNECTION_EVENT_ESTABLISHED,
			    "client established");
		exchange(&s, sep, &c, cep, i ? "low-qual" : "high-qual");
		close_pair(&s, sep, &c, cep);
	}

	/* a third qualifier of the same port: nobody has it */
	cep = vt_ep(&c, NULL);
	connect_start(&c, cep, none, NULL, 0);
	expect_conn(&c, cep, DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
		    "(2 << 32) | Q: NON_PEER_REJECTED");
	vt_expect_empty("no request at Q", s.cr_evd);
	vt_expect_empty("no request at (1 << 32) | Q", cr_hi);
	vt_ep_free(cep);

	vt_expect("dat_psp_free(Q)", dat_psp_free(p_lo), DAT_SUCCESS);
	/* the port's listener stays for the other qualifier */
	cep = vt_ep(&c, NULL);
	vt_ctl_post(&c, cep);
	connect_start(&c, cep, hi, NULL, 0);
	if (!vt_expect_event("connection request at (1 << 32) | Q", cr_hi,
			     DAT_CONNECTION_REQUEST_EVENT, &ev))
		vt_die("no request");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	sep = vt_ep(&s, NULL);
	vt_ctl_post(&s, sep);
	vt_must("dat_cr_accept", dat_cr_accept(cr, sep, 0, NULL));
	expect_conn(&s, sep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "after Q's PSP is gone: server established");
	expect_conn(&c, cep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "client established");
	exchange(&s, sep, &c, cep, "still-high");
	close_pair(&s, sep, &c, cep);
	vt_expect("dat_psp_free((1 << 32) | Q)", dat_psp_free(p_hi),
		  DAT_SUCCESS);
	vt_expect("dat_evd_free", dat_evd_free(cr_hi), DAT_SUCCESS);
	vt_close(&c);
	vt_close(&s);
	return 0;
}

/* ---- tunables ---- */

static int tunables(const struct vt_opts *o)
{
	DAT_EP_HANDLE cep, sep;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	struct vt s, c;

	vt_open(&s, SRV_IA);
	vt_open(&c, CLI_IA);
	vt_must("dat_psp_create",
		dat_psp_create(s.ia, o->qual, s.cr_evd, DAT_PSP_CONSUMER_FLAG,
			       &psp));
	cep = vt_ep(&c, NULL);
	vt_ctl_post(&c, cep);
	connect_start(&c, cep, o->qual, NULL, 0);
	cr = vt_wait_cr(&s, &ev);
	sep = vt_ep(&s, NULL);
	vt_ctl_post(&s, sep);
	vt_must("dat_cr_accept", dat_cr_accept(cr, sep, 0, NULL));
	expect_conn(&s, sep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "server established");
	expect_conn(&c, cep, DAT_CONNECTION_EVENT_ESTABLISHED,
		    "client established");
	print_qp("active", cep);
	print_qp("passive", sep);
	exchange(&s, sep, &c, cep, "tuned");
	close_pair(&s, sep, &c, cep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&c);
	vt_close(&s);
	return 0;
}

/* ---- unreachable ---- */

static int unreachable(const struct vt_opts *o)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	DAT_RETURN rc;
	struct vt c;

	vt_open(&c, CLI_IA);
	ep = vt_ep(&c, NULL);
	vt_sockaddr(&sin, o->addr);
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 4791,
			       vt_secs((unsigned)o->count), 0, NULL,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	rc = vt_wait(c.conn_evd, vt_secs(120), &ev);
	if (rc != DAT_SUCCESS)
		vt_fail("no connection event: %s", vt_rc(rc));
	else
		printf("event %s\n", vt_ev(ev.event_number));
	vt_ep_free(ep);
	vt_close(&c);
	return 0;
}

static const struct vt_test compat_tests[] = {
	{"provider-ep", provider_ep, NULL},
	{"quals", quals, NULL},
	{"tunables", tunables, NULL},
	{"unreachable", unreachable, NULL},
	{NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
	static const struct vt_test *const tables[] = {compat_tests};

	return vt_run(argc, argv, "dattest-compat", tables, 1, 300, 0);
}
