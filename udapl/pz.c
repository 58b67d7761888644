/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection zones.  use_count (EPs, LMRs, RMRs, SRQs using the PZ) is
 * guarded by ia->lock.
 */
#include "slots.h"

DAT_RETURN dapl_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_pz *pz;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!pz_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pz = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_PZ, sizeof(*pz));
	if (!pz)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	rc = ia->ops->pz_create(pz);
	if (rc != DAT_SUCCESS) {
		dapl_obj_free(pz);
		return rc;
	}
	*pz_handle = pz;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_pz_query(DAT_PZ_HANDLE pz_handle,
			 DAT_PZ_PARAM_MASK pz_param_mask,
			 DAT_PZ_PARAM *pz_param)
{
	struct dapl_pz *pz = pz_handle;

	if (!dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (pz_param_mask & ~(DAT_PZ_PARAM_MASK)DAT_PZ_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!pz_param)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (pz_param_mask & DAT_PZ_FIELD_IA_HANDLE)
		pz_param->ia_handle = pz->obj.ia;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_pz_free(DAT_PZ_HANDLE pz_handle)
{
	struct dapl_pz *pz = pz_handle;
	struct dapl_ia *ia;
	int busy;
	DAT_RETURN rc;

	if (!dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	ia = pz->obj.ia;
	pthread_mutex_lock(&ia->lock);
	busy = pz->use_count > 0;
	pthread_mutex_unlock(&ia->lock);
	if (busy)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	rc = ia->ops->pz_free(pz);
	if (rc != DAT_SUCCESS)
		return rc;
	dapl_obj_free(pz);
	return DAT_SUCCESS;
}

void dapl_pz_teardown(struct dapl_pz *pz)
{
	DAT_RETURN rc = pz->obj.ia->ops->pz_free(pz);

	if (rc != DAT_SUCCESS)
		dapl_dbg(DAPL_DBG_WARN, "pz teardown: %#x", rc);
	dapl_obj_free(pz);
}
