/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the EVD's two files share: the object and its software events
 * (evd.c), and the consumer's dequeue and wait (evd_dequeue.c).  The
 * ring's push and pop are inline here, so that the dequeue still inlines
 * them as it did when both halves were one file.
 */
#ifndef DAT_UDAPL_EVD_INT_H
#define DAT_UDAPL_EVD_INT_H

#include "udapl.h"

/* The subtype libdat's wrappers give a NULL EVD handle (the reference's
 * DAT_INVALID_HANDLE1), so that both checks answer alike. */
#define BAD_EVD DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1)

/* ---- the ring ---- */

static inline void ring_push(struct dapl_event_ring *r, const DAT_EVENT *ev)
{
	r->ev[(r->head + r->count) % r->size] = *ev;
	r->count++;
}

static inline void ring_pop(struct dapl_event_ring *r, DAT_EVENT *ev)
{
	*ev = r->ev[r->head];
	r->head = (r->head + 1) % r->size;
	r->count--;
}

static inline int evd_has_cq(const struct dapl_evd *evd)
{
	return evd->cq_fd >= 0;
}

/* evd_dequeue.c: the CQ's completions into the ring (all but keep of
 * its free slots), under evd->lock.  evd.c puts them ahead of a
 * connection's end: dat_ep_disconnect(3DAT) "If the same EVD is used for
 * connect_evd_handle and any recv_evd_handle and request_evd_handle, all
 * successful Completion events of in-progress DTOs precede the
 * Disconnect Completion event" -- a dequeue takes the ring first, so the
 * end went ahead of the completions still in the CQ. */
void dapl_evd_fill_locked(struct dapl_evd *evd, int keep);

#endif
