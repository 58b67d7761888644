/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The udapl implementation of every DAT_PROVIDER slot, in slot order;
 * provider.c puts them into the table.  Each lives in the file of its
 * object (ia.c, evd.c, ep.c, ...).
 */
#ifndef DAT_UDAPL_SLOTS_H
#define DAT_UDAPL_SLOTS_H

#include "udapl.h"

/* slot 2 */
DAT_RETURN dapl_ia_open(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_HANDLE *ia_handle);
/* slot 3 */
DAT_RETURN dapl_ia_query(DAT_IA_HANDLE ia_handle,
			 DAT_EVD_HANDLE *async_evd_handle,
			 DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			 DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			 DAT_PROVIDER_ATTR *provider_attr);
/* slot 4 */
DAT_RETURN dapl_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags);
/* slot 5 */
DAT_RETURN dapl_set_consumer_context(DAT_HANDLE dat_handle,
				     DAT_CONTEXT context);
/* slot 6 */
DAT_RETURN dapl_get_consumer_context(DAT_HANDLE dat_handle,
				     DAT_CONTEXT *context);
/* slot 7 */
DAT_RETURN dapl_get_handle_type(DAT_HANDLE dat_handle,
				DAT_HANDLE_TYPE *handle_type);
/* slot 8 */
DAT_RETURN dapl_cno_create(DAT_IA_HANDLE ia_handle,
			   DAT_OS_WAIT_PROXY_AGENT agent,
			   DAT_CNO_HANDLE *cno_handle);
/* slot 9 */
DAT_RETURN dapl_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				 DAT_OS_WAIT_PROXY_AGENT agent);
/* slot 10 */
DAT_RETURN dapl_cno_query(DAT_CNO_HANDLE cno_handle,
			  DAT_CNO_PARAM_MASK cno_param_mask,
			  DAT_CNO_PARAM *cno_param);
/* slot 11 */
DAT_RETURN dapl_cno_free(DAT_CNO_HANDLE cno_handle);
/* slot 12 */
DAT_RETURN dapl_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			 DAT_EVD_HANDLE *evd_handle);
/* slot 13 */
DAT_RETURN dapl_cr_query(DAT_CR_HANDLE cr_handle,
			 DAT_CR_PARAM_MASK cr_param_mask,
			 DAT_CR_PARAM *cr_param);
/* slot 14 */
DAT_RETURN dapl_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data);
/* slot 15 */
DAT_RETURN dapl_cr_reject(DAT_CR_HANDLE cr_handle);
/* slot 16 */
DAT_RETURN dapl_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff);
/* slot 17 */
DAT_RETURN dapl_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS evd_flags,
			   DAT_EVD_HANDLE *evd_handle);
/* slot 18 */
DAT_RETURN dapl_evd_query(DAT_EVD_HANDLE evd_handle,
			  DAT_EVD_PARAM_MASK evd_param_mask,
			  DAT_EVD_PARAM *evd_param);
/* slot 19 */
DAT_RETURN dapl_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
			       DAT_CNO_HANDLE cno_handle);
/* slot 20 */
DAT_RETURN dapl_evd_enable(DAT_EVD_HANDLE evd_handle);
/* slot 21 */
DAT_RETURN dapl_evd_disable(DAT_EVD_HANDLE evd_handle);
/* slot 22 */
DAT_RETURN dapl_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			 DAT_COUNT threshold, DAT_EVENT *event,
			 DAT_COUNT *n_more_events);
/* slot 23 */
DAT_RETURN dapl_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen);
/* slot 24 */
DAT_RETURN dapl_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event);
/* slot 25 */
DAT_RETURN dapl_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event);
/* slot 26 */
DAT_RETURN dapl_evd_free(DAT_EVD_HANDLE evd_handle);
/* slot 27 */
DAT_RETURN dapl_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  DAT_EVD_HANDLE recv_evd_handle,
			  DAT_EVD_HANDLE request_evd_handle,
			  DAT_EVD_HANDLE connect_evd_handle,
			  const DAT_EP_ATTR *ep_attributes,
			  DAT_EP_HANDLE *ep_handle);
/* slot 28 */
DAT_RETURN dapl_ep_query(DAT_EP_HANDLE ep_handle,
			 DAT_EP_PARAM_MASK ep_param_mask,
			 DAT_EP_PARAM *ep_param);
/* slot 29 */
DAT_RETURN dapl_ep_modify(DAT_EP_HANDLE ep_handle,
			  DAT_EP_PARAM_MASK ep_param_mask,
			  const DAT_EP_PARAM *ep_param);
/* slot 30 */
DAT_RETURN
dapl_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
		DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
		DAT_COUNT private_data_size, const DAT_PVOID private_data,
		DAT_QOS quality_of_service, DAT_CONNECT_FLAGS connect_flags);
/* slot 31 */
DAT_RETURN dapl_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			       DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			       DAT_COUNT private_data_size,
			       const DAT_PVOID private_data,
			       DAT_QOS quality_of_service);
/* slot 32 */
DAT_RETURN dapl_ep_disconnect(DAT_EP_HANDLE ep_handle,
			      DAT_CLOSE_FLAGS close_flags);
/* slot 33 */
DAT_RETURN dapl_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			     DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie,
			     DAT_COMPLETION_FLAGS completion_flags);
/* slot 34 */
DAT_RETURN dapl_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			     DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie,
			     DAT_COMPLETION_FLAGS completion_flags);
/* slot 35 */
DAT_RETURN dapl_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags);
/* slot 36 */
DAT_RETURN dapl_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				   DAT_COUNT num_segments,
				   DAT_LMR_TRIPLET *local_iov,
				   DAT_DTO_COOKIE user_cookie,
				   const DAT_RMR_TRIPLET *remote_iov,
				   DAT_COMPLETION_FLAGS completion_flags);
/* slot 37 */
DAT_RETURN dapl_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			      DAT_BOOLEAN *recv_idle,
			      DAT_BOOLEAN *request_idle);
/* slot 38 */
DAT_RETURN dapl_ep_free(DAT_EP_HANDLE ep_handle);
/* slot 39 */
DAT_RETURN
dapl_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
		DAT_REGION_DESCRIPTION region_description, DAT_VLEN length,
		DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS privileges,
		DAT_LMR_HANDLE *lmr_handle, DAT_LMR_CONTEXT *lmr_context,
		DAT_RMR_CONTEXT *rmr_context, DAT_VLEN *registered_length,
		DAT_VADDR *registered_address);
/* slot 40 */
DAT_RETURN dapl_lmr_query(DAT_LMR_HANDLE lmr_handle,
			  DAT_LMR_PARAM_MASK lmr_param_mask,
			  DAT_LMR_PARAM *lmr_param);
/* slot 41 */
DAT_RETURN dapl_lmr_free(DAT_LMR_HANDLE lmr_handle);
/* slot 42 */
DAT_RETURN dapl_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle);
/* slot 43 */
DAT_RETURN dapl_rmr_query(DAT_RMR_HANDLE rmr_handle,
			  DAT_RMR_PARAM_MASK rmr_param_mask,
			  DAT_RMR_PARAM *rmr_param);
/* slot 44 */
DAT_RETURN dapl_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			 const DAT_LMR_TRIPLET *lmr_triplet,
			 DAT_MEM_PRIV_FLAGS mem_priv, DAT_EP_HANDLE ep_handle,
			 DAT_RMR_COOKIE user_cookie,
			 DAT_COMPLETION_FLAGS completion_flags,
			 DAT_RMR_CONTEXT *rmr_context);
/* slot 45 */
DAT_RETURN dapl_rmr_free(DAT_RMR_HANDLE rmr_handle);
/* slot 46 */
DAT_RETURN dapl_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			   DAT_PSP_HANDLE *psp_handle);
/* slot 47 */
DAT_RETURN dapl_psp_query(DAT_PSP_HANDLE psp_handle,
			  DAT_PSP_PARAM_MASK psp_param_mask,
			  DAT_PSP_PARAM *psp_param);
/* slot 48 */
DAT_RETURN dapl_psp_free(DAT_PSP_HANDLE psp_handle);
/* slot 49 */
DAT_RETURN dapl_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			   DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			   DAT_RSP_HANDLE *rsp_handle);
/* slot 50 */
DAT_RETURN dapl_rsp_query(DAT_RSP_HANDLE rsp_handle,
			  DAT_RSP_PARAM_MASK rsp_param_mask,
			  DAT_RSP_PARAM *rsp_param);
/* slot 51 */
DAT_RETURN dapl_rsp_free(DAT_RSP_HANDLE rsp_handle);
/* slot 52 */
DAT_RETURN dapl_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle);
/* slot 53 */
DAT_RETURN dapl_pz_query(DAT_PZ_HANDLE pz_handle,
			 DAT_PZ_PARAM_MASK pz_param_mask,
			 DAT_PZ_PARAM *pz_param);
/* slot 54 */
DAT_RETURN dapl_pz_free(DAT_PZ_HANDLE pz_handle);
/* slot 55 */
DAT_RETURN dapl_psp_create_any(DAT_IA_HANDLE ia_handle,
			       DAT_CONN_QUAL *conn_qual,
			       DAT_EVD_HANDLE evd_handle,
			       DAT_PSP_FLAGS psp_flags,
			       DAT_PSP_HANDLE *psp_handle);
/* slot 56 */
DAT_RETURN dapl_ep_reset(DAT_EP_HANDLE ep_handle);
/* slot 57 */
DAT_RETURN dapl_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle);
/* slot 58 */
DAT_RETURN dapl_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle);
/* slot 59 */
DAT_RETURN dapl_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments);
/* slot 60 */
DAT_RETURN dapl_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				    const DAT_LMR_TRIPLET *local_segments,
				    DAT_VLEN num_segments);
/* slot 61 */
DAT_RETURN dapl_ep_create_with_srq(
    DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
    DAT_EVD_HANDLE recv_evd_handle, DAT_EVD_HANDLE request_evd_handle,
    DAT_EVD_HANDLE connect_evd_handle, DAT_SRQ_HANDLE srq_handle,
    const DAT_EP_ATTR *ep_attributes, DAT_EP_HANDLE *ep_handle);
/* slot 62 */
DAT_RETURN dapl_ep_recv_query(DAT_EP_HANDLE ep_handle,
			      DAT_COUNT *nbufs_allocated,
			      DAT_COUNT *bufs_alloc_span);
/* slot 63 */
DAT_RETURN dapl_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT soft_high_watermark,
				 DAT_COUNT hard_high_watermark);
/* slot 64 */
DAT_RETURN dapl_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			   DAT_SRQ_ATTR *srq_attr, DAT_SRQ_HANDLE *srq_handle);
/* slot 65 */
DAT_RETURN dapl_srq_free(DAT_SRQ_HANDLE srq_handle);
/* slot 66 */
DAT_RETURN dapl_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie);
/* slot 67 */
DAT_RETURN dapl_srq_query(DAT_SRQ_HANDLE srq_handle,
			  DAT_SRQ_PARAM_MASK srq_param_mask,
			  DAT_SRQ_PARAM *srq_param);
/* slot 68 */
DAT_RETURN dapl_srq_resize(DAT_SRQ_HANDLE srq_handle,
			   DAT_COUNT srq_max_recv_dto);
/* slot 69 */
DAT_RETURN dapl_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark);

#endif
