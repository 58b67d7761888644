/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/select.c - the hints an IA asks libfabric with and the
 * choice of endpoint type (select.h): compiled into libdaplofi.so.1 and
 * into datadm.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rdma/fi_errno.h>

#include "select.h"

/*
 * The libfabric providers an IA refuses, each with what was seen.  Only
 * what was measured on libfabric 1.17 (Debian 12): the others on this
 * machine (tcp, shm, tcp;ofi_rxm, udp;ofi_rxd, net, net;ofi_rxm) carry
 * dapltest -T F (README.md: which libfabric providers).
 */
static const struct {
	const char *name;
	const char *why;
} ofi_refusals[] = {
    {"sockets",
     "libfabric 1.17's sockets provider crashes the listening process "
     "(SIGSEGV in libfabric's own thread) at its first connection request "
     "(dapltest -T S); libfabric deprecates it: use tcp or tcp;ofi_rxm"},
};

const char *ofi_refused(const char *prov)
{
	size_t i, n;
	const char *p;

	/* each provider of a stack ("a;b"), compared whole */
	for (p = prov; *p; p += n + (p[n] == ';')) {
		n = strcspn(p, ";");
		for (i = 0; i < sizeof(ofi_refusals) / sizeof(ofi_refusals[0]);
		     i++)
			if (strlen(ofi_refusals[i].name) == n &&
			    !strncmp(p, ofi_refusals[i].name, n))
				return ofi_refusals[i].why;
	}
	return NULL;
}

int ofi_msg_wanted(const char *prov)
{
	return !strchr(prov, ';');
}

/* The hints every IA asks with: what DAT needs of an RDM endpoint, or of
 * a MSG one (msg.c: no atomics there). */
static struct fi_info *ofi_hints(const struct ofi_fi_calls *fi,
				 const char *prov, enum fi_ep_type type)
{
	struct fi_info *h = fi->dupinfo(NULL); /* fi_allocinfo() */

	if (!h)
		return NULL;
	h->ep_attr->type = type;
	h->caps = FI_MSG | FI_RMA;
	if (type == FI_EP_RDM)
		h->caps |= FI_ATOMIC; /* atomics: atomic.c */
	h->domain_attr->threading = FI_THREAD_SAFE;
	/* we translate addresses ourselves unless the provider wants
	 * virtual addresses; DAT keys are ours, and where the provider
	 * picks its own (verbs;ofi_rxm refuses hints without
	 * FI_MR_PROV_KEY) the peer learns them (mr.c); DAT memory is
	 * the process's own (FI_MR_ALLOCATED, which verbs requires too) */
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY |
				  FI_MR_ALLOCATED;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->fabric_attr->prov_name = strdup(prov);
	if (!h->fabric_attr->prov_name) {
		fi->freeinfo(h);
		return NULL;
	}
	return h;
}

static int ofi_getinfo(const struct ofi_fi_calls *fi, const char *prov,
		       const struct sockaddr_in *addr, enum fi_ep_type type,
		       struct fi_info **out)
{
	struct fi_info *h = ofi_hints(fi, prov, type);
	char ip[INET_ADDRSTRLEN];
	int rc;

	if (!h)
		return -FI_ENOMEM;
	inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof(ip));
	for (;;) {
		rc = fi->getinfo(OFI_FI_VERSION, ip, NULL, FI_SOURCE, h, out);
		/* shm: its addresses are names, not IP ones (given the IP it
		 * would name every process's endpoints alike); without a node
		 * it names them after the process (addr.c) */
		if (!rc && (*out)->addr_format != FI_SOCKADDR_IN) {
			fi->freeinfo(*out);
			*out = NULL;
			rc = -FI_ENODATA;
		}
		if (rc == -FI_ENODATA)
			rc = fi->getinfo(OFI_FI_VERSION, NULL, NULL, 0, h, out);
		if (rc != -FI_ENODATA || !(h->caps & FI_ATOMIC))
			break;
		/* no atomics there: the IA without them (reported absent) */
		h->caps &= ~FI_ATOMIC;
	}
	fi->freeinfo(h);
	return rc;
}

int ofi_select_info(const struct ofi_fi_calls *fi, const char *prov,
		    const struct sockaddr_in *addr, struct fi_info **out)
{
	int rc = -FI_ENODATA;

	*out = NULL;
	if (ofi_refused(prov))
		return -FI_ENOSYS;
	if (ofi_msg_wanted(prov))
		rc = ofi_getinfo(fi, prov, addr, FI_EP_MSG, out);
	if (rc)
		rc = ofi_getinfo(fi, prov, addr, FI_EP_RDM, out);
	return rc;
}
