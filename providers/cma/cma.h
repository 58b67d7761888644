/*
 * providers/cma: the verbs (libibverbs) and connection manager (librdmacm)
 * glue under udapl.  Everything here implements struct dapl_ops
 * (udapl/transport.h) or is a callback of udapl's progress engine, which
 * turns transport events into udapl upcalls:
 *
 *   - the IA's rdma_cm event channel (cm_event.c: address/route
 *     resolution, connection setup, and the upcalls of each event); the
 *     DAT connect timeout and a graceful disconnect's bound are engine
 *     timers in the connection;
 *   - the verbs device's async fd (async.c): QP, CQ, SRQ and device
 *     errors.  librdmacm shares one device context between the IAs of a
 *     process, so each IA's engine watches the (non-blocking) fd and
 *     whichever reads an event reports it.
 * No thread of our own: the engine's is the one that waits.
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

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "../../udapl/transport.h"

/* The ops table (init.c). */
extern const struct dapl_ops cma_ops DAPL_HIDDEN;

/*
 * DAPL_CMA_DISABLE=mw,atomic,srq makes the IA behave as if the device had
 * no memory windows, atomics or shared receive queues: the capability
 * record (device.c) reports them absent and registrations ask for no
 * such access.
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
 * process on that device); its async fd is non-blocking and watched by
 * the engine of each IA on it. */
struct cma_dev {
	struct ibv_context *ctx;
	int refs;
	struct dapl_list ias;  /* dapl_tp_ia.dev_link */
	struct dapl_list link; /* in the global device list */
};

/* The IA (dapl_ia_tp). */
struct dapl_tp_ia {
	struct dapl_ia *ia;
	struct cma_dev *dev;
	struct ibv_context *ctx;
	uint8_t port;
	unsigned disable;    /* CMA_NO_* */
	int atomics;	     /* the device does IB atomics, not disabled */
	uint8_t ack_timeout; /* local ACK timeout exponent of QPs */
	uint8_t retry_count; /* transport retries of QPs (0..7) */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *anchor; /* bound to the IA address: pins ctx */
	pid_t pid;		   /* of the opener: fork safety */
	pthread_mutex_t lock;
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
	int resolve_ms;
	uint64_t resolve_end;	     /* address resolution gives up (ns) */
	struct sockaddr_storage dst; /* the peer, to resolve it again */
	struct dapl_timer timer;     /* DAT connect timeout, DREQ bound */
	uint8_t resp_res;	     /* RDMA reads we accept (in) */
	uint8_t init_depth;	     /* RDMA reads we issue (out) */
	uint8_t peer_resp_res;	     /* from the request: peer's limits */
	uint8_t peer_init_depth;
	unsigned char pdata[CMA_MAX_PDATA_REQ]; /* of our connect */
	int plen;
};

/* A listening service point (dapl_sp_tp). */
struct dapl_tp_sp {
	enum cma_kind kind; /* CMA_KIND_SP: first word */
	struct rdma_cm_id *id;
	struct dapl_sp *sp; /* NULL once listen_stop began */
};

/* dapl_ep_tp */
struct dapl_tp_ep {
	struct ibv_qp *qp;
	struct ibv_cq *dummy_cq;   /* for a missing request or recv EVD */
	struct ibv_qp_cap cap;	   /* what the QP was asked for */
	struct dapl_tp_cr *conn;   /* under cia->lock */
};

/* dapl_evd_tp */
struct dapl_tp_evd {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
};

/* dapl_lmr_tp: one registration, possibly shared by several LMRs. */
struct dapl_tp_lmr {
	struct ibv_mr *mr;
	int refs;
};

struct dapl_tp_pz {
	struct ibv_pd *pd;
};

struct dapl_tp_rmr {
	struct ibv_mw *mw;
};

struct dapl_tp_srq {
	struct ibv_srq *srq;
};

/* The verbs object of a udapl object, or NULL. */
static inline struct ibv_pd *cma_pd(const struct dapl_pz *pz)
{
	const struct dapl_tp_pz *t = pz ? dapl_pz_tp(pz) : NULL;

	return t ? t->pd : NULL;
}

static inline struct ibv_srq *cma_srq(const struct dapl_srq *srq)
{
	const struct dapl_tp_srq *t = srq ? dapl_srq_tp(srq) : NULL;

	return t ? t->srq : NULL;
}

static inline struct ibv_mw *cma_mw(const struct dapl_rmr *rmr)
{
	const struct dapl_tp_rmr *t = rmr ? dapl_rmr_tp(rmr) : NULL;

	return t ? t->mw : NULL;
}

/* device.c */
DAT_RETURN cma_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps) DAPL_HIDDEN;
void cma_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;
unsigned cma_disable_flags(const char *s) DAPL_HIDDEN;

/* async.c */
struct cma_dev *cma_dev_get(struct ibv_context *ctx) DAPL_HIDDEN;
void cma_dev_put(struct cma_dev *dev, struct dapl_tp_ia *cia) DAPL_HIDDEN;
void cma_dev_add_ia(struct cma_dev *dev, struct dapl_tp_ia *cia) DAPL_HIDDEN;
/* the engine's callback for the device's async fd (arg: the cma_dev) */
int cma_async_event(void *arg) DAPL_HIDDEN;

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
/* the window type mw_alloc makes (DAPL_MW_TYPE_*) */
uint32_t cma_mw_types(const struct dapl_tp_ia *cia) DAPL_HIDDEN;
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
/* the most inline data a QP is asked for */
uint32_t cma_max_inline(void) DAPL_HIDDEN;
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
void cma_conn_drop(struct dapl_tp_ia *cia, struct dapl_tp_ep *cep) DAPL_HIDDEN;
/* Frees a connection nobody else can reach any more (not locked). */
void cma_conn_free(struct dapl_tp_cr *conn) DAPL_HIDDEN;
/* locked: (re)starts one step of an active connection's address
 * resolution; 0, or -1 with errno when the budget is spent or it failed */
int cma_resolve_addr_step(struct dapl_tp_cr *conn) DAPL_HIDDEN;

/* cm_event.c: the engine's callback for the IA's rdma_cm channel (arg:
 * the IA), and connection timers (callers hold cia->lock where marked
 * "locked") */
int cma_cm_event(void *arg) DAPL_HIDDEN;
/* locked: (re)arms a connection's timer, or cancels it (deadline 0) */
void cma_timer_set(struct dapl_tp_cr *conn, uint64_t deadline) DAPL_HIDDEN;
/* a new connection's timer */
void cma_timer_init(struct dapl_tp_cr *conn) DAPL_HIDDEN;

/* srq.c */
DAT_RETURN cma_srq_create(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN cma_srq_modify(struct dapl_srq *srq, DAT_COUNT max_wr,
			  DAT_COUNT limit) DAPL_HIDDEN;
void cma_srq_destroy(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN cma_srq_post_recv(struct dapl_srq *srq,
			     const struct dapl_post *p) DAPL_HIDDEN;
int cma_qpn_add(struct dapl_tp_ia *cia, uint32_t qpn,
		struct dapl_ep *ep) DAPL_HIDDEN;
void cma_qpn_del(struct dapl_tp_ia *cia, uint32_t qpn) DAPL_HIDDEN;
struct dapl_ep *cma_qpn_lookup(struct dapl_tp_ia *cia, uint32_t qpn) DAPL_HIDDEN;
void cma_qpn_map_free(struct dapl_tp_ia *cia) DAPL_HIDDEN;

/* Small shared helpers */
DAT_RETURN cma_errno_to_dat(int err, DAT_RETURN resource) DAPL_HIDDEN;
socklen_t cma_addr_len(const struct sockaddr *sa) DAPL_HIDDEN;

#endif
