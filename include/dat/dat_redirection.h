/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_redirection.h - dispatch of the common DAT calls to a provider.
 *
 * libdat does not implement the DAT calls itself: every handle points to a
 * provider object whose first word is the provider's DAT_PROVIDER table
 * (struct dat_provider, defined in <dat/udat_redirection.h>), and each call
 * is forwarded to the matching slot of that table.  The macros below do
 * exactly that; the DAT_*_FUNC typedefs give the type of each slot.
 *
 * Included through <dat/dat_registry.h> (providers and libdat); consumers
 * that include only <dat/udat.h> do not see any of this.
 */
#ifndef _DAT_REDIRECTION_H_
#define _DAT_REDIRECTION_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dat_provider DAT_PROVIDER;

/*
 * The provider table of any DAT handle: the first pointer-sized word of the
 * object.  A single-provider build may define its own mapping first.
 */
#ifndef DAT_HANDLE_TO_PROVIDER
#define DAT_HANDLE_TO_PROVIDER(handle)	(*(DAT_PROVIDER **)(handle))
#endif

/*
 * Redirection macros: same arguments, in the same order, as the DAT call
 * of the same name; the first argument selects the provider.
 */

#define DAT_IA_QUERY(ia_handle, async_evd_handle, ia_attr_mask, ia_attr, \
                     provider_attr_mask, provider_attr) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->ia_query_func)( \
		(ia_handle), (async_evd_handle), (ia_attr_mask), (ia_attr), \
		(provider_attr_mask), (provider_attr))

#define DAT_SET_CONSUMER_CONTEXT(dat_handle, context) \
	(DAT_HANDLE_TO_PROVIDER(dat_handle)->set_consumer_context_func)( \
		(dat_handle), (context))

#define DAT_GET_CONSUMER_CONTEXT(dat_handle, context) \
	(DAT_HANDLE_TO_PROVIDER(dat_handle)->get_consumer_context_func)( \
		(dat_handle), (context))

#define DAT_GET_HANDLE_TYPE(dat_handle, handle_type) \
	(DAT_HANDLE_TO_PROVIDER(dat_handle)->get_handle_type_func)( \
		(dat_handle), (handle_type))

#define DAT_CR_QUERY(cr_handle, cr_param_mask, cr_param) \
	(DAT_HANDLE_TO_PROVIDER(cr_handle)->cr_query_func)( \
		(cr_handle), (cr_param_mask), (cr_param))

#define DAT_CR_ACCEPT(cr_handle, ep_handle, private_data_size, private_data) \
	(DAT_HANDLE_TO_PROVIDER(cr_handle)->cr_accept_func)( \
		(cr_handle), (ep_handle), (private_data_size), (private_data))

#define DAT_CR_REJECT(cr_handle) \
	(DAT_HANDLE_TO_PROVIDER(cr_handle)->cr_reject_func)((cr_handle))

#define DAT_CR_HANDOFF(cr_handle, handoff) \
	(DAT_HANDLE_TO_PROVIDER(cr_handle)->cr_handoff_func)( \
		(cr_handle), (handoff))

#define DAT_EVD_QUERY(evd_handle, evd_param_mask, evd_param) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_query_func)( \
		(evd_handle), (evd_param_mask), (evd_param))

#define DAT_EVD_RESIZE(evd_handle, evd_min_qlen) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_resize_func)( \
		(evd_handle), (evd_min_qlen))

#define DAT_EVD_POST_SE(evd_handle, event) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_post_se_func)( \
		(evd_handle), (event))

#define DAT_EVD_DEQUEUE(evd_handle, event) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_dequeue_func)( \
		(evd_handle), (event))

#define DAT_EVD_FREE(evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_free_func)((evd_handle))

#define DAT_EP_CREATE(ia_handle, pz_handle, recv_evd_handle, \
                      request_evd_handle, connect_evd_handle, ep_attributes, \
                      ep_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->ep_create_func)( \
		(ia_handle), (pz_handle), (recv_evd_handle), \
		(request_evd_handle), (connect_evd_handle), (ep_attributes), \
		(ep_handle))

#define DAT_EP_QUERY(ep_handle, ep_param_mask, ep_param) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_query_func)( \
		(ep_handle), (ep_param_mask), (ep_param))

#define DAT_EP_MODIFY(ep_handle, ep_param_mask, ep_param) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_modify_func)( \
		(ep_handle), (ep_param_mask), (ep_param))

#define DAT_EP_CONNECT(ep_handle, remote_ia_address, remote_conn_qual, \
                       timeout, private_data_size, private_data, \
                       quality_of_service, connect_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_connect_func)( \
		(ep_handle), (remote_ia_address), (remote_conn_qual), \
		(timeout), (private_data_size), (private_data), \
		(quality_of_service), (connect_flags))

#define DAT_EP_DUP_CONNECT(ep_handle, ep_dup_handle, timeout, \
                           private_data_size, private_data, \
                           quality_of_service) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_dup_connect_func)( \
		(ep_handle), (ep_dup_handle), (timeout), (private_data_size), \
		(private_data), (quality_of_service))

#define DAT_EP_DISCONNECT(ep_handle, close_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_disconnect_func)( \
		(ep_handle), (close_flags))

#define DAT_EP_POST_SEND(ep_handle, num_segments, local_iov, user_cookie, \
                         completion_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_post_send_func)( \
		(ep_handle), (num_segments), (local_iov), (user_cookie), \
		(completion_flags))

#define DAT_EP_POST_RECV(ep_handle, num_segments, local_iov, user_cookie, \
                         completion_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_post_recv_func)( \
		(ep_handle), (num_segments), (local_iov), (user_cookie), \
		(completion_flags))

#define DAT_EP_POST_RDMA_READ(ep_handle, num_segments, local_iov, user_cookie, \
                              remote_iov, completion_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_post_rdma_read_func)( \
		(ep_handle), (num_segments), (local_iov), (user_cookie), \
		(remote_iov), (completion_flags))

#define DAT_EP_POST_RDMA_WRITE(ep_handle, num_segments, local_iov, \
                               user_cookie, remote_iov, completion_flags) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_post_rdma_write_func)( \
		(ep_handle), (num_segments), (local_iov), (user_cookie), \
		(remote_iov), (completion_flags))

#define DAT_EP_GET_STATUS(ep_handle, ep_state, recv_idle, request_idle) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_get_status_func)( \
		(ep_handle), (ep_state), (recv_idle), (request_idle))

#define DAT_EP_FREE(ep_handle) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_free_func)((ep_handle))

#define DAT_LMR_QUERY(lmr_handle, lmr_param_mask, lmr_param) \
	(DAT_HANDLE_TO_PROVIDER(lmr_handle)->lmr_query_func)( \
		(lmr_handle), (lmr_param_mask), (lmr_param))

#define DAT_LMR_FREE(lmr_handle) \
	(DAT_HANDLE_TO_PROVIDER(lmr_handle)->lmr_free_func)((lmr_handle))

#define DAT_RMR_CREATE(pz_handle, rmr_handle) \
	(DAT_HANDLE_TO_PROVIDER(pz_handle)->rmr_create_func)( \
		(pz_handle), (rmr_handle))

#define DAT_RMR_QUERY(rmr_handle, rmr_param_mask, rmr_param) \
	(DAT_HANDLE_TO_PROVIDER(rmr_handle)->rmr_query_func)( \
		(rmr_handle), (rmr_param_mask), (rmr_param))

#define DAT_RMR_BIND(rmr_handle, lmr_triplet, mem_priv, ep_handle, \
                     user_cookie, completion_flags, rmr_context) \
	(DAT_HANDLE_TO_PROVIDER(rmr_handle)->rmr_bind_func)( \
		(rmr_handle), (lmr_triplet), (mem_priv), (ep_handle), \
		(user_cookie), (completion_flags), (rmr_context))

#define DAT_RMR_FREE(rmr_handle) \
	(DAT_HANDLE_TO_PROVIDER(rmr_handle)->rmr_free_func)((rmr_handle))

#define DAT_PSP_CREATE(ia_handle, conn_qual, evd_handle, psp_flags, \
                       psp_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->psp_create_func)( \
		(ia_handle), (conn_qual), (evd_handle), (psp_flags), \
		(psp_handle))

#define DAT_PSP_QUERY(psp_handle, psp_param_mask, psp_param) \
	(DAT_HANDLE_TO_PROVIDER(psp_handle)->psp_query_func)( \
		(psp_handle), (psp_param_mask), (psp_param))

#define DAT_PSP_FREE(psp_handle) \
	(DAT_HANDLE_TO_PROVIDER(psp_handle)->psp_free_func)((psp_handle))

#define DAT_RSP_CREATE(ia_handle, conn_qual, ep_handle, evd_handle, \
                       rsp_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->rsp_create_func)( \
		(ia_handle), (conn_qual), (ep_handle), (evd_handle), \
		(rsp_handle))

#define DAT_RSP_QUERY(rsp_handle, rsp_param_mask, rsp_param) \
	(DAT_HANDLE_TO_PROVIDER(rsp_handle)->rsp_query_func)( \
		(rsp_handle), (rsp_param_mask), (rsp_param))

#define DAT_RSP_FREE(rsp_handle) \
	(DAT_HANDLE_TO_PROVIDER(rsp_handle)->rsp_free_func)((rsp_handle))

#define DAT_PZ_CREATE(ia_handle, pz_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->pz_create_func)( \
		(ia_handle), (pz_handle))

#define DAT_PZ_QUERY(pz_handle, pz_param_mask, pz_param) \
	(DAT_HANDLE_TO_PROVIDER(pz_handle)->pz_query_func)( \
		(pz_handle), (pz_param_mask), (pz_param))

#define DAT_PZ_FREE(pz_handle) \
	(DAT_HANDLE_TO_PROVIDER(pz_handle)->pz_free_func)((pz_handle))

#define DAT_PSP_CREATE_ANY(ia_handle, conn_qual, evd_handle, psp_flags, \
                           psp_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->psp_create_any_func)( \
		(ia_handle), (conn_qual), (evd_handle), (psp_flags), \
		(psp_handle))

#define DAT_EP_RESET(ep_handle) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_reset_func)((ep_handle))

#define DAT_LMR_SYNC_RDMA_READ(ia_handle, local_segments, num_segments) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->lmr_sync_rdma_read_func)( \
		(ia_handle), (local_segments), (num_segments))

#define DAT_LMR_SYNC_RDMA_WRITE(ia_handle, local_segments, num_segments) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->lmr_sync_rdma_write_func)( \
		(ia_handle), (local_segments), (num_segments))

#define DAT_EP_CREATE_WITH_SRQ(ia_handle, pz_handle, recv_evd_handle, \
                               request_evd_handle, connect_evd_handle, \
                               srq_handle, ep_attributes, ep_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->ep_create_with_srq_func)( \
		(ia_handle), (pz_handle), (recv_evd_handle), \
		(request_evd_handle), (connect_evd_handle), (srq_handle), \
		(ep_attributes), (ep_handle))

#define DAT_EP_RECV_QUERY(ep_handle, nbufs_allocated, bufs_alloc_span) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_recv_query_func)( \
		(ep_handle), (nbufs_allocated), (bufs_alloc_span))

#define DAT_EP_SET_WATERMARK(ep_handle, soft_high_watermark, \
                             hard_high_watermark) \
	(DAT_HANDLE_TO_PROVIDER(ep_handle)->ep_set_watermark_func)( \
		(ep_handle), (soft_high_watermark), (hard_high_watermark))

#define DAT_SRQ_CREATE(ia_handle, pz_handle, srq_attr, srq_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->srq_create_func)( \
		(ia_handle), (pz_handle), (srq_attr), (srq_handle))

#define DAT_SRQ_FREE(srq_handle) \
	(DAT_HANDLE_TO_PROVIDER(srq_handle)->srq_free_func)((srq_handle))

#define DAT_SRQ_POST_RECV(srq_handle, num_segments, local_iov, user_cookie) \
	(DAT_HANDLE_TO_PROVIDER(srq_handle)->srq_post_recv_func)( \
		(srq_handle), (num_segments), (local_iov), (user_cookie))

#define DAT_SRQ_QUERY(srq_handle, srq_param_mask, srq_param) \
	(DAT_HANDLE_TO_PROVIDER(srq_handle)->srq_query_func)( \
		(srq_handle), (srq_param_mask), (srq_param))

#define DAT_SRQ_RESIZE(srq_handle, srq_max_recv_dto) \
	(DAT_HANDLE_TO_PROVIDER(srq_handle)->srq_resize_func)( \
		(srq_handle), (srq_max_recv_dto))

#define DAT_SRQ_SET_LW(srq_handle, low_watermark) \
	(DAT_HANDLE_TO_PROVIDER(srq_handle)->srq_set_lw_func)( \
		(srq_handle), (low_watermark))

/*
 * Types of the provider table slots.  Each parameter list equals that of
 * the DAT call of the same name.
 */

/* called by libdat itself (dat_ia_openv), never through a macro */
typedef DAT_RETURN (*DAT_IA_OPEN_FUNC)(
	IN const DAT_NAME_PTR		name,
	IN DAT_COUNT			async_evd_qlen,
	INOUT DAT_EVD_HANDLE		*async_evd_handle,
	OUT DAT_IA_HANDLE		*ia_handle);

/* the parameter list of dat_ia_openv itself */
typedef DAT_RETURN (*DAT_IA_OPENV_FUNC)(
	IN const DAT_NAME_PTR		name,
	IN DAT_COUNT			async_evd_qlen,
	INOUT DAT_EVD_HANDLE		*async_evd_handle,
	OUT DAT_IA_HANDLE		*ia_handle,
	IN DAT_UINT32			dapl_major,
	IN DAT_UINT32			dapl_minor,
	IN DAT_BOOLEAN			thread_safety);

/* called by libdat itself (dat_ia_close) */
typedef DAT_RETURN (*DAT_IA_CLOSE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_CLOSE_FLAGS		close_flags);

typedef DAT_RETURN (*DAT_IA_QUERY_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	OUT DAT_EVD_HANDLE		*async_evd_handle,
	IN DAT_IA_ATTR_MASK		ia_attr_mask,
	OUT DAT_IA_ATTR			*ia_attr,
	IN DAT_PROVIDER_ATTR_MASK	provider_attr_mask,
	OUT DAT_PROVIDER_ATTR		*provider_attr);

typedef DAT_RETURN (*DAT_SET_CONSUMER_CONTEXT_FUNC)(
	IN DAT_HANDLE			dat_handle,
	IN DAT_CONTEXT			context);

typedef DAT_RETURN (*DAT_GET_CONSUMER_CONTEXT_FUNC)(
	IN DAT_HANDLE			dat_handle,
	OUT DAT_CONTEXT			*context);

typedef DAT_RETURN (*DAT_GET_HANDLE_TYPE_FUNC)(
	IN DAT_HANDLE			dat_handle,
	OUT DAT_HANDLE_TYPE		*handle_type);

typedef DAT_RETURN (*DAT_CR_QUERY_FUNC)(
	IN DAT_CR_HANDLE		cr_handle,
	IN DAT_CR_PARAM_MASK		cr_param_mask,
	OUT DAT_CR_PARAM		*cr_param);

typedef DAT_RETURN (*DAT_CR_ACCEPT_FUNC)(
	IN DAT_CR_HANDLE		cr_handle,
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			private_data_size,
	IN const DAT_PVOID		private_data);

typedef DAT_RETURN (*DAT_CR_REJECT_FUNC)(
	IN DAT_CR_HANDLE		cr_handle);

typedef DAT_RETURN (*DAT_CR_HANDOFF_FUNC)(
	IN DAT_CR_HANDLE		cr_handle,
	IN DAT_CONN_QUAL		handoff);

typedef DAT_RETURN (*DAT_EVD_QUERY_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_EVD_PARAM_MASK		evd_param_mask,
	OUT DAT_EVD_PARAM		*evd_param);

typedef DAT_RETURN (*DAT_EVD_RESIZE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_COUNT			evd_min_qlen);

typedef DAT_RETURN (*DAT_EVD_POST_SE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	IN const DAT_EVENT		*event);

typedef DAT_RETURN (*DAT_EVD_DEQUEUE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	OUT DAT_EVENT			*event);

typedef DAT_RETURN (*DAT_EVD_FREE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle);

typedef DAT_RETURN (*DAT_EP_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_PZ_HANDLE		pz_handle,
	IN DAT_EVD_HANDLE		recv_evd_handle,
	IN DAT_EVD_HANDLE		request_evd_handle,
	IN DAT_EVD_HANDLE		connect_evd_handle,
	IN const DAT_EP_ATTR		*ep_attributes,
	OUT DAT_EP_HANDLE		*ep_handle);

typedef DAT_RETURN (*DAT_EP_QUERY_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_EP_PARAM_MASK		ep_param_mask,
	OUT DAT_EP_PARAM		*ep_param);

typedef DAT_RETURN (*DAT_EP_MODIFY_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_EP_PARAM_MASK		ep_param_mask,
	IN const DAT_EP_PARAM		*ep_param);

typedef DAT_RETURN (*DAT_EP_CONNECT_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_IA_ADDRESS_PTR		remote_ia_address,
	IN DAT_CONN_QUAL		remote_conn_qual,
	IN DAT_TIMEOUT			timeout,
	IN DAT_COUNT			private_data_size,
	IN const DAT_PVOID		private_data,
	IN DAT_QOS			quality_of_service,
	IN DAT_CONNECT_FLAGS		connect_flags);

typedef DAT_RETURN (*DAT_EP_DUP_CONNECT_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_EP_HANDLE		ep_dup_handle,
	IN DAT_TIMEOUT			timeout,
	IN DAT_COUNT			private_data_size,
	IN const DAT_PVOID		private_data,
	IN DAT_QOS			quality_of_service);

typedef DAT_RETURN (*DAT_EP_DISCONNECT_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_CLOSE_FLAGS		close_flags);

typedef DAT_RETURN (*DAT_EP_POST_SEND_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			num_segments,
	IN DAT_LMR_TRIPLET		*local_iov,
	IN DAT_DTO_COOKIE		user_cookie,
	IN DAT_COMPLETION_FLAGS		completion_flags);

typedef DAT_RETURN (*DAT_EP_POST_RECV_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			num_segments,
	IN DAT_LMR_TRIPLET		*local_iov,
	IN DAT_DTO_COOKIE		user_cookie,
	IN DAT_COMPLETION_FLAGS		completion_flags);

typedef DAT_RETURN (*DAT_EP_POST_RDMA_READ_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			num_segments,
	IN DAT_LMR_TRIPLET		*local_iov,
	IN DAT_DTO_COOKIE		user_cookie,
	IN const DAT_RMR_TRIPLET	*remote_iov,
	IN DAT_COMPLETION_FLAGS		completion_flags);

typedef DAT_RETURN (*DAT_EP_POST_RDMA_WRITE_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			num_segments,
	IN DAT_LMR_TRIPLET		*local_iov,
	IN DAT_DTO_COOKIE		user_cookie,
	IN const DAT_RMR_TRIPLET	*remote_iov,
	IN DAT_COMPLETION_FLAGS		completion_flags);

typedef DAT_RETURN (*DAT_EP_GET_STATUS_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	OUT DAT_EP_STATE		*ep_state,
	OUT DAT_BOOLEAN			*recv_idle,
	OUT DAT_BOOLEAN			*request_idle);

typedef DAT_RETURN (*DAT_EP_FREE_FUNC)(
	IN DAT_EP_HANDLE		ep_handle);

typedef DAT_RETURN (*DAT_LMR_QUERY_FUNC)(
	IN DAT_LMR_HANDLE		lmr_handle,
	IN DAT_LMR_PARAM_MASK		lmr_param_mask,
	OUT DAT_LMR_PARAM		*lmr_param);

typedef DAT_RETURN (*DAT_LMR_FREE_FUNC)(
	IN DAT_LMR_HANDLE		lmr_handle);

typedef DAT_RETURN (*DAT_RMR_CREATE_FUNC)(
	IN DAT_PZ_HANDLE		pz_handle,
	OUT DAT_RMR_HANDLE		*rmr_handle);

typedef DAT_RETURN (*DAT_RMR_QUERY_FUNC)(
	IN DAT_RMR_HANDLE		rmr_handle,
	IN DAT_RMR_PARAM_MASK		rmr_param_mask,
	OUT DAT_RMR_PARAM		*rmr_param);

typedef DAT_RETURN (*DAT_RMR_BIND_FUNC)(
	IN DAT_RMR_HANDLE		rmr_handle,
	IN const DAT_LMR_TRIPLET	*lmr_triplet,
	IN DAT_MEM_PRIV_FLAGS		mem_priv,
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_RMR_COOKIE		user_cookie,
	IN DAT_COMPLETION_FLAGS		completion_flags,
	OUT DAT_RMR_CONTEXT		*rmr_context);

typedef DAT_RETURN (*DAT_RMR_FREE_FUNC)(
	IN DAT_RMR_HANDLE		rmr_handle);

typedef DAT_RETURN (*DAT_PSP_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_CONN_QUAL		conn_qual,
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_PSP_FLAGS		psp_flags,
	OUT DAT_PSP_HANDLE		*psp_handle);

typedef DAT_RETURN (*DAT_PSP_QUERY_FUNC)(
	IN DAT_PSP_HANDLE		psp_handle,
	IN DAT_PSP_PARAM_MASK		psp_param_mask,
	OUT DAT_PSP_PARAM		*psp_param);

typedef DAT_RETURN (*DAT_PSP_FREE_FUNC)(
	IN DAT_PSP_HANDLE		psp_handle);

typedef DAT_RETURN (*DAT_RSP_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_CONN_QUAL		conn_qual,
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_EVD_HANDLE		evd_handle,
	OUT DAT_RSP_HANDLE		*rsp_handle);

typedef DAT_RETURN (*DAT_RSP_QUERY_FUNC)(
	IN DAT_RSP_HANDLE		rsp_handle,
	IN DAT_RSP_PARAM_MASK		rsp_param_mask,
	OUT DAT_RSP_PARAM		*rsp_param);

typedef DAT_RETURN (*DAT_RSP_FREE_FUNC)(
	IN DAT_RSP_HANDLE		rsp_handle);

typedef DAT_RETURN (*DAT_PZ_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	OUT DAT_PZ_HANDLE		*pz_handle);

typedef DAT_RETURN (*DAT_PZ_QUERY_FUNC)(
	IN DAT_PZ_HANDLE		pz_handle,
	IN DAT_PZ_PARAM_MASK		pz_param_mask,
	OUT DAT_PZ_PARAM		*pz_param);

typedef DAT_RETURN (*DAT_PZ_FREE_FUNC)(
	IN DAT_PZ_HANDLE		pz_handle);

typedef DAT_RETURN (*DAT_PSP_CREATE_ANY_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	OUT DAT_CONN_QUAL		*conn_qual,
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_PSP_FLAGS		psp_flags,
	OUT DAT_PSP_HANDLE		*psp_handle);

typedef DAT_RETURN (*DAT_EP_RESET_FUNC)(
	IN DAT_EP_HANDLE		ep_handle);

typedef DAT_RETURN (*DAT_LMR_SYNC_RDMA_READ_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN const DAT_LMR_TRIPLET	*local_segments,
	IN DAT_VLEN			num_segments);

typedef DAT_RETURN (*DAT_LMR_SYNC_RDMA_WRITE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN const DAT_LMR_TRIPLET	*local_segments,
	IN DAT_VLEN			num_segments);

typedef DAT_RETURN (*DAT_EP_CREATE_WITH_SRQ_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_PZ_HANDLE		pz_handle,
	IN DAT_EVD_HANDLE		recv_evd_handle,
	IN DAT_EVD_HANDLE		request_evd_handle,
	IN DAT_EVD_HANDLE		connect_evd_handle,
	IN DAT_SRQ_HANDLE		srq_handle,
	IN const DAT_EP_ATTR		*ep_attributes,
	OUT DAT_EP_HANDLE		*ep_handle);

typedef DAT_RETURN (*DAT_EP_RECV_QUERY_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	OUT DAT_COUNT			*nbufs_allocated,
	OUT DAT_COUNT			*bufs_alloc_span);

typedef DAT_RETURN (*DAT_EP_SET_WATERMARK_FUNC)(
	IN DAT_EP_HANDLE		ep_handle,
	IN DAT_COUNT			soft_high_watermark,
	IN DAT_COUNT			hard_high_watermark);

typedef DAT_RETURN (*DAT_SRQ_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_PZ_HANDLE		pz_handle,
	IN DAT_SRQ_ATTR			*srq_attr,
	OUT DAT_SRQ_HANDLE		*srq_handle);

typedef DAT_RETURN (*DAT_SRQ_FREE_FUNC)(
	IN DAT_SRQ_HANDLE		srq_handle);

typedef DAT_RETURN (*DAT_SRQ_POST_RECV_FUNC)(
	IN DAT_SRQ_HANDLE		srq_handle,
	IN DAT_COUNT			num_segments,
	IN DAT_LMR_TRIPLET		*local_iov,
	IN DAT_DTO_COOKIE		user_cookie);

typedef DAT_RETURN (*DAT_SRQ_QUERY_FUNC)(
	IN DAT_SRQ_HANDLE		srq_handle,
	IN DAT_SRQ_PARAM_MASK		srq_param_mask,
	OUT DAT_SRQ_PARAM		*srq_param);

typedef DAT_RETURN (*DAT_SRQ_RESIZE_FUNC)(
	IN DAT_SRQ_HANDLE		srq_handle,
	IN DAT_COUNT			srq_max_recv_dto);

typedef DAT_RETURN (*DAT_SRQ_SET_LW_FUNC)(
	IN DAT_SRQ_HANDLE		srq_handle,
	IN DAT_COUNT			low_watermark);

#ifdef __cplusplus
}
#endif

#endif /* _DAT_REDIRECTION_H_ */
