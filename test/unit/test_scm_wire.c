/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket CM's messages (providers/scm/wire.c): what encode writes,
 * decode reads back field by field; a message that arrives a byte at a
 * time is whole only at its last byte; and every kind of bad input a
 * hostile or broken peer can send -- a wrong magic or version at its
 * first bytes, an unknown type, a QP number or PSN over 24 bits, an MTU
 * no port has, private data longer than SCM_MAX_PDATA, private data on
 * a message that carries none, random bytes -- is refused (-1), never
 * read past, never taken.
 */
#include <stdlib.h>
#include <string.h>

#include "../../providers/scm/wire.h"
#include "tap.h"

static struct scm_wire sample(uint8_t type, const uint8_t *pdata,
			      uint16_t plen)
{
	struct scm_wire m;
	int i;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.qual = 0x0123456789abcdefull;
	m.qpn = 0x00fedcba;
	m.psn = 0x00123456;
	m.lid = 0xbeef;
	m.mtu = 3;
	m.flags = SCM_WIRE_GLOBAL;
	for (i = 0; i < 16; i++)
		m.gid[i] = (uint8_t)(0xa0 + i);
	m.rd_in = 16;
	m.rd_out = 8;
	m.plen = plen;
	m.pdata = pdata;
	return m;
}

static int same(const struct scm_wire *a, const struct scm_wire *b)
{
	return a->type == b->type && a->status == b->status &&
	       a->qual == b->qual && a->qpn == b->qpn && a->psn == b->psn &&
	       a->lid == b->lid && a->mtu == b->mtu && a->flags == b->flags &&
	       !memcmp(a->gid, b->gid, 16) && a->rd_in == b->rd_in &&
	       a->rd_out == b->rd_out && a->plen == b->plen &&
	       (!a->plen || !memcmp(a->pdata, b->pdata, a->plen));
}

/* decode of buf[0..len): its return value */
static int decode(const uint8_t *buf, size_t len)
{
	struct scm_wire m;
	size_t want;

	return scm_wire_decode(buf, len, &m, &want);
}

static void round_trip(void)
{
	uint8_t pdata[SCM_MAX_PDATA], buf[SCM_WIRE_MAX + 8];
	struct scm_wire m, d;
	size_t want = 0, i;
	int len, rc = -2, whole_at = -1;

	for (i = 0; i < sizeof(pdata); i++)
		pdata[i] = (uint8_t)(i * 7);
	m = sample(SCM_MSG_REQ, pdata, sizeof(pdata));
	len = scm_wire_encode(&m, buf, sizeof(buf));
	tap_ok(len == SCM_WIRE_HDR + SCM_MAX_PDATA,
	       "encode: a REQ with the largest private data is 48 + 256 bytes");
	tap_ok(buf[0] == 'D' && buf[1] == 'S' && buf[2] == 'C' && buf[3] == 'M' &&
		   buf[4] == 0 && buf[5] == SCM_WIRE_VERSION && buf[8] == 0x01 &&
		   buf[15] == 0xef && buf[17] == 0xfe && buf[19] == 0xba,
	       "encode: magic \"DSCM\", version, qualifier and QP number "
	       "big-endian at their offsets");
	/* a byte at a time: incomplete until the last */
	for (i = 0; i <= (size_t)len; i++) {
		rc = scm_wire_decode(buf, i, &d, &want);
		if (rc != 1) {
			whole_at = (int)i;
			break;
		}
	}
	tap_ok(rc == 0 && whole_at == len && want == (size_t)len,
	       "decode: a byte at a time, whole exactly at its last byte");
	tap_ok(rc == 0 && same(&m, &d) && d.pdata == buf + SCM_WIRE_HDR,
	       "decode: every field as encoded, the private data in place");
	m = sample(SCM_MSG_DREQ, NULL, 0);
	m.qpn = m.psn = 0;
	len = scm_wire_encode(&m, buf, sizeof(buf));
	tap_ok(len == SCM_WIRE_HDR && scm_wire_decode(buf, (size_t)len, &d,
						     &want) == 0 &&
		   d.type == SCM_MSG_DREQ && !d.pdata,
	       "a DREQ: the header alone, no private data");
	m = sample(SCM_MSG_REJ, NULL, 0);
	m.status = SCM_REJ_NO_QUAL;
	len = scm_wire_encode(&m, buf, sizeof(buf));
	tap_ok(scm_wire_decode(buf, (size_t)len, &d, &want) == 0 &&
		   d.status == SCM_REJ_NO_QUAL,
	       "a REJ says who refused (no such qualifier)");
	m = sample(SCM_MSG_REQ, pdata, SCM_MAX_PDATA + 1);
	tap_ok(scm_wire_encode(&m, buf, sizeof(buf)) == -1,
	       "encode refuses private data over SCM_MAX_PDATA");
	m = sample(SCM_MSG_REQ, pdata, 10);
	tap_ok(scm_wire_encode(&m, buf, SCM_WIRE_HDR + 9) == -1,
	       "encode refuses a buffer too small");
}

/* a valid REQ in buf, then one field broken by fn: decode says -1 */
static void refused(const char *what, void (*fn)(uint8_t *buf))
{
	uint8_t buf[SCM_WIRE_MAX];
	struct scm_wire m = sample(SCM_MSG_REQ, NULL, 0);
	int len = scm_wire_encode(&m, buf, sizeof(buf));

	fn(buf);
	tap_ok(decode(buf, (size_t)len) == -1, what);
}

static void bad_magic(uint8_t *b) { b[2] = 'X'; }
static void bad_version(uint8_t *b) { b[5] = SCM_WIRE_VERSION + 1; }
static void bad_type(uint8_t *b) { b[6] = 0; }
static void bad_type_high(uint8_t *b) { b[6] = 7; }
static void bad_qpn(uint8_t *b) { b[16] = 1; }
static void zero_qpn(uint8_t *b) { memset(b + 16, 0, 4); }
static void bad_psn(uint8_t *b) { b[20] = 1; }
static void bad_mtu(uint8_t *b) { b[26] = 6; }
static void zero_mtu(uint8_t *b) { b[26] = 0; }
static void bad_flags(uint8_t *b) { b[27] = 0x80; }
static void long_pdata(uint8_t *b) { b[46] = 1; b[47] = 1; } /* 257 */
static void rtu_pdata(uint8_t *b) { b[6] = SCM_MSG_RTU; b[47] = 1; }
static void bad_rej(uint8_t *b) { b[6] = SCM_MSG_REJ; b[7] = 2; }

static void hostile(void)
{
	uint8_t buf[SCM_WIRE_MAX];
	unsigned seed = 12345;
	int i, j, taken = 0;

	refused("a wrong magic is refused", bad_magic);
	refused("another version is refused", bad_version);
	refused("type 0 is refused", bad_type);
	refused("a type past DREP is refused", bad_type_high);
	refused("a QP number over 24 bits is refused", bad_qpn);
	refused("QP number 0 in a REQ is refused", zero_qpn);
	refused("a PSN over 24 bits is refused", bad_psn);
	refused("MTU code 6 is refused", bad_mtu);
	refused("MTU code 0 is refused", zero_mtu);
	refused("unknown flags are refused", bad_flags);
	refused("private data of 257 bytes is refused before it is read",
		long_pdata);
	refused("an RTU with private data is refused", rtu_pdata);
	refused("a REJ with an unknown reason is refused", bad_rej);
	/* garbage at the first bytes: refused as soon as it is seen */
	memcpy(buf, "GET / HTTP/1.0\r\n", 16);
	tap_ok(decode(buf, 1) == -1,
	       "an HTTP request is refused at its first byte");
	memcpy(buf, "DSCM", 4);
	buf[4] = 9;
	buf[5] = 9;
	tap_ok(decode(buf, 6) == -1,
	       "a wrong version is refused once its two bytes are there, "
	       "before the rest of the header");
	tap_ok(decode(buf, 0) == 1, "nothing yet: more wanted");
	/* random bytes: 100,000 tries of 0..304 bytes, none taken (the odds
	 * of a random magic and version are 2^-48 a try) */
	for (i = 0; i < 100000; i++) {
		size_t n = (size_t)(rand_r(&seed) % (SCM_WIRE_MAX + 1));

		for (j = 0; j < (int)n; j++)
			buf[j] = (uint8_t)rand_r(&seed);
		if (decode(buf, n) == 0)
			taken++;
	}
	tap_ok(taken == 0, "100,000 random byte strings: none taken");
	/* a valid header with random fields after the magic and version:
	 * whatever decode takes is within the limits */
	taken = 0;
	for (i = 0; i < 100000; i++) {
		struct scm_wire m;
		size_t want;

		for (j = 6; j < SCM_WIRE_MAX; j++)
			buf[j] = (uint8_t)rand_r(&seed);
		memcpy(buf, "DSCM\0\1", 6);
		if (scm_wire_decode(buf, SCM_WIRE_MAX, &m, &want) == 0 &&
		    (m.plen > SCM_MAX_PDATA || want > SCM_WIRE_MAX ||
		     m.type < SCM_MSG_REQ || m.type > SCM_MSG_DREP ||
		     ((m.type == SCM_MSG_REQ || m.type == SCM_MSG_REP) &&
		      (!m.qpn || m.qpn >> 24 || m.psn >> 24 || m.mtu < 1 ||
		       m.mtu > 5))))
			taken++;
	}
	tap_ok(taken == 0, "100,000 headers with random fields: nothing "
			   "out of its limits is taken");
}

int main(void)
{
	round_trip();
	hostile();
	return tap_done();
}
