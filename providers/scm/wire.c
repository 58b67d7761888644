/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket CM's messages to and from bytes (wire.h has the layout).
 * Byte by byte, so that neither the host's byte order nor its alignment
 * matters, and a peer's bytes are never cast to a structure.
 */
#include <string.h>

#include "wire.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

int scm_wire_encode(const struct scm_wire *m, uint8_t *buf, size_t size)
{
	if (m->plen > SCM_MAX_PDATA || size < SCM_WIRE_HDR + (size_t)m->plen)
		return -1;
	put32(buf, SCM_WIRE_MAGIC);
	put16(buf + 4, SCM_WIRE_VERSION);
	buf[6] = m->type;
	buf[7] = m->status;
	put32(buf + 8, (uint32_t)(m->qual >> 32));
	put32(buf + 12, (uint32_t)m->qual);
	put32(buf + 16, m->qpn);
	put32(buf + 20, m->psn);
	put16(buf + 24, m->lid);
	buf[26] = m->mtu;
	buf[27] = m->flags;
	memcpy(buf + 28, m->gid, 16);
	buf[44] = m->rd_in;
	buf[45] = m->rd_out;
	put16(buf + 46, m->plen);
	if (m->plen)
		memcpy(buf + SCM_WIRE_HDR, m->pdata, m->plen);
	return SCM_WIRE_HDR + m->plen;
}

/* The fields a message of its type must have right. */
static int scm_wire_valid(const struct scm_wire *m)
{
	switch (m->type) {
	case SCM_MSG_REQ:
	case SCM_MSG_REP:
		/* a QP number and PSN are 24 bits, 0 is no QP; the MTU one
		 * of IBV_MTU_256 (1) .. IBV_MTU_4096 (5) */
		return m->qpn && m->qpn < (1u << 24) && m->psn < (1u << 24) &&
		       m->mtu >= 1 && m->mtu <= 5 &&
		       !(m->flags & ~SCM_WIRE_GLOBAL);
	case SCM_MSG_REJ:
		return m->status == SCM_REJ_CONSUMER ||
		       m->status == SCM_REJ_NO_QUAL;
	case SCM_MSG_RTU:
	case SCM_MSG_DREQ:
	case SCM_MSG_DREP:
		return !m->plen;
	default:
		return 0;
	}
}

int scm_wire_decode(const uint8_t *buf, size_t have, struct scm_wire *m,
		    size_t *len)
{
	size_t i;

	/* what is there of the fixed part must already be right: a peer
	 * that sends garbage is refused at its first wrong byte */
	for (i = 0; i < 4 && i < have; i++)
		if (buf[i] != (uint8_t)(SCM_WIRE_MAGIC >> (24 - 8 * i)))
			return -1;
	if (have >= 6 && get16(buf + 4) != SCM_WIRE_VERSION)
		return -1;
	*len = SCM_WIRE_HDR;
	if (have < SCM_WIRE_HDR)
		return 1;
	memset(m, 0, sizeof(*m));
	m->type = buf[6];
	m->status = buf[7];
	m->qual = (uint64_t)get32(buf + 8) << 32 | get32(buf + 12);
	m->qpn = get32(buf + 16);
	m->psn = get32(buf + 20);
	m->lid = get16(buf + 24);
	m->mtu = buf[26];
	m->flags = buf[27];
	memcpy(m->gid, buf + 28, 16);
	m->rd_in = buf[44];
	m->rd_out = buf[45];
	m->plen = get16(buf + 46);
	if (m->plen > SCM_MAX_PDATA || !scm_wire_valid(m))
		return -1;
	*len = SCM_WIRE_HDR + (size_t)m->plen;
	if (have < *len)
		return 1;
	m->pdata = m->plen ? buf + SCM_WIRE_HDR : NULL;
	return 0;
}
