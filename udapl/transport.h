/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udapl/transport.h: the seam between the DAT object layer (udapl/) and a
 * transport (providers/<name>/).  It is the only udapl header a provider
 * includes; the object internals (udapl/udapl.h) are udapl's own, and
 * test/seam/seam.bats fails the host suite (make check-host) if a file under
 * providers/ reaches them, directly or through another header.
 *
 * What is here, in order:
 *   - small utilities (error codes, an intrusive list, debug output);
 *   - the common header of every object and how a transport attaches its
 *     own data to an object (one typed pointer, below);
 *   - what a post, a completion and a connection event look like;
 *   - the capability record a transport fills once at IA open;
 *   - the ops table a transport implements (struct dapl_ops);
 *   - the upcalls a transport makes, and how it brackets them;
 *   - the progress engine (udapl/progress.c): fd watches, timers, deferred
 *     connection events, polling progress;
 *   - the accessors of object fields a transport needs;
 *   - dat_provider_init/fini glue.
 * providers/README.md is the guide that goes with it.
 *
 * Threads: a transport creates none.  Each IA has one progress thread
 * (progress.c), started after ops->ia_open succeeded and stopped before
 * ops->ia_close; it calls the transport's fd callbacks, timer callbacks
 * and progress hook, never two at once for one IA, and holds no udapl
 * lock while it does.  Every op may be called from any consumer thread
 * (and from the progress thread, inside an upcall's consequences: a CNO
 * agent may free objects); udapl serialises nothing for the transport
 * beyond what each op's comment says.
 */
#ifndef DAT_UDAPL_TRANSPORT_H
#define DAT_UDAPL_TRANSPORT_H

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <dat/udat.h>
#include <dat/dat_registry.h>

/* ---- utilities ------------------------------------------------------------ */

#define DAPL_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (DAT_RETURN)(type) | (DAT_RETURN)(subtype)))

#define DAPL_UNUSED __attribute__((unused))
#define DAPL_HIDDEN __attribute__((visibility("hidden")))
#define dapl_likely(x) __builtin_expect(!!(x), 1)
#define dapl_unlikely(x) __builtin_expect(!!(x), 0)

/* struct dapl_lock, the one-word lock of udapl's EPs and EVDs (lock.h:
 * an uncontended lock + unlock is a compare-and-swap and an exchange,
 * inline, against 57 instructions for a pthread mutex pair), for a
 * provider's own sections on the post and poll paths too. */
#include "lock.h"

struct dapl_list {
	struct dapl_list *next, *prev;
};

static inline void dapl_list_init(struct dapl_list *l)
{
	l->next = l->prev = l;
}

static inline int dapl_list_empty(const struct dapl_list *l)
{
	return l->next == l;
}

static inline void dapl_list_add_tail(struct dapl_list *l, struct dapl_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void dapl_list_del(struct dapl_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define dapl_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

#define dapl_list_for_each_safe(pos, tmp, head)                                \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head);       \
	     (pos) = (tmp), (tmp) = (pos)->next)

/*
 * A lock of a whole library (a list of devices, of open IAs, of parked
 * memory; not one object's) that a forked child can always take.  fork()
 * copies a mutex that another thread of the parent held, and that thread
 * does not exist in the child; the data under the mutex may be half
 * changed.  pthread_atfork cannot repair that here: a prepare handler of
 * a provider runs before libdat's and would deadlock against a thread in
 * dat_provider_init under libdat's lock, and glibc runs no child handler
 * registered after the fork began (another thread loading the provider
 * while the forking thread waits in libdat's prepare handler: the hang
 * the registry suite's fork storm found).  So the lock remembers the
 * process it is valid in; on its first use in another process it is made
 * new, and forget(), if set, gives up what the lock protected (the
 * parent's lists, whose memory the child then leaves alone).  The
 * process is told by dapl_self_pid (below), one load in the common case;
 * still, these locks are for open, close, create and free, never for a
 * post or a completion.  An object's own lock needs none of this: the
 * child cannot use the parent's IAs (dat_ia_close there only forgets
 * them).
 */
struct dapl_module_lock {
	pthread_mutex_t mutex;
	pthread_cond_t cond;	/* for waits under mutex; also made new */
	_Atomic pid_t pid;	/* where mutex is valid; -pid: being made new */
	void (*forget)(void);	/* in a new process, before first use */
};
#define DAPL_MODULE_LOCK_INITIALIZER \
	{PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL}
#define DAPL_MODULE_LOCK_INITIALIZER_FORGET(fn) \
	{PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, (fn)}

/*
 * This process's id without a system call (glibc's getpid() is one, and
 * an IA's open + close took 22 of them, tens of microseconds each under
 * emulation).  udapl keeps it in a page mapped MADV_WIPEONFORK (provider.c):
 * the kernel hands a forked child that page zeroed, so the child finds 0,
 * asks getpid() once and keeps its own.  Weak: a provider that does not
 * link udapl (the test provider), or a kernel without MADV_WIPEONFORK
 * (the page is then not mapped), asks getpid() each time.
 */
extern _Atomic pid_t *dapl_pid_page __attribute__((weak));

static inline pid_t dapl_self_pid(void)
{
	_Atomic pid_t *page = &dapl_pid_page ? dapl_pid_page : NULL;
	pid_t pid;

	if (page) {
		pid = atomic_load_explicit(page, memory_order_relaxed);
		if (pid)
			return pid;
	}
	pid = getpid();
	if (page)
		atomic_store_explicit(page, pid, memory_order_relaxed);
	return pid;
}

static inline void dapl_module_lock_adopt(struct dapl_module_lock *l)
{
	pid_t me = dapl_self_pid();
	pid_t seen = atomic_load_explicit(&l->pid, memory_order_acquire);

	while (seen != me) {
		/* -me: another thread of this process is making it new;
		 * 0: never used anywhere, so nothing was inherited. */
		if (seen != -me &&
		    atomic_compare_exchange_strong(&l->pid, &seen, -me)) {
			pthread_mutex_init(&l->mutex, NULL);
			pthread_cond_init(&l->cond, NULL);
			if (seen && l->forget)
				l->forget();
			atomic_store_explicit(&l->pid, me, memory_order_release);
			return;
		}
		sched_yield();
		seen = atomic_load_explicit(&l->pid, memory_order_acquire);
	}
}

static inline void dapl_module_lock(struct dapl_module_lock *l)
{
	dapl_module_lock_adopt(l);
	pthread_mutex_lock(&l->mutex);
}

static inline void dapl_module_unlock(struct dapl_module_lock *l)
{
	pthread_mutex_unlock(&l->mutex);
}

/* Debug output: DAPL_DBG_TYPE bit mask, stderr; one line each (dapl_dbg
 * ends it: a message carries no newline of its own). */
enum {
	DAPL_DBG_ERR = 0x1,
	DAPL_DBG_WARN = 0x2,
	DAPL_DBG_CM = 0x4,
	DAPL_DBG_EVD = 0x8,
	DAPL_DBG_EP = 0x10,
};
void dapl_dbg(unsigned type, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* CLOCK_MONOTONIC in nanoseconds: the clock of the engine's timers. */
uint64_t dapl_now_ns(void);

/* ---- objects, and the transport's data in them ------------------------------ */

/*
 * The DAT objects.  Their layout is udapl's; a transport sees only the
 * common header below and the accessors at the end of this file.
 */
struct dapl_ia;
struct dapl_pz;
struct dapl_evd;
struct dapl_ep;
struct dapl_sp;		/* PSP and RSP */
struct dapl_cr;
struct dapl_lmr;
struct dapl_rmr;
struct dapl_srq;
struct dapl_cookie;	/* a posted request's context: opaque, the wr_id */

/*
 * How a transport attaches its data: ONE TYPED POINTER per object, the
 * header's tp, read and written through dapl_<object>_tp() and
 * dapl_<object>_set_tp().  Its types are declared here and defined by the
 * transport (each provider library defines each one it uses once): a
 * verbs provider's struct dapl_tp_ep holds the QP, its struct dapl_tp_pz
 * the ibv_pd, and so on.  udapl never looks inside them; it zeroes tp
 * when it allocates an object, and the transport's create op sets it.
 * (Embedding, the other way, would make udapl allocate objects of a size
 * only the transport knows and tie the free lists to one transport.)
 */
struct dapl_tp_ia;
struct dapl_tp_pz;
struct dapl_tp_evd;
struct dapl_tp_ep;
struct dapl_tp_sp;
struct dapl_tp_cr;
struct dapl_tp_lmr;
struct dapl_tp_rmr;
struct dapl_tp_srq;

/*
 * The magic of a live object of each type.  On free the magic is cleared
 * and the provider word kept, and the memory goes to a per-type free list
 * (never back to malloc while the provider is loaded), so a stale handle
 * meets a cleared magic and gets DAT_INVALID_HANDLE, never a crash.
 */
#define DAPL_MAGIC_BASE 0xDA710000u
#define DAPL_MAGIC(type) (DAPL_MAGIC_BASE | (uint32_t)(type))

/* The common header, first in every object. */
struct dapl_obj {
	DAT_PROVIDER *provider;		/* first word: the ABI's dispatch rule */
	uint32_t magic;			/* DAPL_MAGIC(type) while alive, else 0 */
	DAT_HANDLE_TYPE type;
	struct dapl_ia *ia;		/* the owning IA (the IA itself for an IA) */
	void *tp;			/* the transport's data (typed accessors) */
	DAT_CONTEXT context;		/* dat_set/get_consumer_context */
	/* its place in ia->objects[type] (then in handle.c's free list)
	 * is the link of the header before it (udapl.h dapl_obj_hdr) */
	/* upcall.c: upcalls running for the object, and whether it is
	 * being freed (no new upcall may start) */
	uint32_t upcalls;
	int closing;
};

/* True if h is a live object of this type.  No lock: a magic compare;
 * safe on any pointer a transport once got from udapl (the memory of an
 * object outlives its handle). */
static inline int dapl_obj_ok(const void *h, DAT_HANDLE_TYPE type)
{
	const struct dapl_obj *o = h;

	return h && !((uintptr_t)h & 7) && o->magic == DAPL_MAGIC(type);
}

/* The IA an object belongs to. */
static inline struct dapl_ia *dapl_obj_ia(const void *obj)
{
	return ((const struct dapl_obj *)obj)->ia;
}

#define DAPL_TP_ACCESSORS(obj)                                                 \
	static inline struct dapl_tp_##obj *dapl_##obj##_tp(                   \
	    const struct dapl_##obj *o)                                        \
	{                                                                      \
		return (struct dapl_tp_##obj *)((const struct dapl_obj *)o)    \
		    ->tp;                                                      \
	}                                                                      \
	static inline void dapl_##obj##_set_tp(struct dapl_##obj *o,           \
					       struct dapl_tp_##obj *tp)       \
	{                                                                      \
		((struct dapl_obj *)o)->tp = tp;                               \
	}
DAPL_TP_ACCESSORS(ia)
DAPL_TP_ACCESSORS(pz)
DAPL_TP_ACCESSORS(evd)
DAPL_TP_ACCESSORS(ep)
DAPL_TP_ACCESSORS(sp)
DAPL_TP_ACCESSORS(cr)
DAPL_TP_ACCESSORS(lmr)
DAPL_TP_ACCESSORS(rmr)
DAPL_TP_ACCESSORS(srq)
#undef DAPL_TP_ACCESSORS

/* The transport's IA data of any object (hot path: two loads). */
static inline struct dapl_tp_ia *dapl_tp_ia_of(const void *obj)
{
	return dapl_ia_tp(dapl_obj_ia(obj));
}

/* ---- posts, completions, connection events ----------------------------------- */

/* One scatter/gather element: the layout of struct ibv_sge on purpose
 * (the verbs providers assert it), so a post passes the array through. */
struct dapl_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

enum dapl_op {
	DAPL_OP_SEND,
	DAPL_OP_RECV,
	DAPL_OP_RDMA_WRITE,
	DAPL_OP_RDMA_READ,
	DAPL_OP_BIND_MW,
	DAPL_OP_ATOMIC_FETCH_ADD,
	DAPL_OP_ATOMIC_CMP_SWAP,
	DAPL_OP_SRQ_RECV,		/* a receive posted to an SRQ */
	DAPL_OP_LOCAL_INV,		/* invalidates a window before a rebind;
					 * its completion is dropped */
};

/* Post flags: the values of the verbs send flags (IBV_SEND_*), so that a
 * verbs provider hands them on as they are. */
enum {
	DAPL_POST_FENCE = 1 << 0,	/* DAT_COMPLETION_BARRIER_FENCE_FLAG */
	DAPL_POST_SIGNALED = 1 << 1,	/* ask for a completion */
	DAPL_POST_SOLICITED = 1 << 2,	/* DAT_COMPLETION_SOLICITED_WAIT_FLAG */
	DAPL_POST_INLINE = 1 << 3,	/* within the EP's inline limit */
};

/*
 * The one-segment posts (the OPTIONAL ops post_send1 ... post_atomic1 of
 * struct dapl_ops below; each EP keeps a copy, udapl.h): c the cookie,
 * sge the checked segment, flags the DAPL_POST_* of a request.  Each
 * answers 0 or a positive errno, the device library's answer as it is
 * (so that a transport may end in a tail call into it), which udapl
 * turns into the DAT error (dapl_post_errno: ENOMEM, EINVAL, ENOTCONN
 * for an endpoint with no queue pair, anything else an internal error).
 */
struct dapl_cookie;
typedef int dapl_post_send1_fn(struct dapl_ep *ep, struct dapl_cookie *c,
			       const struct dapl_sge *sge, unsigned flags);
typedef int dapl_post_recv1_fn(struct dapl_ep *ep, struct dapl_cookie *c,
			       const struct dapl_sge *sge);
/* an RDMA write or read: remote_addr and rkey the remote side */
typedef int dapl_post_rdma1_fn(struct dapl_ep *ep, struct dapl_cookie *c,
			       const struct dapl_sge *sge, unsigned flags,
			       uint64_t remote_addr, uint32_t rkey);
typedef int dapl_post_atomic1_fn(struct dapl_ep *ep, struct dapl_cookie *c,
				 const struct dapl_sge *sge, unsigned flags,
				 enum dapl_op op, uint64_t remote_addr,
				 uint32_t rkey, uint64_t compare_add,
				 uint64_t swap);
/* A post's errno (a one-segment op's answer, or the device library's
 * in a transport's post_send/post_recv) as the DAT error the post
 * returns (udapl/dto.c). */
DAT_RETURN dapl_post_errno(int err) __attribute__((cold));

struct dapl_post {
	enum dapl_op op;
	struct dapl_cookie *cookie;	/* becomes the wr_id */
	struct dapl_sge *sge;
	int num_sge;
	unsigned flags;
	uint64_t remote_addr;		/* RDMA and atomics */
	uint32_t rkey;
	uint64_t compare_add;		/* atomics */
	uint64_t swap;
	struct dapl_mw_post *mw;	/* DAPL_OP_BIND_MW, DAPL_OP_LOCAL_INV */
};

/*
 * A memory window post.  DAPL_OP_BIND_MW binds rmr to [addr, addr +
 * length) of lmr with the remote privileges priv, or unbinds it (length
 * 0, lmr NULL) where the window allows that; DAPL_OP_LOCAL_INV
 * invalidates the window's current binding (windows whose mw_alloc set
 * inv_first).  The transport sets context to the window's new
 * rmr_context.  flush: the EP is DISCONNECTED, the request only comes
 * back flushed and the window keeps its state.
 */
struct dapl_mw_post {
	struct dapl_rmr *rmr;
	struct dapl_lmr *lmr;
	uint64_t addr, length;
	DAT_MEM_PRIV_FLAGS priv;
	int flush;
	DAT_RMR_CONTEXT context;	/* out */
};

/* A completion as the transport reports it. */
struct dapl_cqe {
	uint64_t wr_id;			/* the struct dapl_cookie * */
	DAT_DTO_COMPLETION_STATUS status;	/* already mapped */
	uint32_t byte_len;		/* receives: bytes received */
	/* Receives from an SRQ: the EP the message arrived on (NULL if it
	 * is gone); the cookie cannot know it.  Others: unused. */
	struct dapl_ep *ep;
};

/*
 * A direct poll (optional; dapl_evd_set_cq_direct): what a dequeue of
 * one completion calls instead of ops->cq_poll, so that the common
 * completion is read by udapl from the transport's own record, without
 * the transport's cq_poll frame and without struct dapl_cqe.
 *
 * poll(cq, 1, rec) fills rec with one record of the transport's format
 * (at most DAPL_CQ_DIRECT_REC bytes, 8-byte aligned) and returns 1, or
 * 0 when the queue is empty, or < 0; it is the transport's device call
 * itself or a tail call into it.  The record holds the wr_id (the
 * cookie) as a uint64_t at offset 0, the status as a uint32_t at
 * status_off and the byte count as a uint32_t at len_off.  udapl takes a
 * record whose status is status_ok and whose cookie is a plain send,
 * receive, RDMA write or read of a live EP as a success of byte_len
 * bytes; every other record (an error, an SRQ receive, a bind, an
 * atomic) goes to ops->cq_direct_cqe, which turns it into a struct
 * dapl_cqe as cq_poll would have.  Under the EVD's lock, as cq_poll.
 * The batch of dat_evd_wait keeps ops->cq_poll.
 */
#define DAPL_CQ_DIRECT_REC 64
struct dapl_cq_direct {
	int (*poll)(void *cq, int max, void *rec);
	void *cq;
	uint32_t status_off, len_off;
	uint32_t status_ok;
};

/* Connection events a transport reports for an active or accepted EP
 * (dapl_cm_ep_event). */
enum dapl_cm_event {
	DAPL_CM_ESTABLISHED,
	DAPL_CM_PEER_REJECTED,		/* the peer's consumer said no */
	DAPL_CM_NON_PEER_REJECTED,	/* nobody listens there */
	DAPL_CM_UNREACHABLE,		/* address or route resolution failed */
	DAPL_CM_TIMED_OUT,
	DAPL_CM_DISCONNECTED,		/* orderly, either side */
	DAPL_CM_BROKEN,			/* the link or the peer died */
	DAPL_CM_ACCEPT_ERROR,		/* passive side: accept did not complete */
};

/* The most segments a post takes (its struct dapl_sge array is on the
 * stack); udapl caps the transport's limits to it. */
#define DAPL_MAX_SGE 64

/* ---- the capability record ---------------------------------------------------- */

enum {
	DAPL_CAP_ATOMICS = 1 << 0,	/* IB atomics (the atomic extension) */
	DAPL_CAP_SRQ = 1 << 1,		/* shared receive queues (srq_* ops) */
	DAPL_CAP_MW = 1 << 2,		/* memory windows (mw_* ops, RMRs) */
	DAPL_CAP_FENCE = 1 << 3,	/* DAPL_POST_FENCE is honoured */
};

/* Memory window types (dapl_caps.mw_types). */
enum {
	DAPL_MW_TYPE_1 = 1 << 0,	/* bound by a call (ibv_bind_mw) */
	DAPL_MW_TYPE_2 = 1 << 1,	/* bound by a work request, invalidated
					 * before a rebind */
};

/* How the transport's events and data make progress. */
enum dapl_progress_mode {
	/* Everything the transport needs arrives on the fds it watches
	 * (dapl_progress_watch): verbs, rdma_cm.  ops->progress, if set,
	 * runs after every wake-up. */
	DAPL_PROGRESS_FD = 0,
	/* The transport must be driven (libfabric providers with manual
	 * progress, some without a wait object): the engine calls
	 * ops->progress every round and, while it finds nothing, sleeps
	 * poll_min_us, doubling up to poll_max_us (up to poll_wait_us while
	 * a consumer blocks); work found, a watched fd going readable or a
	 * consumer starting to block starts again at poll_min_us. */
	DAPL_PROGRESS_POLL = 1,
};

/*
 * What the transport can do, filled once by ops->ia_open (udapl zeroed it
 * first) and read by dat_ia_query and by every "not supported" answer:
 * an optional feature is there only if its flag is set and the
 * transport has its ops; otherwise dat_ia_query reports it absent and
 * its calls get DAT_MODEL_NOT_SUPPORTED (or the errors the spec names for
 * a zero limit).
 */
struct dapl_caps {
	/*
	 * The device's limits and names: the fields of DAT_IA_ATTR that
	 * describe the transport (adapter_name, vendor_name, versions,
	 * max_*).  udapl fills the rest (the IA address, vendor
	 * attributes) and caps the iov limits to DAPL_MAX_SGE.  max_srqs,
	 * max_ep_per_srq, max_recv_per_srq and max_rmrs count only with
	 * the matching DAPL_CAP_* flag.
	 */
	DAT_IA_ATTR attr;
	uint32_t flags;			/* DAPL_CAP_* */
	uint32_t mw_types;		/* DAPL_MW_TYPE_*: what mw_alloc makes */
	/* Windows that are not the hardware's: what they do not give, a
	 * static string dat_ia_query reports as the provider attribute
	 * DAPL_RMR_EMULATION (NULL: none) */
	const char *mw_note;
	uint32_t max_inline;		/* the most inline data an EP may get */
	DAT_COUNT max_private_data;	/* of a connect or accept */
	enum dapl_progress_mode progress;
	uint32_t poll_min_us, poll_max_us;	/* DAPL_PROGRESS_POLL */
	/* DAPL_PROGRESS_POLL: the longest sleep while a consumer blocks in
	 * dat_evd_wait or dat_cno_wait on the IA (what a completion that
	 * comes then may wait for its round), unless rounds are so slow
	 * that it would cost more than about 1 % of a core (progress.c);
	 * 0: poll_max_us */
	uint32_t poll_wait_us;
};

/* ---- the ops table ------------------------------------------------------------ */

/*
 * What a transport implements.  Every function returns a DAT_RETURN that
 * udapl hands to the consumer unchanged (the transport maps its errors to
 * the DAT type and subtype the spec names), or nothing.  Ops marked
 * OPTIONAL may be NULL: udapl puts a default in their place (ops.c) that
 * answers DAT_MODEL_NOT_SUPPORTED, and reports the feature absent.
 */
struct dapl_ops {
	/* IA: parse ia_params (the dat.conf entry's), open the device,
	 * set the IA address (dapl_ia_set_addr), fill *caps, and watch the
	 * transport's fds with the engine (which starts once this
	 * returned).  ia_close undoes it; the engine has stopped by then
	 * and every object of the IA was freed. */
	DAT_RETURN (*ia_open)(struct dapl_ia *ia, const char *ia_params,
			      struct dapl_caps *caps);
	void (*ia_close)(struct dapl_ia *ia);

	DAT_RETURN (*pz_create)(struct dapl_pz *pz);
	DAT_RETURN (*pz_free)(struct dapl_pz *pz);

	/* Registers [addr, addr + len) with DAT privileges priv on
	 * dapl_lmr_pz(lmr); calls dapl_lmr_set_reg. */
	DAT_RETURN (*mr_register)(struct dapl_lmr *lmr, void *addr,
				  DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv);
	/* The same registration, shared (DAT_MEM_TYPE_LMR). */
	DAT_RETURN (*mr_share)(struct dapl_lmr *lmr, struct dapl_lmr *orig);
	DAT_RETURN (*mr_deregister)(struct dapl_lmr *lmr);

	/* A completion queue for a DTO/RMR_BIND EVD: at least *qlen entries
	 * (updated to the real size).  *fd becomes readable when an armed
	 * queue gets a completion; udapl's waiters poll it. */
	DAT_RETURN (*cq_create)(struct dapl_evd *evd, DAT_COUNT *qlen, int *fd);
	DAT_RETURN (*cq_resize)(struct dapl_evd *evd, DAT_COUNT *qlen);
	void (*cq_destroy)(struct dapl_evd *evd);
	/* Hot path, non-blocking: up to max completions, their number, or
	 * < 0.  It may take fewer than are queued when max is over 16:
	 * callers poll again while they got all they asked for.  Called
	 * under the EVD's lock. */
	int (*cq_poll)(struct dapl_evd *evd, struct dapl_cqe *cqe, int max);
	/* Required with a direct poll (struct dapl_cq_direct): the
	 * struct dapl_cqe of a record the direct poll returned that udapl
	 * does not take itself (cq_poll's answer for it). */
	void (*cq_direct_cqe)(struct dapl_evd *evd, const void *rec,
			      struct dapl_cqe *cqe);
	/* Arms the next notification (solicited only, or any). */
	DAT_RETURN (*cq_arm)(struct dapl_evd *evd, int solicited_only);
	/* After fd was readable: consume the notification. */
	void (*cq_ack)(struct dapl_evd *evd);

	/* EP: the transport endpoint, from dapl_ep_attr(), dapl_ep_pz(),
	 * the EVDs and dapl_ep_srq(); it sets dapl_ep_set_max_inline. */
	DAT_RETURN (*qp_create)(struct dapl_ep *ep);
	/* After it returns the transport makes no new upcall for the EP
	 * (udapl then waits for one running, and frees the EP). */
	void (*qp_destroy)(struct dapl_ep *ep);
	/* Back to a fresh endpoint for reuse after a disconnect. */
	DAT_RETURN (*qp_reset)(struct dapl_ep *ep);
	/* OPTIONAL: dat_ep_modify before a connection (NULL: udapl
	 * destroys and creates the endpoint when its shape changes). */
	DAT_RETURN (*qp_modify)(struct dapl_ep *ep, const DAT_EP_ATTR *attr);
	/* Hot path, under the EP's lock, except on an IA whose consumer
	 * opted out (DAPL_NONTHREADSAFE_NOLOCK=1, udapl/ia.c): then no
	 * lock, the consumer's promise keeps its own threads apart, but
	 * the transport's threads (CM, progress) may run meanwhile, so a
	 * post must not count on ep->lock to exclude them. */
	DAT_RETURN (*post_send)(struct dapl_ep *ep, const struct dapl_post *p);
	DAT_RETURN (*post_recv)(struct dapl_ep *ep, const struct dapl_post *p);
	/* OPTIONAL hot path: the common one-segment send and receive,
	 * without a struct dapl_post (the transport may keep a prebuilt
	 * work request per endpoint and fill only what changes).  c is
	 * the cookie (the wr_id), sge the checked segment, flags the
	 * DAPL_POST_* of a send.  The same locking as post_send; NULL:
	 * udapl builds a struct dapl_post and calls post_send/post_recv.
	 * These five answer an errno (dapl_post_send1_fn above). */
	dapl_post_send1_fn *post_send1;
	dapl_post_recv1_fn *post_recv1;
	/* OPTIONAL hot path: the common one-segment RDMA write and read
	 * and the 8-byte atomics, without a struct dapl_post, in the same
	 * way.  c, sge and flags as for post_send1 (sge checked, a read's
	 * already cut to the remote length; flags never SOLICITED, INLINE
	 * only on a write); remote_addr and rkey the remote side (the
	 * RMR triplet's target_address and rmr_context).  post_atomic1's
	 * op is DAPL_OP_ATOMIC_FETCH_ADD (compare_add the value added,
	 * swap 0) or DAPL_OP_ATOMIC_CMP_SWAP, sge the 8 bytes the
	 * original value lands in, remote_addr 8-byte aligned.  Each is
	 * optional on its own; NULL: udapl builds a struct dapl_post and
	 * calls post_send (as it does for other segment counts). */
	dapl_post_rdma1_fn *post_write1;
	dapl_post_rdma1_fn *post_read1;
	dapl_post_atomic1_fn *post_atomic1;

	/* CM.  listen: *qual 0 asks for any free qualifier (PSP_any) and
	 * returns it; one in use gives DAT_CONN_QUAL_IN_USE.  listen_stop
	 * is synchronous: on return the qualifier is free and no new
	 * request upcall for sp will start. */
	DAT_RETURN (*listen)(struct dapl_sp *sp, DAT_CONN_QUAL *qual);
	void (*listen_stop)(struct dapl_sp *sp);
	/* Starts an active connection; its outcome comes as an upcall.  A
	 * DAT timeout other than DAT_TIMEOUT_INFINITE is the transport's to
	 * enforce (with an engine timer). */
	DAT_RETURN (*connect)(struct dapl_ep *ep, const struct sockaddr *remote,
			      DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			      const void *pdata, DAT_COUNT plen);
	DAT_RETURN (*accept)(struct dapl_cr *cr, struct dapl_ep *ep,
			     const void *pdata, DAT_COUNT plen);
	DAT_RETURN (*reject)(struct dapl_cr *cr);
	/* Drops the transport's part of a CR that was never accepted. */
	void (*cr_destroy)(struct dapl_cr *cr);
	/* Graceful: DISCONNECTED comes as an upcall (or a deferred event).
	 * Abrupt: udapl reports DISCONNECTED itself. */
	DAT_RETURN (*disconnect)(struct dapl_ep *ep, int abrupt);

	/* OPTIONAL, with DAPL_CAP_SRQ.  srq_create makes a shared receive
	 * queue for dapl_srq_attr() (max_recv_dtos and max_recv_iov may
	 * grow to what the device gives); qp_create puts an EP with an SRQ
	 * on it, and cq_poll fills dapl_cqe.ep for its receives.
	 * srq_modify: max_wr > 0 grows the queue, limit >= 0 arms the low
	 * watermark (0 disarms); DAT_INVALID_STATE if fewer than limit
	 * receives are queued now (udapl reports the event itself).  The
	 * transport calls dapl_srq_lw_event when the watermark fires. */
	DAT_RETURN (*srq_create)(struct dapl_srq *srq);
	DAT_RETURN (*srq_modify)(struct dapl_srq *srq, DAT_COUNT max_wr,
				 DAT_COUNT limit);
	void (*srq_destroy)(struct dapl_srq *srq);
	DAT_RETURN (*srq_post_recv)(struct dapl_srq *srq,
				    const struct dapl_post *p);

	/* OPTIONAL, with DAPL_CAP_MW.  mw_alloc makes a memory window in
	 * dapl_rmr_pz() and sets dapl_rmr_set_inv_first if a bound window
	 * must be invalidated (DAPL_OP_LOCAL_INV) before it is bound again
	 * or unbound; mw_free destroys it.  Binds and invalidations go
	 * through post_send with p->mw. */
	DAT_RETURN (*mw_alloc)(struct dapl_rmr *rmr);
	void (*mw_free)(struct dapl_rmr *rmr);

	/* OPTIONAL: non-blocking progress, called by the engine (see enum
	 * dapl_progress_mode); returns the number of things it did. */
	int (*progress)(struct dapl_ia *ia);
	/* OPTIONAL, with progress: an fd that turns readable when something
	 * arrived that only the transport's progress turns into completions
	 * (libfabric: the endpoints' wait sets), or -1.  A blocked
	 * dat_evd_wait on a CQ watches it too, and when it fires polls the
	 * CQ itself (cq_poll progresses the transport) instead of waiting
	 * for the engine's round to do that and write the CQ's fd: one
	 * thread wake-up less per completion waited for. */
	int (*progress_fd)(struct dapl_ia *ia);
};

/* ---- upcalls -------------------------------------------------------------------- */

/*
 * A transport tells udapl what happened through these.  An upcall for an
 * EP, a service point or an IA is bracketed:
 *
 *	under the transport's lock that proves the object is still its own
 *	(e.g. the connection still points at the EP):
 *		if (dapl_upcall_begin(ep)) -> the object is being freed: skip
 *	drop the lock (an upcall may call back into any op);
 *	dapl_cm_ep_event(ep, ...);
 *	dapl_upcall_end(ep);
 *
 * udapl frees an EP only after ops->qp_destroy returned, a service point
 * only after ops->listen_stop, an IA only after ops->ia_close, and then
 * waits (upcall.c, no time bound) until every bracket opened for the
 * object is closed -- except one opened by the freeing thread itself (a
 * consumer freeing from a CNO agent inside the upcall).  So the
 * transport must not open a bracket for an object once its destroy op
 * has returned; it never waits for an upcall itself.
 */
int dapl_upcall_begin(void *obj);
void dapl_upcall_end(void *obj);

/* A connection event for an EP (active side, or an accepted EP). */
void dapl_cm_ep_event(struct dapl_ep *ep, enum dapl_cm_event event,
		      const void *pdata, DAT_COUNT plen);
/* A connection request at a listening service point: udapl makes the CR
 * (its tp set to prov_cr) and posts DAT_CONNECTION_REQUEST_EVENT.
 * Returns nonzero if the request could not be queued (the transport then
 * rejects it and forgets prov_cr). */
int dapl_cm_request(struct dapl_sp *sp, struct dapl_tp_cr *prov_cr,
		    const struct sockaddr *remote, DAT_CONN_QUAL remote_qual,
		    const void *pdata, DAT_COUNT plen);
/* Transport async errors. */
void dapl_async_ep_error(struct dapl_ep *ep, DAT_EVENT_NUMBER number);
/* No bracket needed for these two: they check the handle themselves. */
void dapl_async_evd_error(struct dapl_evd *evd);
void dapl_srq_lw_event(struct dapl_srq *srq);
/* The device is gone for the IA (bracketed on the IA). */
void dapl_async_ia_error(struct dapl_ia *ia);

/* ---- the progress engine (progress.c) --------------------------------------------- */

/*
 * Watches fd (O_NONBLOCK, level-triggered) for the IA: when it is
 * readable the engine calls fn(arg) on its thread, without udapl locks.
 * fn handles at most one event (and its upcall) and returns nonzero if
 * there may be more: the engine calls it again after checking that the
 * IA is not being closed (an upcall's consequence may close it).  An fd
 * shared by several IAs (a verbs device's async fd) may be watched by
 * each: whichever engine reads an event handles it.  0, or -1 if the
 * engine's table (8 fds) is full.
 */
int dapl_progress_watch(struct dapl_ia *ia, int fd, int (*fn)(void *arg),
			void *arg);
/* Stops watching fd; on return fn is not running (unless the caller is
 * fn's own thread). */
void dapl_progress_unwatch(struct dapl_ia *ia, int fd);
/* Makes the engine run a round soon (a polling transport: after work was
 * posted; any transport: after it changed what the engine must look at). */
void dapl_progress_kick(struct dapl_ia *ia);

/* The watchdog (watchdog.c): fn(arg) every 100 ms from one thread of
 * udapl's, for what a transport must do while another thread may be
 * stuck inside one of its calls (providers/ofi: a lock a dead peer
 * process left held).  fn runs under the watchdog's lock and must wait
 * for nothing a caller of dapl_watchdog_remove may hold; after remove
 * returns it runs no more.  NULL: no thread could be started. */
struct dapl_watchdog;
struct dapl_watchdog *dapl_watchdog_add(void (*fn)(void *), void *arg);
void dapl_watchdog_remove(struct dapl_watchdog *w);

/*
 * DAT timers (connect timeouts, a graceful disconnect's bound), embedded
 * in the transport's connection state.  fn runs on the engine's thread,
 * without udapl locks, once its deadline (dapl_now_ns() clock) passed.
 * arm/cancel may be called under the transport's locks.  Before the
 * memory of a timer is freed, dapl_timer_cancel_sync (called without the
 * locks fn takes) makes sure fn is not running; called from fn's own
 * chain (an upcall's consequence) it does not wait, so fn must not touch
 * its timer after an upcall.
 */
struct dapl_timer {
	struct dapl_list link;		/* in the engine's timers while armed */
	uint64_t deadline;
	struct dapl_ia *ia;
	void (*fn)(struct dapl_timer *t);
};
void dapl_timer_init(struct dapl_timer *t, struct dapl_ia *ia,
		     void (*fn)(struct dapl_timer *t));
void dapl_timer_arm(struct dapl_timer *t, uint64_t deadline_ns);
void dapl_timer_cancel(struct dapl_timer *t);
void dapl_timer_cancel_sync(struct dapl_timer *t);

/*
 * A connection event that a consumer's call caused (a graceful disconnect
 * the transport cannot wait for, a connection broken by a failed
 * completion): udapl keeps it in the EP (no allocation; one pending event
 * per EP, a second one is dropped: a connection has one terminal event)
 * and the engine delivers it as dapl_cm_ep_event.  Call it under the
 * transport's lock that proves the EP is its own; freeing or resetting
 * the EP drops it.
 */
void dapl_ep_defer_cm_event(struct dapl_ep *ep, enum dapl_cm_event event);

/* ---- accessors -------------------------------------------------------------------- */

/* The length of an IPv4 or IPv6 address by its family; 0 for another
 * family (a consumer's address udapl and a transport cannot use). */
static inline socklen_t dapl_sockaddr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/* IA */
const struct sockaddr *dapl_ia_addr(const struct dapl_ia *ia);
void dapl_ia_set_addr(struct dapl_ia *ia, const struct sockaddr *sa);
/* The record ops->ia_open filled (udapl's copy, after its own checks). */
const struct dapl_caps *dapl_ia_caps(const struct dapl_ia *ia);

/* EVD.  The direct poll of its CQ (struct dapl_cq_direct), copied; set
 * by cq_create once the CQ exists, NULL (cq_poll only) by cq_destroy
 * before the CQ goes. */
void dapl_evd_set_cq_direct(struct dapl_evd *evd,
			    const struct dapl_cq_direct *d);

/* EP */
const DAT_EP_ATTR *dapl_ep_attr(const struct dapl_ep *ep);
struct dapl_pz *dapl_ep_pz(const struct dapl_ep *ep);
struct dapl_evd *dapl_ep_request_evd(const struct dapl_ep *ep);
struct dapl_evd *dapl_ep_recv_evd(const struct dapl_ep *ep);
struct dapl_srq *dapl_ep_srq(const struct dapl_ep *ep);
/* Inline data the endpoint takes: udapl sends that small inline. */
void dapl_ep_set_max_inline(struct dapl_ep *ep, uint32_t max_inline);
/* Requests or receives posted and not yet completed. */
int dapl_ep_busy(const struct dapl_ep *ep);
/* The EP of a posted request (its wr_id), or NULL once the EP was freed
 * or reset: error completions use it. */
struct dapl_ep *dapl_wr_id_ep(uint64_t wr_id);

/* LMR */
struct dapl_pz *dapl_lmr_pz(const struct dapl_lmr *lmr);
/* The registration: the keys and the registered range. */
void dapl_lmr_set_reg(struct dapl_lmr *lmr, DAT_LMR_CONTEXT lmr_context,
		      DAT_RMR_CONTEXT rmr_context, DAT_VADDR addr,
		      DAT_VLEN len);
void dapl_lmr_reg(const struct dapl_lmr *lmr, DAT_VADDR *addr, DAT_VLEN *len);
DAT_MEM_PRIV_FLAGS dapl_lmr_priv(const struct dapl_lmr *lmr);
/*
 * What every transport's mr_share does, given whether it can share
 * orig's registration with lmr (same: the verbs one only within one PZ,
 * libfabric's only with the same privileges, its key carrying them):
 * DAT_INVALID_STATE if orig has no registration any more; if it cannot
 * share, ops->mr_register over orig's range with lmr's privileges; else
 * lmr gets orig's transport data and ref(lmr, it, addr, len) takes a
 * reference on it and calls dapl_lmr_set_reg.
 */
DAT_RETURN dapl_lmr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig,
			  int same,
			  void (*ref)(struct dapl_lmr *lmr,
				      struct dapl_tp_lmr *tp, DAT_VADDR addr,
				      DAT_VLEN len));

/* RMR */
struct dapl_pz *dapl_rmr_pz(const struct dapl_rmr *rmr);
/* The LMR the window is bound to, or NULL. */
struct dapl_lmr *dapl_rmr_lmr(const struct dapl_rmr *rmr);
void dapl_rmr_set_inv_first(struct dapl_rmr *rmr, int inv_first);
/* The transport replaced the window by an unbound one (its QP went):
 * the RMR is unbound, its rmr_context gone, the LMR's pin dropped. */
void dapl_rmr_revoked(struct dapl_rmr *rmr);

/* SRQ */
struct dapl_pz *dapl_srq_pz(const struct dapl_srq *srq);
const DAT_SRQ_ATTR *dapl_srq_attr(const struct dapl_srq *srq);

/* ---- provider glue (provider.c) --------------------------------------------------- */

/*
 * A provider's dat_provider_init calls this with its ops: udapl makes the
 * DAT_PROVIDER table for the entry and registers it with libdat.
 * dapl_provider_fini undoes it; the last one also empties the free lists.
 */
void dapl_provider_init(const DAT_PROVIDER_INFO *info, const char *ia_params,
			const struct dapl_ops *ops, const char *provider_name);
void dapl_provider_fini(const DAT_PROVIDER_INFO *info);
/* True in a child forked after dapl_provider_init: the parent's devices
 * and the engine threads are not this process's. */
int dapl_provider_forked(void);

#endif
