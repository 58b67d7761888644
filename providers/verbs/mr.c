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

#include "verbs.h"
#include <dat/dat_ib_extensions.h>

DAT_RETURN verbs_pz_create(struct dapl_pz *pz)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(pz);
	struct dapl_tp_pz *t = calloc(1, sizeof(*t));

	if (!t)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	t->pd = ibv_alloc_pd(cia->ctx);
	if (!t->pd) {
		free(t);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_PROTECTION_DOMAIN);
	}
	dapl_pz_set_tp(pz, t);
	return DAT_SUCCESS;
}

DAT_RETURN verbs_pz_free(struct dapl_pz *pz)
{
	struct dapl_tp_pz *t = dapl_pz_tp(pz);
	int rc;

	if (!t)
		return DAT_SUCCESS;
	rc = ibv_dealloc_pd(t->pd);
	if (rc == EBUSY)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	if (rc)
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	dapl_pz_set_tp(pz, NULL);
	free(t);
	return DAT_SUCCESS;
}

static int verbs_access(const struct dapl_tp_ia *cia, DAT_MEM_PRIV_FLAGS priv)
{
	int a = IBV_ACCESS_LOCAL_WRITE;

	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		a |= IBV_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		a |= IBV_ACCESS_REMOTE_WRITE;
	/* verbs wants local write with remote atomic: it is always there */
	if ((priv & DAT_IB_MEM_PRIV_REMOTE_ATOMIC) && cia->atomics)
		a |= IBV_ACCESS_REMOTE_ATOMIC;
	if (!(cia->disable & VERBS_NO_MW) &&
	    (cia->dattr.device_cap_flags & IBV_DEVICE_MEM_WINDOW))
		a |= IBV_ACCESS_MW_BIND;
	return a;
}

static DAT_RETURN verbs_reg_err(int err)
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

static struct ibv_mr *verbs_reg(struct dapl_tp_ia *cia, struct ibv_pd *pd, void *addr,
			      size_t len, DAT_MEM_PRIV_FLAGS priv)
{
	int access = verbs_access(cia, priv);
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

static void verbs_lmr_fill(struct dapl_lmr *lmr, struct dapl_tp_lmr *m, void *addr,
			 DAT_VLEN len)
{
	dapl_lmr_set_tp(lmr, m);
	dapl_lmr_set_reg(lmr, m->mr->lkey, m->mr->rkey,
			 (DAT_VADDR)(uintptr_t)addr, len);
}

DAT_RETURN verbs_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(lmr);
	struct ibv_pd *pd = verbs_pd(dapl_lmr_pz(lmr));
	struct dapl_tp_lmr *m;

	if (!pd)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	m = calloc(1, sizeof(*m));
	if (!m)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	m->mr = verbs_reg(cia, pd, addr, len, priv);
	if (!m->mr) {
		int err = errno;

		free(m);
		return verbs_reg_err(err);
	}
	m->refs = 1;
	verbs_lmr_fill(lmr, m, addr, len);
	return DAT_SUCCESS;
}

static void verbs_mr_ref(struct dapl_lmr *lmr, struct dapl_tp_lmr *m,
			 DAT_VADDR addr, DAT_VLEN len)
{
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_ACQ_REL);
	verbs_lmr_fill(lmr, m, (void *)(uintptr_t)addr, len);
}

DAT_RETURN verbs_mr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig)
{
	/* an MR belongs to its PD: shared within one PZ only */
	return dapl_lmr_share(lmr, orig, dapl_lmr_pz(lmr) == dapl_lmr_pz(orig),
			      verbs_mr_ref);
}

DAT_RETURN verbs_mr_deregister(struct dapl_lmr *lmr)
{
	struct dapl_tp_lmr *m = dapl_lmr_tp(lmr);

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
	dapl_lmr_set_tp(lmr, NULL);
	return DAT_SUCCESS;
}
