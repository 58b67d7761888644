/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi: a DAT transport over libfabric (libdaplofi.so.1).
 *
 * Two connection paths, chosen at IA open from the fi_info (struct
 * ofi_fabcaps): where the libfabric provider named alone offers connected
 * FI_EP_MSG endpoints (tcp), msg.c connects them with the provider's own
 * CM and carries the rest of our protocol on the connection; otherwise
 * (tcp;ofi_rxm, shm) what follows: FI_EP_RDM and our protocol over an
 * address vector.  The EPs' rings, key answers, fences, the engine and the
 * CQ glue are the same on both.
 *
 * One IA is one libfabric fabric + domain (FI_THREAD_SAFE: the progress
 * engine and consumer threads call into it at once), one address vector
 * shared by its endpoints (over shm: the control and listening ones, in
 * generations, gen.c; each data endpoint has one of its own), and
 * FI_EP_RDM endpoints:
 *
 *   - the control endpoint (an ephemeral port of the IA address: struct
 *     ofi_ctl_gen) sends every message of our connection protocol (rdm.c)
 *     and receives the replies;
 *   - one listening endpoint per PSP/RSP, bound to the port its
 *     qualifier maps to (addr.c), which receives connection requests;
 *   - one data endpoint per DAT EP (fep.c), bound to the CQs of its EVDs.
 *
 * The control and listening endpoints share ctl_cq.  DTO EVDs are CQs
 * (cq.c).
 *
 * Progress: the provider creates no thread.  udapl's per-IA progress
 * engine calls ofi_progress (progress.c) every round of its polling, with
 * backoff while it finds nothing, and at once when an endpoint's wait set
 * or doorbell says something arrived (wake.c): it reads the control CQ,
 * drives libfabric's manual data progress by reading every data CQ,
 * retries what -FI_EAGAIN held back, runs keepalives and delivers
 * connection upcalls.
 *
 * Completions are reordered in software (ep.c): each EP has two rings of
 * struct ofi_op (requests, receives) in posting order, and a completion
 * is handed to udapl only once every earlier op of its ring completed.
 * The same rings hold the posts that could not be issued yet (a fence, a
 * send after an RDMA write not yet complete, a remote key whose base is
 * not known yet, -FI_EAGAIN).
 *
 * Locking, outermost first: oia->lock (connections, service points, the
 * control path, the lists of the IA), ocq->lock (a CQ and its ready
 * list), oep->lock (an EP's rings).  No ofi lock is held across an upcall.
 * The last two are taken on every post and poll: udapl's one-word lock
 * (udapl/lock.h), not a pthread mutex; oia->lock is a mutex, off the
 * data path.  udapl holds its EP lock around post_send/post_recv and its
 * EVD lock around cq_poll; neither is ever taken under an ofi lock.
 */
#ifndef DAT_PROVIDER_OFI_H
#define DAT_PROVIDER_OFI_H

#include <sys/socket.h>
#include <sys/un.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "../../udapl/transport.h"
#include "select.h" /* the IA's hints and endpoint type, OFI_FI_VERSION */
#include "spin.h"   /* does a consumer spin on a CQ (wake.c) */

/* Private data of a connect, accept (and the DAT limit we report). */
#define OFI_MAX_PDATA 200
/* libfabric addresses we carry in control messages (tcp: a sockaddr_in,
 * shm: a string of up to 64 bytes). */
#define OFI_ADDR_MAX 64
/* Receive buffers posted on each control and listening endpoint. */
#define OFI_CTL_RX 16
/* Remote keys whose registered base an EP remembers (ep.c). */
#define OFI_KEYCACHE 64

extern const struct dapl_ops ofi_ops DAPL_HIDDEN;

/* What the first word of every libfabric context of ours is. */
enum ofi_ctx_kind {
	OFI_CTX_OP = 0x4f50,	/* struct ofi_op: a DTO */
	OFI_CTX_CTL_RX,		/* struct ofi_rxbuf */
	OFI_CTX_CTL_TX,		/* struct ofi_txbuf */
};

/* ---- the IA -------------------------------------------------------------- */

/*
 * What the IA's libfabric provider gives, from its fi_info (ia.c), and so
 * which of our two connection paths the IA takes: FI_EP_MSG (msg.c: the
 * provider's own connections) or FI_EP_RDM (rdm.c: our protocol over an
 * address vector).  One record, so that the choice is made in one place.
 */
struct ofi_fabcaps {
	enum fi_ep_type ep_type;	/* FI_EP_MSG or FI_EP_RDM */
	int virt_addr;			/* FI_MR_VIRT_ADDR: RMA by address,
					 * else by offset (ep.c translates) */
	int atomics;			/* FI_UINT64 fetch SUM, CSWAP valid
					 * (atomic.c, at IA open; never on MSG) */
	int tcp_probe;			/* RDM over TCP: see rdm.c ofi_probe_* */
	int linger;			/* shm: a freed listener's endpoint
					 * lingers (lep.c ofi_lep_linger) */
	int renew_canceled;		/* verbs: a REQ canceled renews rxm's
					 * connection (rdm.c ofi_ctl_tx_failed) */
	int ep_av;			/* shm: each EP's endpoint has an AV
					 * of its own (fep.c, addr.c) */
	int rxm_srx;			/* verbs;ofi_rxm: rxm's shared receive
					 * context (env.c ofi_env_rxm_srx) */
	int waiter_reads;		/* a blocked dat_evd_wait reads its
					 * CQ when the IA's wake fd fires
					 * (wake.c ofi_progress_fd): MSG, shm */
	size_t cm_data;			/* MSG: room for connect data */
};

/*
 * The IA's control endpoint and the address vector it shares with the
 * listening endpoints, with what addr.c keeps of the names in it.
 * libfabric 1.17's shm lets an AV take 256 names in its life (one a
 * peer IA, one a listener generation the IA connected to: addr.c), and
 * none can leave it; so over shm, once the current one has taken
 * OFI_GEN_ROLL names (DAPL_OFI_SHM_AV_NAMES: fewer), the IA moves on to
 * a new one (gen.c ofi_gen_roll): new connections and the listeners
 * (opened again on it) use the new one, and the old one closes once no
 * connection and no control message is left on it.  Other fabrics keep
 * the first for the IA's life.
 */
struct ofi_ctl_gen {
	struct dapl_list link;		/* oia->old_gens */
	struct fid_av *av;		/* NULL on MSG */
	struct ofi_ctl_ep *ctl;		/* NULL on MSG (msg.c) */
	unsigned conns;			/* connections on it (ofi_conn.gen) */
	struct dapl_list shm_dests;	/* addr.c, shm: the listener names
					 * sent to (ofi_shm_dest) */
	struct dapl_list shm_peers;	/* addr.c, shm: the other names in
					 * the AV (ofi_shm_peer) */
	unsigned shm_names;		/* addr.c, shm: names the AV took
					 * (ofi_shm_names_count) */
	int shm_names_out;		/* and the AV refused one since */
};

struct ofi_cm_upcalls;
struct ofi_keytab;
struct ofi_keytab_view;

/* How many keys, registered lately, the sends look for (KEYN), and how
 * many sends after a registration look (cm.c ofi_keys_announce) */
#define OFI_FRESH 8
#define OFI_FRESH_SENDS 8

struct dapl_tp_ia {
	struct dapl_ia *ia;
	pthread_mutex_t lock;
	struct fi_info *info;		/* what fi_getinfo gave for the IA */
	struct ofi_fabcaps fab;		/* and what it means for us */
	struct fid_eq *eq;		/* MSG: connection events (msg.c) */
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct ofi_ctl_gen *gen;	/* the control endpoint and AV that
					 * new connections and the listeners
					 * use (gen.c) */
	struct dapl_list old_gens;	/* gen.c, shm: the ones before it,
					 * open while something is on them */
	unsigned gen_roll;		/* gen.c, shm: at so many names */
	uint64_t gen_retry;		/* gen.c: a failed move tried again
					 * then, not before */
	uint64_t dto_timeout_ns;	/* errors: a request with no
					 * completion this long fails */
	char prov_name[64];
	struct sockaddr_in addr;	/* the IA address (port 0) */
	struct fid_cq *ctl_cq;
	struct fid_cq *null_cq;		/* for an EP without a recv or req EVD */
	struct dapl_list sps;		/* ofi_sp.link */
	struct dapl_list conns;		/* ofi_conn.link */
	struct dapl_list eps;		/* dapl_tp_ep.ia_link */
	struct dapl_list cqs;		/* dapl_tp_evd.ia_link */
	struct dapl_list txbufs;	/* ofi_txbuf.link: control sends not
					 * complete (held ones: by EAGAIN) */
	struct dapl_list mrs;		/* dapl_tp_lmr.link: remote key lookup */
	struct dapl_list notes;		/* notes.c: upcalls to make, unlocked */
	struct dapl_list lingering;	/* msg.c: freed listeners' passive
					 * endpoints, open for their
					 * unanswered requests */
	struct dapl_list lingering_leps; /* lep.c, shm: freed listeners'
					 * endpoints (ofi_ctl_ep.link) */
	unsigned nlingering;
	uint64_t linger_ns;		/* lep.c, shm: how long they linger
					 * (DAPL_OFI_LINGER_MS) */
	uint64_t next_conn_id;
	uint32_t next_key;		/* application-chosen MR keys */
	uint64_t ka_interval_ns, ka_timeout_ns;
	uint64_t next_ka;		/* when the next keepalive round is due */
	/* requests read lately, by requester (rdm.c: a retransmitted REQ
	 * is not a new request) */
	struct ofi_req_seen {
		uint64_t id;
		uint16_t len;
		uint8_t addr[OFI_ADDR_MAX];
	} req_seen[64];
	unsigned req_seen_next;
	int closing;
	pid_t pid;
	/* wake.c: the endpoints' wait sets, in one epoll fd the engine
	 * watches */
	int wake_epfd;
	int wake_off;			/* the provider has no wait sets */
	int bell_tx;			/* shm: rings peers' doorbells */
	pthread_mutex_t wake_lock;	/* wakes, muted */
	struct dapl_list wakes;		/* ofi_wake.link, armed ones */
	int muted;			/* wakes out of the epoll set while
					 * a consumer polls their CQs */
	struct dapl_timer bell_timer;	/* shm: owed doorbells ring (wake.c
					 * ofi_wake_ring_op) */
	int bell_timer_on, bells_due;
	struct dapl_timer mute_timer;	/* a round each OFI_MUTE_CHECK_US
					 * meanwhile */
	/* shm: the connections' dead-peer guards (shm_guard.c), which
	 * udapl's watchdog walks (fep.c ofi_ep_guards_watch) */
	struct dapl_watchdog *watchdog;
	pthread_mutex_t guard_lock;	/* guards; taken last, never held
					 * into libfabric */
	struct dapl_list guards;	/* ofi_shm_guard.link */
	/* what the control endpoints (RDM) and the MSG channel hand up to the
	 * connection state machine, set at open (ia.c) */
	const struct ofi_cm_upcalls *cm;
	/* the control path's share of an engine round, which a consumer's
	 * vain polls run now and then (cq.c ofi_cq_serve); set at open
	 * (ia.c), NULL where the control path is not a CQ (MSG) */
	void (*serve)(struct dapl_tp_ia *oia);
	int keys_wanted;		/* an EP has OFI_WORK_KEYS (ep.c) */
	/* keys registered lately for remote access and told to nobody,
	 * which the IA's next fresh_sends sends look for in what they
	 * carry (mr.c ofi_key_fresh, cm.c ofi_keys_announce); 0: none */
	uint32_t fresh[OFI_FRESH];
	unsigned fresh_next;
	int fresh_sends;
	/* shm: the table of live remote keys peers map (keytab.c), or
	 * NULL */
	struct ofi_keytab *keytab;
	/* cm.c ofi_keys_announce, for ep.c; set at open (ia.c) */
	void (*announce)(struct dapl_tp_ep *oep, const struct dapl_sge *sge,
			 int num);
};

struct dapl_tp_sp {
	struct dapl_list link;		/* oia->sps */
	struct dapl_sp *sp;
	DAT_CONN_QUAL qual;
	struct ofi_ctl_ep *lep;		/* RDM: the listening endpoint */
	struct fid_pep *pep;		/* MSG: the passive endpoint */
};

/* ---- EVDs: completion queues (cq.c) --------------------------------------- */

struct dapl_tp_evd {
	struct dapl_evd *evd;
	struct dapl_tp_ia *oia;
	struct fid_cq *cq;
	struct dapl_lock lock;		/* udapl/lock.h: on every poll */
	int notify_fd;			/* eventfd the EVD's waiters poll */
	struct dapl_list ready;		/* ofi_ring.ready_link */
	struct dapl_list ia_link;	/* oia->cqs */
	/* does a consumer spin on it (spin.h, wake.c)?  polls counts
	 * the consumer's polls (cq_poll and the direct poll); waiting says a consumer
	 * armed it to block, armed_ns when; the engine's round reads them
	 * and gives its verdict, spinning */
	unsigned long polls;
	int waiting;
	uint64_t armed_ns;
	struct ofi_spin spin;		/* the engine's */
	int spinning;
	/* shm: the EPs (their request EVD this one) whose atomics'
	 * doorbells wait for this EVD's polls (wake.c ofi_wake_ring_op),
	 * and how many more vain polls until they ring; bell_lock is
	 * taken last, alone */
	struct dapl_lock bell_lock;
	struct dapl_list bells;		/* dapl_tp_ep.bell_link */
	unsigned bell_polls;
	/* the EPs (their request EVD this one) whose held requests the
	 * next poll issues, not the engine (cq.c ofi_cq_kick_owe);
	 * kicks_owed says the list is not empty; kick_lock comes after
	 * lock and before any EP's */
	struct dapl_lock kick_lock;
	struct dapl_list kicks;		/* dapl_tp_ep.kick_link */
	int kicks_owed;
	/* an RDMA of its EPs wants a key: the next poll serves the
	 * control path (cq.c ofi_cq_serve_maybe), not the engine */
	int serve_now;
};

/* ---- shm: a peer that died holding a lock (shm_guard.c) ------------------- */

/* The lock words of a connected data endpoint's region and its peer's,
 * through header pages mapped for it. */
struct smr_cirque;
struct ofi_shm_guard {
	volatile int *lock[2];		/* the endpoint's, the peer's */
	int free_value;			/* a free pthread spinlock's */
	pid_t peer_pid;
	void *map[2];			/* the regions' starts */
	size_t map_len[2];
	struct smr_cirque *queue[2];	/* our region's command and response
					 * queues */
	int gave_up;			/* said it cannot be given back */
	struct dapl_tp_ep *oep;
	struct dapl_list link;		/* oia->guards (oia->guard_lock) */
};

/* The guard of the connection between the shm endpoints named own and
 * peer; 0, or -1 (not a libfabric 1.17 region, or not ours to map). */
int ofi_shm_guard_init(struct ofi_shm_guard *g, const uint8_t *own,
		       size_t own_len, const uint8_t *peer,
		       size_t peer_len) DAPL_HIDDEN;
void ofi_shm_guard_fini(struct ofi_shm_guard *g) DAPL_HIDDEN;
/* 1 if it released a lock the dead peer held (it may wait 200 ms to be
 * sure nobody alive holds it) */
int ofi_shm_guard_rescue(struct ofi_shm_guard *g) DAPL_HIDDEN;
/* 1 if libfabric writes to the peer itself, with process_vm_writev (its
 * region says CMA works towards peers) */
int ofi_shm_guard_cma(const struct ofi_shm_guard *g) DAPL_HIDDEN;

/* ---- EPs (ep.c) ----------------------------------------------------------- */

/* One posted DTO, in its ring, in posting order. */
struct ofi_op {
	enum ofi_ctx_kind kind;		/* OFI_CTX_OP: first word */
	struct ofi_ring *ring;
	uint32_t seq;
	uint32_t send_no;		/* a send: how many sends were issued
					 * before it (oep->sends_issued) */
	uint8_t op;			/* enum dapl_op */
	uint8_t state;			/* enum ofi_op_state */
	uint8_t fence;
	uint8_t num;
	uint8_t cma;			/* an RDMA write libfabric did by CMA
					 * (ep.c ofi_write_flags) */
	uint64_t wr_id;			/* the udapl cookie */
	DAT_DTO_COMPLETION_STATUS status;
	uint32_t len;			/* receives: bytes received */
	uint64_t remote_addr;		/* as the consumer gave it */
	uint32_t rkey;			/* bind: the window's new key */
	struct iovec *iov;		/* ring->iov_per_op entries */
	uint32_t *lkey;			/* their lmr_contexts (mr.c: an LMR an
					 * op still uses is not freed) */
	uint64_t operand[2];		/* atomics: add or compare, swap */
	struct dapl_tp_rmr *rmr;	/* bind: the window (a reference
					 * while the op is HELD) */
	uint64_t mw_len;		/* bind: remote_addr, mw_len */
	uint32_t mw_priv;		/* bind: DAT remote privileges */
	uint8_t mw_flush;		/* bind: only to be flushed */
	uint8_t mw_ran;			/* bind: registered; it completes once
					 * the window's peers confirmed the
					 * revocation (rmr.c) */
};

enum ofi_op_state {
	OFI_OP_FREE,
	OFI_OP_HELD,		/* not issued yet */
	OFI_OP_ISSUED,
	OFI_OP_DONE,		/* completed, not yet handed to udapl */
};

struct ofi_ring {
	struct dapl_tp_ep *oep;
	struct dapl_tp_evd *ocq;	/* NULL: the EP has no EVD for it */
	struct ofi_op *op;		/* size entries */
	struct iovec *iov;
	uint32_t *lkey;			/* beside iov */
	uint32_t size, iov_per_op;
	uint32_t emitted;		/* next seq to hand to udapl */
	uint32_t issued;		/* next seq to issue (held ones follow) */
	uint32_t posted;		/* next seq to take */
	int on_ready;
	int failed;			/* an error was handed out (cq.c) */
	struct dapl_list ready_link;	/* ocq->ready */
};

/* What an EP needs from the engine (dapl_tp_ep.work). */
enum {
	OFI_WORK_RETRY = 1 << 0,	/* -FI_EAGAIN held a post back */
	OFI_WORK_KEYS = 1 << 1,		/* keys to ask the peer about */
	OFI_WORK_READY = 1 << 2,	/* ops completed outside a CQ read */
	OFI_WORK_BROKEN = 1 << 3,	/* a failed DTO breaks the connection */
	OFI_WORK_BIND = 1 << 4,		/* a window bind may run (rmr.c) */
	OFI_WORK_DEAD = 1 << 5,		/* shm: the peer died in a lock */
};

enum ofi_key_state {
	OFI_KEY_EMPTY,
	OFI_KEY_WANTED,		/* an op waits; the query is not sent yet */
	OFI_KEY_ASKED,
	OFI_KEY_KNOWN,
	OFI_KEY_BAD,		/* the peer has no such registration */
};

/* A registration's remote privileges, as a KEYR carries them (in qual):
 * the initiator checks them before it sends, so that an RDMA or atomic
 * the target's registration does not allow fails as on verbs
 * (DAT_DTO_ERR_REMOTE_ACCESS) whatever the libfabric provider checks;
 * libfabric registrations know no remote atomic privilege at all. */
enum {
	OFI_PERM_READ = 1 << 0,
	OFI_PERM_WRITE = 1 << 1,
	OFI_PERM_ATOMIC = 1 << 2,
};

struct ofi_keycache {
	uint32_t key;
	uint8_t state;			/* enum ofi_key_state */
	uint8_t perm;			/* OFI_PERM_*: what it allows */
	uint64_t base, len;
	uint64_t fkey;			/* the libfabric key RMA goes with */
};

struct dapl_tp_ep {
	struct dapl_ep *ep;
	struct dapl_tp_ia *oia;
	struct dapl_lock lock;		/* udapl/lock.h: on every post */
	struct fid_ep *fep;		/* NULL once flushed */
	uint8_t name[OFI_ADDR_MAX];
	size_t namelen;
	struct fid_av *av;		/* shm: fep's own AV (fab.ep_av),
					 * closed after it; else NULL */
	fi_addr_t peer;			/* the peer's data endpoint */
	/* shm: the peer data endpoint's doorbell (wake.c), rung by a
	 * one-sided operation issued while nothing else was out */
	struct sockaddr_un bell_to;
	socklen_t bell_to_len;
	struct dapl_list bell_link;	/* on sq.ocq->bells while its
					 * doorbell is owed (its bell_lock) */
	struct dapl_list kick_link;	/* on sq.ocq->kicks while the poller
					 * owes its send ring a kick */
	int connected;			/* peer valid */
	int flushed;			/* every post completes as flushed */
	int halted;			/* a request failed: nothing more is
					 * issued (as a verbs QP in error); the
					 * broken connection flushes the rest */
	uint32_t work;			/* OFI_WORK_*: for the engine (atomic) */
	struct ofi_conn *conn;		/* under oia->lock */
	struct ofi_ring sq, rq;
	uint32_t writes_out;		/* issued RDMA writes not delivered
					 * (not complete; a CMA write is
					 * delivered when issued) */
	uint32_t cma_writes;		/* shm: writes done by CMA (ep.c) */
	uint32_t ops_out;		/* issued requests not complete */
	/* a disconnect waits for what the peer sent before it (cm.c) */
	uint64_t sends_issued, recvs_done;
	/* the peer's disconnect said how many of our sends it received:
	 * a flush completes those as sent (cm.c) */
	uint32_t peer_recvd;
	int peer_recvd_known;
	struct ofi_keycache keys[OFI_KEYCACHE];
	/* shm: the peer's key table, mapped (keytab.c; set and cleared
	 * under oia->lock and oep->lock), and whether the peer maps ours
	 * (KEYTA): an RDMA may go by the table only with both
	 * (ofi_ep_tab_ok) */
	struct ofi_keytab_view *peer_tab;
	int tab_acked;
	/* errors: the oldest issued request, and since when (the engine
	 * sees it; ofi_ep_stuck) */
	uint32_t stuck_seq;
	uint64_t stuck_since;
	/* shm: the connection's guard (shm_guard.c); set and cleared
	 * under oia->lock and oep->lock, listed on oia->guards */
	struct ofi_shm_guard *guard;
	struct dapl_list ia_link;	/* oia->eps */
};

/* ---- LMRs (mr.c) ---------------------------------------------------------- */

struct dapl_tp_lmr {
	struct fid_mr *mr;
	int refs;			/* LMRs sharing it (oia->lock) */
	uint32_t key;			/* lmr_context = rmr_context */
	uint64_t fkey;			/* fi_mr_key: the key itself, or the
					 * provider's where it picks keys
					 * (FI_MR_PROV_KEY: verbs) */
	int remote;			/* registered for remote access */
	int published;			/* listed in oia->keytab */
	uint32_t perm;			/* OFI_PERM_* (remote) */
	struct dapl_pz *pz;		/* a window's PZ: its key is told only
					 * to connections of EPs of that PZ
					 * (cm.c KEYQ); NULL: an LMR's, any */
	uint64_t *told;			/* the connections told its key, to be
					 * told to forget it (rmr.c, mr.c) */
	uint32_t ntold, maxtold;
	uint64_t base, len;
	struct dapl_list link;		/* oia->mrs */
};

/* ---- RMRs: memory windows emulated with application keys (rmr.c) ----------- */

/* What dat_ia_query says of them (provider attribute DAPL_RMR_EMULATION) */
#define OFI_MW_NOTE                                                            \
	"emulated: a bind registers the window under a new key after the "    \
	"EP's earlier requests completed; unbind, rebind and dat_rmr_free "   \
	"deregister the old key, but an RDMA the target already accepted "    \
	"still completes (no revocation in flight)"

/* A revocation a peer has not confirmed yet (KEYX sent, KEYXA awaited). */
struct ofi_keyx_wait {
	uint64_t conn;
	uint32_t key;
};

struct dapl_tp_rmr {
	struct dapl_tp_ia *oia;
	struct dapl_pz *pz;		/* the RMR's */
	struct dapl_tp_lmr *cur;	/* the binding's registration (oia->lock) */
	int refs;			/* the RMR's, and each HELD bind's */
	int freed;			/* dat_rmr_free ran (oia->lock) */
	/* the peers told to forget its keys that have not said so yet: a
	 * bind completes, and dat_rmr_free returns, once none is left
	 * (oia->lock) */
	struct ofi_keyx_wait *wait;
	uint32_t nwait, maxwait;
};

/* ---- functions -------------------------------------------------------------- */

/* ia.c */
DAT_RETURN ofi_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps) DAPL_HIDDEN;
void ofi_ia_close(struct dapl_ia *ia) DAPL_HIDDEN;

/* progress.c */
int ofi_progress(struct dapl_ia *ia) DAPL_HIDDEN;
void ofi_progress_ctl(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* oia->lock held: what the EP's work flags ask for; nonzero if any */
int ofi_ep_work(struct dapl_tp_ep *oep) DAPL_HIDDEN;

/* qp.c */
DAT_RETURN ofi_qp_create(struct dapl_ep *ep) DAPL_HIDDEN;
void ofi_qp_destroy(struct dapl_ep *ep) DAPL_HIDDEN;
DAT_RETURN ofi_qp_reset(struct dapl_ep *ep) DAPL_HIDDEN;

/* rmr.c */
DAT_RETURN ofi_mw_alloc(struct dapl_rmr *rmr) DAPL_HIDDEN;
void ofi_mw_free(struct dapl_rmr *rmr) DAPL_HIDDEN;
/* oia->lock held, oep locked: runs the bind at the head of the send
 * ring if every earlier request completed: 0 if it did not run, 1 if it
 * ran, 2 if it failed (the connection is to break) */
int ofi_mw_run(struct dapl_tp_ep *oep) DAPL_HIDDEN;

/* env.c */
/* IA and endpoint open and close reach libfabric's process-wide state
 * under this lock, which fork() waits for (init.c). */
void ofi_global_enter(void) DAPL_HIDDEN;
void ofi_global_leave(void) DAPL_HIDDEN;
/* env.c, under ofi_global, right before fi_getinfo or fi_endpoint for
 * an IA: FI_OFI_RXM_USE_SRX as that IA needs it (over verbs or not). */
void ofi_env_rxm_srx(int over_verbs) DAPL_HIDDEN;
/* At the provider's load: does the consumer's environment set
 * FI_OFI_RXM_USE_SRX?  (Then ofi_env_rxm_srx leaves it as it is.) */
void ofi_env_srx_init(void) DAPL_HIDDEN;
DAT_RETURN ofi_fi_err(int err, DAT_RETURN resource) DAPL_HIDDEN;
/* A number from the environment in [min, max], else def (and a
 * warning, once a process); ofi_env_num: in [1, max]. */
uint64_t ofi_env_range(const char *name, uint64_t def, uint64_t min,
		       uint64_t max) DAPL_HIDDEN;
uint64_t ofi_env_num(const char *name, uint64_t def,
		     uint64_t max) DAPL_HIDDEN;

/* local.c, shm: the endpoints this process has open, whose names go
 * into an AV under an alias (addr.c ofi_shm_insert); add, del and any
 * under ofi_global */
int ofi_local_any(void) DAPL_HIDDEN;
void ofi_local_add(const void *name, size_t len) DAPL_HIDDEN;
void ofi_local_del(const void *name, size_t len) DAPL_HIDDEN;
int ofi_local_has(const void *name, size_t len) DAPL_HIDDEN;

/* wake.c: each endpoint's wake-up (its fid context), for the engine */
struct ofi_wake;
void ofi_wake_ia_open(struct dapl_tp_ia *oia) DAPL_HIDDEN;
int ofi_progress_fd(struct dapl_ia *ia) DAPL_HIDDEN; /* udapl's op */
void ofi_wake_ia_close(struct dapl_tp_ia *oia) DAPL_HIDDEN;
struct ofi_wake *ofi_wake_bind(struct dapl_tp_ia *oia, struct fid_ep *ep,
			       struct fid_cq *tx, struct fid_cq *rx) DAPL_HIDDEN;
void ofi_wake_arm(struct ofi_wake *w) DAPL_HIDDEN;
void ofi_wake_disarm(struct ofi_wake *w) DAPL_HIDDEN;
void ofi_wake_close(struct ofi_wake *w) DAPL_HIDDEN;
int ofi_wake_trywait(struct dapl_tp_ia *oia) DAPL_HIDDEN;
int ofi_wake_mute(struct dapl_tp_ia *oia) DAPL_HIDDEN;
void ofi_wake_cq_armed(struct dapl_tp_evd *ocq) DAPL_HIDDEN;
void ofi_wake_bell_open(struct dapl_tp_ia *oia, struct fid_ep *ep,
			struct fid_cq *tx, struct fid_cq *rx,
			const uint8_t *name, size_t len) DAPL_HIDDEN;
void ofi_wake_bell_peer(struct dapl_tp_ep *oep, const uint8_t *name,
			size_t len) DAPL_HIDDEN;
void ofi_wake_ring(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oep locked: the doorbell op, just issued, owes the target: now, or,
 * for an atomic, once the consumer made OFI_BELL_POLLS vain polls of
 * the EP's request EVD, armed it, or OFI_BELL_LATEST_US passed,
 * whichever comes first: a busy target has answered by then, and its
 * doorbell is spared */
void ofi_wake_ring_op(struct dapl_tp_ep *oep,
		      const struct ofi_op *op) DAPL_HIDDEN;
/* The doorbells owed on ocq rung (bell_lock taken: any other lock may
 * be held) */
void ofi_wake_bells_pay(struct dapl_tp_evd *ocq) DAPL_HIDDEN;
/* cq.c: the engine learned what oep's held requests waited for (oep
 * unlocked, oia->lock held): they are issued by the next poll of the
 * EP's request EVD if a consumer spins on it, else now.  _pay (ocq
 * locked): the poller's part; _forget: at the EP's end. */
void ofi_cq_kick_owe(struct dapl_tp_ep *oep) DAPL_HIDDEN;
void ofi_cq_kicks_pay(struct dapl_tp_evd *ocq) DAPL_HIDDEN;
void ofi_cq_kick_forget(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oep goes: off its EVD's owed doorbells */
void ofi_wake_bell_forget(struct dapl_tp_ep *oep) DAPL_HIDDEN;
void ofi_wake_ring_addr(struct dapl_tp_ia *oia, struct fid_av *av,
			fi_addr_t dest) DAPL_HIDDEN;

/* shm_sweep.c: before the first shm endpoint of a process, removes the
 * regions a dead process of the same pid left in /dev/shm, and those of
 * processes that are gone; the sweep of one directory for one pid and
 * start time returns how many it removed. */
void ofi_shm_sweep_stale(void) DAPL_HIDDEN;
int ofi_shm_sweep(const char *dir, pid_t pid, time_t start) DAPL_HIDDEN;
/* The regions in dir of processes that are gone (shm_sweep.c): how many
 * it removed. */
int ofi_shm_sweep_dead(const char *dir) DAPL_HIDDEN;

/* addr.c */
int ofi_params_parse(const char *params, char *prov, size_t provlen,
		     struct sockaddr_in *addr) DAPL_HIDDEN;
/* The libfabric address of the endpoint at (IP, port) in the IA's
 * provider's format; its length, 0 if it has none. */
size_t ofi_addr_make(const struct dapl_tp_ia *oia,
		     const struct sockaddr_in *sin, void *buf,
		     size_t len) DAPL_HIDDEN;
/* Does someone listen at (IP, port)?  1 yes, 0 no, -1 unknown (the
 * provider's addresses do not tell: tcp probes with a connect, rdm.c),
 * OFI_ADDR_PLANTED (shm) something that is no listener's region is at
 * its name (a FIFO, a directory, ...: addr.c), said on stderr. */
#define OFI_ADDR_PLANTED (-2)
int ofi_addr_listening(const struct dapl_tp_ia *oia,
		       const struct sockaddr_in *sin) DAPL_HIDDEN;
/* shm, locked: the address in the AV to send to the listener at (IP,
 * port) in *dest (a fresh one once its region was made anew: addr.c);
 * 1 someone listens there (or unknown), 0 no one, -1 no address,
 * OFI_ADDR_PLANTED no listener's region at its name (nothing inserted).
 * ofi_addr_dest_stale: a connect sent there and heard nothing: the next
 * one takes a fresh address.  ofi_addr_gen_free: the names kept of
 * g's AV, at its close.  g: the connection's (gen.c). */
int ofi_addr_dest(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		  const struct sockaddr_in *sin, fi_addr_t *dest) DAPL_HIDDEN;
void ofi_addr_dest_stale(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
			 const struct sockaddr_in *sin) DAPL_HIDDEN;
void ofi_addr_gen_free(struct ofi_ctl_gen *g) DAPL_HIDDEN;
/* A peer's address (len bytes) into g's AV (ofi_addr_insert_gen; over
 * shm each name goes in once: addr.c says why) or into an EP's own AV
 * av (fep.c), its fi_addr in *out; 0, or -1. */
int ofi_addr_insert_gen(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
			const void *addr, size_t len,
			fi_addr_t *out) DAPL_HIDDEN;
int ofi_addr_insert(struct dapl_tp_ia *oia, struct fid_av *av,
		    const void *addr, size_t len, fi_addr_t *out) DAPL_HIDDEN;
/* The port of one of our libfabric addresses, 0 if it has none. */
uint16_t ofi_addr_port(const struct dapl_tp_ia *oia, const void *addr,
		       size_t len) DAPL_HIDDEN;

/* sp.c */
/* The port of a qualifier: one of OFI_QUAL_PORT_MIN..MAX (addr.c says
 * why); 0 for 0 */
#define OFI_QUAL_PORT_MIN 1024
#define OFI_QUAL_PORT_MAX 32767
#define OFI_QUAL_PORTS (OFI_QUAL_PORT_MAX - OFI_QUAL_PORT_MIN + 1)
uint16_t ofi_qual_port(DAT_CONN_QUAL qual) DAPL_HIDDEN;
/* oia->lock held: a service point of the IA listens on port */
int ofi_sp_port_taken(struct dapl_tp_ia *oia, uint16_t port) DAPL_HIDDEN;
/* PSP_any (oia->lock held): open_at(oia, src, arg) at src's address and
 * the free ports of OFI_ANY_PORT_MIN..OFI_QUAL_PORT_MAX in turn, past the
 * IA's own service points' and those in use, until one opens (0, src's
 * port the qualifier) or fails otherwise (its error) */
#define OFI_ANY_PORT_MIN 24576
#define OFI_ANY_PORTS (OFI_QUAL_PORT_MAX - OFI_ANY_PORT_MIN + 1)
int ofi_any_listen(struct dapl_tp_ia *oia, struct sockaddr_in *src,
		   int (*open_at)(struct dapl_tp_ia *oia,
				  const struct sockaddr_in *src, void *arg),
		   void *arg) DAPL_HIDDEN;
DAT_RETURN ofi_listen_done(struct dapl_tp_ia *oia, struct dapl_sp *sp,
			   struct dapl_tp_sp *osp, int rc, DAT_CONN_QUAL q,
			   DAT_CONN_QUAL *qual) DAPL_HIDDEN;

/* fabric.c */
/* Opens an RDM endpoint on src, bound to av and the CQs, enabled. */
int ofi_ep_open(struct dapl_tp_ia *oia, const struct sockaddr_in *src,
		struct fid_av *av, struct fid_cq *tx, struct fid_cq *rx,
		struct fid_ep **ep) DAPL_HIDDEN;
void ofi_ep_close(struct fid_ep *ep) DAPL_HIDDEN;

/* mr.c */
DAT_RETURN ofi_pz_create(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN ofi_pz_free(struct dapl_pz *pz) DAPL_HIDDEN;
DAT_RETURN ofi_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv) DAPL_HIDDEN;
DAT_RETURN ofi_mr_share(struct dapl_lmr *lmr,
			struct dapl_lmr *orig) DAPL_HIDDEN;
DAT_RETURN ofi_mr_deregister(struct dapl_lmr *lmr) DAPL_HIDDEN; /* rmr.c */
DAT_RETURN ofi_mr_drop(struct dapl_lmr *lmr, struct dapl_tp_lmr **gone)
    DAPL_HIDDEN;
/* oia->lock held: connection conn was told window m's key (cm.c KEYQ);
 * -1 if it cannot be remembered (then it must not be told) */
int ofi_mw_told(struct dapl_tp_lmr *m, uint64_t conn) DAPL_HIDDEN;
/* A fresh application key, never 0, never reused while the IA is open */
uint32_t ofi_key_next(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* oia->lock held: key, registered for remote access, is fresh: the next
 * OFI_FRESH_SENDS sends look for it (cm.c ofi_keys_announce) */
void ofi_key_fresh(struct dapl_tp_ia *oia, uint32_t key) DAPL_HIDDEN;
/* oia->lock held: key is fresh no more (told, or deregistered) */
void ofi_key_stale(struct dapl_tp_ia *oia, uint32_t key) DAPL_HIDDEN;

/* atomic.c */
/* At IA open: FI_UINT64 fetch FI_SUM and FI_CSWAP valid on ep */
int ofi_atomic_probe(struct dapl_tp_ia *oia, struct fid_ep *ep) DAPL_HIDDEN;
/* oep locked: issues an atomic to target offset or address addr of the
 * registration of libfabric key fkey */
int ofi_atomic_issue(struct dapl_tp_ep *oep, struct ofi_op *op,
		     uint64_t addr, uint64_t fkey) DAPL_HIDDEN;

/*
 * The code of a libfabric error entry, as the positive FI_* errno that
 * fi_cq(3) and fi_eq(3) promise.  libfabric 1.17's shm puts a negative
 * one in its CQ error entries (-FI_ETRUNC for a send into a too-short
 * receive), so every code read from an error entry goes through this
 * before it is mapped to a DAT status; no code at all is FI_EIO.
 */
static inline int ofi_err_code(int err)
{
	if (err < 0)
		err = -err;
	return err ? err : FI_EIO;
}

static inline void ofi_ep_want(struct dapl_tp_ep *oep, uint32_t work)
{
	__atomic_or_fetch(&oep->work, work, __ATOMIC_RELEASE);
}

/* shm: may oep's RDMAs go by its peer's key table (keytab.c)?  Its view
 * of the peer's, and the peer maps ours (its busy marks seen) */
static inline int ofi_ep_tab_ok(const struct dapl_tp_ep *oep)
{
	return oep->peer_tab && oep->tab_acked;
}

/* msg.c: the FI_EP_MSG path */
static inline int ofi_is_msg(const struct dapl_tp_ia *oia)
{
	return oia->fab.ep_type == FI_EP_MSG;
}

/* the current control endpoint of a fabric that has one (not MSG) */
static inline struct ofi_ctl_ep *ofi_ctl_of(const struct dapl_tp_ia *oia)
{
	return oia->gen ? oia->gen->ctl : NULL;
}

static inline struct dapl_tp_ia *ofi_ia_of(const void *obj)
{
	return dapl_tp_ia_of(obj);
}

#endif
