/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DTO EVDs: one libfabric CQ each (no wait object: ia.c says why).
 *
 * Completions come out of libfabric in any order; each marks its op in
 * its EP's ring (ep.c), and a ring whose oldest op is done joins the
 * CQ's ready list.  cq_poll hands udapl the done ops of the ready rings
 * in posting order.  The engine reads the CQs too (that is libfabric's
 * manual progress, and what lets a fence or an ordered send go out while
 * the consumer is not polling); what it made ready it announces on the
 * EVD's eventfd, the fd udapl's waiters poll.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "ofi.h"
#include "data.h"

enum { OFI_CQ_BATCH = 16 };

/* A failed op's DAT status. */
static DAT_DTO_COMPLETION_STATUS ofi_err_status(const struct ofi_op *op,
						int err)
{
	switch (err) {
	case FI_ETRUNC:
	case FI_EMSGSIZE:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case FI_ECANCELED:
		/* rxm cancels an RMA whose key the target refused; anything
		 * else canceled went with its endpoint (a broken connection:
		 * a send there was flushed, dat_ep_post_send(3DAT)) */
		return op->op == DAPL_OP_RDMA_WRITE ||
			       op->op == DAPL_OP_RDMA_READ ||
			       op->op == DAPL_OP_ATOMIC_FETCH_ADD ||
			       op->op == DAPL_OP_ATOMIC_CMP_SWAP
			   ? DAT_DTO_ERR_REMOTE_ACCESS
			   : DAT_DTO_ERR_FLUSHED;
	case FI_EACCES:
	case FI_EKEYREJECTED:
	case FI_EPERM:
		return DAT_DTO_ERR_REMOTE_ACCESS;
	default:
		return DAT_DTO_ERR_TRANSPORT;
	}
}

/* One completion, err 0 or a positive FI_* code (ofi_err_code); the
 * CQ's lock held, if it has one.  Inline in the CQ's read loop, whose
 * successes pass err 0. */
static inline __attribute__((always_inline)) void
ofi_cq_complete_one(void *ctx, int err, uint32_t len)
{
	struct ofi_op *op = ctx;
	struct dapl_tp_ep *oep;

	if (dapl_unlikely(!op || op->kind != OFI_CTX_OP))
		return;
	oep = op->ring->oep;
	dapl_lock(&oep->lock);
	ofi_op_complete(op, err ? ofi_err_status(op, err) : DAT_DTO_SUCCESS,
			len);
	dapl_unlock(&oep->lock);
}

void ofi_cq_complete(void *ctx, int err, uint32_t len)
{
	ofi_cq_complete_one(ctx, err, len);
}

/*
 * Reads ocq's completions until libfabric has no more.  The first max
 * successes that are the oldest of their ring (the common case: one op
 * at a time, or a provider that completes in order) go straight into
 * cqe, their number in *direct; every other completion marks its op
 * done for ofi_cq_emit (the CQ's ready list).
 */
static int ofi_cq_read_into(struct dapl_tp_evd *ocq, struct dapl_cqe *cqe,
			    int max, int *direct)
{
	struct fi_cq_data_entry ent[OFI_CQ_BATCH];
	int got = 0;
	ssize_t n, i;

	for (;;) {
		n = fi_cq_read(ocq->cq, ent, OFI_CQ_BATCH);
		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry e = {0};

			if (fi_cq_readerr(ocq->cq, &e, 0) != 1)
				break;
			dapl_dbg(DAPL_DBG_EVD, "ofi: DTO error %d (%s)", e.err,
				 fi_strerror(e.err));
			ofi_cq_complete_one(e.op_context,
					    ofi_err_code(e.err), 0);
			got++;
			continue;
		}
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ofi_op *op = ent[i].op_context;
			struct dapl_tp_ep *oep;

			if (*direct >= max || !op || op->kind != OFI_CTX_OP) {
				ofi_cq_complete_one(op, 0,
						    (uint32_t)ent[i].len);
				continue;
			}
			oep = op->ring->oep;
			dapl_lock(&oep->lock);
			if (ofi_op_complete_direct(op, ocq,
						   (uint32_t)ent[i].len,
						   &cqe[*direct]))
				(*direct)++;
			else
				ofi_op_complete(op, DAT_DTO_SUCCESS,
						(uint32_t)ent[i].len);
			dapl_unlock(&oep->lock);
		}
		got += (int)n;
		if (n < OFI_CQ_BATCH)
			break;
	}
	return got;
}

int ofi_cq_read_locked(struct dapl_tp_evd *ocq)
{
	int none = 0;

	return ofi_cq_read_into(ocq, NULL, 0, &none);
}

void ofi_cq_notify(struct dapl_tp_evd *ocq)
{
	uint64_t one = 1;

	if (write(ocq->notify_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "ofi: eventfd write: %d", errno);
}

static int ofi_poll_direct(void *cq, int max, void *rec);

/* udapl's dequeue reads a struct dapl_cqe through ofi_poll_direct */
static void ofi_cq_set_direct(struct dapl_evd *evd, struct dapl_tp_evd *ocq)
{
	const struct dapl_cq_direct d = {
	    .poll = ofi_poll_direct,
	    .cq = ocq,
	    .status_off = offsetof(struct dapl_cqe, status),
	    .len_off = offsetof(struct dapl_cqe, byte_len),
	    .status_ok = DAT_DTO_SUCCESS,
	};

	_Static_assert(sizeof(struct dapl_cqe) <= DAPL_CQ_DIRECT_REC &&
			   offsetof(struct dapl_cqe, wr_id) == 0 &&
			   sizeof(((struct dapl_cqe *)0)->wr_id) == 8 &&
			   sizeof(((struct dapl_cqe *)0)->status) == 4 &&
			   sizeof(((struct dapl_cqe *)0)->byte_len) == 4,
		       "struct dapl_cq_direct's record rules");
	dapl_evd_set_cq_direct(evd, &d);
}

DAT_RETURN ofi_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen, int *fd)
{
	struct dapl_tp_ia *oia = ofi_ia_of(evd);
	struct dapl_tp_evd *ocq = calloc(1, sizeof(*ocq));
	struct fi_cq_attr ca = {
	    .format = FI_CQ_FORMAT_DATA,
	    .wait_obj = FI_WAIT_NONE,
	};
	int rc;

	if (!ocq)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	/* completions leave the libfabric CQ at every read, into the
	 * rings: its size only bounds a burst between two reads */
	ca.size = *qlen < 256 ? 256 : (size_t)*qlen;
	/* its context: ocq, for the wake-ups of its endpoints (wake.c) */
	rc = fi_cq_open(oia->domain, &ca, &ocq->cq, ocq);
	if (rc) {
		free(ocq);
		return ofi_fi_err(rc, DAT_RESOURCE_TEVD);
	}
	ocq->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ocq->notify_fd < 0) {
		fi_close(&ocq->cq->fid);
		free(ocq);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	dapl_lock_init(&ocq->lock);
	dapl_list_init(&ocq->ready);
	dapl_lock_init(&ocq->bell_lock);
	dapl_list_init(&ocq->bells);
	dapl_lock_init(&ocq->kick_lock);
	dapl_list_init(&ocq->kicks);
	ocq->evd = evd;
	ocq->oia = oia;
	pthread_mutex_lock(&oia->lock);
	dapl_list_add_tail(&oia->cqs, &ocq->ia_link);
	pthread_mutex_unlock(&oia->lock);
	dapl_evd_set_tp(evd, ocq);
	ofi_cq_set_direct(evd, ocq);
	*fd = ocq->notify_fd;
	return DAT_SUCCESS;
}

/* The rings hold the completions: any size is fine. */
DAT_RETURN ofi_cq_resize(struct dapl_evd *evd, DAT_COUNT *qlen)
{
	(void)qlen;
	return dapl_evd_tp(evd) ? DAT_SUCCESS
				: DAPL_ERR(DAT_INVALID_STATE, 0);
}

/* No EP uses the EVD any more (udapl counts them). */
void ofi_cq_destroy(struct dapl_evd *evd)
{
	struct dapl_tp_evd *ocq = dapl_evd_tp(evd);
	struct dapl_tp_ia *oia;

	if (!ocq)
		return;
	oia = ocq->oia;
	pthread_mutex_lock(&oia->lock);
	dapl_list_del(&ocq->ia_link);
	pthread_mutex_unlock(&oia->lock);
	dapl_evd_set_cq_direct(evd, NULL);
	dapl_evd_set_tp(evd, NULL);
	fi_close(&ocq->cq->fid);
	close(ocq->notify_fd);
	dapl_lock_destroy(&ocq->lock);
	dapl_lock_destroy(&ocq->bell_lock);
	dapl_lock_destroy(&ocq->kick_lock);
	free(ocq);
}

/* Hands out the done ops of the ready rings, oldest first per ring. */
static int ofi_cq_emit(struct dapl_tp_evd *ocq, struct dapl_cqe *cqe, int max)
{
	struct dapl_list *pos, *tmp;
	int n = 0;

	dapl_list_for_each_safe(pos, tmp, &ocq->ready) {
		struct ofi_ring *r =
		    dapl_container_of(pos, struct ofi_ring, ready_link);
		struct dapl_tp_ep *oep = r->oep;

		dapl_lock(&oep->lock);
		while (n < max) {
			struct ofi_op *op = &r->op[r->emitted & (r->size - 1)];

			if (r->emitted == r->posted ||
			    op->state != OFI_OP_DONE)
				break;
			cqe[n].wr_id = op->wr_id;
			/* as on verbs: after the first failure of a ring, what
			 * else fails is flushed (rxm fails every write in
			 * flight to a dead peer, each in its own way) */
			if (dapl_unlikely(op->status != DAT_DTO_SUCCESS)) {
				if (r->failed)
					op->status = DAT_DTO_ERR_FLUSHED;
				else if (op->status != DAT_DTO_ERR_FLUSHED)
					r->failed = 1;
			}
			cqe[n].status = op->status;
			cqe[n].byte_len = op->len;
			cqe[n].ep = NULL;
			n++;
			op->state = OFI_OP_FREE;
			r->emitted++;
		}
		if (r->emitted == r->posted ||
		    r->op[r->emitted & (r->size - 1)].state != OFI_OP_DONE) {
			dapl_list_del(&r->ready_link);
			r->on_ready = 0;
		}
		dapl_unlock(&oep->lock);
		if (n == max)
			break;
	}
	return n;
}

/*
 * Who issues a request the engine let go (a key's answer, a retry after
 * -FI_EAGAIN): the consumer that spins on the EP's request EVD, at its
 * next poll, else the engine.  Why: libfabric's shm guards an endpoint
 * with spin locks, and a consumer pinned to a core with its engine
 * thread (taskset, an MPI rank per core) is inside fi_cq_read, holding
 * them, most of the time it spins; an engine woken onto that core then
 * spun in pthread_spin_lock for the rest of its time slice (1-20 ms a
 * time: make bench's fresh_read, a registration per 128 KiB fragment,
 * moved 118 MB/s over shm where raw libfabric moved 7,400).  A consumer
 * that stops polling gets the engine back for its rings within a round
 * of the verdict (spin.h, progress.c).
 */
void ofi_cq_kick_owe(struct dapl_tp_ep *oep)
{
	struct dapl_tp_evd *ocq = oep->sq.ocq;

	if (ocq && __atomic_load_n(&ocq->spinning, __ATOMIC_RELAXED)) {
		dapl_lock(&ocq->kick_lock);
		if (dapl_list_empty(&oep->kick_link))
			dapl_list_add_tail(&ocq->kicks, &oep->kick_link);
		__atomic_store_n(&ocq->kicks_owed, 1, __ATOMIC_RELEASE);
		dapl_unlock(&ocq->kick_lock);
		return;
	}
	dapl_lock(&oep->lock);
	if (oep->fep)
		ofi_ring_kick(&oep->sq);
	dapl_unlock(&oep->lock);
}

void ofi_cq_kicks_pay(struct dapl_tp_evd *ocq)
{
	struct dapl_list *pos, *tmp;

	dapl_lock(&ocq->kick_lock);
	__atomic_store_n(&ocq->kicks_owed, 0, __ATOMIC_RELAXED);
	dapl_list_for_each_safe(pos, tmp, &ocq->kicks) {
		struct dapl_tp_ep *oep =
		    dapl_container_of(pos, struct dapl_tp_ep, kick_link);

		dapl_list_del(&oep->kick_link);
		dapl_lock(&oep->lock);
		if (oep->fep)
			ofi_ring_kick(&oep->sq);
		dapl_unlock(&oep->lock);
	}
	dapl_unlock(&ocq->kick_lock);
}

void ofi_cq_kick_forget(struct dapl_tp_ep *oep)
{
	struct dapl_tp_evd *ocq = oep->sq.ocq;

	if (!ocq)
		return;
	dapl_lock(&ocq->kick_lock);
	dapl_list_del(&oep->kick_link); /* owed or not: its own list */
	dapl_unlock(&ocq->kick_lock);
}

/* A vain poll with doorbells owed: one poll nearer to ringing them */
static __attribute__((noinline, cold)) void
ofi_poll_bells(struct dapl_tp_evd *ocq)
{
	unsigned n = __atomic_load_n(&ocq->bell_polls, __ATOMIC_RELAXED);

	if (n > 1)
		__atomic_store_n(&ocq->bell_polls, n - 1, __ATOMIC_RELAXED);
	else if (n)
		ofi_wake_bells_pay(ocq);
}

/* ocq locked: a consumer polls.  The engine's round counts these (wake.c:
 * a consumer that spins or streams makes many, a waiter a few before it
 * arms).  Every poll counts, not only those that find nothing: a
 * consumer whose every dequeue finds a completion (a bandwidth loop over
 * shm, where a CMA write completes in its post) polls as surely as one
 * that spins on an empty EVD, and a round that judged it idle read its
 * CQ in its place, at the engine's shortest interval, on the consumer's
 * core (write_bw at 64 KiB: 7,566 context switches against raw
 * libfabric's 872, 0.65 of raw's bandwidth). */
static inline void ofi_cq_polled(struct dapl_tp_evd *ocq)
{
	__atomic_store_n(&ocq->polls, ocq->polls + 1, __ATOMIC_RELAXED);
	if (dapl_unlikely(__atomic_load_n(&ocq->kicks_owed, __ATOMIC_ACQUIRE)))
		ofi_cq_kicks_pay(ocq); /* out of line already */
}

/* ocq locked: a consumer's poll found nothing: doorbells owed on this
 * EVD come one poll nearer (wake.c ofi_wake_ring_op). */
static inline void ofi_cq_vain(struct dapl_tp_evd *ocq)
{
	if (dapl_unlikely(__atomic_load_n(&ocq->bell_polls, __ATOMIC_RELAXED)))
		ofi_poll_bells(ocq);
}

/* A consumer's polls serve the IA's control path every so many polls
 * (progress.c ofi_progress_ctl says why), and the next poll after an
 * RDMA of this EVD's EPs wanted a key (serve_now, ep.c); a power of 2.
 * The test costs a poll about 4 instructions, the serving (one poll in
 * 64) 1-3 a round of the callgrind loop, and a control message waits
 * for a spinning consumer a few us (results/2026-12-03-keys-ofi.md). */
#define OFI_SERVE_POLLS 64u

static __attribute__((noinline, cold)) void
ofi_cq_serve(struct dapl_tp_evd *ocq)
{
	struct dapl_tp_ia *oia = ocq->oia;

	__atomic_store_n(&ocq->serve_now, 0, __ATOMIC_RELAXED);
	if (oia->serve)
		oia->serve(oia);
}

/* Before a poll takes ocq's lock (the serving takes oia->lock, which
 * comes first): does it serve?  The count is read unlocked: a poll more
 * or less decides nothing.  Served before the poll rather than after it,
 * the poll's own paths keep their tail calls (ofi_poll_take). */
static inline void ofi_cq_serve_maybe(struct dapl_tp_evd *ocq)
{
	if (dapl_unlikely(!(__atomic_load_n(&ocq->polls, __ATOMIC_RELAXED) &
			    (OFI_SERVE_POLLS - 1)) ||
			  __atomic_load_n(&ocq->serve_now, __ATOMIC_RELAXED)))
		ofi_cq_serve(ocq);
}

/* ocq locked: cq_poll's work */
static int ofi_cq_poll_locked(struct dapl_tp_evd *ocq, struct dapl_cqe *cqe,
			      int max)
{
	int n = 0;

	/* what waits on the ready list first (older than anything read
	 * now in its ring), then what libfabric has, then what that read
	 * made ready */
	if (dapl_unlikely(!dapl_list_empty(&ocq->ready)))
		n = ofi_cq_emit(ocq, cqe, max);
	if (n < max) {
		int direct = 0;

		ofi_cq_read_into(ocq, cqe + n, max - n, &direct);
		n += direct;
		if (n < max && !dapl_list_empty(&ocq->ready))
			n += ofi_cq_emit(ocq, cqe + n, max - n);
	}
	if (!n)
		ofi_cq_vain(ocq);
	return n;
}

int ofi_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe, int max)
{
	struct dapl_tp_evd *ocq = dapl_evd_tp(evd);
	int n;

	if (dapl_unlikely(!ocq))
		return -1;
	ofi_cq_serve_maybe(ocq);
	dapl_lock(&ocq->lock);
	ofi_cq_polled(ocq);
	n = ofi_cq_poll_locked(ocq, cqe, max);
	dapl_unlock(&ocq->lock);
	return n;
}

/* ocq locked: cq_poll's way for the direct poll, unlocking */
static __attribute__((noinline)) int
ofi_poll_general(struct dapl_tp_evd *ocq, struct dapl_cqe *cqe, int max)
{
	int n = ofi_cq_poll_locked(ocq, cqe, max);

	dapl_unlock(&ocq->lock);
	return n;
}

/* ocq locked: the one completion the direct poll read (rec holds its
 * struct fi_cq_data_entry), handed over in place as a struct dapl_cqe
 * if it is the oldest of its ring; unlocks */
static __attribute__((noinline)) int ofi_poll_take(struct dapl_tp_evd *ocq,
						   void *rec)
{
	const struct fi_cq_data_entry *ent = rec;
	struct ofi_op *op = ent->op_context;
	uint32_t len = (uint32_t)ent->len;
	struct dapl_tp_ep *oep;
	int n;

	if (dapl_unlikely(!op || op->kind != OFI_CTX_OP))
		return ofi_poll_general(ocq, rec, 1);
	oep = op->ring->oep;
	dapl_lock(&oep->lock);
	/* (op and len are read: the record may be overwritten) */
	n = ofi_op_complete_direct(op, ocq, len, rec);
	if (dapl_unlikely(!n))
		ofi_op_complete(op, DAT_DTO_SUCCESS, len);
	dapl_unlock(&oep->lock);
	if (dapl_unlikely(!n))
		return ofi_poll_general(ocq, rec, 1);
	dapl_unlock(&ocq->lock);
	return 1;
}

/*
 * udapl's direct poll of a dequeue (transport.h, struct dapl_cq_direct):
 * the record is a struct dapl_cqe (the wr_id at 0, the DAT status at 8,
 * the byte count at 12), status_ok DAT_DTO_SUCCESS.  The common case,
 * one libfabric completion of the oldest op of its ring with nothing on
 * the CQ's ready list, takes one fi_cq_read of one entry, into the
 * record itself, and the op completed straight into it
 * (ofi_poll_take); anything else (a ready list, an error, an op
 * completed out of order) goes cq_poll's way, with the same result.  A
 * poll that finds nothing, what a spinning consumer does most, is this
 * frame alone.
 */
static int ofi_poll_direct(void *cq, int max, void *rec)
{
	struct dapl_tp_evd *ocq = cq;
	ssize_t got;

	_Static_assert(sizeof(struct fi_cq_data_entry) <= DAPL_CQ_DIRECT_REC,
		       "the direct poll reads into udapl's record");
	/* one record, whatever max says: rec holds DAPL_CQ_DIRECT_REC
	 * bytes (udapl asks for one) */
	(void)max;
	ofi_cq_serve_maybe(ocq);
	dapl_lock(&ocq->lock);
	ofi_cq_polled(ocq);
	if (dapl_unlikely(!dapl_list_empty(&ocq->ready)))
		return ofi_poll_general(ocq, rec, 1);
	got = fi_cq_read(ocq->cq, rec, 1);
	if (got == 1)
		return ofi_poll_take(ocq, rec);
	if (dapl_unlikely(got != -FI_EAGAIN)) /* -FI_EAVAIL: an error */
		return ofi_poll_general(ocq, rec, 1);
	ofi_cq_vain(ocq);
	dapl_unlock(&ocq->lock);
	return 0;
}

/* A record of the direct poll that udapl did not take (an error, an
 * atomic, a bind): it is a struct dapl_cqe already. */
void ofi_cq_direct_cqe(struct dapl_evd *evd, const void *rec,
		       struct dapl_cqe *cqe)
{
	(void)evd;
	memcpy(cqe, rec, sizeof(*cqe));
}

/* The eventfd is written whenever something became ready: nothing to
 * arm. */
DAT_RETURN ofi_cq_arm(struct dapl_evd *evd, int solicited_only)
{
	struct dapl_tp_evd *ocq = dapl_evd_tp(evd);

	(void)solicited_only;
	if (!ocq)
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	/* a consumer will block on it: its endpoints' wake-ups back on,
	 * and the doorbells it owes rung */
	ofi_wake_cq_armed(ocq);
	if (__atomic_load_n(&ocq->bell_polls, __ATOMIC_RELAXED))
		ofi_wake_bells_pay(ocq);
	/* a key query left to its polls (ep.c): the engine's now */
	if (__atomic_load_n(&ocq->serve_now, __ATOMIC_RELAXED))
		dapl_progress_kick(ocq->oia->ia);
	return DAT_SUCCESS;
}

void ofi_cq_ack(struct dapl_evd *evd)
{
	struct dapl_tp_evd *ocq = dapl_evd_tp(evd);
	uint64_t v;

	if (ocq && read(ocq->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "ofi: eventfd read: %d", errno);
}
