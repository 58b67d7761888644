/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The atomic extension (dat_ib_post_fetch_and_add, dat_ib_post_cmp_and_swap)
 * over libfabric atomics: fi_fetch_atomic(FI_SUM) and
 * fi_compare_atomic(FI_CSWAP) on one FI_UINT64.
 *
 * They are there only where the IA's libfabric provider offers FI_ATOMIC
 * and both operations are valid on its endpoints (fi_fetch_atomicvalid,
 * fi_compare_atomicvalid at IA open); elsewhere dat_ia_query's provider
 * attributes say FALSE and both calls answer DAT_MODEL_NOT_SUPPORTED.
 * Nothing is emulated.
 *
 * The target address goes through the same translation as an RDMA (ep.c):
 * an offset into the peer's registration where the provider addresses
 * RMA by offset (rxm).  The peer's answer about a key also says whether
 * its registration allows remote atomics (DAT_IB_MEM_PRIV_REMOTE_ATOMIC;
 * libfabric registrations know only remote read and write), so an
 * atomic to a registration without that privilege fails as on verbs:
 * DAT_DTO_ERR_REMOTE_ACCESS, and the connection breaks.
 *
 * The operands live in the op (its ring outlives the operation); the
 * original value lands in the consumer's 8 bytes (no FI_MR_LOCAL: no
 * descriptor).
 */
#include <rdma/fi_atomic.h>

#include "ofi.h"

int ofi_atomic_probe(struct dapl_tp_ia *oia, struct fid_ep *ep)
{
	size_t n = 0, m = 0;

	if (!(oia->info->caps & FI_ATOMIC))
		return 0;
	if (fi_fetch_atomicvalid(ep, FI_UINT64, FI_SUM, &n) || n < 1)
		return 0;
	if (fi_compare_atomicvalid(ep, FI_UINT64, FI_CSWAP, &m) || m < 1)
		return 0;
	return 1;
}

int ofi_atomic_issue(struct dapl_tp_ep *oep, struct ofi_op *op, uint64_t addr,
		     uint64_t fkey)
{
	void *res = op->iov[0].iov_base;

	if (op->op == DAPL_OP_ATOMIC_FETCH_ADD)
		return (int)fi_fetch_atomic(oep->fep, &op->operand[0], 1, NULL,
					    res, NULL, oep->peer, addr,
					    fkey, FI_UINT64, FI_SUM, op);
	/* FI_CSWAP: *addr = buf (the swap value) if compare == *addr */
	return (int)fi_compare_atomic(oep->fep, &op->operand[1], 1, NULL,
				      &op->operand[0], NULL, res, NULL,
				      oep->peer, addr, fkey, FI_UINT64,
				      FI_CSWAP, op);
}
