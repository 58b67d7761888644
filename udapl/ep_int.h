/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the EP's files share and the rest of udapl does not need: ep.c
 * (the EP's life, its states, handle checks and attributes), ep_param.c
 * (query, status, modify) and ep_ring.c (the cookie rings).  ep_param.c
 * calls ep.c and ep_ring.c, ep.c calls ep_ring.c, never the other way
 * (test/seam/layers.bats).
 */
#ifndef DAT_UDAPL_EP_INT_H
#define DAT_UDAPL_EP_INT_H

#include "udapl.h"

#define EP_ERR_HANDLE DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP)

/* ep.c: the UNCONFIGURED twins of the states, for an EP that lost (or
 * never had) its queue pair */
DAT_EP_STATE dapl_ep_unconfigured(DAT_EP_STATE s);
DAT_EP_STATE dapl_ep_configured(DAT_EP_STATE s);
int dapl_ep_has_qp(DAT_EP_STATE s);

/* ep.c: the handles an EP is given (a NULL EVD is allowed), and the use
 * counts it holds on them (NULL: none) */
int dapl_ep_evd_ok(struct dapl_ia *ia, DAT_EVD_HANDLE h, DAT_EVD_FLAGS flag);
int dapl_ep_pz_ok(struct dapl_ia *ia, DAT_PZ_HANDLE h);
void dapl_ep_pz_ref(struct dapl_pz *pz, int delta);
void dapl_ep_evd_get(struct dapl_evd *evd);
void dapl_ep_evd_put(struct dapl_evd *evd);

/* ep.c: attributes against the IA's limits */
DAT_RETURN dapl_ep_attr_check(const struct dapl_ia *ia, const DAT_EP_ATTR *a,
			      DAT_RETURN bad);

/* ep_ring.c */
int dapl_ep_ring_alloc(struct dapl_cookie_ring *r, DAT_COUNT n,
		       struct dapl_ep *ep);
void dapl_ep_ring_release(struct dapl_cookie_ring *r);

#endif
