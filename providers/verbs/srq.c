/*
 * Shared receive queues (ibv_create_srq) and the map that tells a
 * receive completion which EP its message came in on.
 *
 * The SRQ's transport part holds the struct ibv_srq; its srq_context is
 * the struct dapl_srq, so the async callback finds it for
 * IBV_EVENT_SRQ_LIMIT_REACHED.
 * The low watermark is the verbs SRQ limit: armed by ibv_modify_srq, it
 * fires once when fewer receives than the limit are queued, and the
 * device refuses a limit above what is queued now (DAT_INVALID_STATE:
 * udapl then reports the event at once).
 *
 * A completion names its QP only by number (wc.qp_num), and an SRQ's
 * receive cookie cannot know the EP, so each IA keeps a fixed table
 * qp_num -> EP of its EPs on an SRQ: filled and emptied by qp create and
 * destroy under cia->lock, read by cq_poll without a lock (open
 * addressing, slots never move, a deleted entry keeps its qp_num with a
 * NULL EP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "verbs.h"

enum { VERBS_QPN_SLOTS = 1024 }; /* EPs on SRQs per IA; a power of two */

struct verbs_qpn_slot {
	uint32_t qpn; /* 0: never used (QPs 0 and 1 are not RC) */
	struct dapl_ep *ep;
};

struct verbs_qpn_map {
	struct verbs_qpn_slot slot[VERBS_QPN_SLOTS];
};

static unsigned verbs_qpn_hash(uint32_t qpn)
{
	return (qpn * 2654435761u) & (VERBS_QPN_SLOTS - 1);
}

int verbs_qpn_add(struct dapl_tp_ia *cia, uint32_t qpn, struct dapl_ep *ep)
{
	struct verbs_qpn_map *m;
	unsigned i, h = verbs_qpn_hash(qpn);
	int rc = -1;

	pthread_mutex_lock(&cia->lock);
	m = cia->qpn_map;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			goto out;
		__atomic_store_n(&cia->qpn_map, m, __ATOMIC_RELEASE);
	}
	for (i = 0; i < VERBS_QPN_SLOTS; i++) {
		struct verbs_qpn_slot *s =
		    &m->slot[(h + i) & (VERBS_QPN_SLOTS - 1)];

		if (s->qpn && s->qpn != qpn &&
		    __atomic_load_n(&s->ep, __ATOMIC_RELAXED))
			continue;
		/* a free or deleted slot (or a stale one of this number):
		 * the number first, so a reader never pairs it with
		 * another QP's EP */
		__atomic_store_n(&s->ep, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&s->qpn, qpn, __ATOMIC_RELEASE);
		__atomic_store_n(&s->ep, ep, __ATOMIC_RELEASE);
		rc = 0;
		break;
	}
out:
	pthread_mutex_unlock(&cia->lock);
	return rc;
}

void verbs_qpn_del(struct dapl_tp_ia *cia, uint32_t qpn)
{
	struct verbs_qpn_map *m;
	unsigned i, h = verbs_qpn_hash(qpn);

	pthread_mutex_lock(&cia->lock);
	m = cia->qpn_map;
	for (i = 0; m && i < VERBS_QPN_SLOTS; i++) {
		struct verbs_qpn_slot *s =
		    &m->slot[(h + i) & (VERBS_QPN_SLOTS - 1)];

		if (!s->qpn)
			break;
		if (s->qpn == qpn) {
			__atomic_store_n(&s->ep, NULL, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&cia->lock);
}

/* The poll path: a few loads, no lock. */
struct dapl_ep *verbs_qpn_lookup(struct dapl_tp_ia *cia, uint32_t qpn)
{
	struct verbs_qpn_map *m =
	    __atomic_load_n(&cia->qpn_map, __ATOMIC_ACQUIRE);
	unsigned i, h = verbs_qpn_hash(qpn);

	for (i = 0; m && i < VERBS_QPN_SLOTS; i++) {
		struct verbs_qpn_slot *s =
		    &m->slot[(h + i) & (VERBS_QPN_SLOTS - 1)];
		uint32_t n = __atomic_load_n(&s->qpn, __ATOMIC_ACQUIRE);

		if (!n)
			break;
		if (n == qpn)
			return __atomic_load_n(&s->ep, __ATOMIC_ACQUIRE);
	}
	return NULL;
}

void verbs_qpn_map_free(struct dapl_tp_ia *cia)
{
	free(cia->qpn_map);
	cia->qpn_map = NULL;
}

DAT_RETURN verbs_srq_create(struct dapl_srq *srq)
{
	const DAT_SRQ_ATTR *attr = dapl_srq_attr(srq);
	struct ibv_srq_init_attr init = {
	    .srq_context = srq,
	    .attr =
		{
		    .max_wr = (uint32_t)attr->max_recv_dtos,
		    .max_sge = (uint32_t)attr->max_recv_iov,
		},
	};
	struct dapl_tp_srq *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	t->srq = ibv_create_srq(verbs_pd(dapl_srq_pz(srq)), &init);
	if (!t->srq) {
		err = errno;
		free(t);
		return err == EINVAL
			   ? DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)
			   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_SRQ);
	}
	dapl_srq_set_tp(srq, t);
	return DAT_SUCCESS;
}

DAT_RETURN verbs_srq_modify(struct dapl_srq *srq, DAT_COUNT max_wr,
			  DAT_COUNT limit)
{
	struct ibv_srq_attr a = {0};
	int mask = 0, rc;

	if (max_wr > 0) {
		a.max_wr = (uint32_t)max_wr;
		mask |= IBV_SRQ_MAX_WR;
	}
	if (limit >= 0) {
		a.srq_limit = (uint32_t)limit;
		mask |= IBV_SRQ_LIMIT;
	}
	if (!mask)
		return DAT_SUCCESS;
	rc = ibv_modify_srq(verbs_srq(srq), &a, mask);
	if (!rc)
		return DAT_SUCCESS;
	/* A limit above the receives queued now: due at once. */
	if (rc == EINVAL && mask == IBV_SRQ_LIMIT)
		return DAPL_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	return rc == EINVAL
		   ? DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2)
		   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
}

void verbs_srq_destroy(struct dapl_srq *srq)
{
	struct dapl_tp_srq *t = dapl_srq_tp(srq);

	if (!t)
		return;
	if (ibv_destroy_srq(t->srq))
		dapl_dbg(DAPL_DBG_ERR, "verbs: ibv_destroy_srq failed");
	dapl_srq_set_tp(srq, NULL);
	free(t);
}

/* The hot path: one ibv_post_srq_recv, udapl holds the SRQ's lock. */
DAT_RETURN verbs_srq_post_recv(struct dapl_srq *srq, const struct dapl_post *p)
{
	struct ibv_recv_wr *bad, wr = {
				     .wr_id = (uintptr_t)p->cookie,
				     .sg_list = (struct ibv_sge *)p->sge,
				     .num_sge = p->num_sge,
				 };
	int rc = ibv_post_srq_recv(dapl_srq_tp(srq)->srq, &wr, &bad);

	if (dapl_likely(!rc))
		return DAT_SUCCESS;
	return rc == ENOMEM
		   ? DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ)
		   : DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
}
