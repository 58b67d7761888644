/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LMRs: registration through the provider and the lmr_context lookup
 * table of the post path (whose first probe and the triplet checks are
 * inline in lmr_lookup.h: dapl_lmr_find, dapl_lmr_check_sge).
 *
 * The lookup table is per IA, open addressing with linear probing, keyed
 * by lmr_context.  Readers (every post) take no lock: they load the
 * current table and compare keys; writers (create, free) hold ia->lock.
 * A slot holds NULL (empty, ends a probe), TOMB (a freed entry, probing
 * goes on) or an LMR.  A reader racing a free may find the LMR just
 * freed: its magic is cleared before the slot is, and LMR memory is never
 * returned to malloc while the provider is loaded, so the magic check
 * catches it.  When the table grows, the old one is kept (a reader may
 * still be scanning it) until the IA closes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "slots.h"
#include <dat/dat_ib_extensions.h>

#define TOMB DAPL_LMR_TOMB
#define TABLE_MIN_BITS 6

static uint32_t table_size(const struct dapl_lmr_table *t)
{
	return 1u << t->bits;
}

static struct dapl_lmr_table *table_new(uint32_t bits)
{
	struct dapl_lmr_table *t;

	t = calloc(1, sizeof(*t) + ((size_t)1 << bits) * sizeof(t->slot[0]));
	if (t)
		t->bits = bits;
	return t;
}

static uint32_t table_place(struct dapl_lmr_table *t, struct dapl_lmr *lmr)
{
	uint32_t mask = table_size(t) - 1;
	uint32_t i = dapl_lmr_hash(lmr->lmr_context, t->bits);
	struct dapl_lmr *p;

	for (;; i = (i + 1) & mask) {
		p = t->slot[i];
		if (!p || p == TOMB)
			break;
	}
	if (!p)
		t->used++;
	t->live++;
	__atomic_store_n(&t->slot[i], lmr, __ATOMIC_RELEASE);
	return i;
}

/* A new table for live entries, published; the old one retired. */
static int table_rebuild(struct dapl_ia *ia, struct dapl_lmr_table *old)
{
	uint32_t bits = TABLE_MIN_BITS, i, live = old ? old->live : 0;
	struct dapl_lmr_table *t;

	while ((1u << bits) < 4 * (live + 1))
		bits++;
	t = table_new(bits);
	if (!t)
		return -1;
	for (i = 0; old && i < table_size(old); i++)
		if (old->slot[i] && old->slot[i] != TOMB)
			table_place(t, old->slot[i]);
	t->retired = old;
	__atomic_store_n(&ia->lmr_table, t, __ATOMIC_RELEASE);
	return 0;
}

/* Under ia->lock. */
static int table_insert(struct dapl_ia *ia, struct dapl_lmr *lmr)
{
	struct dapl_lmr_table *t = ia->lmr_table;

	/* Keep at least a quarter of the slots empty so probes end. */
	if (!t || 4 * (t->used + 1) > 3 * table_size(t)) {
		if (table_rebuild(ia, t))
			return -1;
		t = ia->lmr_table;
	}
	table_place(t, lmr);
	return 0;
}

/* Under ia->lock. */
static void table_remove(struct dapl_ia *ia, struct dapl_lmr *lmr)
{
	struct dapl_lmr_table *t = ia->lmr_table;
	uint32_t mask, i, n;

	if (!t)
		return;
	mask = table_size(t) - 1;
	i = dapl_lmr_hash(lmr->lmr_context, t->bits);
	for (n = 0; n <= mask && t->slot[i]; n++, i = (i + 1) & mask)
		if (t->slot[i] == lmr)
			break;
	if (n > mask || t->slot[i] != lmr)
		return;
	t->live--;
	__atomic_store_n(&t->slot[i], TOMB, __ATOMIC_RELEASE);
	/*
	 * A tombstone followed by an empty slot ends every probe that
	 * reaches it, so it (and the tombstones before it) can be emptied:
	 * no live entry sits behind them.
	 */
	while (!t->slot[(i + 1) & mask] && t->slot[i] == TOMB) {
		__atomic_store_n(&t->slot[i], NULL, __ATOMIC_RELEASE);
		t->used--;
		i = (i - 1) & mask;
	}
}

void dapl_lmr_table_fini(struct dapl_ia *ia)
{
	struct dapl_lmr_table *t = ia->lmr_table, *next;

	for (; t; t = next) {
		next = t->retired;
		free(t);
	}
	ia->lmr_table = NULL;
}

struct dapl_lmr *dapl_lmr_lookup(struct dapl_ia *ia, DAT_LMR_CONTEXT ctx)
{
	struct dapl_lmr_table *t = __atomic_load_n(&ia->lmr_table, __ATOMIC_ACQUIRE);
	uint32_t mask, i, n;
	struct dapl_lmr *p;

	if (!t)
		return NULL;
	mask = table_size(t) - 1;
	i = dapl_lmr_hash(ctx, t->bits);
	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		p = __atomic_load_n(&t->slot[i], __ATOMIC_ACQUIRE);
		if (!p)
			return NULL;
		if (p != TOMB && p->lmr_context == ctx &&
		    dapl_obj_ok(p, DAT_HANDLE_TYPE_LMR) && p->obj.ia == ia)
			return p;
	}
	return NULL;
}

/* [va, va + len) inside the LMR's registration (overflow-safe). */
static int lmr_covers(const struct dapl_lmr *lmr, DAT_VADDR va, DAT_VLEN len)
{
	return va >= lmr->reg_addr && len <= lmr->reg_len &&
	       va - lmr->reg_addr <= lmr->reg_len - len;
}

/* ---- create ---- */

static DAT_RETURN lmr_create_virtual(struct dapl_lmr *lmr,
				     DAT_REGION_DESCRIPTION region,
				     DAT_VLEN length)
{
	struct dapl_ia *ia = lmr->obj.ia;

	if (!region.for_va)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!length || (ia->attr.max_lmr_block_size &&
			length > ia->attr.max_lmr_block_size))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	/* a range that runs past the end of the address space is no region
	 * on any transport (some register nothing and would only fault at
	 * the first DTO) */
	if ((uintptr_t)region.for_va + length < (uintptr_t)region.for_va ||
	    length > UINTPTR_MAX)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	lmr->length = length;
	return ia->ops->mr_register(lmr, region.for_va, length, lmr->priv);
}

DAT_RETURN dapl_lmr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig, int same,
			  void (*ref)(struct dapl_lmr *lmr,
				      struct dapl_tp_lmr *tp, DAT_VADDR addr,
				      DAT_VLEN len))
{
	struct dapl_tp_lmr *tp = dapl_lmr_tp(orig);

	if (!tp)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_FREE);
	if (!same)
		return lmr->obj.ia->ops->mr_register(
		    lmr, (void *)(uintptr_t)orig->reg_addr, orig->reg_len,
		    lmr->priv);
	dapl_lmr_set_tp(lmr, tp);
	ref(lmr, tp, orig->reg_addr, orig->reg_len);
	return DAT_SUCCESS;
}

static DAT_RETURN lmr_create_shared(struct dapl_lmr *lmr,
				    DAT_REGION_DESCRIPTION region)
{
	struct dapl_lmr *orig = region.for_lmr_handle;
	struct dapl_ia *ia = lmr->obj.ia;
	DAT_RETURN rc;

	if (!dapl_obj_ok(orig, DAT_HANDLE_TYPE_LMR) || orig->obj.ia != ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	/* A shared registration never has rights its original lacks: the
	 * transport shares the original's keys, so the extra rights would
	 * be claimed by an rmr_context that does not carry them (and a new
	 * registration would be a way around the owner's choice). */
	if (lmr->priv & ~orig->priv)
		return DAPL_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	/* The length argument is ignored for this type. */
	lmr->length = orig->length;
	rc = ia->ops->mr_share(lmr, orig);
	if (rc != DAT_SUCCESS)
		return rc;
	pthread_mutex_lock(&ia->lock);
	orig->use_count++;
	pthread_mutex_unlock(&ia->lock);
	lmr->shared_from = orig;
	return DAT_SUCCESS;
}

static DAT_RETURN lmr_type_check(DAT_MEM_TYPE mem_type)
{
	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
	case DAT_MEM_TYPE_LMR:
		return DAT_SUCCESS;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
	case DAT_MEM_TYPE_SO_VIRTUAL:
		/* dat_ia_query does not report these types. */
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	default:
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
}

static void lmr_release_orig(struct dapl_lmr *lmr)
{
	struct dapl_ia *ia = lmr->obj.ia;

	if (!lmr->shared_from)
		return;
	pthread_mutex_lock(&ia->lock);
	lmr->shared_from->use_count--;
	pthread_mutex_unlock(&ia->lock);
	lmr->shared_from = NULL;
}

DAT_RETURN
dapl_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
		DAT_REGION_DESCRIPTION region_description, DAT_VLEN length,
		DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS privileges,
		DAT_LMR_HANDLE *lmr_handle, DAT_LMR_CONTEXT *lmr_context,
		DAT_RMR_CONTEXT *rmr_context, DAT_VLEN *registered_length,
		DAT_VADDR *registered_address)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_pz *pz = pz_handle;
	struct dapl_lmr *lmr;
	DAT_RETURN rc;
	int err;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	rc = lmr_type_check(mem_type);
	if (rc != DAT_SUCCESS)
		return rc;
	if (!dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ) || pz->obj.ia != ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	/* DAT 1.2's privileges and the atomic extension's remote atomic
	 * one (dat_ib_extensions.h) */
	if (privileges & ~(DAT_MEM_PRIV_ALL_FLAG | DAT_IB_MEM_PRIV_REMOTE_ATOMIC))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (!lmr_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	/* The LMR to share is checked before the allocation, which may
	 * reuse the very block a freed handle points to. */
	if (mem_type == DAT_MEM_TYPE_LMR &&
	    (!dapl_obj_ok(region_description.for_lmr_handle,
			  DAT_HANDLE_TYPE_LMR) ||
	     ((struct dapl_lmr *)region_description.for_lmr_handle)->obj.ia !=
		 ia))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);

	lmr = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_LMR, sizeof(*lmr));
	if (!lmr)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	lmr->mem_type = mem_type;
	lmr->region = region_description;
	lmr->pz = pz;
	lmr->priv = privileges;
	if (mem_type == DAT_MEM_TYPE_VIRTUAL)
		rc = lmr_create_virtual(lmr, region_description, length);
	else
		rc = lmr_create_shared(lmr, region_description);
	if (rc != DAT_SUCCESS) {
		dapl_obj_free(lmr);
		return rc;
	}

	pthread_mutex_lock(&ia->lock);
	err = table_insert(ia, lmr);
	if (!err)
		pz->use_count++;
	pthread_mutex_unlock(&ia->lock);
	if (err) {
		ia->ops->mr_deregister(lmr);
		lmr_release_orig(lmr);
		dapl_obj_free(lmr);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}

	*lmr_handle = lmr;
	if (lmr_context)
		*lmr_context = lmr->lmr_context;
	/* No remote privileges, no rmr_context (dat_lmr_create(3DAT)). */
	if (rmr_context)
		*rmr_context = (privileges & (DAT_MEM_PRIV_REMOTE_READ_FLAG |
					      DAT_MEM_PRIV_REMOTE_WRITE_FLAG |
					      DAT_IB_MEM_PRIV_REMOTE_ATOMIC))
				   ? lmr->rmr_context
				   : 0;
	if (registered_length)
		*registered_length = lmr->reg_len;
	if (registered_address)
		*registered_address = lmr->reg_addr;
	return DAT_SUCCESS;
}

/* ---- query, free ---- */

DAT_RETURN dapl_lmr_query(DAT_LMR_HANDLE lmr_handle,
			  DAT_LMR_PARAM_MASK lmr_param_mask,
			  DAT_LMR_PARAM *lmr_param)
{
	struct dapl_lmr *lmr = lmr_handle;
	DAT_LMR_PARAM *p = lmr_param;
	DAT_LMR_PARAM_MASK m = lmr_param_mask;

	if (!dapl_obj_ok(lmr, DAT_HANDLE_TYPE_LMR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (m & ~(DAT_LMR_PARAM_MASK)DAT_LMR_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (m & DAT_LMR_FIELD_IA_HANDLE)
		p->ia_handle = lmr->obj.ia;
	if (m & DAT_LMR_FIELD_MEM_TYPE)
		p->mem_type = lmr->mem_type;
	if (m & DAT_LMR_FIELD_REGION_DESC)
		p->region_desc = lmr->region;
	if (m & DAT_LMR_FIELD_LENGTH)
		p->length = lmr->length;
	if (m & DAT_LMR_FIELD_PZ_HANDLE)
		p->pz_handle = lmr->pz;
	if (m & DAT_LMR_FIELD_MEM_PRIV)
		p->mem_priv = lmr->priv;
	if (m & DAT_LMR_FIELD_LMR_CONTEXT)
		p->lmr_context = lmr->lmr_context;
	if (m & DAT_LMR_FIELD_RMR_CONTEXT)
		p->rmr_context = lmr->rmr_context;
	if (m & DAT_LMR_FIELD_REGISTERED_SIZE)
		p->registered_size = lmr->reg_len;
	if (m & DAT_LMR_FIELD_REGISTERED_ADDRESS)
		p->registered_address = lmr->reg_addr;
	return DAT_SUCCESS;
}

/* Unpublishes the LMR and gives up its PZ reference, under ia->lock. */
static void lmr_unpublish(struct dapl_lmr *lmr)
{
	table_remove(lmr->obj.ia, lmr);
	lmr->pz->use_count--;
}

DAT_RETURN dapl_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	struct dapl_lmr *lmr = lmr_handle;
	struct dapl_ia *ia;
	DAT_RETURN rc;

	if (!dapl_obj_ok(lmr, DAT_HANDLE_TYPE_LMR))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	ia = lmr->obj.ia;
	pthread_mutex_lock(&ia->lock);
	if (lmr->use_count > 0) {
		pthread_mutex_unlock(&ia->lock);
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_LMR_IN_USE);
	}
	pthread_mutex_unlock(&ia->lock);
	rc = ia->ops->mr_deregister(lmr);
	if (rc != DAT_SUCCESS)
		return rc;
	/* The magic goes first, so a racing lookup cannot return it. */
	__atomic_store_n(&lmr->obj.magic, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ia->lock);
	lmr_unpublish(lmr);
	pthread_mutex_unlock(&ia->lock);
	lmr_release_orig(lmr);
	dapl_obj_free(lmr);
	return DAT_SUCCESS;
}

void dapl_lmr_teardown(struct dapl_lmr *lmr)
{
	struct dapl_ia *ia = lmr->obj.ia;

	__atomic_store_n(&lmr->obj.magic, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ia->lock);
	lmr_unpublish(lmr);
	pthread_mutex_unlock(&ia->lock);
	if (ia->ops->mr_deregister(lmr) != DAT_SUCCESS)
		dapl_dbg(DAPL_DBG_WARN, "lmr teardown: deregister failed");
	lmr_release_orig(lmr);
	dapl_obj_free(lmr);
}

/* ---- sync ---- */

static DAT_RETURN lmr_sync(DAT_IA_HANDLE ia_handle, const DAT_LMR_TRIPLET *segs,
			   DAT_VLEN num)
{
	struct dapl_ia *ia = ia_handle;
	DAT_VLEN i;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (num && !segs)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	for (i = 0; i < num; i++) {
		struct dapl_lmr *lmr = dapl_lmr_lookup(ia, segs[i].lmr_context);

		/* dat_lmr_sync_rdma_read(3DAT): an unknown LMR or a range
		 * outside it is DAT_INVALID_PARAMETER. */
		if (!lmr || !lmr_covers(lmr, segs[i].virtual_address,
					segs[i].segment_length))
			return DAPL_ERR(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG2);
	}
	/* Cache-coherent DMA (lmr_sync_req FALSE): only order the stores. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments)
{
	return lmr_sync(ia_handle, local_segments, num_segments);
}

DAT_RETURN dapl_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				    const DAT_LMR_TRIPLET *local_segments,
				    DAT_VLEN num_segments)
{
	return lmr_sync(ia_handle, local_segments, num_segments);
}

/* Never an LMR (zeroed: no magic, no IA): every EP's cache starts here
 * (ep.c), so the post's hit test needs no NULL test. */
struct dapl_lmr dapl_lmr_none;

/*
 * lmr_lookup.h's dapl_lmr_check_ep_one when the EP's last-LMR cache does
 * not hold: the table's lookup, and the cache refilled with what it found
 * (one word: a concurrent post may overwrite it, each checks what it
 * reads).
 */
struct dapl_lmr *dapl_lmr_find_ep_miss(struct dapl_ep *ep,
				       DAT_LMR_CONTEXT ctx)
{
	struct dapl_lmr *lmr = dapl_lmr_find(ep->obj.ia, ctx);

	if (lmr)
		__atomic_store_n(&ep->lc_lmr, lmr, __ATOMIC_RELEASE);
	return lmr;
}
