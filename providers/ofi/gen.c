/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IA's control endpoint and its address vector, in generations
 * (struct ofi_ctl_gen, ofi.h).
 *
 * libfabric 1.17's shm lets an AV take 256 names in its life, and none
 * can leave it (addr.c: fi_av_remove leaves shm's peer slot marked as
 * known, and a send through the slot once reused crashed).  The IA's AV
 * takes one name for each peer IA that ever connected to it or accepted
 * its connect, and one for each listener generation it connected to: a
 * daemon that serves short-lived clients stopped answering new ones
 * after some 254 of them (issue 33).  The names a listener's endpoint
 * learns from shm's own name exchange with the requesters go into the
 * same AV, which every endpoint bound to it shares.
 *
 * So over shm, once the current AV has taken OFI_GEN_ROLL names, the IA
 * opens a new AV and a new control endpoint on it (a new name: shm picks
 * it), and its listeners' endpoints close and open again under their own
 * names on the new AV (lep.c ofi_listeners_reopen).  New connections are
 * made on the new one; the old one stays open, and keeps receiving,
 * while a connection made on it (ofi_conn.gen: its keepalives, its DISC,
 * its key questions go through the control endpoint that made it) or a
 * control message sent through it (ofi_txbuf.gen) is left, and then
 * closes (ofi_gens_reap, from the engine's rounds).
 *
 * The move happens outside the handlers of the control CQ (it closes
 * endpoints whose buffers those handlers use), in the engine's round
 * (progress.c); the room left above OFI_GEN_ROLL takes the names that
 * come between two rounds (a connect's, a request's).  A REQ that finds
 * the AV full (a burst of that many new peers in one round) is dropped
 * unanswered and forgotten (rdm.c ofi_req_forget): its connect sends it
 * again, after the move; a connect that finds it full fails
 * DAT_INVALID_ADDRESS (addr.c says so on stderr).
 *
 * Other fabrics' AVs have no such limit: their IA keeps its first
 * generation for its life.
 */
#include <stdlib.h>
#include <arpa/inet.h>

#include "ofi.h"
#include "wire.h"
#include "cm.h"

/* shm: the names an AV takes before the IA moves on (of the 256 that
 * libfabric 1.17's shm allows: addr.c); DAPL_OFI_SHM_AV_NAMES picks
 * fewer (tests: valgrind sees moves within a short run) */
#define OFI_GEN_ROLL 192
#define OFI_GEN_ROLL_MIN 4
/* A move that failed (no AV or endpoint could be opened) is tried again
 * after this long, not at every round of the engine: each try makes a
 * region of 16 MB */
#define OFI_GEN_RETRY_NS (1000ull * 1000000ull)

static void ofi_gen_free(struct ofi_ctl_gen *g)
{
	if (g->ctl)
		ofi_ctl_close(g->ctl);
	if (g->av)
		fi_close(&g->av->fid);
	ofi_addr_gen_free(g);
	free(g);
}

static struct ofi_ctl_gen *ofi_gen_new(struct dapl_tp_ia *oia)
{
	struct fi_av_attr aa = {.type = FI_AV_UNSPEC};
	struct ofi_ctl_gen *g = calloc(1, sizeof(*g));
	int rc;

	if (!g)
		return NULL;
	dapl_list_init(&g->shm_dests);
	dapl_list_init(&g->shm_peers);
	if (ofi_is_msg(oia)) /* MSG: no AV, the connections carry it */
		return g;
	rc = fi_av_open(oia->domain, &aa, &g->av, NULL);
	if (!rc)
		rc = ofi_ctl_open(oia, g->av, &oia->addr, NULL, &g->ctl);
	if (rc) {
		dapl_dbg(DAPL_DBG_CM, "ofi: a control endpoint: %s",
			 fi_strerror(-rc));
		ofi_gen_free(g);
		return NULL;
	}
	g->ctl->control = 1;
	return g;
}

int ofi_gen_open(struct dapl_tp_ia *oia)
{
	dapl_list_init(&oia->old_gens);
	oia->gen_roll = (unsigned)ofi_env_range("DAPL_OFI_SHM_AV_NAMES",
						OFI_GEN_ROLL, OFI_GEN_ROLL_MIN,
						OFI_GEN_ROLL);
	oia->gen = ofi_gen_new(oia);
	return oia->gen ? 0 : -FI_ENOMEM;
}

int ofi_ctl_repost(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos;
	int did;

	if (!oia->gen->ctl)
		return 0;
	did = ofi_ctl_rx_repost(oia->gen->ctl);
	for (pos = oia->old_gens.next; pos != &oia->old_gens; pos = pos->next)
		did += ofi_ctl_rx_repost(
		    dapl_container_of(pos, struct ofi_ctl_gen, link)->ctl);
	return did;
}

void ofi_gen_roll(struct dapl_tp_ia *oia)
{
	struct ofi_ctl_gen *g;
	char ip[INET_ADDRSTRLEN];

	if (oia->info->addr_format != FI_ADDR_STR ||
	    oia->gen->shm_names < oia->gen_roll ||
	    dapl_now_ns() < oia->gen_retry)
		return;
	g = ofi_gen_new(oia);
	if (!g) { /* addr.c says so when the AV is full */
		oia->gen_retry = dapl_now_ns() + OFI_GEN_RETRY_NS;
		return;
	}
	dapl_list_add_tail(&oia->old_gens, &oia->gen->link);
	inet_ntop(AF_INET, &oia->addr.sin_addr, ip, sizeof(ip));
	dapl_dbg(DAPL_DBG_CM,
		 "ofi: shm IA %s: %u names in its control endpoint's AV: "
		 "new connections go through a new one",
		 ip, oia->gen->shm_names);
	oia->gen = g;
	ofi_listeners_reopen(oia); /* lep.c */
}

/* locked: a control message on its way through g? */
static int ofi_gen_sending(struct dapl_tp_ia *oia, const struct ofi_ctl_gen *g)
{
	struct dapl_list *pos;

	for (pos = oia->txbufs.next; pos != &oia->txbufs; pos = pos->next)
		if (dapl_container_of(pos, struct ofi_txbuf, link)->gen == g)
			return 1;
	return 0;
}

void ofi_gens_reap(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->old_gens) {
		struct ofi_ctl_gen *g =
		    dapl_container_of(pos, struct ofi_ctl_gen, link);

		if (g->conns || ofi_gen_sending(oia, g))
			continue;
		dapl_dbg(DAPL_DBG_CM, "ofi: an old control endpoint of IA "
			 "%p closes: nothing is left on it", (void *)oia);
		dapl_list_del(&g->link);
		ofi_gen_free(g);
	}
}

void ofi_gens_close(struct dapl_tp_ia *oia)
{
	if (!oia->gen)
		return;
	while (!dapl_list_empty(&oia->old_gens)) {
		struct ofi_ctl_gen *g = dapl_container_of(
		    oia->old_gens.next, struct ofi_ctl_gen, link);

		dapl_list_del(&g->link);
		ofi_gen_free(g);
	}
	ofi_gen_free(oia->gen);
	oia->gen = NULL;
}
