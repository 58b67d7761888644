/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errors.c - dattest-ofi-errors: what a failed DTO does over libfabric
 * (test/ofi/errors.bats), between a server on ofi-a that owns the target
 * memory and a client on ofi-b that accesses it, with the helpers of
 * dattest-verbs (test/verbs/vt_util.c).
 *
 * dattest-ofi-errors TEST server|client [-i IA] [-a ADDR] [-q QUAL] [-n CASE]
 *
 *   badkey  the client posts an RDMA that the target's registration does
 *           not allow, then a good RDMA write behind it.  CASE (-n):
 *             0  a key the server never registered (its LMR's + 0x1000)
 *             1  the LMR's key, 8 bytes past the end of its registration
 *             2  a write through the key of a remote-read-only LMR
 *             3  a read through the key of a remote-write-only LMR
 *           The bad one completes with DAT_DTO_ERR_REMOTE_ACCESS, the good
 *           one with DAT_DTO_ERR_FLUSHED (no DTO without a completion),
 *           the connection is BROKEN and the EP DISCONNECTED; the server
 *           sees the connection end and its memory untouched.
 *   stuck   the client reads 64 bytes (so the target's key is known), then
 *           posts a 1 MiB RDMA read while the server process
 *           is stopped (the suite sends SIGSTOP once the client printed
 *           "have target", and creates the file $DATTEST_GO when it did):
 *           libfabric reports nothing, so the provider's own bound
 *           (DAPL_OFI_DTO_TIMEOUT_MS) fails it with DAT_DTO_ERR_TRANSPORT
 *           and the connection breaks.  After SIGCONT the server sees the
 *           connection end.
 *   stopped  an RDMA write to a stopped target: the client writes 64
 *           bytes (so the target's key is known), prints "have target",
 *           waits for $DATTEST_GO (the suite stopped the server), then
 *           writes 64 KiB over them.  dat_ep_post_rdma_write(3DAT): the
 *           write "requests the transfer of all the data specified by
 *           the local_iov ... into the remote_buffer", and its completion
 *           says the transfer is done (the README: a write completes once
 *           its data is at the target), so with DATTEST_EXPECT=done
 *           (shm with CMA: libfabric writes into the stopped process
 *           itself) it completes while the server is stopped; otherwise
 *           (tcp, rxm, shm without CMA: the target's library must take the
 *           data) no completion comes for a second, the client prints
 *           "write waits", and it completes once the suite continued the
 *           server.  The server finds the data in its LMR either way.
 *   shortrecv  the server posts a 16-byte receive before it accepts, the
 *           client sends 64 bytes into it.  dat_ep_post_recv(3DAT): "If
 *           the size of an incoming message is larger than the size of
 *           the local_iov, the reserved buffer, the operation completes
 *           with an error status"; the receiver's is
 *           DAT_DTO_ERR_LOCAL_LENGTH on every fabric (libfabric's shm puts
 *           a negative FI_ETRUNC in its error entry), but for soft-RoCE
 *           through libdaplcma or libdaplscm, whose device says
 *           IBV_WC_LOC_QP_OP_ERR
 *           (DAT_DTO_ERR_LOCAL_EP).  A failed DTO breaks
 *           the connection (dat_ep_post_send(3DAT): "the Endpoint is
 *           transitioned into a DAT_EP_STATE_DISCONNECTED state"): the
 *           receiver sees BROKEN, and so does the sender, whatever its
 *           send's status (its data reached a peer whose receive failed:
 *           never a graceful DISCONNECTED).  Each side prints one line
 *           "status-matrix: ROLE dto=STATUS conn=EVENT".
 *
 * Every wait is bounded and scaled by TEST_TIMEOUT_SCALE; PASS and exit
 * status 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../verbs/vt.h"

#define PRIV_LOCAL                                                             \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define AREA 65536
#define BIG (1024 * 1024)
#define SENTINEL 0x5A

/* ---- the server: three LMRs (rw, read-only, write-only remotely) ---- */

struct target {
	struct vt_mem rw, ro, wo;
};

static void msg_of(struct vt_msg *m, const char *tag, const struct vt_mem *t)
{
	vt_msg_init(m, tag);
	m->addr = (uintptr_t)t->buf;
	m->len = t->len;
	m->rmr_context = t->rctx;
}

static int all_sentinel(const char *what, const struct vt_mem *t)
{
	DAT_VLEN i;

	for (i = 0; i < t->len; i++)
		if (t->buf[i] != SENTINEL) {
			vt_fail("%s: byte %llu changed to 0x%02x", what,
				(unsigned long long)i, t->buf[i]);
			return 0;
		}
	vt_note("ok %s untouched", what);
	return 1;
}

static void conn_end(struct vt *v, DAT_EP_HANDLE ep, const char *who)
{
	DAT_EVENT ev;

	if (vt_wait(v->conn_evd, vt_secs(60), &ev) != DAT_SUCCESS)
		vt_fail("%s: no connection end", who);
	else if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
		 ev.event_number != DAT_CONNECTION_EVENT_BROKEN)
		vt_fail("%s: connection end: %s", who,
			vt_ev(ev.event_number));
	else
		vt_note("ok %s: connection end: %s", who,
			vt_ev(ev.event_number));
	vt_expect_state("EP after the connection ended", ep,
			DAT_EP_STATE_DISCONNECTED);
}

/* rw_seed: the pattern the client writes into the read-write LMR, or 0
 * (it is to stay untouched) */
static int server(const struct vt_opts *o, DAT_VLEN len, uint32_t rw_seed)
{
	struct target t;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &t.rw, len, PRIV_LOCAL |
					 DAT_MEM_PRIV_REMOTE_READ_FLAG |
					 DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	vt_mem_alloc(&v, &t.ro, AREA, PRIV_LOCAL |
					  DAT_MEM_PRIV_REMOTE_READ_FLAG);
	vt_mem_alloc(&v, &t.wo, AREA, PRIV_LOCAL |
					  DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	memset(t.rw.buf, SENTINEL, t.rw.len);
	memset(t.ro.buf, SENTINEL, t.ro.len);
	memset(t.wo.buf, SENTINEL, t.wo.len);
	vt_ep_attr(&v, &a);
	ep = vt_serve_one(&v, &a, 0, &psp);
	msg_of(&m, "rw", &t.rw);
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	msg_of(&m, "ro", &t.ro);
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	msg_of(&m, "wo", &t.wo);
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	conn_end(&v, ep, "server");
	all_sentinel("the remote-read-only LMR", &t.ro);
	all_sentinel("the remote-write-only LMR", &t.wo);
	if (rw_seed)
		vt_check("the read-write LMR: the client's RDMA writes",
			 t.rw.buf, t.rw.len, rw_seed);
	else /* badkey's good write was flushed behind the bad one */
		all_sentinel("the read-write LMR", &t.rw);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&t.rw);
	vt_mem_free(&t.ro);
	vt_mem_free(&t.wo);
	vt_close(&v);
	return 0;
}

static int badkey_server(const struct vt_opts *o)
{
	return server(o, AREA, 0);
}

static int stuck_server(const struct vt_opts *o)
{
	return server(o, BIG, 0);
}

#define STOPPED_SEED 0x570

static int stopped_server(const struct vt_opts *o)
{
	return server(o, AREA, STOPPED_SEED);
}

/* ---- the client ---- */

struct peer {
	struct vt v;
	DAT_EP_HANDLE ep;
	struct vt_msg rw, ro, wo;
	struct vt_mem mem;
};

static void peer_open(struct peer *p, const struct vt_opts *o, DAT_VLEN len)
{
	DAT_EP_ATTR a;

	vt_open(&p->v, o->ia_name);
	vt_mem_alloc(&p->v, &p->mem, len, PRIV_LOCAL);
	vt_ep_attr(&p->v, &a);
	p->ep = vt_client_one(&p->v, o, &a, 3);
	vt_ctl_recv(&p->v, p->ep, &p->rw, "rw", 0);
	vt_ctl_recv(&p->v, p->ep, &p->ro, "ro", 0);
	vt_ctl_recv(&p->v, p->ep, &p->wo, "wo", 0);
}

static void peer_close(struct peer *p)
{
	vt_ep_free(p->ep);
	vt_mem_free(&p->mem);
	vt_close(&p->v);
}

static DAT_RETURN post(struct peer *p, int read, DAT_RMR_TRIPLET *r,
		       DAT_VLEN len, uint64_t ck)
{
	DAT_LMR_TRIPLET l = vt_iov(&p->mem, 0, len);

	r->segment_length = len;
	return read ? dat_ep_post_rdma_read(p->ep, 1, &l, vt_cookie(ck), r,
					    DAT_COMPLETION_DEFAULT_FLAG)
		    : dat_ep_post_rdma_write(p->ep, 1, &l, vt_cookie(ck), r,
					     DAT_COMPLETION_DEFAULT_FLAG);
}

static void broken(struct peer *p)
{
	DAT_EVENT ev;

	if (vt_expect_event("connection broken by the failed DTO",
			    p->v.conn_evd, DAT_CONNECTION_EVENT_BROKEN, &ev))
		vt_expect_ptr("BROKEN event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle,
			      p->ep);
	vt_expect_state("EP after the failed DTO", p->ep,
			DAT_EP_STATE_DISCONNECTED);
}

/* until the suite created $DATTEST_GO (bounded) */
static void wait_go(const char *go)
{
	uint64_t until = vt_now_us() + 60ull * 1000000;

	while (access(go, F_OK) && vt_now_us() < until)
		vt_sleep_ms(10);
	if (access(go, F_OK))
		vt_die("%s never appeared", go);
}

static int badkey_client(const struct vt_opts *o)
{
	static const char *const what[] = {
	    "RDMA write through a key never registered",
	    "RDMA write 8 bytes past the end of the registration",
	    "RDMA write through a remote-read-only LMR",
	    "RDMA read through a remote-write-only LMR",
	};
	DAT_RMR_TRIPLET bad, good;
	struct peer p;
	int c = o->count, read = 0;

	if (c < 0 || c > 3)
		vt_die("-n: case 0 to 3");
	peer_open(&p, o, 4096);
	bad = vt_riov(&p.rw, 0, 8);
	good = vt_riov(&p.rw, 0, 8);
	switch (c) {
	case 0:
		bad.rmr_context += 0x1000;
		break;
	case 1:
		bad.target_address += p.rw.len - 64 + 8; /* 64 bytes below */
		break;
	case 2:
		bad = vt_riov(&p.ro, 0, 8);
		break;
	default:
		bad = vt_riov(&p.wo, 0, 8);
		read = 1;
		break;
	}
	vt_fill(p.mem.buf, 4096, 3);
	vt_expect(what[c], post(&p, read, &bad, 64, 0xBAD), DAT_SUCCESS);
	vt_expect("a good RDMA write behind it", post(&p, 0, &good, 64, 0x600D),
		  DAT_SUCCESS);
	vt_expect_dto(what[c], p.v.req_evd, p.ep, 0xBAD,
		      DAT_DTO_ERR_REMOTE_ACCESS, (DAT_VLEN)-1);
	vt_expect_dto("the write behind it", p.v.req_evd, p.ep, 0x600D,
		      DAT_DTO_ERR_FLUSHED, (DAT_VLEN)-1);
	broken(&p);
	peer_close(&p);
	return 0;
}

static int stuck_client(const struct vt_opts *o)
{
	const char *go = getenv("DATTEST_GO");
	DAT_RMR_TRIPLET r;
	struct peer p;

	if (!go)
		vt_die("DATTEST_GO names the file the suite creates");
	peer_open(&p, o, BIG);
	/* a small read first: the key's base is known, so the big one goes
	 * to libfabric at once (and libfabric never completes it) */
	r = vt_riov(&p.rw, 0, 64);
	vt_expect("a 64-byte RDMA read", post(&p, 1, &r, 64, 0x50),
		  DAT_SUCCESS);
	vt_expect_dto("a 64-byte RDMA read", p.v.req_evd, p.ep, 0x50,
		      DAT_DTO_SUCCESS, 64);
	printf("have target\n");
	fflush(stdout);
	wait_go(go); /* the suite stops the server, then creates the file */
	r = vt_riov(&p.rw, 0, BIG);
	vt_expect("1 MiB RDMA read from the stopped server",
		  post(&p, 1, &r, BIG, 0x51), DAT_SUCCESS);
	vt_expect_dto("the read no completion came for", p.v.req_evd, p.ep,
		      0x51, DAT_DTO_ERR_TRANSPORT, (DAT_VLEN)-1);
	broken(&p);
	peer_close(&p);
	return 0;
}

static int stopped_client(const struct vt_opts *o)
{
	const char *go = getenv("DATTEST_GO"),
		   *expect = getenv("DATTEST_EXPECT");
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;
	struct peer p;
	DAT_RETURN rc;
	int done;

	if (!go || !expect)
		vt_die("DATTEST_GO names the file the suite creates, "
		       "DATTEST_EXPECT is done or waits");
	peer_open(&p, o, AREA);
	vt_fill(p.mem.buf, AREA, STOPPED_SEED);
	r = vt_riov(&p.rw, 0, 64);
	vt_expect("a 64-byte RDMA write", post(&p, 0, &r, 64, 0x60),
		  DAT_SUCCESS);
	vt_expect_dto("a 64-byte RDMA write", p.v.req_evd, p.ep, 0x60,
		      DAT_DTO_SUCCESS, (DAT_VLEN)-1);
	printf("have target\n");
	fflush(stdout);
	wait_go(go); /* the suite stopped the server */
	r = vt_riov(&p.rw, 0, AREA);
	vt_expect("64 KiB RDMA write to the stopped server",
		  post(&p, 0, &r, AREA, 0x61), DAT_SUCCESS);
	if (strcmp(expect, "done")) { /* waits */
		rc = dat_evd_wait(p.v.req_evd, 1000000, 1, &ev, NULL);
		vt_expect_type("no completion while the target is stopped "
			       "(1 s)",
			       rc, DAT_TIMEOUT_EXPIRED);
		printf("write waits\n"); /* the suite continues the server */
		fflush(stdout);
	}
	done = !strcmp(expect, "done");
	if (vt_expect_dto(done ? "the write, the target stopped"
			       : "the write, once the target continued",
			  p.v.req_evd, p.ep, 0x61, DAT_DTO_SUCCESS,
			  (DAT_VLEN)-1) &&
	    done) {
		printf("write done\n"); /* the suite continues the server */
		fflush(stdout);
	}
	vt_disconnect(&p.v, p.ep);
	peer_close(&p);
	return 0;
}

/* ---- shortrecv: a send into a too-short receive ---- */

/* the connection's end, printed and checked: BROKEN */
static void matrix_line(struct vt *v, const char *role,
			DAT_DTO_COMPLETION_STATUS st)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(v->conn_evd, vt_secs(60), &ev);

	printf("status-matrix: %s dto=%s conn=%s\n", role, vt_dto(st),
	       rc == DAT_SUCCESS ? vt_ev(ev.event_number) : "none");
	if (rc != DAT_SUCCESS)
		vt_fail("%s: no connection end: %s", role, vt_rc(rc));
	else
		vt_expect_u64("the connection's end is BROKEN",
			      ev.event_number, DAT_CONNECTION_EVENT_BROKEN);
}

static DAT_DTO_COMPLETION_STATUS one_dto(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep,
					 uint64_t cookie)
{
	DAT_EVENT ev;
	DAT_RETURN rc = vt_wait(evd, vt_secs(60), &ev);

	if (rc != DAT_SUCCESS) {
		vt_fail("no DTO completion: %s", vt_rc(rc));
		return DAT_DTO_FAILURE;
	}
	vt_check_dto("the DTO", &ev, ep, cookie,
		     ev.event_data.dto_completion_event_data.status,
		     (DAT_VLEN)-1);
	return ev.event_data.dto_completion_event_data.status;
}

static int shortrecv_server(const struct vt_opts *o)
{
	DAT_DTO_COMPLETION_STATUS st;
	DAT_CONN_QUAL qual = 0;
	DAT_LMR_TRIPLET l;
	struct vt_mem mem;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &mem, 4096, PRIV_LOCAL);
	memset(mem.buf, SENTINEL, mem.len);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, &a);
	l = vt_iov(&mem, 0, 16);
	vt_must("dat_ep_post_recv of 16 bytes",
		dat_ep_post_recv(ep, 1, &l, vt_cookie(0x16),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_accept(&v, cr, ep, NULL, 0);
	st = one_dto(v.rcv_evd, ep, 0x16);
	/* soft-RoCE (rxe, libdaplcma and libdaplscm) reports the overrun
	 * as a local QP operation error (IBV_WC_LOC_QP_OP_ERR), not a
	 * length error: the provider passes the device's status on
	 * (DAT_DTO_ERR_LOCAL_EP); the man page asks for "an error status" */
	if (st == DAT_DTO_ERR_LOCAL_EP &&
	    (!strcmp(v.prov_attr.provider_name, "cma") ||
	     !strcmp(v.prov_attr.provider_name, "scm")) &&
	    !strncmp(v.ia_attr.adapter_name, "rxe", 3))
		vt_note("the 16-byte receive of a 64-byte send: "
			"DAT_DTO_ERR_LOCAL_EP (rxe's IBV_WC_LOC_QP_OP_ERR)");
	else
		vt_expect_u64("the 16-byte receive of a 64-byte send: "
			      "DAT_DTO_ERR_LOCAL_LENGTH",
			      st, DAT_DTO_ERR_LOCAL_LENGTH);
	matrix_line(&v, "receiver", st);
	vt_expect_state("EP after the failed receive", ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&mem);
	vt_close(&v);
	return 0;
}

static int shortrecv_client(const struct vt_opts *o)
{
	DAT_DTO_COMPLETION_STATUS st;
	DAT_LMR_TRIPLET l;
	struct vt_mem mem;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &mem, 4096, PRIV_LOCAL);
	vt_fill(mem.buf, 64, 7);
	vt_ep_attr(&v, &a);
	ep = vt_client_one(&v, o, &a, 0);
	l = vt_iov(&mem, 0, 64);
	vt_must("dat_ep_post_send of 64 bytes",
		dat_ep_post_send(ep, 1, &l, vt_cookie(0x64),
				 DAT_COMPLETION_DEFAULT_FLAG));
	st = one_dto(v.req_evd, ep, 0x64);
	matrix_line(&v, "sender", st);
	vt_expect_state("EP after the peer's failed receive", ep,
			DAT_EP_STATE_DISCONNECTED);
	vt_ep_free(ep);
	vt_mem_free(&mem);
	vt_close(&v);
	return 0;
}

static const struct vt_test tests[] = {
	{ "badkey", badkey_server, badkey_client },
	{ "shortrecv", shortrecv_server, shortrecv_client },
	{ "stuck", stuck_server, stuck_client },
	{ "stopped", stopped_server, stopped_client },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	static const struct vt_test *const tables[] = { tests };

	return vt_run(argc, argv, "dattest-ofi-errors", tables, 1, 150, 0);
}
