/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest: a test-only DAT provider for libdat's own tests (no RDMA).
 *
 * It registers one table per dat.conf entry it is initialised for.  Its
 * IA is a small heap object whose first word is that table, as the ABI
 * requires.  Every other slot k returns the marker
 * DAT_INTERNAL_ERROR | k, so a test can prove that each libdat entry
 * point reaches exactly its own slot.
 *
 * Its provider attributes carry the entry's ia_params (DAPL_IA_PARAMS,
 * as udapl's do), so a test sees which entry an IA was opened through.
 * ia_params steer failure paths: "noregister" (init registers nothing),
 * "failopen" (ia_open fails).  With DATTEST_TRACE set, init, fini, open
 * and close are reported on stderr, so tests can count them, and so are
 * the library's own load and unload (its constructor and destructor, as
 * "dattest-lib: loaded|unloaded PID"), so tests can tell a new load from
 * a new init.
 */
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dat/udat.h>
#include <dat/dat_registry.h>

#include "../../udapl/transport.h"

#define SLOT_MARK(k) ((DAT_RETURN)(DAT_CLASS_ERROR | DAT_INTERNAL_ERROR | (k)))
#define DAT_ERR(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))

struct t_provider {
	struct t_provider *next;
	DAT_PROVIDER table; /* what libdat dispatches through */
	DAT_PROVIDER_INFO info;
	int fail_open;
	char ia_params[64];		/* reported as DAPL_IA_PARAMS */
	DAT_NAMED_ATTR attr;
};

struct t_ia {
	DAT_PROVIDER *provider; /* first word, as the ABI says */
	struct t_provider *owner;
};

/*
 * A forked child must not inherit t_lock held by a thread it does not
 * have (dattest fork-storm).  Not by taking it in a prepare handler:
 * those run before libdat's, so a thread inside dat_provider_init (under
 * libdat's registry lock, wanting t_lock) would deadlock the fork.  Not
 * by a child handler either: this library is dlopen'ed, and glibc skips
 * a handler registered after the fork began (another thread loading it
 * while the forking thread waits in libdat's prepare handler).  The
 * udapl layer's module lock remembers its process and is made new in the
 * child; the test provider uses the same lock.
 */
static struct dapl_module_lock t_lock = DAPL_MODULE_LOCK_INITIALIZER;
static struct t_provider *t_providers;

static void trace(const char *what, const char *name, const char *extra)
{
	if (getenv("DATTEST_TRACE"))
		fprintf(stderr, "dattest: %s %s%s%s\n", what, name,
			extra ? " " : "", extra ? extra : "");
}

__attribute__((constructor)) static void t_loaded(void)
{
	if (getenv("DATTEST_TRACE"))
		fprintf(stderr, "dattest-lib: loaded %d\n", (int)getpid());
}

__attribute__((destructor)) static void t_unloaded(void)
{
	if (getenv("DATTEST_TRACE"))
		fprintf(stderr, "dattest-lib: unloaded %d\n", (int)getpid());
}

static DAT_RETURN t_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			    DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia_handle)
{
	struct t_provider *p;
	struct t_ia *ia;

	if (qlen <= 0)
		return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!async_evd)
		return DAT_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* libdat passes the table of the entry that matched the whole key
	 * in *ia_handle (dat/ia.c); udapl's dapl_provider_find does the
	 * same.  Without it, the first table of that name. */
	dapl_module_lock(&t_lock);
	for (p = t_providers; p; p = p->next)
		if (!strcmp(p->info.ia_name, name) &&
		    *ia_handle == (DAT_IA_HANDLE)&p->table)
			break;
	if (!p)
		for (p = t_providers; p && strcmp(p->info.ia_name, name);
		     p = p->next)
			;
	dapl_module_unlock(&t_lock);
	if (!p)
		return DAT_ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	if (p->fail_open)
		return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_DEVICE);
	ia = malloc(sizeof(*ia));
	if (!ia)
		return DAT_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ia->provider = &p->table;
	ia->owner = p;
	*ia_handle = ia;
	trace("open", name, NULL);
	return DAT_SUCCESS;
}

static DAT_RETURN t_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	struct t_ia *ia = ia_handle;

	trace("close", ia->owner->info.ia_name,
	      flags == DAT_CLOSE_ABRUPT_FLAG ? "abrupt" : "graceful");
	free(ia);
	return DAT_SUCCESS;
}

static DAT_RETURN t_ia_query(DAT_IA_HANDLE ia_handle, DAT_EVD_HANDLE *async_evd,
			     DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			     DAT_PROVIDER_ATTR_MASK prov_mask,
			     DAT_PROVIDER_ATTR *prov_attr)
{
	struct t_ia *ia = ia_handle;

	(void)async_evd;
	(void)ia_mask;
	(void)ia_attr;
	(void)prov_mask;
	if (prov_attr) {
		memset(prov_attr, 0, sizeof(*prov_attr));
		snprintf(prov_attr->provider_name,
			 sizeof(prov_attr->provider_name), "dattest");
		prov_attr->dapl_version_major =
		    ia->owner->info.dapl_version_major;
		prov_attr->dapl_version_minor =
		    ia->owner->info.dapl_version_minor;
		prov_attr->is_thread_safe = ia->owner->info.is_thread_safe;
		prov_attr->num_provider_specific_attr = 1;
		prov_attr->provider_specific_attr = &ia->owner->attr;
	}
	return DAT_SUCCESS;
}

/* Every other slot only reports which slot it is. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

static DAT_RETURN t_set_consumer_context(DAT_HANDLE dat_handle,
					 DAT_CONTEXT context)
{
	return SLOT_MARK(5);
}

static DAT_RETURN t_get_consumer_context(DAT_HANDLE dat_handle,
					 DAT_CONTEXT *context)
{
	return SLOT_MARK(6);
}

static DAT_RETURN t_get_handle_type(DAT_HANDLE dat_handle,
				    DAT_HANDLE_TYPE *handle_type)
{
	return SLOT_MARK(7);
}

static DAT_RETURN t_cr_query(DAT_CR_HANDLE cr_handle,
			     DAT_CR_PARAM_MASK cr_param_mask,
			     DAT_CR_PARAM *cr_param)
{
	return SLOT_MARK(13);
}

static DAT_RETURN t_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data)
{
	return SLOT_MARK(14);
}

static DAT_RETURN t_cr_reject(DAT_CR_HANDLE cr_handle)
{
	return SLOT_MARK(15);
}

static DAT_RETURN t_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	return SLOT_MARK(16);
}

static DAT_RETURN t_evd_resize(DAT_EVD_HANDLE evd_handle,
			       DAT_COUNT evd_min_qlen)
{
	return SLOT_MARK(23);
}

static DAT_RETURN t_evd_post_se(DAT_EVD_HANDLE evd_handle,
				const DAT_EVENT *event)
{
	return SLOT_MARK(24);
}

static DAT_RETURN t_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	return SLOT_MARK(25);
}

static DAT_RETURN t_evd_query(DAT_EVD_HANDLE evd_handle,
			      DAT_EVD_PARAM_MASK evd_param_mask,
			      DAT_EVD_PARAM *evd_param)
{
	return SLOT_MARK(18);
}

static DAT_RETURN t_evd_free(DAT_EVD_HANDLE evd_handle)
{
	return SLOT_MARK(26);
}

static DAT_RETURN t_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			      DAT_EVD_HANDLE recv_evd_handle,
			      DAT_EVD_HANDLE request_evd_handle,
			      DAT_EVD_HANDLE connect_evd_handle,
			      const DAT_EP_ATTR *ep_attributes,
			      DAT_EP_HANDLE *ep_handle)
{
	return SLOT_MARK(27);
}

static DAT_RETURN t_ep_query(DAT_EP_HANDLE ep_handle,
			     DAT_EP_PARAM_MASK ep_param_mask,
			     DAT_EP_PARAM *ep_param)
{
	return SLOT_MARK(28);
}

static DAT_RETURN t_ep_modify(DAT_EP_HANDLE ep_handle,
			      DAT_EP_PARAM_MASK ep_param_mask,
			      const DAT_EP_PARAM *ep_param)
{
	return SLOT_MARK(29);
}

static DAT_RETURN
t_ep_connect(DAT_EP_HANDLE ep_handle, DAT_IA_ADDRESS_PTR remote_ia_address,
	     DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
	     DAT_COUNT private_data_size, const DAT_PVOID private_data,
	     DAT_QOS quality_of_service, DAT_CONNECT_FLAGS connect_flags)
{
	return SLOT_MARK(30);
}

static DAT_RETURN
t_ep_dup_connect(DAT_EP_HANDLE ep_handle, DAT_EP_HANDLE ep_dup_handle,
		 DAT_TIMEOUT timeout, DAT_COUNT private_data_size,
		 const DAT_PVOID private_data, DAT_QOS quality_of_service)
{
	return SLOT_MARK(31);
}

static DAT_RETURN t_ep_disconnect(DAT_EP_HANDLE ep_handle,
				  DAT_CLOSE_FLAGS close_flags)
{
	return SLOT_MARK(32);
}

static DAT_RETURN t_ep_post_send(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	return SLOT_MARK(33);
}

static DAT_RETURN t_ep_post_recv(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	return SLOT_MARK(34);
}

static DAT_RETURN t_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				      DAT_COUNT num_segments,
				      DAT_LMR_TRIPLET *local_iov,
				      DAT_DTO_COOKIE user_cookie,
				      const DAT_RMR_TRIPLET *remote_iov,
				      DAT_COMPLETION_FLAGS completion_flags)
{
	return SLOT_MARK(35);
}

static DAT_RETURN t_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				       DAT_COUNT num_segments,
				       DAT_LMR_TRIPLET *local_iov,
				       DAT_DTO_COOKIE user_cookie,
				       const DAT_RMR_TRIPLET *remote_iov,
				       DAT_COMPLETION_FLAGS completion_flags)
{
	return SLOT_MARK(36);
}

static DAT_RETURN t_ep_get_status(DAT_EP_HANDLE ep_handle,
				  DAT_EP_STATE *ep_state,
				  DAT_BOOLEAN *recv_idle,
				  DAT_BOOLEAN *request_idle)
{
	return SLOT_MARK(37);
}

static DAT_RETURN t_ep_free(DAT_EP_HANDLE ep_handle)
{
	return SLOT_MARK(38);
}

static DAT_RETURN t_ep_reset(DAT_EP_HANDLE ep_handle)
{
	return SLOT_MARK(56);
}

static DAT_RETURN t_lmr_query(DAT_LMR_HANDLE lmr_handle,
			      DAT_LMR_PARAM_MASK lmr_param_mask,
			      DAT_LMR_PARAM *lmr_param)
{
	return SLOT_MARK(40);
}

static DAT_RETURN t_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	return SLOT_MARK(41);
}

static DAT_RETURN t_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				       const DAT_LMR_TRIPLET *local_segments,
				       DAT_VLEN num_segments)
{
	return SLOT_MARK(59);
}

static DAT_RETURN t_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
					const DAT_LMR_TRIPLET *local_segments,
					DAT_VLEN num_segments)
{
	return SLOT_MARK(60);
}

static DAT_RETURN t_rmr_create(DAT_PZ_HANDLE pz_handle,
			       DAT_RMR_HANDLE *rmr_handle)
{
	return SLOT_MARK(42);
}

static DAT_RETURN t_rmr_query(DAT_RMR_HANDLE rmr_handle,
			      DAT_RMR_PARAM_MASK rmr_param_mask,
			      DAT_RMR_PARAM *rmr_param)
{
	return SLOT_MARK(43);
}

static DAT_RETURN
t_rmr_bind(DAT_RMR_HANDLE rmr_handle, const DAT_LMR_TRIPLET *lmr_triplet,
	   DAT_MEM_PRIV_FLAGS mem_priv, DAT_EP_HANDLE ep_handle,
	   DAT_RMR_COOKIE user_cookie, DAT_COMPLETION_FLAGS completion_flags,
	   DAT_RMR_CONTEXT *rmr_context)
{
	return SLOT_MARK(44);
}

static DAT_RETURN t_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	return SLOT_MARK(45);
}

static DAT_RETURN t_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			       DAT_EVD_HANDLE evd_handle,
			       DAT_PSP_FLAGS psp_flags,
			       DAT_PSP_HANDLE *psp_handle)
{
	return SLOT_MARK(46);
}

static DAT_RETURN t_psp_create_any(DAT_IA_HANDLE ia_handle,
				   DAT_CONN_QUAL *conn_qual,
				   DAT_EVD_HANDLE evd_handle,
				   DAT_PSP_FLAGS psp_flags,
				   DAT_PSP_HANDLE *psp_handle)
{
	return SLOT_MARK(55);
}

static DAT_RETURN t_psp_query(DAT_PSP_HANDLE psp_handle,
			      DAT_PSP_PARAM_MASK psp_param_mask,
			      DAT_PSP_PARAM *psp_param)
{
	return SLOT_MARK(47);
}

static DAT_RETURN t_psp_free(DAT_PSP_HANDLE psp_handle)
{
	return SLOT_MARK(48);
}

static DAT_RETURN t_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			       DAT_EP_HANDLE ep_handle,
			       DAT_EVD_HANDLE evd_handle,
			       DAT_RSP_HANDLE *rsp_handle)
{
	return SLOT_MARK(49);
}

static DAT_RETURN t_rsp_query(DAT_RSP_HANDLE rsp_handle,
			      DAT_RSP_PARAM_MASK rsp_param_mask,
			      DAT_RSP_PARAM *rsp_param)
{
	return SLOT_MARK(50);
}

static DAT_RETURN t_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	return SLOT_MARK(51);
}

static DAT_RETURN t_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	return SLOT_MARK(52);
}

static DAT_RETURN t_pz_query(DAT_PZ_HANDLE pz_handle,
			     DAT_PZ_PARAM_MASK pz_param_mask,
			     DAT_PZ_PARAM *pz_param)
{
	return SLOT_MARK(53);
}

static DAT_RETURN t_pz_free(DAT_PZ_HANDLE pz_handle)
{
	return SLOT_MARK(54);
}

static DAT_RETURN t_ep_create_with_srq(
    DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
    DAT_EVD_HANDLE recv_evd_handle, DAT_EVD_HANDLE request_evd_handle,
    DAT_EVD_HANDLE connect_evd_handle, DAT_SRQ_HANDLE srq_handle,
    const DAT_EP_ATTR *ep_attributes, DAT_EP_HANDLE *ep_handle)
{
	return SLOT_MARK(61);
}

static DAT_RETURN t_ep_recv_query(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT *nbufs_allocated,
				  DAT_COUNT *bufs_alloc_span)
{
	return SLOT_MARK(62);
}

static DAT_RETURN t_ep_set_watermark(DAT_EP_HANDLE ep_handle,
				     DAT_COUNT soft_high_watermark,
				     DAT_COUNT hard_high_watermark)
{
	return SLOT_MARK(63);
}

static DAT_RETURN t_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			       DAT_SRQ_ATTR *srq_attr,
			       DAT_SRQ_HANDLE *srq_handle)
{
	return SLOT_MARK(64);
}

static DAT_RETURN t_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	return SLOT_MARK(65);
}

static DAT_RETURN t_srq_post_recv(DAT_SRQ_HANDLE srq_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie)
{
	return SLOT_MARK(66);
}

static DAT_RETURN t_srq_query(DAT_SRQ_HANDLE srq_handle,
			      DAT_SRQ_PARAM_MASK srq_param_mask,
			      DAT_SRQ_PARAM *srq_param)
{
	return SLOT_MARK(67);
}

static DAT_RETURN t_srq_resize(DAT_SRQ_HANDLE srq_handle,
			       DAT_COUNT srq_max_recv_dto)
{
	return SLOT_MARK(68);
}

static DAT_RETURN t_srq_set_lw(DAT_SRQ_HANDLE srq_handle,
			       DAT_COUNT low_watermark)
{
	return SLOT_MARK(69);
}

static DAT_RETURN
t_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
	     DAT_REGION_DESCRIPTION region_description, DAT_VLEN length,
	     DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS privileges,
	     DAT_LMR_HANDLE *lmr_handle, DAT_LMR_CONTEXT *lmr_context,
	     DAT_RMR_CONTEXT *rmr_context, DAT_VLEN *registered_length,
	     DAT_VADDR *registered_address)
{
	return SLOT_MARK(39);
}

static DAT_RETURN t_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			       DAT_CNO_HANDLE cno_handle,
			       DAT_EVD_FLAGS evd_flags,
			       DAT_EVD_HANDLE *evd_handle)
{
	return SLOT_MARK(17);
}

static DAT_RETURN t_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
				   DAT_CNO_HANDLE cno_handle)
{
	return SLOT_MARK(19);
}

static DAT_RETURN t_cno_create(DAT_IA_HANDLE ia_handle,
			       DAT_OS_WAIT_PROXY_AGENT agent,
			       DAT_CNO_HANDLE *cno_handle)
{
	return SLOT_MARK(8);
}

static DAT_RETURN t_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				     DAT_OS_WAIT_PROXY_AGENT agent)
{
	return SLOT_MARK(9);
}

static DAT_RETURN t_cno_query(DAT_CNO_HANDLE cno_handle,
			      DAT_CNO_PARAM_MASK cno_param_mask,
			      DAT_CNO_PARAM *cno_param)
{
	return SLOT_MARK(10);
}

static DAT_RETURN t_cno_free(DAT_CNO_HANDLE cno_handle)
{
	return SLOT_MARK(11);
}

static DAT_RETURN t_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			     DAT_EVD_HANDLE *evd_handle)
{
	return SLOT_MARK(12);
}

static DAT_RETURN t_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	return SLOT_MARK(20);
}

static DAT_RETURN t_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			     DAT_COUNT threshold, DAT_EVENT *event,
			     DAT_COUNT *n_more_events)
{
	return SLOT_MARK(22);
}

static DAT_RETURN t_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	return SLOT_MARK(21);
}

static DAT_RETURN t_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return SLOT_MARK(57);
}

static DAT_RETURN t_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return SLOT_MARK(58);
}

#pragma GCC diagnostic pop

static void fill_table(DAT_PROVIDER *p)
{
	p->ia_open_func = t_ia_open;
	p->ia_query_func = t_ia_query;
	p->ia_close_func = t_ia_close;
	p->set_consumer_context_func = t_set_consumer_context;
	p->get_consumer_context_func = t_get_consumer_context;
	p->get_handle_type_func = t_get_handle_type;
	p->cr_query_func = t_cr_query;
	p->cr_accept_func = t_cr_accept;
	p->cr_reject_func = t_cr_reject;
	p->cr_handoff_func = t_cr_handoff;
	p->evd_resize_func = t_evd_resize;
	p->evd_post_se_func = t_evd_post_se;
	p->evd_dequeue_func = t_evd_dequeue;
	p->evd_query_func = t_evd_query;
	p->evd_free_func = t_evd_free;
	p->ep_create_func = t_ep_create;
	p->ep_query_func = t_ep_query;
	p->ep_modify_func = t_ep_modify;
	p->ep_connect_func = t_ep_connect;
	p->ep_dup_connect_func = t_ep_dup_connect;
	p->ep_disconnect_func = t_ep_disconnect;
	p->ep_post_send_func = t_ep_post_send;
	p->ep_post_recv_func = t_ep_post_recv;
	p->ep_post_rdma_read_func = t_ep_post_rdma_read;
	p->ep_post_rdma_write_func = t_ep_post_rdma_write;
	p->ep_get_status_func = t_ep_get_status;
	p->ep_free_func = t_ep_free;
	p->ep_reset_func = t_ep_reset;
	p->lmr_query_func = t_lmr_query;
	p->lmr_free_func = t_lmr_free;
	p->lmr_sync_rdma_read_func = t_lmr_sync_rdma_read;
	p->lmr_sync_rdma_write_func = t_lmr_sync_rdma_write;
	p->rmr_create_func = t_rmr_create;
	p->rmr_query_func = t_rmr_query;
	p->rmr_bind_func = t_rmr_bind;
	p->rmr_free_func = t_rmr_free;
	p->psp_create_func = t_psp_create;
	p->psp_create_any_func = t_psp_create_any;
	p->psp_query_func = t_psp_query;
	p->psp_free_func = t_psp_free;
	p->rsp_create_func = t_rsp_create;
	p->rsp_query_func = t_rsp_query;
	p->rsp_free_func = t_rsp_free;
	p->pz_create_func = t_pz_create;
	p->pz_query_func = t_pz_query;
	p->pz_free_func = t_pz_free;
	p->ep_create_with_srq_func = t_ep_create_with_srq;
	p->ep_recv_query_func = t_ep_recv_query;
	p->ep_set_watermark_func = t_ep_set_watermark;
	p->srq_create_func = t_srq_create;
	p->srq_free_func = t_srq_free;
	p->srq_post_recv_func = t_srq_post_recv;
	p->srq_query_func = t_srq_query;
	p->srq_resize_func = t_srq_resize;
	p->srq_set_lw_func = t_srq_set_lw;
	p->lmr_create_func = t_lmr_create;
	p->evd_create_func = t_evd_create;
	p->evd_modify_cno_func = t_evd_modify_cno;
	p->cno_create_func = t_cno_create;
	p->cno_modify_agent_func = t_cno_modify_agent;
	p->cno_query_func = t_cno_query;
	p->cno_free_func = t_cno_free;
	p->cno_wait_func = t_cno_wait;
	p->evd_enable_func = t_evd_enable;
	p->evd_wait_func = t_evd_wait;
	p->evd_disable_func = t_evd_disable;
	p->evd_set_unwaitable_func = t_evd_set_unwaitable;
	p->evd_clear_unwaitable_func = t_evd_clear_unwaitable;
}

void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *info,
				 const char *ia_params)
{
	struct t_provider *p;

	trace("init", info->ia_name, ia_params);
	if (!strcmp(ia_params, "noregister"))
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->info = *info;
	p->fail_open = !strcmp(ia_params, "failopen");
	snprintf(p->ia_params, sizeof(p->ia_params), "%s", ia_params);
	p->attr.name = "DAPL_IA_PARAMS";
	p->attr.value = p->ia_params;
	p->table.device_name = p->info.ia_name;
	p->table.extension = p;
	fill_table(&p->table);
	if (dat_registry_add_provider(&p->table, info) != DAT_SUCCESS) {
		trace("init-refused", info->ia_name, NULL);
		free(p);
		return;
	}
	dapl_module_lock(&t_lock);
	p->next = t_providers;
	t_providers = p;
	dapl_module_unlock(&t_lock);
}

void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *info)
{
	struct t_provider **link, *p;

	trace("fini", info->ia_name, NULL);
	dapl_module_lock(&t_lock);
	for (link = &t_providers; (p = *link); link = &p->next)
		if (!memcmp(&p->info, info, sizeof(*info)))
			break;
	if (p)
		*link = p->next;
	dapl_module_unlock(&t_lock);
	if (!p)
		return;
	if (dat_registry_remove_provider(&p->table, info) != DAT_SUCCESS)
		trace("fini-remove-failed", info->ia_name, NULL);
	free(p);
}
