/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm: the IA's table of live remote keys, which its peers read through a
 * mapping of their own instead of asking for a key and being told to
 * forget it.
 *
 * Why: over shm an RDMA is the initiator's process_vm_readv or
 * process_vm_writev into the target (ep.c ofi_write_flags), and libfabric
 * checks no key there.  So the initiator checks the key, and until now it
 * learnt of one by a control message (KEYQ/KEYR, or KEYN with the send
 * that carried it: cm.c) and forgot it by another (KEYX, confirmed by
 * KEYXA before dat_lmr_free returns: rmr.c).  An MPI library that
 * registers each pipeline fragment pays that revocation's round trip for
 * every fragment (issue 35, fresh_read: 0.4-0.6 of raw libfabric, which
 * frees nothing at the peer because shm lets any peer read anything).
 *
 * How: each IA over shm keeps its remote LMRs' keys in a sealed memfd
 * (1,024 slots, a key in slot key % 1,024; a second key for a taken slot
 * is not listed and goes the message way), which its peers map read-only
 * (/proc/PID/fd/FD: the same permission CMA needs; the table's size is
 * sealed, so a peer's mapping cannot fault, and a random nonce in its
 * header and the connection's KEYT must agree).  An initiator reads the
 * slot under its sequence count and, if the key is there with the range
 * and privilege the RDMA needs, issues it at once.  A freed LMR's key
 * leaves its slot before its registration closes, and dat_lmr_free
 * returns only once no peer is inside an RDMA it checked against the
 * table before that: each initiator marks the key it is about to use in
 * a busy word of its own table (which the target maps too) before it
 * reads the slot, and clears it when the CMA call returned.  Either the
 * target's clearing of the slot or the initiator's mark comes first
 * (both are followed by a full barrier before the other side's word is
 * read): the initiator finds the slot empty (its RDMA fails as a revoked
 * key's does), or the target sees the mark and waits for its CMA to end.
 * The table is only used where the RDMA is a CMA call that has ended
 * when libfabric returns (the connection's region says CMA works; ep.c).
 *
 * It calls nothing else of providers/ofi; mr.c publishes and withdraws
 * keys, ep.c reads views, cm.c exchanges where the tables are (KEYT,
 * KEYTA) and opens the views, fep.c closes them, ia.c opens and closes
 * the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "ofi.h"
#include "keytab.h"

#define KEYTAB_MAGIC 0x4b544144u /* "DATK" */
#define KEYTAB_SLOTS 1024u
#define KEYTAB_BUSY 64u

struct keytab_slot {
	uint32_t seq;		/* odd while the owner writes it */
	uint32_t key;		/* 0: empty */
	uint32_t perm;		/* OFI_PERM_* */
	uint32_t pad;
	uint64_t base, len;
};

struct keytab_map {
	uint32_t magic, nslots, nbusy, pad;
	uint64_t nonce;
	uint32_t busy[KEYTAB_BUSY];	/* keys the owner's RDMAs use now */
	struct keytab_slot slot[KEYTAB_SLOTS];
};

struct ofi_keytab {
	int fd;
	struct keytab_map *map;
};

struct ofi_keytab_view {
	const struct keytab_map *map;
};

struct ofi_keytab *ofi_keytab_open(void)
{
	struct ofi_keytab *t = calloc(1, sizeof(*t));
	uint64_t nonce;

	if (!t)
		return NULL;
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		goto err;
	t->fd = memfd_create("dapl-keys", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (t->fd < 0)
		goto err;
	if (ftruncate(t->fd, sizeof(*t->map)) ||
	    fcntl(t->fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto err_fd;
	t->map = mmap(NULL, sizeof(*t->map), PROT_READ | PROT_WRITE,
		      MAP_SHARED, t->fd, 0);
	if (t->map == MAP_FAILED)
		goto err_fd;
	t->map->nslots = KEYTAB_SLOTS;
	t->map->nbusy = KEYTAB_BUSY;
	t->map->nonce = nonce;
	__atomic_store_n(&t->map->magic, KEYTAB_MAGIC, __ATOMIC_RELEASE);
	return t;
err_fd:
	close(t->fd);
err:
	dapl_dbg(DAPL_DBG_CM, "ofi: shm: no key table (%s): keys go by "
			      "messages", strerror(errno));
	free(t);
	return NULL;
}

void ofi_keytab_close(struct ofi_keytab *t)
{
	if (!t)
		return;
	munmap(t->map, sizeof(*t->map));
	close(t->fd);
	free(t);
}

void ofi_keytab_where(const struct ofi_keytab *t, uint64_t *fd,
		      uint64_t *nonce)
{
	*fd = (uint64_t)t->fd;
	*nonce = t->map->nonce;
}

/* The owner writes a slot: seq odd, the fields, seq even. */
static void slot_write(struct keytab_slot *s, uint32_t key, uint32_t perm,
		       uint64_t base, uint64_t len)
{
	uint32_t seq = s->seq;

	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->perm, perm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->base, base, __ATOMIC_RELAXED);
	__atomic_store_n(&s->len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->key, key, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

int ofi_keytab_publish(struct ofi_keytab *t, uint32_t key, uint32_t perm,
		       uint64_t base, uint64_t len)
{
	struct keytab_slot *s = &t->map->slot[key % KEYTAB_SLOTS];

	if (s->key)
		return 0;
	slot_write(s, key, perm, base, len);
	return 1;
}

void ofi_keytab_withdraw(struct ofi_keytab *t, uint32_t key)
{
	struct keytab_slot *s = &t->map->slot[key % KEYTAB_SLOTS];

	if (s->key == key)
		slot_write(s, 0, 0, 0, 0);
	/* the slot's clearing before any peer's busy word is read */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

struct ofi_keytab_view *ofi_keytab_view_open(long pid, uint64_t fd,
					     uint64_t nonce)
{
	struct ofi_keytab_view *v;
	struct keytab_map *map;
	char path[64];
	struct stat st;
	int f, seals;

	if (pid <= 0 || fd > 1u << 30)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%ld/fd/%llu", pid,
		 (unsigned long long)fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return NULL;
	/* its size can neither shrink nor grow: a mapping of it cannot
	 * fault */
	seals = fcntl(f, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(f, &st) ||
	    (size_t)st.st_size < sizeof(*map)) {
		close(f);
		return NULL;
	}
	map = mmap(NULL, sizeof(*map), PROT_READ, MAP_SHARED, f, 0);
	close(f);
	if (map == MAP_FAILED)
		return NULL;
	if (__atomic_load_n(&map->magic, __ATOMIC_ACQUIRE) != KEYTAB_MAGIC ||
	    map->nslots != KEYTAB_SLOTS || map->nbusy != KEYTAB_BUSY ||
	    map->nonce != nonce || !(v = calloc(1, sizeof(*v)))) {
		munmap(map, sizeof(*map));
		return NULL;
	}
	v->map = map;
	return v;
}

void ofi_keytab_view_close(struct ofi_keytab_view *v)
{
	if (!v)
		return;
	munmap((void *)v->map, sizeof(*v->map));
	free(v);
}

int ofi_keytab_claim(struct ofi_keytab *t, uint32_t key)
{
	unsigned i;

	for (i = 0; i < KEYTAB_BUSY; i++) {
		uint32_t idle = 0;

		/* a full barrier: the mark before the peer's slot is read */
		if (__atomic_compare_exchange_n(&t->map->busy[i], &idle, key, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return (int)i;
	}
	return -1;
}

void ofi_keytab_release(struct ofi_keytab *t, int busy)
{
	__atomic_store_n(&t->map->busy[busy], 0, __ATOMIC_RELEASE);
}

int ofi_keytab_find(const struct ofi_keytab_view *v, uint32_t key,
		    uint32_t *perm, uint64_t *base, uint64_t *len)
{
	const struct keytab_slot *s = &v->map->slot[key % KEYTAB_SLOTS];
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	uint32_t k;

	if (seq & 1)
		return 0; /* being written: the message way */
	k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
	*perm = __atomic_load_n(&s->perm, __ATOMIC_RELAXED);
	*base = __atomic_load_n(&s->base, __ATOMIC_RELAXED);
	*len = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return k == key && __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq;
}

int ofi_keytab_busy(const struct ofi_keytab_view *v, uint32_t key)
{
	unsigned i;

	for (i = 0; i < KEYTAB_BUSY; i++)
		if (__atomic_load_n(&v->map->busy[i], __ATOMIC_ACQUIRE) == key)
			return 1;
	return 0;
}
