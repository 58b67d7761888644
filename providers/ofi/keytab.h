/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm: the IA's table of live remote keys and peers' read-only views of
 * theirs (keytab.c says why and how).
 */
#ifndef DAPL_OFI_KEYTAB_H
#define DAPL_OFI_KEYTAB_H

#include <stdint.h>

#include "../../udapl/transport.h"

struct ofi_keytab;
struct ofi_keytab_view;

/* The IA's table, or NULL (no memfd: keys go by messages) */
struct ofi_keytab *ofi_keytab_open(void) DAPL_HIDDEN;
void ofi_keytab_close(struct ofi_keytab *t) DAPL_HIDDEN;
/* What a KEYT tells a peer: the table's fd in this process, its nonce */
void ofi_keytab_where(const struct ofi_keytab *t, uint64_t *fd,
		      uint64_t *nonce) DAPL_HIDDEN;
/* Owner, oia->lock held: key listed (1), or its slot is taken (0) */
int ofi_keytab_publish(struct ofi_keytab *t, uint32_t key, uint32_t perm,
		       uint64_t base, uint64_t len) DAPL_HIDDEN;
/* Owner, oia->lock held: key's slot cleared, then a full barrier; the
 * caller then waits until no view's ofi_keytab_busy says key */
void ofi_keytab_withdraw(struct ofi_keytab *t, uint32_t key) DAPL_HIDDEN;
/* A peer's table, mapped read-only, if it is one (its nonce), else NULL */
struct ofi_keytab_view *ofi_keytab_view_open(long pid, uint64_t fd,
					     uint64_t nonce) DAPL_HIDDEN;
void ofi_keytab_view_close(struct ofi_keytab_view *v) DAPL_HIDDEN;
/* Initiator: key marked as in use in its own table (a full barrier
 * after); the mark's number, or -1 if every mark is taken */
int ofi_keytab_claim(struct ofi_keytab *t, uint32_t key) DAPL_HIDDEN;
void ofi_keytab_release(struct ofi_keytab *t, int busy) DAPL_HIDDEN;
/* Initiator: 1 if the peer's table lists key, with its privileges
 * (OFI_PERM_*) and range */
int ofi_keytab_find(const struct ofi_keytab_view *v, uint32_t key,
		    uint32_t *perm, uint64_t *base, uint64_t *len) DAPL_HIDDEN;
/* Owner: does the peer of view v mark key as in use? */
int ofi_keytab_busy(const struct ofi_keytab_view *v, uint32_t key)
    DAPL_HIDDEN;

#endif
