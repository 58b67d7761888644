/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_cm_many.c - connection management at scale and in odd orders: PSPs
 * freed while requests arrive, many connections one after another, many
 * IAs of one process at once, more shm listeners than shm lets an IA
 * know, two IAs of one process, and the orders in which they close.
 * (vt_cm.c: one connection's life.)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt.h"

/* ---- PSP churn: a PSP freed while connection requests arrive ------------ */

enum { CHURN_TRIES = 20, CHURN_EPS = 4, CHURN_MAX_ROUNDS = 2000 };
#define CHURN_DONE "churn-done"

/* Rejects a CR; 1 if it carried the client's last word. */
static int churn_reject(DAT_CR_HANDLE cr)
{
	DAT_CR_PARAM p;
	int done;

	memset(&p, 0, sizeof(p));
	vt_expect("dat_cr_query", dat_cr_query(cr, DAT_CR_FIELD_ALL, &p),
		  DAT_SUCCESS);
	done = p.private_data && p.private_data_size >= (DAT_COUNT)sizeof(CHURN_DONE) &&
	       !memcmp(p.private_data, CHURN_DONE, sizeof(CHURN_DONE));
	vt_expect("dat_cr_reject", dat_cr_reject(cr), DAT_SUCCESS);
	return done;
}

/* Rejects every CR queued on evd: their number; *done as churn_reject. */
static int churn_reject_queued(DAT_EVD_HANDLE evd, int *done)
{
	DAT_EVENT ev;
	int n = 0;

	while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS) {
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
			vt_fail("CR EVD: event %s", vt_ev(ev.event_number));
			continue;
		}
		*done |= churn_reject(
		    ev.event_data.cr_arrival_event_data.cr_handle);
		n++;
	}
	return n;
}

/*
 * Rounds of: a CR EVD and a PSP on the same qualifier, the PSP freed
 * (every other round the moment a request arrived, with the client's
 * other requests still on the way), the CRs made before rejected, the CR
 * EVD freed.  Once dat_psp_free returned no request may reach the CR EVD
 * any more: it must free at once (a late request upcall would write
 * into a freed EVD).  Until the client's last word.
 */
static int churn_server(const struct vt_opts *o)
{
	int r, crs = 0, raced = 0, done = 0;
	DAT_CONN_QUAL qual = 0;
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_COUNT n;
	DAT_EVENT ev;
	struct vt v;

	(void)o;
	vt_open(&v, o->ia_name);
	for (r = 0; !done && r < CHURN_MAX_ROUNDS; r++) {
		DAT_CR_HANDLE held = DAT_HANDLE_NULL;

		vt_must("dat_evd_create(CR)",
			dat_evd_create(v.ia, 2 * CHURN_EPS, DAT_HANDLE_NULL,
				       DAT_EVD_CR_FLAG, &evd));
		if (r == 0) {
			vt_must("dat_psp_create_any",
				dat_psp_create_any(v.ia, &qual, evd,
						   DAT_PSP_CONSUMER_FLAG,
						   &psp));
			vt_listening(qual);
		} else {
			vt_must("dat_psp_create(the same qualifier)",
				dat_psp_create(v.ia, qual, evd,
					       DAT_PSP_CONSUMER_FLAG, &psp));
		}
		if (r & 1) {
			if (dat_evd_wait(evd, vt_msecs(200), 1, &ev, &n) ==
				DAT_SUCCESS &&
			    ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
				held = ev.event_data.cr_arrival_event_data
					   .cr_handle;
		} else {
			usleep((useconds_t)(r % 5) * 2000);
		}
		if (!vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS))
			break;
		if (held) {
			done |= churn_reject(held);
			crs++;
			raced++;
		}
		crs += churn_reject_queued(evd, &done);
		if (!vt_expect("dat_evd_free(CR EVD) right after the PSP",
			       dat_evd_free(evd), DAT_SUCCESS))
			break;
	}
	vt_expect_true("the client's last word came", done);
	vt_note("ok %d rounds, %d connection requests rejected, %d of them "
		"with the PSP freed as they came", r, crs, raced);
	vt_close(&v);
	return 0;
}

/* One connection attempt's end: 1 rejected by the server, 0 nobody
 * there, -1 anything else. */
static int churn_end(const DAT_EVENT *ev)
{
	switch (ev->event_number) {
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
		return 1;
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
	case DAT_CONNECTION_EVENT_UNREACHABLE:
	case DAT_CONNECTION_EVENT_TIMED_OUT:
		return 0;
	default:
		vt_fail("connection event %s", vt_ev(ev->event_number));
		return -1;
	}
}

static void churn_connect(DAT_EP_HANDLE ep, const struct sockaddr_in *sin,
			  DAT_CONN_QUAL qual, const char *pdata)
{
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)sin, qual, vt_secs(5),
			       pdata ? (DAT_COUNT)sizeof(CHURN_DONE) : 0,
			       (DAT_PVOID)pdata, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
}

/* Tries of CHURN_EPS connections at once, each of which must end
 * rejected (the PSP was there) or find nobody (it was not), bounded;
 * then the last word, until the server hears it. */
static int churn_client(const struct vt_opts *o)
{
	int tries = o->count > 0 ? o->count : CHURN_TRIES, t, i, rej = 0,
	    none = 0;
	DAT_EP_HANDLE ep[CHURN_EPS];
	struct sockaddr_in sin;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_sockaddr(&sin, o->addr);
	for (t = 0; t < tries && !vt_failures; t++) {
		for (i = 0; i < CHURN_EPS; i++) {
			ep[i] = vt_ep(&v, NULL);
			churn_connect(ep[i], &sin, o->qual, NULL);
		}
		for (i = 0; i < CHURN_EPS; i++) {
			if (vt_wait(v.conn_evd, vt_secs(30), &ev) !=
			    DAT_SUCCESS) {
				vt_fail("try %d: no connection event", t);
				break;
			}
			switch (churn_end(&ev)) {
			case 1:
				rej++;
				break;
			case 0:
				none++;
				break;
			}
		}
		for (i = 0; i < CHURN_EPS; i++)
			vt_ep_free(ep[i]);
	}
	vt_note("ok %d tries of %d: %d rejected by the server, %d found "
		"nobody", t, CHURN_EPS, rej, none);
	vt_expect_true("requests reached the server", rej > 0);
	for (t = 0; t < 100; t++) {
		ep[0] = vt_ep(&v, NULL);
		churn_connect(ep[0], &sin, o->qual, CHURN_DONE);
		i = vt_wait(v.conn_evd, vt_secs(30), &ev) == DAT_SUCCESS
			? churn_end(&ev)
			: -1;
		vt_ep_free(ep[0]);
		if (i != 0)
			break;
	}
	vt_expect_true("the last word was heard", i == 1);
	vt_close(&v);
	return 0;
}

/* ---- serial: many connections, one after another ------------------------ */

/*
 * -n connections (SERIAL_DEFAULT without it), one after another, each on
 * a new EP on both sides, each with one message.  Over shm an IA could
 * make only about 125 connections in its life before (libfabric 1.17's
 * shm counts every address inserted against 256 an AV, none of which can
 * leave it: providers/ofi/addr.c ofi_addr_insert).
 */
enum { SERIAL_DEFAULT = 300, SERIAL_EVERY = 50 };

static int serial_count(const struct vt_opts *o)
{
	return o->count > 0 ? o->count : SERIAL_DEFAULT;
}

/* Connection i of n: its message's tag (a vt_msg tag holds 16 bytes);
 * only the first and last connection's steps are printed, and a line
 * every SERIAL_EVERY, so that a failure's iteration can be told. */
static void serial_step(int i, int n, char *tag, size_t tag_size)
{
	snprintf(tag, tag_size, "serial %d", i % 100000);
	vt_quiet = i > 0 && i < n - 1;
	if (i && i % SERIAL_EVERY == 0) {
		printf("  %d connections so far\n", i);
		vt_progress();
		fflush(stdout);
	}
}

static int serial_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	int i, n = serial_count(o);
	DAT_PSP_HANDLE psp;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	for (i = 0; i < n; i++) {
		DAT_CR_HANDLE cr;
		DAT_EP_HANDLE ep;
		struct vt_msg m;
		DAT_EVENT ev;
		char tag[sizeof(m.tag)];

		serial_step(i, n, tag, sizeof(tag));
		cr = vt_wait_cr(&v, &ev);
		ep = vt_ep(&v, NULL);
		vt_ctl_post(&v, ep);
		vt_accept(&v, cr, ep, NULL, 0);
		vt_ctl_recv(&v, ep, &m, tag, 0);
		vt_wait_disconnected(&v, ep);
		vt_ep_free(ep);
	}
	vt_quiet = 0;
	vt_note("ok %d connections accepted, one after another, each on a new EP",
		n);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

/* Connection i of serial's client, on the open IA v: connect, one
 * message, disconnect. */
static void serial_one(struct vt *v, const struct vt_opts *o, int i, int n)
{
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	char tag[sizeof(m.tag)];

	serial_step(i, n, tag, sizeof(tag));
	ep = vt_ep(v, NULL);
	vt_connect(v, ep, o->addr, o->qual, NULL, 0);
	vt_msg_init(&m, tag);
	vt_ctl_send(v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(v, ep);
	vt_ep_free(ep);
}

static int serial_client(const struct vt_opts *o)
{
	int i, n = serial_count(o);
	struct vt v;

	vt_open(&v, o->ia_name);
	for (i = 0; i < n; i++)
		serial_one(&v, o, i, n);
	vt_quiet = 0;
	vt_note("ok %d connections made, one after another, each on a new EP",
		n);
	vt_close(&v);
	return 0;
}

/*
 * serial-ias: the client opens a new IA for each of -n connections (in
 * turn: open, connect, one message, disconnect, close), as short-lived
 * client processes of a daemon do; the server is serial's, one IA and
 * one PSP for them all.  Over shm the server's IA takes a name for each
 * client IA (libfabric 1.17 lets an AV take 256): it stopped answering
 * new clients after some 254 before it moved on to new control
 * endpoints (providers/ofi/gen.c; issue 33).
 */
static int serial_ias_client(const struct vt_opts *o)
{
	int i, n = serial_count(o);

	for (i = 0; i < n; i++) {
		struct vt v;

		/* vt_open's lines only for the first and the last */
		vt_quiet = i > 0 && i < n - 1;
		vt_open(&v, o->ia_name);
		serial_one(&v, o, i, n);
		vt_close(&v);
	}
	vt_quiet = 0;
	vt_note("ok %d connections made, one after another, each from an IA "
		"of its own",
		n);
	return 0;
}

/* ---- many-ia: one server IA, many client IAs open at once --------------- */

/*
 * The client opens -n IAs (MANY_DEFAULT without it), each with an EP
 * connected to the server's one PSP, and sends one message on each; only
 * then does it hang them all up.  So the server's IA has -n peer IAs at
 * once, each a different control address: with 80 (test/ofi/connect.bats
 * natively) more than the 64 peers libfabric's rxm over tcp is told to
 * expect per endpoint (FI_UNIVERSE_SIZE, providers/ofi/init.c), which
 * every other test stays under.
 */
enum { MANY_DEFAULT = 80 };

/*
 * many_gone: ev, a DISCONNECTED on the shared connection EVD, names
 * ep[j] of the n: that EP is freed and its slot emptied (1); else 0.
 */
static int many_gone(DAT_EP_HANDLE *ep, int n, const DAT_EVENT *ev)
{
	DAT_EP_HANDLE h = ev->event_data.connect_event_data.ep_handle;
	int j;

	if (ev->event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		return 0;
	for (j = 0; j < n; j++)
		if (ep[j] != DAT_HANDLE_NULL && ep[j] == h)
			break;
	if (j == n)
		return 0;
	ep[j] = DAT_HANDLE_NULL;
	vt_ep_free(h);
	return 1;
}

/*
 * many_accept: accepts cr on ep[i] and waits for its ESTABLISHED.
 * dat_cr_accept(3DAT): "The successful completion of the operation is
 * reported through a Connection Event of type
 * DAT_CONNECTION_EVENT_ESTABLISHED on the connect_evd of the local
 * Endpoint" -- an EVD every EP here shares.  The client's side of the
 * last connection can be established first (its ESTABLISHED answers
 * our accept, ours its RTU), its message delivered, and its hang-up of
 * the first connection under way: that DISCONNECTED may come before
 * this ESTABLISHED (over tcp MSG about once in 30 runs under load; CI
 * of 9caa943).  It is counted in *gone.
 */
static void many_accept(struct vt *v, DAT_CR_HANDLE cr, DAT_EP_HANDLE *ep,
			int i, int *gone)
{
	DAT_EVENT ev;
	DAT_RETURN rc;

	vt_must("dat_cr_accept", dat_cr_accept(cr, ep[i], 0, NULL));
	for (;;) {
		rc = vt_wait(v->conn_evd, vt_secs(15), &ev);
		if (rc != DAT_SUCCESS)
			vt_die("connection %d: dat_evd_wait: %s, want "
			       "ESTABLISHED", i, vt_rc(rc));
		if (many_gone(ep, i, &ev)) {
			(*gone)++;
			continue;
		}
		if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
			vt_die("connection %d: event %s, want ESTABLISHED", i,
			       vt_ev(ev.event_number));
		vt_expect_ptr("ESTABLISHED event's ep_handle",
			      ev.event_data.connect_event_data.ep_handle,
			      ep[i]);
		return;
	}
}

static int many_server(const struct vt_opts *o)
{
	int i, gone = 0, n = o->count > 0 ? o->count : MANY_DEFAULT;
	DAT_EP_HANDLE *ep = calloc((size_t)n, sizeof(*ep));
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	struct vt v;

	if (!ep)
		vt_die("many-ia: calloc");
	vt_open(&v, o->ia_name);
	/* room for every connection's events at once: the clients hang up
	 * in a burst, and an EVD that overflows drops events
	 * (DAT_ASYNC_ERROR_EVD_OVERFLOW) */
	vt_expect("dat_evd_free(connection)", dat_evd_free(v.conn_evd),
		  DAT_SUCCESS);
	vt_must("connection EVD",
		dat_evd_create(v.ia, 2 * n + 16, DAT_HANDLE_NULL,
			       DAT_EVD_CONNECTION_FLAG, &v.conn_evd));
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	for (i = 0; i < n; i++) {
		struct vt_msg m;
		DAT_EVENT ev;
		DAT_CR_HANDLE cr;
		char tag[sizeof(m.tag)];

		serial_step(i, n, tag, sizeof(tag));
		cr = vt_wait_cr(&v, &ev);
		ep[i] = vt_ep(&v, NULL);
		vt_ctl_post(&v, ep[i]);
		many_accept(&v, cr, ep, i, &gone);
		vt_ctl_recv(&v, ep[i], &m, tag, 0);
	}
	vt_quiet = 0;
	vt_note("ok %d connections accepted, all open at once", n);
	/* the client hangs up each one, in any order; each EP is to be
	 * named by one DISCONNECTED (those that came during the accepts
	 * above, too) */
	vt_quiet = 1;
	for (i = gone; i < n; i++) {
		DAT_EVENT ev;

		if (!vt_expect_event("disconnected", v.conn_evd,
				     DAT_CONNECTION_EVENT_DISCONNECTED, &ev))
			break;
		if (!many_gone(ep, n, &ev))
			vt_fail("DISCONNECTED names no EP of ours, or one twice");
	}
	vt_quiet = 0;
	for (i = 0; i < n; i++)
		if (ep[i] != DAT_HANDLE_NULL) {
			vt_fail("connection %d: no DISCONNECTED", i);
			vt_ep_free(ep[i]);
		}
	if (!vt_failures)
		vt_note("ok %d DISCONNECTED, one for each EP (%d during the "
			"accepts)", n, gone);
	free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int many_client(const struct vt_opts *o)
{
	int i, n = o->count > 0 ? o->count : MANY_DEFAULT;
	struct vt *v = calloc((size_t)n, sizeof(*v));
	DAT_EP_HANDLE *ep = calloc((size_t)n, sizeof(*ep));

	if (!v || !ep)
		vt_die("many-ia: calloc");
	for (i = 0; i < n; i++) {
		struct vt_msg m;
		char tag[sizeof(m.tag)];

		serial_step(i, n, tag, sizeof(tag));
		vt_open(&v[i], o->ia_name);
		ep[i] = vt_ep(&v[i], NULL);
		vt_connect(&v[i], ep[i], o->addr, o->qual, NULL, 0);
		vt_msg_init(&m, tag);
		vt_ctl_send(&v[i], ep[i], &m, DAT_COMPLETION_DEFAULT_FLAG);
	}
	vt_quiet = 0;
	vt_note("ok %d IAs open at once, each connected, one message each", n);
	for (i = 0; i < n; i++) {
		vt_quiet = i < n - 1;
		vt_disconnect(&v[i], ep[i]);
		vt_ep_free(ep[i]);
		vt_close(&v[i]);
	}
	vt_quiet = 0;
	free(ep);
	free(v);
	return 0;
}

/* ---- shm-names: an IA that connects to more listeners than one AV of
 * shm can know ------------------------------------------------------------ */

/*
 * libfabric 1.17's shm lets an address vector take 256 names in its
 * life, one for each peer IA and each listener the IA connected to
 * (providers/ofi/addr.c); the IA moves on to a new control endpoint and
 * AV before they run out (providers/ofi/gen.c).  The server keeps one
 * control connection and, round after round, opens a PSP on a new
 * qualifier (a new listener name), tells the client its qualifier over
 * the control connection and accepts the client's connect there.  The
 * client, whose IA takes one more name each round, connects -n times
 * (NAMES_DEFAULT; a failed connect tells the server and ends the
 * rounds), all of them must connect, and names it knew before still
 * work: the control connection, made on the first AV, carries every
 * round's qualifier, and a new EP connects to the control PSP again.
 */
enum { NAMES_DEFAULT = 300 };

static int names_server(const struct vt_opts *o)
{
	int i, n = o->count > 0 ? o->count : NAMES_DEFAULT;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ctl, ep;
	DAT_CR_HANDLE cr;
	struct vt_msg done;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	ctl = vt_serve_one(&v, NULL, 1, &psp);
	vt_quiet = 1;
	for (i = 0; i < n; i++) {
		DAT_CONN_QUAL qual = 0;
		DAT_PSP_HANDLE round = vt_psp(&v, &qual);
		struct vt_msg m;

		vt_msg_init(&m, "psp");
		m.addr = qual;
		vt_ctl_send(&v, ctl, &m, DAT_COMPLETION_DEFAULT_FLAG);
		vt_ctl_recv(&v, ctl, &m, NULL, 0);
		vt_ctl_post(&v, ctl);
		if (strcmp(m.tag, "connecting")) {
			vt_expect("dat_psp_free", dat_psp_free(round),
				  DAT_SUCCESS);
			break;
		}
		cr = vt_wait_cr(&v, &ev);
		ep = vt_ep(&v, NULL);
		vt_accept(&v, cr, ep, NULL, 0);
		vt_wait_disconnected(&v, ep);
		vt_ep_free(ep);
		vt_expect("dat_psp_free", dat_psp_free(round), DAT_SUCCESS);
	}
	vt_quiet = 0;
	vt_note("ok %d connections accepted, each on a PSP of its own", i);
	/* the client's connect to the control PSP, a name it knows */
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, NULL);
	vt_accept(&v, cr, ep, NULL, 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	/* only now may the client end the control connection: made on the
	 * IA's first control endpoint, its DISC could overtake the RTU of
	 * the connection above, made through a later one (another shm
	 * queue; dat_cr_accept(3DAT) orders no event of one EP against
	 * another's) */
	vt_msg_init(&done, "done");
	vt_ctl_send(&v, ctl, &done, DAT_COMPLETION_DEFAULT_FLAG);
	vt_wait_disconnected(&v, ctl);
	vt_ep_free(ctl);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&v);
	return 0;
}

static int names_client(const struct vt_opts *o)
{
	int i, n = o->count > 0 ? o->count : NAMES_DEFAULT;
	DAT_EP_HANDLE ctl, ep;
	DAT_RETURN rc = DAT_SUCCESS;
	struct sockaddr_in sin;
	struct vt_msg m;
	DAT_EVENT ev;
	struct vt v;

	vt_open(&v, o->ia_name);
	vt_sockaddr(&sin, o->addr);
	ctl = vt_client_one(&v, o, NULL, 1);
	vt_quiet = 1;
	for (i = 0; i < n; i++) {
		vt_ctl_recv(&v, ctl, &m, "psp", 0);
		vt_ctl_post(&v, ctl);
		ep = vt_ep(&v, NULL);
		rc = dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, m.addr,
				    vt_secs(20), 0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG);
		vt_msg_init(&m, rc == DAT_SUCCESS ? "connecting" : "failed");
		vt_ctl_send(&v, ctl, &m, DAT_COMPLETION_DEFAULT_FLAG);
		if (rc != DAT_SUCCESS) {
			vt_ep_free(ep);
			break;
		}
		if (!vt_expect_event("connection established", v.conn_evd,
				     DAT_CONNECTION_EVENT_ESTABLISHED, &ev))
			vt_die("round %d: no connection", i);
		vt_disconnect(&v, ep);
		vt_ep_free(ep);
	}
	vt_quiet = 0;
	if (i < n)
		vt_fail("round %d: dat_ep_connect to a new listener: %s", i,
			vt_rc(rc));
	else
		vt_note("ok %d listeners reached, each a new name", n);
	/* a name the IA knows: the control PSP */
	ep = vt_ep(&v, NULL);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	vt_note("ok a new EP connects to the listener the IA knew before");
	vt_ctl_recv(&v, ctl, &m, "done", 0);
	vt_disconnect(&v, ctl);
	vt_ep_free(ctl);
	vt_close(&v);
	return 0;
}

/* ---- two IAs of one process, the first one's named by VT_FIRST_IA ------ */

/*
 * Opens the IA VT_FIRST_IA names (e.g. an IA over tcp;ofi_rxm), then
 * the IA -i names (e.g. one over verbs;ofi_rxm), each with an EP, and
 * closes them.  test/ofi/mixed.bats watches what libfabric was told for
 * each (the ofi provider's settings for one IA must not be another's).
 */
static int two_ia_local(const struct vt_opts *o)
{
	const char *first = getenv("VT_FIRST_IA");
	DAT_EP_HANDLE ep1, ep2;
	struct vt v1, v2;

	if (!first || !*first)
		vt_die("two-ia: VT_FIRST_IA names no IA");
	vt_open(&v1, first);
	ep1 = vt_ep(&v1, NULL);
	printf("  first IA %s open, an EP created\n", first);
	fflush(stdout);
	vt_open(&v2, o->ia_name);
	ep2 = vt_ep(&v2, NULL);
	printf("  second IA %s open, an EP created\n", o->ia_name);
	fflush(stdout);
	vt_ep_free(ep2);
	vt_ep_free(ep1);
	vt_close(&v2);
	vt_close(&v1);
	return 0;
}

/*
 * close-order: two IAs of one process, the second (this test's -i)
 * connected to a PSP of the first (VT_FIRST_IA, address -a), a message
 * across; then both IAs close, in one of four orders: 0 both abruptly
 * with everything on them (dat_ia_close(3DAT): "All DAT Objects
 * associated with an IA instance are destroyed", and "An implementation
 * must provide for successful completion under all conditions"), the
 * listening IA first; 1 the same, the connecting IA first; or each
 * IA's EP, PSP and other objects freed one by one and the IA closed
 * gracefully, 2 the listening side first, 3 the connecting side first.
 * -n rounds, the orders in turn.  Nothing may crash or hang, whatever the
 * order: over libfabric's shm, a send to a peer endpoint of the same
 * process that had closed crashed in 1 of 15 rounds of order 2
 * (providers/ofi/local.c).
 */
static void close_side(struct vt *v, DAT_EP_HANDLE ep, DAT_PSP_HANDLE psp)
{
	vt_ep_free(ep);
	if (psp)
		vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(v);
}

static void close_order_round(const char *first, const struct vt_opts *o,
			      int order)
{
	DAT_EP_HANDLE ep_l, ep_c;
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	struct vt l, c;

	vt_open(&l, first);
	vt_open(&c, o->ia_name);
	psp = vt_psp(&l, &qual);
	ep_c = vt_ep(&c, NULL);
	ep_l = vt_connect_local(&l, &c, ep_c, o->addr, qual, "hello");
	if (order == 2 || order == 3) {
		if (order == 2)
			close_side(&l, ep_l, psp);
		close_side(&c, ep_c, DAT_HANDLE_NULL);
		if (order == 3)
			close_side(&l, ep_l, psp);
		return;
	}
	if (order == 0) {
		vt_expect("dat_ia_close(listening IA, ABRUPT)",
			  dat_ia_close(l.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
		vt_expect("dat_ia_close(connecting IA, ABRUPT)",
			  dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	} else {
		vt_expect("dat_ia_close(connecting IA, ABRUPT)",
			  dat_ia_close(c.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
		vt_expect("dat_ia_close(listening IA, ABRUPT)",
			  dat_ia_close(l.ia, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	}
	/* the close freed the LMRs: the memory under them is ours */
	free(l.ctl->buf);
	free(l.ctl);
	free(c.ctl->buf);
	free(c.ctl);
}

static int close_order_local(const struct vt_opts *o)
{
	const char *first = getenv("VT_FIRST_IA");
	int i;

	if (!first || !*first)
		vt_die("close-order: VT_FIRST_IA names the listening IA");
	for (i = 0; i < (o->count > 0 ? o->count : 4); i++) {
		printf("round %d: order %d\n", i + 1, i % 4);
		fflush(stdout);
		close_order_round(first, o, i % 4);
	}
	return 0;
}

const struct vt_test vt_cm_many_tests[] = {
	{ "psp-churn", churn_server, churn_client },
	{ "serial", serial_server, serial_client },
	{ "many-ia", many_server, many_client },
	{ "shm-names", names_server, names_client },
	{ "serial-ias", serial_server, serial_ias_client },
	{ "two-ia", two_ia_local, NULL },
	{ "close-order", close_order_local, NULL },
	{ NULL, NULL, NULL }
};
