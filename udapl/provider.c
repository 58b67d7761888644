/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DAT_PROVIDER table of each registered dat.conf entry, and the
 * dat_provider_init/fini glue a provider calls with its ops.  The list
 * of the entries is below, in entries.c, where ia.c finds them too.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slots.h"
#include <dat/dat_ib_extensions.h>

static void table_fill(DAT_PROVIDER *t)
{
	t->ia_open_func = dapl_ia_open;
	t->ia_query_func = dapl_ia_query;
	t->ia_close_func = dapl_ia_close;
	t->set_consumer_context_func = dapl_set_consumer_context;
	t->get_consumer_context_func = dapl_get_consumer_context;
	t->get_handle_type_func = dapl_get_handle_type;
	t->cno_create_func = dapl_cno_create;
	t->cno_modify_agent_func = dapl_cno_modify_agent;
	t->cno_query_func = dapl_cno_query;
	t->cno_free_func = dapl_cno_free;
	t->cno_wait_func = dapl_cno_wait;
	t->cr_query_func = dapl_cr_query;
	t->cr_accept_func = dapl_cr_accept;
	t->cr_reject_func = dapl_cr_reject;
	t->cr_handoff_func = dapl_cr_handoff;
	t->evd_create_func = dapl_evd_create;
	t->evd_query_func = dapl_evd_query;
	t->evd_modify_cno_func = dapl_evd_modify_cno;
	t->evd_enable_func = dapl_evd_enable;
	t->evd_disable_func = dapl_evd_disable;
	t->evd_wait_func = dapl_evd_wait;
	t->evd_resize_func = dapl_evd_resize;
	t->evd_post_se_func = dapl_evd_post_se;
	t->evd_dequeue_func = dapl_evd_dequeue;
	t->evd_free_func = dapl_evd_free;
	t->ep_create_func = dapl_ep_create;
	t->ep_query_func = dapl_ep_query;
	t->ep_modify_func = dapl_ep_modify;
	t->ep_connect_func = dapl_ep_connect;
	t->ep_dup_connect_func = dapl_ep_dup_connect;
	t->ep_disconnect_func = dapl_ep_disconnect;
	t->ep_post_send_func = dapl_ep_post_send;
	t->ep_post_recv_func = dapl_ep_post_recv;
	t->ep_post_rdma_read_func = dapl_ep_post_rdma_read;
	t->ep_post_rdma_write_func = dapl_ep_post_rdma_write;
	t->ep_get_status_func = dapl_ep_get_status;
	t->ep_free_func = dapl_ep_free;
	t->lmr_create_func = dapl_lmr_create;
	t->lmr_query_func = dapl_lmr_query;
	t->lmr_free_func = dapl_lmr_free;
	t->rmr_create_func = dapl_rmr_create;
	t->rmr_query_func = dapl_rmr_query;
	t->rmr_bind_func = dapl_rmr_bind;
	t->rmr_free_func = dapl_rmr_free;
	t->psp_create_func = dapl_psp_create;
	t->psp_query_func = dapl_psp_query;
	t->psp_free_func = dapl_psp_free;
	t->rsp_create_func = dapl_rsp_create;
	t->rsp_query_func = dapl_rsp_query;
	t->rsp_free_func = dapl_rsp_free;
	t->pz_create_func = dapl_pz_create;
	t->pz_query_func = dapl_pz_query;
	t->pz_free_func = dapl_pz_free;
	t->psp_create_any_func = dapl_psp_create_any;
	t->ep_reset_func = dapl_ep_reset;
	t->evd_set_unwaitable_func = dapl_evd_set_unwaitable;
	t->evd_clear_unwaitable_func = dapl_evd_clear_unwaitable;
	t->lmr_sync_rdma_read_func = dapl_lmr_sync_rdma_read;
	t->lmr_sync_rdma_write_func = dapl_lmr_sync_rdma_write;
	t->ep_create_with_srq_func = dapl_ep_create_with_srq;
	t->ep_recv_query_func = dapl_ep_recv_query;
	t->ep_set_watermark_func = dapl_ep_set_watermark;
	t->srq_create_func = dapl_srq_create;
	t->srq_free_func = dapl_srq_free;
	t->srq_post_recv_func = dapl_srq_post_recv;
	t->srq_query_func = dapl_srq_query;
	t->srq_resize_func = dapl_srq_resize;
	t->srq_set_lw_func = dapl_srq_set_lw;
}

void dapl_provider_init(const DAT_PROVIDER_INFO *info, const char *ia_params,
			const struct dapl_ops *ops, const char *provider_name)
{
	struct dapl_provider *p;
	DAT_RETURN rc;

	if (!info || !ops)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->info = *info;
	p->info.ia_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
	p->ia_params = strdup(ia_params ? ia_params : "");
	if (!p->ia_params) {
		free(p);
		return;
	}
	p->ops = *ops;
	dapl_ops_fill_defaults(&p->ops);
	p->name = provider_name ? provider_name : "dapl";
	table_fill(&p->table);
	p->table.device_name = p->info.ia_name;
	p->table.extension = p;

	dapl_entries_lock();
	rc = dat_registry_add_provider(&p->table, &p->info);
	/* The atomic extension (ext.c): libdat keeps it with the table and
	 * forgets it at dat_registry_remove_provider. */
	if (rc == DAT_SUCCESS &&
	    dat_registry_add_extension(&p->table, dapl_extension_op))
		dapl_dbg(DAPL_DBG_WARN, "cannot register the extension");
	if (rc == DAT_SUCCESS)
		dapl_entries_add(p);
	dapl_entries_unlock();
	if (rc != DAT_SUCCESS) {
		dapl_dbg(DAPL_DBG_ERR, "cannot register %s: %#x",
			 p->info.ia_name, rc);
		free(p->ia_params);
		free(p);
	}
}

void dapl_provider_fini(const DAT_PROVIDER_INFO *info)
{
	struct dapl_provider *p;
	int last;

	if (!info)
		return;
	dapl_entries_lock();
	p = dapl_entries_take(info, &last);
	dapl_entries_unlock();
	if (!p)
		return;
	dat_registry_remove_provider(&p->table, &p->info);
	free(p->ia_params);
	free(p);
	/*
	 * Only udapl's own memory is released here; no op is called, so a
	 * forked child (see dapl_provider_forked) cannot reach the parent's
	 * threads or devices through this path.
	 */
	/* Not in a forked child: with fork-safe registrations
	 * (RDMAV_FORK_SAFE) the child lacks the parent's registered pages,
	 * and a free next to one of them would fault. */
	if (last && !dapl_provider_forked()) {
		dapl_ep_release_retired();
		dapl_srq_release_retired();
		dapl_obj_release_all();
	}
}
