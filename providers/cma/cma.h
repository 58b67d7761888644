/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/cma: the rdma_cm (librdmacm) connection manager of the verbs
 * provider libdaplcma.so.1; everything else verbs comes from
 * providers/verbs (libdapl-verbs.a).  Here: ia_params -> the IA's address
 * and device (ia.c), address and route resolution, listen, connect,
 * accept, reject and disconnect (cm.c), and the callback of udapl's
 * progress engine for the IA's rdma_cm event channel (cm_event.c); the
 * DAT connect timeout and a graceful disconnect's bound are engine
 * timers in the connection.  No thread of our own.
 *
 * Locking: cia->lock guards every connection's state, the EP <-> CM id
 * association (dapl_tp_ep.conn, dapl_tp_cr.ep, cm_id->qp) and every
 * rdma_cm call on a connection's id.  The CM callback fetches and
 * acknowledges each event inside one cia->lock section, opens the upcall
 * bracket there (dapl_upcall_begin: the object is still ours under the
 * lock) and makes the upcall afterwards, without the lock, from a copy;
 * so a consumer thread may call rdma_destroy_id (which waits for the
 * acknowledgements) at any time as long as it does not hold cia->lock,
 * and an upcall may call back into any op.  Likewise the async callback
 * acknowledges before it upcalls.  No cma lock is ever held across an
 * upcall or across rdma_destroy_id, ibv_destroy_qp or ibv_destroy_cq.
 * Nothing here waits for an upcall: udapl does (dapl_progress_quiesce)
 * after qp_destroy and listen_stop returned.
 */
#ifndef DAT_PROVIDER_CMA_H
#define DAT_PROVIDER_CMA_H

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include "../verbs/verbs.h"

/* The ops table (init.c). */
extern const struct dapl_ops cma_ops DAPL_HIDDEN;
/* cm.c: the hooks the verbs glue calls (verbs.h), given at IA open */
extern const struct verbs_cm_ops cma_cm_ops DAPL_HIDDEN;

/* Private data limit of a connect request on IB/RoCE: the 92 bytes of an
 * IB CM REQ minus the 36-byte rdma_cm header. */
#define CMA_MAX_PDATA_REQ 56

/*
 * DAT connection qualifiers are 64 bits, rdma_cm ports 16: a qualifier
 * listens on the port verbs_qual_port() folds it to, and every connect
 * request starts with this header (before the consumer's private data,
 * big-endian) naming the full qualifier, so that a listener takes only
 * requests for its own qualifier and several service points of an IA
 * whose qualifiers fold to one port share one rdma_cm listener
 * (demultiplexed by the header).  Not OFA dapl's wire format: no wire
 * compatibility with OFA dapl peers (README).
 */
#define CMA_HDR_MAGIC 0x44515431u	/* "DQT1" */
#define CMA_HDR_LEN 16			/* magic, plen, reserved, qualifier */
/* What a consumer may send in a connect request (and, for one limit,
 * in an accept): dat_ia_query's max_private_data_size. */
#define CMA_MAX_PDATA (CMA_MAX_PDATA_REQ - CMA_HDR_LEN)
/* A reject's private data when no service point has the qualifier, or
 * when the provider refuses a request on its own (its PSP being freed,
 * its CR EVD full): the active side reports NON_PEER_REJECTED, not
 * PEER_REJECTED, which only a consumer's dat_cr_reject makes.
 * dat_psp_free(3DAT): such requests "are automatically rejected by the
 * Provider with the return analogous to the no listening Service
 * Point". */
#define CMA_REJ_NO_QUAL 1u
/* A consumer's dat_cr_reject says so in its reject: PEER_REJECTED at the
 * active side only then.  A request the kernel rejects for us (its
 * rdma_cm id destroyed before we fetched it: a PSP freed as the request
 * came, a process that died) has the IB CM's "consumer defined" status
 * too (28), but not this header, and is NON_PEER_REJECTED. */
#define CMA_REJ_CONSUMER 2u
#define CMA_REJ_LEN 8			/* magic, reason */

/* Rejects a request with our reject header (reason CMA_REJ_*). */
static inline void cma_reject(struct rdma_cm_id *id, uint32_t reason)
{
	uint32_t rej[2] = {htonl(CMA_HDR_MAGIC), htonl(reason)};

	rdma_reject(id, rej, CMA_REJ_LEN);
}

/* The context word of every rdma_cm id we create starts with this tag, so
 * the CM callback tells listeners from connections. */
enum cma_kind { CMA_KIND_SP = 0x5350, CMA_KIND_CONN = 0x434e };

/* The CM's part of a verbs IA (dapl_tp_ia.cm). */
struct verbs_cm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *anchor; /* bound to the IA address: pins ctx */
	uint8_t ack_timeout;	   /* local ACK timeout exponent of QPs */
	uint8_t retry_count;	   /* transport retries of QPs (0..7) */
	uint8_t rnr_retry;	   /* RNR retries asked of the peer (0..7) */
	int rnr_timer;		   /* min_rnr_timer of our QPs, -1: rdma_cm's */
	uint8_t tos;		   /* DAPL_CM_TOS: the IP type of service a
				    * connect asks rdma_cm for, 0: none */
	/* address and route resolution (OFA's DAPL_CM_*): per try in ms and
	 * tries after the first; arp_ms/route_ms 0: our own bounds */
	int arp_ms, arp_retries;
	int route_ms, route_retries;
	/* what a connection's timer calls (cm_event.c's cma_conn_timer,
	 * set by ia.c at open: cm.c, below the event handler, arms it) */
	void (*conn_timer)(struct dapl_timer *t);
};

/* ia.c: the tuning variables, read once per process (DAPL_CMA_* and
 * OFA dapl's DAPL_* names; see dat_cma(7) / README) */
void cma_tunables(struct verbs_cm *cm) DAPL_HIDDEN;

enum cma_conn_state {
	CMA_CONN_ADDR,	     /* active: resolving the address */
	CMA_CONN_ROUTE,	     /* active: resolving the route */
	CMA_CONN_CONNECTING, /* active: REQ sent */
	CMA_CONN_REQUEST,    /* passive: CR not yet answered */
	CMA_CONN_ACCEPTING,  /* passive: accepted, waiting for RTU */
	CMA_CONN_ESTABLISHED,
	CMA_CONN_DISCONNECTING, /* we asked for the disconnect */
	CMA_CONN_CLOSED,	/* its terminal event was reported */
};

/*
 * One connection, active or passive.  A passive one is born as a CR's
 * transport part (dapl_cr_tp) and moves to the EP that accepts it, so
 * the type is named for the CR.
 */
struct dapl_tp_cr {
	enum cma_kind kind;    /* CMA_KIND_CONN: first word */
	struct rdma_cm_id *id; /* NULL once destroyed */
	struct dapl_tp_ia *cia;
	struct dapl_ep *ep; /* bound EP, NULL while a bare CR */
	enum cma_conn_state state;
	int local_disc; /* our side started the disconnect */
	int sq_drain;	/* ESTABLISHED: a graceful disconnect waits for the
			 * send queue (SQD) before its DREQ (cm.c) */
	int resolve_ms;		     /* address resolution's budget */
	uint64_t resolve_end;	     /* address resolution gives up (ns) */
	int route_ms;		     /* per route resolution try */
	int route_left;		     /* route tries left after this one */
	struct sockaddr_storage dst; /* the peer, to resolve it again */
	struct dapl_timer timer;     /* DAT connect timeout, DREQ bound */
	uint8_t resp_res;	     /* RDMA reads we accept (in) */
	uint8_t init_depth;	     /* RDMA reads we issue (out) */
	uint8_t peer_resp_res;	     /* from the request: peer's limits */
	uint8_t peer_init_depth;
	unsigned char pdata[CMA_MAX_PDATA_REQ]; /* of our connect */
	int plen;
};

/* One rdma_cm listener: a port, shared by the service points of the IA
 * whose qualifiers fold to it (the context of the listening id; the
 * service points: providers/verbs/listen.c). */
struct cma_port {
	enum cma_kind kind; /* CMA_KIND_SP: first word */
	struct rdma_cm_id *id;
	struct verbs_port vp; /* in cia->ports, under cia->lock */
};

/* ia.c */
DAT_RETURN cma_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps) DAPL_HIDDEN;
void cma_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;

/* cm.c: the CM ops */
DAT_RETURN cma_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN cma_accept(struct dapl_cr *cr, struct dapl_ep *ep, const void *pdata,
		      DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN cma_disconnect(struct dapl_ep *ep, int abrupt) DAPL_HIDDEN;
/* Frees a connection nobody else can reach any more (not locked). */
void cma_conn_free(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* locked: (re)starts one step of an active connection's address
 * resolution; 0, or -1 with errno when the budget is spent or it failed */
int cma_resolve_addr_step(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* locked: DAPL_RNR_TIMER, if set, into an established connection's QP
 * (rdma_cm's IB CM always sets 0 when it moves the QP to RTR) */
void cma_set_rnr_timer(struct dapl_tp_cr *conn) DAPL_HIDDEN;

/* locked: (re)arms a connection's timer, or cancels it (deadline 0) */
void cma_timer_set(struct dapl_tp_cr *conn, uint64_t deadline) DAPL_HIDDEN;
/* a new connection's timer (its callback: cm->conn_timer) */
void cma_timer_init(struct dapl_tp_cr *conn) DAPL_HIDDEN;

/* cm_event.c: the engine's callback for the IA's rdma_cm channel (arg:
 * the IA), and what a connection's timer calls */
int cma_cm_event(void *arg) DAPL_HIDDEN;
void cma_conn_timer(struct dapl_timer *t) DAPL_HIDDEN;
/* cm.c, locked, ESTABLISHED: our DREQ now (the QP to ERR: what is still
 * outstanding flushes); 1 if no answer will come (report DISCONNECTED) */
int cma_send_dreq(struct dapl_tp_cr *conn, int abrupt) DAPL_HIDDEN;

#endif
