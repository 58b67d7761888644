/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/wire.h - the control message (layer 4): what our
 * connection protocol sends on either path, and the buffers it travels
 * in on the RDM path.
 */
#ifndef DAPL_OFI_WIRE_H
#define DAPL_OFI_WIRE_H

#include "ofi.h"

/* ---- the connection protocol (rdm.c) ------------------------------------- */

enum ofi_msg_type {
	OFI_MSG_REQ = 1,	/* active -> listener: connect */
	OFI_MSG_ACCEPT,		/* passive -> active (MSG: on the channel,
				 * after the passive FI_CONNECTED; msg.c) */
	OFI_MSG_REJECT,		/* passive -> active (status: peer or not) */
	OFI_MSG_RTU,		/* active -> passive: ready to use */
	OFI_MSG_DISC,		/* either way: the connection is over */
	OFI_MSG_KA,		/* either way: keepalive */
	OFI_MSG_KEYQ,		/* where is the registration of key? */
	OFI_MSG_KEYR,		/* its base and length (status 0) or none */
	OFI_MSG_KEYX,		/* a window's key is revoked (rmr.c) */
	OFI_MSG_KEYXA,		/* the peer forgot it */
	OFI_MSG_REQACK,		/* passive -> active: the REQ was read */
	OFI_MSG_KEYN,		/* a KEYR nobody asked for: the key is in a
				 * send on its way (cm.c ofi_keys_announce) */
	OFI_MSG_KEYT,		/* shm: where the sender's key table is
				 * (keytab.c): len its fd, fkey its nonce */
	OFI_MSG_KEYTA,		/* the peer maps it (status 0) or not */
};

#define OFI_WIRE_MAGIC 0x44415446u /* "DATF" */
/* 2: on MSG the active side waits for the passive side's ACCEPT on the
 * channel before it reports ESTABLISHED (msg.c) */
#define OFI_WIRE_VERSION 2

/* DISC's status: the sender's end of the connection broke (a failed DTO,
 * a request that never completed), so the peer ends it BROKEN too, at
 * once, instead of draining it into a graceful DISCONNECTED. */
#define OFI_DISC_BROKEN 1u

/* A control message.  Host byte order: both ends are one host's kind. */
struct ofi_wire {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint64_t qual;			/* REQ: the full 64-bit qualifier */
	uint64_t src_id, dst_id;	/* connection ids of sender, receiver */
	uint64_t key, base, len;	/* KEYQ, KEYR; DISC: len = sends,
					 * base = the peer's messages received
					 * (cm.c) */
	uint64_t fkey;			/* KEYR: the registration's libfabric
					 * key (dapl_tp_lmr.fkey) */
	uint32_t status;		/* REJECT: 1 peer, 0 nobody; KEYR;
					 * DISC: OFI_DISC_BROKEN or 0 */
	uint16_t ctl_len, data_len;
	uint8_t ctl_addr[OFI_ADDR_MAX];	/* sender's control endpoint */
	uint8_t data_addr[OFI_ADDR_MAX];	/* REQ, ACCEPT: its data endpoint */
	struct sockaddr_in ia_addr;	/* REQ: the sender's IA address */
	uint16_t pdata_len;
	uint8_t pdata[OFI_MAX_PDATA];
};

struct ofi_rxbuf {
	enum ofi_ctx_kind kind;		/* OFI_CTX_CTL_RX */
	struct ofi_ctl_ep *owner;
	int posted;			/* 0: -FI_EAGAIN, the engine retries */
	struct ofi_wire msg;
};

struct ofi_txbuf {
	enum ofi_ctx_kind kind;		/* OFI_CTX_CTL_TX */
	struct dapl_list link;		/* oia->txbufs */
	int held;			/* not handed to libfabric yet */
	uint64_t since;			/* held since (ctl.c ofi_rxm_unstick) */
	uint64_t stuck_ns;		/* TCP: held that long: rxm's
					 * connection is started anew */
	struct ofi_ctl_gen *gen;	/* sent through its control endpoint;
					 * dest is in its AV */
	fi_addr_t dest;
	uint64_t conn_id;		/* whose message (errors), 0: none */
	struct ofi_wire msg;
};

/* wire.c */
void ofi_wire_init(struct dapl_tp_ia *oia, struct ofi_wire *m,
		   enum ofi_msg_type type) DAPL_HIDDEN;

#endif
