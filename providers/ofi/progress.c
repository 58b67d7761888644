/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the progress engine calls: ofi_progress every polling round.  One
 * round, under oia->lock: which CQs a consumer spins on (wake.c), the
 * control CQ (our connection protocol), the control sends -FI_EAGAIN
 * held back, the timers, every other data CQ (libfabric's manual
 * progress: an RDMA write to a target that is not polling completes
 * because the target's engine reads its CQs), and the work EPs asked
 * for; if it found nothing, the endpoints' wait sets rearmed (wake.c).
 * Then, without the lock, the upcalls.  ofi_progress_ctl: the control
 * CQ's part of a round, which a consumer's polls run (cq.c).
 */
#include "ofi.h"
#include "data.h"
#include "wire.h"
#include "cm.h"

int ofi_progress(struct dapl_ia *ia)
{
	struct dapl_tp_ia *oia = dapl_ia_tp(ia);
	struct dapl_list *pos, *tmp;
	int did = 0, i;

	if (!oia)
		return 0;
	pthread_mutex_lock(&oia->lock);
	/* which CQs a consumer spins on: their endpoints' wake-ups off, the
	 * others' on (wake.c), before the CQs below are read or left */
	did += ofi_wake_mute(oia);
	did += ofi_ctl_drain(oia);
	ofi_ctl_backlog(oia);
	did += ofi_ctl_repost(oia);
	if (ofi_is_msg(oia)) /* msg.c: events, control messages */
		did += ofi_msg_progress(oia, dapl_now_ns());
	ofi_cm_timers(oia, dapl_now_ns());
	/* shm: a new control endpoint when the AV fills, the old ones
	 * closed once nothing is left on them (gen.c) */
	ofi_gen_roll(oia);
	ofi_gens_reap(oia);
	dapl_list_for_each_safe(pos, tmp, &oia->cqs) {
		struct dapl_tp_evd *ocq =
		    dapl_container_of(pos, struct dapl_tp_evd, ia_link);
		int n;

		/* a consumer polls it: its completions are the consumer's
		 * to read (wake.c ofi_wake_mute) */
		if (__atomic_load_n(&ocq->spinning, __ATOMIC_RELAXED)) {
			/* its poller owes kicks (cq.c): come back soon, in
			 * case it stopped polling (the verdict then changes
			 * and the round below pays them) */
			did += __atomic_load_n(&ocq->kicks_owed,
					       __ATOMIC_RELAXED);
			continue;
		}
		dapl_lock(&ocq->lock);
		/* owed to a poller that stopped polling (cq.c) */
		if (__atomic_load_n(&ocq->kicks_owed, __ATOMIC_ACQUIRE))
			ofi_cq_kicks_pay(ocq);
		n = ofi_cq_read_locked(ocq);
		if (n && !dapl_list_empty(&ocq->ready))
			ofi_cq_notify(ocq);
		dapl_unlock(&ocq->lock);
		did += n;
	}
	/* EPs without an EVD for one direction complete into null_cq; a
	 * failure there still breaks the connection (ofi_op_complete) */
	{
		struct fi_cq_data_entry ent[16];
		ssize_t n;

		while ((n = fi_cq_read(oia->null_cq, ent, 16)) > 0 ||
		       n == -FI_EAVAIL) {
			if (n == -FI_EAVAIL) {
				struct fi_cq_err_entry e = {0};

				if (fi_cq_readerr(oia->null_cq, &e, 0) != 1)
					break;
				ofi_cq_complete(e.op_context,
						ofi_err_code(e.err), 0);
				did++;
				continue;
			}
			for (i = 0; i < n; i++)
				ofi_cq_complete(ent[i].op_context, 0, 0);
			did += (int)n;
		}
	}
	/* (the EPs' OFI_WORK_KEYS: ofi_ep_work; oia->keys_wanted stays for
	 * the next consumer's serving, which then finds nothing: cleared
	 * here, it could be cleared just after an RDMA set it and that
	 * RDMA's EP was passed, and the query would wait for a round) */
	dapl_list_for_each_safe(pos, tmp, &oia->eps) {
		struct dapl_tp_ep *oep =
		    dapl_container_of(pos, struct dapl_tp_ep, ia_link);
		int w;

		if (!__atomic_load_n(&oep->work, __ATOMIC_ACQUIRE))
			continue;
		w = ofi_ep_work(oep);
		if (w == 2)
			ofi_conn_broken(oep);
		else if (w == 3)
			ofi_conn_peer_gone(oep);
		did += w;
	}
	did += !dapl_list_empty(&oia->notes);
	/* nothing found: rearm the endpoints' wake-ups before the engine
	 * sleeps (wake.c), or come back at once */
	if (!did)
		did = ofi_wake_trywait(oia);
	pthread_mutex_unlock(&oia->lock);
	ofi_notes_deliver(oia);
	return did;
}

/* oia->lock held, the EP's OFI_WORK_KEYS taken: the peer is asked
 * about each key an RDMA waits for (KEYQ; cm.c answers KEYR) */
static void ofi_ep_ask_keys(struct dapl_tp_ep *oep)
{
	uint32_t ask[OFI_KEYCACHE];
	struct ofi_wire m;
	int nask = 0, i;

	dapl_lock(&oep->lock);
	for (i = 0; i < OFI_KEYCACHE; i++)
		if (oep->keys[i].state == OFI_KEY_WANTED) {
			oep->keys[i].state = OFI_KEY_ASKED;
			ask[nask++] = oep->keys[i].key;
		}
	dapl_unlock(&oep->lock);
	for (i = 0; i < nask && oep->conn; i++) {
		ofi_wire_init(oep->oia, &m, OFI_MSG_KEYQ);
		m.src_id = oep->conn->id;
		m.dst_id = oep->conn->peer_id;
		m.key = ask[i];
		ofi_ctl_send(oep->oia, oep->conn->gen, oep->conn->peer_ctl,
			     oep->conn->id, &m);
	}
}

/* oia->lock held: the keys RDMAs wait for (ofi_rma_addr) asked about */
static void ofi_keys_ask_all(struct dapl_tp_ia *oia)
{
	struct dapl_list *pos;

	if (!__atomic_exchange_n(&oia->keys_wanted, 0, __ATOMIC_ACQ_REL))
		return;
	for (pos = oia->eps.next; pos != &oia->eps; pos = pos->next) {
		struct dapl_tp_ep *oep =
		    dapl_container_of(pos, struct dapl_tp_ep, ia_link);

		if (__atomic_load_n(&oep->work, __ATOMIC_ACQUIRE) &
		    OFI_WORK_KEYS) {
			__atomic_fetch_and(&oep->work, ~(uint32_t)OFI_WORK_KEYS,
					   __ATOMIC_ACQ_REL);
			ofi_ep_ask_keys(oep);
		}
	}
}

/*
 * The control path's part of a round, run by a consumer that polls an
 * EVD (cq.c ofi_cq_serve: every OFI_SERVE_POLLS of its polls, and the
 * next one after an RDMA of its EPs wanted a key), if neither the engine
 * nor another consumer is in a round.  Why: a peer's
 * key query, its answer, and a key's revocation waited for this IA's
 * engine to wake, and the engine shares a core with a consumer that
 * spins; over shm each such wake-up cost 100 us to 1 ms, two to four of
 * them per fresh key (issue 35, fresh_read: 86 MB/s against raw
 * libfabric's 5,500).  A consumer that spins drains the control CQ
 * within OFI_SERVE_POLLS polls instead, and asks for the keys its RDMAs
 * wait for.  The upcalls it leaves owed are the engine's to make (this
 * thread may hold the EVD's lock).
 */
void ofi_progress_ctl(struct dapl_tp_ia *oia)
{
	int notes;

	if (pthread_mutex_trylock(&oia->lock))
		return;
	if (ofi_ctl_drain(oia))
		ofi_ctl_backlog(oia);
	ofi_keys_ask_all(oia);
	notes = !dapl_list_empty(&oia->notes);
	pthread_mutex_unlock(&oia->lock);
	if (notes)
		dapl_progress_kick(oia->ia);
}

int ofi_ep_work(struct dapl_tp_ep *oep)
{
	uint32_t w = __atomic_exchange_n(&oep->work, 0, __ATOMIC_ACQ_REL);

	if (!w)
		return 0;
	/* the peer died in a lock: nothing more for it (the connection's
	 * end flushes what waits, ofi_conn_peer_gone) */
	if (w & OFI_WORK_DEAD)
		return 3;
	if (w & OFI_WORK_RETRY) {
		dapl_lock(&oep->lock);
		if (oep->fep)
			ofi_ring_kick(&oep->rq);
		dapl_unlock(&oep->lock);
		ofi_cq_kick_owe(oep); /* the send ring: cq.c says who */
	}
	if (w & OFI_WORK_KEYS)
		ofi_ep_ask_keys(oep);
	if (w & OFI_WORK_BIND) {
		dapl_lock(&oep->lock);
		switch (ofi_mw_run(oep)) { /* rmr.c */
		case 2:
			w |= OFI_WORK_BROKEN;
			/* fall through */
		case 1:
			w |= OFI_WORK_READY;
			break;
		default:
			break;
		}
		dapl_unlock(&oep->lock);
	}
	if (w & (OFI_WORK_READY | OFI_WORK_BROKEN)) {
		ofi_ring_ready_locked(&oep->sq);
		ofi_ring_ready_locked(&oep->rq);
	}
	return (int)(w & OFI_WORK_BROKEN) ? 2 : 1;
}
