/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection zones (ibv_alloc_pd) and memory registrations (ibv_reg_mr).
 *
 * DAT privileges -> verbs access: LOCAL_WRITE always (receives and RDMA
 * read targets need it, and DAT's LOCAL_READ has no verbs flag), plus
 * REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC for the atomic extension's
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC when the device has atomics, and MW_BIND
 * when it has memory windows.  lmr_context is the
 * lkey, rmr_context the rkey.  A DAT_MEM_TYPE_LMR LMR shares the original
 * registration (same keys, a reference count) when it is in the same PZ,
 * and registers the same range again in its own PZ otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cma.h"
#include <dat/dat_ib_extensions.h>

DAT_RETURN cma_pz_create(struct dapl_pz *pz)
{
	struct cma_ia *cia = cma_ia_of(pz);
	struct ibv_pd *pd = ibv_alloc_pd(cia->ctx);

	if (!pd)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_PROTECTION_DOMAIN);
	pz->prov = pd;
	return DAT_SUCCESS;
}

DAT_RETURN cma_pz_free(struct dapl_pz *pz)
{
	int rc;

	if (!pz->prov)
		return DAT_SUCCESS;
	rc = ibv_dealloc_pd(pz->prov);
	if (rc == EBUSY)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	if (rc)
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	pz->prov = NULL;
	return DAT_SUCCESS;
}

static int cma_access(const struct cma_ia *cia, DAT_MEM_PRIV_FLAGS priv)
{
	int a = IBV_ACCESS_LOCAL_WRITE;

	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		a |= IBV_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		a |= IBV_ACCESS_REMOTE_WRITE;
	/* verbs wants local write with remote atomic: it is always there */
	if ((priv & DAT_IB_MEM_PRIV_REMOTE_ATOMIC) && cia->ia->atomics)
		a |= IBV_ACCESS_REMOTE_ATOMIC;
	if (!(cia->disable & CMA_NO_MW) &&
	    (cia->dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW))
		a |= IBV_ACCESS_MW_BIND;
	return a;
}

static DAT_RETURN cma_reg_err(int err)
{
	switch (err) {
	case EFAULT:
	case EINVAL:
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	case EACCES:
	case EPERM:
		return DAPL_ERR(DAT_PRIVILEGES_VIOLATION, 0);
	default:
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
	}
}

static struct ibv_mr *cma_reg(struct cma_ia *cia, struct ibv_pd *pd, void *addr,
			      size_t len, DAT_MEM_PRIV_FLAGS priv)
{
	int access = cma_access(cia, priv);
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	/*
	 * Read-only memory (EFAULT with LOCAL_WRITE) is fine for an LMR
	 * that nobody may write: register it without write access.
	 */
	if (!mr && errno == EFAULT &&
	    !(priv &
	      (DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)))
		mr = ibv_reg_mr(pd, addr, len,
				access & ~(IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_ATOMIC |
					   IBV_ACCESS_MW_BIND));
	return mr;
}

static void cma_lmr_fill(struct dapl_lmr *lmr, struct cma_mr *m, void *addr,
			 DAT_VLEN len)
{
	lmr->prov = m;
	lmr->lmr_context = m->mr->lkey;
	lmr->rmr_context = m->mr->rkey;
	lmr->reg_addr = (DAT_VADDR)(uintptr_t)addr;
	lmr->reg_len = len;
}

DAT_RETURN cma_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv)
{
	struct cma_ia *cia = cma_ia_of(lmr);
	struct cma_mr *m;

	if (!lmr->pz || !lmr->pz->prov)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	m = calloc(1, sizeof(*m));
	if (!m)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	m->mr = cma_reg(cia, lmr->pz->prov, addr, len, priv);
	if (!m->mr) {
		int err = errno;

		free(m);
		return cma_reg_err(err);
	}
	m->refs = 1;
	cma_lmr_fill(lmr, m, addr, len);
	return DAT_SUCCESS;
}

DAT_RETURN cma_mr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig)
{
	struct cma_mr *m = orig->prov;

	if (!m)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_FREE);
	if (lmr->pz != orig->pz)
		return cma_mr_register(lmr, (void *)(uintptr_t)orig->reg_addr,
				       orig->reg_len, lmr->priv);
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_ACQ_REL);
	cma_lmr_fill(lmr, m, (void *)(uintptr_t)orig->reg_addr, orig->reg_len);
	return DAT_SUCCESS;
}

DAT_RETURN cma_mr_deregister(struct dapl_lmr *lmr)
{
	struct cma_mr *m = lmr->prov;

	if (!m)
		return DAT_SUCCESS;
	if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		int rc = ibv_dereg_mr(m->mr);

		if (rc) {
			/* a memory window still bound to it */
			__atomic_add_fetch(&m->refs, 1, __ATOMIC_ACQ_REL);
			return rc == EBUSY
				   ? DAPL_ERR(DAT_INVALID_STATE,
					      DAT_INVALID_STATE_LMR_IN_USE)
				   : DAPL_ERR(DAT_INTERNAL_ERROR, 0);
		}
		free(m);
	}
	lmr->prov = NULL;
	return DAT_SUCCESS;
}
