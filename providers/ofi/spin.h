/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Does a consumer spin on a CQ?  The engine's verdict at each round
 * (wake.c ofi_wake_mute), apart so that a host unit test can drive it
 * (test/unit/test_ofi_spin.c).
 *
 * A consumer spinning on dat_evd_dequeue drives libfabric's progress
 * itself; an endpoint whose CQ it spins on needs no wake-up of the engine
 * for its arrivals, and one would only make the engine read the same CQs
 * under the same libfabric locks (wake.c says what that cost).
 *
 * cq.c counts the consumer's polls (ofi_cq_polled).  A round calls the CQ
 * spinning when OFI_SPIN_POLLS or more came since the round before (a
 * waiter makes one or two before it arms), not spinning when it was armed
 * since (a consumer about to block) or when no poll came for
 * OFI_MUTE_CHECK_US (it computes, or waits on memory); in between the
 * verdict stays, so that a round that came soon after the last one, or
 * while the consumer's thread was preempted, does not flip it.
 */
#ifndef DAPL_OFI_SPIN_H
#define DAPL_OFI_SPIN_H

#include <stdint.h>

#define OFI_SPIN_POLLS 4
#define OFI_MUTE_CHECK_US 1000
/* a CQ armed this lately keeps its endpoints' wake-ups on (wake.c) */
#define OFI_ARMED_KEEP_NS 10000000ull

struct ofi_spin {
	unsigned long seen;	/* the polls' count at the last round */
	uint64_t moved_ns;	/* when a round saw it move last */
};

/* One round's verdict on a CQ: its polls' count now, whether it was
 * armed since the last round, the verdict before; the new verdict. */
static inline int ofi_spin_judge(struct ofi_spin *s, unsigned long polls,
				 int armed, int spinning, uint64_t now)
{
	if (armed) {
		spinning = 0;
	} else if (polls != s->seen) {
		if (polls - s->seen >= OFI_SPIN_POLLS)
			spinning = 1;
		s->moved_ns = now;
	} else if (now - s->moved_ns >= OFI_MUTE_CHECK_US * 1000ull) {
		spinning = 0;
	}
	s->seen = polls;
	return spinning;
}

/* Whether a CQ armed at armed_ns (0: never) was armed lately. */
static inline int ofi_spin_armed_lately(uint64_t armed_ns, uint64_t now)
{
	return armed_ns && now - armed_ns < OFI_ARMED_KEEP_NS;
}

#endif
