/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket CM's wire format: what two scm IAs say to each other over
 * one TCP connection per DAT connection.  Every message is a fixed
 * 48-byte header in network byte order, then the consumer's private
 * data (REQ, REP, REJ by the consumer: up to SCM_MAX_PDATA bytes):
 *
 *   off len  field
 *     0   4  magic "DSCM" (0x4453434d)
 *     4   2  version (SCM_WIRE_VERSION; another one is refused)
 *     6   1  type (enum scm_msg)
 *     7   1  status (REJ: enum scm_rej)
 *     8   8  qualifier (REQ: the full 64-bit DAT connection qualifier)
 *    16   4  QP number (REQ, REP: the sender's; 24 bits)
 *    20   4  first packet sequence number of the sender (24 bits)
 *    24   2  LID of the sender's port (InfiniBand; 0 on RoCE)
 *    26   1  path MTU of the sender's port (enum ibv_mtu: 1..5)
 *    27   1  flags (SCM_WIRE_GLOBAL: the GID routes, RoCE or IB GRH)
 *    28  16  GID of the sender's port (the one it sends from)
 *    44   1  RDMA reads the sender accepts at once (responder side)
 *    45   1  RDMA reads the sender issues at once (initiator side)
 *    46   2  length of the private data that follows
 *
 * This file is pure (no verbs, no sockets): the parser is fuzzed and
 * unit-tested on any host (test/unit/test_scm_wire.c).  Not OFA
 * compat-dapl's format: no wire compatibility with its peers (README).
 */
#ifndef DAT_PROVIDER_SCM_WIRE_H
#define DAT_PROVIDER_SCM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define SCM_WIRE_MAGIC 0x4453434du
#define SCM_WIRE_VERSION 1
#define SCM_WIRE_HDR 48
/* The private data a connect request, an accept or a reject carries:
 * dat_ia_query's max_private_data_size. */
#define SCM_MAX_PDATA 256
#define SCM_WIRE_MAX (SCM_WIRE_HDR + SCM_MAX_PDATA)

enum scm_msg {
	SCM_MSG_REQ = 1, /* connect: the requester's QP */
	SCM_MSG_REP,	 /* accept: the listener's QP */
	SCM_MSG_REJ,	 /* reject (status says by whom) */
	SCM_MSG_RTU,	 /* the requester is ready to use the connection */
	SCM_MSG_DREQ,	 /* disconnect */
	SCM_MSG_DREP,	 /* the answer to a DREQ */
};

enum scm_rej {
	SCM_REJ_CONSUMER = 0, /* dat_cr_reject: PEER_REJECTED */
	SCM_REJ_NO_QUAL = 1,  /* nobody listens there, or the provider refused
			       * (dat_psp_free(3DAT)): NON_PEER_REJECTED */
};

enum { SCM_WIRE_GLOBAL = 1 };

struct scm_wire {
	uint8_t type;
	uint8_t status;
	uint8_t mtu;
	uint8_t flags;
	uint64_t qual;
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
	uint8_t rd_in;
	uint8_t rd_out;
	uint16_t plen;
	const uint8_t *pdata; /* decode: into the buffer; encode: the data */
};

/* Writes m into buf (at least SCM_WIRE_HDR + m->plen bytes): its
 * length, or -1 if m->plen exceeds SCM_MAX_PDATA. */
int scm_wire_encode(const struct scm_wire *m, uint8_t *buf, size_t size);

/*
 * How much of a message buf[0..have) holds: 0 and *len set to the whole
 * message's length once it is complete and valid (m filled, m->pdata
 * pointing into buf); 1 if more bytes are needed (*len: how many in
 * all, as far as known); -1 if it is not a valid message (bad magic,
 * version, type, MTU, QP number or length), whatever follows.
 */
int scm_wire_decode(const uint8_t *buf, size_t have, struct scm_wire *m,
		    size_t *len);

#endif
