/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lmr-life: dat_lmr_free while a posted receive still names the LMR.
 *
 * dat_lmr_free(3DAT): "The operation does not deallocate the memory
 * region or unpin memory on a host", and "Any DTO operation that uses
 * the destroyed LMR after the dat_lmr_free() is completed shall fail and
 * report a protection violation."  A consumer that frees an LMR believes
 * the memory is no longer the transport's: no byte may land in it after
 * dat_lmr_free returned DAT_SUCCESS.  So the free either refuses
 * (DAT_INVALID_STATE: the LMR is in use, as for an RMR bound to it) and
 * the receive then completes normally, or it succeeds and the receive
 * completes with an error status, the memory untouched.  Which one is
 * the provider's choice (libfabric: in use; verbs: the registration goes
 * and the HCA refuses the data).
 *
 * The server registers 64 KiB filled with pattern LL_OLD, accepts one
 * connection without posting control receives (so the first receive of
 * the EP is the LMR's), posts a receive of the whole LMR, frees the LMR,
 * and only then asks the client (a control message) to send 64 KiB of
 * pattern LL_NEW.  Then, for either answer of dat_lmr_free, the checks
 * above; and a receive posted with the freed LMR's lmr_context is
 * refused DAT_PRIVILEGES_VIOLATION (dat_ep_post_recv(3DAT): an LMR of
 * local_iov "was either invalid").
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define LL_LEN (64u * 1024)
#define LL_OLD 31u	/* the server's memory before */
#define LL_NEW 32u	/* what the client sends */
#define LL_RECV 7u	/* cookies */
#define LL_SEND 9u

/* The server's connection ends, however it ends: an EP whose receive
 * failed may be broken; otherwise it is disconnected gracefully. */
static void ll_end(struct vt *v, DAT_EP_HANDLE ep)
{
	DAT_EVENT ev;

	if (vt_poll(v->conn_evd, vt_msecs(0), &ev) == DAT_SUCCESS) {
		vt_check_conn_end("the connection's end", &ev);
		return;
	}
	vt_expect("dat_ep_disconnect(GRACEFUL)",
		  dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	vt_wait_conn_end(v, "the connection's end");
}

/* A receive naming the freed LMR's context is refused at once:
 * dat_ep_post_recv(3DAT), DAT_PRIVILEGES_VIOLATION: "One of the LMRs used
 * in local_iov was either invalid or did not have the local read
 * privileges." */
static void ll_post_freed(DAT_EP_HANDLE ep, const DAT_LMR_TRIPLET *iov)
{
	vt_expect_type("dat_ep_post_recv naming the freed LMR",
		       dat_ep_post_recv(ep, 1, (DAT_LMR_TRIPLET *)iov,
					vt_cookie(LL_RECV + 1),
					DAT_COMPLETION_DEFAULT_FLAG),
		       DAT_PRIVILEGES_VIOLATION);
}

static int lmr_life_server(const struct vt_opts *o)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	DAT_PSP_HANDLE psp;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_EVENT ev;
	struct vt v;
	int freed;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, LL_LEN, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_fill(l.buf, LL_LEN, LL_OLD);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 0, &psp);
	iov = vt_iov(&l, 0, LL_LEN);
	vt_must("dat_ep_post_recv into the LMR",
		dat_ep_post_recv(ep, 1, &iov, vt_cookie(LL_RECV),
				 DAT_COMPLETION_DEFAULT_FLAG));

	rc = dat_lmr_free(l.lmr);
	freed = rc == DAT_SUCCESS;
	if (freed) {
		vt_note("ok dat_lmr_free with the receive posted: DAT_SUCCESS");
		l.lmr = DAT_HANDLE_NULL;
		ll_post_freed(ep, &iov);
	} else {
		vt_expect_type("dat_lmr_free with the receive posted", rc,
			       DAT_INVALID_STATE);
	}

	vt_msg_init(&m, "send");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);

	rc = vt_wait(v.rcv_evd, vt_secs(15), &ev);
	if (rc != DAT_SUCCESS) {
		vt_fail("the receive into the LMR: dat_evd_wait: %s",
			vt_rc(rc));
	} else if (!freed) {
		/* in use: it completes as any receive, then the LMR goes */
		vt_check_dto("the receive into the LMR", &ev, ep, LL_RECV,
			     DAT_DTO_SUCCESS, LL_LEN);
		vt_check("the LMR holds the peer's bytes", l.buf, LL_LEN,
			 LL_NEW);
		vt_expect("dat_lmr_free once the receive completed",
			  dat_lmr_free(l.lmr), DAT_SUCCESS);
		l.lmr = DAT_HANDLE_NULL;
		ll_post_freed(ep, &iov);
	} else {
		d = &ev.event_data.dto_completion_event_data;
		vt_expect_true("a DTO completion of the receive",
			       ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				       d->user_cookie.as_64 == LL_RECV);
		vt_expect_true("the receive into the freed LMR did not succeed",
			       d->status != DAT_DTO_SUCCESS);
		vt_note("  (its status: %s)", vt_dto(d->status));
		vt_check("the freed LMR's memory is untouched", l.buf, LL_LEN,
			 LL_OLD);
	}
	ll_end(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

static int lmr_life_client(const struct vt_opts *o)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, LL_LEN, DAT_MEM_PRIV_LOCAL_READ_FLAG);
	vt_fill(l.buf, LL_LEN, LL_NEW);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &m, "send", 0);
	iov = vt_iov(&l, 0, LL_LEN);
	vt_must("dat_ep_post_send",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(LL_SEND),
				 DAT_COMPLETION_DEFAULT_FLAG));
	/* its status is the server's choice (see above): the server checks */
	rc = vt_wait(v.req_evd, vt_secs(15), &ev);
	vt_expect("the send's completion", rc, DAT_SUCCESS);
	if (rc == DAT_SUCCESS) {
		d = &ev.event_data.dto_completion_event_data;
		vt_expect_true("a DTO completion of the send",
			       ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				       d->user_cookie.as_64 == LL_SEND);
		vt_note("  (the send's status: %s)", vt_dto(d->status));
	}
	vt_wait_conn_end(&v, "the server ends the connection");
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

/*
 * fresh-keys: an RDMA read through each of a series of LMRs, each
 * registered just before and freed just after (an MPI library's
 * rendezvous with a registration per fragment).
 *
 * dat_lmr_create(3DAT): "The return value of rmr_context can be
 * transferred by the local Consumer to a Consumer on a remote host to be
 * used for an RDMA DTO."  Every round's first RDMA goes through a key the
 * client never saw; over libfabric the provider may have to ask the
 * target about it first (providers/ofi/ep.c ofi_rma_addr), and the read
 * then waits for that answer while the client spins on dat_evd_dequeue,
 * which is how the answer's read gets issued (providers/ofi/cq.c
 * ofi_cq_kick_owe).  And "The only way to invalidate it is to destroy
 * the LMR with dat_lmr_free(3DAT)", which says: "Any DTO operation that
 * uses the destroyed LMR after the dat_lmr_free() is completed shall fail
 * and report a protection violation": after the last round the client
 * reads through the last, freed key once more, and that read must not
 * succeed.
 *
 * The server registers FK_LEN bytes in either half of its buffer in turn
 * (DAT_MEM_PRIV_REMOTE_READ_FLAG), fills them with round i's pattern,
 * sends their address and rmr_context, waits for the client's "done" and
 * frees the LMR; after the last round it says "freed".  The client reads
 * each fragment, spinning on dat_evd_dequeue for the completion (bounded,
 * not timed), and checks every byte.
 *
 * fresh-keys-write: the same with RDMA writes (the LMRs registered with
 * DAT_MEM_PRIV_REMOTE_WRITE_FLAG, zeroed): the client writes round i's
 * pattern, the server checks every byte once "done" came.  The write
 * through the last, freed key must not succeed either, and once the
 * connection has ended the server checks that the freed fragment still
 * holds the last round's bytes: a write that landed would be memory the
 * consumer owns again being overwritten (over shm a write is the
 * initiator's process_vm_writev: nothing at the target refuses it).
 */
#define FK_LEN (16u * 1024)
#define FK_SEED 4000u
#define FK_STALE 9000u	/* the pattern of the write through the freed key */

/* One event of evd by spinning on dat_evd_dequeue, 15 s at most. */
static DAT_RETURN fk_spin(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	uint64_t end = vt_now_us() + vt_secs(15);
	DAT_RETURN rc;

	do {
		rc = dat_evd_dequeue(evd, ev);
		if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
			return rc;
	} while (vt_now_us() < end);
	return DAT_TIMEOUT_EXPIRED;
}

static int fresh_keys_serve(const struct vt_opts *o, int write)
{
	unsigned i, n = o->count > 0 ? (unsigned)o->count : 100;
	DAT_REGION_DESCRIPTION r;
	DAT_PSP_HANDLE psp;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	unsigned char *buf;
	struct vt v;
	int ok = 1;

	vt_open(&v, o->ia_name);
	buf = aligned_alloc(4096, 2 * FK_LEN);
	if (!buf)
		vt_die("aligned_alloc");
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 1, &psp);
	vt_quiet = 1; /* a line per failure, none per round */
	for (i = 0; i < n; i++) {
		unsigned char *p = buf + (i & 1) * FK_LEN;

		if (write)
			memset(p, 0, FK_LEN);
		else
			vt_fill(p, FK_LEN, FK_SEED + i);
		r.for_va = p;
		vt_must("dat_lmr_create",
			dat_lmr_create(v.ia, DAT_MEM_TYPE_VIRTUAL, r, FK_LEN,
				       v.pz,
				       DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
					   (write ? DAT_MEM_PRIV_REMOTE_WRITE_FLAG
						  : DAT_MEM_PRIV_REMOTE_READ_FLAG),
				       &lmr, &lctx, &rctx, &rlen, &raddr));
		vt_msg_init(&m, "fragment");
		m.addr = (uintptr_t)p;
		m.len = FK_LEN;
		m.rmr_context = rctx;
		m.seed = FK_SEED + i;
		vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
		vt_ctl_recv(&v, ep, &m, "done", 0);
		vt_ctl_post(&v, ep);
		if (write && !vt_check("a fragment the peer wrote", p, FK_LEN,
				       FK_SEED + i))
			ok = 0;
		vt_must("dat_lmr_free", dat_lmr_free(lmr));
	}
	vt_quiet = 0;
	if (ok)
		vt_note("ok %u LMRs registered, their keys sent, freed after "
			"the peer's %s", n, write ? "write" : "read");
	vt_msg_init(&m, "freed");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_conn_end(&v, "the client ends the connection");
	if (write && n)
		vt_check("the freed fragment after the write through its key",
			 buf + ((n - 1) & 1) * FK_LEN, FK_LEN, FK_SEED + n - 1);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	free(buf);
	vt_close(&v);
	return 0;
}

static int fresh_keys_use(const struct vt_opts *o, int write)
{
	unsigned i, n = o->count > 0 ? (unsigned)o->count : 100;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rt;
	struct vt_msg m, last;
	struct vt_mem l;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_EVENT ev;
	struct vt v;
	int ok = 1;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, FK_LEN, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	memset(&last, 0, sizeof(last));
	vt_quiet = 1;
	for (i = 0; ok && i < n; i++) {
		char what[64];

		vt_ctl_recv(&v, ep, &m, "fragment", 0);
		vt_ctl_post(&v, ep);
		last = m;
		iov = vt_iov(&l, 0, FK_LEN);
		rt = vt_riov(&m, 0, FK_LEN);
		if (write) {
			vt_fill(l.buf, FK_LEN, m.seed);
			vt_must("dat_ep_post_rdma_write",
				dat_ep_post_rdma_write(
				    ep, 1, &iov, vt_cookie(i), &rt,
				    DAT_COMPLETION_DEFAULT_FLAG));
		} else {
			memset(l.buf, 0, FK_LEN);
			vt_must("dat_ep_post_rdma_read",
				dat_ep_post_rdma_read(
				    ep, 1, &iov, vt_cookie(i), &rt,
				    DAT_COMPLETION_DEFAULT_FLAG));
		}
		rc = fk_spin(v.req_evd, &ev);
		snprintf(what, sizeof(what), "round %u: the RDMA %s", i,
			 write ? "write" : "read");
		if (!vt_expect(what, rc, DAT_SUCCESS) ||
		    !vt_check_dto(what, &ev, ep, i, DAT_DTO_SUCCESS, FK_LEN)) {
			ok = 0;
			break;
		}
		snprintf(what, sizeof(what), "round %u: the fragment read", i);
		if (!write)
			ok = vt_check(what, l.buf, FK_LEN, m.seed);
		vt_msg_init(&m, "done");
		vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	}
	vt_quiet = 0;
	if (ok)
		vt_note("ok %u RDMA %s, each through a key never used "
			"before, every byte checked", n,
			write ? "writes" : "reads");
	vt_ctl_recv(&v, ep, &m, "freed", 0);
	/* the last key again, its LMR freed: no success (the connection
	 * may break: the status is the protection violation's or a flush) */
	iov = vt_iov(&l, 0, FK_LEN);
	rt = vt_riov(&last, 0, FK_LEN);
	if (write) {
		vt_fill(l.buf, FK_LEN, FK_STALE);
		rc = dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(n), &rt,
					    DAT_COMPLETION_DEFAULT_FLAG);
	} else {
		rc = dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(n), &rt,
					   DAT_COMPLETION_DEFAULT_FLAG);
	}
	if (rc == DAT_SUCCESS) {
		rc = fk_spin(v.req_evd, &ev);
		vt_expect("the RDMA through the freed key completes", rc,
			  DAT_SUCCESS);
		d = &ev.event_data.dto_completion_event_data;
		if (rc == DAT_SUCCESS &&
		    vt_expect_true("a DTO completion of the RDMA through the "
				   "freed key",
				   ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				       d->user_cookie.as_64 == n) &&
		    vt_expect_true("the RDMA through the freed key did not "
				   "succeed",
				   d->status != DAT_DTO_SUCCESS))
			vt_note("ok the %s through the freed key: %s",
				write ? "write" : "read", vt_dto(d->status));
	} else {
		vt_note("ok the %s through the freed key refused: %s",
			write ? "write" : "read", vt_rc(rc));
	}
	/* a read that failed breaks the connection (as a verbs QP's
	 * error does); a refused post leaves it */
	if (rc == DAT_SUCCESS)
		vt_wait_conn_end(&v, "the connection's end after the failed "
				     "read");
	else
		vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

static int fresh_keys_server(const struct vt_opts *o)
{
	return fresh_keys_serve(o, 0);
}

static int fresh_keys_client(const struct vt_opts *o)
{
	return fresh_keys_use(o, 0);
}

static int fresh_keys_write_server(const struct vt_opts *o)
{
	return fresh_keys_serve(o, 1);
}

static int fresh_keys_write_client(const struct vt_opts *o)
{
	return fresh_keys_use(o, 1);
}

const struct vt_test vt_lmr_life_tests[] = {
	{ "lmr-life", lmr_life_server, lmr_life_client },
	{ "fresh-keys", fresh_keys_server, fresh_keys_client },
	{ "fresh-keys-write", fresh_keys_write_server, fresh_keys_write_client },
	{ NULL, NULL, NULL },
};
