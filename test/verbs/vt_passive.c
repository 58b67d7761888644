/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * passive-target: one-sided operations to a peer that calls nothing.
 *
 * dat_ep_post_rdma_write(3DAT): "The dat_ep_post_rdma_write() function
 * requests the transfer of all the data specified by the local_iov over
 * the connection of the ep_handle Endpoint into the remote_buffer" (and
 * dat_ep_post_rdma_read(3DAT) the other way): nothing the remote consumer
 * posts takes part.  A storage target, a dapltest server or an MPI rank
 * that is computing does not call DAT while its peer reads and writes its
 * memory, and the transfers must still complete.
 *
 * The server (the target) registers 64 KiB, fills its upper half with a
 * pattern per 4 KiB slot, accepts one connection, sends the region, and
 * then calls nothing of DAT: it blocks reading a line from its standard
 * input.  The client streams COUNT rounds of: an RDMA write of a fresh
 * pattern to a slot of the lower half, an RDMA read of that slot back, and
 * an RDMA read of a slot of the upper half; every completion and every
 * byte is checked.  Then it disconnects.  The test suite then writes
 * "report COUNT" to the server, which checks that the lower half holds
 * the last pattern written to each slot.
 *
 * Nothing here measures time (make bench does: dapltest -T P against an
 * idle server).
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include <dat/dat_ib_extensions.h>

#define PT_SLOT 4096u
#define PT_SLOTS 8u
#define PT_HALF (PT_SLOT * PT_SLOTS)
#define PT_LEN (2 * PT_HALF)
#define PT_WSEED 1000u	/* round i writes pattern PT_WSEED + i */
#define PT_RSEED 200u	/* upper slot s holds pattern PT_RSEED + s */

static int passive_server(const struct vt_opts *o)
{
	unsigned s, n = 0, last;
	char line[64], what[80];
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, PT_LEN, DAT_MEM_PRIV_ALL_FLAG);
	memset(tgt.buf, 0, PT_HALF);
	for (s = 0; s < PT_SLOTS; s++)
		vt_fill(tgt.buf + PT_HALF + s * PT_SLOT, PT_SLOT, PT_RSEED + s);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 1, &psp);
	vt_msg_init(&m, "target");
	m.addr = (uintptr_t)tgt.buf;
	m.len = PT_LEN;
	m.rmr_context = tgt.rctx;
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);

	/* from here until the report, nothing of DAT */
	printf("waiting for the report\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) ||
	    sscanf(line, "report %u", &n) != 1 || !n) {
		vt_fail("no report on standard input");
		n = 0;
	}

	{
		DAT_LMR_TRIPLET t = vt_iov(&tgt, 0, PT_HALF);

		vt_expect("dat_lmr_sync_rdma_write",
			  dat_lmr_sync_rdma_write(v.ia, &t, 1), DAT_SUCCESS);
	}
	for (s = 0; n && s < PT_SLOTS; s++) {
		/* the last round that wrote slot s */
		if (s >= n)
			break;
		last = s + (n - 1 - s) / PT_SLOTS * PT_SLOTS;
		snprintf(what, sizeof(what),
			 "slot %u holds round %u's RDMA write", s, last);
		vt_check(what, tgt.buf + s * PT_SLOT, PT_SLOT, PT_WSEED + last);
	}
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

/* One one-sided operation and its completion, checked; 0 if it failed. */
static int pt_op(struct vt *v, DAT_EP_HANDLE ep, int write,
		 const struct vt_mem *l, DAT_VLEN loff, const struct vt_msg *t,
		 DAT_VLEN roff, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = vt_iov(l, loff, PT_SLOT);
	DAT_RMR_TRIPLET r = vt_riov(t, roff, PT_SLOT);
	DAT_RETURN rc;
	DAT_EVENT ev;

	rc = write ? dat_ep_post_rdma_write(ep, 1, &iov, vt_cookie(cookie),
					    &r, DAT_COMPLETION_DEFAULT_FLAG)
		   : dat_ep_post_rdma_read(ep, 1, &iov, vt_cookie(cookie), &r,
					   DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS) {
		vt_fail("round %llu: dat_ep_post_rdma_%s: %s",
			(unsigned long long)cookie >> 2, write ? "write" : "read",
			vt_rc(rc));
		return 0;
	}
	rc = vt_wait(v->req_evd, vt_secs(15), &ev);
	if (rc != DAT_SUCCESS) {
		vt_fail("round %llu: RDMA %s: dat_evd_wait: %s",
			(unsigned long long)cookie >> 2, write ? "write" : "read",
			vt_rc(rc));
		return 0;
	}
	return vt_check_dto(write ? "RDMA write" : "RDMA read", &ev, ep,
			    cookie, DAT_DTO_SUCCESS, PT_SLOT);
}

static int passive_client(const struct vt_opts *o)
{
	unsigned i, n = o->count > 0 ? (unsigned)o->count : 200;
	struct vt_mem l;
	struct vt_msg t;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;
	int ok = 1;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, 3 * PT_SLOT, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &t, "target", 0);
	vt_quiet = 1; /* a line per failure, none per match */
	for (i = 0; ok && i < n; i++) {
		unsigned s = i % PT_SLOTS;
		char what[64];

		vt_fill(l.buf, PT_SLOT, PT_WSEED + i);
		memset(l.buf + PT_SLOT, 0, 2 * PT_SLOT);
		ok = pt_op(&v, ep, 1, &l, 0, &t, s * PT_SLOT, 4ull * i) &&
		     pt_op(&v, ep, 0, &l, PT_SLOT, &t, s * PT_SLOT,
			   4ull * i + 1) &&
		     pt_op(&v, ep, 0, &l, 2 * PT_SLOT, &t,
			   PT_HALF + s * PT_SLOT, 4ull * i + 2);
		snprintf(what, sizeof(what), "round %u: slot %u read back", i,
			 s);
		ok = ok && vt_check(what, l.buf + PT_SLOT, PT_SLOT,
				    PT_WSEED + i);
		snprintf(what, sizeof(what), "round %u: the target's slot %u",
			 i, PT_SLOTS + s);
		ok = ok && vt_check(what, l.buf + 2 * PT_SLOT, PT_SLOT,
				    PT_RSEED + s);
	}
	vt_quiet = 0;
	if (ok)
		vt_note("ok %u rounds of an RDMA write, its read-back and a "
			"read of the target's data, each checked", n);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

/*
 * atomic-passive: fetch-and-adds to a target that calls nothing.
 * dat_ib_post_fetch_and_add is the extension's RDMA atomic: as with an
 * RDMA write, nothing the remote consumer calls takes part.  The server
 * registers an 8-byte counter with DAT_IB_MEM_PRIV_REMOTE_ATOMIC, sends
 * it, and blocks on its standard input; the client makes COUNT adds of 1,
 * each waited for before the next, alternately by spinning on
 * dat_evd_dequeue and blocking in dat_evd_wait (the libfabric provider
 * holds an atomic's doorbell back while its consumer polls: wake.c
 * ofi_wake_ring_op), and checks that add i fetched i.  The report then
 * checks that the counter holds COUNT.  A doorbell never rung would only
 * slow it (the target's engine still polls now and then: 200 adds took
 * 2.5 s instead of 0.75 with the doorbells taken out by hand); how fast
 * is make bench's business.  The spin is bounded (15 s without an
 * event), not timed.
 */
static int atomic_passive_server(const struct vt_opts *o)
{
	DAT_PSP_HANDLE psp;
	struct vt_mem tgt;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	char line[64];
	unsigned n = 0;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &tgt, 64,
		     DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG |
			 DAT_IB_MEM_PRIV_REMOTE_ATOMIC);
	memset(tgt.buf, 0, 64);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 1, &psp);
	vt_msg_init(&m, "counter");
	m.addr = (uintptr_t)tgt.buf;
	m.len = 8;
	m.rmr_context = tgt.rctx;
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);

	/* from here until the report, nothing of DAT */
	printf("waiting for the report\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) ||
	    sscanf(line, "report %u", &n) != 1 || !n)
		vt_fail("no report on standard input");
	else if (vt_expect_u64("the counter after the client's adds",
			       __atomic_load_n((uint64_t *)tgt.buf,
					       __ATOMIC_ACQUIRE),
			       n))
		vt_note("ok the counter after the client's adds: %u", n);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&tgt);
	vt_close(&v);
	return 0;
}

/* The next event of evd, spinning on dat_evd_dequeue (spin) or blocked */
static DAT_RETURN ap_next(DAT_EVD_HANDLE evd, int spin, DAT_EVENT *ev)
{
	uint64_t last = vt_now_us();
	DAT_RETURN rc;

	if (!spin)
		return vt_wait(evd, vt_secs(15), ev);
	while (DAT_GET_TYPE(rc = dat_evd_dequeue(evd, ev)) == DAT_QUEUE_EMPTY)
		if (vt_now_us() - last > 15000000ull * (uint64_t)vt_scale)
			return DAT_TIMEOUT_EXPIRED;
	return rc;
}

static int atomic_passive_client(const struct vt_opts *o)
{
	unsigned i, n = o->count > 0 ? (unsigned)o->count : 200;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_LMR_TRIPLET lt;
	DAT_RMR_TRIPLET r;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	DAT_EP_ATTR a;
	struct vt_mem l;
	struct vt_msg t;
	DAT_RETURN rc;
	struct vt v;
	int ok = 1;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &l, 64, DAT_MEM_PRIV_ALL_FLAG);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 1);
	vt_ctl_recv(&v, ep, &t, "counter", 0);
	r = vt_riov(&t, 0, 8);
	lt = vt_iov(&l, 0, 8);
	d = &ev.event_data.dto_completion_event_data;
	for (i = 0; ok && i < n; i++) {
		int spin = !(i & 1);

		memset(l.buf, 0xff, 8);
		rc = dat_ib_post_fetch_and_add(ep, 1, &lt, vt_cookie(i), &r,
					       DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			vt_fail("add %u: dat_ib_post_fetch_and_add: %s", i,
				vt_rc(rc));
			break;
		}
		rc = ap_next(v.req_evd, spin, &ev);
		if (rc != DAT_SUCCESS) {
			vt_fail("add %u: %s: %s", i,
				spin ? "dat_evd_dequeue (spinning)"
				     : "dat_evd_wait",
				vt_rc(rc));
			break;
		}
		if (ev.event_number != DAT_IB_DTO_EVENT ||
		    d->ep_handle != ep || d->user_cookie.as_64 != i ||
		    d->status != DAT_DTO_SUCCESS) {
			vt_fail("add %u: event 0x%x cookie %llu status %s", i,
				ev.event_number,
				(unsigned long long)d->user_cookie.as_64,
				vt_dto(d->status));
			break;
		}
		ok = vt_expect_u64("the value an add fetched",
				   *(volatile uint64_t *)l.buf, i);
	}
	if (ok && i == n)
		vt_note("ok %u fetch-and-adds to a target that calls nothing, "
			"each fetched its predecessor's sum (every other one "
			"waited for spinning)",
			n);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_mem_free(&l);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_passive_tests[] = {
	{ "passive-target", passive_server, passive_client },
	{ "atomic-passive", atomic_passive_server, atomic_passive_client },
	{ NULL, NULL, NULL },
};
