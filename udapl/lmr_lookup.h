/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udapl/lmr_lookup.h: the lmr_context -> LMR lookup of the post path and
 * the checks of a post's segments against the LMR it finds, all inline
 * (every post runs them; lmr.c owns the table and the out-of-line
 * rest).  Apart from udapl.h so that the object internals read without
 * the post path's LMR checks.  udapl.h includes it where it stood, after
 * the structs it reads (struct dapl_ia, dapl_ep, dapl_lmr, dapl_pz):
 * include udapl.h, not this.
 */
#ifndef DAT_UDAPL_LMR_LOOKUP_H
#define DAT_UDAPL_LMR_LOOKUP_H

/*
 * The per-IA lookup table, lmr_context -> LMR: open addressing with
 * linear probing.  A slot holds NULL (empty, ends a probe),
 * DAPL_LMR_TOMB (a freed entry, probing goes on) or an LMR.  lmr.c owns
 * it; the post path reads it lock-free through dapl_lmr_find.
 */
#define DAPL_LMR_TOMB ((struct dapl_lmr *)1)
struct dapl_lmr_table {
	uint32_t bits;			/* size = 1 << bits */
	uint32_t live, used;		/* used = live + tombstones */
	struct dapl_lmr_table *retired;	/* older tables, freed at IA close */
	struct dapl_lmr *slot[];
};

static inline uint32_t dapl_lmr_hash(DAT_LMR_CONTEXT ctx, uint32_t bits)
{
	/* lkeys are an index and a key byte: spread both. */
	return (uint32_t)(ctx * 2654435761u) >> (32 - bits);
}

/*
 * Finds the live LMR of this IA with this lmr_context, or NULL; the full
 * probe.  Lock-free for readers.
 */
struct dapl_lmr *dapl_lmr_lookup(struct dapl_ia *ia, DAT_LMR_CONTEXT ctx);

/* The same, with the first probe inline: the table is kept at most
 * three-quarters full, so most lookups end there. */
static inline struct dapl_lmr *dapl_lmr_find(struct dapl_ia *ia,
					     DAT_LMR_CONTEXT ctx)
{
	const struct dapl_lmr_table *t =
	    __atomic_load_n(&ia->lmr_table, __ATOMIC_ACQUIRE);
	struct dapl_lmr *p;

	if (dapl_unlikely(!t))
		return NULL;
	p = __atomic_load_n(&t->slot[dapl_lmr_hash(ctx, t->bits)],
			    __ATOMIC_ACQUIRE);
	if (dapl_likely((uintptr_t)p > (uintptr_t)DAPL_LMR_TOMB &&
			p->lmr_context == ctx &&
			p->obj.magic == DAPL_MAGIC(DAT_HANDLE_TYPE_LMR) &&
			p->obj.ia == ia))
		return p;
	return p ? dapl_lmr_lookup(ia, ctx) : NULL;
}

/*
 * A post's segment [va, va + len) against the LMR its lmr_context found
 * (NULL: none), the answers dat_ep_post_send(3DAT) and the other posts
 * name: an invalid LMR, or one without need_priv, is a privileges
 * violation, one of another PZ a protection violation, a segment outside
 * its LMR an invalid parameter (local_iov, the third argument).  Every
 * post's segment check ends here.
 */
static inline __attribute__((always_inline)) DAT_RETURN
dapl_lmr_check_found(const struct dapl_lmr *lmr, const struct dapl_pz *pz,
		     DAT_MEM_PRIV_FLAGS need_priv, DAT_VADDR va, DAT_VLEN len)
{
	if (dapl_unlikely(!lmr || (lmr->priv & need_priv) != need_priv))
		return DAPL_ERR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	if (dapl_unlikely(lmr->pz != pz))
		return DAPL_ERR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	/* inside the registration, overflow-safe: below reg_addr the
	 * offset wraps to more than reg_len, and offset + len either
	 * carries out (a wrapped offset, or a huge len) or must not pass
	 * reg_len: one add and its carry instead of two compares */
	uint64_t end;

	if (dapl_unlikely(len > UINT32_MAX ||
			  __builtin_add_overflow(va - lmr->reg_addr, len, &end) ||
			  end > lmr->reg_len))
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	return DAT_SUCCESS;
}

/*
 * Checks num triplets against the LMRs of ia and fills sge[]: a triplet
 * outside its LMR gives DAT_INVALID_PARAMETER|DAT_INVALID_ARG3, an
 * unknown lmr_context or one without the privileges need_priv
 * DAT_PRIVILEGES_VIOLATION, an LMR of a PZ other than pz
 * DAT_PROTECTION_VIOLATION (dat_ep_post_send(3DAT)).  *total gets the
 * sum.  Shared by EP posts and SRQ receives; inline, it is the post path.
 *
 * A zero-length triplet is not checked (consumers pass any lmr_context
 * with it) and becomes a zero-length SGE, which the verbs providers
 * skip, so num SGEs always come out.
 */
static inline DAT_RETURN dapl_lmr_check_sge(struct dapl_ia *ia,
					    const struct dapl_pz *pz,
					    DAT_MEM_PRIV_FLAGS need_priv,
					    DAT_COUNT num,
					    const DAT_LMR_TRIPLET *iov,
					    struct dapl_sge *sge,
					    uint64_t *total)
{
	uint64_t sum = 0;
	DAT_COUNT i;

	for (i = 0; i < num; i++) {
		const DAT_LMR_TRIPLET *t = &iov[i];
		DAT_VLEN len = t->segment_length;
		DAT_VADDR va = t->virtual_address;
		const struct dapl_lmr *lmr;
		DAT_RETURN rc;

		sge[i].addr = va;
		sge[i].length = (uint32_t)len;
		sge[i].lkey = t->lmr_context;
		if (!len)
			continue;
		lmr = dapl_lmr_find(ia, t->lmr_context);
		rc = dapl_lmr_check_found(lmr, pz, need_priv, va, len);
		if (dapl_unlikely(rc))
			return rc;
		sum += len;
	}
	*total = sum;
	return DAT_SUCCESS;
}

/*
 * The LMR of lmr_context ctx for a post on ep: the EP's last-LMR cache
 * when it holds (dapl_lmr_find_ep_hit), else the table's lookup, which
 * refills the cache (dapl_lmr_find_ep_miss).  A hit is checked as the
 * table's own first probe checks its slot: the LMR is alive (its magic;
 * a freed one has none, and LMR memory is never given back to malloc
 * while the provider is loaded), has this lmr_context and is of this
 * IA.  So a freed LMR is never taken, and one made anew in the same
 * memory is taken only if it is the live LMR of this context, which is
 * what the lookup answers.  The privileges, PZ and bounds are then
 * checked against the LMR itself (dapl_lmr_check_found).
 */
/* The miss: the table's lookup, which refills the cache (lmr.c). */
struct dapl_lmr *dapl_lmr_find_ep_miss(struct dapl_ep *ep,
				       DAT_LMR_CONTEXT ctx);

/* What an EP's cache names before its first post (lmr.c): no LMR, its
 * magic none, so the test below misses on it without a NULL test. */
extern struct dapl_lmr dapl_lmr_none DAPL_HIDDEN;

/* The cache's hit: the LMR of ctx if the cache names it, else NULL. */
static inline __attribute__((always_inline)) const struct dapl_lmr *
dapl_lmr_find_ep_hit(struct dapl_ep *ep, DAT_LMR_CONTEXT ctx)
{
	struct dapl_lmr *lmr = __atomic_load_n(&ep->lc_lmr, __ATOMIC_ACQUIRE);

	if (dapl_likely(lmr->lmr_context == ctx &&
			__atomic_load_n(&lmr->obj.magic, __ATOMIC_ACQUIRE) ==
			    DAPL_MAGIC(DAT_HANDLE_TYPE_LMR) &&
			lmr->obj.ia == ep->obj.ia))
		return lmr;
	return NULL;
}

/*
 * One triplet of a post on ep through the EP's last-LMR cache alone, the
 * post path's common case: sge and *total filled, and
 * dapl_lmr_check_found's answer for the cached LMR; DAPL_LMR_MISS (not
 * a DAT_RETURN) when the cache does not name the segment's LMR, for the
 * caller to take the table's lookup (a one-segment post does so out of
 * line, so that no call is left before its lock).  A zero-length
 * segment needs no LMR.
 */
#define DAPL_LMR_MISS ((DAT_RETURN)1)
static inline __attribute__((always_inline)) DAT_RETURN
dapl_lmr_check_ep_hit(struct dapl_ep *ep, DAT_MEM_PRIV_FLAGS need_priv,
		      const DAT_LMR_TRIPLET *t, struct dapl_sge *sge,
		      uint64_t *total)
{
	const DAT_VLEN len = t->segment_length;
	const DAT_VADDR va = t->virtual_address;
	const DAT_LMR_CONTEXT ctx = t->lmr_context;
	const struct dapl_lmr *lmr;

	sge->addr = va;
	sge->length = (uint32_t)len;
	sge->lkey = ctx;
	*total = len;
	if (dapl_unlikely(!len))
		return DAT_SUCCESS;
	lmr = dapl_lmr_find_ep_hit(ep, ctx);
	if (dapl_unlikely(!lmr))
		return DAPL_LMR_MISS;
	return dapl_lmr_check_found(lmr, ep->pz, need_priv, va, len);
}

/* dapl_lmr_check_sge for one triplet of a post on ep: the cache, then
 * on a miss the table's lookup (which refills the cache); the same
 * answers, in the same order, without the loop. */
static inline __attribute__((always_inline)) DAT_RETURN
dapl_lmr_check_ep_one(struct dapl_ep *ep, DAT_MEM_PRIV_FLAGS need_priv,
		      const DAT_LMR_TRIPLET *t, struct dapl_sge *sge,
		      uint64_t *total)
{
	DAT_RETURN rc = dapl_lmr_check_ep_hit(ep, need_priv, t, sge, total);

	if (dapl_likely(rc != DAPL_LMR_MISS))
		return rc;
	return dapl_lmr_check_found(dapl_lmr_find_ep_miss(ep, t->lmr_context),
				    ep->pz, need_priv, t->virtual_address,
				    t->segment_length);
}

/* The same for a post on an EP: its IA and PZ.  Segments the device
 * writes into (receives, RDMA read targets, atomic results) need
 * DAT_MEM_PRIV_LOCAL_WRITE_FLAG; a verbs device reads any registered
 * memory, so sends and RDMA write sources need nothing. */
static inline DAT_RETURN dapl_lmr_triplets_to_sge(struct dapl_ep *ep,
						  DAT_MEM_PRIV_FLAGS need_priv,
						  DAT_COUNT num,
						  const DAT_LMR_TRIPLET *iov,
						  struct dapl_sge *sge,
						  uint64_t *total)
{
	return dapl_lmr_check_sge(ep->obj.ia, ep->pz, need_priv, num, iov, sge,
				  total);
}

#endif
