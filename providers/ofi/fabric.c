/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints (layer 2): ofi_ep_open and ofi_ep_close open and close an
 * RDM endpoint under ofi_global, with its wake-up (wake.c) and, over
 * shm, its name in the list of this process's endpoints (local.c).
 *
 * It calls addr.c, env.c, local.c and wake.c.  The control and listening
 * endpoints (ctl.c), a DAT EP's data endpoint (fep.c) and MSG
 * connections' endpoints (msg_chan.c) open and close through it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "ofi.h"

int ofi_ep_open(struct dapl_tp_ia *oia, const struct sockaddr_in *src,
		struct fid_av *av, struct fid_cq *tx, struct fid_cq *rx,
		struct fid_ep **out)
{
	struct fi_info *info = fi_dupinfo(oia->info);
	struct fid_ep *ep;
	int rc;

	if (!info)
		return -FI_ENOMEM;
	/* bound to (IP, port) (addr.c); port 0 of a provider whose
	 * addresses are names: the name fi_getinfo gave, which the provider
	 * makes unique */
	if (info->addr_format == FI_SOCKADDR_IN || src->sin_port) {
		uint8_t a[OFI_ADDR_MAX];
		size_t n = ofi_addr_make(oia, src, a, sizeof(a));

		if (!n) {
			fi_freeinfo(info);
			return -FI_EINVAL;
		}
		free(info->src_addr);
		info->src_addr = malloc(n);
		if (!info->src_addr) {
			fi_freeinfo(info);
			return -FI_ENOMEM;
		}
		memcpy(info->src_addr, a, n);
		info->src_addrlen = n;
	}
	/* shm names its endpoints in a process-wide list (env.c) */
	ofi_global_enter();
	ofi_env_rxm_srx(oia->fab.rxm_srx);
	rc = fi_endpoint(oia->domain, info, &ep, NULL);
	fi_freeinfo(info);
	if (rc) {
		ofi_global_leave();
		return rc;
	}
	/* libfabric 1.17: closing an rxm endpoint that was never bound or
	 * enabled crashes, so a failure past here leaks it instead */
	rc = fi_ep_bind(ep, &av->fid, 0);
	if (!rc && tx == rx)
		rc = fi_ep_bind(ep, &tx->fid, FI_TRANSMIT | FI_RECV);
	else if (!rc) {
		rc = fi_ep_bind(ep, &tx->fid, FI_TRANSMIT);
		if (!rc)
			rc = fi_ep_bind(ep, &rx->fid, FI_RECV);
	}
	if (!rc) {
		/* wake.c */
		struct ofi_wake *w = ofi_wake_bind(oia, ep, tx, rx);

		rc = fi_enable(ep);
		/* bound, not enabled (shm: its name is taken): closed, or
		 * the CQ's next read progresses it and crashes */
		if (rc) {
			fi_close(&ep->fid);
			ofi_wake_close(w);
		} else {
			ep->fid.context = w;
			ofi_wake_arm(w);
		}
	}
	if (!rc && oia->fab.ep_av) { /* shm: listed (local.c) */
		uint8_t name[OFI_ADDR_MAX];
		size_t len = sizeof(name);

		if (!fi_getname(&ep->fid, name, &len)) {
			ofi_local_add(name, len);
			/* its doorbell, under its name (wake.c) */
			ofi_wake_bell_open(oia, ep, tx, rx, name, len);
		}
	}
	ofi_global_leave();
	if (rc) {
		dapl_dbg(DAPL_DBG_CM, "ofi: endpoint setup: %s",
			 fi_strerror(-rc));
		return rc;
	}
	*out = ep;
	return 0;
}

/* Closes an endpoint of ofi_ep_open or ofi_msg_ep_open (its wake-up
 * first out of the engine's list, closed after it), under the same lock. */
void ofi_ep_close(struct fid_ep *ep)
{
	struct ofi_wake *w = ep->fid.context;

	ofi_wake_disarm(w);
	ofi_global_enter();
	if (ofi_local_any()) { /* shm: no longer listed (local.c) */
		uint8_t name[OFI_ADDR_MAX];
		size_t len = sizeof(name);

		if (!fi_getname(&ep->fid, name, &len))
			ofi_local_del(name, len);
	}
	fi_close(&ep->fid);
	ofi_global_leave();
	ofi_wake_close(w);
}
