/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the socket CM's message parser
 * (providers/scm/wire.c), fed as a socket feeds it: the bytes arrive in
 * pieces (the first input byte picks where the first piece ends), and
 * each call sees only what came so far.  Beyond "no crash": decode never
 * asks for more than one message's bytes, a message it takes is within
 * its limits and its private data inside the input, and encoding what it
 * took gives back exactly the bytes it read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../providers/scm/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[SCM_WIRE_MAX];
	struct scm_wire m;
	size_t have, want = 0, cut;
	uint8_t *buf;
	int rc = 1;

	if (!size)
		return 0;
	cut = 1 + data[0] % SCM_WIRE_MAX;
	data++, size--;
	/* an exact-size heap copy, so that ASan sees any read past it */
	buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	for (have = size < cut ? size : cut; ; have = want < size ? want : size) {
		rc = scm_wire_decode(buf, have, &m, &want);
		if (rc != 1 || have == size || want <= have)
			break;
		if (want > SCM_WIRE_MAX)
			abort();
	}
	if (rc == 1 && want > SCM_WIRE_MAX)
		abort();
	if (rc == 0) {
		int len;

		if (want > have || m.plen > SCM_MAX_PDATA ||
		    m.type < SCM_MSG_REQ || m.type > SCM_MSG_DREP ||
		    (m.plen && (m.pdata < buf || m.pdata + m.plen > buf + have)))
			abort();
		len = scm_wire_encode(&m, out, sizeof(out));
		if (len < 0 || (size_t)len != want || memcmp(out, buf, want))
			abort();
	}
	free(buf);
	return 0;
}
