/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDM's listening endpoints (layer 5): one opened at a qualifier's port
 * (PSP_any: the first free one), kept lingering after dat_psp_free over
 * shm until a PSP on its qualifier takes it over or its time is up, and
 * all of them opened again on a new AV (gen.c).
 *
 * It calls addr.c, ctl.c and sp.c.  rdm.c opens listeners here, cm.c
 * lets them linger and its timers end the lingering ones, gen.c reopens
 * them, and ia.c's close ends what lingers still.
 */
#include <arpa/inet.h>
#include "ofi.h"
#include "cm.h"

/* shm: how many freed listeners' endpoints may linger at once (each
 * holds a shm region of 16 MB); how long: oia->linger_ns
 * (DAPL_OFI_LINGER_MS, default 5 s; ofi_lep_linger). */
#define OFI_LINGER_MAX 4

/*
 * locked, shm: a freed listener's endpoint stays open a while instead of
 * closing.  shm maps the region of a name once, at the first send to it,
 * and keeps that mapping until the address leaves the AV: a listener
 * closed and opened again on the same qualifier has a new region under
 * the same name, and what a client that sent to the old one sends now
 * goes through its old mapping, where nobody reads it (psp-gone.bats:
 * the client's second REQ never reached the new PSP; churn.bats: after a
 * few rounds no request reached the server).  Refreshing the address
 * (fi_av_remove and fi_av_insert again) is no way out: libfabric 1.17's
 * shm then keeps the endpoint's peer slot marked as known, and a send
 * to the name, inserted again while its region was gone, crashes in
 * smr_generic_sendmsg on the NULL region (SIGSEGV in
 * pthread_spin_lock, core of a churn.bats client).  So the endpoint
 * lingers: a PSP created on its qualifier meanwhile takes it over
 * (ofi_listen_open), the region stays the same, and a request that
 * reaches it while nobody listens is rejected as finding nobody
 * (ofi_rx_req: no service point).  A qualifier opened again after the
 * linger has a new region: a client IA that sent to the old one finds
 * that out at its next connect and sends under a fresh address (addr.c
 * ofi_addr_dest).
 */
void ofi_lep_linger(struct dapl_tp_ia *oia, struct ofi_ctl_ep *lep,
		    uint16_t port)
{
	lep->sp = NULL;
	lep->port = port;
	lep->linger_end = dapl_now_ns() + oia->linger_ns;
	dapl_list_add_tail(&oia->lingering_leps, &lep->link);
	if (++oia->nlingering > OFI_LINGER_MAX) {
		struct ofi_ctl_ep *old = dapl_container_of(
		    oia->lingering_leps.next, struct ofi_ctl_ep, link);

		old->linger_end = 0;
		ofi_lep_linger_end(oia, 0);
	}
}

/* locked: the lingering endpoints whose time is up (all: every one). */
void ofi_lep_linger_end(struct dapl_tp_ia *oia, int all)
{
	struct dapl_list *pos, *tmp;
	uint64_t now = dapl_now_ns();

	dapl_list_for_each_safe(pos, tmp, &oia->lingering_leps) {
		struct ofi_ctl_ep *lep =
		    dapl_container_of(pos, struct ofi_ctl_ep, link);

		if (!all && now < lep->linger_end)
			continue;
		dapl_list_del(&lep->link);
		oia->nlingering--;
		ofi_ctl_close(lep);
	}
}

/* locked: the lingering endpoint of port, taken off the list, or NULL */
static struct ofi_ctl_ep *ofi_lep_take(struct dapl_tp_ia *oia, uint16_t port)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->lingering_leps) {
		struct ofi_ctl_ep *lep =
		    dapl_container_of(pos, struct ofi_ctl_ep, link);

		if (lep->port == port) {
			dapl_list_del(&lep->link);
			oia->nlingering--;
			return lep;
		}
	}
	return NULL;
}

/* ---- the CM ops ---- */

/* shm: someone listens at src's name, or it holds what no region is */
static int ofi_name_taken(struct dapl_tp_ia *oia,
			  const struct sockaddr_in *src)
{
	int rc = ofi_addr_listening(oia, src);

	return rc == 1 || rc == OFI_ADDR_PLANTED;
}

/* locked: a listening endpoint at src (its port set) */
static int ofi_listen_at(struct dapl_tp_ia *oia,
			 const struct sockaddr_in *src, struct dapl_sp *sp,
			 struct ofi_ctl_ep **lep)
{
	if (oia->info->addr_format == FI_SOCKADDR_IN)
		return ofi_ctl_open(oia, oia->gen->av, src, sp, lep);
	/* shm: a freed listener's endpoint still lingering on this port
	 * serves the new one (ofi_lep_linger) */
	if (oia->fab.linger) {
		*lep = ofi_lep_take(oia, ntohs(src->sin_port));
		if (*lep) {
			(*lep)->sp = sp;
			return 0;
		}
	}
	/* shm: an endpoint refused a name in use unlinks that name's
	 * region as it closes, so a name in use is never tried; nor one
	 * where something else was planted (addr.c ofi_shm_look) */
	return ofi_name_taken(oia, src) ? -FI_EBUSY
					: ofi_ctl_open(oia, oia->gen->av,
						       src, sp, lep);
}

/*
 * locked: the IA moved on to a new AV (gen.c): each listener's endpoint
 * closes (its REQs read first, as at a PSP's free: ofi_ctl_shut) and
 * opens again under the same name on the new AV, whose names shm's name
 * exchange takes for the requesters from now on.  A REQ that reached the
 * old region unread is sent again by its connect (no REQACK), to the new
 * region (addr.c ofi_addr_dest: a new region, a fresh address).
 * Lingering ones close: they are of the old AV too.  A listener that
 * cannot open again says so and stops listening (its PSP stays, as
 * after dat_psp_free's peer found nobody: NON_PEER_REJECTED).
 */
void ofi_listeners_reopen(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;

	ofi_lep_linger_end(oia, 1);
	dapl_list_for_each_safe(pos, tmp, &oia->sps) {
		struct dapl_tp_sp *osp =
		    dapl_container_of(pos, struct dapl_tp_sp, link);
		struct sockaddr_in src = oia->addr;
		struct ofi_ctl_ep *old = osp->lep;
		int rc;

		if (!old)
			continue;
		ofi_ctl_shut(old);
		ofi_ctl_drain(oia);
		ofi_ctl_free(old);
		src.sin_port = htons(ofi_qual_port(osp->qual));
		rc = ofi_ctl_open(oia, oia->gen->av, &src, osp->sp, &osp->lep);
		if (rc) {
			osp->lep = NULL;
			dapl_dbg(DAPL_DBG_ERR,
				 "ofi: the listener on port %u could not open "
				 "again on the IA's new control endpoint: %s",
				 ofi_qual_port(osp->qual), fi_strerror(-rc));
		}
	}
}

/* ofi_any_listen's try: sp's listening endpoint at src (arg: sp, and
 * where the endpoint goes) */
struct ofi_listen_try {
	struct dapl_sp *sp;
	struct ofi_ctl_ep **lep;
};

static int ofi_listen_try(struct dapl_tp_ia *oia,
			  const struct sockaddr_in *src, void *arg)
{
	struct ofi_listen_try *t = arg;

	return ofi_listen_at(oia, src, t->sp, t->lep);
}

/* locked: a listening endpoint at src; port 0 (PSP_any): at the first
 * free port of PSP_any's range (sp.c ofi_any_listen), never one the
 * kernel picks (an ephemeral port is no qualifier's port) */
int ofi_listen_open(struct dapl_tp_ia *oia, struct sockaddr_in *src,
		    struct dapl_sp *sp, struct ofi_ctl_ep **lep)
{
	struct ofi_listen_try t = {.sp = sp, .lep = lep};

	if (src->sin_port)
		return ofi_listen_at(oia, src, sp, lep);
	return ofi_any_listen(oia, src, ofi_listen_try, &t);
}
