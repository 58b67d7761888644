/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A window bind as an op of an EP's send ring (layer 2, declared in
 * data.h): the reference the op holds on its window while it is HELD,
 * and the window's new key, chosen at the post.
 *
 * It calls mr.c (ofi_key_next).  ep.c posts and fails bind ops through
 * it, fep.c's flush lets them go, rmr.c drops the RMR's own reference.
 * It is not part of ep.c so that ofi_post and ofi_op_fail keep their
 * code: inlined there, these would change ofi_ring_kick's frame.
 */
#include <stdlib.h>
#include "ofi.h"
#include "data.h"

void ofi_mw_put(struct dapl_tp_rmr *w)
{
	if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(w->wait);
		free(w);
	}
}

DAT_RETURN ofi_mw_post(struct dapl_tp_ep *oep, struct ofi_op *op,
		       const struct dapl_post *p)
{
	struct dapl_mw_post *m = p->mw;
	struct dapl_tp_rmr *w = m ? dapl_rmr_tp(m->rmr) : NULL;

	if (!w)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	__atomic_add_fetch(&w->refs, 1, __ATOMIC_RELAXED);
	op->rmr = w;
	op->remote_addr = m->addr;
	op->mw_len = m->length;
	op->mw_priv = (uint32_t)m->priv;
	op->mw_flush = (uint8_t)!!m->flush;
	op->mw_ran = 0;
	op->rkey = m->length && !m->flush ? ofi_key_next(oep->oia) : 0;
	m->context = op->rkey;
	return DAT_SUCCESS;
}

void ofi_mw_unhold(struct ofi_op *op)
{
	if (op->op == DAPL_OP_BIND_MW && op->rmr) {
		ofi_mw_put(op->rmr);
		op->rmr = NULL;
	}
}
