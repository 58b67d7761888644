/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection events (layer 4): queued under oia->lock as notes on
 * oia->notes, made as upcalls without it by cm.c's ofi_notes_deliver
 * (which says how the upcall brackets keep that safe).  An EP or
 * service point that goes away forgets its notes here.
 *
 * It calls nothing of ours.  The connection code queues its events
 * here (link.c, rdm.c, msg.c, cm.c); qp.c forgets an EP's.
 */
#include <stdlib.h>
#include <string.h>
#include "ofi.h"
#include "cm.h"

/* ---- notes: upcalls made after the lock is dropped ---- */

struct ofi_note *ofi_note_new(struct dapl_tp_ia *oia,
			      const void *pdata, int plen)
{
	struct ofi_note *n;

	n = calloc(1, sizeof(*n));
	if (!n) {
		dapl_dbg(DAPL_DBG_ERR, "ofi: connection event lost");
		return NULL;
	}
	if (plen > 0 && plen <= OFI_MAX_PDATA) {
		memcpy(n->pdata, pdata, (size_t)plen);
		n->plen = plen;
	}
	dapl_list_add_tail(&oia->notes, &n->link);
	return n;
}

/* locked: an event for ep, delivered after the lock is dropped */
void ofi_note_ep(struct dapl_tp_ia *oia, struct dapl_ep *ep,
			enum dapl_cm_event ev, const void *pdata, int plen)
{
	struct ofi_note *n;

	if (!ep)
		return;
	n = ofi_note_new(oia, pdata, plen);
	if (!n)
		return;
	n->kind = OFI_NOTE_EP;
	n->ep = ep;
	n->event = ev;
	dapl_progress_kick(oia->ia);
}

void ofi_notes_forget(struct dapl_tp_ia *oia, const void *obj)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->notes) {
		struct ofi_note *n = dapl_container_of(pos, struct ofi_note,
						       link);

		if (n->kind != OFI_NOTE_EP || (const void *)n->ep != obj)
			continue;
		dapl_list_del(&n->link);
		free(n);
	}
}

int ofi_note_req(struct dapl_tp_ia *oia, struct dapl_sp *sp,
		 struct ofi_conn *c, const void *pdata, int plen)
{
	struct ofi_note *n = ofi_note_new(oia, pdata, plen);

	if (!n)
		return -1;
	n->kind = OFI_NOTE_REQ;
	n->sp = sp;
	n->conn = c;
	dapl_progress_kick(oia->ia);
	return 0;
}
