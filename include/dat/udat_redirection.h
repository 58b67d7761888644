/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udat_redirection.h - dispatch of the uDAPL-only calls, and the provider
 * table itself.
 *
 * struct dat_provider is what a provider library fills in and registers
 * with dat_registry_add_provider().  Its layout is frozen: slot k is at byte
 * offset k * sizeof(void *), 70 slots in all.  Binaries built with the
 * redirection macros index it directly, so slots are never reordered,
 * removed or inserted (DAT 1.1/1.2 additions were appended at the end).
 */
#ifndef _UDAT_REDIRECTION_H_
#define _UDAT_REDIRECTION_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Redirection macros for the u-only calls (see <dat/dat_redirection.h>). */

#define DAT_CNO_CREATE(ia_handle, agent, cno_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->cno_create_func)( \
		(ia_handle), (agent), (cno_handle))

#define DAT_CNO_MODIFY_AGENT(cno_handle, agent) \
	(DAT_HANDLE_TO_PROVIDER(cno_handle)->cno_modify_agent_func)( \
		(cno_handle), (agent))

#define DAT_CNO_QUERY(cno_handle, cno_param_mask, cno_param) \
	(DAT_HANDLE_TO_PROVIDER(cno_handle)->cno_query_func)( \
		(cno_handle), (cno_param_mask), (cno_param))

#define DAT_CNO_FREE(cno_handle) \
	(DAT_HANDLE_TO_PROVIDER(cno_handle)->cno_free_func)((cno_handle))

#define DAT_CNO_WAIT(cno_handle, timeout, evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(cno_handle)->cno_wait_func)( \
		(cno_handle), (timeout), (evd_handle))

#define DAT_EVD_CREATE(ia_handle, evd_min_qlen, cno_handle, evd_flags, \
                       evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->evd_create_func)( \
		(ia_handle), (evd_min_qlen), (cno_handle), (evd_flags), \
		(evd_handle))

#define DAT_EVD_MODIFY_CNO(evd_handle, cno_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_modify_cno_func)( \
		(evd_handle), (cno_handle))

#define DAT_EVD_ENABLE(evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_enable_func)((evd_handle))

#define DAT_EVD_DISABLE(evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_disable_func)((evd_handle))

#define DAT_EVD_WAIT(evd_handle, timeout, threshold, event, n_more_events) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_wait_func)( \
		(evd_handle), (timeout), (threshold), (event), (n_more_events))

#define DAT_LMR_CREATE(ia_handle, mem_type, region_description, length, \
                       pz_handle, privileges, lmr_handle, lmr_context, \
                       rmr_context, registered_length, registered_address) \
	(DAT_HANDLE_TO_PROVIDER(ia_handle)->lmr_create_func)( \
		(ia_handle), (mem_type), (region_description), (length), \
		(pz_handle), (privileges), (lmr_handle), (lmr_context), \
		(rmr_context), (registered_length), (registered_address))

#define DAT_EVD_SET_UNWAITABLE(evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_set_unwaitable_func)( \
		(evd_handle))

#define DAT_EVD_CLEAR_UNWAITABLE(evd_handle) \
	(DAT_HANDLE_TO_PROVIDER(evd_handle)->evd_clear_unwaitable_func)( \
		(evd_handle))

/* Types of the u-only provider table slots. */

typedef DAT_RETURN (*DAT_CNO_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_OS_WAIT_PROXY_AGENT	agent,
	OUT DAT_CNO_HANDLE		*cno_handle);

typedef DAT_RETURN (*DAT_CNO_MODIFY_AGENT_FUNC)(
	IN DAT_CNO_HANDLE		cno_handle,
	IN DAT_OS_WAIT_PROXY_AGENT	agent);

typedef DAT_RETURN (*DAT_CNO_QUERY_FUNC)(
	IN DAT_CNO_HANDLE		cno_handle,
	IN DAT_CNO_PARAM_MASK		cno_param_mask,
	OUT DAT_CNO_PARAM		*cno_param);

typedef DAT_RETURN (*DAT_CNO_FREE_FUNC)(
	IN DAT_CNO_HANDLE		cno_handle);

typedef DAT_RETURN (*DAT_CNO_WAIT_FUNC)(
	IN DAT_CNO_HANDLE		cno_handle,
	IN DAT_TIMEOUT			timeout,
	OUT DAT_EVD_HANDLE		*evd_handle);

typedef DAT_RETURN (*DAT_EVD_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_COUNT			evd_min_qlen,
	IN DAT_CNO_HANDLE		cno_handle,
	IN DAT_EVD_FLAGS		evd_flags,
	OUT DAT_EVD_HANDLE		*evd_handle);

typedef DAT_RETURN (*DAT_EVD_MODIFY_CNO_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_CNO_HANDLE		cno_handle);

typedef DAT_RETURN (*DAT_EVD_ENABLE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle);

typedef DAT_RETURN (*DAT_EVD_DISABLE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle);

typedef DAT_RETURN (*DAT_EVD_WAIT_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle,
	IN DAT_TIMEOUT			timeout,
	IN DAT_COUNT			threshold,
	OUT DAT_EVENT			*event,
	OUT DAT_COUNT			*n_more_events);

typedef DAT_RETURN (*DAT_LMR_CREATE_FUNC)(
	IN DAT_IA_HANDLE		ia_handle,
	IN DAT_MEM_TYPE			mem_type,
	IN DAT_REGION_DESCRIPTION	region_description,
	IN DAT_VLEN			length,
	IN DAT_PZ_HANDLE		pz_handle,
	IN DAT_MEM_PRIV_FLAGS		privileges,
	OUT DAT_LMR_HANDLE		*lmr_handle,
	OUT DAT_LMR_CONTEXT		*lmr_context,
	OUT DAT_RMR_CONTEXT		*rmr_context,
	OUT DAT_VLEN			*registered_length,
	OUT DAT_VADDR			*registered_address);

typedef DAT_RETURN (*DAT_EVD_SET_UNWAITABLE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle);

typedef DAT_RETURN (*DAT_EVD_CLEAR_UNWAITABLE_FUNC)(
	IN DAT_EVD_HANDLE		evd_handle);

#ifdef __cplusplus
}
#endif

#include <dat/dat_redirection.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The provider table.  device_name is the IA name the provider registered
 * (libdat uses it to release the registry entry on dat_ia_close);
 * extension is the provider's own.  All other slots are entry points.
 */
struct dat_provider {
	const char			*device_name;			/*  0 */
	DAT_PVOID			extension;			/*  1 */
	DAT_IA_OPEN_FUNC		ia_open_func;			/*  2 */
	DAT_IA_QUERY_FUNC		ia_query_func;			/*  3 */
	DAT_IA_CLOSE_FUNC		ia_close_func;			/*  4 */
	DAT_SET_CONSUMER_CONTEXT_FUNC	set_consumer_context_func;	/*  5 */
	DAT_GET_CONSUMER_CONTEXT_FUNC	get_consumer_context_func;	/*  6 */
	DAT_GET_HANDLE_TYPE_FUNC	get_handle_type_func;		/*  7 */
	DAT_CNO_CREATE_FUNC		cno_create_func;		/*  8 */
	DAT_CNO_MODIFY_AGENT_FUNC	cno_modify_agent_func;		/*  9 */
	DAT_CNO_QUERY_FUNC		cno_query_func;			/* 10 */
	DAT_CNO_FREE_FUNC		cno_free_func;			/* 11 */
	DAT_CNO_WAIT_FUNC		cno_wait_func;			/* 12 */
	DAT_CR_QUERY_FUNC		cr_query_func;			/* 13 */
	DAT_CR_ACCEPT_FUNC		cr_accept_func;			/* 14 */
	DAT_CR_REJECT_FUNC		cr_reject_func;			/* 15 */
	DAT_CR_HANDOFF_FUNC		cr_handoff_func;		/* 16 */
	DAT_EVD_CREATE_FUNC		evd_create_func;		/* 17 */
	DAT_EVD_QUERY_FUNC		evd_query_func;			/* 18 */
	DAT_EVD_MODIFY_CNO_FUNC		evd_modify_cno_func;		/* 19 */
	DAT_EVD_ENABLE_FUNC		evd_enable_func;		/* 20 */
	DAT_EVD_DISABLE_FUNC		evd_disable_func;		/* 21 */
	DAT_EVD_WAIT_FUNC		evd_wait_func;			/* 22 */
	DAT_EVD_RESIZE_FUNC		evd_resize_func;		/* 23 */
	DAT_EVD_POST_SE_FUNC		evd_post_se_func;		/* 24 */
	DAT_EVD_DEQUEUE_FUNC		evd_dequeue_func;		/* 25 */
	DAT_EVD_FREE_FUNC		evd_free_func;			/* 26 */
	DAT_EP_CREATE_FUNC		ep_create_func;			/* 27 */
	DAT_EP_QUERY_FUNC		ep_query_func;			/* 28 */
	DAT_EP_MODIFY_FUNC		ep_modify_func;			/* 29 */
	DAT_EP_CONNECT_FUNC		ep_connect_func;		/* 30 */
	DAT_EP_DUP_CONNECT_FUNC		ep_dup_connect_func;		/* 31 */
	DAT_EP_DISCONNECT_FUNC		ep_disconnect_func;		/* 32 */
	DAT_EP_POST_SEND_FUNC		ep_post_send_func;		/* 33 */
	DAT_EP_POST_RECV_FUNC		ep_post_recv_func;		/* 34 */
	DAT_EP_POST_RDMA_READ_FUNC	ep_post_rdma_read_func;		/* 35 */
	DAT_EP_POST_RDMA_WRITE_FUNC	ep_post_rdma_write_func;	/* 36 */
	DAT_EP_GET_STATUS_FUNC		ep_get_status_func;		/* 37 */
	DAT_EP_FREE_FUNC		ep_free_func;			/* 38 */
	DAT_LMR_CREATE_FUNC		lmr_create_func;		/* 39 */
	DAT_LMR_QUERY_FUNC		lmr_query_func;			/* 40 */
	DAT_LMR_FREE_FUNC		lmr_free_func;			/* 41 */
	DAT_RMR_CREATE_FUNC		rmr_create_func;		/* 42 */
	DAT_RMR_QUERY_FUNC		rmr_query_func;			/* 43 */
	DAT_RMR_BIND_FUNC		rmr_bind_func;			/* 44 */
	DAT_RMR_FREE_FUNC		rmr_free_func;			/* 45 */
	DAT_PSP_CREATE_FUNC		psp_create_func;		/* 46 */
	DAT_PSP_QUERY_FUNC		psp_query_func;			/* 47 */
	DAT_PSP_FREE_FUNC		psp_free_func;			/* 48 */
	DAT_RSP_CREATE_FUNC		rsp_create_func;		/* 49 */
	DAT_RSP_QUERY_FUNC		rsp_query_func;			/* 50 */
	DAT_RSP_FREE_FUNC		rsp_free_func;			/* 51 */
	DAT_PZ_CREATE_FUNC		pz_create_func;			/* 52 */
	DAT_PZ_QUERY_FUNC		pz_query_func;			/* 53 */
	DAT_PZ_FREE_FUNC		pz_free_func;			/* 54 */
	DAT_PSP_CREATE_ANY_FUNC		psp_create_any_func;		/* 55 */
	DAT_EP_RESET_FUNC		ep_reset_func;			/* 56 */
	DAT_EVD_SET_UNWAITABLE_FUNC	evd_set_unwaitable_func;	/* 57 */
	DAT_EVD_CLEAR_UNWAITABLE_FUNC	evd_clear_unwaitable_func;	/* 58 */
	DAT_LMR_SYNC_RDMA_READ_FUNC	lmr_sync_rdma_read_func;	/* 59 */
	DAT_LMR_SYNC_RDMA_WRITE_FUNC	lmr_sync_rdma_write_func;	/* 60 */
	DAT_EP_CREATE_WITH_SRQ_FUNC	ep_create_with_srq_func;	/* 61 */
	DAT_EP_RECV_QUERY_FUNC		ep_recv_query_func;		/* 62 */
	DAT_EP_SET_WATERMARK_FUNC	ep_set_watermark_func;		/* 63 */
	DAT_SRQ_CREATE_FUNC		srq_create_func;		/* 64 */
	DAT_SRQ_FREE_FUNC		srq_free_func;			/* 65 */
	DAT_SRQ_POST_RECV_FUNC		srq_post_recv_func;		/* 66 */
	DAT_SRQ_QUERY_FUNC		srq_query_func;			/* 67 */
	DAT_SRQ_RESIZE_FUNC		srq_resize_func;		/* 68 */
	DAT_SRQ_SET_LW_FUNC		srq_set_lw_func;		/* 69 */
};

#ifdef __cplusplus
}
#endif

#endif /* _UDAT_REDIRECTION_H_ */
