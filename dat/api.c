/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dispatching entry points of libdat.so.1: 66 of the 72 exported
 * calls.  Each checks its dispatch handle (the first argument) and calls
 * the matching slot of the DAT_PROVIDER table that the handle's first
 * word points to, returning the provider's result unchanged.
 *
 * The check goes one step beyond the reference wrappers (NULL or not
 * 4-byte aligned): the first word must also be the table of a provider
 * registered now.  A pointer to a handle variable, a freed IA of an
 * unloaded provider or random memory then gets DAT_INVALID_HANDLE with
 * the subtype the reference uses, not a jump through garbage.  It costs a
 * few loads and compares (registry/dynamic_registry.c).
 */
#include <stdarg.h>
#include <stdint.h>

#include "../registry/registry.h"

#define dat_likely(x) __builtin_expect(!!(x), 1)
#define dat_unlikely(x) __builtin_expect(!!(x), 0)

/* The full probe, out of line: a table other than the common one, or no
 * table. */
static __attribute__((noinline, cold)) DAT_PROVIDER *
dat_handle_slow(DAT_PROVIDER *p)
{
	return dat_dr_is_provider(p) ? p : NULL;
}

/*
 * The checks in front of every call: NULL or not 4-byte aligned, as the
 * reference; then the handle's first word must be a registered table.
 * The common case first: the word is one of the two tables in
 * dat_dr_hot (registry.h), one load and one compare each, and the call
 * is a tail call from there (no frame); any other word takes the full
 * probe of the registered set, out of line.  dat_registry_add_provider
 * refuses a table with an empty slot, so an empty slot here is no
 * registered table's: dat_dr_none (the common-case word's stand-in when
 * no table is there) or a table its provider emptied after registering
 * it.  Either way the handle is not one of a provider: DAT_INVALID_HANDLE.
 */
#define DAT_DISPATCH(handle, subtype, slot, ...)                               \
	do {                                                                   \
		const DAT_PROVIDER *hot_;                                      \
		DAT_PROVIDER *provider_;                                       \
		if (dat_unlikely(!(handle) || ((uintptr_t)(handle) & 3)))      \
			return DAT_ERROR(DAT_INVALID_HANDLE, subtype);         \
		provider_ = *(DAT_PROVIDER *const *)(handle);                  \
		hot_ = atomic_load_explicit(&dat_dr_hot[0],                    \
					    memory_order_acquire);             \
		if (dat_likely(provider_ == hot_) ||                           \
		    dat_likely(provider_ ==                                    \
			       (hot_ = atomic_load_explicit(                   \
				    &dat_dr_hot[1], memory_order_acquire)))) { \
			if (dat_unlikely(!hot_->slot))                         \
				return DAT_ERROR(DAT_INVALID_HANDLE, subtype); \
			return hot_->slot(__VA_ARGS__);                        \
		}                                                              \
		provider_ = dat_handle_slow(provider_);                        \
		if (!provider_)                                                \
			return DAT_ERROR(DAT_INVALID_HANDLE, subtype);         \
		if (!provider_->slot)                                          \
			return DAT_ERROR(DAT_INVALID_HANDLE, subtype);         \
		return provider_->slot(__VA_ARGS__);                           \
	} while (0)

DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			DAT_PROVIDER_ATTR *provider_attr)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, ia_query_func, ia_handle,
		     async_evd_handle, ia_attr_mask, ia_attr,
		     provider_attr_mask, provider_attr);
}

DAT_RETURN dat_set_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT context)
{
	DAT_DISPATCH(dat_handle, DAT_INVALID_HANDLE1, set_consumer_context_func,
		     dat_handle, context);
}

DAT_RETURN dat_get_consumer_context(DAT_HANDLE dat_handle, DAT_CONTEXT *context)
{
	DAT_DISPATCH(dat_handle, DAT_INVALID_HANDLE1, get_consumer_context_func,
		     dat_handle, context);
}

DAT_RETURN dat_get_handle_type(DAT_HANDLE dat_handle,
			       DAT_HANDLE_TYPE *handle_type)
{
	DAT_DISPATCH(dat_handle, DAT_INVALID_HANDLE1, get_handle_type_func,
		     dat_handle, handle_type);
}

DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle,
			DAT_CR_PARAM_MASK cr_param_mask, DAT_CR_PARAM *cr_param)
{
	DAT_DISPATCH(cr_handle, DAT_INVALID_HANDLE_CR, cr_query_func, cr_handle,
		     cr_param_mask, cr_param);
}

DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			 DAT_COUNT private_data_size,
			 const DAT_PVOID private_data)
{
	DAT_DISPATCH(cr_handle, DAT_INVALID_HANDLE_CR, cr_accept_func,
		     cr_handle, ep_handle, private_data_size, private_data);
}

DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle)
{
	DAT_DISPATCH(cr_handle, DAT_INVALID_HANDLE_CR, cr_reject_func,
		     cr_handle);
}

DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	DAT_DISPATCH(cr_handle, DAT_INVALID_HANDLE_CR, cr_handoff_func,
		     cr_handle, handoff);
}

DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_resize_func,
		     evd_handle, evd_min_qlen);
}

DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_post_se_func,
		     evd_handle, event);
}

DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_dequeue_func,
		     evd_handle, event);
}

DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle,
			 DAT_EVD_PARAM_MASK evd_param_mask,
			 DAT_EVD_PARAM *evd_param)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_query_func,
		     evd_handle, evd_param_mask, evd_param);
}

DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_free_func,
		     evd_handle);
}

DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			 DAT_EVD_HANDLE recv_evd_handle,
			 DAT_EVD_HANDLE request_evd_handle,
			 DAT_EVD_HANDLE connect_evd_handle,
			 const DAT_EP_ATTR *ep_attributes,
			 DAT_EP_HANDLE *ep_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, ep_create_func,
		     ia_handle, pz_handle, recv_evd_handle, request_evd_handle,
		     connect_evd_handle, ep_attributes, ep_handle);
}

DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle,
			DAT_EP_PARAM_MASK ep_param_mask, DAT_EP_PARAM *ep_param)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_query_func, ep_handle,
		     ep_param_mask, ep_param);
}

DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle,
			 DAT_EP_PARAM_MASK ep_param_mask,
			 const DAT_EP_PARAM *ep_param)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_modify_func,
		     ep_handle, ep_param_mask, ep_param);
}

DAT_RETURN
dat_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
	       DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
	       DAT_COUNT private_data_size, const DAT_PVOID private_data,
	       DAT_QOS quality_of_service, DAT_CONNECT_FLAGS connect_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_connect_func,
		     ep_handle, remote_ia_address, remote_conn_qual, timeout,
		     private_data_size, private_data, quality_of_service,
		     connect_flags);
}

DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			      DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data,
			      DAT_QOS quality_of_service)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_dup_connect_func,
		     ep_handle, ep_dup_handle, timeout, private_data_size,
		     private_data, quality_of_service);
}

DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle,
			     DAT_CLOSE_FLAGS close_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_disconnect_func,
		     ep_handle, close_flags);
}

DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_send_func,
		     ep_handle, num_segments, local_iov, user_cookie,
		     completion_flags);
}

DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_recv_func,
		     ep_handle, num_segments, local_iov, user_cookie,
		     completion_flags);
}

DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 const DAT_RMR_TRIPLET *remote_iov,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_rdma_read_func,
		     ep_handle, num_segments, local_iov, user_cookie,
		     remote_iov, completion_flags);
}

DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_post_rdma_write_func,
		     ep_handle, num_segments, local_iov, user_cookie,
		     remote_iov, completion_flags);
}

DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			     DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_get_status_func,
		     ep_handle, ep_state, recv_idle, request_idle);
}

DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_free_func, ep_handle);
}

DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_reset_func,
		     ep_handle);
}

DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle,
			 DAT_LMR_PARAM_MASK lmr_param_mask,
			 DAT_LMR_PARAM *lmr_param)
{
	DAT_DISPATCH(lmr_handle, DAT_INVALID_HANDLE_LMR, lmr_query_func,
		     lmr_handle, lmr_param_mask, lmr_param);
}

DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	DAT_DISPATCH(lmr_handle, DAT_INVALID_HANDLE_LMR, lmr_free_func,
		     lmr_handle);
}

DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *local_segments,
				  DAT_VLEN num_segments)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, lmr_sync_rdma_read_func,
		     ia_handle, local_segments, num_segments);
}

DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, lmr_sync_rdma_write_func,
		     ia_handle, local_segments, num_segments);
}

DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	DAT_DISPATCH(pz_handle, DAT_INVALID_HANDLE_PZ, rmr_create_func,
		     pz_handle, rmr_handle);
}

DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle,
			 DAT_RMR_PARAM_MASK rmr_param_mask,
			 DAT_RMR_PARAM *rmr_param)
{
	DAT_DISPATCH(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_query_func,
		     rmr_handle, rmr_param_mask, rmr_param);
}

DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			const DAT_LMR_TRIPLET *lmr_triplet,
			DAT_MEM_PRIV_FLAGS mem_priv, DAT_EP_HANDLE ep_handle,
			DAT_RMR_COOKIE user_cookie,
			DAT_COMPLETION_FLAGS completion_flags,
			DAT_RMR_CONTEXT *rmr_context)
{
	DAT_DISPATCH(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_bind_func,
		     rmr_handle, lmr_triplet, mem_priv, ep_handle, user_cookie,
		     completion_flags, rmr_context);
}

DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	DAT_DISPATCH(rmr_handle, DAT_INVALID_HANDLE_RMR, rmr_free_func,
		     rmr_handle);
}

DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			  DAT_PSP_HANDLE *psp_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, psp_create_func,
		     ia_handle, conn_qual, evd_handle, psp_flags, psp_handle);
}

DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd_handle,
			      DAT_PSP_FLAGS psp_flags,
			      DAT_PSP_HANDLE *psp_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, psp_create_any_func,
		     ia_handle, conn_qual, evd_handle, psp_flags, psp_handle);
}

DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle,
			 DAT_PSP_PARAM_MASK psp_param_mask,
			 DAT_PSP_PARAM *psp_param)
{
	DAT_DISPATCH(psp_handle, DAT_INVALID_HANDLE_PSP, psp_query_func,
		     psp_handle, psp_param_mask, psp_param);
}

DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle)
{
	DAT_DISPATCH(psp_handle, DAT_INVALID_HANDLE_PSP, psp_free_func,
		     psp_handle);
}

DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			  DAT_RSP_HANDLE *rsp_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, rsp_create_func,
		     ia_handle, conn_qual, ep_handle, evd_handle, rsp_handle);
}

DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle,
			 DAT_RSP_PARAM_MASK rsp_param_mask,
			 DAT_RSP_PARAM *rsp_param)
{
	DAT_DISPATCH(rsp_handle, DAT_INVALID_HANDLE_RSP, rsp_query_func,
		     rsp_handle, rsp_param_mask, rsp_param);
}

DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	DAT_DISPATCH(rsp_handle, DAT_INVALID_HANDLE_RSP, rsp_free_func,
		     rsp_handle);
}

DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, pz_create_func,
		     ia_handle, pz_handle);
}

DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle,
			DAT_PZ_PARAM_MASK pz_param_mask, DAT_PZ_PARAM *pz_param)
{
	DAT_DISPATCH(pz_handle, DAT_INVALID_HANDLE_PZ, pz_query_func, pz_handle,
		     pz_param_mask, pz_param);
}

DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle)
{
	DAT_DISPATCH(pz_handle, DAT_INVALID_HANDLE_PZ, pz_free_func, pz_handle);
}

DAT_RETURN dat_ep_create_with_srq(
    DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
    DAT_EVD_HANDLE recv_evd_handle, DAT_EVD_HANDLE request_evd_handle,
    DAT_EVD_HANDLE connect_evd_handle, DAT_SRQ_HANDLE srq_handle,
    const DAT_EP_ATTR *ep_attributes, DAT_EP_HANDLE *ep_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, ep_create_with_srq_func,
		     ia_handle, pz_handle, recv_evd_handle, request_evd_handle,
		     connect_evd_handle, srq_handle, ep_attributes, ep_handle);
}

DAT_RETURN dat_ep_recv_query(DAT_EP_HANDLE ep_handle,
			     DAT_COUNT *nbufs_allocated,
			     DAT_COUNT *bufs_alloc_span)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_recv_query_func,
		     ep_handle, nbufs_allocated, bufs_alloc_span);
}

DAT_RETURN dat_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				DAT_COUNT soft_high_watermark,
				DAT_COUNT hard_high_watermark)
{
	DAT_DISPATCH(ep_handle, DAT_INVALID_HANDLE_EP, ep_set_watermark_func,
		     ep_handle, soft_high_watermark, hard_high_watermark);
}

DAT_RETURN dat_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			  DAT_SRQ_ATTR *srq_attr, DAT_SRQ_HANDLE *srq_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, srq_create_func,
		     ia_handle, pz_handle, srq_attr, srq_handle);
}

DAT_RETURN dat_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	DAT_DISPATCH(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_free_func,
		     srq_handle);
}

DAT_RETURN dat_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments,
			     DAT_LMR_TRIPLET *local_iov,
			     DAT_DTO_COOKIE user_cookie)
{
	DAT_DISPATCH(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_post_recv_func,
		     srq_handle, num_segments, local_iov, user_cookie);
}

DAT_RETURN dat_srq_query(DAT_SRQ_HANDLE srq_handle,
			 DAT_SRQ_PARAM_MASK srq_param_mask,
			 DAT_SRQ_PARAM *srq_param)
{
	DAT_DISPATCH(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_query_func,
		     srq_handle, srq_param_mask, srq_param);
}

DAT_RETURN dat_srq_resize(DAT_SRQ_HANDLE srq_handle, DAT_COUNT srq_max_recv_dto)
{
	DAT_DISPATCH(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_resize_func,
		     srq_handle, srq_max_recv_dto);
}

DAT_RETURN dat_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
	DAT_DISPATCH(srq_handle, DAT_INVALID_HANDLE_SRQ, srq_set_lw_func,
		     srq_handle, low_watermark);
}

DAT_RETURN
dat_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
	       DAT_REGION_DESCRIPTION region_description, DAT_VLEN length,
	       DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS privileges,
	       DAT_LMR_HANDLE *lmr_handle, DAT_LMR_CONTEXT *lmr_context,
	       DAT_RMR_CONTEXT *rmr_context, DAT_VLEN *registered_length,
	       DAT_VADDR *registered_address)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, lmr_create_func,
		     ia_handle, mem_type, region_description, length, pz_handle,
		     privileges, lmr_handle, lmr_context, rmr_context,
		     registered_length, registered_address);
}

DAT_RETURN dat_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			  DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS evd_flags,
			  DAT_EVD_HANDLE *evd_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, evd_create_func,
		     ia_handle, evd_min_qlen, cno_handle, evd_flags,
		     evd_handle);
}

DAT_RETURN dat_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
			      DAT_CNO_HANDLE cno_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_modify_cno_func,
		     evd_handle, cno_handle);
}

DAT_RETURN dat_cno_create(DAT_IA_HANDLE ia_handle,
			  DAT_OS_WAIT_PROXY_AGENT agent,
			  DAT_CNO_HANDLE *cno_handle)
{
	DAT_DISPATCH(ia_handle, DAT_INVALID_HANDLE_IA, cno_create_func,
		     ia_handle, agent, cno_handle);
}

DAT_RETURN dat_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				DAT_OS_WAIT_PROXY_AGENT agent)
{
	DAT_DISPATCH(cno_handle, DAT_INVALID_HANDLE_CNO, cno_modify_agent_func,
		     cno_handle, agent);
}

DAT_RETURN dat_cno_query(DAT_CNO_HANDLE cno_handle,
			 DAT_CNO_PARAM_MASK cno_param_mask,
			 DAT_CNO_PARAM *cno_param)
{
	DAT_DISPATCH(cno_handle, DAT_INVALID_HANDLE_CNO, cno_query_func,
		     cno_handle, cno_param_mask, cno_param);
}

DAT_RETURN dat_cno_free(DAT_CNO_HANDLE cno_handle)
{
	DAT_DISPATCH(cno_handle, DAT_INVALID_HANDLE_CNO, cno_free_func,
		     cno_handle);
}

DAT_RETURN dat_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			DAT_EVD_HANDLE *evd_handle)
{
	DAT_DISPATCH(cno_handle, DAT_INVALID_HANDLE_CNO, cno_wait_func,
		     cno_handle, timeout, evd_handle);
}

DAT_RETURN dat_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_enable_func,
		     evd_handle);
}

DAT_RETURN dat_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			DAT_COUNT threshold, DAT_EVENT *event,
			DAT_COUNT *n_more_events)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_wait_func, evd_handle,
		     timeout, threshold, event, n_more_events);
}

DAT_RETURN dat_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_disable_func,
		     evd_handle);
}

DAT_RETURN dat_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_set_unwaitable_func,
		     evd_handle);
}

DAT_RETURN dat_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	DAT_DISPATCH(evd_handle, DAT_INVALID_HANDLE1, evd_clear_unwaitable_func,
		     evd_handle);
}

/*
 * The extension call (dat_ib_extensions.h): same handle check as every
 * wrapper, then the function the handle's provider registered with
 * dat_registry_add_extension; none registered is DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_extension_op(DAT_HANDLE handle, DAT_EXTENDED_OP op, ...)
{
	DAT_EXTENSION_FUNC fn;
	DAT_RETURN rc;
	va_list ap;

	/* One scan of the registered tables both checks the handle and
	 * finds its extension. */
	if (!handle || ((uintptr_t)handle & 3) ||
	    !dat_dr_extension(*(DAT_PROVIDER *const *)handle, &fn))
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	if (!fn)
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	va_start(ap, op);
	rc = fn(handle, op, ap);
	va_end(ap);
	return rc;
}
