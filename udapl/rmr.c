/*
 * RMRs: the handle checks only.  Memory windows (ibv_alloc_mw, bind with
 * the spec's automatic fence) come with the RMR issue; until then
 * dat_ia_query reports max_rmrs 0 and these calls DAT_NOT_IMPLEMENTED.
 */
#include "slots.h"

#define RMR_LATER DAPL_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE)
#define BAD_RMR DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR)

DAT_RETURN dapl_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	if (!dapl_obj_ok(pz_handle, DAT_HANDLE_TYPE_PZ))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!rmr_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	return RMR_LATER; /* the RMR issue */
}

DAT_RETURN dapl_rmr_query(DAT_RMR_HANDLE rmr_handle,
			  DAT_RMR_PARAM_MASK rmr_param_mask DAPL_UNUSED,
			  DAT_RMR_PARAM *rmr_param DAPL_UNUSED)
{
	/* No RMR can exist yet, so every handle is invalid. */
	if (!dapl_obj_ok(rmr_handle, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	return RMR_LATER; /* the RMR issue */
}

DAT_RETURN dapl_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			 const DAT_LMR_TRIPLET *lmr_triplet DAPL_UNUSED,
			 DAT_MEM_PRIV_FLAGS mem_priv DAPL_UNUSED,
			 DAT_EP_HANDLE ep_handle DAPL_UNUSED,
			 DAT_RMR_COOKIE user_cookie DAPL_UNUSED,
			 DAT_COMPLETION_FLAGS completion_flags DAPL_UNUSED,
			 DAT_RMR_CONTEXT *rmr_context DAPL_UNUSED)
{
	if (!dapl_obj_ok(rmr_handle, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	return RMR_LATER; /* the RMR issue */
}

DAT_RETURN dapl_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	if (!dapl_obj_ok(rmr_handle, DAT_HANDLE_TYPE_RMR))
		return BAD_RMR;
	return RMR_LATER; /* the RMR issue */
}

void dapl_rmr_teardown(struct dapl_rmr *rmr)
{
	dapl_obj_free(rmr);
}
