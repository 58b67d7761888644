/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EP's connection as the glue sees it: whatever the CM keeps in
 * dapl_tp_ep.conn (struct dapl_tp_cr, the CM's), asked through the CM's
 * table (verbs.h struct verbs_cm_ops) under cia->lock, which guards the
 * EP <-> connection association for both CMs.
 */
#include "verbs.h"

int verbs_conn_busy(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep = dapl_ep_tp(ep);
	int busy;

	pthread_mutex_lock(&cia->lock);
	busy = cep && cep->conn && cia->cm_ops->live(cep->conn);
	pthread_mutex_unlock(&cia->lock);
	return busy;
}

void verbs_conn_broken(struct dapl_ep *ep)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(ep);
	struct dapl_tp_ep *cep;

	pthread_mutex_lock(&cia->lock);
	cep = dapl_ep_tp(ep);
	if (cep && cep->conn && cia->cm_ops->end_broken(cep->conn))
		dapl_ep_defer_cm_event(ep, DAPL_CM_BROKEN);
	pthread_mutex_unlock(&cia->lock);
}

DAT_RETURN verbs_reject(struct dapl_cr *cr)
{
	if (!dapl_cr_tp(cr))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	dapl_tp_ia_of(cr)->cm_ops->cr_refuse(cr);
	return DAT_SUCCESS;
}

void verbs_cr_destroy(struct dapl_cr *cr)
{
	dapl_tp_ia_of(cr)->cm_ops->cr_refuse(cr);
}
