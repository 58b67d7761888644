/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/verbs: everything a verbs provider needs that is not
 * connection management: the device (open, limits, capability record),
 * PD, MR, MW, CQ and completion channel, QP, SRQ, posting, atomics and
 * async events.  Built once (libdapl-verbs.a) and linked into each verbs
 * provider, whose connection manager (providers/cma: rdma_cm) supplies
 * the IA's device context and the verbs_cm_* hooks below.
 *
 * The objects' transport parts (udapl/transport.h's typed pointers) are
 * defined here for every verbs provider, except struct dapl_tp_cr (the
 * connection), which is the CM's.
 *
 * Threads and locks: none of our own.  The async callback runs on an
 * IA's progress engine (async.c); cia->lock is shared with the CM.  The
 * hot path (post.c, verbs_cq_poll, verbs_srq_post_recv) takes no lock.
 */
#ifndef DAT_PROVIDER_VERBS_H
#define DAT_PROVIDER_VERBS_H

#include <infiniband/verbs.h>

#include "../../udapl/transport.h"

/* DAPL_CMA_DISABLE=mw,atomic,srq (device.c) */
enum {
	VERBS_NO_MW = 1 << 0,
	VERBS_NO_ATOMIC = 1 << 1,
	VERBS_NO_SRQ = 1 << 2,
};

/* What the connection manager keeps per IA (defined by it). */
struct verbs_cm;

/* One verbs device context (librdmacm's, shared by every IA of the
 * process on that device); its async fd is non-blocking and watched by
 * the engine of each IA on it. */
struct verbs_dev {
	struct ibv_context *ctx;
	int refs;
	struct dapl_list ias;  /* dapl_tp_ia.dev_link */
	struct dapl_list link; /* in the global device list */
};

/* The IA (dapl_ia_tp). */
struct dapl_tp_ia {
	struct dapl_ia *ia;
	struct verbs_dev *dev;
	struct ibv_context *ctx;
	uint8_t port;
	unsigned disable;    /* VERBS_NO_* */
	int atomics;	     /* the device does IB atomics, not disabled */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct verbs_cm *cm;	   /* the connection manager's part */
	/* listen.c: the CM's listeners (verbs_port.link), under lock */
	struct dapl_list ports;
	const struct verbs_cm_ops *cm_ops; /* and its hooks (verbs_ia_open) */
	pid_t pid;		   /* of the opener: fork safety */
	/* guards the EP <-> connection association (dapl_tp_ep.conn) and
	 * the connections' state for the CM, the EP's liveness for async
	 * events (qp_destroy clears dapl_ep_tp), and qpn_map writes */
	pthread_mutex_t lock;
	struct dapl_list dev_link; /* in verbs_dev.ias */
	/* srq.c: qp_num -> EP of the EPs on an SRQ (lock-free reads) */
	struct verbs_qpn_map *qpn_map;
	/* mw.c: the type 2 windows of the IA (dapl_tp_rmr.link) and the QP
	 * each was bound through; taken before ia->lock */
	pthread_mutex_t mw_lock;
	struct dapl_list mws;
};

/* dapl_ep_tp */
struct dapl_tp_ep {
	struct ibv_qp *qp;
	struct ibv_cq *dummy_cq;   /* for a missing request or recv EVD */
	struct ibv_qp_cap cap;	   /* what the QP was asked for */
	struct dapl_tp_cr *conn;   /* under cia->lock */
	/* post.c's one-segment posts: work requests built once (at
	 * qp_create), of which a post fills only the wr_id, the segment
	 * and a send's flags; used under the poster's exclusion (ep->lock,
	 * or the consumer's own with DAPL_NONTHREADSAFE_NOLOCK) */
	struct ibv_send_wr send1;
	struct ibv_sge send1_sge;
	struct ibv_recv_wr recv1;
	struct ibv_sge recv1_sge;
	/* the one-sided ones (RDMA write, read, atomics) share one: a
	 * post sets its opcode and remote side too */
	struct ibv_send_wr req1;
	struct ibv_sge req1_sge;
	/* where the device library names a refused work request: here,
	 * not on the stack, so that a one-segment post ends in a tail
	 * call into ibv_post_send/ibv_post_recv (nobody reads them) */
	struct ibv_send_wr *bad_send;
	struct ibv_recv_wr *bad_recv;
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
	struct ibv_mw *mw;	   /* under cia->mw_lock for type 2 */
	/* type 2: the QP the last bind was posted through, which the
	 * device ties the window to; under cia->mw_lock */
	struct ibv_qp *qp;
	struct dapl_rmr *rmr;
	struct dapl_list link;	   /* in cia->mws (type 2) */
};

struct dapl_tp_srq {
	struct ibv_srq *srq;
};

/* The verbs object of a udapl object, or NULL. */
static inline struct ibv_pd *verbs_pd(const struct dapl_pz *pz)
{
	const struct dapl_tp_pz *t = pz ? dapl_pz_tp(pz) : NULL;

	return t ? t->pd : NULL;
}

static inline struct ibv_srq *verbs_srq(const struct dapl_srq *srq)
{
	const struct dapl_tp_srq *t = srq ? dapl_srq_tp(srq) : NULL;

	return t ? t->srq : NULL;
}

static inline struct ibv_mw *verbs_mw(const struct dapl_rmr *rmr)
{
	const struct dapl_tp_rmr *t = rmr ? dapl_rmr_tp(rmr) : NULL;

	return t ? t->mw : NULL;
}

/*
 * The ops every verbs provider takes as they are, for its struct
 * dapl_ops initializer; the provider adds ia_open/ia_close and the CM ops.
 */
#define VERBS_DAPL_OPS                                                         \
	.pz_create = verbs_pz_create, .pz_free = verbs_pz_free,                \
	.mr_register = verbs_mr_register, .mr_share = verbs_mr_share,          \
	.mr_deregister = verbs_mr_deregister, .mw_alloc = verbs_mw_alloc,      \
	.mw_free = verbs_mw_free, .cq_create = verbs_cq_create,                \
	.cq_resize = verbs_cq_resize, .cq_destroy = verbs_cq_destroy,          \
	.cq_poll = verbs_cq_poll, .cq_direct_cqe = verbs_cq_direct_cqe,        \
	.cq_arm = verbs_cq_arm,                                                \
	.cq_ack = verbs_cq_ack, .qp_create = verbs_qp_create,                  \
	.qp_destroy = verbs_qp_destroy, .qp_reset = verbs_qp_reset,            \
	.qp_modify = verbs_qp_modify, .post_send = verbs_post_send,            \
	.post_recv = verbs_post_recv, .post_send1 = verbs_post_send1,          \
	.post_recv1 = verbs_post_recv1, .post_write1 = verbs_post_write1,      \
	.post_read1 = verbs_post_read1, .post_atomic1 = verbs_post_atomic1,    \
	.srq_create = verbs_srq_create,                                        \
	.srq_modify = verbs_srq_modify, .srq_destroy = verbs_srq_destroy,      \
	.srq_post_recv = verbs_srq_post_recv, .listen = verbs_listen,          \
	.listen_stop = verbs_listen_stop, .reject = verbs_reject,              \
	.cr_destroy = verbs_cr_destroy

/* device.c: the verbs part of an IA on ctx/port: queries the device,
 * fills *caps (all but max_private_data, the CM's), sets the IA's
 * transport data, keeps the CM's hooks (cm_ops, before any event can
 * call them) and has the engine watch the device's async fd.
 * verbs_ia_close undoes it (nothing in a forked child). */
struct verbs_cm_ops;
DAT_RETURN verbs_ia_open(struct dapl_ia *ia, struct ibv_context *ctx,
			 uint8_t port, const struct verbs_cm_ops *cm_ops,
			 struct dapl_caps *caps) DAPL_HIDDEN;
void verbs_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;
int verbs_ia_forked(const struct dapl_tp_ia *cia) DAPL_HIDDEN;
/* First thing in a CM's ia_open, before any rdma-core call: in a child
 * forked from a process that opened an IA of this provider,
 * DAT_INVALID_STATE and a message naming cm; else DAT_SUCCESS. */
DAT_RETURN verbs_fork_guard(const char *cm) DAPL_HIDDEN;

/* async.c */
struct verbs_dev *verbs_dev_get(struct ibv_context *ctx) DAPL_HIDDEN;
void verbs_dev_put(struct verbs_dev *dev, struct dapl_tp_ia *cia) DAPL_HIDDEN;
void verbs_dev_add_ia(struct verbs_dev *dev, struct dapl_tp_ia *cia) DAPL_HIDDEN;
/* the engine's callback for the device's async fd (arg: the verbs_dev) */
int verbs_async_event(void *arg) DAPL_HIDDEN;

/* mr.c */
DAT_RETURN verbs_pz_create(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN verbs_pz_free(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN verbs_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv) DAPL_HIDDEN;
DAT_RETURN verbs_mr_share(struct dapl_lmr *lmr,
			struct dapl_lmr *orig) DAPL_HIDDEN;
DAT_RETURN verbs_mr_deregister(struct dapl_lmr *lmr) DAPL_HIDDEN;

/* mw.c: memory windows (RMRs); verbs_post_mw posts DAPL_OP_BIND_MW and
 * DAPL_OP_LOCAL_INV for verbs_post_send */
DAT_RETURN verbs_mw_alloc(struct dapl_rmr *rmr) DAPL_HIDDEN;
/* the window type mw_alloc makes (DAPL_MW_TYPE_*) */
uint32_t verbs_mw_types(const struct dapl_tp_ia *cia) DAPL_HIDDEN;
void verbs_mw_free(struct dapl_rmr *rmr) DAPL_HIDDEN;
DAT_RETURN verbs_post_mw(struct dapl_ep *ep,
		       const struct dapl_post *p) DAPL_HIDDEN;
/* Before qp goes: the type 2 windows bound through it are replaced by
 * fresh ones, unbound (qp.c) */
void verbs_mw_qp_gone(struct dapl_tp_ia *cia, struct ibv_qp *qp) DAPL_HIDDEN;

/* cq.c */
DAT_RETURN verbs_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen,
			 int *fd) DAPL_HIDDEN;
DAT_RETURN verbs_cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen) DAPL_HIDDEN;
void verbs_cq_destroy(struct dapl_evd *evd) DAPL_HIDDEN;
int verbs_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe,
		int max) DAPL_HIDDEN;
void verbs_cq_direct_cqe(struct dapl_evd *evd, const void *rec,
			 struct dapl_cqe *cqe) DAPL_HIDDEN;
DAT_RETURN verbs_cq_arm(struct dapl_evd *evd, int solicited_only) DAPL_HIDDEN;
void verbs_cq_ack(struct dapl_evd *evd) DAPL_HIDDEN;
DAT_DTO_COMPLETION_STATUS verbs_wc_status(enum ibv_wc_status st) DAPL_HIDDEN;

/* env.c: a tuning variable: def unless it is a whole number in [lo, hi]
 * (then *set, if given, is 1); a bad value gets one warning on stderr */
long verbs_env_long(const char *name, long lo, long hi, long def,
		    int *set) DAPL_HIDDEN;

/* qp.c */
DAT_RETURN verbs_qp_create(struct dapl_ep *ep) DAPL_HIDDEN;
/* the most inline data a QP is asked for */
uint32_t verbs_max_inline(void) DAPL_HIDDEN;
void verbs_qp_destroy(struct dapl_ep *ep) DAPL_HIDDEN;
DAT_RETURN verbs_qp_reset(struct dapl_ep *ep) DAPL_HIDDEN;
DAT_RETURN verbs_qp_modify(struct dapl_ep *ep,
			 const DAT_EP_ATTR *attr) DAPL_HIDDEN;
void verbs_qp_to_error(struct ibv_qp *qp) DAPL_HIDDEN;
/* RTS -> SQD, IBV_EVENT_SQ_DRAINED once the send queue is empty (a
 * graceful disconnect); 0, or -1 if the device refused */
int verbs_qp_drain_sq(struct ibv_qp *qp) DAPL_HIDDEN;
/* whether the QP is in ERR (a failed completion put it there) */
int verbs_qp_failed(struct ibv_qp *qp) DAPL_HIDDEN;

/* post.c */
DAT_RETURN verbs_post_send(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;
DAT_RETURN verbs_post_recv(struct dapl_ep *ep,
			 const struct dapl_post *p) DAPL_HIDDEN;
/* the one-segment posts (they answer an errno: udapl/transport.h) */
dapl_post_send1_fn verbs_post_send1 DAPL_HIDDEN;
dapl_post_recv1_fn verbs_post_recv1 DAPL_HIDDEN;
dapl_post_rdma1_fn verbs_post_write1 DAPL_HIDDEN;
dapl_post_rdma1_fn verbs_post_read1 DAPL_HIDDEN;
dapl_post_atomic1_fn verbs_post_atomic1 DAPL_HIDDEN;
/* the templates of verbs_post_send1/recv1/write1/read1/atomic1 in a
 * new cep */
void verbs_post_init(struct dapl_tp_ep *cep) DAPL_HIDDEN;

/* srq.c */
DAT_RETURN verbs_srq_create(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN verbs_srq_modify(struct dapl_srq *srq, DAT_COUNT max_wr,
			  DAT_COUNT limit) DAPL_HIDDEN;
void verbs_srq_destroy(struct dapl_srq *srq) DAPL_HIDDEN;
DAT_RETURN verbs_srq_post_recv(struct dapl_srq *srq,
			     const struct dapl_post *p) DAPL_HIDDEN;
int verbs_qpn_add(struct dapl_tp_ia *cia, uint32_t qpn,
		struct dapl_ep *ep) DAPL_HIDDEN;
void verbs_qpn_del(struct dapl_tp_ia *cia, uint32_t qpn) DAPL_HIDDEN;
struct dapl_ep *verbs_qpn_lookup(struct dapl_tp_ia *cia, uint32_t qpn) DAPL_HIDDEN;
void verbs_qpn_map_free(struct dapl_tp_ia *cia) DAPL_HIDDEN;

/* errno of a failed verbs or rdma_cm call -> DAT_RETURN; resource is the
 * DAT_INSUFFICIENT_RESOURCES subtype to use when the device ran out. */
DAT_RETURN verbs_errno_to_dat(int err, DAT_RETURN resource) DAPL_HIDDEN;

/*
 * listen.c: the service points of an IA on its CM's listeners (one per
 * port; a qualifier folds to a port, the CM's request names the full
 * qualifier), the ops listen and listen_stop of every verbs provider.
 * A CM's listener embeds a struct verbs_port; the CM opens and closes
 * listeners (verbs_cm_ops port_open, port_close).
 */
struct verbs_port {
	uint16_t port;
	struct dapl_list sps;	/* dapl_tp_sp.link, under cia->lock */
	struct dapl_list link;	/* in the CM's list of listeners */
};

/* A listening service point (dapl_sp_tp). */
struct dapl_tp_sp {
	DAT_CONN_QUAL qual;	/* the full qualifier */
	struct verbs_port *port;
	struct dapl_sp *sp;
	struct dapl_list link;	/* in port->sps while it listens */
};

uint16_t verbs_qual_port(DAT_CONN_QUAL qual) DAPL_HIDDEN;
/* locked: the listener on port, or NULL */
struct verbs_port *verbs_port_find(struct dapl_list *ports,
				   uint16_t port) DAPL_HIDDEN;
/* locked: the service point of p with the full qualifier, or NULL */
struct dapl_tp_sp *verbs_port_sp(struct verbs_port *p,
				 DAT_CONN_QUAL qual) DAPL_HIDDEN;
DAT_RETURN verbs_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual) DAPL_HIDDEN;
/* synchronous: the qualifier is free again on return */
void verbs_listen_stop(struct dapl_sp *sp) DAPL_HIDDEN;

/*
 * What the glue needs of the provider's connection manager, as a table
 * the CM hands verbs_ia_open (cma: providers/cma/cm.c cma_cm_ops; scm:
 * providers/scm/cm.c scm_cm_ops), so that this folder names no function
 * a CM defines: a second CM is a second table.  drop, comm_est and
 * sq_drained are called without cia->lock, live and end_broken under it
 * (conn.c), port_open and port_close by listen.c without it.
 */
struct verbs_cm_ops {
	/* Detaches and destroys the EP's connection, if any (qp_destroy,
	 * qp_reset, qp_modify). */
	void (*drop)(struct dapl_ep *ep);
	/* True while the connection is being set up or up. */
	int (*live)(const struct dapl_tp_cr *conn);
	/* An established connection ends here as BROKEN: the CM tells the
	 * peer if it can still hear it and ignores what the CM says later
	 * about it; 1 if it was established (the glue then has udapl
	 * report BROKEN), 0 if it was not (nothing happens). */
	int (*end_broken)(struct dapl_tp_cr *conn);
	/* IBV_EVENT_COMM_EST: a receive came before the connection's RTU. */
	void (*comm_est)(struct dapl_ep *ep);
	/* IBV_EVENT_SQ_DRAINED: the send queue of a QP a graceful
	 * disconnect moved to SQD (verbs_qp_drain_sq) is empty; not
	 * locked, the QP alive. */
	void (*sq_drained)(struct dapl_ep *ep);
	/* A new listener on port (0: any), its verbs_port's port number
	 * set, in no list yet; not locked.  DAT_CONN_QUAL_IN_USE if the
	 * port is taken. */
	DAT_RETURN (*port_open)(struct dapl_tp_ia *cia, uint16_t port,
				struct verbs_port **out);
	/* Closes a listener no service point has any more (out of
	 * cia->ports); not locked. */
	void (*port_close)(struct dapl_tp_ia *cia, struct verbs_port *p);
	/* Refuses a CR's request not yet answered (the peer hears a
	 * consumer's reject) and forgets it; not locked. */
	void (*cr_refuse)(struct dapl_cr *cr);
};

/* conn.c: what the glue asks of the EP's connection, through the CM's
 * table.  True while the EP's connection is being set up or up. */
int verbs_conn_busy(struct dapl_ep *ep) DAPL_HIDDEN;
/* A completion failed other than by a flush: the QP went to ERR by
 * itself; an established connection ends as BROKEN (deferred).  From
 * cq_poll (error path). */
void verbs_conn_broken(struct dapl_ep *ep) DAPL_HIDDEN;
/* the ops reject and cr_destroy of every verbs provider (the CM's
 * cr_refuse) */
DAT_RETURN verbs_reject(struct dapl_cr *cr) DAPL_HIDDEN;
void verbs_cr_destroy(struct dapl_cr *cr) DAPL_HIDDEN;

static inline const struct verbs_cm_ops *verbs_cm(const struct dapl_ep *ep)
{
	return dapl_tp_ia_of(ep)->cm_ops;
}

#endif
