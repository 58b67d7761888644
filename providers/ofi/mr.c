/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection zones and memory registration.
 *
 * PZs are software only: libfabric registrations are domain-wide, udapl
 * checks that a post's LMRs are of the EP's PZ, and an RDMA from a peer
 * is checked against the registration's key, range and access, not
 * against the PZ of the EP it arrives on (documented in README.md).
 *
 * An LMR is fi_mr_reg with a key we choose (the IA's counter, never
 * reused while the IA is open): lmr_context = rmr_context = the key.
 * Where the provider picks the keys itself (FI_MR_PROV_KEY: verbs), the
 * DAT key stays ours and the peer learns the libfabric key (fi_mr_key)
 * with the registration's base (cm.c KEYR); elsewhere the two are one.
 * Where the provider addresses RMA by offset (rxm: no FI_MR_VIRT_ADDR),
 * a peer asks for the registration's base by key (cm.c KEYQ), hence
 * the IA's list of registrations.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "ofi.h"
#include "keytab.h"
#include <dat/dat_ib_extensions.h>

DAT_RETURN ofi_pz_create(struct dapl_pz *pz)
{
	(void)pz;
	return DAT_SUCCESS;
}

DAT_RETURN ofi_pz_free(struct dapl_pz *pz)
{
	(void)pz;
	return DAT_SUCCESS;
}

static uint64_t ofi_access(DAT_MEM_PRIV_FLAGS priv)
{
	uint64_t a = FI_SEND | FI_RECV | FI_READ | FI_WRITE;

	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		a |= FI_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		a |= FI_REMOTE_WRITE;
	/* an atomic reads and writes the target (fi_atomic(3)) */
	if (priv & DAT_IB_MEM_PRIV_REMOTE_ATOMIC)
		a |= FI_REMOTE_READ | FI_REMOTE_WRITE;
	return a;
}

/* What a peer may do with the registration (OFI_PERM_*, checked by the
 * initiator: see ofi.h). */
static uint32_t ofi_perm(DAT_MEM_PRIV_FLAGS priv)
{
	return (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG ? OFI_PERM_READ : 0) |
	       (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG ? OFI_PERM_WRITE : 0) |
	       (priv & DAT_IB_MEM_PRIV_REMOTE_ATOMIC ? OFI_PERM_ATOMIC : 0);
}

/*
 * Is [addr, addr + len) mapped?  libfabric's tcp, shm and rxm pin
 * nothing: their fi_mr_reg takes any address, and the first DTO through
 * memory that is not there would fault in the engine thread.  ibv_reg_mr
 * refuses such memory (EFAULT), which the verbs provider answers
 * DAT_INVALID_PARAMETER for the region; so does this, at registration
 * only.  (Neither call below can tell a PROT_NONE or read-only mapping;
 * udapl checks the range's end.)
 *
 * msync(MS_ASYNC) fails ENOMEM when part of the range is not mapped and
 * otherwise does nothing (Linux since 2.6.19): one walk of the mappings,
 * about 0.2 us here whatever the length.  mincore(2) answers the same
 * question a page at a time, 0.9-1.2 us for one page to 32 (it was 70 %
 * of a 128 KiB dat_lmr_create over shm, the registration per fragment of
 * fresh_read: results/2026-12-03-keys-ofi.md), and is kept for a process
 * under valgrind, whose memcheck takes msync's range for a read of it
 * (a fresh receive buffer is uninitialised: a false error in the
 * consumer's report).  RUNNING_ON_VALGRIND costs nothing natively; valgrind
 * is a build dependency (debian/control), so a build without its header
 * is one for a machine without it.
 */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define OFI_UNDER_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef OFI_UNDER_VALGRIND
#define OFI_UNDER_VALGRIND() 0
#endif

enum { OFI_MINCORE_PAGES = 4096 };

static int ofi_range_mincore(uintptr_t at, uintptr_t end, uintptr_t page)
{
	unsigned char vec[OFI_MINCORE_PAGES];

	while (at < end) {
		uintptr_t n = end - at < OFI_MINCORE_PAGES * page
				  ? end - at
				  : OFI_MINCORE_PAGES * page;

		if (mincore((void *)at, n, vec) && errno == ENOMEM)
			return 0;
		at += n;
	}
	return 1;
}

static int ofi_range_mapped(const void *addr, DAT_VLEN len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)addr & ~(page - 1);
	uintptr_t end = (uintptr_t)addr + len; /* udapl: no wrap */

	if (OFI_UNDER_VALGRIND())
		return ofi_range_mincore(at, end, page);
	return !(msync((void *)at, end - at, MS_ASYNC) && errno == ENOMEM);
}

DAT_RETURN ofi_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
			   DAT_MEM_PRIV_FLAGS priv)
{
	struct dapl_tp_ia *oia = ofi_ia_of(lmr);
	struct dapl_tp_lmr *m;
	int rc = -FI_ENOKEY, tries;

	if (!ofi_range_mapped(addr, len)) {
		dapl_dbg(DAPL_DBG_ERR, "ofi: dat_lmr_create: %p + %llu is not "
				       "mapped memory", addr,
			 (unsigned long long)len);
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}

	m = calloc(1, sizeof(*m));
	if (!m)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	pthread_mutex_lock(&oia->lock);
	/* a key another registration of the domain holds: the next one */
	for (tries = 0; tries < 64 && rc == -FI_ENOKEY; tries++) {
		m->key = ofi_key_next(oia);
		rc = fi_mr_reg(oia->domain, addr, len, ofi_access(priv), 0,
			       m->key, 0, &m->mr, NULL);
	}
	if (rc) {
		pthread_mutex_unlock(&oia->lock);
		free(m);
		dapl_dbg(DAPL_DBG_ERR, "ofi: fi_mr_reg: %s", fi_strerror(-rc));
		return rc == -FI_EINVAL
			   ? DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3)
			   : DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				      DAT_RESOURCE_MEMORY_REGION);
	}
	m->refs = 1;
	m->fkey = fi_mr_key(m->mr);
	m->base = (uint64_t)(uintptr_t)addr;
	m->len = len;
	m->perm = ofi_perm(priv);
	m->remote = !!m->perm;
	dapl_list_add_tail(&oia->mrs, &m->link);
	if (m->remote)
		ofi_key_fresh(oia, m->key);
	/* shm: listed for the peers' views (keytab.c); a provider's own
	 * key (FI_MR_PROV_KEY) would not be the one peers use */
	if (m->remote && oia->keytab && m->fkey == m->key)
		m->published = ofi_keytab_publish(oia->keytab, m->key, m->perm,
						  m->base, m->len);
	pthread_mutex_unlock(&oia->lock);
	dapl_lmr_set_tp(lmr, m);
	/* no remote privileges: no rmr_context (dat_lmr_create(3DAT)) */
	dapl_lmr_set_reg(lmr, m->key, m->remote ? m->key : 0, m->base, len);
	return DAT_SUCCESS;
}

static void ofi_mr_ref(struct dapl_lmr *lmr, struct dapl_tp_lmr *m,
		       DAT_VADDR addr, DAT_VLEN len)
{
	struct dapl_tp_ia *oia = ofi_ia_of(lmr);

	pthread_mutex_lock(&oia->lock);
	m->refs++;
	pthread_mutex_unlock(&oia->lock);
	dapl_lmr_set_reg(lmr, m->key, m->remote ? m->key : 0, addr, len);
}

DAT_RETURN ofi_mr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig)
{
	/* the key carries the access rights: other rights, other key */
	return dapl_lmr_share(lmr, orig,
			      dapl_lmr_priv(lmr) == dapl_lmr_priv(orig),
			      ofi_mr_ref);
}

/* oep->lock: does an op of the ring, posted and not yet complete, name
 * lmr_context key? */
static int ofi_ring_uses(const struct ofi_ring *r, uint32_t key)
{
	uint32_t seq, i;

	for (seq = r->emitted; seq != r->posted; seq++) {
		const struct ofi_op *op = &r->op[seq & (r->size - 1)];

		if (op->state != OFI_OP_HELD && op->state != OFI_OP_ISSUED)
			continue;
		for (i = 0; i < op->num; i++)
			if (op->lkey[i] == key && op->iov[i].iov_len)
				return 1;
	}
	return 0;
}

/* oia->lock: is a DTO of one of the IA's EPs still using key's memory? */
static int ofi_key_in_flight(struct dapl_tp_ia *oia, uint32_t key)
{
	struct dapl_list *l;
	int used = 0;

	for (l = oia->eps.next; !used && l != &oia->eps; l = l->next) {
		struct dapl_tp_ep *oep =
		    dapl_container_of(l, struct dapl_tp_ep, ia_link);

		dapl_lock(&oep->lock);
		used = ofi_ring_uses(&oep->sq, key) ||
		       ofi_ring_uses(&oep->rq, key);
		dapl_unlock(&oep->lock);
	}
	return used;
}

/*
 * oia->lock held, shm: key leaves the IA's table (keytab.c) before its
 * registration closes, and no peer is still inside an RDMA it checked
 * against the table before that: each connected peer's busy marks are
 * looked at until none names key.  A peer stopped between its check and
 * its CMA call holds this up to the keepalive's bound, as a peer that
 * does not answer a revocation does (rmr.c ofi_keyx_await).
 */
static void ofi_mr_unlist(struct dapl_tp_ia *oia, uint32_t key)
{
	uint64_t until = dapl_now_ns() + oia->ka_timeout_ns;
	struct dapl_list *pos;
	int busy;

	ofi_keytab_withdraw(oia->keytab, key);
	do {
		busy = 0;
		for (pos = oia->eps.next; pos != &oia->eps && !busy;
		     pos = pos->next) {
			struct dapl_tp_ep *oep =
			    dapl_container_of(pos, struct dapl_tp_ep, ia_link);

			busy = oep->peer_tab &&
			       ofi_keytab_busy(oep->peer_tab, key);
		}
		if (busy)
			sched_yield();
	} while (busy && dapl_now_ns() < until);
}

/*
 * Most libfabric providers need no registration for local buffers (DTOs
 * go out with desc NULL), so closing the registration would not stop a
 * posted receive or read from writing into memory the consumer believes
 * released.  The last registration of a key therefore stays while a DTO
 * that names it is posted and not complete: DAT_INVALID_STATE, as for
 * an LMR an RMR is bound to (dat_lmr_free(3DAT)); over verbs the DTO
 * completes DAT_DTO_ERR_LOCAL_PROTECTION or flushed instead.  A
 * consumer that frees an LMR while it posts a DTO naming it, from
 * another thread, races with itself: the post may come after the check.
 *
 * oia->lock held: lmr lets go of its registration (DAT_SUCCESS), or a
 * posted DTO still names it (DAT_INVALID_STATE).  *gone: the
 * registration, unlinked from the IA and closed, when lmr was its last
 * user (rmr.c ofi_mr_deregister tells the peers and frees it); else
 * NULL.
 */
DAT_RETURN ofi_mr_drop(struct dapl_lmr *lmr, struct dapl_tp_lmr **gone)
{
	struct dapl_tp_ia *oia = ofi_ia_of(lmr);
	struct dapl_tp_lmr *m = dapl_lmr_tp(lmr);

	*gone = NULL;
	if (!m)
		return DAT_SUCCESS;
	if (m->refs == 1 && ofi_key_in_flight(oia, m->key)) {
		dapl_dbg(DAPL_DBG_WARN, "ofi: dat_lmr_free: a posted DTO "
					"still uses the LMR");
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_LMR_IN_USE);
	}
	if (--m->refs == 0) {
		dapl_list_del(&m->link);
		ofi_key_stale(oia, m->key);
		if (m->published)
			ofi_mr_unlist(oia, m->key);
		fi_close(&m->mr->fid);
		*gone = m;
	}
	dapl_lmr_set_tp(lmr, NULL);
	return DAT_SUCCESS;
}

/*
 * Keys are a counter through a bijection of 32-bit words (murmur3's
 * finalizer: xor-shifts and odd multipliers), so distinct counts give
 * distinct keys, and the keys look like no small integer: a send that
 * carries a fresh key is recognised by the key's value in it
 * (cm.c ofi_keys_announce), and a 3 or a 17 of the consumer's own
 * must not pass for one.  The counter starts where the IA's open put
 * it (ia.c).
 */
uint32_t ofi_key_next(struct dapl_tp_ia *oia)
{
	uint32_t k;

	do {
		k = __atomic_fetch_add(&oia->next_key, 1, __ATOMIC_RELAXED);
		k ^= k >> 16;
		k *= 0x85ebca6bu;
		k ^= k >> 13;
		k *= 0xc2b2ae35u;
		k ^= k >> 16;
	} while (!k);
	return k;
}

void ofi_key_fresh(struct dapl_tp_ia *oia, uint32_t key)
{
	oia->fresh[oia->fresh_next++ % OFI_FRESH] = key;
	__atomic_store_n(&oia->fresh_sends, OFI_FRESH_SENDS, __ATOMIC_RELEASE);
}

void ofi_key_stale(struct dapl_tp_ia *oia, uint32_t key)
{
	unsigned i;

	for (i = 0; i < OFI_FRESH; i++)
		if (oia->fresh[i] == key)
			oia->fresh[i] = 0;
}

/* oia->lock held: conn was told the key of a window or LMR (cm.c, KEYR);
 * 0, or -1 if there is no memory to remember it (the key is then not
 * told). */
int ofi_mw_told(struct dapl_tp_lmr *m, uint64_t conn)
{
	uint32_t i;

	for (i = 0; i < m->ntold; i++)
		if (m->told[i] == conn)
			return 0;
	if (m->ntold == m->maxtold) {
		uint32_t n = m->maxtold ? 2 * m->maxtold : 4;
		uint64_t *t = realloc(m->told, n * sizeof(*t));

		if (!t)
			return -1;
		m->told = t;
		m->maxtold = n;
	}
	m->told[m->ntold++] = conn;
	return 0;
}
