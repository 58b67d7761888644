/*
 * SRQs: the handle checks only.  Shared receive queues come with the SRQ
 * issue; until then dat_ia_query reports srq_supported FALSE and max_srqs
 * 0, and these calls DAT_NOT_IMPLEMENTED.
 */
#include "slots.h"

#define SRQ_LATER DAPL_ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE)
#define BAD_SRQ DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ)

DAT_RETURN dapl_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			   DAT_SRQ_ATTR *srq_attr DAPL_UNUSED,
			   DAT_SRQ_HANDLE *srq_handle DAPL_UNUSED)
{
	if (!dapl_obj_ok(ia_handle, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!dapl_obj_ok(pz_handle, DAT_HANDLE_TYPE_PZ))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	return SRQ_LATER; /* the SRQ issue */
}

DAT_RETURN dapl_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	return SRQ_LATER; /* the SRQ issue */
}

DAT_RETURN dapl_srq_post_recv(DAT_SRQ_HANDLE srq_handle,
			      DAT_COUNT num_segments DAPL_UNUSED,
			      DAT_LMR_TRIPLET *local_iov DAPL_UNUSED,
			      DAT_DTO_COOKIE user_cookie DAPL_UNUSED)
{
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	return SRQ_LATER; /* the SRQ issue */
}

DAT_RETURN dapl_srq_query(DAT_SRQ_HANDLE srq_handle,
			  DAT_SRQ_PARAM_MASK srq_param_mask DAPL_UNUSED,
			  DAT_SRQ_PARAM *srq_param DAPL_UNUSED)
{
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	return SRQ_LATER; /* the SRQ issue */
}

DAT_RETURN dapl_srq_resize(DAT_SRQ_HANDLE srq_handle,
			   DAT_COUNT srq_max_recv_dto DAPL_UNUSED)
{
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	return SRQ_LATER; /* the SRQ issue */
}

DAT_RETURN dapl_srq_set_lw(DAT_SRQ_HANDLE srq_handle,
			   DAT_COUNT low_watermark DAPL_UNUSED)
{
	if (!dapl_obj_ok(srq_handle, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	return SRQ_LATER; /* the SRQ issue */
}

void dapl_srq_teardown(struct dapl_srq *srq)
{
	dapl_obj_free(srq);
}
