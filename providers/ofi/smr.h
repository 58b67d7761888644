/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfabric 1.17's shm region header (struct smr_region), as the files
 * that read a region from outside libfabric see it: the sweep of stale
 * listener names (shm_sweep.c) and the dead-peer guard (shm_guard.c).
 * Seen in the regions of a streaming pair: a version byte (4 in 1.17),
 * flags, the owner's pid at byte 4, whether CMA (process_vm_writev) works
 * towards its peers at byte 8, a glibc pthread_spinlock_t at 24, the
 * room for commands at 48 (a size_t), the offsets of the command and
 * response queues at 64 and 72, each queue headed by its size, mask,
 * read and write counts.  A region of another version is left alone.
 */
#ifndef DAPL_OFI_SMR_H
#define DAPL_OFI_SMR_H

#include <sys/types.h>

#include "../../udapl/transport.h"

enum {
	SMR_HDR_VERSION = 4,	/* libfabric 1.17's region header */
	SMR_HDR_PID = 4,	/* byte offsets in it */
	SMR_HDR_CMA_PEER = 8,	/* a byte: 0 not known yet, 1 yes, 2 no
				 * (seen: 2 under FI_SHM_DISABLE_CMA=1) */
	SMR_CMA_ON = 1,
	SMR_HDR_LOCK = 24,
	SMR_HDR_CMD_CNT = 48,	/* room for commands, a size_t */
	SMR_HDR_QUEUES = 64,	/* the two queues' offsets, size_t each */
};

/* The process is gone (shm_sweep.c): no such pid, or a zombie nobody has
 * reaped.  A pid out of range is not known to be gone. */
int ofi_smr_pid_gone(long pid) DAPL_HIDDEN;

#endif
