/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/cm.h - connections (layers 4 to 6): the control and
 * listening endpoints, the connection records and their events, the
 * upcalls to the state machine, the RDM and MSG paths and the state
 * machine's own functions.
 */
#ifndef DAPL_OFI_CM_H
#define DAPL_OFI_CM_H

#include "wire.h"

/* An endpoint that receives control messages (the IA's, or a listener's). */
struct ofi_ctl_ep {
	struct fid_ep *ep;
	struct dapl_tp_ia *oia;
	struct dapl_sp *sp;		/* listener: its service point */
	int closing;			/* its buffers' completions are stale */
	int control;			/* a control endpoint (gen.c), not a
					 * listener */
	struct dapl_list link;		/* oia->lingering_leps */
	uint16_t port;			/* lingering: its qualifier's port */
	uint64_t linger_end;		/* lingering: closes then */
	struct ofi_rxbuf *rx;		/* OFI_CTL_RX buffers */
	uint8_t name[OFI_ADDR_MAX];	/* fi_getname */
	size_t namelen;
};

enum ofi_conn_state {
	OFI_CONN_CONNECTING,	/* active: REQ sent */
	OFI_CONN_REQUEST,	/* passive: CR not yet answered */
	OFI_CONN_ACCEPTING,	/* passive: ACCEPT sent, waiting for RTU */
	OFI_CONN_ESTABLISHED,
	OFI_CONN_DRAINING,	/* the peer disconnected: its last sends
				 * may still be on their way */
	OFI_CONN_CLOSED,	/* its last event was reported */
	OFI_CONN_DISCONNECTING,	/* MSG: our DISC went, the peer's close or
				 * the bound ends it (msg.c) */
};

struct ofi_msg_conn;	/* msg.h: a connection's libfabric side on MSG */

struct ofi_conn {
	struct dapl_list link;		/* oia->conns */
	uint64_t id, peer_id;
	enum ofi_conn_state state;
	int active;
	struct dapl_ep *ep;		/* bound EP (active, or accepted) */
	struct dapl_sp *sp;		/* passive: the listener */
	struct dapl_cr *cr;		/* passive: the CR udapl made */
	struct ofi_ctl_gen *gen;	/* our control endpoint and the AV
					 * peer_ctl and dest are in (gen.c) */
	fi_addr_t peer_ctl;		/* where our control messages go */
	fi_addr_t dest;			/* active: the listener */
	uint8_t peer_data[OFI_ADDR_MAX];
	size_t peer_data_len;
	struct sockaddr_in peer_ia;	/* passive: the requester's IA */
	DAT_CONN_QUAL peer_port;
	uint64_t deadline;		/* active: connect timeout, 0: none */
	uint64_t last_heard;		/* keepalive */
	int probe_fd;			/* active, TCP: the listener probe */
	struct ofi_wire *req;		/* active: the REQ (probe, resend) */
	uint64_t req_resend;		/* active: when to send the REQ again
					 * unless the listener read it (REQACK),
					 * 0: not sent yet, or read */
	uint64_t req_gap;		/* active: the next wait for REQACK */
	int req_delivered;		/* active: libfabric completed a REQ
					 * (rdm.c ofi_ctl_tx_failed) */
	uint64_t req_delivered_at;	/* active: when it did, first */
	int listener_heard;		/* active: the listener read the REQ
					 * (REQACK) or spoke since: from then
					 * on its silence ends the connect,
					 * whatever the consumer's timeout */
	struct sockaddr_in dst;		/* active: the listener's address */
	uint8_t peer_ctl_addr[OFI_ADDR_MAX]; /* passive: the requester's */
	uint16_t peer_ctl_len;
	uint64_t drain_sends;		/* DRAINING: the peer's sends in all */
	uint64_t drain_end;		/* DRAINING: give up waiting then */
	uint64_t leave_end;		/* RDM, ESTABLISHED: our graceful
					 * disconnect waits for the EP's
					 * requests until then at most
					 * (cm.c ofi_conn_leave), 0: none */
	uint64_t keyx_acked;		/* the last revoked key the peer
					 * confirmed (KEYXA) */
	unsigned char pdata[OFI_MAX_PDATA];
	int plen;
	struct ofi_msg_conn *m;		/* MSG only (msg.h) */
};

/* A connection request is a CR: the CR's transport data is the
 * connection itself. */
static inline struct dapl_tp_cr *ofi_conn_cr(struct ofi_conn *c)
{
	return (struct dapl_tp_cr *)(void *)c;
}

static inline struct ofi_conn *ofi_cr_conn(struct dapl_cr *cr)
{
	return (struct ofi_conn *)(void *)dapl_cr_tp(cr);
}

/* A connection event queued under oia->lock, made as an upcall without
 * it (ofi_notes_deliver). */
enum ofi_note_kind { OFI_NOTE_EP, OFI_NOTE_REQ };
struct ofi_note {
	struct dapl_list link;
	enum ofi_note_kind kind;
	struct dapl_ep *ep;
	struct dapl_sp *sp;
	struct ofi_conn *conn;		/* REQ */
	enum dapl_cm_event event;
	int plen;
	unsigned char pdata[OFI_MAX_PDATA];
};

/*
 * What the layers under the connection state machine hand up to it, set
 * at IA open (ia.c): a control message read on a control endpoint (RDM)
 * or on a connection's channel (MSG), a REQ read on a listening
 * endpoint, a control send that failed.  oia->lock held, no other ofi
 * lock; never on the data path.
 */
struct ofi_cm_upcalls {
	/* a control message for one of our connections (not a REQ) */
	void (*rx)(struct dapl_tp_ia *oia, const struct ofi_wire *m);
	/* RDM: a REQ on a listening (or lingering) endpoint */
	void (*rx_req)(struct dapl_tp_ia *oia, struct ofi_ctl_ep *lep,
		       const struct ofi_wire *m);
	/* RDM: libfabric could not deliver a control message (err: a
	 * positive FI_* code) */
	void (*tx_failed)(struct dapl_tp_ia *oia, struct ofi_txbuf *tb,
			  int err);
};

/* notes.c (oia->lock held) */
/* oia->lock held: a new note on oia->notes with pdata, the rest for the
 * caller to fill; NULL if out of memory */
struct ofi_note *ofi_note_new(struct dapl_tp_ia *oia, const void *pdata,
			      int plen) DAPL_HIDDEN;
void ofi_note_ep(struct dapl_tp_ia *oia, struct dapl_ep *ep,
		 enum dapl_cm_event ev, const void *pdata, int plen) DAPL_HIDDEN;
/* a connection request for sp, handed to udapl as a CR */
int ofi_note_req(struct dapl_tp_ia *oia, struct dapl_sp *sp,
		 struct ofi_conn *c, const void *pdata, int plen) DAPL_HIDDEN;
/* oia->lock held: the EP goes away, its events not yet made with it */
void ofi_notes_forget(struct dapl_tp_ia *oia, const void *ep) DAPL_HIDDEN;

/* conn.c (oia->lock held) */
struct ofi_conn *ofi_conn_new(struct dapl_tp_ia *oia) DAPL_HIDDEN;
struct ofi_conn *ofi_conn_find(struct dapl_tp_ia *oia, uint64_t id) DAPL_HIDDEN;
void ofi_conn_free(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;

/* ctl.c */
/* A control endpoint on av and its receive buffers (oia->lock or at
 * open); ofi_ctl_close: closed, its CQ entries read, freed. */
int ofi_ctl_open(struct dapl_tp_ia *oia, struct fid_av *av,
		 const struct sockaddr_in *src, struct dapl_sp *sp,
		 struct ofi_ctl_ep **out) DAPL_HIDDEN;
void ofi_ctl_close(struct ofi_ctl_ep *c) DAPL_HIDDEN;
/* oia->lock held: the control CQ read a bounded number of times, then
 * c's endpoint closed (its buffers' completions are stale from then);
 * ofi_ctl_free: c and its buffers freed */
void ofi_ctl_shut(struct ofi_ctl_ep *c) DAPL_HIDDEN;
void ofi_ctl_free(struct ofi_ctl_ep *c) DAPL_HIDDEN;
/* oia->lock held: c's receive buffers that could not be posted
 * (-FI_EAGAIN) posted again; how many went */
int ofi_ctl_rx_repost(struct ofi_ctl_ep *c) DAPL_HIDDEN;
void ofi_ctl_sent_wait(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* oia->lock held: reads the control CQ; how many entries */
int ofi_ctl_drain(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* RDM: ofi_ctl_send's half that sends through g's control endpoint */
int ofi_ctl_post(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		 fi_addr_t dest, uint64_t conn_id,
		 const struct ofi_wire *msg) DAPL_HIDDEN;
void ofi_ctl_backlog(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* oia->lock held: is a control message to dest of g's AV held back? */
int ofi_tx_held_to(struct dapl_tp_ia *oia, const struct ofi_ctl_gen *g,
		   fi_addr_t dest) DAPL_HIDDEN;
/* oia->lock held: rxm's connection to dest closed and the address
 * inserted again under the same fi_addr_t, so that the next send
 * connects afresh; 0 if so */
int ofi_av_renew(struct fid_av *av, fi_addr_t dest) DAPL_HIDDEN;
/* oia->lock held, TCP: a REQ to dest waited in rxm too long: rxm's
 * connection to dest is started anew */
void ofi_rxm_unstick(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		     fi_addr_t dest, uint64_t now) DAPL_HIDDEN;

/* link.c (oia->lock held) */
/* oia->lock held: sends (or holds on -FI_EAGAIN) a control message to
 * dest, an address in g's AV, through g's control endpoint */
int ofi_ctl_send(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		 fi_addr_t dest, uint64_t conn_id,
		 const struct ofi_wire *msg) DAPL_HIDDEN;
/* oia->lock held: the EP is going away, its connection forgets it */
void ofi_conn_detach_ep(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* the connection's last event; tell_peer: a DISC first */
void ofi_conn_end(struct dapl_tp_ia *oia, struct ofi_conn *c,
		  enum dapl_cm_event ev, int tell_peer) DAPL_HIDDEN;
/* passive: a REJECT to the requester (peer: the consumer rejected; 0:
 * nobody listens), and the connection is closed */
void ofi_send_reject(struct dapl_tp_ia *oia, struct ofi_conn *c,
		     int peer) DAPL_HIDDEN;

/* msg_chan.c (oia->lock held) */
/* oia->lock held: a control message on the connection (ofi_ctl_send) */
int ofi_msg_send(struct dapl_tp_ia *oia, struct ofi_conn *c,
		 const struct ofi_wire *m) DAPL_HIDDEN;
/* oia->lock held: the connection ends: its endpoint if not the EP's */
void ofi_msg_conn_end(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
void ofi_msg_conn_free(struct ofi_conn *c) DAPL_HIDDEN;

/* lep.c */
/* oia->lock held: a listening endpoint for sp at src; port 0 (PSP_any):
 * at the first free port of PSP_any's range */
int ofi_listen_open(struct dapl_tp_ia *oia, struct sockaddr_in *src,
		    struct dapl_sp *sp, struct ofi_ctl_ep **lep) DAPL_HIDDEN;
/* shm, oia->lock held: the listening endpoint of a freed PSP lingers
 * at its qualifier's port */
void ofi_lep_linger(struct dapl_tp_ia *oia, struct ofi_ctl_ep *lep,
		    uint16_t port) DAPL_HIDDEN;
void ofi_lep_linger_end(struct dapl_tp_ia *oia, int all) DAPL_HIDDEN;
/* oia->lock held: the listening endpoint of every service point closed
 * and opened again on the current AV (gen.c ofi_gen_roll) */
void ofi_listeners_reopen(struct dapl_tp_ia *oia) DAPL_HIDDEN;

/* gen.c: the IA's control endpoint and AV (struct ofi_ctl_gen).
 * ofi_gen_open: the first, at IA open (oia->gen).  ofi_gen_roll, locked
 * and outside the control CQ's handlers: over shm, a new one once the
 * current one's AV has taken OFI_GEN_ROLL names.  ofi_gens_reap,
 * locked: the old ones nothing is on any more, closed.  ofi_gens_close:
 * all, at the IA's close. */
int ofi_gen_open(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* locked: every control endpoint's receive buffers posted (ctl.c
 * ofi_ctl_rx_repost); how many went */
int ofi_ctl_repost(struct dapl_tp_ia *oia) DAPL_HIDDEN;
void ofi_gen_roll(struct dapl_tp_ia *oia) DAPL_HIDDEN;
void ofi_gens_reap(struct dapl_tp_ia *oia) DAPL_HIDDEN;
void ofi_gens_close(struct dapl_tp_ia *oia) DAPL_HIDDEN;

/* rdm.c */
/* RDM: listen, connect and accept after ofi_listen, ofi_connect and
 * ofi_accept checked the arguments (the same as msg.c's for MSG) */
DAT_RETURN ofi_rdm_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual) DAPL_HIDDEN;
DAT_RETURN ofi_rdm_connect(struct dapl_ep *ep, const struct sockaddr_in *to,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN ofi_rdm_accept(struct dapl_cr *cr, struct dapl_ep *ep,
			  const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
/* RDM, oia->lock held: a REQ read on listening endpoint lep */
void ofi_rx_req(struct dapl_tp_ia *oia, struct ofi_ctl_ep *lep,
		const struct ofi_wire *m) DAPL_HIDDEN;
/* RDM, oia->lock held: libfabric could not deliver control message tb
 * (err: a positive FI_* code) */
void ofi_ctl_tx_failed(struct dapl_tp_ia *oia, struct ofi_txbuf *tb,
		       int err) DAPL_HIDDEN;
/* RDM, oia->lock held: the listener's ACCEPT of active connection c */
void ofi_rx_accept(struct dapl_tp_ia *oia, struct ofi_conn *c,
		   const struct ofi_wire *m) DAPL_HIDDEN;
/* RDM, oia->lock held: c's listener probe finished?  Then the REQ
 * goes, or the connection ends. */
void ofi_probe_check(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
/* RDM, oia->lock held: no REQACK came: the REQ again, once somebody
 * listens there */
void ofi_req_resend(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;

/* msg.c */
/* ofi_msg_wanted: select.h */
int ofi_msg_ia_open(struct dapl_tp_ia *oia) DAPL_HIDDEN;
void ofi_msg_ia_close(struct dapl_tp_ia *oia) DAPL_HIDDEN;
DAT_RETURN ofi_msg_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual) DAPL_HIDDEN;
/* oia->lock held: closes the passive endpoint of osp */
void ofi_msg_listen_close(struct dapl_tp_sp *osp) DAPL_HIDDEN;
DAT_RETURN ofi_msg_connect(struct dapl_ep *ep, const struct sockaddr_in *dst,
			   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
			   const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN ofi_msg_accept(struct dapl_cr *cr, struct dapl_ep *ep,
			  const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
/* oia->lock held: a graceful disconnect of an established connection */
void ofi_msg_disconnect(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
void ofi_msg_ready(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
void ofi_msg_catch_up(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
/* oia->lock held: connection events, control messages, timers */
int ofi_msg_progress(struct dapl_tp_ia *oia, uint64_t now) DAPL_HIDDEN;

/* cm.c */
DAT_RETURN ofi_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual) DAPL_HIDDEN;
void ofi_listen_stop(struct dapl_sp *sp) DAPL_HIDDEN;
DAT_RETURN ofi_connect(struct dapl_ep *ep, const struct sockaddr *remote,
		       DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
		       const void *pdata, DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN ofi_accept(struct dapl_cr *cr, struct dapl_ep *ep, const void *pdata,
		      DAT_COUNT plen) DAPL_HIDDEN;
DAT_RETURN ofi_reject(struct dapl_cr *cr) DAPL_HIDDEN;
void ofi_cr_destroy(struct dapl_cr *cr) DAPL_HIDDEN;
DAT_RETURN ofi_disconnect(struct dapl_ep *ep, int abrupt) DAPL_HIDDEN;
/* oia->lock held: keepalives, connect timeouts, broken connections */
void ofi_cm_timers(struct dapl_tp_ia *oia, uint64_t now) DAPL_HIDDEN;
/* oia->lock held: a failed DTO of oep breaks its connection */
void ofi_conn_broken(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* shm: oep's peer died in a lock (shm_guard.c): the connection ends
 * without a word to the peer */
void ofi_conn_peer_gone(struct dapl_tp_ep *oep) DAPL_HIDDEN;
/* oia->lock held: tells the peer of connection conn_id that key is
 * revoked (rmr.c); 1 if it was told, 0 if the connection is gone. */
int ofi_keyx_send(struct dapl_tp_ia *oia, uint64_t conn_id,
		  uint32_t key) DAPL_HIDDEN;
/* oia->lock held: the peer confirmed key, or the connection is over */
int ofi_keyx_done(struct dapl_tp_ia *oia, uint64_t conn_id,
		  uint32_t key) DAPL_HIDDEN;
/* Without the lock: makes the upcalls queued so far. */
void ofi_notes_deliver(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* IA close: forgets upcalls never made (their brackets closed). */
void ofi_notes_drop(struct dapl_tp_ia *oia) DAPL_HIDDEN;
/* link.c, locked, shm: tells the connection's peer where our key table
 * is (KEYT), once it is established (rdm.c, cm.c RTU) */
void ofi_keyt_send(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
/* oep's consumer posts a send of sge[num] while keys are fresh: those in
 * its data are told to the peer first (KEYN); ia.c sets it as
 * oia->announce for ep.c */
void ofi_keys_announce(struct dapl_tp_ep *oep, const struct dapl_sge *sge,
		       int num) DAPL_HIDDEN;
/* a control message for one of our connections (not a REQ) */
void ofi_rx_conn(struct dapl_tp_ia *oia, const struct ofi_wire *m) DAPL_HIDDEN;

#endif
