/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service points (layer 1): the port a qualifier listens on, the ports
 * the IA's service points hold, PSP_any's walk over the free ports, and
 * the end every listen shares (ofi_listen_done).  addr.c says why
 * qualifiers map to ports as they do.
 *
 * It calls env.c.  The listens call it: rdm.c and lep.c (RDM) and msg.c
 * (MSG); cm.c maps a connect's qualifier to its port here.
 */
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "ofi.h"

uint16_t ofi_qual_port(DAT_CONN_QUAL qual)
{
	const uint64_t n = OFI_QUAL_PORTS;
	uint64_t off;

	if (!qual)
		return 0;
	/* (Q - 1024) mod n, for Q below 1024 too */
	off = qual >= OFI_QUAL_PORT_MIN
		  ? (qual - OFI_QUAL_PORT_MIN) % n
		  : (n - (OFI_QUAL_PORT_MIN - qual) % n) % n;
	return (uint16_t)(OFI_QUAL_PORT_MIN + off);
}

/*
 * oia->lock held: a service point of the IA already listens on port
 * (0: none asked).  Checked before libfabric is: verbs;ofi_rxm reports
 * an rdma_cm port in use as something else (DAT_INVALID_ADDRESS, seen in
 * the soft-RoCE guest); another process's listener there still is.
 */
int ofi_sp_port_taken(struct dapl_tp_ia *oia, uint16_t port)
{
	struct dapl_list *pos, *tmp;

	if (!port)
		return 0;
	dapl_list_for_each_safe(pos, tmp, &oia->sps) {
		struct dapl_tp_sp *o =
		    dapl_container_of(pos, struct dapl_tp_sp, link);

		if (ofi_qual_port(o->qual) == port)
			return 1;
	}
	return 0;
}

/* A few failures other than "in use" (verbs;ofi_rxm reports an rdma_cm
 * port in use as something else) before PSP_any gives up. */
#define OFI_ANY_OTHER_MAX 8

int ofi_any_listen(struct dapl_tp_ia *oia, struct sockaddr_in *src,
		   int (*open_at)(struct dapl_tp_ia *oia,
				  const struct sockaddr_in *src, void *arg),
		   void *arg)
{
	/* each port of the range once, from a start of this walk's own,
	 * so that two processes looking at once do not walk the same ports */
	unsigned start = (unsigned)getpid() * 7919u +
			 (unsigned)(oia->next_conn_id++);
	unsigned i, other = 0;
	int rc = -FI_EBUSY;

	for (i = 0; i < OFI_ANY_PORTS; i++) {
		src->sin_port = htons((uint16_t)(OFI_ANY_PORT_MIN +
						 (start + i) % OFI_ANY_PORTS));
		if (ofi_sp_port_taken(oia, ntohs(src->sin_port)))
			continue;
		rc = open_at(oia, src, arg);
		if (!rc)
			break;
		if (rc != -FI_EADDRINUSE && rc != -FI_EBUSY &&
		    (rc == -FI_ENOMEM || ++other > OFI_ANY_OTHER_MAX))
			break;
	}
	return rc;
}

/*
 * oia->lock held: the end of a listen, RDM (ofi_listen) or MSG (msg.c).
 * rc nonzero undoes it (unlocks, frees osp) and gives the DAT error;
 * else sp listens through osp on qualifier q, given back in *qual.
 */
DAT_RETURN ofi_listen_done(struct dapl_tp_ia *oia, struct dapl_sp *sp,
			   struct dapl_tp_sp *osp, int rc, DAT_CONN_QUAL q,
			   DAT_CONN_QUAL *qual)
{
	if (rc) {
		pthread_mutex_unlock(&oia->lock);
		free(osp);
		dapl_dbg(DAPL_DBG_CM, "ofi: listen on port %u: %s",
			 ofi_qual_port(q), fi_strerror(-rc));
		return rc == -FI_EADDRINUSE || rc == -FI_EBUSY
			   ? DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0)
			   : ofi_fi_err(rc, DAT_RESOURCE_MEMORY);
	}
	osp->sp = sp;
	osp->qual = q;
	dapl_list_add_tail(&oia->sps, &osp->link);
	dapl_sp_set_tp(sp, osp);
	pthread_mutex_unlock(&oia->lock);
	*qual = q;
	return DAT_SUCCESS;
}
