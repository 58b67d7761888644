/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues.
 *
 * An SRQ holds receives that any EP created on it with
 * dat_ep_create_with_srq takes for its next incoming message.  The
 * provider makes the transport's queue (ops->srq_create) and puts those
 * EPs' queue pairs on it; a completion carries the EP the message came in
 * on (struct dapl_cqe.ep), which the SRQ's cookie cannot know.
 *
 * Cookies: receives of different EPs complete in any order, so instead of
 * a ring the SRQ keeps a free list of cookies (linked through
 * user_cookie.as_ptr while free), in arrays allocated at create and when
 * dat_srq_resize grows the queue; a post takes one under srq->lock, the
 * poller gives it back (dapl_srq_cqe_to_event, udapl.h).  An SRQ freed
 * with receives still posted keeps its arrays until the provider is
 * unloaded, with every cookie's SRQ cleared, because a completion of an
 * EP freed before may still sit in a CQ.
 *
 * The low watermark (dat_srq_set_lw) arms the transport's SRQ limit; when
 * it fires, or at once if fewer receives are queued than the new mark
 * (known for sure when fewer are outstanding, else as the transport
 * says), the IA's async EVD gets DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR with
 * the SRQ as dat_handle and reason DAT_SRQ_LOW_WATERMARK_EVENT (DAT 1.2
 * has no event number of its own for it; the reason tells it apart).
 * Once per setting, as the spec says.
 *
 * Where dat_ia_query reports max_srqs 0 (a device without SRQs, or
 * DAPL_CMA_DISABLE=srq) dat_srq_create is DAT_MODEL_NOT_SUPPORTED.
 */
#include <stdlib.h>
#include <string.h>

#include "slots.h"

#define BAD_SRQ DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ)

/* One array of cookies; srq->chunks is a list of them. */
struct srq_chunk {
	struct srq_chunk *next;
	DAT_COUNT n;
	struct dapl_cookie c[];
};

static void retired_forget(void);
static struct dapl_module_lock retired_lock =
	DAPL_MODULE_LOCK_INITIALIZER_FORGET(retired_forget);
static struct srq_chunk *retired;

/* In a forked child: the parent's chunks stay where they are. */
static void retired_forget(void)
{
	retired = NULL;
}

void dapl_srq_release_retired(void)
{
	struct srq_chunk *c;

	dapl_module_lock(&retired_lock);
	while ((c = retired)) {
		retired = c->next;
		free(c);
	}
	dapl_module_unlock(&retired_lock);
}

/* n more cookies on the free list; under srq->lock (or before use). */
static int srq_chunk_add(struct dapl_srq *srq, DAT_COUNT n)
{
	struct srq_chunk *ch;
	DAT_COUNT i;

	ch = calloc(1, sizeof(*ch) + (size_t)n * sizeof(ch->c[0]));
	if (!ch)
		return -1;
	ch->n = n;
	for (i = 0; i < n; i++) {
		ch->c[i].op = DAPL_OP_SRQ_RECV;
		ch->c[i].signaled = 1; /* SRQ receives always complete */
		ch->c[i].user_cookie.as_ptr = srq->free;
		srq->free = &ch->c[i];
	}
	ch->next = srq->chunks;
	srq->chunks = ch;
	return 0;
}

/*
 * Gives the arrays up: freed if nothing is posted, else every cookie
 * forgets its SRQ (a late completion is dropped) and the memory is kept.
 */
static void srq_chunks_release(struct dapl_srq *srq)
{
	struct srq_chunk *ch, *next;
	DAT_COUNT i;

	for (ch = srq->chunks; ch; ch = next) {
		next = ch->next;
		if (!srq->posted) {
			free(ch);
			continue;
		}
		for (i = 0; i < ch->n; i++)
			__atomic_store_n(&ch->c[i].rmr, NULL, __ATOMIC_RELEASE);
		dapl_module_lock(&retired_lock);
		ch->next = retired;
		retired = ch;
		dapl_module_unlock(&retired_lock);
	}
	srq->chunks = NULL;
	srq->free = NULL;
}

static void pz_ref(struct dapl_pz *pz, int delta)
{
	struct dapl_ia *ia = pz->obj.ia;

	pthread_mutex_lock(&ia->lock);
	pz->use_count += delta;
	pthread_mutex_unlock(&ia->lock);
}

void dapl_srq_lw_event(struct dapl_srq *srq)
{
	dapl_evd_post_async(srq->obj.ia,
			    DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, srq,
			    DAT_SRQ_LOW_WATERMARK_EVENT);
}

/*
 * Arms the low watermark lw (0: none); under srq->lock.  *fire: fewer
 * receives are queued than lw already, so the event is due now
 * (dat_srq_set_lw(3DAT)); the caller posts it once the lock is dropped
 * (a poller holds an EVD's lock before the SRQ's).
 */
static DAT_RETURN srq_arm_lw(struct dapl_srq *srq, DAT_COUNT lw, int *fire)
{
	/* Fewer outstanding than the mark: fewer queued for sure.  The
	 * transport may not say so itself (rxe only checks when an EP takes
	 * a receive), so report it here and leave the transport disarmed:
	 * once per setting. */
	int now = lw && srq->posted < lw;
	DAT_RETURN rc = srq->obj.ia->ops->srq_modify(srq, 0, now ? 0 : lw);
	int below = DAT_GET_TYPE(rc) == DAT_INVALID_STATE;

	*fire = 0;
	if (rc && !below)
		return rc;
	srq->attr.low_watermark = lw;
	*fire = now || (below && lw);
	return DAT_SUCCESS;
}

/* The attributes against the IA's limits (dat_srq_create(3DAT)). */
static int srq_attr_ok(const struct dapl_ia *ia, const DAT_SRQ_ATTR *a)
{
	return a->max_recv_dtos > 0 &&
	       a->max_recv_dtos <= ia->attr.max_recv_per_srq &&
	       a->max_recv_iov > 0 &&
	       a->max_recv_iov <= ia->attr.max_iov_segments_per_dto &&
	       a->low_watermark >= 0 && a->low_watermark <= a->max_recv_dtos;
}

static void srq_destroy_mem(struct dapl_srq *srq)
{
	srq_chunks_release(srq);
	pthread_mutex_destroy(&srq->lock);
	dapl_obj_free(srq);
}

DAT_RETURN dapl_srq_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			   DAT_SRQ_ATTR *srq_attr, DAT_SRQ_HANDLE *srq_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_pz *pz = pz_handle;
	struct dapl_srq *srq;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ) || pz->obj.ia != ia)
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	/* the capability record: no SRQ flag (or only udapl's default
	 * ops), no SRQs */
	if (!dapl_ia_has(ia, DAPL_CAP_SRQ) || !ia->attr.max_srqs)
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!srq_attr || !srq_attr_ok(ia, srq_attr))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!srq_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

	srq = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_SRQ, sizeof(*srq));
	if (!srq)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	pthread_mutex_init(&srq->lock, NULL);
	srq->pz = pz;
	srq->attr = *srq_attr;
	srq->attr.low_watermark = DAT_SRQ_LW_DEFAULT;
	if (srq_chunk_add(srq, srq_attr->max_recv_dtos)) {
		srq_destroy_mem(srq);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	rc = ia->ops->srq_create(srq);
	if (rc) {
		srq_destroy_mem(srq);
		return rc;
	}
	pz_ref(pz, 1);
	if (srq_attr->low_watermark) {
		int fire;

		pthread_mutex_lock(&srq->lock);
		rc = srq_arm_lw(srq, srq_attr->low_watermark, &fire);
		pthread_mutex_unlock(&srq->lock);
		if (fire)
			dapl_srq_lw_event(srq);
		if (rc) {
			ia->ops->srq_destroy(srq);
			pz_ref(pz, -1);
			srq_destroy_mem(srq);
			return rc;
		}
	}
	*srq_handle = srq;
	return DAT_SUCCESS;
}

static void srq_release(struct dapl_srq *srq)
{
	srq->obj.ia->ops->srq_destroy(srq);
	pz_ref(srq->pz, -1);
	srq_destroy_mem(srq);
}

DAT_RETURN dapl_srq_free(DAT_SRQ_HANDLE srq_handle)
{
	struct dapl_srq *srq = srq_handle;
	struct dapl_ia *ia;
	int busy;

	if (!dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	ia = srq->obj.ia;
	pthread_mutex_lock(&ia->lock);
	busy = srq->use_count > 0;
	pthread_mutex_unlock(&ia->lock);
	if (busy)
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_SRQ_IN_USE);
	srq_release(srq);
	return DAT_SUCCESS;
}

/* The hot path: no allocation, the SRQ's own mutex only. */
DAT_RETURN dapl_srq_post_recv(DAT_SRQ_HANDLE srq_handle, DAT_COUNT num_segments,
			      DAT_LMR_TRIPLET *local_iov,
			      DAT_DTO_COOKIE user_cookie)
{
	struct dapl_srq *srq = srq_handle;
	struct dapl_sge sge[DAPL_MAX_SGE];
	struct dapl_cookie *c;
	struct dapl_post p;
	uint64_t total;
	DAT_RETURN rc;

	if (dapl_unlikely(!dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ)))
		return BAD_SRQ;
	if (dapl_unlikely(num_segments < 0 ||
			  num_segments > srq->attr.max_recv_iov ||
			  num_segments > DAPL_MAX_SGE))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (dapl_unlikely(num_segments && !local_iov))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	/* A receive writes into its buffers: they need local write. */
	rc = dapl_lmr_check_sge(srq->obj.ia, srq->pz,
				DAT_MEM_PRIV_LOCAL_WRITE_FLAG, num_segments,
				local_iov, sge, &total);
	if (dapl_unlikely(rc))
		return rc;

	pthread_mutex_lock(&srq->lock);
	c = srq->free;
	if (dapl_unlikely(!c || srq->posted >= srq->attr.max_recv_dtos)) {
		rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto out;
	}
	srq->free = c->user_cookie.as_ptr;
	c->ep = NULL;
	c->user_cookie = user_cookie;
	c->length = 0;
	__atomic_store_n(&c->rmr, srq, __ATOMIC_RELEASE);
	p.op = DAPL_OP_SRQ_RECV;
	p.cookie = c;
	p.sge = sge;
	p.num_sge = num_segments;
	p.flags = DAPL_POST_SIGNALED;
	p.remote_addr = 0;
	p.rkey = 0;
	p.compare_add = p.swap = 0;
	DAPL_HAPPENS_BEFORE(c); /* read by the poller (evd_dequeue.c) */
	rc = srq->obj.ia->ops->srq_post_recv(srq, &p);
	if (dapl_unlikely(rc)) {
		c->user_cookie.as_ptr = srq->free;
		srq->free = c;
		goto out;
	}
	srq->posted++;
out:
	pthread_mutex_unlock(&srq->lock);
	return rc;
}

DAT_RETURN dapl_srq_query(DAT_SRQ_HANDLE srq_handle,
			  DAT_SRQ_PARAM_MASK srq_param_mask,
			  DAT_SRQ_PARAM *srq_param)
{
	struct dapl_srq *srq = srq_handle;
	DAT_SRQ_PARAM *p = srq_param;

	if (!dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	if (srq_param_mask & ~(DAT_SRQ_PARAM_MASK)DAT_SRQ_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!p)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	pthread_mutex_lock(&srq->lock);
	/* Everything is filled ("can return values for any other
	 * parameters"); how many receives the transport still holds is
	 * not known (DAT_VALUE_UNKNOWN), how many are outstanding is. */
	p->ia_handle = srq->obj.ia;
	p->srq_state = DAT_SRQ_STATE_OPERATIONAL;
	p->pz_handle = srq->pz;
	p->max_recv_dtos = srq->attr.max_recv_dtos;
	p->max_recv_iov = srq->attr.max_recv_iov;
	p->low_watermark = srq->attr.low_watermark;
	p->available_dto_count = DAT_VALUE_UNKNOWN;
	p->outstanding_dto_count = srq->posted;
	pthread_mutex_unlock(&srq->lock);
	return DAT_SUCCESS;
}

/*
 * Growing asks the transport for the room and adds cookies; shrinking
 * only lowers the limit on posts (verbs cannot shrink an SRQ, and the
 * spec lets the queue stay larger).
 */
DAT_RETURN dapl_srq_resize(DAT_SRQ_HANDLE srq_handle,
			   DAT_COUNT srq_max_recv_dto)
{
	struct dapl_srq *srq = srq_handle;
	DAT_COUNT have = 0;
	struct srq_chunk *ch;
	DAT_RETURN rc = DAT_SUCCESS;

	if (!dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	if (srq_max_recv_dto <= 0 ||
	    srq_max_recv_dto > srq->obj.ia->attr.max_recv_per_srq)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	pthread_mutex_lock(&srq->lock);
	if (srq_max_recv_dto < srq->posted ||
	    srq_max_recv_dto < srq->attr.low_watermark) {
		rc = DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	for (ch = srq->chunks; ch; ch = ch->next)
		have += ch->n;
	if (srq_max_recv_dto > have) {
		rc = srq->obj.ia->ops->srq_modify(srq, srq_max_recv_dto, -1);
		if (rc)
			goto out;
		if (srq_chunk_add(srq, srq_max_recv_dto - have)) {
			rc = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_MEMORY);
			goto out;
		}
	}
	srq->attr.max_recv_dtos = srq_max_recv_dto;
out:
	pthread_mutex_unlock(&srq->lock);
	return rc;
}

DAT_RETURN dapl_srq_set_lw(DAT_SRQ_HANDLE srq_handle, DAT_COUNT low_watermark)
{
	struct dapl_srq *srq = srq_handle;
	DAT_RETURN rc;
	int fire = 0;

	if (!dapl_obj_ok(srq, DAT_HANDLE_TYPE_SRQ))
		return BAD_SRQ;
	pthread_mutex_lock(&srq->lock);
	if (low_watermark < 0 || low_watermark > srq->attr.max_recv_dtos)
		rc = DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else
		rc = srq_arm_lw(srq, low_watermark, &fire);
	pthread_mutex_unlock(&srq->lock);
	if (fire)
		dapl_srq_lw_event(srq);
	return rc;
}

void dapl_srq_teardown(struct dapl_srq *srq)
{
	srq_release(srq);
}
