/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/scm: the socket connection manager of the verbs provider
 * libdaplscm.so.1 (compat-dapl's "OpenIB-<device>-<port>" entries);
 * everything else verbs comes from providers/verbs (libdapl-verbs.a).
 * The two sides of a DAT connection exchange their QP numbers, PSNs,
 * LIDs and GIDs over an ordinary TCP connection (wire.h), which stays
 * open for the connection's life: its end without a DREQ is the peer's
 * death (BROKEN).  So no rdma_cm, no IPoIB address on the device and no
 * route resolution: any IP network between the hosts will do.
 *
 *   ia.c     ia_params ("<device> <port> [<address or netdev>]") -> the
 *            device, port, GID and the IA's IP address; tunables
 *   qp.c     our QP's side of a message; the peer's side into our QP
 *            (RTR, RTS)
 *   cm.c     listeners, connections and the CM ops; the hooks the verbs
 *            glue calls (struct verbs_cm_ops)
 *   event.c  the engine's callback for the IA's sockets (one epoll fd)
 *            and the connections' timers
 *   wire.c   the messages to and from bytes (pure; fuzzed on the host)
 *
 * Qualifiers: a listener is a TCP socket on the IA's address at the port
 * verbs_qual_port() folds the 64-bit qualifier to (the qualifier itself up
 * to 65535, as compat-dapl's scm, which listened on the qualifier as a
 * port), shared by the IA's service points whose qualifiers fold to it;
 * the REQ names the full qualifier, and a listener takes only requests
 * for one of its own (the rest: REJ "no such qualifier",
 * NON_PEER_REJECTED).  A peer given only an IP address (a DAT address
 * without a port, dapltest -h) finds the listener from the qualifier
 * alone, which one socket per IA on an agreed port could not offer to
 * two processes on one address.
 *
 * Locking: cia->lock (the verbs IA's) guards every connection and
 * listener, the EP <-> connection association and every socket call on
 * them; the engine's callback waits for its socket event (epoll_wait,
 * timeout 0) and handles it inside one cia->lock section, so a socket
 * closed and its connection freed under the lock can never be named by
 * an event handled later.  Upcalls run after the lock is dropped, from a
 * copy, inside their brackets, as in providers/cma.  No thread of our
 * own; nothing here blocks (every socket is non-blocking).
 */
#ifndef DAT_PROVIDER_SCM_H
#define DAT_PROVIDER_SCM_H

#include <netinet/in.h>

#include "../verbs/verbs.h"
#include "wire.h"

/* The ops table (init.c). */
extern const struct dapl_ops scm_ops DAPL_HIDDEN;
/* cm.c: the hooks the verbs glue calls (verbs.h), given at IA open */
extern const struct verbs_cm_ops scm_cm_ops DAPL_HIDDEN;

/* The first word of everything the IA's epoll set names. */
enum scm_kind { SCM_KIND_PORT = 0x5350, SCM_KIND_CONN = 0x434e };

/* The CM's part of a verbs IA (dapl_tp_ia.cm). */
struct verbs_cm {
	int epfd;		  /* the IA's sockets; the engine watches it */
	struct ibv_context *ctx;  /* ibv_open_device's, closed with the IA */
	struct sockaddr_in addr;  /* the IA's address (port 0) */
	/* our port's address, as a REQ or REP carries it */
	uint8_t gid_index;
	union ibv_gid gid;
	int global;		  /* route by GID (RoCE always) */
	uint16_t lid;
	uint8_t mtu;		  /* enum ibv_mtu, the port's active MTU */
	/* tunables (ia.c: OFA dapl's names) */
	uint8_t ack_timeout, retry_count, rnr_retry, rnr_timer;
	uint8_t hop_limit, tclass;
	struct dapl_list conns;	  /* every struct dapl_tp_cr, cia->lock */
	/* what a connection's timer calls (event.c's scm_conn_timer, set
	 * by ia.c at open: cm.c, below the event handler, arms it) */
	void (*conn_timer)(struct dapl_timer *t);
};

enum scm_conn_state {
	SCM_CONN_CONNECTING,   /* active: the TCP connect is on its way */
	SCM_CONN_REQ_SENT,     /* active: our REQ went, no answer yet */
	SCM_CONN_REQ_WAIT,     /* passive: a socket, its REQ not yet whole */
	SCM_CONN_REQUEST,      /* passive: a CR, not yet answered */
	SCM_CONN_ACCEPTING,    /* passive: our REP went, no RTU yet */
	SCM_CONN_ESTABLISHED,
	SCM_CONN_DISCONNECTING, /* our DREQ went, no DREP yet */
	SCM_CONN_CLOSED,	/* its terminal event was reported */
};

/*
 * One connection, active or passive.  A passive one is born with its
 * socket (REQ_WAIT), becomes a CR's transport part when its REQ is
 * whole, and moves to the EP that accepts it, so the type is named for
 * the CR.  In cm->conns from birth to scm_conn_free.
 */
struct dapl_tp_cr {
	enum scm_kind kind;	/* SCM_KIND_CONN: first word */
	int fd;			/* -1 once closed */
	struct dapl_tp_ia *cia;
	struct dapl_ep *ep;	/* bound EP, NULL while a bare CR */
	enum scm_conn_state state;
	int local_disc;		/* our side started the disconnect */
	int sq_drain;		/* ESTABLISHED: a graceful disconnect waits
				 * for the send queue (SQD) before its
				 * DREQ (cm.c) */
	DAT_CONN_QUAL qual;	/* active: the qualifier asked for */
	uint16_t lport;		/* passive: the listener's port */
	struct sockaddr_in peer; /* the peer's IA address */
	struct dapl_timer timer; /* connect timeout, REQ/RTU/DREP bounds */
	uint32_t psn;		/* our first PSN */
	uint8_t resp_res;	/* RDMA reads we accept at once (in) */
	uint8_t init_depth;	/* RDMA reads we issue at once (out) */
	struct scm_wire peer_qp; /* the peer's REQ or REP (no pdata) */
	size_t have;		/* bytes in rx */
	uint8_t rx[SCM_WIRE_MAX];
	int plen;		/* active: our REQ's private data */
	uint8_t pdata[SCM_MAX_PDATA];
	struct dapl_list link;	/* in cm->conns */
};

/* A listening socket: a port, shared by the service points of the IA
 * whose qualifiers fold to it (providers/verbs/listen.c). */
struct scm_port {
	enum scm_kind kind;	/* SCM_KIND_PORT: first word */
	int fd;
	struct verbs_port vp;	/* in cia->ports, under cia->lock */
};

/* ia.c */
DAT_RETURN scm_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps) DAPL_HIDDEN;
void scm_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;

/* qp.c: our side of a REQ or REP (m's QP fields), and the peer's
 * (conn->peer_qp) into our QP: RTR, then RTS; 0 or an errno */
void scm_qp_local(struct dapl_tp_cr *conn, struct ibv_qp *qp,
		  struct scm_wire *m) DAPL_HIDDEN;
int scm_qp_connect(struct dapl_tp_cr *conn, struct ibv_qp *qp) DAPL_HIDDEN;

/* cm.c: the CM ops */
DAT_RETURN scm_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN scm_accept(struct dapl_cr *cr, struct dapl_ep *ep,
		      const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN scm_disconnect(struct dapl_ep *ep, int abrupt) DAPL_HIDDEN;

/* cm.c: what event.c builds on (all locked but scm_conn_free) */
/* sends one message whole (0), or fails (-1: the connection is dead) */
int scm_send(struct dapl_tp_cr *conn, const struct scm_wire *m) DAPL_HIDDEN;
/* a message without QP fields or private data */
int scm_send_type(struct dapl_tp_cr *conn, enum scm_msg type,
		  uint8_t status) DAPL_HIDDEN;
/* closes the socket (the peer sees its end) */
void scm_conn_close_fd(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* a new connection of the IA (fd -1, in cm->conns, its timer ready) */
struct dapl_tp_cr *scm_conn_new(struct dapl_tp_ia *cia) DAPL_HIDDEN;
/* (re)arms a connection's timer, or cancels it (deadline 0) */
void scm_timer_set(struct dapl_tp_cr *conn, uint64_t deadline) DAPL_HIDDEN;
/* out of cm->conns, socket closed (locked); then scm_conn_free */
void scm_conn_unlink(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* frees an unlinked connection nobody else can reach (not locked) */
void scm_conn_free(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* refuses a request not yet answered, why SCM_REJ_CONSUMER (a
 * consumer's dat_cr_reject: PEER_REJECTED at the peer) or SCM_REJ_NO_QUAL
 * (the provider's: NON_PEER_REJECTED), and frees the connection (not
 * locked; no CR has it any more) */
void scm_conn_refuse(struct dapl_tp_cr *conn, enum scm_rej why) DAPL_HIDDEN;

/* Bounds of the socket CM's waits, in ns. */
#define SCM_REQ_WAIT_NS (10ull * 1000000000ull)  /* a socket's REQ */
#define SCM_RTU_WAIT_NS (10ull * 1000000000ull)  /* an accept's RTU */
#define SCM_DISC_WAIT_NS (5ull * 1000000000ull)  /* a DREQ's DREP */
#define SCM_DRAIN_NS (2ull * 1000000000ull)	   /* a graceful disconnect's
						    * send queue */

/* event.c: the engine's callback for the IA's epoll fd (arg: the IA's
 * dapl_tp_ia), and what a connection's timer calls */
int scm_cm_event(void *arg) DAPL_HIDDEN;
void scm_conn_timer(struct dapl_timer *t) DAPL_HIDDEN;
/* cm.c, locked, ESTABLISHED: our DREQ now, the QP to ERR first (what is
 * still outstanding flushes); 1 if no answer will come (report
 * DISCONNECTED) */
int scm_send_dreq(struct dapl_tp_cr *conn, struct ibv_qp *qp,
		  int abrupt) DAPL_HIDDEN;

#endif
