/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EP state machine, posts and connection management of udapl/ (ep.c,
 * ep_param.c, ep_ring.c, dto.c, cm.c, sp.c) over a fake struct dapl_ops:
 * no transport, only the calls udapl makes into the provider and the
 * upcalls the provider would make.  The real provider is tested on rxe
 * (test/verbs).  TAP on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <stdarg.h>

#include "../../udapl/udapl.h"
#include "../../udapl/slots.h"
#include "tap.h"
#include <dat/dat_ib_extensions.h>

/* ---- the fake provider ---- */

static struct {
	int qp_create, qp_destroy, qp_reset, qp_modify;
	int connect, accept, reject, cr_destroy, listen, listen_stop;
	int disconnect, last_abrupt;
	int post_send, post_recv;
	int post_locked; /* ep->lock was held in the last post_send */
	struct dapl_post last;
	int fail_qp_create;
	int post_send1, post_recv1; /* the one-segment ops */
	unsigned flags1;
	struct dapl_cookie *cookie1;
	uint32_t lkey;
	uint32_t next_lkey; /* nonzero: mr_register gives this lkey once */
	struct dapl_sge sge[DAPL_MAX_SGE]; /* of the last post */
	/* post_write1/post_read1/post_atomic1: calls, and what the last
	 * one got besides cookie1, flags1 and sge[0] */
	int post_write1, post_read1, post_atomic1;
	int op1;
	uint64_t raddr1, cmp1, swap1;
	uint32_t rkey1;
	int fail1; /* an errno: the next one-segment op returns it */
} f;

static void keep(const struct dapl_post *p)
{
	f.last = *p;
	memcpy(f.sge, p->sge, p->num_sge * sizeof(*p->sge));
	f.last.sge = f.sge;
}

static DAT_RETURN ok_ia(struct dapl_ia *ia, const char *p,
			struct dapl_caps *caps)
{
	(void)ia;
	(void)p;
	(void)caps;
	return DAT_SUCCESS;
}

static DAT_RETURN ok_pz(struct dapl_pz *pz)
{
	(void)pz;
	return DAT_SUCCESS;
}

static DAT_RETURN mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			      DAT_MEM_PRIV_FLAGS priv)
{
	(void)priv;
	if (f.next_lkey) {
		lmr->lmr_context = f.next_lkey;
		f.next_lkey = 0;
	} else {
		lmr->lmr_context = ++f.lkey;
	}
	lmr->rmr_context = f.lkey + 1000;
	lmr->reg_addr = (DAT_VADDR)(uintptr_t)addr;
	lmr->reg_len = len;
	return DAT_SUCCESS;
}

static DAT_RETURN mr_dereg(struct dapl_lmr *lmr)
{
	(void)lmr;
	return DAT_SUCCESS;
}

static DAT_RETURN cq_create(struct dapl_evd *evd, DAT_COUNT *qlen, int *fd)
{
	(void)evd;
	(void)qlen;
	*fd = eventfd(0, EFD_NONBLOCK);
	return DAT_SUCCESS;
}

static DAT_RETURN cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen)
{
	(void)evd;
	(void)qlen;
	return DAT_SUCCESS;
}

static void cq_destroy(struct dapl_evd *evd)
{
	close(evd->cq_fd);
}

static int cq_poll(struct dapl_evd *evd, struct dapl_cqe *c, int max)
{
	(void)evd;
	(void)c;
	(void)max;
	return 0;
}

static DAT_RETURN cq_arm(struct dapl_evd *evd, int s)
{
	(void)evd;
	(void)s;
	return DAT_SUCCESS;
}

static void cq_ack(struct dapl_evd *evd)
{
	(void)evd;
}

static DAT_RETURN qp_create(struct dapl_ep *ep)
{
	f.qp_create++;
	if (f.fail_qp_create) {
		f.fail_qp_create--;
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	ep->max_inline = 64;
	return DAT_SUCCESS;
}

static void qp_destroy(struct dapl_ep *ep)
{
	(void)ep;
	f.qp_destroy++;
}

static DAT_RETURN qp_reset(struct dapl_ep *ep)
{
	(void)ep;
	f.qp_reset++;
	return DAT_SUCCESS;
}

static DAT_RETURN qp_modify(struct dapl_ep *ep, const DAT_EP_ATTR *a)
{
	(void)ep;
	(void)a;
	f.qp_modify++;
	return DAT_SUCCESS;
}

static DAT_RETURN post_send(struct dapl_ep *ep, const struct dapl_post *p)
{
	/* whether udapl holds ep->lock around the transport's post */
	f.post_locked = dapl_trylock(&ep->lock) != 0;
	if (!f.post_locked)
		dapl_unlock(&ep->lock);
	f.post_send++;
	keep(p);
	return DAT_SUCCESS;
}

static DAT_RETURN post_recv(struct dapl_ep *ep, const struct dapl_post *p)
{
	(void)ep;
	f.post_recv++;
	keep(p);
	return DAT_SUCCESS;
}

static DAT_RETURN listen_(struct dapl_sp *sp, DAT_CONN_QUAL *qual)
{
	(void)sp;
	if (*qual == 7777)
		return DAPL_ERR(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE);
	if (!*qual)
		*qual = 40000 + f.listen;
	f.listen++;
	return DAT_SUCCESS;
}

static void listen_stop(struct dapl_sp *sp)
{
	(void)sp;
	f.listen_stop++;
}

static DAT_RETURN connect_(struct dapl_ep *ep, const struct sockaddr *r,
			   DAT_CONN_QUAL q, DAT_TIMEOUT t, const void *pd,
			   DAT_COUNT pl)
{
	(void)ep, (void)r, (void)q, (void)t, (void)pd, (void)pl;
	f.connect++;
	return DAT_SUCCESS;
}

static DAT_RETURN accept_(struct dapl_cr *cr, struct dapl_ep *ep,
			  const void *pd, DAT_COUNT pl)
{
	(void)cr, (void)ep, (void)pd, (void)pl;
	f.accept++;
	return DAT_SUCCESS;
}

static DAT_RETURN reject_(struct dapl_cr *cr)
{
	(void)cr;
	f.reject++;
	return DAT_SUCCESS;
}

static void cr_destroy(struct dapl_cr *cr)
{
	(void)cr;
	f.cr_destroy++;
}

static DAT_RETURN disconnect_(struct dapl_ep *ep, int abrupt)
{
	(void)ep;
	f.disconnect++;
	f.last_abrupt = abrupt;
	return DAT_SUCCESS;
}

/* The one-segment ops (post_send1/post_recv1): the segment as
 * udapl checked it, kept where keep() keeps a dapl_post's. */
static int post_send1(struct dapl_ep *ep, struct dapl_cookie *c,
		      const struct dapl_sge *sge, unsigned flags)
{
	int rc = f.fail1;

	(void)ep;
	f.fail1 = 0;
	f.post_send1++;
	f.cookie1 = c;
	f.flags1 = flags;
	f.sge[0] = *sge;
	return rc;
}

static int post_recv1(struct dapl_ep *ep, struct dapl_cookie *c,
		      const struct dapl_sge *sge)
{
	int rc = f.fail1;

	(void)ep;
	f.fail1 = 0;
	f.post_recv1++;
	f.cookie1 = c;
	f.sge[0] = *sge;
	return rc;
}

static int req1(struct dapl_ep *ep, struct dapl_cookie *c,
		const struct dapl_sge *sge, unsigned flags, int op,
		uint64_t raddr, uint32_t rkey)
{
	int rc = f.fail1;

	(void)ep;
	f.fail1 = 0;
	f.cookie1 = c;
	f.flags1 = flags;
	f.sge[0] = *sge;
	f.op1 = op;
	f.raddr1 = raddr;
	f.rkey1 = rkey;
	f.cmp1 = f.swap1 = ~0ull;
	return rc;
}

static int post_write1(struct dapl_ep *ep, struct dapl_cookie *c,
		       const struct dapl_sge *sge, unsigned flags,
		       uint64_t raddr, uint32_t rkey)
{
	f.post_write1++;
	return req1(ep, c, sge, flags, DAPL_OP_RDMA_WRITE, raddr, rkey);
}

static int post_read1(struct dapl_ep *ep, struct dapl_cookie *c,
		      const struct dapl_sge *sge, unsigned flags,
		      uint64_t raddr, uint32_t rkey)
{
	f.post_read1++;
	return req1(ep, c, sge, flags, DAPL_OP_RDMA_READ, raddr, rkey);
}

static int post_atomic1(struct dapl_ep *ep, struct dapl_cookie *c,
			const struct dapl_sge *sge, unsigned flags,
			enum dapl_op op, uint64_t raddr, uint32_t rkey,
			uint64_t cmp, uint64_t swap)
{
	int rc;

	f.post_atomic1++;
	rc = req1(ep, c, sge, flags, op, raddr, rkey);
	f.cmp1 = cmp;
	f.swap1 = swap;
	return rc;
}

static const struct dapl_ops fake_ops = {
    .ia_open = ok_ia,
    .pz_create = ok_pz,
    .pz_free = ok_pz,
    .mr_register = mr_register,
    .mr_deregister = mr_dereg,
    .cq_create = cq_create,
    .cq_resize = cq_resize,
    .cq_destroy = cq_destroy,
    .cq_poll = cq_poll,
    .cq_arm = cq_arm,
    .cq_ack = cq_ack,
    .qp_create = qp_create,
    .qp_destroy = qp_destroy,
    .qp_reset = qp_reset,
    .qp_modify = qp_modify,
    .post_send = post_send,
    .post_recv = post_recv,
    .listen = listen_,
    .listen_stop = listen_stop,
    .connect = connect_,
    .accept = accept_,
    .reject = reject_,
    .cr_destroy = cr_destroy,
    .disconnect = disconnect_,
};

static DAT_PROVIDER fake_table;
static DAT_LMR_HANDLE lmr, ro_lmr;

/* ---- helpers ---- */

#define ERR(t, s) DAPL_ERR(t, s)
static int is(DAT_RETURN got, DAT_RETURN want, const char *what)
{
	if (got != want)
		printf("# %s: got %#x, want %#x\n", what, got, want);
	return tap_ok(got == want, what);
}

#define IS(rc, want, what) is((rc), (want), (what))

static struct dapl_ia *ia;
static DAT_PZ_HANDLE pz;
static DAT_EVD_HANDLE dto_evd, conn_evd, cr_evd, cr_evd2;
static char buf[4096];
static DAT_LMR_CONTEXT lctx, ro_lctx;
static char robuf[64];

static void setup(void)
{
	DAT_REGION_DESCRIPTION r;

	ia = dapl_obj_alloc(NULL, DAT_HANDLE_TYPE_IA, sizeof(*ia));
	ia->obj.provider = &fake_table;
	ia->ops = &fake_ops;
	ia->caps.max_private_data = 56;
	ia->attr.max_dto_per_ep = 1024;
	ia->attr.max_evd_qlen = 4096;
	ia->attr.max_iov_segments_per_dto = 8;
	ia->attr.max_rdma_read_per_ep_in = 16;
	ia->attr.max_rdma_read_per_ep_out = 16;
	ia->attr.max_message_size = 1 << 30;
	ia->attr.max_rdma_size = 1 << 30;
	dapl_pz_create(ia, &pz);
	dapl_evd_create(ia, 256, NULL, DAT_EVD_DTO_FLAG, &dto_evd);
	dapl_evd_create(ia, 16, NULL, DAT_EVD_CONNECTION_FLAG, &conn_evd);
	dapl_evd_create(ia, 16, NULL, DAT_EVD_CR_FLAG, &cr_evd);
	dapl_evd_create(ia, 16, NULL, DAT_EVD_CR_FLAG, &cr_evd2);
	r.for_va = buf;
	dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(buf), pz,
			DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx, NULL, NULL, NULL);
	r.for_va = robuf;
	dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(robuf), pz,
			DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro_lmr, &ro_lctx, NULL,
			NULL, NULL);
}

static struct dapl_ep *new_ep(void)
{
	DAT_EP_HANDLE ep = NULL;

	dapl_ep_create(ia, pz, dto_evd, dto_evd, conn_evd, NULL, &ep);
	return ep;
}

static DAT_EP_STATE state(struct dapl_ep *ep)
{
	DAT_EP_STATE s = -1;

	dapl_ep_get_status(ep, &s, NULL, NULL);
	return s;
}

static DAT_RETURN send1(struct dapl_ep *ep, DAT_COMPLETION_FLAGS fl)
{
	DAT_LMR_TRIPLET t = {lctx, 0, (DAT_VADDR)(uintptr_t)buf, 16};
	DAT_DTO_COOKIE c = {.as_64 = 1};

	return dapl_ep_post_send(ep, 1, &t, c, fl);
}

static DAT_RETURN recv1(struct dapl_ep *ep)
{
	DAT_LMR_TRIPLET t = {lctx, 0, (DAT_VADDR)(uintptr_t)buf, 128};
	DAT_DTO_COOKIE c = {.as_64 = 2};

	return dapl_ep_post_recv(ep, 1, &t, c, 0);
}

static int next_event(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	return dapl_evd_dequeue(evd, ev) == DAT_SUCCESS;
}

static void connect_ep(struct dapl_ep *ep)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	DAT_EVENT ev;

	dapl_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 5000, 1000000, 0, NULL,
			DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	dapl_cm_ep_event(ep, DAPL_CM_ESTABLISHED, NULL, 0);
	next_event(conn_evd, &ev);
}

/* ---- tests ---- */

static void test_create(void)
{
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	DAT_EP_PARAM p;

	IS(dapl_ep_create(NULL, pz, NULL, NULL, NULL, NULL, &ep),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA), "create: NULL IA");
	IS(dapl_ep_create(ia, NULL, NULL, NULL, NULL, NULL, &ep),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ), "create: NULL PZ");
	IS(dapl_ep_create(ia, pz, conn_evd, NULL, NULL, NULL, &ep),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV),
	   "create: recv EVD without DTO flag");
	IS(dapl_ep_create(ia, pz, NULL, cr_evd, NULL, NULL, &ep),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST),
	   "create: request EVD without DTO flag");
	IS(dapl_ep_create(ia, pz, NULL, NULL, dto_evd, NULL, &ep),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CONN),
	   "create: connect EVD without CONNECTION flag");
	IS(dapl_ep_create(ia, pz, NULL, NULL, NULL, NULL, NULL),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7), "create: NULL out");

	ep = new_ep();
	tap_ok(ep != NULL, "create: defaults");
	dapl_ep_query(ep, DAT_EP_FIELD_ALL, &p);
	tap_ok(p.ep_state == DAT_EP_STATE_UNCONNECTED &&
		   p.ep_attr.max_recv_dtos == 64 &&
		   p.ep_attr.max_request_iov == 4 &&
		   p.ep_attr.service_type == DAT_SERVICE_TYPE_RC &&
		   p.pz_handle == pz && p.connect_evd_handle == conn_evd,
	       "query: defaults and handles");
	a = p.ep_attr;
	a.max_recv_dtos = 5000;
	IS(dapl_ep_create(ia, pz, NULL, NULL, NULL, &a, &ep),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
	   "create: too many DTOs");
	a = p.ep_attr;
	a.max_request_iov = 9;
	IS(dapl_ep_create(ia, pz, NULL, NULL, NULL, &a, &ep),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
	   "create: too many segments");
	a = p.ep_attr;
	a.qos = DAT_QOS_PREMIUM;
	IS(dapl_ep_create(ia, pz, NULL, NULL, NULL, &a, &ep),
	   ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE),
	   "create: unsupported QoS");
	IS(dapl_ep_query(p.ia_handle, DAT_EP_FIELD_ALL, &p),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP), "query: IA handle");
	dapl_ep_free(ep);
}

static void test_posts(void)
{
	struct dapl_ep *ep = new_ep();
	DAT_LMR_TRIPLET t = {lctx, 0, (DAT_VADDR)(uintptr_t)buf, 8192};
	DAT_RMR_TRIPLET rt = {77, 0, 0x1000, 16};
	DAT_DTO_COOKIE c = {.as_64 = 9};
	DAT_BOOLEAN ri, qi;
	DAT_COUNT n, span;
	DAT_EVENT ev;
	int i;

	IS(send1(ep, 0),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED),
	   "send before connect: INVALID_STATE_EP_UNCONNECTED");
	IS(recv1(ep), DAT_SUCCESS, "recv before connect");
	dapl_ep_get_status(ep, NULL, &ri, &qi);
	dapl_ep_recv_query(ep, &n, &span);
	tap_ok(!ri && qi && n == 1 && span == 1, "status: one recv out");
	IS(dapl_ep_post_recv(ep, 1, &t, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3), "recv beyond the LMR");
	IS(dapl_ep_post_recv(ep, 5, &t, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2), "recv: 5 segments");
	IS(dapl_ep_post_recv(ep, 0, NULL, c, DAT_COMPLETION_SUPPRESS_FLAG),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5), "recv: SUPPRESS");

	connect_ep(ep);
	tap_ok(state(ep) == DAT_EP_STATE_CONNECTED, "connected");
	IS(send1(ep, 0), DAT_SUCCESS, "send");
	tap_ok(f.last.op == DAPL_OP_SEND && f.last.num_sge == 1 &&
		   f.last.sge[0].lkey == lctx &&
		   (f.last.flags & DAPL_POST_SIGNALED) &&
		   (f.last.flags & DAPL_POST_INLINE) &&
		   f.last.cookie->user_cookie.as_64 == 1,
	       "send: sge, signaled, inline, cookie");
	IS(send1(ep, DAT_COMPLETION_UNSIGNALLED_FLAG),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	   "send: UNSIGNALLED needs the EP flag");
	IS(send1(ep, DAT_COMPLETION_SUPPRESS_FLAG |
			 DAT_COMPLETION_BARRIER_FENCE_FLAG |
			 DAT_COMPLETION_SOLICITED_WAIT_FLAG),
	   DAT_SUCCESS, "send: suppress, fence, solicited");
	tap_ok(!f.last.cookie->signaled && (f.last.flags & DAPL_POST_FENCE) &&
		   (f.last.flags & DAPL_POST_SOLICITED),
	       "send: flags mapped");
	t.segment_length = 32; /* inside its LMR, longer than rt */
	IS(dapl_ep_post_rdma_write(ep, 1, &t, c, &rt, 0),
	   ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
	   "rdma write longer than the remote buffer");
	t.segment_length = 16;
	IS(dapl_ep_post_rdma_write(ep, 1, &t, c, &rt, 0), DAT_SUCCESS,
	   "rdma write");
	tap_ok(f.last.op == DAPL_OP_RDMA_WRITE && f.last.rkey == 77 &&
		   f.last.remote_addr == 0x1000,
	       "rdma write: remote address and key");
	rt.segment_length = 32;
	IS(dapl_ep_post_rdma_read(ep, 1, &t, c, &rt, 0),
	   ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE), "rdma read: local too small");
	rt.segment_length = 8;
	IS(dapl_ep_post_rdma_read(ep, 1, &t, c, &rt, 0), DAT_SUCCESS,
	   "rdma read: local larger is cut");
	tap_ok(f.last.sge[0].length == 8 && !(f.last.flags & DAPL_POST_INLINE),
	       "rdma read: 8 bytes, not inline");
	IS(dapl_ep_post_rdma_read(ep, 1, &t, c, NULL, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5), "rdma read: NULL rmr");
	/* where the device writes, the LMR needs LOCAL_WRITE */
	t = (DAT_LMR_TRIPLET){ro_lctx, 0, (DAT_VADDR)(uintptr_t)robuf, 8};
	IS(dapl_ep_post_recv(ep, 1, &t, c, 0),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "recv into a read-only LMR: PRIVILEGES_VIOLATION");
	IS(dapl_ep_post_rdma_read(ep, 1, &t, c, &rt, 0),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "rdma read into a read-only LMR: PRIVILEGES_VIOLATION");
	IS(dapl_ep_post_send(ep, 1, &t, c, 0), DAT_SUCCESS,
	   "send from a read-only LMR");
	for (i = 0; i < 100 && send1(ep, 0) == DAT_SUCCESS; i++)
		;
	tap_ok(i == 64 - 5, "request ring holds 64");
	IS(send1(ep, 0), ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY),
	   "full ring: INSUFFICIENT_RESOURCES");
	IS(dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS,
	   "abrupt disconnect");
	tap_ok(state(ep) == DAT_EP_STATE_DISCONNECTED && f.last_abrupt &&
		   next_event(conn_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED,
	       "abrupt: DISCONNECTED at once, event");
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	tap_ok(!next_event(conn_evd, &ev), "abrupt: the CM's event dropped");
	IS(dapl_ep_free(ep), DAT_SUCCESS, "free with DTOs outstanding");
	IS(send1(ep, 0), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	   "post on a freed EP");
}

/*
 * Posts hold ep->lock around the transport's post, except on an IA whose
 * consumer opted out (DAPL_NONTHREADSAFE_NOLOCK=1 on a nonthreadsafe
 * entry, ia.c: ia->nolock); the checks are the same either way.
 */
static void test_nolock(void)
{
	struct dapl_ep *ep;
	int i, locked[2] = {0, 1}, checks[2] = {0, 0};
	DAT_EVENT ev;

	for (i = 0; i < 2; i++) {
		ia->nolock = i;
		ep = new_ep();
		ia->nolock = 0;
		connect_ep(ep);
		if (send1(ep, 0) == DAT_SUCCESS)
			locked[i] = f.post_locked;
		checks[i] = send1(ep, DAT_COMPLETION_UNSIGNALLED_FLAG) ==
				ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) &&
			    dapl_ep_post_send(ep, 5, NULL, (DAT_DTO_COOKIE){0},
					      0) ==
				ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG);
		dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
		dapl_ep_free(ep);
		while (next_event(conn_evd, &ev))
			;
	}
	tap_ok(locked[0] == 1, "post: the transport posts under ep->lock");
	tap_ok(locked[1] == 0,
	       "post on a nolock IA (DAPL_NONTHREADSAFE_NOLOCK): no lock");
	tap_ok(checks[0] && checks[1], "the same checks with and without");
}

static void test_active(void)
{
	struct dapl_ep *ep = new_ep(), *ep2 = new_ep();
	struct sockaddr_in sin = {.sin_family = AF_INET};
	char pd[4] = "abc";
	DAT_EVENT ev;

	IS(dapl_ep_connect(ep, NULL, 1, 1000, 0, NULL, 0, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2), "connect: NULL addr");
	IS(dapl_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 1, 1000, 57, pd, 0, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	   "connect: too much private data");
	IS(dapl_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 1, 1000, 0, NULL, 0,
			   DAT_CONNECT_MULTIPATH_FLAG),
	   ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE), "connect: multipath");
	IS(dapl_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 1, 1000, 4, pd, 0, 0),
	   DAT_SUCCESS, "connect");
	tap_ok(state(ep) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	       "ACTIVE_CONNECTION_PENDING");
	IS(dapl_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, 1, 1000, 0, NULL, 0,
			   0),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_ACTCONNPENDING),
	   "connect twice");
	dapl_cm_ep_event(ep, DAPL_CM_PEER_REJECTED, "no", 3);
	tap_ok(state(ep) == DAT_EP_STATE_DISCONNECTED &&
		   next_event(conn_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_EVENT_PEER_REJECTED &&
		   ev.event_data.connect_event_data.private_data_size == 3,
	       "peer reject: DISCONNECTED, event with private data");
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	tap_ok(!next_event(conn_evd, &ev), "late CM event dropped");
	IS(dapl_ep_reset(ep), DAT_SUCCESS, "reset");
	tap_ok(state(ep) == DAT_EP_STATE_UNCONNECTED && f.qp_reset == 1,
	       "reset: UNCONNECTED through qp_reset");

	connect_ep(ep);
	IS(dapl_ep_dup_connect(ep2, ep, 1000, 0, NULL, 0), DAT_SUCCESS,
	   "dup_connect");
	tap_ok(((struct dapl_ep *)ep2)->remote_qual == 5000,
	       "dup_connect: same qualifier");
	IS(dapl_ep_disconnect(ep2, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS,
	   "disconnect of a pending connect");
	tap_ok(state(ep2) == DAT_EP_STATE_DISCONNECTED &&
		   next_event(conn_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED,
	       "pending connect aborted");
	IS(dapl_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS,
	   "graceful disconnect");
	tap_ok(state(ep) == DAT_EP_STATE_DISCONNECT_PENDING && !f.last_abrupt,
	       "DISCONNECT_PENDING");
	IS(send1(ep, 0),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_DISCPENDING),
	   "no send while DISCONNECT_PENDING");
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	tap_ok(state(ep) == DAT_EP_STATE_DISCONNECTED &&
		   next_event(conn_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED &&
		   !next_event(conn_evd, &ev),
	       "DISCONNECTED, one event");
	IS(send1(ep, 0), DAT_SUCCESS, "send when DISCONNECTED is flushed");
	IS(dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS,
	   "disconnect when DISCONNECTED: no-op");
	IS(dapl_ep_reset(ep), DAT_SUCCESS, "reset with a stale post");
	IS(dapl_ep_free(ep), DAT_SUCCESS, "free");
	IS(dapl_ep_free(ep2), DAT_SUCCESS, "free 2");
}

static void test_modify(void)
{
	struct dapl_ep *ep = new_ep();
	DAT_EP_PARAM p;
	int c = f.qp_create, d = f.qp_destroy;

	memset(&p, 0, sizeof(p));
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_STATE, &p),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2), "modify: state field");
	p.ep_attr.max_rdma_read_in = 8;
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, &p),
	   DAT_SUCCESS, "modify: RDMA read depth");
	tap_ok(ep->attr.max_rdma_read_in == 8 && f.qp_create == c,
	       "modify: same queue pair");
	p.ep_attr.max_recv_dtos = 200;
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
	   DAT_SUCCESS, "modify: recv DTOs");
	tap_ok(ep->recv_ring.size == 256 && f.qp_create == c + 1 &&
		   f.qp_destroy == d + 1,
	       "modify: new queue pair and ring");
	p.ep_attr.max_recv_dtos = 2000;
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3), "modify: over limit");
	f.fail_qp_create = 2;
	p.ep_attr.max_recv_dtos = 10;
	tap_ok(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p) !=
		       0 &&
		   state(ep) == DAT_EP_STATE_UNCONFIGURED_UNCONNECTED,
	       "modify: no queue pair at all: UNCONFIGURED");
	IS(recv1(ep), ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFIGURED),
	   "recv on an UNCONFIGURED EP");
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
	   DAT_SUCCESS, "modify configures it again");
	tap_ok(state(ep) == DAT_EP_STATE_UNCONNECTED, "UNCONNECTED again");
	{
		/* a post checks its flags against the set worked out from
		 * ep->attr (dapl_ep_post_limits): dat_ep_modify's change
		 * reaches it */
		DAT_LMR_TRIPLET t = {lctx, 0, (DAT_VADDR)(uintptr_t)buf, 128};
		DAT_DTO_COOKIE ck = {.as_64 = 3};

		IS(send1(ep, DAT_COMPLETION_UNSIGNALLED_FLAG),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
		   "modify: a send's UNSIGNALLED refused before");
		IS(dapl_ep_post_recv(ep, 1, &t, ck,
				     DAT_COMPLETION_UNSIGNALLED_FLAG),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
		   "modify: a receive's UNSIGNALLED refused before");
		p.ep_attr.request_completion_flags =
		    DAT_COMPLETION_UNSIGNALLED_FLAG;
		p.ep_attr.recv_completion_flags =
		    DAT_COMPLETION_UNSIGNALLED_FLAG;
		IS(dapl_ep_modify(ep,
				  DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS |
				      DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
				  &p),
		   DAT_SUCCESS, "modify: both completion flags");
		tap_ok(DAT_GET_TYPE(send1(ep, DAT_COMPLETION_UNSIGNALLED_FLAG)) ==
			   DAT_INVALID_STATE,
		       "modify: a send's UNSIGNALLED passes the flags (the "
		       "state refuses it)");
		IS(dapl_ep_post_recv(ep, 1, &t, ck,
				     DAT_COMPLETION_UNSIGNALLED_FLAG),
		   DAT_SUCCESS, "modify: a receive's UNSIGNALLED taken");
	}
	connect_ep(ep);
	IS(dapl_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED),
	   "modify while CONNECTED");
	IS(dapl_ep_free(ep), DAT_SUCCESS, "free a connected EP");
	tap_ok(f.last_abrupt, "free disconnects abruptly");
}

static void test_passive(void)
{
	struct dapl_ep *ep = new_ep(), *ep2 = new_ep();
	struct sockaddr_in sin = {.sin_family = AF_INET};
	DAT_PSP_HANDLE psp, psp2;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q = 0;
	DAT_CR_PARAM cp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	IS(dapl_psp_create(ia, 100, dto_evd, 0, &psp),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR),
	   "psp: not a CR EVD");
	IS(dapl_psp_create(ia, 7777, cr_evd, 0, &psp),
	   ERR(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE), "psp: qualifier in use");
	IS(dapl_psp_create(ia, 100, cr_evd, 0, &psp), DAT_SUCCESS, "psp");
	IS(dapl_psp_create_any(ia, &q, cr_evd2, 0, &psp2), DAT_SUCCESS,
	   "psp_any");
	tap_ok(q >= 40000, "psp_any: qualifier returned");

	tap_ok(!dapl_cm_request(psp, (void *)1, (struct sockaddr *)&sin, 9,
				"hi", 3),
	       "request on the PSP");
	tap_ok(next_event(cr_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_REQUEST_EVENT &&
		   ev.event_data.cr_arrival_event_data.conn_qual == 100,
	       "CR event");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp);
	tap_ok(cp.private_data_size == 3 && !strcmp(cp.private_data, "hi") &&
		   cp.remote_port_qual == 9 && !cp.local_ep_handle,
	       "cr_query");
	IS(dapl_cr_handoff(cr, 4242),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2), "handoff to nobody");
	IS(dapl_cr_handoff(cr, q), DAT_SUCCESS, "handoff to the PSP_any");
	IS(dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR), "old CR is gone");
	tap_ok(next_event(cr_evd2, &ev) &&
		   ev.event_data.cr_arrival_event_data.conn_qual == q,
	       "handed-off CR event");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp);
	tap_ok(cp.private_data_size == 3 && !strcmp(cp.private_data, "hi"),
	       "handed-off CR keeps its private data");
	IS(dapl_cr_accept(cr, ep, 0, NULL), DAT_SUCCESS, "accept");
	tap_ok(state(ep) == DAT_EP_STATE_COMPLETION_PENDING,
	       "COMPLETION_PENDING");
	dapl_cm_ep_event(ep, DAPL_CM_ESTABLISHED, NULL, 0);
	tap_ok(state(ep) == DAT_EP_STATE_CONNECTED &&
		   next_event(conn_evd, &ev) &&
		   ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED,
	       "accepted EP established");
	IS(dapl_cr_reject(cr), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR),
	   "accepted CR is gone");

	IS(dapl_rsp_create(ia, 200, ep, cr_evd, &rsp),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_CONNECTED),
	   "rsp on a connected EP");
	IS(dapl_rsp_create(ia, 200, ep2, cr_evd, &rsp), DAT_SUCCESS, "rsp");
	tap_ok(state(ep2) == DAT_EP_STATE_RESERVED, "RESERVED");
	IS(dapl_ep_free(ep2),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_RESERVED),
	   "no free while RESERVED");
	tap_ok(!dapl_cm_request(rsp, (void *)2, (struct sockaddr *)&sin, 9,
				NULL, 0) &&
		   state(ep2) == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	       "RSP request: PASSIVE_CONNECTION_PENDING (dat_rsp_create(3DAT))");
	tap_ok(dapl_cm_request(rsp, (void *)3, (struct sockaddr *)&sin, 9, NULL,
			       0) != 0,
	       "RSP takes one request only");
	next_event(cr_evd, &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp);
	tap_ok(cp.local_ep_handle == ep2, "RSP CR names its EP");
	IS(dapl_cr_reject(cr), DAT_SUCCESS, "reject");
	tap_ok(state(ep2) == DAT_EP_STATE_UNCONNECTED, "rejected: UNCONNECTED");
	IS(dapl_rsp_free(rsp), DAT_SUCCESS, "rsp_free");
	IS(dapl_psp_free(psp), DAT_SUCCESS, "psp_free");
	IS(dapl_psp_free(psp2), DAT_SUCCESS, "psp_free 2");
	tap_ok(f.listen_stop == 3, "listens stopped");
	IS(dapl_psp_free(psp), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP),
	   "psp freed twice");
	dapl_ep_free(ep);
	dapl_ep_free(ep2);
}

/* DAT_PSP_PROVIDER_FLAG (dat_psp_create(3DAT)): an EP per request, with
 * default attributes and no PZ or EVDs (no queue pair) until the
 * consumer's dat_ep_modify; accepted with ep_handle NULL, freed by a
 * reject. */
static void test_provider_ep(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	DAT_EP_PARAM ep_param;
	DAT_PSP_PARAM pp;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM cp;
	DAT_EP_HANDLE pep, other = new_ep();
	DAT_EVENT ev;
	int qc, qd;

	IS(dapl_psp_create(ia, 400, cr_evd, DAT_PSP_PROVIDER_FLAG, &psp),
	   DAT_SUCCESS, "psp with DAT_PSP_PROVIDER_FLAG");
	IS(dapl_psp_query(psp, DAT_PSP_FIELD_PSP_FLAGS, &pp), DAT_SUCCESS,
	   "psp_query");
	tap_ok(pp.psp_flags == DAT_PSP_PROVIDER_FLAG, "psp_query: PROVIDER_FLAG");
	qc = f.qp_create;
	tap_ok(!dapl_cm_request(psp, (void *)11, (struct sockaddr *)&sin, 9,
				"pe", 3) &&
		   next_event(cr_evd, &ev),
	       "request on the provider PSP");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	IS(dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp), DAT_SUCCESS, "cr_query");
	pep = cp.local_ep_handle;
	tap_ok(dapl_obj_ok(pep, DAT_HANDLE_TYPE_EP), "local_ep_handle is an EP");
	tap_ok(state(pep) == DAT_EP_STATE_UNCONFIGURED_TENTATIVE &&
		   f.qp_create == qc,
	       "no PZ yet: UNCONFIGURED_TENTATIVE, no queue pair");
	IS(dapl_ep_query(pep, DAT_EP_FIELD_ALL, &ep_param), DAT_SUCCESS,
	   "ep_query");
	tap_ok(!ep_param.pz_handle && !ep_param.connect_evd_handle &&
		   !ep_param.recv_evd_handle && !ep_param.request_evd_handle &&
		   ep_param.ep_attr.service_type == DAT_SERVICE_TYPE_RC &&
		   ep_param.ep_attr.max_recv_dtos > 0,
	       "DAT_HANDLE_NULL PZ and EVDs, default attributes");
	IS(dapl_ep_free(pep),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFTENTATIVE),
	   "no free while its CR is pending");
	IS(dapl_cr_accept(cr, NULL, 0, NULL),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONFTENTATIVE),
	   "accept before a PZ: invalid state");
	IS(dapl_cr_accept(cr, other, 0, NULL),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	   "accept on another EP");
	ep_param.pz_handle = pz;
	ep_param.recv_evd_handle = dto_evd;
	ep_param.request_evd_handle = dto_evd;
	ep_param.connect_evd_handle = conn_evd;
	IS(dapl_ep_modify(pep,
			  DAT_EP_FIELD_PZ_HANDLE | DAT_EP_FIELD_RECV_EVD_HANDLE |
			      DAT_EP_FIELD_REQUEST_EVD_HANDLE |
			      DAT_EP_FIELD_CONNECT_EVD_HANDLE,
			  &ep_param),
	   DAT_SUCCESS, "ep_modify: PZ and EVDs");
	tap_ok(state(pep) == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING &&
		   f.qp_create == qc + 1,
	       "queue pair made: TENTATIVE_CONNECTION_PENDING");
	IS(dapl_cr_accept(cr, NULL, 0, NULL), DAT_SUCCESS,
	   "accept with ep_handle NULL");
	tap_ok(state(pep) == DAT_EP_STATE_COMPLETION_PENDING,
	       "COMPLETION_PENDING");
	dapl_cm_ep_event(pep, DAPL_CM_ESTABLISHED, NULL, 0);
	tap_ok(state(pep) == DAT_EP_STATE_CONNECTED && next_event(conn_evd, &ev),
	       "provider EP established");
	dapl_cm_ep_event(pep, DAPL_CM_DISCONNECTED, NULL, 0);
	next_event(conn_evd, &ev);
	IS(dapl_ep_free(pep), DAT_SUCCESS, "accepted provider EP: the consumer's");

	/* a rejected request's EP goes back to the provider */
	tap_ok(!dapl_cm_request(psp, (void *)12, (struct sockaddr *)&sin, 9,
				NULL, 0) &&
		   next_event(cr_evd, &ev),
	       "second request");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	dapl_cr_query(cr, DAT_CR_FIELD_LOCAL_EP_HANDLE, &cp);
	pep = cp.local_ep_handle;
	qd = f.qp_destroy;
	IS(dapl_cr_reject(cr), DAT_SUCCESS, "reject");
	tap_ok(!dapl_obj_ok(pep, DAT_HANDLE_TYPE_EP) && f.qp_destroy == qd,
	       "reject freed the provider EP (it had no queue pair)");
	IS(dapl_ep_free(pep), ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	   "its handle is stale");
	IS(dapl_psp_free(psp), DAT_SUCCESS, "psp_free");
	dapl_ep_free(other);
}

/* Connection requests never vanish: a request without room on its CR
 * EVD (shared by two PSPs here) is refused, so the provider rejects it;
 * a handoff to a PSP whose EVD is full fails and keeps the CR. */
static void test_cr_overflow(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	DAT_PSP_HANDLE a, b, psp;
	DAT_EVD_HANDLE small;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM cp;
	DAT_EVENT ev;

	IS(dapl_evd_create(ia, 1, NULL, DAT_EVD_CR_FLAG, &small), DAT_SUCCESS,
	   "CR EVD of one slot");
	IS(dapl_psp_create(ia, 300, small, 0, &a), DAT_SUCCESS, "psp A");
	IS(dapl_psp_create(ia, 301, small, 0, &b), DAT_SUCCESS,
	   "psp B on the same EVD");
	IS(dapl_psp_create(ia, 302, cr_evd, 0, &psp), DAT_SUCCESS, "psp C");
	tap_ok(!dapl_cm_request(a, (void *)4, (struct sockaddr *)&sin, 9, NULL,
				0),
	       "request on A takes the EVD's slot");
	tap_ok(dapl_cm_request(b, (void *)5, (struct sockaddr *)&sin, 9, NULL,
			       0) != 0,
	       "request on B: no room on the shared EVD, refused (rejected)");
	tap_ok(!dapl_cm_request(psp, (void *)6, (struct sockaddr *)&sin, 9,
				NULL, 0) &&
		   next_event(cr_evd, &ev),
	       "request on C");
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	IS(dapl_cr_handoff(cr, 301), ERR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE),
	   "handoff to B, whose EVD is full: DAT_QUEUE_FULL");
	IS(dapl_cr_query(cr, DAT_CR_FIELD_ALL, &cp), DAT_SUCCESS,
	   "the CR is still valid");
	tap_ok(next_event(small, &ev) &&
		   ev.event_data.cr_arrival_event_data.conn_qual == 300,
	       "the shared EVD holds A's request only");
	IS(dapl_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle),
	   DAT_SUCCESS, "reject A's request");
	IS(dapl_cr_handoff(cr, 301), DAT_SUCCESS, "handoff once there is room");
	tap_ok(next_event(small, &ev) &&
		   ev.event_data.cr_arrival_event_data.conn_qual == 301,
	       "the handed-off request arrives at B");
	IS(dapl_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle),
	   DAT_SUCCESS, "reject it");
	IS(dapl_psp_free(a), DAT_SUCCESS, "psp A freed");
	IS(dapl_psp_free(b), DAT_SUCCESS, "psp B freed");
	IS(dapl_psp_free(psp), DAT_SUCCESS, "psp C freed");
	IS(dapl_evd_free(small), DAT_SUCCESS, "shared EVD freed");
}

/*
 * A transport with the one-segment ops gets every one-segment send and
 * receive through them (no struct dapl_post), the others through
 * post_send/post_recv; the checks and their order are the same.  The
 * EP's last-LMR cache never outlives its LMR: a freed LMR is refused,
 * and a new one in the same memory with the same lmr_context is checked
 * as itself (its bounds and privileges, not the old one's).
 */
static void test_post1(void)
{
	static struct dapl_ops ops1;
	const struct dapl_ops *saved = ia->ops;
	DAT_LMR_TRIPLET t2[2];
	DAT_LMR_HANDLE l2 = NULL, l3 = NULL;
	DAT_LMR_CONTEXT c2 = 0, c3 = 0;
	DAT_REGION_DESCRIPTION r;
	DAT_RMR_TRIPLET rt = {.rmr_context = 77, .target_address = 0x1000,
			      .segment_length = 16};
	DAT_DTO_COOKIE c = {.as_64 = 5};
	struct dapl_ep *ep;
	DAT_EVENT ev;
	int ps, pr, i;

	ops1 = fake_ops;
	ops1.post_send1 = post_send1;
	ops1.post_recv1 = post_recv1;
	ia->ops = &ops1;
	ep = new_ep();
	connect_ep(ep);
	memset(&f.sge[0], 0, sizeof(f.sge[0]));
	ps = f.post_send;
	pr = f.post_recv;
	IS(send1(ep, DAT_COMPLETION_SOLICITED_WAIT_FLAG), DAT_SUCCESS,
	   "post1: one-segment send");
	tap_ok(f.post_send1 == 1 && f.post_send == ps && f.cookie1 &&
		   f.cookie1->ep == ep && f.cookie1->user_cookie.as_64 == 1 &&
		   f.cookie1->length == 16 &&
		   f.sge[0].addr == (uintptr_t)buf && f.sge[0].length == 16 &&
		   f.sge[0].lkey == lctx &&
		   (f.flags1 & (DAPL_POST_SIGNALED | DAPL_POST_SOLICITED)) ==
		       (DAPL_POST_SIGNALED | DAPL_POST_SOLICITED),
	       "post1: send1 op gets the cookie, the segment and the flags");
	IS(recv1(ep), DAT_SUCCESS, "post1: one-segment receive");
	tap_ok(f.post_recv1 == 1 && f.post_recv == pr &&
		   f.cookie1->op == DAPL_OP_RECV && f.sge[0].length == 128,
	       "post1: recv1 op gets it, not post_recv");
	/* the ops answer an errno (transport.h): each as its DAT error
	 * (dto.c dapl_post_errno), and the cookie given back */
	{
		static const struct {
			int err;
			DAT_RETURN rc;
		} map[] = {
		    {ENOMEM, ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP)},
		    {EINVAL, ERR(DAT_INVALID_PARAMETER, DAT_NO_SUBTYPE)},
		    {ENOTCONN, ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE)},
		    {EIO, ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE)},
		};
		char what[80];
		unsigned k;

		for (k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
			uint32_t sh = ep->send_ring.head;
			uint32_t rh = ep->recv_ring.head;

			f.fail1 = map[k].err;
			snprintf(what, sizeof(what), "post1: send1's errno %d",
				 map[k].err);
			IS(send1(ep, 0), map[k].rc, what);
			f.fail1 = map[k].err;
			snprintf(what, sizeof(what), "post1: recv1's errno %d",
				 map[k].err);
			IS(recv1(ep), map[k].rc, what);
			snprintf(what, sizeof(what),
				 "post1: errno %d: both cookies given back",
				 map[k].err);
			tap_ok(ep->send_ring.head == sh &&
				   ep->recv_ring.head == rh,
			       what);
		}
		/* the counts the checks below expect */
		f.post_send1 = f.post_recv1 = 1;
	}
	t2[0] = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 8};
	t2[1] = t2[0];
	IS(dapl_ep_post_send(ep, 2, t2, c, 0), DAT_SUCCESS,
	   "post1: two segments");
	IS(dapl_ep_post_rdma_write(ep, 1, t2, c, &rt, 0), DAT_SUCCESS,
	   "post1: rdma write");
	tap_ok(f.post_send == ps + 2 && f.post_send1 == 1,
	       "post1: two segments and RDMA go through post_send");
	{
		/* every request flag combination (UNSIGNALLED allowed for
		 * the loop) as post flags (dto.c's dto_pf table): FENCE for
		 * BARRIER_FENCE, SOLICITED for SOLICITED_WAIT on a send
		 * only, SIGNALED unless SUPPRESS (or the half-ring rule),
		 * the cookie's signaled unless SUPPRESS */
		const DAT_COMPLETION_FLAGS saved_rf =
		    ep->attr.request_completion_flags;
		const unsigned m = DAPL_POST_FENCE | DAPL_POST_SOLICITED |
				   DAPL_POST_SIGNALED;
		int ok_send = 1, ok_write = 1;
		DAT_COMPLETION_FLAGS fl;

		ep->attr.request_completion_flags |=
		    DAT_COMPLETION_UNSIGNALLED_FLAG;
		dapl_ep_post_limits(ep); /* after a change of ep->attr */
		for (fl = 0; fl < 32; fl++) {
			const int sup = !!(fl & DAT_COMPLETION_SUPPRESS_FLAG);
			unsigned want = 0, half;

			if (fl & DAT_COMPLETION_BARRIER_FENCE_FLAG)
				want |= DAPL_POST_FENCE;
			ep->send_ring.tail = ep->send_ring.head;
			half = ep->send_ring.size >> 1;
			if (!sup || !half ||
			    (ep->send_ring.head & (half - 1)) == half - 1)
				want |= DAPL_POST_SIGNALED;
			ok_send = ok_send && send1(ep, fl) == DAT_SUCCESS &&
				  (f.flags1 & m) ==
				      (want | ((fl & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
						   ? DAPL_POST_SOLICITED
						   : 0)) &&
				  !!f.cookie1->signaled == !sup;
			ep->send_ring.tail = ep->send_ring.head;
			want &= ~(unsigned)DAPL_POST_SIGNALED;
			if (!sup || !half ||
			    (ep->send_ring.head & (half - 1)) == half - 1)
				want |= DAPL_POST_SIGNALED;
			ok_write = ok_write &&
				   dapl_ep_post_rdma_write(ep, 1, t2, c, &rt,
							   fl) == DAT_SUCCESS &&
				   (f.last.flags & m) == want &&
				   !!f.last.cookie->signaled == !sup;
		}
		ep->send_ring.tail = ep->send_ring.head;
		ep->attr.request_completion_flags = saved_rf;
		dapl_ep_post_limits(ep); /* after a change of ep->attr */
		tap_ok(ok_send, "post1: all 32 request flag sets map to the send's post flags");
		tap_ok(ok_write, "post1: and to an RDMA write's (never SOLICITED)");
	}
	/* the same checks, in the same order */
	IS(send1(ep, DAT_COMPLETION_UNSIGNALLED_FLAG),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	   "post1: UNSIGNALLED not allowed");
	/* one segment where the EP takes none: the count, before the iov */
	i = ep->attr.max_request_iov;
	ep->attr.max_request_iov = 0;
	dapl_ep_post_limits(ep); /* after a change of ep->attr */
	IS(dapl_ep_post_send(ep, 1, NULL, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	   "post1: one segment, max_request_iov 0");
	ep->attr.max_request_iov = i;
	dapl_ep_post_limits(ep); /* after a change of ep->attr */
	IS(dapl_ep_post_send(ep, 1, NULL, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "post1: one segment, NULL local_iov");
	IS(dapl_ep_post_recv(ep, 1, NULL, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "post1: one receive segment, NULL local_iov");
	t2[0] = (DAT_LMR_TRIPLET){ro_lctx, 0, (DAT_VADDR)(uintptr_t)robuf, 8};
	IS(dapl_ep_post_recv(ep, 1, t2, c, 0),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "post1: recv into a read-only LMR");
	t2[0] = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 8};
	IS(dapl_ep_post_send(ep, 1, t2, c, 0), DAT_SUCCESS,
	   "post1: the LMR again (cached)");
	t2[0].virtual_address += sizeof(buf);
	IS(dapl_ep_post_send(ep, 1, t2, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "post1: the cached LMR's bounds are checked");

	/* an LMR cached by the EP, then freed: refused */
	r.for_va = buf;
	IS(dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
			   DAT_MEM_PRIV_ALL_FLAG, &l2, &c2, NULL, NULL, NULL),
	   DAT_SUCCESS, "post1: a second LMR");
	t2[0] = (DAT_LMR_TRIPLET){c2, 0, (DAT_VADDR)(uintptr_t)buf, 64};
	IS(dapl_ep_post_send(ep, 1, t2, c, 0), DAT_SUCCESS,
	   "post1: send from it (cached)");
	tap_ok(ep->lc_lmr == l2,
	       "post1: the EP caches the LMR of its last post");
	IS(dapl_lmr_free(l2), DAT_SUCCESS, "post1: the cached LMR freed");
	IS(dapl_ep_post_send(ep, 1, t2, c, 0),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "post1: a freed cached LMR is refused");
	/* a new LMR in the freed one's memory, with its lmr_context but a
	 * smaller registration and read-only: its own checks apply */
	/* (a freed block is reused only after a quarantine: cycle LMRs
	 * until the free list hands out l2's memory) */
	for (i = 0; i < 64; i++) {
		f.next_lkey = c2;
		l3 = NULL;
		if (dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 32, pz,
				    DAT_MEM_PRIV_LOCAL_READ_FLAG, &l3, &c3,
				    NULL, NULL, NULL) != DAT_SUCCESS ||
		    l3 == l2)
			break;
		dapl_lmr_free(l3);
	}
	tap_ok(l3 == l2 && c3 == c2,
	       "post1: a new LMR in the freed one's memory, same lmr_context");
	IS(dapl_ep_post_send(ep, 1, t2, c, 0),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "post1: the new LMR's bounds, not the old one's");
	t2[0].segment_length = 32;
	IS(dapl_ep_post_recv(ep, 1, t2, c, 0),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "post1: the new LMR's privileges, not the old one's");
	IS(dapl_ep_post_send(ep, 1, t2, c, 0), DAT_SUCCESS,
	   "post1: within the new LMR");
	tap_ok(ep->lc_lmr == l3,
	       "post1: the cache holds the live LMR of that context");
	IS(dapl_lmr_free(l3), DAT_SUCCESS, "post1: the new LMR freed");

	dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG);
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	dapl_ep_free(ep);
	while (next_event(conn_evd, &ev))
		;
	ia->ops = saved;
}


/* libdat's dat_extension_op, for the atomics (ext.c). */
static DAT_RETURN ext(DAT_HANDLE h, int op, ...)
{
	DAT_RETURN rc;
	va_list ap;

	va_start(ap, op);
	rc = dapl_extension_op(h, op, ap);
	va_end(ap);
	return rc;
}

static DAT_RETURN faa(struct dapl_ep *ep, uint64_t add, DAT_LMR_TRIPLET *l,
		      const DAT_RMR_TRIPLET *r, DAT_COMPLETION_FLAGS fl)
{
	DAT_DTO_COOKIE c = {.as_64 = 41};

	return ext(ep, DAT_IB_FETCH_AND_ADD_OP, (DAT_UINT64)add, l, c, r,
		   (DAT_COMPLETION_FLAGS)fl);
}

static DAT_RETURN cas(struct dapl_ep *ep, uint64_t cmp, uint64_t swap,
		      DAT_LMR_TRIPLET *l, const DAT_RMR_TRIPLET *r,
		      DAT_COMPLETION_FLAGS fl)
{
	DAT_DTO_COOKIE c = {.as_64 = 42};

	return ext(ep, DAT_IB_CMP_AND_SWAP_OP, (DAT_UINT64)cmp,
		   (DAT_UINT64)swap, l, c, r, (DAT_COMPLETION_FLAGS)fl);
}

/* an RDMA write (read: 1) of one triplet to rt with cookie 33 */
static DAT_RETURN rdma1(struct dapl_ep *ep, int read, DAT_LMR_TRIPLET *t,
			const DAT_RMR_TRIPLET *rt, DAT_COMPLETION_FLAGS fl)
{
	DAT_DTO_COOKIE c = {.as_64 = 33};

	return read ? dapl_ep_post_rdma_read(ep, 1, t, c, rt, fl)
		    : dapl_ep_post_rdma_write(ep, 1, t, c, rt, fl);
}

/* the calls of every post op, to see which one a post took */
static int post_calls(void)
{
	return f.post_send + f.post_recv + f.post_send1 + f.post_recv1 +
	       f.post_write1 + f.post_read1 + f.post_atomic1;
}

/*
 * The one-segment RDMA write and read and the atomics through the
 * transport's post_write1/post_read1/post_atomic1 (dto.c's common path):
 * every check of the general path, in its order, with its error; the
 * segment, remote side, post flags and cookie the op gets; the general
 * path (post_send) for what is not the common post, and for a transport
 * without the ops.
 */
static void test_rdma1(void)
{
	static struct dapl_ops ops1;
	const struct dapl_ops *saved = ia->ops;
	const uint32_t saved_caps = ia->caps.flags;
	const DAT_RMR_TRIPLET rt16 = {.rmr_context = 77,
				      .target_address = 0x1000,
				      .segment_length = 16};
	DAT_RMR_TRIPLET rt = rt16;
	DAT_LMR_TRIPLET t, t2[2];
	DAT_LMR_HANDLE l2 = NULL;
	DAT_LMR_CONTEXT c2 = 0;
	DAT_PZ_HANDLE pz2 = NULL;
	DAT_REGION_DESCRIPTION r;
	DAT_DTO_COOKIE c = {.as_64 = 5};
	struct dapl_ep *ep;
	DAT_EVENT ev;
	int rd, n, i;

	ops1 = fake_ops;
	ops1.post_send1 = post_send1;
	ops1.post_recv1 = post_recv1;
	ops1.post_write1 = post_write1;
	ops1.post_read1 = post_read1;
	ops1.post_atomic1 = post_atomic1;
	ia->ops = &ops1;
	ia->caps.flags |= DAPL_CAP_ATOMICS;
	ep = new_ep();
	tap_ok(ep->post_write1 == post_write1 && ep->post_read1 == post_read1 &&
		   ep->post_atomic1 == post_atomic1,
	       "rdma1: the EP copies the one-segment ops at create");
	t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 16};
	IS(rdma1(ep, 0, &t, &rt, 0),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED),
	   "rdma1: write before connect: INVALID_STATE");
	IS(rdma1(ep, 1, &t, &rt, 0),
	   ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_UNCONNECTED),
	   "rdma1: read before connect: INVALID_STATE");
	tap_ok(ep->send_ring.head == ep->send_ring.tail,
	       "rdma1: no cookie taken by a refused post");
	connect_ep(ep);

	for (rd = 0; rd < 2; rd++) {
		const char *const w = rd ? "read" : "write";
		const int op = rd ? (int)DAPL_OP_RDMA_READ
				  : (int)DAPL_OP_RDMA_WRITE;
		int *const calls = rd ? &f.post_read1 : &f.post_write1;
		DAT_COUNT *const max = rd ? &ep->attr.max_rdma_read_iov
					  : &ep->attr.max_rdma_write_iov;
		char what[128];
#define W(s) (snprintf(what, sizeof(what), "rdma1: %s: %s", w, (s)), what)

		/* the handle, the flags, the remote triplet, the count,
		 * the local triplet: in this order */
		IS(rdma1(NULL, rd, NULL, NULL, ~0u),
		   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
		   W("NULL handle first"));
		IS(rdma1((struct dapl_ep *)lmr, rd, &t, &rt, 0),
		   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
		   W("an LMR handle"));
		IS(rdma1(ep, rd, NULL, NULL, 1u << 12),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
		   W("an unknown flag: ARG6 before the iovs"));
		IS(rdma1(ep, rd, NULL, NULL, DAT_COMPLETION_UNSIGNALLED_FLAG),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
		   W("UNSIGNALLED without the EP's flag: ARG6"));
		IS(rdma1(ep, rd, NULL, NULL, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
		   W("NULL remote_iov: ARG5 before the local"));
		n = *max;
		*max = 0;
		IS(rdma1(ep, rd, NULL, &rt, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
		   W("one segment where the EP takes none: ARG2"));
		*max = n;
		IS(rdma1(ep, rd, NULL, &rt, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		   W("NULL local_iov: ARG3"));
		/* the LMR: unknown, then cached with each check */
		ep->lc_lmr = &dapl_lmr_none; /* empty: a miss */
		t = (DAT_LMR_TRIPLET){lctx + 1000, 0,
				      (DAT_VADDR)(uintptr_t)buf, 16};
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
		   W("an unknown lmr_context: PRIVILEGES_VIOLATION"));
		t = (DAT_LMR_TRIPLET){ro_lctx, 0,
				      (DAT_VADDR)(uintptr_t)robuf, 16};
		n = post_calls();
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE)
		      : DAT_SUCCESS,
		   W("a read-only LMR (a cache miss): only a write"));
		tap_ok(ep->lc_lmr == ro_lmr && post_calls() == n + !rd,
		       W("the miss refilled the EP's cache"));
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE)
		      : DAT_SUCCESS,
		   W("the read-only LMR again (a hit): the same answer"));
		r.for_va = buf;
		if (!pz2)
			dapl_pz_create(ia, &pz2);
		if (!l2)
			dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r,
					sizeof(buf), pz2, DAT_MEM_PRIV_ALL_FLAG,
					&l2, &c2, NULL, NULL, NULL);
		t = (DAT_LMR_TRIPLET){c2, 0, (DAT_VADDR)(uintptr_t)buf, 16};
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE),
		   W("an LMR of another PZ (a miss): PROTECTION_VIOLATION"));
		tap_ok(ep->lc_lmr == l2, W("cached"));
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE),
		   W("the same (a hit): PROTECTION_VIOLATION"));
		t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 16};
		IS(rdma1(ep, rd, &t, &rt, 0), DAT_SUCCESS, W("in bounds"));
		tap_ok(ep->lc_lmr == lmr, W("the LMR cached"));
		t.virtual_address = (DAT_VADDR)(uintptr_t)buf - 8;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		   W("starting below the LMR (a hit): ARG3"));
		t.virtual_address = (DAT_VADDR)(uintptr_t)buf + sizeof(buf) - 8;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		   W("ending past the LMR (a hit): ARG3"));
		t.virtual_address = (DAT_VADDR)(uintptr_t)buf;
		t.segment_length = 1ull << 32;
		rt.segment_length = 1ull << 32;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
		   W("4 GiB (a hit): ARG3"));
		rt = rt16;
		/* lengths against the remote buffer (rdma_fit) */
		t.segment_length = 32;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? DAT_SUCCESS : ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
		   W("local longer than remote: a read is cut, a write "
		     "LENGTH_ERROR"));
		if (rd)
			tap_ok(f.sge[0].length == 16 &&
				   f.cookie1->length == 16,
			       W("cut to the remote length (segment and "
				 "cookie)"));
		t.segment_length = 8;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE) : DAT_SUCCESS,
		   W("local shorter than remote: a read LENGTH_ERROR"));
		/* one byte either way */
		t.segment_length = 17;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? DAT_SUCCESS : ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
		   W("one byte longer than remote"));
		t.segment_length = 15;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   rd ? ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE) : DAT_SUCCESS,
		   W("one byte shorter than remote"));
		/* what the op gets */
		t.segment_length = 16;
		n = *calls;
		ep->send_ring.tail = ep->send_ring.head;
		IS(rdma1(ep, rd, &t, &rt,
			 DAT_COMPLETION_SOLICITED_WAIT_FLAG),
		   DAT_SUCCESS, W("posted"));
		tap_ok(*calls == n + 1 && f.op1 == op &&
			   f.raddr1 == 0x1000 && f.rkey1 == 77 &&
			   f.sge[0].addr == (uintptr_t)buf &&
			   f.sge[0].length == 16 && f.sge[0].lkey == lctx &&
			   f.cookie1->ep == ep &&
			   f.cookie1->user_cookie.as_64 == 33 &&
			   f.cookie1->length == 16 && f.cookie1->op == op &&
			   f.cookie1->signaled && f.cookie1->rmr == NULL &&
			   f.cookie1 == &ep->send_ring.slot[
					    f.cookie1->seq &
					    (ep->send_ring.size - 1)] &&
			   f.cookie1->seq == ep->send_ring.head - 1,
		       W("its op gets the segment, remote side and cookie"));
		tap_ok(f.flags1 == (DAPL_POST_SIGNALED |
				    (rd ? 0 : DAPL_POST_INLINE)),
		       W("flags: signaled, never solicited, inline only "
			 "for a write"));
		t.segment_length = 65;
		rt.segment_length = 65;
		IS(rdma1(ep, rd, &t, &rt, 0), DAT_SUCCESS, W("65 bytes"));
		tap_ok(!(f.flags1 & DAPL_POST_INLINE),
		       W("past max_inline: not inline"));
		rt = rt16;
		/* a zero-length segment: no LMR is looked at */
		t = (DAT_LMR_TRIPLET){lctx + 1000, 0, 0, 0};
		rt.segment_length = 0;
		IS(rdma1(ep, rd, &t, &rt, 0), DAT_SUCCESS,
		   W("zero length, its lmr_context not looked at"));
		tap_ok(f.sge[0].length == 0 && f.cookie1->length == 0,
		       W("zero length posted"));
		rt = rt16;
		/* every request flag set (UNSIGNALLED allowed): post
		 * flags and the cookie's signaled, the half-ring rule */
		{
			const DAT_COMPLETION_FLAGS saved_rf =
			    ep->attr.request_completion_flags;
			const unsigned m = DAPL_POST_FENCE |
					   DAPL_POST_SOLICITED |
					   DAPL_POST_SIGNALED |
					   DAPL_POST_INLINE;
			DAT_COMPLETION_FLAGS fl;
			int ok = 1, k;

			t = (DAT_LMR_TRIPLET){lctx, 0,
					      (DAT_VADDR)(uintptr_t)buf, 16};
			ep->attr.request_completion_flags |=
			    DAT_COMPLETION_UNSIGNALLED_FLAG;
			dapl_ep_post_limits(ep); /* after a change of ep->attr */
			for (k = 0; k < 2 * 64; k++) {
				const unsigned half = ep->send_ring.size >> 1;
				unsigned want = rd ? 0 : DAPL_POST_INLINE;
				int sup;

				fl = k & 31;
				sup = !!(fl & DAT_COMPLETION_SUPPRESS_FLAG);
				if (fl & DAT_COMPLETION_BARRIER_FENCE_FLAG)
					want |= DAPL_POST_FENCE;
				if (!sup ||
				    (ep->send_ring.head & (half - 1)) ==
					half - 1)
					want |= DAPL_POST_SIGNALED;
				ep->send_ring.tail = ep->send_ring.head;
				ok = ok && rdma1(ep, rd, &t, &rt, fl) ==
					       DAT_SUCCESS &&
				     (f.flags1 & m) == want &&
				     !!f.cookie1->signaled == !sup;
			}
			ep->attr.request_completion_flags = saved_rf;
			dapl_ep_post_limits(ep); /* after a change of ep->attr */
			tap_ok(ok, W("every flag set, twice round the ring: "
				     "post flags and signaled"));
		}
		/* the automatic fence of a bind */
		ep->send_ring.tail = ep->send_ring.head;
		ep->rmr_fence = 1;
		IS(rdma1(ep, rd, &t, &rt, 0), DAT_SUCCESS,
		   W("after a bind"));
		tap_ok((f.flags1 & DAPL_POST_FENCE) && !ep->rmr_fence,
		       W("fenced, and only once"));
		IS(rdma1(ep, rd, &t, &rt, 0), DAT_SUCCESS, W("again"));
		tap_ok(!(f.flags1 & DAPL_POST_FENCE), W("not fenced"));
		/* the transport refuses (a full work queue, its errno):
		 * the DAT error, and the cookie is given back */
		n = (int)ep->send_ring.head;
		f.fail1 = ENOMEM;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP),
		   W("the transport's error"));
		tap_ok((int)ep->send_ring.head == n,
		       W("its cookie given back"));
		/* a full ring */
		for (i = 0; i < 100 && rdma1(ep, rd, &t, &rt, 0) ==
					      DAT_SUCCESS; i++)
			;
		IS(rdma1(ep, rd, &t, &rt, 0),
		   ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY),
		   W("a full ring: INSUFFICIENT_RESOURCES"));
		ep->send_ring.tail = ep->send_ring.head;
		/* not the common post: through post_send */
		n = f.post_send;
		t2[0] = (DAT_LMR_TRIPLET){lctx, 0,
					  (DAT_VADDR)(uintptr_t)buf, 8};
		t2[1] = t2[0];
		IS(rd ? dapl_ep_post_rdma_read(ep, 2, t2, c, &rt, 0)
		      : dapl_ep_post_rdma_write(ep, 2, t2, c, &rt, 0),
		   DAT_SUCCESS, W("two segments"));
		tap_ok(f.post_send == n + 1 && f.last.num_sge == 2 &&
			   (int)f.last.op == op && f.last.rkey == 77,
		       W("two segments through post_send"));
		t2[0].segment_length = 32;
		rt.segment_length = 0;
		IS(rdma1(ep, rd, t2, &rt, 0),
		   rd ? DAT_SUCCESS : ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
		   W("32 bytes to a remote length of 0"));
		if (rd)
			tap_ok(f.post_send == n + 2 && f.last.num_sge == 0 &&
				   f.last.cookie->length == 0,
			       W("cut to nothing: no segment, through "
				 "post_send"));
		rt = rt16;
#undef W
	}
	/* the cache's miss goes to the one-segment op too */
	ep->lc_lmr = &dapl_lmr_none; /* empty: a miss */
	n = f.post_read1;
	IS(rdma1(ep, 1, &t, &rt, 0), DAT_SUCCESS, "rdma1: a read, a miss");
	tap_ok(f.post_read1 == n + 1 && ep->lc_lmr == lmr &&
		   f.sge[0].length == 16 && f.raddr1 == 0x1000,
	       "rdma1: a miss through post_read1, the cache refilled");

	/* the atomics (ext.c's checks, then dto.c's) */
	t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 16};
	rt.target_address = 0x2008;
	ep->send_ring.tail = ep->send_ring.head;
	IS(ext(ep, 7, &t), ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE),
	   "atomic1: an unknown extension op");
	IS(faa(NULL, 1, &t, &rt, 0),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	   "atomic1: NULL handle");
	IS(cas((struct dapl_ep *)lmr, 1, 2, &t, &rt, 0),
	   ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP),
	   "atomic1: an LMR handle");
	ia->caps.flags &= ~(uint32_t)DAPL_CAP_ATOMICS;
	IS(faa(ep, 1, NULL, NULL, ~0u),
	   ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE),
	   "atomic1: an IA without atomics, before every argument");
	ia->caps.flags |= DAPL_CAP_ATOMICS;
	IS(faa(ep, 1, NULL, NULL, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "atomic1: fetch-and-add, NULL local_iov: ARG3");
	IS(cas(ep, 1, 2, NULL, NULL, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	   "atomic1: compare-and-swap, NULL local_iov: ARG4");
	t.segment_length = 7;
	IS(faa(ep, 1, &t, NULL, ~0u), ERR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE),
	   "atomic1: 7 bytes: LENGTH_ERROR before the remote");
	t.segment_length = 16;
	IS(faa(ep, 1, &t, NULL, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	   "atomic1: fetch-and-add, NULL remote_iov: ARG5");
	IS(cas(ep, 1, 2, &t, NULL, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
	   "atomic1: compare-and-swap, NULL remote_iov: ARG6");
	rt.target_address = 0x2004;
	IS(faa(ep, 1, &t, &rt, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5),
	   "atomic1: fetch-and-add, a remote address not 8-aligned: ARG5");
	IS(cas(ep, 1, 2, &t, &rt, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
	   "atomic1: compare-and-swap, not 8-aligned: ARG6");
	rt.target_address = 0x2008;
	t = (DAT_LMR_TRIPLET){ro_lctx, 0, (DAT_VADDR)(uintptr_t)robuf, 8};
	ep->lc_lmr = &dapl_lmr_none; /* empty: a miss */
	IS(faa(ep, 1, &t, &rt, ~0u),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "atomic1: a read-only LMR (a miss): PRIVILEGES_VIOLATION");
	tap_ok(ep->lc_lmr == ro_lmr, "atomic1: the miss refilled the cache");
	IS(cas(ep, 1, 2, &t, &rt, ~0u),
	   ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE),
	   "atomic1: the same (a hit): PRIVILEGES_VIOLATION, before the flags");
	t = (DAT_LMR_TRIPLET){c2, 0, (DAT_VADDR)(uintptr_t)buf, 8};
	IS(faa(ep, 1, &t, &rt, ~0u),
	   ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE),
	   "atomic1: an LMR of another PZ: PROTECTION_VIOLATION");
	IS(faa(ep, 1, &t, &rt, ~0u),
	   ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE),
	   "atomic1: the same (a hit)");
	t = (DAT_LMR_TRIPLET){lctx, 0,
			      (DAT_VADDR)(uintptr_t)buf + sizeof(buf) - 4, 8};
	IS(faa(ep, 1, &t, &rt, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	   "atomic1: fetch-and-add, 8 bytes past the LMR: ARG3");
	IS(cas(ep, 1, 2, &t, &rt, ~0u),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	   "atomic1: compare-and-swap, past the LMR (a hit): ARG4");
	t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf + 8, 64};
	IS(faa(ep, 1, &t, &rt, 1u << 12),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6),
	   "atomic1: fetch-and-add, an unknown flag: ARG6");
	IS(cas(ep, 1, 2, &t, &rt, DAT_COMPLETION_UNSIGNALLED_FLAG),
	   ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7),
	   "atomic1: compare-and-swap, UNSIGNALLED without the EP's: ARG7");
	n = f.post_atomic1;
	IS(faa(ep, 0x123456789ull, &t, &rt, DAT_COMPLETION_SOLICITED_WAIT_FLAG |
					       DAT_COMPLETION_BARRIER_FENCE_FLAG),
	   DAT_SUCCESS, "atomic1: fetch-and-add posted");
	tap_ok(f.post_atomic1 == n + 1 && f.op1 == DAPL_OP_ATOMIC_FETCH_ADD &&
		   f.raddr1 == 0x2008 && f.rkey1 == 77 &&
		   f.cmp1 == 0x123456789ull && f.swap1 == 0 &&
		   f.sge[0].addr == (uintptr_t)buf + 8 &&
		   f.sge[0].length == 8 && f.sge[0].lkey == lctx &&
		   f.flags1 == (DAPL_POST_SIGNALED | DAPL_POST_FENCE) &&
		   f.cookie1->ep == ep && f.cookie1->user_cookie.as_64 == 41 &&
		   f.cookie1->length == 8 &&
		   f.cookie1->op == DAPL_OP_ATOMIC_FETCH_ADD &&
		   f.cookie1->signaled && f.cookie1->rmr == NULL &&
		   ep->lc_lmr == lmr,
	       "atomic1: post_atomic1 gets 8 bytes, the operand, the remote "
	       "side, fence but not solicited nor inline, the cookie");
	IS(cas(ep, 5, 6, &t, &rt, DAT_COMPLETION_SUPPRESS_FLAG),
	   DAT_SUCCESS, "atomic1: compare-and-swap posted");
	tap_ok(f.op1 == DAPL_OP_ATOMIC_CMP_SWAP && f.cmp1 == 5 &&
		   f.swap1 == 6 && f.sge[0].length == 8 &&
		   f.cookie1->user_cookie.as_64 == 42 &&
		   f.cookie1->op == DAPL_OP_ATOMIC_CMP_SWAP &&
		   !f.cookie1->signaled && !(f.flags1 & DAPL_POST_SIGNALED),
	       "atomic1: compare-and-swap's operands; SUPPRESS: unsignaled");
	ep->rmr_fence = 1;
	IS(faa(ep, 1, &t, &rt, 0), DAT_SUCCESS, "atomic1: after a bind");
	tap_ok((f.flags1 & DAPL_POST_FENCE) && !ep->rmr_fence,
	       "atomic1: fenced after a bind");
	f.fail1 = EIO;
	n = (int)ep->send_ring.head;
	IS(cas(ep, 1, 2, &t, &rt, 0), ERR(DAT_INTERNAL_ERROR, 0),
	   "atomic1: the transport's error");
	tap_ok((int)ep->send_ring.head == n, "atomic1: its cookie given back");

	/* a transport without the ops: the same posts through post_send */
	ops1.post_write1 = NULL;
	ops1.post_read1 = NULL;
	ops1.post_atomic1 = NULL;
	dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG);
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	IS(faa(ep, 1, &t, &rt, 0), DAT_SUCCESS,
	   "atomic1: DISCONNECTED takes a request (flushed)");
	dapl_ep_free(ep);
	while (next_event(conn_evd, &ev))
		;
	ep = new_ep();
	connect_ep(ep);
	tap_ok(!ep->post_write1 && !ep->post_read1 && !ep->post_atomic1,
	       "rdma1: an EP of a transport without them");
	n = post_calls();
	t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 32};
	rt.segment_length = 32;
	IS(rdma1(ep, 0, &t, &rt, 0), DAT_SUCCESS, "rdma1: write, post_send");
	tap_ok(post_calls() == n + 1 && f.post_send &&
		   f.last.op == DAPL_OP_RDMA_WRITE && f.last.num_sge == 1 &&
		   f.last.sge[0].length == 32 && f.last.remote_addr == 0x2008 &&
		   f.last.rkey == 77 && (f.last.flags & DAPL_POST_INLINE) &&
		   f.last.cookie->length == 32,
	       "rdma1: the write as a struct dapl_post");
	rt.segment_length = 16;
	IS(rdma1(ep, 1, &t, &rt, 0), DAT_SUCCESS, "rdma1: read, post_send");
	tap_ok(post_calls() == n + 2 && f.last.op == DAPL_OP_RDMA_READ &&
		   f.last.num_sge == 1 && f.last.sge[0].length == 16 &&
		   f.last.cookie->length == 16 &&
		   !(f.last.flags & DAPL_POST_INLINE),
	       "rdma1: the read as a struct dapl_post, cut");
	IS(cas(ep, 3, 4, &t, &rt, 0), DAT_SUCCESS,
	   "atomic1: compare-and-swap, post_send");
	tap_ok(post_calls() == n + 3 && f.last.op == DAPL_OP_ATOMIC_CMP_SWAP &&
		   f.last.num_sge == 1 && f.last.sge[0].length == 8 &&
		   f.last.compare_add == 3 && f.last.swap == 4 &&
		   f.last.remote_addr == 0x2008 && f.last.rkey == 77 &&
		   f.last.cookie->length == 8,
	       "atomic1: as a struct dapl_post");
	(void)c;
	dapl_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG);
	dapl_cm_ep_event(ep, DAPL_CM_DISCONNECTED, NULL, 0);
	dapl_ep_free(ep);
	while (next_event(conn_evd, &ev))
		;
	IS(dapl_lmr_free(l2), DAT_SUCCESS, "rdma1: the other PZ's LMR freed");
	IS(dapl_pz_free(pz2), DAT_SUCCESS, "rdma1: the other PZ freed");
	ia->caps.flags = saved_caps;
	ia->ops = saved;
}

int main(void)
{
	setup();
	test_create();
	test_posts();
	test_nolock();
	test_post1();
	test_rdma1();
	test_active();
	test_modify();
	test_passive();
	test_provider_ep();
	test_cr_overflow();
	IS(dapl_lmr_free(lmr), DAT_SUCCESS, "lmr freed");
	IS(dapl_lmr_free(ro_lmr), DAT_SUCCESS, "read-only lmr freed");
	IS(dapl_evd_free(dto_evd), DAT_SUCCESS, "no EP holds the DTO EVD");
	IS(dapl_evd_free(conn_evd), DAT_SUCCESS, "nor the connection EVD");
	IS(dapl_evd_free(cr_evd), DAT_SUCCESS, "nor the CR EVD");
	dapl_evd_free(cr_evd2);
	IS(dapl_pz_free(pz), DAT_SUCCESS, "no EP holds the PZ");
	/* What dat_ia_close does for the IA itself: its LMR lookup table. */
	dapl_lmr_table_fini(ia);
	dapl_obj_free(ia);
	dapl_obj_release_all();
	dapl_ep_release_retired();
	return tap_done();
}
