/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/cma: the verbs (libibverbs) and connection manager (librdmacm)
 * glue under udapl.  Everything here implements struct dapl_ops or runs
 * one of the two kinds of threads that turn transport events into udapl
 * upcalls:
 *
 *   - one CM thread per IA (cm_event.c) reads the IA's rdma_cm event
 *     channel, drives address/route resolution and connection setup,
 *     enforces DAT connect timeouts and delivers deferred upcalls;
 *   - one async thread per verbs device (async.c) reads
 *     ibv_get_async_event and reports QP, CQ and device errors.
 *
 * Locking: cia->lock guards every connection's state, the EP <-> CM id
 * association (cma_ep.conn, cma_conn.ep, cm_id->qp) and every rdma_cm call
 * on a connection's id.  The CM thread fetches and acknowledges each
 * event inside one cia->lock section and makes its upcalls afterwards,
 * without the lock, from a copy; so a consumer thread may call
 * rdma_destroy_id (which waits for the acknowledgements) at any time as
 * long as it does not hold cia->lock, and an upcall may call back into
 * any op.  Likewise the async thread acknowledges before it upcalls.
 * No cma lock is ever held across an upcall or across rdma_destroy_id,
 * ibv_destroy_qp or ibv_destroy_cq.
 */
#ifndef DAT_PROVIDER_CMA_H
#define DAT_PROVIDER_CMA_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../../udapl/udapl.h"

/* The ops table (init.c). */
extern const struct dapl_ops cma_ops DAPL_HIDDEN;

/*
 * DAPL_CMA_DISABLE=mw,atomic,srq makes the IA behave as if the device had
 * no memory windows, atomics or shared receive queues: ia_query reports
 * them absent and registrations ask for no such access.
 */
enum {
	CMA_NO_MW = 1 << 0,
	CMA_NO_ATOMIC = 1 << 1,
	CMA_NO_SRQ = 1 << 2,
};

/* Private data limit of a connect request on IB/RoCE: the 92 bytes of an
 * IB CM REQ minus the 36-byte rdma_cm header. */
#define CMA_MAX_PDATA_REQ 56

/* The context word of every rdma_cm id we create starts with this tag, so
 * the CM thread tells listeners from connections. */
enum cma_kind { CMA_KIND_SP = 0x5350, CMA_KIND_CONN = 0x434e };

/* One verbs device context (librdmacm's, shared by every IA of the
 * process on that device), with its async thread. */
struct cma_dev {
	struct ibv_context *ctx;
	int refs;
	int stop_fd; /* eventfd: stop the async thread */
	pthread_t thread;
	struct dapl_list ias;  /* cma_ia.dev_link */
	struct dapl_list link; /* in the global device list */
};

struct cma_ia {
	struct dapl_ia *ia;
	struct cma_dev *dev;
	struct ibv_context *ctx;
	uint8_t port;
	unsigned disable;    /* CMA_NO_* */
	uint8_t ack_timeout; /* local ACK timeout exponent of QPs */
	uint8_t retry_count; /* transport retries of QPs (0..7) */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *anchor; /* bound to the IA address: pins ctx */
	pthread_t cm_thread;
	int wake_fd; /* eventfd: wake (and stop) the thread */
	int stopping;
	pid_t pid; /* of the opener: fork safety */
	pthread_mutex_t lock;
	struct dapl_list timers; /* cma_conn.timer_link, with deadlines */
	struct dapl_list notes;	 /* cma_note.link, deferred upcalls */
	/* The EPs the CM and async threads are making an upcall for right
	 * now: qp_destroy waits until its EP is in neither. */
	struct dapl_ep *cm_upcall_ep, *async_upcall_ep;
	/* The service point whose connection request the CM thread hands
	 * to udapl right now: listen_stop waits until it is another. */
	struct dapl_sp *cm_upcall_sp;
	pthread_cond_t upcall_done;
	struct dapl_list dev_link; /* in cma_dev.ias */
	/* srq.c: qp_num -> EP of the EPs on an SRQ (lock-free reads) */
	struct cma_qpn_map *qpn_map;
};

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

/* One connection (active, or passive from a connect request). */
struct cma_conn {
	enum cma_kind kind;    /* CMA_KIND_CONN: first word */
	struct rdma_cm_id *id; /* NULL once destroyed */
	struct cma_ia *cia;
	struct dapl_ep *ep; /* bound EP, NULL while a bare CR */
	enum cma_conn_state state;
	int local_disc; /* our side started the disconnect */
	int resolve_ms;
	uint64_t resolve_end;	     /* address resolution gives up (ns) */
	struct sockaddr_storage dst; /* the peer, to resolve it again */
	uint64_t deadline;	     /* CLOCK_MONOTONIC ns, 0 = none */
	struct dapl_list timer_link;
	uint8_t resp_res;      /* RDMA reads we accept (in) */
	uint8_t init_depth;    /* RDMA reads we issue (out) */
	uint8_t peer_resp_res; /* from the request: peer's limits */
	uint8_t peer_init_depth;
	unsigned char pdata[CMA_MAX_PDATA_REQ]; /* of our connect */
	int plen;
};

/* A listening service point. */
struct cma_sp {
	enum cma_kind kind; /* CMA_KIND_SP: first word */
	struct rdma_cm_id *id;
	struct dapl_sp *sp;
};

/* ep->prov */
struct cma_ep {
	struct ibv_qp *qp;
	struct ibv_cq *dummy_cq; /* for a missing request or recv EVD */
	struct ibv_qp_cap cap;	 /* what the QP was asked for */
	struct cma_conn *conn;	 /* under cia->lock */
};

/* evd->prov */
struct cma_cq {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
};

/* lmr->prov: one registration, possibly shared by several LMRs. */
struct cma_mr {
	struct ibv_mr *mr;
	int refs;
};

/* An upcall queued by a consumer thread for the CM thread to make. */
struct cma_note {
	struct dapl_list link;
	struct dapl_ep *ep;
	enum dapl_cm_event event;
};

static inline struct cma_ia *cma_ia_of(const void *obj)
{
	return ((const struct dapl_obj *)obj)->ia->prov;
}

/* device.c */
DAT_RETURN cma_ia_open(struct dapl_ia *ia, const char *ia_params) DAPL_HIDDEN;
void cma_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;
void cma_ia_query(struct dapl_ia *ia, DAT_IA_ATTR *attr) DAPL_HIDDEN;
unsigned cma_disable_flags(const char *s) DAPL_HIDDEN;

/* async.c */
struct cma_dev *cma_dev_get(struct ibv_context *ctx) DAPL_HIDDEN;
void cma_dev_put(struct cma_dev *dev, struct cma_ia *cia) DAPL_HIDDEN;
void cma_dev_add_ia(struct cma_dev *dev, struct cma_ia *cia) DAPL_HIDDEN;
int cma_thread_start(pthread_t *t, void *(*fn)(void *), void *arg,
		     const char *name) DAPL_HIDDEN;

/* mr.c */
DAT_RETURN cma_pz_create(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN cma_pz_free(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN cma_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv) DAPL_HIDDEN;
DAT_RETURN cma_mr_share(struct dapl_lmr *lmr,
			struct dapl_lmr *orig) DAPL_HIDDEN;
DAT_RETURN cma_mr_deregister(struct dapl_lmr *lmr) DAPL_HIDDEN;

/* mw.c: memory windows (RMRs); cma_post_mw posts DAPL_OP_BIND_MW and
 * DAPL_OP_LOCAL_INV for cma_post_send */
DAT_RETURN cma_mw_alloc(struct dapl_rmr *rmr) DAPL_HIDDEN;
void cma_mw_free(struct dapl_rmr *rmr) DAPL_HIDDEN;
DAT_RETURN cma_post_mw(struct dapl_ep *ep,
		       const struct dapl_post *p) DAPL_HIDDEN;

/* cq.c */
DAT_RETURN cma_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen,
			 int *fd) DAPL_HIDDEN;
DAT_RETURN cma_cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen) DAPL_HIDDEN;
void cma_cq_destroy(struct dapl_evd *evd) DAPL_HIDDEN;
int cma_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe,
		int max) DAPL_HIDDEN;
DAT_RETURN cma_cq_arm(struct dapl_evd *evd, int solicited_only) DAPL_HIDDEN;
void cma_cq_ack(struct dapl_evd *evd) DAPL_HIDDEN;
DAT_DTO_COMPLETION_STATUS cma_wc_status(enum ibv_wc_status st) DAPL_HIDDEN;

/* qp.c */
DAT_RETURN cma_qp_create(struct dapl_ep *ep) DAPL_HIDDEN;
void cma_qp_destroy(struct dapl_ep *ep) DAPL_HIDDEN;
DAT_RETURN cma_qp_reset(struct dapl_ep *ep) DAPL_HIDDEN;
DAT_RETURN cma_qp_modify(struct dapl_ep *ep,
			 const DAT_EP_ATTR *attr) DAPL_HIDDEN;
void cma_qp_to_error(struct ibv_qp *qp) DAPL_HIDDEN;

/* post.c */
DAT_RETURN cma_post_send(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;
DAT_RETURN cma_post_recv(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;

/* cm.c: the CM ops */
DAT_RETURN cma_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual) DAPL_HIDDEN;
void cma_listen_stop(struct dapl_sp *sp) DAPL_HIDDEN;
DAT_RETURN cma_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN cma_accept(struct dapl_cr *cr, struct dapl_ep *ep, const void *pdata,
		      DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN cma_reject(struct dapl_cr *cr) DAPL_HIDDEN;
void cma_cr_destroy(struct dapl_cr *cr) DAPL_HIDDEN;
DAT_RETURN cma_disconnect(struct dapl_ep *ep, int abrupt) DAPL_HIDDEN;
/* Detaches and destroys the EP's connection (qp_destroy, qp_reset). */
void cma_conn_drop(struct cma_ia *cia, struct cma_ep *cep) DAPL_HIDDEN;
/* locked: (re)starts one step of an active connection's address
 * resolution; 0, or -1 with errno when the budget is spent or it failed */
int cma_resolve_addr_step(struct cma_conn *conn) DAPL_HIDDEN;

/* cm_event.c: the CM thread and its helpers (callers hold cia->lock
 * where marked "locked") */
int cma_cm_start(struct cma_ia *cia) DAPL_HIDDEN;
void cma_cm_stop(struct cma_ia *cia) DAPL_HIDDEN;
void cma_cm_wake(struct cma_ia *cia) DAPL_HIDDEN;
uint64_t cma_now_ns(void) DAPL_HIDDEN;
/* locked: (re)arms or clears a connection's deadline */
void cma_timer_set(struct cma_conn *conn, uint64_t deadline) DAPL_HIDDEN;
/* locked: queues an upcall for the CM thread; 0 or -1 (no memory) */
int cma_note_post(struct cma_ia *cia, struct dapl_ep *ep,
		  enum dapl_cm_event event) DAPL_HIDDEN;
/* locked: forgets queued upcalls for an EP that goes away */
void cma_note_forget(struct cma_ia *cia, struct dapl_ep *ep) DAPL_HIDDEN;
/* locked: waits (bounded) until no upcall for ep is running */
void cma_upcall_wait(struct cma_ia *cia, struct dapl_ep *ep) DAPL_HIDDEN;
/* locked: the same for a connection-request upcall of sp */
void cma_request_upcall_wait(struct cma_ia *cia, const struct dapl_sp *sp)
    DAPL_HIDDEN;
/* takes the lock: an upcall through *slot has returned */
void cma_upcall_end(struct cma_ia *cia, struct dapl_ep **slot) DAPL_HIDDEN;

/* srq.c */
DAT_RETURN cma_srq_create(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN cma_srq_modify(struct dapl_srq *srq, DAT_COUNT max_wr,
			  DAT_COUNT limit) DAPL_HIDDEN;
void cma_srq_destroy(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN cma_srq_post_recv(struct dapl_srq *srq,
			     const struct dapl_post *p) DAPL_HIDDEN;
int cma_qpn_add(struct cma_ia *cia, uint32_t qpn,
		struct dapl_ep *ep) DAPL_HIDDEN;
void cma_qpn_del(struct cma_ia *cia, uint32_t qpn) DAPL_HIDDEN;
struct dapl_ep *cma_qpn_lookup(struct cma_ia *cia, uint32_t qpn) DAPL_HIDDEN;
void cma_qpn_map_free(struct cma_ia *cia) DAPL_HIDDEN;

/* Small shared helpers */
DAT_RETURN cma_errno_to_dat(int err, DAT_RETURN resource) DAPL_HIDDEN;
socklen_t cma_addr_len(const struct sockaddr *sa) DAPL_HIDDEN;

#endif
