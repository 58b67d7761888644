/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses.
 *
 * ia_params of a dat.conf entry: "<libfabric provider> <IPv4 address>",
 * e.g. "tcp;ofi_rxm 127.0.0.1".  The IA address DAT applications see is
 * that IPv4 address as a sockaddr_in with port 0.
 *
 * A service point (PSP/RSP) with qualifier Q listens on a libfabric
 * endpoint at IP:port(Q), port(Q) = 1 + (Q - 1) mod 65535 (so 1..65535
 * are ports as they are); a connect to (IP, Q) sends its request there,
 * and the request carries the full 64-bit Q: a listener whose own
 * qualifier differs (two qualifiers that map to one port) answers "no
 * one listens" and never takes it.  Two service points of one IP whose
 * qualifiers map to one port cannot coexist: the second gets
 * DAT_CONN_QUAL_IN_USE, as a port in use anywhere on the host does.
 * Qualifier 0 (PSP_any) takes a free port and reports it as Q.
 */
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "ofi.h"

int ofi_params_parse(const char *params, char *prov, size_t provlen,
		     struct sockaddr_in *addr)
{
	char p[128], host[256], extra[2];
	struct addrinfo hints, *res = NULL;
	int n;

	if (!params)
		return -1;
	n = sscanf(params, " %127s %255s %1s", p, host, extra);
	if (n != 2 || strlen(p) >= provlen)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -1;
	memset(addr, 0, sizeof(*addr));
	memcpy(addr, res->ai_addr, sizeof(*addr));
	addr->sin_port = 0;
	freeaddrinfo(res);
	snprintf(prov, provlen, "%s", p);
	return 0;
}

uint16_t ofi_qual_port(DAT_CONN_QUAL qual)
{
	return qual ? (uint16_t)(1 + (qual - 1) % 65535) : 0;
}
