/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DAT EP ops (layer 8): create, reset and destroy.  A DAT EP's rings
 * are made and freed here; its libfabric endpoint comes from fep.c.
 * Reset and destroy detach the EP from its connection (link.c) and drop
 * its connection events not yet delivered (notes.c).
 *
 * It calls env.c, fep.c, link.c and notes.c.  init.c's ops table names
 * its three functions.
 */
#include <stdlib.h>
#include <string.h>
#include "ofi.h"
#include "data.h"
#include "cm.h"

static uint32_t ofi_pow2(uint32_t n)
{
	uint32_t s = 1;

	while (s < n && s < (1u << 24))
		s <<= 1;
	return s;
}

static int ofi_ring_init(struct ofi_ring *r, struct dapl_tp_ep *oep,
			 struct dapl_evd *evd, DAT_COUNT dtos, DAT_COUNT iov)
{
	uint32_t i;

	r->oep = oep;
	r->ocq = evd ? dapl_evd_tp(evd) : NULL;
	r->size = ofi_pow2(dtos > 0 ? (uint32_t)dtos : 1);
	r->iov_per_op = iov > 0 ? (uint32_t)iov : 1;
	r->op = calloc(r->size, sizeof(*r->op));
	r->iov = calloc((size_t)r->size * r->iov_per_op, sizeof(*r->iov));
	r->lkey = calloc((size_t)r->size * r->iov_per_op, sizeof(*r->lkey));
	if (!r->op || !r->iov || !r->lkey)
		return -1;
	for (i = 0; i < r->size; i++) {
		r->op[i].kind = OFI_CTX_OP;
		r->op[i].ring = r;
		r->op[i].iov = &r->iov[(size_t)i * r->iov_per_op];
		r->op[i].lkey = &r->lkey[(size_t)i * r->iov_per_op];
	}
	dapl_list_init(&r->ready_link);
	return 0;
}

static void ofi_ring_fini(struct ofi_ring *r)
{
	free(r->op);
	free(r->iov);
	free(r->lkey);
	r->op = NULL;
	r->iov = NULL;
	r->lkey = NULL;
}

DAT_RETURN ofi_qp_create(struct dapl_ep *ep)
{
	struct dapl_tp_ia *oia = ofi_ia_of(ep);
	const DAT_EP_ATTR *a = dapl_ep_attr(ep);
	struct dapl_tp_ep *oep;
	int rc;

	oep = calloc(1, sizeof(*oep));
	if (!oep)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	oep->ep = ep;
	oep->oia = oia;
	dapl_lock_init(&oep->lock);
	dapl_list_init(&oep->bell_link);
	dapl_list_init(&oep->kick_link);
	if (ofi_ring_init(&oep->sq, oep, dapl_ep_request_evd(ep),
			  a->max_request_dtos, a->max_request_iov) ||
	    ofi_ring_init(&oep->rq, oep, dapl_ep_recv_evd(ep),
			  a->max_recv_dtos, a->max_recv_iov)) {
		rc = -FI_ENOMEM;
		goto err;
	}
	pthread_mutex_lock(&oia->lock);
	rc = ofi_ep_fep_open(oep);
	if (!rc)
		dapl_list_add_tail(&oia->eps, &oep->ia_link);
	pthread_mutex_unlock(&oia->lock);
	if (rc)
		goto err;
	dapl_ep_set_tp(ep, oep);
	dapl_ep_set_max_inline(ep, 0);
	return DAT_SUCCESS;
err:
	ofi_ring_fini(&oep->sq);
	ofi_ring_fini(&oep->rq);
	dapl_lock_destroy(&oep->lock);
	free(oep);
	return ofi_fi_err(rc, DAT_RESOURCE_TEP);
}

DAT_RETURN ofi_qp_reset(struct dapl_ep *ep)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct dapl_tp_ia *oia;
	int rc;

	if (!oep)
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	oia = oep->oia;
	pthread_mutex_lock(&oia->lock);
	ofi_conn_detach_ep(oep);
	ofi_ep_close_fep(oep);
	pthread_mutex_unlock(&oia->lock);
	ofi_ring_drain(&oep->sq, 1);
	ofi_ring_drain(&oep->rq, 1);
	dapl_lock(&oep->lock);
	memset(oep->keys, 0, sizeof(oep->keys));
	oep->sends_issued = oep->recvs_done = 0;
	oep->peer_recvd = 0;
	oep->peer_recvd_known = 0;
	__atomic_store_n(&oep->work, 0, __ATOMIC_RELEASE);
	dapl_unlock(&oep->lock);
	pthread_mutex_lock(&oia->lock);
	rc = ofi_ep_fep_open(oep);
	pthread_mutex_unlock(&oia->lock);
	return rc ? ofi_fi_err(rc, DAT_RESOURCE_TEP) : DAT_SUCCESS;
}

void ofi_qp_destroy(struct dapl_ep *ep)
{
	struct dapl_tp_ep *oep = dapl_ep_tp(ep);
	struct dapl_tp_ia *oia;

	if (!oep)
		return;
	oia = oep->oia;
	pthread_mutex_lock(&oia->lock);
	ofi_conn_detach_ep(oep);
	ofi_notes_forget(oia, ep);
	dapl_list_del(&oep->ia_link);
	ofi_ep_close_fep(oep);
	pthread_mutex_unlock(&oia->lock);
	ofi_ring_drain(&oep->sq, 1);
	ofi_ring_drain(&oep->rq, 1);
	ofi_wake_bell_forget(oep);
	ofi_cq_kick_forget(oep);
	dapl_ep_set_tp(ep, NULL);
	ofi_ring_fini(&oep->sq);
	ofi_ring_fini(&oep->rq);
	dapl_lock_destroy(&oep->lock);
	free(oep);
}
