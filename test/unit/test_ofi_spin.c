/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of providers/ofi/spin.h: the engine's verdict, at each
 * round, on whether a consumer spins on a CQ (wake.c then takes the
 * CQ's endpoints out of its epoll set).  Rounds are fed by hand: the
 * count of vain polls, whether the CQ was armed, the time.
 */
#include <limits.h>

#include "../../providers/ofi/spin.h"
#include "tap.h"

#define US 1000ull

int main(void)
{
	struct ofi_spin s = {0, 0};
	uint64_t t = 1000000 * US;
	int v = 0;

	/* a waiter: one or two vain polls before it arms, then the arm */
	v = ofi_spin_judge(&s, 2, 0, v, t);
	tap_ok(!v, "two vain polls since the last round: not spinning");
	v = ofi_spin_judge(&s, 2 + OFI_SPIN_POLLS - 1, 0, v, t + 10 * US);
	tap_ok(!v, "OFI_SPIN_POLLS - 1 more: not spinning");
	v = ofi_spin_judge(&s, 2 + 2 * OFI_SPIN_POLLS, 0, v, t + 20 * US);
	tap_ok(v, "OFI_SPIN_POLLS more since the last round: spinning");

	/* in between, the verdict stays */
	v = ofi_spin_judge(&s, 3 + 2 * OFI_SPIN_POLLS, 0, v, t + 30 * US);
	tap_ok(v, "one more poll (a round that came soon): still spinning");
	v = ofi_spin_judge(&s, 3 + 2 * OFI_SPIN_POLLS, 0, v,
			   t + 30 * US + OFI_MUTE_CHECK_US * US - 1);
	tap_ok(v, "no poll for just under OFI_MUTE_CHECK_US (a preempted "
		  "consumer): still spinning");
	v = ofi_spin_judge(&s, 3 + 2 * OFI_SPIN_POLLS, 0, v,
			   t + 30 * US + OFI_MUTE_CHECK_US * US);
	tap_ok(!v, "no poll for OFI_MUTE_CHECK_US: not spinning (it "
		   "computes, or waits on memory)");

	/* armed: not spinning at once, however many polls */
	t += 10000 * US;
	v = ofi_spin_judge(&s, 100, 0, v, t);
	tap_ok(v, "spinning again");
	v = ofi_spin_judge(&s, 200, 1, v, t + 5 * US);
	tap_ok(!v, "armed since the last round: not spinning, whatever the "
		   "polls");
	v = ofi_spin_judge(&s, 201, 0, v, t + 10 * US);
	tap_ok(!v, "the next round, one poll: not spinning");

	/* the count wraps */
	s.seen = ULONG_MAX - 1;
	v = ofi_spin_judge(&s, OFI_SPIN_POLLS - 2, 0, 0, t + 20 * US);
	tap_ok(v, "the count wrapped past ULONG_MAX: OFI_SPIN_POLLS polls "
		  "still counted");

	/* armed lately */
	tap_ok(!ofi_spin_armed_lately(0, t), "never armed: not lately");
	tap_ok(ofi_spin_armed_lately(t, t + OFI_ARMED_KEEP_NS - 1),
	       "armed just under OFI_ARMED_KEEP_NS ago: lately");
	tap_ok(!ofi_spin_armed_lately(t, t + OFI_ARMED_KEEP_NS),
	       "armed OFI_ARMED_KEEP_NS ago: not lately");
	return tap_done();
}
