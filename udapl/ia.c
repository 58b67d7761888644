/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface adapter: open (with a new, a consumer's or a shared async
 * EVD), query and close (GRACEFUL refuses while objects remain, ABRUPT
 * tears everything down in dependency order).
 */
#define _GNU_SOURCE /* secure_getenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slots.h"
#include <dat/dat_ib_extensions.h>

#define DAPL_PROVIDER_VERSION_MAJOR 1
#define DAPL_PROVIDER_VERSION_MINOR 0

/* Open IAs, for DAT_EVD_ASYNC_EXISTS (reuse an earlier IA's async EVD). */
static void open_ias_forget(void);
static struct dapl_module_lock open_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(open_ias_forget);
static struct dapl_list open_ias = {&open_ias, &open_ias};

/* In a forked child: the parent's IAs are not the child's to share. */
static void open_ias_forget(void)
{
	dapl_list_init(&open_ias);
}

/*
 * Async EVDs shared between IAs (dat_ia_open(3DAT): DAT_EVD_ASYNC_EXISTS,
 * or another IA's async EVD passed in).  An IA takes such an EVD, and is
 * listed on open_ias, in one open_lock section, and only while the IA
 * that owns the EVD is listed; an IA leaving the list (dat_ia_close)
 * lets go of a shared EVD of its own, and detaches every listed IA from
 * the EVDs it owns, in that same section (evd.c dapl_evd_async_detach:
 * no post is then under way to them), before it tears them down.  So no
 * IA ever holds an async EVD that is gone: such an IA's async events are
 * dropped from then on, as before its EVD was attached.
 */

/* open_lock held: whether ia is listed (open, not closing) */
static int ia_listed(const struct dapl_ia *ia)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &open_ias)
	{
		if (dapl_container_of(pos, struct dapl_ia, open_link) == ia)
			return 1;
	}
	return 0;
}

/* open_lock held: the async EVD of a listed IA of the same dat.conf
 * entry, or NULL. */
static struct dapl_evd *async_evd_shared(struct dapl_provider *entry)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &open_ias)
	{
		struct dapl_ia *o =
		    dapl_container_of(pos, struct dapl_ia, open_link);
		struct dapl_evd *evd =
		    __atomic_load_n(&o->async_evd, __ATOMIC_ACQUIRE);

		if (o->prov_entry == entry &&
		    dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD))
			return evd;
	}
	return NULL;
}

/* Checks what the consumer passed in *async_evd_handle before the device
 * is opened (async_evd_share checks it again when it takes it). */
static DAT_RETURN async_arg_check(DAT_COUNT qlen, DAT_EVD_HANDLE h)
{
	const struct dapl_evd *evd = h;

	if (h == DAT_HANDLE_NULL)
		return qlen > 0
			   ? DAT_SUCCESS
			   : DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (h == DAT_EVD_ASYNC_EXISTS)
		return DAT_SUCCESS;
	if (!dapl_obj_ok(h, DAT_HANDLE_TYPE_EVD) ||
	    !(evd->flags & DAT_EVD_ASYNC_FLAG) || evd->closing)
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_ASYNC);
	return DAT_SUCCESS;
}

/* A new async EVD of the IA's own (*async_evd_handle DAT_HANDLE_NULL). */
static DAT_RETURN async_evd_create(struct dapl_ia *ia, DAT_COUNT qlen,
				   DAT_EVD_HANDLE *async_evd_handle)
{
	struct dapl_evd *evd;
	DAT_RETURN rc;

	rc = dapl_evd_alloc(ia, qlen, NULL, DAT_EVD_ASYNC_FLAG, &evd);
	if (rc != DAT_SUCCESS)
		return rc;
	ia->async_evd_owned = 1;
	*async_evd_handle = evd;
	/* The IA holds a reference, so dat_evd_free of it gets IN_USE. */
	dapl_evd_get(evd);
	__atomic_store_n(&ia->async_evd, evd, __ATOMIC_RELEASE);
	return DAT_SUCCESS;
}

/* open_lock held: another IA's async EVD (DAT_EVD_ASYNC_EXISTS, or the
 * handle passed in), taken only while its owner is listed. */
static DAT_RETURN async_evd_share(struct dapl_ia *ia, DAT_EVD_HANDLE h)
{
	struct dapl_evd *evd = h;

	if (h == DAT_EVD_ASYNC_EXISTS) {
		evd = async_evd_shared(ia->prov_entry);
		ia->async_evd_shared = 1;
	} else if (!dapl_obj_ok(evd, DAT_HANDLE_TYPE_EVD) ||
		   !(evd->flags & DAT_EVD_ASYNC_FLAG) || evd->closing ||
		   !ia_listed(evd->obj.ia)) {
		evd = NULL;
	}
	if (!evd)
		return DAPL_ERR(DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_EVD_ASYNC);
	dapl_evd_get(evd);
	__atomic_store_n(&ia->async_evd, evd, __ATOMIC_RELEASE);
	return DAT_SUCCESS;
}

/* open_lock held, ia just unlisted: it lets go of a shared async EVD, and
 * every listed IA of the async EVDs ia owns (any EVD of ia's that
 * another IA took), before ia tears its EVDs down. */
static void async_evd_unshare(struct dapl_ia *ia)
{
	struct dapl_list *pos, *tmp;

	if (!ia->async_evd_owned && ia->async_evd)
		dapl_evd_async_detach(ia, ia->async_evd);
	dapl_list_for_each_safe(pos, tmp, &open_ias)
	{
		struct dapl_ia *o =
		    dapl_container_of(pos, struct dapl_ia, open_link);
		struct dapl_evd *evd =
		    __atomic_load_n(&o->async_evd, __ATOMIC_ACQUIRE);

		if (!o->async_evd_owned && evd && evd->obj.ia == ia)
			dapl_evd_async_detach(o, evd);
	}
}

static void prov_attr_fill(struct dapl_ia *ia)
{
	ia->prov_attr[0].name = "DAPL_DEVICE";
	ia->prov_attr[0].value = ia->attr.adapter_name;
	ia->prov_attr[1].name = "DAPL_IA_PARAMS";
	ia->prov_attr[1].value = ia->prov_entry->ia_params;
	ia->prov_attr[2].name = "DAPL_PROVIDER";
	ia->prov_attr[2].value = ia->prov_entry->name;
	/* the atomic extension (dat_ib_extensions.h, ext.c) */
	ia->prov_attr[3].name = DAT_IB_ATTR_FETCH_AND_ADD;
	ia->prov_attr[3].value =
	    dapl_ia_has(ia, DAPL_CAP_ATOMICS) ? "TRUE" : "FALSE";
	ia->prov_attr[4].name = DAT_IB_ATTR_CMP_AND_SWAP;
	ia->prov_attr[4].value =
	    dapl_ia_has(ia, DAPL_CAP_ATOMICS) ? "TRUE" : "FALSE";
	/* emulated memory windows: what they do not give */
	ia->prov_attr[5].name = "DAPL_RMR_EMULATION";
	ia->prov_attr[5].value = ia->caps.mw_note;
}

/*
 * Locking of an IA opened through a nonthreadsafe dat.conf entry.  The
 * reference dat_ia_open macro opens every IA nonthreadsafe, multi-threaded
 * consumers included, so such an IA stays locked like a threadsafe one
 * unless the consumer opts in with DAPL_NONTHREADSAFE_NOLOCK=1 (exactly
 * "1"): then posts and the dequeues of CQ-only EVDs take no lock.
 * dat_ia_query says is_thread_safe DAT_FALSE for every IA opened
 * nonthreadsafe, locked or not.  A threadsafe entry always locks.
 */
static int ia_nolock(const struct dapl_provider *entry)
{
	const char *v = secure_getenv("DAPL_NONTHREADSAFE_NOLOCK");

	return !entry->info.is_thread_safe && v && !strcmp(v, "1");
}

DAT_RETURN dapl_ia_open(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_HANDLE *ia_handle)
{
	struct dapl_provider *entry;
	struct dapl_ia *ia;
	DAT_RETURN rc;

	if (!name)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!async_evd_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ia_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	rc = async_arg_check(async_evd_qlen, *async_evd_handle);
	if (rc != DAT_SUCCESS)
		return rc;
	entry = dapl_provider_find(name, *ia_handle);
	if (!entry)
		return DAPL_ERR(DAT_PROVIDER_NOT_FOUND,
				DAT_NAME_NOT_REGISTERED);

	ia = dapl_obj_alloc(NULL, DAT_HANDLE_TYPE_IA, sizeof(*ia));
	if (!ia)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ia->obj.provider = &entry->table;
	ia->prov_entry = entry;
	ia->ops = &entry->ops;
	ia->nolock = ia_nolock(entry);
	ia->agent_epfd = -1;
	ia->agent_kick = -1;
	ia->evd_ready = dapl_evd_ready;
	ia->opener = dapl_self_pid();
	dapl_list_init(&ia->open_link);
	if (dapl_progress_create(ia, dapl_cm_ep_event)) {
		pthread_mutex_destroy(&ia->lock);
		dapl_obj_free(ia);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	rc = ia->ops->ia_open(ia, entry->ia_params, &ia->caps);
	if (rc != DAT_SUCCESS) {
		dapl_progress_stop(ia);
		pthread_mutex_destroy(&ia->lock);
		dapl_obj_free(ia);
		return rc;
	}
	dapl_caps_apply(ia);
	ia->attr.ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->addr;
	prov_attr_fill(ia);

	/* The engine may post async events before the async EVD is there:
	 * dapl_evd_post_async drops them then. */
	if (dapl_progress_start(ia))
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	else if (*async_evd_handle == DAT_HANDLE_NULL)
		rc = async_evd_create(ia, async_evd_qlen, async_evd_handle);
	else
		rc = DAT_SUCCESS;
	if (rc == DAT_SUCCESS) {
		dapl_module_lock(&open_lock);
		if (!ia->async_evd_owned)
			rc = async_evd_share(ia, *async_evd_handle);
		if (rc == DAT_SUCCESS)
			dapl_list_add_tail(&open_ias, &ia->open_link);
		dapl_module_unlock(&open_lock);
	}
	if (rc != DAT_SUCCESS) {
		dapl_progress_stop(ia);
		ia->ops->ia_close(ia);
		dapl_progress_quiesce(ia);
		dapl_lmr_table_fini(ia);
		pthread_mutex_destroy(&ia->lock);
		dapl_obj_free(ia);
		return rc;
	}
	*ia_handle = ia;
	return DAT_SUCCESS;
}

/* ---- query ---- */

static void provider_attr_fill(const struct dapl_ia *ia, DAT_PROVIDER_ATTR *pa)
{
	DAT_PROVIDER_ATTR a;

	memset(&a, 0, sizeof(a));
	strncpy(a.provider_name, ia->prov_entry->name,
		sizeof(a.provider_name) - 1);
	a.provider_version_major = DAPL_PROVIDER_VERSION_MAJOR;
	a.provider_version_minor = DAPL_PROVIDER_VERSION_MINOR;
	a.dapl_version_major = 1;
	a.dapl_version_minor = 2;
	a.lmr_mem_types_supported = DAT_MEM_TYPE_VIRTUAL | DAT_MEM_TYPE_LMR;
	/* The triplets are turned into the transport's SGEs at post time. */
	a.iov_ownership_on_return = DAT_IOV_CONSUMER;
	a.dat_qos_supported = DAT_QOS_BEST_EFFORT;
	a.completion_flags_supported = DAT_COMPLETION_SUPPRESS_FLAG |
				       DAT_COMPLETION_SOLICITED_WAIT_FLAG |
				       DAT_COMPLETION_UNSIGNALLED_FLAG |
				       DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	if (dapl_ia_has(ia, DAPL_CAP_FENCE))
		a.completion_flags_supported |=
		    DAT_COMPLETION_BARRIER_FENCE_FLAG;
	/* The thread safety the IA was opened with, as the entry it came
	 * through says: the reference libdat rebuilds its registry key from
	 * this field at dat_ia_close, so it must be what was opened.  That a
	 * nonthreadsafe IA still locks unless DAPL_NONTHREADSAFE_NOLOCK=1
	 * (ia_nolock) is an implementation detail it does not report. */
	a.is_thread_safe = ia->prov_entry->info.is_thread_safe;
	a.max_private_data_size = ia->caps.max_private_data;
	a.supports_multipath = DAT_FALSE;
	/* The consumer's EP, or one the PSP makes if asked
	 * (DAT_PSP_PROVIDER_FLAG, sp.c). */
	a.ep_creator = DAPL_EP_CREATOR;
	a.pz_support = DAT_PZ_UNIQUE;
	a.optimal_buffer_alignment = DAT_OPTIMAL_ALIGNMENT;
	memcpy((void *)a.evd_stream_merging_supported, dapl_evd_merging,
	       sizeof(a.evd_stream_merging_supported));
	/* SRQs (srq.c) where the device has them.  No high watermarks
	 * (dat_ep_set_watermark); of dat_srq_query's counts only the
	 * outstanding one is known (srq_info_supported 1). */
	a.srq_supported = ia->attr.max_srqs ? DAT_TRUE : DAT_FALSE;
	a.srq_watermarks_supported = 0;
	a.srq_ep_pz_difference_supported = DAT_FALSE;
	a.srq_info_supported = ia->attr.max_srqs ? 1 : 0;
	a.ep_recv_info_supported = DAT_TRUE;	/* dat_ep_recv_query works */
	/* Cache-coherent DMA: the sync calls only order memory. */
	a.lmr_sync_req = DAT_FALSE;
	a.dto_async_return_guaranteed = DAT_FALSE;
	a.rdma_write_for_rdma_read_req = DAT_FALSE;
	a.num_provider_specific_attr = ia->caps.mw_note ? 6 : 5;
	a.provider_specific_attr = (DAT_NAMED_ATTR *)ia->prov_attr;
	memcpy(pa, &a, sizeof(a));
}

/*
 * The limits, and one vendor attribute: DAPL_RMR_FENCES, the number of
 * automatic fences dat_rmr_bind has applied on this IA's EPs so far (a
 * debug counter the tests read; see rmr.c).
 */
static void ia_attr_fill(struct dapl_ia *ia, DAT_IA_ATTR *attr)
{
	pthread_mutex_lock(&ia->lock);
	snprintf(ia->rmr_fences_str, sizeof(ia->rmr_fences_str), "%llu",
		 (unsigned long long)__atomic_load_n(&ia->rmr_fences,
						     __ATOMIC_RELAXED));
	ia->rmr_fences_attr.name = "DAPL_RMR_FENCES";
	ia->rmr_fences_attr.value = ia->rmr_fences_str;
	*attr = ia->attr;
	attr->num_vendor_attr = 1;
	attr->vendor_attr = &ia->rmr_fences_attr;
	pthread_mutex_unlock(&ia->lock);
}

DAT_RETURN dapl_ia_query(DAT_IA_HANDLE ia_handle,
			 DAT_EVD_HANDLE *async_evd_handle,
			 DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			 DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			 DAT_PROVIDER_ATTR *provider_attr)
{
	struct dapl_ia *ia = ia_handle;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (ia_attr_mask && !ia_attr)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (provider_attr_mask && !provider_attr)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (async_evd_handle)
		*async_evd_handle = ia->async_evd_shared
					? DAT_EVD_OUT_OF_SCOPE
					: (DAT_EVD_HANDLE)ia->async_evd;
	/* Every field is filled whenever any is asked for: the limits are
	 * a snapshot taken at open and the copy is cheap. */
	if (ia_attr_mask)
		ia_attr_fill(ia, ia_attr);
	if (provider_attr_mask)
		provider_attr_fill(ia, provider_attr);
	return DAT_SUCCESS;
}

/* ---- close ---- */

/* True if the IA owns anything but itself and its own async EVD. */
static int ia_in_use(struct dapl_ia *ia)
{
	struct dapl_list *pos, *tmp;
	int t, busy = 0;

	pthread_mutex_lock(&ia->lock);
	for (t = 0; t < DAPL_OBJ_TYPES && !busy; t++) {
		if (t == DAT_HANDLE_TYPE_IA)
			continue;
		dapl_list_for_each_safe(pos, tmp, &ia->objects[t])
		{
			struct dapl_obj *o = dapl_obj_of_link(pos);

			if (ia->async_evd_owned &&
			    o == (struct dapl_obj *)ia->async_evd)
				continue;
			busy = 1;
			break;
		}
	}
	pthread_mutex_unlock(&ia->lock);
	return busy;
}

/* The newest object of this type, skipping skip, or NULL. */
static struct dapl_obj *ia_last(struct dapl_ia *ia, int type, void *skip)
{
	struct dapl_list *l;
	struct dapl_obj *o = NULL;

	pthread_mutex_lock(&ia->lock);
	for (l = ia->objects[type].prev; l != &ia->objects[type]; l = l->prev) {
		o = dapl_obj_of_link(l);
		if (o != skip)
			break;
		o = NULL;
	}
	pthread_mutex_unlock(&ia->lock);
	return o;
}

static void teardown_one(int type, struct dapl_obj *o)
{
	switch (type) {
	case DAT_HANDLE_TYPE_CR:
		dapl_cr_teardown((struct dapl_cr *)o);
		break;
	case DAT_HANDLE_TYPE_EP:
		dapl_ep_teardown((struct dapl_ep *)o);
		break;
	case DAT_HANDLE_TYPE_RSP:
	case DAT_HANDLE_TYPE_PSP:
		dapl_sp_teardown((struct dapl_sp *)o);
		break;
	case DAT_HANDLE_TYPE_RMR:
		dapl_rmr_teardown((struct dapl_rmr *)o);
		break;
	case DAT_HANDLE_TYPE_LMR:
		dapl_lmr_teardown((struct dapl_lmr *)o);
		break;
	case DAT_HANDLE_TYPE_SRQ:
		dapl_srq_teardown((struct dapl_srq *)o);
		break;
	case DAT_HANDLE_TYPE_PZ:
		dapl_pz_teardown((struct dapl_pz *)o);
		break;
	case DAT_HANDLE_TYPE_EVD:
		dapl_evd_teardown((struct dapl_evd *)o);
		break;
	case DAT_HANDLE_TYPE_CNO:
		dapl_cno_teardown((struct dapl_cno *)o);
		break;
	}
}

/* Newest first, so that a shared LMR goes before the LMR it shares. */
static void teardown_type(struct dapl_ia *ia, int type, void *skip)
{
	struct dapl_obj *o;

	while ((o = ia_last(ia, type, skip))) {
		teardown_one(type, o);
		if (ia_last(ia, type, skip) == o) {
			/* A teardown that left its object behind: drop it
			 * rather than loop forever. */
			dapl_dbg(DAPL_DBG_ERR,
				 "teardown of %p (type %d) failed", (void *)o,
				 type);
			dapl_obj_free(o);
		}
	}
}

static const int teardown_order[] = {
    DAT_HANDLE_TYPE_CR,	 DAT_HANDLE_TYPE_EP,  DAT_HANDLE_TYPE_RSP,
    DAT_HANDLE_TYPE_PSP, DAT_HANDLE_TYPE_RMR, DAT_HANDLE_TYPE_LMR,
    DAT_HANDLE_TYPE_SRQ, DAT_HANDLE_TYPE_PZ,  DAT_HANDLE_TYPE_EVD,
    DAT_HANDLE_TYPE_CNO,
};

/*
 * dat_ia_close, in a child, of an IA its parent opened (before the fork):
 * every transport
 * object (QP, CQ, MR, CM id) is still the parent's, through device files
 * the two processes share, so tearing them down here would break the
 * parent's connections; and the engine threads do not exist here.
 * The child only invalidates its handles (no lock: it has one thread, and
 * a parent thread may have held one at the fork); the memory is the
 * child's own copy and goes with it.
 */
static void ia_forget_forked(struct dapl_ia *ia)
{
	struct dapl_list *pos;
	int t;

	for (t = 0; t < DAPL_OBJ_TYPES; t++)
		for (pos = ia->objects[t].next; pos != &ia->objects[t];
		     pos = pos->next)
			dapl_obj_of_link(pos)->magic = 0;
	ia->obj.magic = 0;
}

DAT_RETURN dapl_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_evd *async;
	unsigned i;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (close_flags != DAT_CLOSE_ABRUPT_FLAG &&
	    close_flags != DAT_CLOSE_GRACEFUL_FLAG)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (close_flags == DAT_CLOSE_GRACEFUL_FLAG && ia_in_use(ia))
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
	/* Not dapl_provider_forked(): a child whose parent kept an IA open
	 * uses the parent's registration, and an IA the child opened itself
	 * (its own endpoints, engine thread and, over shm, regions in
	 * /dev/shm that outlive the process) must really be closed. */
	if (ia->opener != dapl_self_pid()) {
		ia_forget_forked(ia);
		return DAT_SUCCESS;
	}

	dapl_module_lock(&open_lock);
	dapl_list_del(&ia->open_link);
	async_evd_unshare(ia);
	dapl_module_unlock(&open_lock);

	async = ia->async_evd; /* NULL if it was another IA's */
	for (i = 0; i < sizeof(teardown_order) / sizeof(teardown_order[0]); i++)
		teardown_type(ia, teardown_order[i],
			      ia->async_evd_owned ? async : NULL);

	/*
	 * The engine (and another IA's engine reading the device's async
	 * events) may post to the async EVD until the engine stopped and
	 * ia_close returned: keep its queue until then, but give back its
	 * CQ (if it merges DTOs) while the device is open.
	 */
	if (ia->async_evd_owned)
		dapl_evd_quiesce(async);
	dapl_cno_agents_close(ia);
	dapl_progress_stop(ia);
	ia->ops->ia_close(ia);
	dapl_progress_quiesce(ia);
	__atomic_store_n(&ia->async_evd, NULL, __ATOMIC_RELEASE);
	if (dapl_obj_ok(async, DAT_HANDLE_TYPE_EVD)) {
		dapl_evd_put(async);
		if (ia->async_evd_owned)
			dapl_evd_teardown(async);
	}
	dapl_lmr_table_fini(ia);
	pthread_mutex_destroy(&ia->lock);
	dapl_obj_free(ia);
	return DAT_SUCCESS;
}
