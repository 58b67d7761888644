/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udapl/udapl.h: the object internals of the DAT 1.2 object layer that
 * every provider shares.  udapl's own files include it; a provider never
 * does (it includes udapl/transport.h, the seam, which this includes).
 *
 * The layer implements all 70 slots of DAT_PROVIDER once (handles,
 * parameter and state checks, LMR triplet checks, cookies, event queues,
 * the progress engine) and calls down into a transport through struct
 * dapl_ops (transport.h).
 *
 * Files: one per DAT object (ia.c, pz.c, evd.c with evd_dequeue.c for
 * its dequeue and wait, cno.c, ep.c with ep_param.c and ep_ring.c, sp.c
 * for PSP/RSP/CR and cm.c for their connections, lmr.c, rmr.c, srq.c)
 * plus handle.c (allocation, magic checks, consumer context), progress.c
 * and progress_thread.c (the per-IA progress engine, its thread and the
 * pool of parked threads), upcall.c (the upcall brackets), ops.c
 * (default ops, accessors of transport.h) and provider.c (the
 * DAT_PROVIDER table and dat_provider_init/fini glue).
 *
 * Locking: ia->lock guards the IA's object lists and counts.  Each EVD
 * has its own lock for its software queue and waiters; each EP its own
 * lock for its state and connection data.  Never take an IA lock while
 * holding an EVD or EP lock.  The engine's lock (progress.c) is a leaf:
 * nothing is called with it held.  The hot path (post, poll, dequeue)
 * takes no lock beyond the EVD's own (the EP's for a post), allocates
 * nothing and makes no system call of its own.
 */
#ifndef DAT_UDAPL_H
#define DAT_UDAPL_H

#include <time.h>

#include "transport.h"

/*
 * handle.c.  dapl_obj_alloc returns a zeroed object of the given size
 * (the struct embedding struct dapl_obj first), magic set, linked into
 * ia->objects[type] (ia may be NULL for the IA itself, which links to
 * itself).  dapl_obj_free clears the magic, unlinks it and keeps the
 * memory on the type's free list.  dapl_obj_release_all gives every free
 * list back to malloc (provider fini, after the last IA closed).
 * Both take ia->lock themselves for the link: call them without it.
 */
void *dapl_obj_alloc(struct dapl_ia *ia, DAT_HANDLE_TYPE type, size_t size);
void dapl_obj_free(void *obj);
void dapl_obj_release_all(void);


/* ---- cookies (dto.c, ep_ring.c) ----------------------------------------- */

/*
 * A posted work request's context, in a per-EP ring (one for requests,
 * one for receives), so that a completion finds its EP, its operation
 * and the consumer's cookie without a lookup.  The wr_id of the transport
 * is the address of the cookie.
 */
struct dapl_cookie {
	/* NULL once the EP was freed or reset while this was outstanding
	 * (the ring memory stays valid): the poller drops the completion. */
	struct dapl_ep *ep;
	DAT_DTO_COOKIE user_cookie;	/* or the DAT_RMR_COOKIE of a bind */
	void *rmr;			/* struct dapl_rmr * of a bind, else NULL */
	uint64_t length;		/* bytes posted (sends/writes/reads) */
	uint32_t seq;			/* position in its ring */
	uint8_t op;			/* enum dapl_op */
	uint8_t signaled;		/* the consumer wants its completion */
};

/*
 * Cookies are handed out in posting order and come back in completion
 * order, which on one queue of an RC QP is the same order: a completion
 * also retires every earlier slot (unsignaled ones included).  head is
 * written by posters (under ep->lock), tail by whoever polls the CQ.
 */
struct dapl_cookie_ring {
	struct dapl_cookie *slot;	/* size entries */
	uint32_t size;			/* a power of two */
	uint32_t head;			/* next to hand out */
	uint32_t tail;			/* oldest not yet completed */
	/* an unsignalled post whose seq & sig_mask == sig_mask asks for a
	 * completion all the same (half the ring less one; 0 for a ring
	 * of one slot: every post), so that slots are retired (dto.h) */
	uint32_t sig_mask;
};

/*
 * Hand-offs a race detector cannot see, told to helgrind: a cookie
 * filled by the poster is read by whoever polls its completion (ordered
 * through the device), and a slot the poller retired is refilled by a
 * poster (ordered by the ring's atomic tail).  Each client request costs
 * a dozen instructions even outside valgrind, on every post and every
 * completion, so only the helgrind build of the provider (-DDAPL_HELGRIND,
 * test/verbs/verbs.mk) carries them.
 */
#ifdef DAPL_HELGRIND
#include <valgrind/helgrind.h>
#define DAPL_HAPPENS_BEFORE(obj) ANNOTATE_HAPPENS_BEFORE(obj)
#define DAPL_HAPPENS_AFTER(obj) ANNOTATE_HAPPENS_AFTER(obj)
/* A variable only ever accessed with __atomic builtins (helgrind does
 * not model them). */
#define DAPL_ATOMIC_VAR(var)                                                   \
	ANNOTATE_BENIGN_RACE_SIZED(&(var), sizeof(var), "__atomic only")
#endif
#ifndef DAPL_HAPPENS_BEFORE
#define DAPL_HAPPENS_BEFORE(obj) ((void)(obj))
#define DAPL_HAPPENS_AFTER(obj) ((void)(obj))
#define DAPL_ATOMIC_VAR(var) ((void)&(var))
#endif

/* ep->lock and evd->lock: an inline futex lock (lock.h says why). */
#include "lock.h"

/* The next free slot, or NULL if size posts are outstanding. */
static inline struct dapl_cookie *dapl_cookie_get(struct dapl_cookie_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	struct dapl_cookie *c;

	DAPL_HAPPENS_AFTER(r);
	if (r->head - tail >= r->size)
		return NULL;
	c = &r->slot[r->head & (r->size - 1)];
	c->seq = r->head++;
	return c;
}

/* Gives back the slot just taken, when the post itself failed. */
static inline void dapl_cookie_unget(struct dapl_cookie_ring *r)
{
	r->head--;
}

/* c completed: it and every slot before it are free again. */
static inline void dapl_cookie_put(struct dapl_cookie_ring *r,
				   const struct dapl_cookie *c)
{
	DAPL_HAPPENS_BEFORE(r);
	__atomic_store_n(&r->tail, c->seq + 1, __ATOMIC_RELEASE);
}

/* Posted and not yet completed. */
static inline uint32_t dapl_cookie_outstanding(const struct dapl_cookie_ring *r)
{
	return r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}


/*
 * What ep.c, dto.c, cm.c and sp.c implement, for DAT_PROVIDER_ATTR and
 * DAT_IA_ATTR (ia.c): QoS classes, who creates EPs for a PSP (a PSP with
 * DAT_PSP_PROVIDER_FLAG gets one per request, sp.c; an RSP without an EP
 * gets DAT_MODEL_NOT_SUPPORTED), and the most segments a post takes (its
 * struct dapl_sge array lives on the stack: DAPL_MAX_SGE, transport.h).
 */
#define DAPL_QOS_SUPPORTED DAT_QOS_BEST_EFFORT
#define DAPL_EP_CREATOR DAT_PSP_CREATES_EP_IFASKED

/* ---- objects -------------------------------------------------------------- */

enum { DAPL_OBJ_TYPES = DAT_HANDLE_TYPE_SRQ + 1 };

/* One registered dat.conf entry (IA name) of a provider. */
struct dapl_provider {
	DAT_PROVIDER table;		/* what libdat dispatches through */
	DAT_PROVIDER_INFO info;
	char *ia_params;
	/* the transport's ops, optional ones filled with defaults (ops.c) */
	struct dapl_ops ops;
	const char *name;		/* provider_name of DAT_PROVIDER_ATTR */
	struct dapl_provider *next;
};

struct dapl_ia {
	struct dapl_obj obj;
	struct dapl_provider *prov_entry;
	const struct dapl_ops *ops;
	pthread_mutex_t lock;
	struct dapl_list objects[DAPL_OBJ_TYPES];	/* what the IA owns */
	struct dapl_evd *async_evd;
	int async_evd_owned;		/* created by ia_open, freed by close */
	struct sockaddr_storage addr;	/* the IA address */
	DAT_IA_ATTR attr;		/* caps.attr and udapl's fields */
	struct dapl_caps caps;		/* what ops->ia_open filled, checked */
	struct dapl_engine *engine;	/* progress.c */
	/* udapl-internal (ia.c, lmr.c): */
	struct dapl_list open_link;	/* in the list of open IAs */
	struct dapl_lmr_table *lmr_table; /* lmr_context -> LMR, lock-free */
	int async_evd_shared;		/* DAT_EVD_ASYNC_EXISTS: an earlier IA's */
	DAT_NAMED_ATTR prov_attr[6];	/* provider-specific attributes */
	/* rmr.c: automatic fences applied after binds (atomic), shown by
	 * dat_ia_query as the vendor attribute DAPL_RMR_FENCES. */
	uint64_t rmr_fences;
	char rmr_fences_str[24];
	DAT_NAMED_ATTR rmr_fences_attr;
	/* Opened through a nonthreadsafe dat.conf entry with
	 * DAPL_NONTHREADSAFE_NOLOCK=1 in the environment: the consumer
	 * promised one thread at a time, so posts and dequeues of CQ-only
	 * EVDs take no lock (ia.c).  Fixed for the IA's life. */
	int nolock;
	/* The process that opened it: dat_ia_close in a forked child
	 * forgets an IA of its parent's, and closes one of its own. */
	pid_t opener;
	/* cno.c: the CNO proxy agents' epoll set (the attached EVDs' CQ
	 * fds and agent_kick), watched by the engine; -1 until the IA's
	 * first CNO.  Under ia->lock. */
	int agent_epfd, agent_kick;
	/* For dat_cno_wait's scan of its EVDs (cno.c), set at open to
	 * evd_dequeue.c's dapl_evd_ready: the CNO sits below the EVD (an
	 * EVD is attached to a CNO and notifies it) and never calls up
	 * into it by name. */
	int (*evd_ready)(struct dapl_evd *evd);
};

struct dapl_pz {
	struct dapl_obj obj;
	int use_count;			/* EPs, LMRs, RMRs, SRQs using it */
};

/* A ring of DAT_EVENTs: the EVD's software queue. */
struct dapl_event_ring {
	DAT_EVENT *ev;
	DAT_COUNT size;			/* capacity */
	DAT_COUNT head, count;
};

struct dapl_evd {
	struct dapl_obj obj;
	struct dapl_lock lock;		/* lock.h */
	struct dapl_cond cond;		/* teardown waits for the waiter */
	DAT_EVD_FLAGS flags;
	DAT_COUNT qlen;
	DAT_EVD_STATE state;		/* ENABLED/DISABLED | WAITABLE/UNWAITABLE */
	struct dapl_event_ring ring;	/* software events and polled completions */
	struct dapl_cno *cno;
	int cq_fd;			/* -1 without a CQ */
	int wake_fd;			/* eventfd: software events, unwaitable */
	int waiters;			/* threads in dat_evd_wait */
	int threshold;			/* of the current waiter */
	int use_count;			/* EPs, PSPs, RSPs using it */
	int dead;			/* the async EVD overflowed */
	struct dapl_list cno_link;	/* in cno->evds (guarded by ia->lock) */
	int closing;			/* torn down: waiters get DAT_ABORT */
	/* Slots promised to events not yet posted (dapl_evd_reserve): a
	 * connection request is only taken when its event has room. */
	DAT_COUNT reserved;
	/* dat_evd_dequeue takes no lock: ia->nolock and only CQ streams
	 * (no other thread of ours pushes into the ring then). */
	int nolock;
	/* The transport's direct poll (transport.h), poll NULL if none:
	 * a dequeue's single completion. */
	struct dapl_cq_direct direct;
	/* cno.c: an event came for the CNO's agent (atomic); the CQ fd is
	 * in ia->agent_epfd (ia->lock) */
	int agent_due;
	int agent_watched;
};

struct dapl_cno {
	struct dapl_obj obj;
	pthread_mutex_t lock;
	DAT_OS_WAIT_PROXY_AGENT agent;
	struct dapl_list evds;		/* attached EVDs (cno_link) */
	int wake_fd;			/* eventfd */
	int use_count;
	pthread_cond_t cond;		/* with ia->lock: teardown waits */
	int waiters;			/* in dat_cno_wait (ia->lock) */
	int closing;
	int ready;			/* created (ia->lock): the engine's
					 * agent calls may look at it */
};

/* The flags a request post may carry; UNSIGNALLED only if the EP's
 * request_completion_flags allow it. */
#define REQUEST_POST_FLAGS                                                     \
	(DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |   \
	 DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG | \
	 DAT_COMPLETION_EVD_THRESHOLD_FLAG)
/* Receives take neither SUPPRESS nor BARRIER_FENCE; SOLICITED_WAIT and
 * EVD_THRESHOLD are accepted and have no effect on a receive.  (Without
 * SUPPRESS a receive's completion is always wanted: dto_submit_op.) */
#define RECV_POST_FLAGS                                                        \
	(DAT_COMPLETION_SOLICITED_WAIT_FLAG |                                  \
	 DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_EVD_THRESHOLD_FLAG)

struct dapl_ep {
	struct dapl_obj obj;
	struct dapl_lock lock;		/* lock.h */
	DAT_EP_STATE state;
	DAT_EP_ATTR attr;
	struct dapl_pz *pz;
	struct dapl_evd *recv_evd, *request_evd, *connect_evd;
	struct dapl_srq *srq;
	struct dapl_cookie_ring send_ring, recv_ring;
	struct sockaddr_storage remote_addr;
	DAT_CONN_QUAL remote_qual, local_qual;
	struct dapl_sp *sp;		/* the RSP or PSP that created it */
	struct dapl_cr *cr;		/* pending CR bound to this EP */
	unsigned char pdata[256];	/* private data of the last CM event */
	DAT_COUNT pdata_len;
	uint32_t max_inline;		/* set by qp_create */
	int cm_done;			/* the connection's last event is out */
	/* progress.c: a connection event the transport deferred
	 * (dapl_ep_defer_cm_event), in the engine's list while pending */
	struct dapl_list defer_link;
	enum dapl_cm_event deferred;
	/* rmr.c: a bind was posted; the next request posted carries
	 * DAPL_POST_FENCE (dat_rmr_bind(3DAT)'s automatic fence). */
	int rmr_fence;
	int nolock;			/* ia->nolock: posts take no ep->lock */
	/* The post's invariants, worked out from ep->attr, ep->srq and the
	 * one-segment ops whenever one of them changes
	 * (dapl_ep_post_limits, ep.c), so that a post compares instead
	 * of deriving: the completion flags a request and a receive may
	 * not carry (all but REQUEST_POST_FLAGS and
	 * RECV_POST_FLAGS, and UNSIGNALLED unless the EP's completion
	 * flags allow it: the complement, so that the test is one AND), and
	 * whether a one-segment send or receive may take the short path
	 * (a segment allowed, the transport's one-segment op, and for a
	 * receive no SRQ); if not, the general path makes every check. */
	DAT_COMPLETION_FLAGS req_flags_refused, recv_flags_refused;
	uint8_t send1_ok, recv1_ok;
	/* ia->ops->post_send1/post_recv1 (NULL where the transport has
	 * none), copied at create: a post's test and call without the two
	 * loads through the IA (an IA's ops never change) */
	dapl_post_send1_fn *post_send1;
	dapl_post_recv1_fn *post_recv1;
	/* the same for ia->ops->post_write1/post_read1/post_atomic1 */
	dapl_post_rdma1_fn *post_write1;
	dapl_post_rdma1_fn *post_read1;
	dapl_post_atomic1_fn *post_atomic1;
	/* The LMR of the last one-segment post (dapl_lmr_check_ep_one), or
	 * NULL.  One word, read and written with __atomic: it is read and
	 * refilled before ep->lock (two threads may post at once on a
	 * threadsafe IA), and a hit checks the LMR it names in full. */
	struct dapl_lmr *lc_lmr;
};

/*
 * The memory of every object (handle.c dapl_obj_alloc) starts with this
 * header; the handle is the object right after it.  link is the
 * object's place in ia->objects[type] while it is alive and in
 * handle.c's free list once freed.  It is the block's first word so that
 * every object is reached through a pointer to its start: a forked
 * child that exits without the library's destructor has its parent's
 * objects only in these lists, and links in the middle of a block would
 * make valgrind's leak check call them "possibly lost".
 */
struct dapl_obj_hdr {
	struct dapl_list link;
	size_t size;			/* the object's, for reuse */
	size_t pad;			/* keeps the object 16-byte aligned */
};

static inline struct dapl_obj_hdr *dapl_obj_hdr(const void *obj)
{
	return (struct dapl_obj_hdr *)obj - 1;
}

/* The object whose header's link l is. */
static inline struct dapl_obj *dapl_obj_of_link(struct dapl_list *l)
{
	return (struct dapl_obj *)(dapl_container_of(l, struct dapl_obj_hdr,
						     link) +
				   1);
}

/* Works out ep's post invariants (above); ep.c. */
void dapl_ep_post_limits(struct dapl_ep *ep);

/* PSP and RSP: both service points. */
struct dapl_sp {
	struct dapl_obj obj;
	DAT_CONN_QUAL qual;
	struct dapl_evd *evd;		/* CR EVD */
	DAT_PSP_FLAGS psp_flags;
	struct dapl_ep *ep;		/* RSP: its EP */
	int listening;
	int cr_count;			/* CRs not yet accepted or rejected */
};

struct dapl_cr {
	struct dapl_obj obj;
	struct dapl_sp *sp;
	struct dapl_ep *ep;		/* RSP, or the provider-created EP */
	int provider_ep;		/* ep was made for this CR: the CR's
					 * reject or handoff frees it */
	struct sockaddr_storage remote_addr;
	DAT_CONN_QUAL remote_qual;
	unsigned char pdata[256];
	DAT_COUNT pdata_len;
};

struct dapl_lmr {
	struct dapl_obj obj;
	DAT_MEM_TYPE mem_type;
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN length;
	struct dapl_pz *pz;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VADDR reg_addr;
	DAT_VLEN reg_len;
	int use_count;			/* RMR binds, shared LMRs */
	struct dapl_lmr *shared_from;
};

struct dapl_rmr {
	struct dapl_obj obj;
	struct dapl_pz *pz;
	DAT_LMR_TRIPLET bound;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_RMR_CONTEXT rmr_context;
	struct dapl_lmr *lmr;		/* bound to (a use_count), or NULL */
	int inv_first;			/* set by ops->mw_alloc */
};

struct dapl_srq {
	struct dapl_obj obj;
	struct dapl_pz *pz;
	DAT_SRQ_ATTR attr;
	int use_count;			/* EPs on it (ia->lock) */
	/* srq.c.  Receives complete in any order across the EPs, so the
	 * cookies are a free list, not a ring; their memory comes at
	 * create and resize, never on the post or poll path. */
	pthread_mutex_t lock;		/* free, posted, attr */
	struct dapl_cookie *free;	/* linked through user_cookie.as_ptr */
	void *chunks;			/* the cookie arrays */
	DAT_COUNT posted;		/* posted, completion not yet reaped */
};

/*
 * The completion of a receive posted to an SRQ (evd_dequeue.c): the
 * cookie goes back to the free list, and the event names the EP the
 * provider found for the message (none if that EP is gone: 0, no event).
 * A cookie whose SRQ was freed has rmr NULL and is only dropped.  Under
 * the polling EVD's lock; takes the SRQ's.
 */
static inline int dapl_srq_cqe_to_event(const struct dapl_cqe *cqe,
					DAT_EVENT *event)
{
	struct dapl_cookie *c = (struct dapl_cookie *)(uintptr_t)cqe->wr_id;
	struct dapl_srq *srq = __atomic_load_n(&c->rmr, __ATOMIC_ACQUIRE);
	DAT_DTO_COMPLETION_EVENT_DATA *d =
	    &event->event_data.dto_completion_event_data;
	DAT_DTO_COOKIE user_cookie;

	if (!srq)
		return 0;
	pthread_mutex_lock(&srq->lock);
	user_cookie = c->user_cookie;
	c->user_cookie.as_ptr = srq->free;
	srq->free = c;
	srq->posted--;
	pthread_mutex_unlock(&srq->lock);
	if (!cqe->ep)
		return 0;
	event->event_number = DAT_DTO_COMPLETION_EVENT;
	d->ep_handle = cqe->ep;
	d->user_cookie = user_cookie;
	d->status = cqe->status;
	d->transfered_length =
	    cqe->status == DAT_DTO_SUCCESS ? cqe->byte_len : 0;
	return 1;
}

/* ---- LMR lookup for triplet checks (lmr.c) ------------------------------- */

/* The lookup table and the inline checks of a post's segments:
 * lmr_lookup.h, here because it reads the structs above. */
#include "lmr_lookup.h"

/* ---- the automatic fence of dat_rmr_bind (rmr.c) ------------------------ */

/*
 * A request posted while ep->rmr_fence is set carries DAPL_POST_FENCE;
 * once it is posted, the poster (holding ep->lock) calls this: the flag
 * is cleared and the IA's fence counter counts it.
 */
static inline void dapl_rmr_fenced(struct dapl_ep *ep)
{
	ep->rmr_fence = 0;
	__atomic_add_fetch(&ep->obj.ia->rmr_fences, 1, __ATOMIC_RELAXED);
}

/* ---- events (evd.c) ---------------------------------------------------- */

/*
 * Queues a software-made event (connection, CR, async, software) on an
 * EVD and wakes its waiter or CNO.  A full EVD drops the event and posts
 * DAT_ASYNC_ERROR_EVD_OVERFLOW to the IA's async EVD (an async EVD that
 * overflows itself becomes dead).  Safe from any thread.
 */
void dapl_evd_post(struct dapl_evd *evd, const DAT_EVENT *event);
/*
 * A slot for an event that must not be dropped (a connection request:
 * dropping it would lose the request).  dapl_evd_reserve returns 0 with
 * the slot held, DAPL_EVD_FULL when the queue has no room (nothing is
 * posted: the caller reports it) or DAPL_EVD_GONE when the EVD is being
 * torn down.  The slot is spent by dapl_evd_post_reserved (which never
 * overflows) or given back by dapl_evd_unreserve.
 */
enum { DAPL_EVD_FULL = 1, DAPL_EVD_GONE = 2 };
int dapl_evd_reserve(struct dapl_evd *evd);
void dapl_evd_unreserve(struct dapl_evd *evd);
void dapl_evd_post_reserved(struct dapl_evd *evd, const DAT_EVENT *event);
/* A connection's end (cm.c): behind the completions the EVD's CQ already
 * holds, if it has one (evd_int.h dapl_evd_fill_locked says why). */
void dapl_evd_post_end(struct dapl_evd *evd, const DAT_EVENT *event);
void dapl_evd_post_async(struct dapl_ia *ia, DAT_EVENT_NUMBER number,
			 DAT_HANDLE handle, DAT_COUNT reason);

/* ---- teardown, for IA close ABRUPT (each in its object's file) ---------- */

/*
 * Each releases one object and everything the transport holds for it,
 * whatever its state, without the checks of the dat_*_free call; ia.c
 * calls them in dependency order: CRs, EPs, RSPs and PSPs, RMRs, LMRs,
 * SRQs, PZs, EVDs (the async EVD last), CNOs.
 */
void dapl_cr_teardown(struct dapl_cr *cr);
void dapl_ep_teardown(struct dapl_ep *ep);
void dapl_sp_teardown(struct dapl_sp *sp);
void dapl_rmr_teardown(struct dapl_rmr *rmr);
void dapl_lmr_teardown(struct dapl_lmr *lmr);
void dapl_srq_teardown(struct dapl_srq *srq);
void dapl_pz_teardown(struct dapl_pz *pz);
void dapl_evd_teardown(struct dapl_evd *evd);
void dapl_cno_teardown(struct dapl_cno *cno);
/* ep.c: a Provider-created EP for a CR of a DAT_PSP_PROVIDER_FLAG PSP
 * (dat_psp_create(3DAT): default attributes, DAT_HANDLE_NULL for the PZ
 * and every EVD, so no queue pair until dat_ep_modify gives it a PZ):
 * UNCONFIGURED_TENTATIVE.  dapl_ep_provider_free frees one whose CR was
 * rejected or handed off (the caller took it off the CR first). */
DAT_RETURN dapl_ep_provider_create(struct dapl_ia *ia, struct dapl_ep **out);
void dapl_ep_provider_free(struct dapl_ep *ep);
/* DAT_INVALID_STATE with the DAT_INVALID_STATE_EP_* subtype of state. */
DAT_RETURN dapl_ep_state_error(DAT_EP_STATE state);
/* Frees the cookie rings that ep_ring.c kept for stale completions (EPs
 * freed with DTOs outstanding); provider.c calls it at the last
 * dat_provider_fini, before dapl_obj_release_all. */
void dapl_ep_release_retired(void);
/* The same for the cookie arrays of SRQs freed with receives posted. */
void dapl_srq_release_retired(void);
/* ext.c: the extension function provider.c registers with libdat. */
DAT_RETURN dapl_extension_op(DAT_HANDLE handle, int op, va_list args);
/* dto.c: an atomic through the request path (flags_arg: the subtype of
 * the completion flags argument). */
DAT_RETURN dapl_dto_post_atomic(struct dapl_ep *ep, enum dapl_op op,
				struct dapl_sge *sge,
				DAT_DTO_COOKIE user_cookie,
				DAT_COMPLETION_FLAGS flags, uint64_t remote_addr,
				uint32_t rkey, uint64_t compare_add,
				uint64_t swap, DAT_RETURN_SUBTYPE flags_arg);
/* Used by ep.c and sp.c: an EVD is referenced by one more object. */
void dapl_evd_get(struct dapl_evd *evd);
void dapl_evd_put(struct dapl_evd *evd);
/* ia lets go of evd, another IA's async EVD, unless it let go already:
 * ia's async events are dropped from then on (ia.c, at the owner's
 * dat_ia_close or ia's own) */
void dapl_evd_async_detach(struct dapl_ia *ia, struct dapl_evd *evd);

/* ---- internal to the object layer (not for providers) --------------------- */

/* entries.c: the registered entries (provider.c adds and takes them
 * under dapl_entries_lock; ia.c finds them) */
void dapl_entries_lock(void);
void dapl_entries_unlock(void);
void dapl_entries_add(struct dapl_provider *p);
struct dapl_provider *dapl_entries_take(const DAT_PROVIDER_INFO *info,
					int *last);
struct dapl_provider *dapl_provider_find(const char *ia_name,
					 const void *table_hint);
/* An EVD made by udapl itself (the IA's async EVD); flags already checked. */
DAT_RETURN dapl_evd_alloc(struct dapl_ia *ia, DAT_COUNT qlen,
			  struct dapl_cno *cno, DAT_EVD_FLAGS flags,
			  struct dapl_evd **evd);
/* Wakes the EVD's waiters with DAT_ABORT and destroys its CQ; used for
 * the async EVD, which must outlive the progress engines. */
void dapl_evd_quiesce(struct dapl_evd *evd);
extern const DAT_BOOLEAN dapl_evd_merging[6][6];
/* Called with the EVD's lock held: an event came to evd, attached to
 * cno; wakes cno_wait and has the engine call the agent (cno.c). */
void dapl_cno_notify(struct dapl_cno *cno, struct dapl_evd *evd);
/* Under ia->lock and evd->lock: the EVD was attached to a CNO, or is
 * leaving it (its CQ fd joins or leaves the agents' set). */
void dapl_cno_agent_attach(struct dapl_evd *evd);
void dapl_cno_agent_detach(struct dapl_evd *evd);
/* dat_ia_close: the agents' set goes (after the CNOs). */
void dapl_cno_agents_close(struct dapl_ia *ia);
/* For dat_cno_wait (through ia->evd_ready), under evd->lock: true if the
 * EVD holds an event, else its CQ is left armed. */
int dapl_evd_ready(struct dapl_evd *evd);
void dapl_lmr_table_fini(struct dapl_ia *ia);
/* A timeout in microseconds (DAT_TIMEOUT_INFINITE: none) as a deadline;
 * dapl_deadline_ms gives what is left for poll(2): -1 forever, 0 expired. */
struct dapl_deadline {
	int infinite;
	struct timespec at;
};
void dapl_deadline_set(struct dapl_deadline *d, DAT_TIMEOUT timeout);
int dapl_deadline_ms(const struct dapl_deadline *d);

/* ---- the progress engine, udapl's side (progress*.c, upcall.c) ---------- */

/* At IA open, before ops->ia_open (which may watch fds): 0 or -1.
 * deliver gets the connection events transports defer
 * (dapl_ep_defer_cm_event): the IA passes cm.c's dapl_cm_ep_event, so
 * that the engine, below the CM, never calls up into it by name. */
typedef void (*dapl_cm_deliver_fn)(struct dapl_ep *ep,
				   enum dapl_cm_event event,
				   const void *pdata, DAT_COUNT plen);
int dapl_progress_create(struct dapl_ia *ia, dapl_cm_deliver_fn deliver);
/* After ops->ia_open succeeded: the engine's thread (a parked one, or a
 * new one). */
int dapl_progress_start(struct dapl_ia *ia);
/* Before ops->ia_close (and on a failed open): stops the engine without
 * waiting for its thread, which frees the engine and parks for the next
 * start (waits only for a call out that is running); from then on
 * nothing is called for the IA. */
void dapl_progress_stop(struct dapl_ia *ia);
/* Joins the engine threads that have ended (all of them, waiting, if
 * wait); returns how many it joined. */
int dapl_progress_reap(int wait);
/* Around a consumer's sleep on the IA's EVDs or CNO (begin 1, then 0):
 * the engine of a DAPL_PROGRESS_POLL transport polls from its shortest
 * sleep again, and meanwhile sleeps at most caps.poll_wait_us. */
void dapl_progress_block(struct dapl_ia *ia, int begin);
/* What the library's destructor does at unload and exit: ends and joins
 * the parked threads and those that ended; no thread parks after it. */
void dapl_progress_unload(void);
/* For the unit test: this process's engine threads. */
struct dapl_progress_stats {
	unsigned created;	/* by pthread_create */
	unsigned handed;	/* engines given to a parked thread */
	unsigned parked;	/* times a thread parked */
	unsigned expired;	/* parked threads that ended, time up */
	unsigned idle;		/* parked now */
	unsigned leaving;	/* stopped, neither parked nor ended yet */
};
void dapl_progress_stats(struct dapl_progress_stats *s);
/* How long a thread stays parked (0: the default, POOL_PARK_MS); the
 * parked ones are woken to apply it. */
void dapl_progress_park_ms(unsigned ms);
/*
 * The one place an object that gets upcalls (EP, PSP/RSP, IA) is made
 * quiet before its memory is recycled: drops a deferred event still
 * pending for it, refuses new upcall brackets and waits, with no time
 * bound, for the brackets open on other threads to close.  Called after
 * the transport's destroy op (qp_destroy, listen_stop, ia_close).
 */
void dapl_progress_quiesce(void *obj);
/* dat_ep_reset: drops a deferred event of the old connection. */
void dapl_progress_purge_ep(struct dapl_ep *ep);

/* ---- default ops (ops.c) ------------------------------------------------- */

/* Fills the optional ops a transport left NULL with udapl's defaults. */
void dapl_ops_fill_defaults(struct dapl_ops *ops);
/* After ops->ia_open: clears capabilities whose ops are the defaults,
 * and copies the limits into ia->attr. */
void dapl_caps_apply(struct dapl_ia *ia);
static inline int dapl_ia_has(const struct dapl_ia *ia, uint32_t cap)
{
	return (ia->caps.flags & cap) == cap;
}

#endif
