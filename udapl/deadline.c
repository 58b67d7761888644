/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The deadline of a blocking DAT call (dat_evd_wait, dat_cno_wait): its
 * DAT_TIMEOUT, in microseconds or DAT_TIMEOUT_INFINITE, turned into an
 * instant on the monotonic clock once, so that each poll(2) after a
 * wake-up that brought nothing waits only for what is left.  Below the
 * EVD and the CNO, which both wait this way.
 */
#include <time.h>

#include "udapl.h"

void dapl_deadline_set(struct dapl_deadline *d, DAT_TIMEOUT timeout)
{
	d->infinite = timeout == DAT_TIMEOUT_INFINITE;
	clock_gettime(CLOCK_MONOTONIC, &d->at);
	d->at.tv_sec += timeout / 1000000;
	d->at.tv_nsec += (long)(timeout % 1000000) * 1000;
	if (d->at.tv_nsec >= 1000000000) {
		d->at.tv_sec++;
		d->at.tv_nsec -= 1000000000;
	}
}

int dapl_deadline_ms(const struct dapl_deadline *d)
{
	struct timespec now;
	long long ns;

	if (d->infinite)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(d->at.tv_sec - now.tv_sec) * 1000000000LL +
	     (d->at.tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return 0;
	return (int)((ns + 999999) / 1000000);
}
