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
 *
 * How (IP, port) becomes a libfabric address depends on the provider's
 * address format:
 *   - FI_SOCKADDR_IN (tcp;ofi_rxm): the sockaddr_in itself;
 *   - FI_ADDR_STR (shm): the name "dat-<IP>-<port>", e.g.
 *     "dat-127.0.0.1-5000".  shm takes a name without its "fi_shm://"
 *     prefix as it is, and its region is /dev/shm/<name>: a second
 *     listener on that name (in any process of the host) gets -FI_EBUSY,
 *     so DAT_CONN_QUAL_IN_USE, as a port in use does over TCP; a name
 *     with no region means nobody listens (NON_PEER_REJECTED at once, see
 *     ofi_addr_listening).  Endpoints of port 0 (the IA's control
 *     endpoint, every DAT EP's data endpoint) keep the name shm makes of
 *     fi_getinfo's "fi_shm://<pid>" (it appends ":<uid>:<index>"), unique
 *     on the host.  PSP_any picks a free port of 49152..65535 itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>

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

/* shm's name of (IP, port); its length with the NUL */
static size_t ofi_shm_name(const struct sockaddr_in *sin, char *buf,
			   size_t len)
{
	char ip[INET_ADDRSTRLEN];
	int n;

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	n = snprintf(buf, len, "dat-%s-%u", ip, ntohs(sin->sin_port));
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n + 1;
}

size_t ofi_addr_make(const struct dapl_tp_ia *oia,
		     const struct sockaddr_in *sin, void *buf, size_t len)
{
	switch (oia->info->addr_format) {
	case FI_SOCKADDR_IN:
		if (len < sizeof(*sin))
			return 0;
		memcpy(buf, sin, sizeof(*sin));
		return sizeof(*sin);
	case FI_ADDR_STR:
		return ofi_shm_name(sin, buf, len);
	default:
		return 0;
	}
}

int ofi_addr_listening(const struct dapl_tp_ia *oia,
		       const struct sockaddr_in *sin)
{
	char name[OFI_ADDR_MAX + 1];
	int fd;

	if (oia->info->addr_format != FI_ADDR_STR ||
	    !ofi_shm_name(sin, name + 1, sizeof(name) - 1))
		return -1;
	/* shm's region of a listener: /dev/shm/<name> */
	name[0] = '/';
	fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ENOENT ? 0 : -1;
}

uint16_t ofi_addr_port(const struct dapl_tp_ia *oia, const void *addr,
		       size_t len)
{
	const struct sockaddr_in *sin = addr;
	const char *s = addr, *dash;

	switch (oia->info->addr_format) {
	case FI_SOCKADDR_IN:
		return len == sizeof(*sin) ? ntohs(sin->sin_port) : 0;
	case FI_ADDR_STR:
		/* "dat-<IP>-<port>"; shm's own names have no port */
		if (len < 5 || strncmp(s, "dat-", 4) || !memchr(s, 0, len))
			return 0;
		dash = strrchr(s, '-');
		return (uint16_t)strtoul(dash + 1, NULL, 10);
	default:
		return 0;
	}
}
