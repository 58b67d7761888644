/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/msg.h - the FI_EP_MSG path's own types: the connect data's
 * header, the channel, a connection's libfabric side (msg_chan.c, msg.c)
 */
#ifndef DAPL_OFI_MSG_H
#define DAPL_OFI_MSG_H

#include "cm.h"

/* The connect, accept and reject data before the DAT private data. */
enum { OFI_HDR_REQ = 1, OFI_HDR_ACCEPT, OFI_HDR_REJECT };

struct ofi_msg_hdr {
	uint32_t magic;			/* OFI_WIRE_MAGIC */
	uint16_t version;		/* OFI_WIRE_VERSION */
	uint16_t type;			/* OFI_HDR_* */
	uint64_t qual;			/* REQ: the full qualifier */
	uint64_t conn_id;		/* the sender's connection id */
	uint64_t chan_base;		/* the sender's channel ring */
	uint32_t chan_key;
	uint32_t status;		/* REJECT: 1 peer, 0 nobody */
	struct sockaddr_in ia_addr;	/* REQ: the requester's IA address */
};

/* The channel: the fixed part of struct ofi_wire in each slot. */
#define OFI_CHAN_SLOTS 64
#define OFI_CHAN_HEAD offsetof(struct ofi_wire, ctl_addr)

struct ofi_chan_slot {
	uint8_t head[OFI_CHAN_HEAD];
	uint64_t seq;			/* 1 + the message's number; last */
};

struct ofi_chan {
	uint64_t credit;		/* the peer read this many of ours */
	uint64_t pad[7];
	struct ofi_chan_slot slot[OFI_CHAN_SLOTS];
};

struct ofi_msg_pend {
	struct ofi_msg_pend *next;
	uint8_t head[OFI_CHAN_HEAD];
};

struct ofi_msg_conn {
	struct fid_ep *fep;		/* ours until the EP takes it */
	const void *fid;		/* its fid: events name it */
	int attached;			/* the EP has it (ofi_ep_attach) */
	struct fi_info *info;		/* passive, unanswered: the request */
	struct fid_pep *pep;		/* passive: its listener, while open */
	struct ofi_chan *chan;		/* our ring, the peer writes it */
	struct fid_mr *mr;
	uint32_t key;
	uint64_t peer_base;		/* the peer's ring */
	uint32_t peer_key;
	uint64_t tx_seq;		/* messages we wrote */
	uint64_t rx_seq;		/* messages we read */
	uint64_t credit_sent;		/* rx_seq the peer was told */
	struct ofi_msg_pend *pend, **pend_tail;
	uint64_t disc_end;		/* DISCONNECTING: give up then */
	/* active: libfabric said FI_CONNECTED; ESTABLISHED waits for the
	 * passive side's ACCEPT on the channel (ofi_msg_ready), and the
	 * accept's private data waits here */
	int ready_wait;
	int pdata_len;
	uint8_t pdata[OFI_MAX_PDATA];
};

/*
 * A listener freed while requests it took were still unanswered keeps its
 * passive endpoint open until the last of them is answered: fi_reject
 * needs it, and without the reject the requester would hear nothing until
 * its connect timed out.  Meanwhile a request arriving on it is answered
 * at once as "nobody listens" (NON_PEER_REJECTED), and a listener created
 * on its port takes it over (the port is still bound to it).
 */
struct ofi_msg_linger {
	struct dapl_list link;		/* oia->lingering */
	struct fid_pep *pep;
	uint16_t port;
};

/* msg_chan.c, for msg.c (oia->lock held) */
struct ofi_msg_linger *ofi_msg_linger_of(struct dapl_tp_ia *oia,
					 const void *fid) DAPL_HIDDEN;
int ofi_msg_pep_pending(struct dapl_tp_ia *oia,
			const struct fid_pep *pep) DAPL_HIDDEN;
void ofi_msg_pep_answered(struct dapl_tp_ia *oia,
			  struct fid_pep *pep) DAPL_HIDDEN;
struct ofi_msg_conn *ofi_msg_conn_new(struct dapl_tp_ia *oia,
				      struct ofi_conn *c) DAPL_HIDDEN;
struct fid_ep *ofi_msg_fep(struct ofi_conn *c) DAPL_HIDDEN;
uint64_t ofi_msg_raddr(struct dapl_tp_ia *oia, struct ofi_msg_conn *m,
		       size_t off) DAPL_HIDDEN;
void ofi_msg_hdr_init(struct dapl_tp_ia *oia, struct ofi_msg_hdr *h,
		      int type, struct ofi_conn *c) DAPL_HIDDEN;
int ofi_msg_hdr_ok(const void *data, size_t len, int type) DAPL_HIDDEN;
void ofi_msg_flush(struct dapl_tp_ia *oia, struct ofi_conn *c) DAPL_HIDDEN;
void ofi_msg_reject(struct dapl_tp_ia *oia, struct fid_pep *pep,
		    struct fi_info *info, int peer) DAPL_HIDDEN;

#endif
