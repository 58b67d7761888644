/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dt_ctl.c - the control connection between a dapltest client and server:
 * its handshake (magic, protocol version, byte order), the server's main
 * loop (one client at a time) and -T Q.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt.h"

#define CTL_SLOT	512
#define CTL_RECVS	4
#define CTL_RCOOKIE	0xC0DE0000ULL
#define CTL_SCOOKIE	0xC0DE1000ULL

_Static_assert(sizeof(struct dt_hello) <= CTL_SLOT, "hello fits a slot");

static const char *test_name(uint32_t t)
{
	switch (t) {
	case DT_T:
		return "transaction";
	case DT_P:
		return "performance";
	case DT_F:
		return "functional";
	case DT_Q:
		return "quit";
	}
	return "unknown";
}

int dt_ctl_open(struct dt_ctl *c, const char *ia_name)
{
	DAT_RETURN rc;

	memset(c, 0, sizeof(*c));
	if (dt_ia_open(ia_name, &c->ia, &c->async) != DAT_SUCCESS)
		return -1;
	rc = dat_ia_query(c->ia, &c->async, DAT_IA_FIELD_ALL, &c->attr, 0,
			  NULL);
	if (rc == DAT_SUCCESS)
		rc = dat_pz_create(c->ia, &c->pz);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 16, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &c->req);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 16, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &c->rcv);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &c->conn);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(c->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CR_FLAG, &c->cr);
	if (rc == DAT_SUCCESS)
		rc = dt_mem_alloc(c->ia, c->pz, &c->mem,
				  CTL_SLOT * (CTL_RECVS + 1),
				  DAT_MEM_PRIV_LOCAL_READ_FLAG |
				  DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_err("control objects on '%s': %s", ia_name, dt_rc(rc));
		dt_ctl_close(c);
		return -1;
	}
	return 0;
}

/* a fresh control EP with receives posted */
static int ctl_ep(struct dt_ctl *c)
{
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	int i;

	dt_ep_attr(&c->attr, &a, CTL_RECVS, 4, 1);
	rc = dat_ep_create(c->ia, c->pz, c->rcv, c->req, c->conn, &a, &c->ep);
	if (rc != DAT_SUCCESS) {
		dt_err("control EP: dat_ep_create: %s", dt_rc(rc));
		c->ep = DAT_HANDLE_NULL;
		return -1;
	}
	for (i = 0; i < CTL_RECVS; i++)
		if (dt_ctl_post_recv(c))
			return -1;
	return 0;
}

static void ctl_ep_free(struct dt_ctl *c)
{
	DAT_EVENT ev;
	DAT_RETURN rc;

	if (!c->ep)
		return;
	dt_disconnect(c->ep, c->conn);
	rc = dat_ep_free(c->ep);
	if (rc != DAT_SUCCESS)
		dt_err("control EP: dat_ep_free: %s", dt_rc(rc));
	c->ep = DAT_HANDLE_NULL;
	/* flushed receives and stale connection events of this EP */
	while (dat_evd_dequeue(c->rcv, &ev) == DAT_SUCCESS)
		;
	while (dat_evd_dequeue(c->req, &ev) == DAT_SUCCESS)
		;
	while (dat_evd_dequeue(c->conn, &ev) == DAT_SUCCESS)
		;
	c->next_recv = 0;
}

void dt_ctl_close(struct dt_ctl *c)
{
	DAT_RETURN rc;

	ctl_ep_free(c);
	if (c->mem.lmr)
		dt_mem_free(&c->mem);
	if (c->cr)
		dat_evd_free(c->cr);
	if (c->conn)
		dat_evd_free(c->conn);
	if (c->rcv)
		dat_evd_free(c->rcv);
	if (c->req)
		dat_evd_free(c->req);
	if (c->pz)
		dat_pz_free(c->pz);
	if (c->ia) {
		rc = dat_ia_close(c->ia, DAT_CLOSE_GRACEFUL_FLAG);
		if (rc != DAT_SUCCESS) {
			dt_err("dat_ia_close(GRACEFUL): %s", dt_rc(rc));
			dat_ia_close(c->ia, DAT_CLOSE_ABRUPT_FLAG);
		}
	}
	memset(c, 0, sizeof(*c));
}

int dt_ctl_post_recv(struct dt_ctl *c)
{
	unsigned slot = c->next_recv++ % CTL_RECVS;
	DAT_LMR_TRIPLET iov = dt_iov(&c->mem, CTL_SLOT * (slot + 1), CTL_SLOT);
	DAT_RETURN rc;

	rc = dat_ep_post_recv(c->ep, 1, &iov, dt_cookie(CTL_RCOOKIE | slot),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS)
		dt_err("control: dat_ep_post_recv: %s", dt_rc(rc));
	return rc == DAT_SUCCESS ? 0 : -1;
}

int dt_ctl_send(struct dt_ctl *c, const struct dt_hello *h)
{
	DAT_LMR_TRIPLET iov = dt_iov(&c->mem, 0, sizeof(*h));
	DAT_RETURN rc;

	memcpy(c->mem.buf, h, sizeof(*h));
	rc = dat_ep_post_send(c->ep, 1, &iov, dt_cookie(CTL_SCOOKIE),
			      DAT_COMPLETION_DEFAULT_FLAG);
	if (rc != DAT_SUCCESS) {
		dt_err("control: dat_ep_post_send: %s", dt_rc(rc));
		return -1;
	}
	return dt_wait_dto("control send", c->req, NULL, 0, CTL_SCOOKIE,
			   NULL);
}

int dt_ctl_recv(struct dt_ctl *c, struct dt_hello *h, unsigned secs)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;
	uint64_t slot;

	rc = dat_evd_wait(c->rcv, dt_secs(secs), 1, &ev, &nmore);
	if (rc != DAT_SUCCESS) {
		dt_err("control: no message from the peer within %u s: %s",
		       secs * dt_scale, dt_rc(rc));
		return -1;
	}
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS) {
		dt_err("control: receive failed: %s %s%s",
		       dt_ev(ev.event_number), dt_dto(d->status),
		       d->status == DAT_DTO_ERR_FLUSHED ?
		       " (the peer closed the connection or died)" : "");
		return -1;
	}
	if (d->transfered_length != sizeof(*h)) {
		dt_err("control: message of %llu bytes, want %zu (another program, or another dapltest version?)",
		       (unsigned long long)d->transfered_length, sizeof(*h));
		return -1;
	}
	slot = d->user_cookie.as_64 & 0xfff;
	memcpy(h, c->mem.buf + CTL_SLOT * (slot + 1), sizeof(*h));
	return dt_ctl_post_recv(c);
}

int dt_ctl_poll(struct dt_ctl *c, struct dt_hello *h)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;

	rc = dat_evd_dequeue(c->rcv, &ev);
	if (DAT_GET_TYPE(rc) == DAT_QUEUE_EMPTY)
		return 0;
	d = &ev.event_data.dto_completion_event_data;
	if (rc != DAT_SUCCESS || ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS ||
	    d->transfered_length != sizeof(*h)) {
		dt_err("control: the peer's connection failed: %s %s",
		       dt_rc(rc), dt_dto(d->status));
		return -1;
	}
	memcpy(h, c->mem.buf + CTL_SLOT * ((d->user_cookie.as_64 & 0xfff) + 1),
	       sizeof(*h));
	return dt_ctl_post_recv(c) ? -1 : 1;
}

void dt_hello_init(struct dt_hello *h, int test)
{
	const char *test_hook;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, "DAPLTEST", 8);
	h->byte_order = DT_BYTE_ORDER;
	h->version = DT_PROTO_VERSION;
	h->test = test;
	/* test hook (dapltest(1)): play a peer of another version or byte
	 * order, so the handshake's refusal can be tested */
	test_hook = getenv("DAPLTEST_TEST_HELLO");
	if (test_hook && !strcmp(test_hook, "version"))
		h->version = DT_PROTO_VERSION + 1;
	else if (test_hook && !strcmp(test_hook, "byteorder"))
		h->byte_order = __builtin_bswap32(DT_BYTE_ORDER);
}

static uint32_t swap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

int dt_hello_check(const struct dt_hello *h, char *why, size_t n)
{
	if (memcmp(h->magic, "DAPLTEST", 8)) {
		snprintf(why, n, "not a dapltest peer (bad magic)");
		return -1;
	}
	if (h->byte_order != DT_BYTE_ORDER) {
		snprintf(why, n,
			 "byte order mismatch: the peer's marker reads 0x%08x here (want 0x%08x)%s",
			 h->byte_order, DT_BYTE_ORDER,
			 swap32(h->byte_order) == DT_BYTE_ORDER ?
			 ": the peer has the other endianness" : "");
		return -1;
	}
	if (h->version != DT_PROTO_VERSION) {
		snprintf(why, n,
			 "protocol version mismatch: peer speaks version %u, this dapltest version %u",
			 h->version, DT_PROTO_VERSION);
		return -1;
	}
	return 0;
}

/* ---- client ------------------------------------------------------------ */

int dt_client_start(struct dt_ctl *c, const struct dt_args *a,
		    struct dt_hello *h, struct dt_hello *answer)
{
	struct sockaddr_in sin;
	char why[160];

	if (dt_sockaddr(&sin, a->server, a->port))
		return DT_EXIT_USAGE;
	if (dt_ctl_open(c, a->ia_name))
		return DT_EXIT_IA;
	if (ctl_ep(c)) {
		dt_ctl_close(c);
		return DT_EXIT_IA;
	}
	if (dt_connect(c->ep, c->conn, &sin, a->port, NULL, 0,
		       "connecting to the dapltest server")) {
		dt_err("cannot reach a dapltest server at %s port %u through IA '%s'",
		       a->server, a->port, a->ia_name);
		dt_ctl_close(c);
		return DT_EXIT_CONNECT;
	}
	if (dt_ctl_send(c, h) || dt_ctl_recv(c, answer, 30)) {
		dt_err("handshake with the server at %s failed", a->server);
		dt_ctl_close(c);
		return DT_EXIT_CONNECT;
	}
	if (dt_hello_check(answer, why, sizeof(why))) {
		dt_err("handshake: %s", why);
		dt_ctl_close(c);
		return DT_EXIT_CONNECT;
	}
	if (answer->status) {
		dt_err("the server refused the %s test: %.*s",
		       test_name(h->test), (int)sizeof(answer->text),
		       answer->text);
		dt_ctl_close(c);
		return DT_EXIT_CONNECT;
	}
	dt_dbg("connected to the server at %s port %u", a->server, a->port);
	return DT_EXIT_OK;
}

void dt_client_finish(struct dt_ctl *c)
{
	dt_ctl_close(c);
}

int dt_quit(const struct dt_args *a)
{
	struct dt_hello h, ans;
	struct dt_ctl c;
	int rc;

	dt_hello_init(&h, DT_Q);
	rc = dt_client_start(&c, a, &h, &ans);
	if (rc)
		return rc;
	dt_log("Server at %s: asked to finish; it answered: %.*s", a->server,
	       (int)sizeof(ans.text), ans.text);
	dt_client_finish(&c);
	return DT_EXIT_OK;
}

/* ---- server ------------------------------------------------------------- */

/* one client: handshake, then the server half of its test */
static int serve_one(struct dt_ctl *c, DAT_CR_HANDLE cr, int *quit)
{
	struct dt_hello h, ans;
	char why[160];
	int rc;

	if (ctl_ep(c)) {
		dat_cr_reject(cr);
		return -1;
	}
	if (dt_accept(cr, c->ep, c->conn, NULL, 0) ||
	    dt_ctl_recv(c, &h, 30)) {
		ctl_ep_free(c);
		return -1;
	}
	if (dt_hello_check(&h, why, sizeof(why))) {
		dt_err("client refused: %s", why);
		dt_hello_init(&ans, h.test);
		ans.status = 1;
		snprintf(ans.text, sizeof(ans.text), "%s", why);
		dt_ctl_send(c, &ans);
		ctl_ep_free(c);
		return -1;
	}
	dt_log("Server: %s test from a client", test_name(h.test));
	switch (h.test) {
	case DT_Q:
		dt_hello_init(&ans, DT_Q);
		snprintf(ans.text, sizeof(ans.text), "server finishing");
		rc = dt_ctl_send(c, &ans);
		*quit = 1;
		break;
	case DT_T:
		rc = dt_serve_transaction(c, &h);
		break;
	case DT_P:
		rc = dt_serve_performance(c, &h);
		break;
	case DT_F:
		rc = dt_serve_functional(c, &h);
		break;
	default:
		dt_hello_init(&ans, h.test);
		ans.status = 1;
		snprintf(ans.text, sizeof(ans.text), "unknown test %u",
			 h.test);
		rc = dt_ctl_send(c, &ans);
		break;
	}
	dt_log("Server: %s test %s", test_name(h.test),
	       rc ? "FAILED" : "done");
	ctl_ep_free(c);
	return rc;
}

int dt_server(const struct dt_args *a)
{
	DAT_PSP_HANDLE psp;
	struct dt_ctl c;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN rc;
	int quit = 0;

	if (dt_ctl_open(&c, a->ia_name))
		return DT_EXIT_IA;
	rc = dat_psp_create(c.ia, a->port, c.cr, DAT_PSP_CONSUMER_FLAG, &psp);
	if (rc != DAT_SUCCESS) {
		dt_err("cannot listen on port %u: %s%s", a->port, dt_rc(rc),
		       DAT_GET_TYPE(rc) == DAT_CONN_QUAL_IN_USE ?
		       " (another server runs there?)" : "");
		dt_ctl_close(&c);
		return DT_EXIT_IA;
	}
	dt_log("Dapltest server: IA %s, listening on port %u", a->ia_name,
	       a->port);
	dt_log("listening %u", a->port);
	while (!quit) {
		/* bounded: the loop itself runs until -T Q or a signal */
		rc = dat_evd_wait(c.cr, dt_secs(5), 1, &ev, &nmore);
		if (DAT_GET_TYPE(rc) == DAT_TIMEOUT_EXPIRED)
			continue;
		if (rc != DAT_SUCCESS) {
			dt_err("server: waiting for clients: %s", dt_rc(rc));
			break;
		}
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
			dt_err("server: unexpected %s", dt_ev(ev.event_number));
			continue;
		}
		serve_one(&c, ev.event_data.cr_arrival_event_data.cr_handle,
			  &quit);
	}
	rc = dat_psp_free(psp);
	if (rc != DAT_SUCCESS)
		dt_err("dat_psp_free: %s", dt_rc(rc));
	dt_ctl_close(&c);
	dt_log("Dapltest server: finished");
	return quit ? DT_EXIT_OK : DT_EXIT_FAIL;
}
