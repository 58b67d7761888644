/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wake-ups: the engine sleeps until something arrives for one of the IA's
 * endpoints, instead of finding it at its next polling round.
 *
 * Why: libfabric's tcp, rxm and shm progress data only when driven.  An
 * RDMA write or read to a peer that calls nothing (a dapltest server, a
 * storage target, an MPI rank computing) completes at the initiator only
 * once the target's library has read it off the socket; with the engine
 * polling, that was its next round, up to DAPL_OFI_POLL_MAX_US (10 ms)
 * after a quiet spell: 2.5 ms per 4 KiB write in dapltest -T P, 1.6 MB/s
 * (issue 38).
 *
 * How: each endpoint gets a wait set of its own (FI_WAIT_FD) and a
 * counter bound to it; binding the counter puts the endpoint's sockets
 * (rxm: its message CQ; tcp MSG: its socket) in the wait set.  The wait
 * sets' fds sit in one epoll fd per IA, which the engine watches.  Before
 * the engine sleeps, ofi_wake_trywait calls fi_trywait on every counter:
 * libfabric's rule before blocking on its fds (it also rearms them).
 *
 * Why a wait set per endpoint, not one per IA, nor the CQs' own wait
 * objects: libfabric 1.17's rxm leaves a closed endpoint's message CQ in
 * every wait set the endpoint was bound to, and the next fi_trywait on
 * that set crashes (reproduced: a CQ or a shared wait set, one endpoint
 * closed, one fi_trywait).  A wait set of the endpoint's own goes with
 * it: it leaves the list before the endpoint closes and is closed after.
 * The counter is bound for FI_REMOTE_WRITE, which no provider here counts
 * (none offers FI_RMA_EVENT): it adds no work and no signal to the data
 * path.
 *
 * shm has no such wait set (no FI_WAIT_FD): its peers write into our
 * memory and signal nothing.  So each shm endpoint gets a doorbell: a
 * datagram socket in the abstract namespace, named after the endpoint's
 * shm name, in the same epoll fd.  A peer that issues an RDMA write or an
 * atomic while nothing else of its EP was outstanding sends the data
 * endpoint an empty datagram (ofi_wake_ring: one system call, only on
 * shm, and not for each operation of a pipeline); each control message
 * (requests, answers, keepalives, key revocations) rings the control or
 * listening endpoint it went to (ofi_wake_ring_addr).  RDMA reads need no
 * doorbell: shm serves them from the initiator (process_vm_readv).  A
 * name another process took first, or any refusal, leaves that endpoint
 * without a wake-up: the engine's polling finds its traffic, as before;
 * a stray datagram from another user only wakes the engine once.  A
 * provider that refuses the counter turns wait sets off for the IA.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ofi.h"

struct ofi_wake {
	struct dapl_list link;		/* oia->wakes */
	struct dapl_tp_ia *oia;
	struct fid_wait *set;		/* a wait set, or */
	struct fid_cntr *cntr;
	int bell;			/* a doorbell (shm): fd is its socket */
	int fd;				/* in oia->wake_epfd */
	int armed;			/* in the list and the epoll set */
	int muted;			/* out of the epoll set (ofi_wake_mute) */
	struct dapl_tp_evd *cq[2];	/* the endpoint's CQs (transmit,
					 * receive), NULL for the IA's own */
	int ctl;			/* a control or listening endpoint's
					 * (the IA's control CQ) */
};

static void ofi_mute_timer(struct dapl_timer *t);
static void ofi_bell_timer(struct dapl_timer *t);

#define OFI_BELL_PREFIX "dapl-ofi-bell:"

/* The doorbell's address for an endpoint's shm name; 0 if too long. */
static socklen_t ofi_bell_addr(struct sockaddr_un *sa, const uint8_t *name,
			       size_t len)
{
	size_t p = sizeof(OFI_BELL_PREFIX) - 1;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!len || 1 + p + len > sizeof(sa->sun_path))
		return 0;
	memcpy(sa->sun_path + 1, OFI_BELL_PREFIX, p); /* abstract: [0] 0 */
	memcpy(sa->sun_path + 1 + p, name, len);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + p +
			   len);
}

/* The engine's callback for the epoll fd, before its round: empties the
 * doorbells that rang (before the round reads the CQs, so that a ring
 * after that read wakes the next one).  Wait sets are rearmed after the
 * round (ofi_wake_trywait). */
static int ofi_wake_fn(void *arg)
{
	struct dapl_tp_ia *oia = arg;
	struct epoll_event ev[16];
	char b;
	int i, n;

	pthread_mutex_lock(&oia->wake_lock);
	n = epoll_wait(oia->wake_epfd, ev, 16, 0);
	for (i = 0; i < n; i++) {
		struct ofi_wake *w = ev[i].data.ptr;

		if (w->bell)
			while (recv(w->fd, &b, sizeof(b), MSG_DONTWAIT) >= 0)
				;
	}
	pthread_mutex_unlock(&oia->wake_lock);
	return 0;
}

/* udapl's progress_fd (transport.h): a blocked dat_evd_wait watches the
 * IA's epoll fd too, and reads its CQ itself when something arrives (the
 * CQ read drives libfabric's progress for the CQ's endpoints), one
 * wake-up before the engine's round would announce it (issue 38).  Over
 * tcp MSG dapltest -T P -m b's median RDMA write went from 35 to 28 and
 * from 43 to 35 us, its read from 41 to 35 (batches of runs, the builds
 * in turn); shm unchanged within the spread; not over rxm (ia.c
 * waiter_reads says why). */
int ofi_progress_fd(struct dapl_ia *ia)
{
	struct dapl_tp_ia *oia = dapl_ia_tp(ia);

	return oia && oia->fab.waiter_reads ? oia->wake_epfd : -1;
}

/* At IA open, before its first endpoint (ia.c set wake_epfd -1, wakes
 * and wake_lock up). */
void ofi_wake_ia_open(struct dapl_tp_ia *oia)
{
	oia->wake_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (oia->wake_epfd >= 0 &&
	    dapl_progress_watch(oia->ia, oia->wake_epfd, ofi_wake_fn, oia)) {
		close(oia->wake_epfd);
		oia->wake_epfd = -1;
	}
	/* while endpoints are muted, a round every OFI_MUTE_CHECK_US (the
	 * engine drops its timers when it stops) */
	dapl_timer_init(&oia->mute_timer, oia->ia, ofi_mute_timer);
	dapl_timer_init(&oia->bell_timer, oia->ia, ofi_bell_timer);
	/* shm: doorbells instead of wait sets, rung from this socket */
	oia->wake_off = oia->wake_epfd < 0 || oia->fab.ep_av;
	if (oia->wake_epfd >= 0 && oia->fab.ep_av)
		oia->bell_tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
						       SOCK_CLOEXEC,
				      0);
}

/* The engine has stopped and every endpoint is closed. */
void ofi_wake_ia_close(struct dapl_tp_ia *oia)
{
	if (oia->wake_epfd >= 0)
		close(oia->wake_epfd);
	oia->wake_epfd = -1;
	if (oia->bell_tx >= 0)
		close(oia->bell_tx);
	oia->bell_tx = -1;
	pthread_mutex_destroy(&oia->wake_lock);
}

static void ofi_wake_free(struct ofi_wake *w)
{
	if (w->bell)
		close(w->fd);
	if (w->cntr)
		fi_close(&w->cntr->fid);
	if (w->set)
		fi_close(&w->set->fid);
	free(w);
}

/* The EVD of a CQ an endpoint is bound to, NULL for the IA's own (the
 * control CQ, null_cq: opened without a context). */
static struct dapl_tp_evd *ofi_wake_ocq(struct fid_cq *cq)
{
	return cq ? cq->fid.context : NULL;
}

/* Before the endpoint's enable: its wake-up, bound to it, or NULL (none:
 * the engine's polling finds its traffic).  tx, rx: its CQs. */
struct ofi_wake *ofi_wake_bind(struct dapl_tp_ia *oia, struct fid_ep *ep,
			       struct fid_cq *tx, struct fid_cq *rx)
{
	struct fi_wait_attr wa = {.wait_obj = FI_WAIT_FD};
	struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP,
				  .wait_obj = FI_WAIT_SET};
	struct ofi_wake *w;
	int rc;

	if (oia->wake_off)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->oia = oia;
	w->cq[0] = ofi_wake_ocq(tx);
	w->cq[1] = ofi_wake_ocq(rx);
	w->ctl = tx && tx == oia->ctl_cq;
	rc = fi_wait_open(oia->fabric, &wa, &w->set);
	if (!rc) {
		ca.wait_set = w->set;
		rc = fi_cntr_open(oia->domain, &ca, &w->cntr, NULL);
	}
	if (!rc)
		rc = fi_control(&w->set->fid, FI_GETWAIT, &w->fd);
	if (!rc)
		rc = fi_ep_bind(ep, &w->cntr->fid, FI_REMOTE_WRITE);
	if (rc) {
		/* the counter is not bound: it closes */
		dapl_dbg(DAPL_DBG_CM, "ofi: %s: no wake-up fd (%s): polled",
			 oia->prov_name, fi_strerror(-rc));
		ofi_wake_free(w);
		oia->wake_off = 1;
		return NULL;
	}
	return w;
}

/* After the endpoint's enable: its fd joins the IA's. */
void ofi_wake_arm(struct ofi_wake *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};
	struct dapl_tp_ia *oia = w ? w->oia : NULL;

	if (!w || epoll_ctl(oia->wake_epfd, EPOLL_CTL_ADD, w->fd, &ev))
		return;
	pthread_mutex_lock(&oia->wake_lock);
	dapl_list_add_tail(&oia->wakes, &w->link);
	w->armed = 1;
	pthread_mutex_unlock(&oia->wake_lock);
	dapl_progress_kick(oia->ia);
}

/* Before the endpoint's close: out of the list (so no fi_trywait runs on
 * it while it closes) and the epoll set. */
void ofi_wake_disarm(struct ofi_wake *w)
{
	struct dapl_tp_ia *oia = w ? w->oia : NULL;

	if (!w || !w->armed)
		return;
	/* under the lock: ofi_wake_fn may hold w from epoll_wait */
	pthread_mutex_lock(&oia->wake_lock);
	dapl_list_del(&w->link);
	w->armed = 0;
	if (w->muted) { /* out of the set already */
		w->muted = 0;
		__atomic_store_n(&oia->muted, oia->muted - 1,
				 __ATOMIC_RELAXED);
	} else {
		epoll_ctl(oia->wake_epfd, EPOLL_CTL_DEL, w->fd, NULL);
	}
	pthread_mutex_unlock(&oia->wake_lock);
}

/* After the endpoint's close. */
void ofi_wake_close(struct ofi_wake *w)
{
	if (w)
		ofi_wake_free(w);
}

/*
 * The engine's round found nothing: may it sleep on the fds?  0 if every
 * endpoint's wait set is armed, 1 if one has something to progress (the
 * engine then comes back at once).  Without wake-ups: 0, the polling
 * decides.
 */
int ofi_wake_trywait(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;
	int busy = 0;

	if (oia->wake_epfd < 0)
		return 0;
	pthread_mutex_lock(&oia->wake_lock);
	dapl_list_for_each_safe(pos, tmp, &oia->wakes) {
		struct ofi_wake *w =
		    dapl_container_of(pos, struct ofi_wake, link);
		struct fid *f = w->cntr ? &w->cntr->fid : NULL;

		/* a muted one's consumer progresses it */
		if (f && !w->muted &&
		    fi_trywait(oia->fabric, &f, 1) == -FI_EAGAIN) {
			busy = 1;
			break;
		}
	}
	pthread_mutex_unlock(&oia->wake_lock);
	return busy;
}

/*
 * A consumer that polls: the engine keeps out of its way.
 *
 * Why: a consumer spinning on dat_evd_dequeue drives libfabric's progress
 * itself (each CQ read progresses the CQ's endpoints); the engine, woken
 * by the same arrival on the endpoint's wait set, then reads the same
 * CQs under the same libfabric locks.  Over tcp;ofi_rxm a 64-byte send
 * ping-pong took 13.6 us (the median of six runs' typical figures) with
 * the wake-ups, 9.8 without them, raw libfabric 10.4 (issue 35).
 *
 * How: each round judges whether a consumer spins on each CQ (spin.h).
 * An endpoint with a spinning CQ, and none armed lately, leaves the
 * epoll set: its arrivals wake nobody, the polling consumer takes them,
 * and the round does not read a spinning CQ (progress.c).  A consumer
 * that arms a CQ to block (ofi_wake_cq_armed) gets its endpoints' wake-ups
 * back at the next round, which it kicks; one that stops polling without
 * blocking in DAT (it computes, or waits on memory) gets them back within
 * OFI_MUTE_CHECK_US, the engine's timer while any endpoint is muted.  A
 * consumer blocked on one CQ of an endpoint (a thread waiting for its
 * receives while another spins on its sends) keeps the endpoint's
 * wake-up on for OFI_ARMED_KEEP_NS after it armed; a wait longer than
 * that may find its endpoint muted again, and its completion then waits
 * for the engine's next round: at most OFI_MUTE_CHECK_US more on a wait
 * of OFI_ARMED_KEEP_NS or longer.  (Over tcp;ofi_rxm a muted endpoint's
 * data moved at the engine's other rounds too: ordering.bats's
 * spun-unpolled passed with the quiet consumer's return removed.)
 */

/* The engine's timer while endpoints are muted: its expiry made the
 * round (ofi_progress: ofi_wake_mute) that gives a quiet consumer's
 * endpoints their wake-ups back; again in OFI_MUTE_CHECK_US if some are
 * still muted. */
static void ofi_mute_timer(struct dapl_timer *t)
{
	struct dapl_tp_ia *oia =
	    dapl_container_of(t, struct dapl_tp_ia, mute_timer);

	if (__atomic_load_n(&oia->muted, __ATOMIC_RELAXED))
		dapl_timer_arm(t, dapl_now_ns() +
				      OFI_MUTE_CHECK_US * 1000ull);
}

static int ofi_cq_spinning(const struct dapl_tp_evd *ocq)
{
	return ocq && __atomic_load_n(&ocq->spinning, __ATOMIC_RELAXED);
}

static int ofi_cq_armed_lately(const struct dapl_tp_evd *ocq, uint64_t now)
{
	return ocq &&
	       ofi_spin_armed_lately(
		   __atomic_load_n(&ocq->armed_ns, __ATOMIC_RELAXED), now);
}

/* w out of the epoll set (mute 1) or back in it (0); oia->wake_lock held.
 * 1 if it changed. */
static int ofi_wake_set_muted(struct dapl_tp_ia *oia, struct ofi_wake *w,
			      int mute)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};

	if (mute == w->muted ||
	    epoll_ctl(oia->wake_epfd, mute ? EPOLL_CTL_DEL : EPOLL_CTL_ADD,
		      w->fd, &ev))
		return 0;
	w->muted = mute;
	__atomic_store_n(&oia->muted, oia->muted + (mute ? 1 : -1),
			 __ATOMIC_RELAXED);
	return 1;
}

/* The engine's round, oia->lock held (it keeps the CQs): 1 if an endpoint
 * got its wake-up back (the engine comes back at once: fi_trywait
 * before it sleeps). */
int ofi_wake_mute(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos, *tmp;
	int back = 0, was, due, served = 0;
	uint64_t now;

	if (oia->wake_epfd < 0)
		return 0;
	due = __atomic_exchange_n(&oia->bells_due, 0, __ATOMIC_ACQ_REL);
	now = dapl_now_ns();
	dapl_list_for_each_safe(pos, tmp, &oia->cqs) {
		struct dapl_tp_evd *ocq =
		    dapl_container_of(pos, struct dapl_tp_evd, ia_link);
		int armed = __atomic_exchange_n(&ocq->waiting, 0,
						__ATOMIC_ACQ_REL);

		__atomic_store_n(
		    &ocq->spinning,
		    ofi_spin_judge(&ocq->spin,
				   __atomic_load_n(&ocq->polls,
						   __ATOMIC_RELAXED),
				   armed, ocq->spinning, now),
		    __ATOMIC_RELAXED);
		/* a consumer that spins serves the control CQ too
		 * (progress.c ofi_progress_ctl) */
		if (ocq->spinning && !ofi_cq_armed_lately(ocq, now))
			served = 1;
		/* the bell timer's round: what is owed rings now
		 * (ofi_wake_ring_op) */
		if (due && __atomic_load_n(&ocq->bell_polls, __ATOMIC_RELAXED))
			ofi_wake_bells_pay(ocq);
	}
	pthread_mutex_lock(&oia->wake_lock);
	was = oia->muted;
	dapl_list_for_each_safe(pos, tmp, &oia->wakes) {
		struct ofi_wake *w =
		    dapl_container_of(pos, struct ofi_wake, link);
		int mute = w->ctl ? served && oia->serve
				  : (ofi_cq_spinning(w->cq[0]) ||
				     ofi_cq_spinning(w->cq[1])) &&
					!ofi_cq_armed_lately(w->cq[0], now) &&
					!ofi_cq_armed_lately(w->cq[1], now);

		if (ofi_wake_set_muted(oia, w, mute) && !mute)
			back = 1;
	}
	pthread_mutex_unlock(&oia->wake_lock);
	/* the first one muted: the timer's first round (it goes on while
	 * any is) */
	if (!was && oia->muted)
		dapl_timer_arm(&oia->mute_timer,
			       now + OFI_MUTE_CHECK_US * 1000ull);
	return back;
}

/* ocq's EVD will block (its cq_arm): not spinning any more, and its
 * endpoints' wake-ups on (ofi_cq_armed_lately); if some are muted, the
 * engine's next round, now, gives them back. */
void ofi_wake_cq_armed(struct dapl_tp_evd *ocq)
{
	__atomic_store_n(&ocq->armed_ns, dapl_now_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&ocq->waiting, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&ocq->oia->muted, __ATOMIC_RELAXED))
		dapl_progress_kick(ocq->oia->ia);
}

/* shm: after an endpoint's enable, its doorbell (its fid context:
 * ofi_ep_close closes it), bound to the name the endpoint has. */
void ofi_wake_bell_open(struct dapl_tp_ia *oia, struct fid_ep *ep,
			struct fid_cq *tx, struct fid_cq *rx,
			const uint8_t *name, size_t len)
{
	struct sockaddr_un sa;
	socklen_t sl = ofi_bell_addr(&sa, name, len);
	struct ofi_wake *w;

	if (oia->bell_tx < 0 || !sl || ep->fid.context)
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->oia = oia;
	w->cq[0] = ofi_wake_ocq(tx);
	w->cq[1] = ofi_wake_ocq(rx);
	w->ctl = tx && tx == oia->ctl_cq;
	w->bell = 1;
	w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0 || bind(w->fd, (struct sockaddr *)&sa, sl)) {
		dapl_dbg(DAPL_DBG_CM, "ofi: shm: no doorbell: polled");
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return;
	}
	ep->fid.context = w;
	ofi_wake_arm(w);
}

/* shm: where oep's peer data endpoint's doorbell is (its shm name). */
void ofi_wake_bell_peer(struct dapl_tp_ep *oep, const uint8_t *name,
			size_t len)
{
	oep->bell_to_len = oep->oia->bell_tx >= 0
			       ? ofi_bell_addr(&oep->bell_to, name, len)
			       : 0;
}

/* An empty datagram to a doorbell; a full queue is rung already, and a
 * doorbell nobody has is nobody to wake. */
static void ofi_bell_ring(int tx, const struct sockaddr_un *sa, socklen_t sl)
{
	(void)!sendto(tx, "", 0, MSG_DONTWAIT | MSG_NOSIGNAL,
		      (const struct sockaddr *)sa, sl);
}

/* shm: rings oep's peer (oep->lock held). */
void ofi_wake_ring(struct dapl_tp_ep *oep)
{
	ofi_bell_ring(oep->oia->bell_tx, &oep->bell_to, oep->bell_to_len);
}

/*
 * An atomic's doorbell, owed for a while.  The doorbell is one system
 * call (sendto) per atomic in a ping-pong: 1.3 us of a 1.7 us
 * fetch-and-add round trip over shm where raw libfabric takes 0.4
 * (issue 35), and of no use when the target's consumer calls libfabric
 * anyway (spins on its CQs, whose reads carry the atomic out).  The
 * initiator cannot see the target, but it needs the atomic's answer,
 * which its consumer gets by polling or waiting on the EP's request EVD.
 * So the doorbell waits on that EVD: for OFI_BELL_POLLS vain polls of it
 * (a few microseconds of spinning: a busy target has answered by then),
 * or until it is armed (its consumer blocks), and at most
 * OFI_BELL_LATEST_US (the IA's bell timer: a consumer that computes, or
 * suppressed the completion and never polls).  A target that calls
 * nothing then gets its wake-up as before, that much later, against the
 * tens of microseconds its engine takes to wake.  RDMA writes ring at
 * once: a target polling its memory may wait for them, and nothing says
 * their initiator polls.
 */
#define OFI_BELL_POLLS 32
#define OFI_BELL_LATEST_US 1000

/* The bell timer: the round it asks for at once (timers run after the
 * round's progress) rings every owed doorbell (ofi_wake_mute); it takes
 * no provider lock itself */
static void ofi_bell_timer(struct dapl_timer *t)
{
	struct dapl_tp_ia *oia =
	    dapl_container_of(t, struct dapl_tp_ia, bell_timer);

	__atomic_store_n(&oia->bells_due, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&oia->bell_timer_on, 0, __ATOMIC_RELEASE);
	dapl_progress_kick(oia->ia);
}

void ofi_wake_ring_op(struct dapl_tp_ep *oep, const struct ofi_op *op)
{
	struct dapl_tp_evd *ocq = oep->sq.ocq;
	struct dapl_tp_ia *oia = oep->oia;

	if (!ocq || (op->op != DAPL_OP_ATOMIC_FETCH_ADD &&
		     op->op != DAPL_OP_ATOMIC_CMP_SWAP)) {
		ofi_wake_ring(oep);
		return;
	}
	dapl_lock(&ocq->bell_lock);
	if (dapl_list_empty(&oep->bell_link)) /* not owed yet */
		dapl_list_add_tail(&ocq->bells, &oep->bell_link);
	__atomic_store_n(&ocq->bell_polls, OFI_BELL_POLLS, __ATOMIC_RELAXED);
	dapl_unlock(&ocq->bell_lock);
	if (!__atomic_exchange_n(&oia->bell_timer_on, 1, __ATOMIC_ACQ_REL))
		dapl_timer_arm(&oia->bell_timer,
			       dapl_now_ns() + OFI_BELL_LATEST_US * 1000ull);
}

void ofi_wake_bells_pay(struct dapl_tp_evd *ocq)
{
	struct dapl_list *pos, *tmp;

	dapl_lock(&ocq->bell_lock);
	__atomic_store_n(&ocq->bell_polls, 0, __ATOMIC_RELAXED);
	dapl_list_for_each_safe(pos, tmp, &ocq->bells) {
		struct dapl_tp_ep *oep =
		    dapl_container_of(pos, struct dapl_tp_ep, bell_link);

		dapl_list_del(&oep->bell_link);
		ofi_wake_ring(oep);
	}
	dapl_unlock(&ocq->bell_lock);
}

void ofi_wake_bell_forget(struct dapl_tp_ep *oep)
{
	struct dapl_tp_evd *ocq = oep->sq.ocq;

	if (!ocq)
		return;
	dapl_lock(&ocq->bell_lock);
	dapl_list_del(&oep->bell_link); /* owed or not: it is its own list */
	dapl_unlock(&ocq->bell_lock);
}

/* shm: rings the doorbell of the endpoint at dest in av, after a control
 * message went there (a connection request to a listener whose process
 * calls nothing, an answer, a window's revocation): control path only,
 * one lookup and one system call.  Elsewhere nothing. */
void ofi_wake_ring_addr(struct dapl_tp_ia *oia, struct fid_av *av,
			fi_addr_t dest)
{
	uint8_t name[OFI_ADDR_MAX];
	size_t len = sizeof(name);
	struct sockaddr_un sa;
	socklen_t sl;

	if (oia->bell_tx < 0 || fi_av_lookup(av, dest, name, &len) ||
	    len > sizeof(name))
		return;
	sl = ofi_bell_addr(&sa, name, len);
	if (sl)
		ofi_bell_ring(oia->bell_tx, &sa, sl);
}
