/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Consumer notification objects.
 *
 * A CNO is an eventfd (wake_fd) and the list of EVDs attached to it
 * (cno->evds, guarded by ia->lock, like waiters and closing).  dat_cno_wait
 * scans the attached EVDs (polling their CQs into their rings, arming
 * them), and blocks in poll(2) on wake_fd and their CQ fds.  Software
 * events on an attached EVD without a waiter write wake_fd and mark the
 * EVD for the proxy agent (dapl_cno_notify); cno->lock guards only the
 * agent.
 *
 * The proxy agent (dat_cno_create(3DAT): "invoked when the CNO is
 * triggered") is called by the IA's progress engine, from a callback of
 * its own (cno_agents_run), never from inside the code that made the
 * event: that code may hold an EP's lock, or be a DAT call of the
 * consumer whose object the agent frees, and the agent may call any DAT
 * function, dat_ia_close included.  The engine watches one epoll set per
 * IA (made at its first CNO): the CQ fds of the EVDs attached to a CNO
 * (edge-triggered, so an EVD whose own waiter takes its completion
 * does not keep the engine busy) and agent_kick, which dapl_cno_notify
 * writes.  Each call runs the agent once for one EVD that had an event
 * since its last call, with no lock held; its CQ is armed again before,
 * so that a completion during the call brings another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "slots.h"

#define BAD_CNO DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO)

static DAT_RETURN cno_agents_open(struct dapl_ia *ia);

static void cno_wake(struct dapl_cno *cno)
{
	uint64_t one = 1;

	if (write(cno->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "cno eventfd write: %d", errno);
}

DAT_RETURN dapl_cno_create(DAT_IA_HANDLE ia_handle,
			   DAT_OS_WAIT_PROXY_AGENT agent,
			   DAT_CNO_HANDLE *cno_handle)
{
	struct dapl_ia *ia = ia_handle;
	struct dapl_cno *cno;
	DAT_RETURN rc;

	if (!dapl_obj_ok(ia, DAT_HANDLE_TYPE_IA))
		return DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!cno_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	cno = dapl_obj_alloc(ia, DAT_HANDLE_TYPE_CNO, sizeof(*cno));
	if (!cno)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	cno->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cno->wake_fd < 0) {
		dapl_obj_free(cno);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	pthread_mutex_init(&cno->lock, NULL);
	pthread_cond_init(&cno->cond, NULL);
	dapl_list_init(&cno->evds);
	cno->agent = agent;
	pthread_mutex_lock(&ia->lock);
	rc = cno_agents_open(ia);
	/* the engine looks at it from here (cno_agents_next) */
	cno->ready = rc == DAT_SUCCESS;
	pthread_mutex_unlock(&ia->lock);
	if (rc != DAT_SUCCESS) {
		close(cno->wake_fd);
		pthread_cond_destroy(&cno->cond);
		pthread_mutex_destroy(&cno->lock);
		dapl_obj_free(cno);
		return rc;
	}
	*cno_handle = cno;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				 DAT_OS_WAIT_PROXY_AGENT agent)
{
	struct dapl_cno *cno = cno_handle;

	if (!dapl_obj_ok(cno, DAT_HANDLE_TYPE_CNO))
		return BAD_CNO;
	pthread_mutex_lock(&cno->lock);
	cno->agent = agent;
	pthread_mutex_unlock(&cno->lock);
	return DAT_SUCCESS;
}

DAT_RETURN dapl_cno_query(DAT_CNO_HANDLE cno_handle,
			  DAT_CNO_PARAM_MASK cno_param_mask,
			  DAT_CNO_PARAM *cno_param)
{
	struct dapl_cno *cno = cno_handle;

	if (!dapl_obj_ok(cno, DAT_HANDLE_TYPE_CNO))
		return BAD_CNO;
	if (cno_param_mask & ~(DAT_CNO_PARAM_MASK)DAT_CNO_FIELD_ALL)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!cno_param)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (cno_param_mask & DAT_CNO_FIELD_IA_HANDLE)
		cno_param->ia_handle = cno->obj.ia;
	if (cno_param_mask & DAT_CNO_FIELD_AGENT) {
		pthread_mutex_lock(&cno->lock);
		cno_param->agent = cno->agent;
		pthread_mutex_unlock(&cno->lock);
	}
	return DAT_SUCCESS;
}

static int cno_has_agent(struct dapl_cno *cno)
{
	int has;

	pthread_mutex_lock(&cno->lock);
	has = cno->agent.proxy_agent_func != NULL;
	pthread_mutex_unlock(&cno->lock);
	return has;
}

static void cno_agents_kick(struct dapl_ia *ia)
{
	uint64_t one = 1;

	if (ia->agent_kick >= 0 &&
	    write(ia->agent_kick, &one, sizeof(one)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "cno agent eventfd write: %d", errno);
}

void dapl_cno_notify(struct dapl_cno *cno, struct dapl_evd *evd)
{
	cno_wake(cno);
	if (!cno_has_agent(cno))
		return;
	__atomic_store_n(&evd->agent_due, 1, __ATOMIC_RELEASE);
	/* agent_kick is set once, at the IA's first CNO, before any EVD
	 * can be attached to one */
	cno_agents_kick(evd->obj.ia);
}

/* ---- the proxy agent ---- */

void dapl_cno_agent_attach(struct dapl_evd *evd)
{
	struct dapl_ia *ia = evd->obj.ia;
	struct epoll_event e;

	if (ia->agent_epfd < 0 || evd->cq_fd < 0 || evd->agent_watched)
		return;
	memset(&e, 0, sizeof(e));
	e.events = EPOLLIN | EPOLLET;
	e.data.ptr = evd;
	if (epoll_ctl(ia->agent_epfd, EPOLL_CTL_ADD, evd->cq_fd, &e)) {
		dapl_dbg(DAPL_DBG_ERR, "cno: epoll_ctl(ADD) of a CQ fd: %d",
			 errno);
		return;
	}
	evd->agent_watched = 1;
	/* the first completion fires it */
	ia->ops->cq_arm(evd, 0);
}

void dapl_cno_agent_detach(struct dapl_evd *evd)
{
	struct dapl_ia *ia = evd->obj.ia;

	__atomic_store_n(&evd->agent_due, 0, __ATOMIC_RELEASE);
	if (!evd->agent_watched)
		return;
	evd->agent_watched = 0;
	if (epoll_ctl(ia->agent_epfd, EPOLL_CTL_DEL, evd->cq_fd, NULL))
		dapl_dbg(DAPL_DBG_ERR, "cno: epoll_ctl(DEL) of a CQ fd: %d",
			 errno);
}

/* Under ia->lock: takes what the set reported; 1 if it reported any. */
static int cno_agents_take(struct dapl_ia *ia)
{
	struct epoll_event ev[16];
	uint64_t v;
	int n, i;

	n = epoll_wait(ia->agent_epfd, ev, 16, 0);
	for (i = 0; i < n; i++) {
		struct dapl_evd *evd = ev[i].data.ptr;

		if (!evd) {
			if (read(ia->agent_kick, &v, sizeof(v)) < 0 &&
			    errno != EAGAIN)
				dapl_dbg(DAPL_DBG_ERR,
					 "cno agent eventfd read: %d", errno);
			continue;
		}
		/* A waiter of the EVD's own preempts the CNO
		 * (dat_cno_wait(3DAT)): its completion is the waiter's. */
		dapl_lock(&evd->lock);
		if (evd->agent_watched && !evd->waiters && !evd->closing) {
			ia->ops->cq_ack(evd);
			__atomic_store_n(&evd->agent_due, 1, __ATOMIC_RELEASE);
			/* a dat_cno_wait polling the fd we read */
			if (evd->cno)
				cno_wake(evd->cno);
		}
		dapl_unlock(&evd->lock);
	}
	return n > 0;
}

/* Under ia->lock: an EVD with an event for its CNO's agent, and the agent,
 * or NULL.  Its CQ is armed again for the next completion. */
static struct dapl_evd *cno_agents_next(struct dapl_ia *ia,
					DAT_OS_WAIT_PROXY_AGENT *agent)
{
	struct dapl_list *cpos, *ctmp, *epos, *etmp;

	dapl_list_for_each_safe(cpos, ctmp, &ia->objects[DAT_HANDLE_TYPE_CNO])
	{
		struct dapl_cno *cno = (struct dapl_cno *)dapl_obj_of_link(cpos);

		if (!cno->ready || cno->closing)
			continue;
		pthread_mutex_lock(&cno->lock);
		*agent = cno->agent;
		pthread_mutex_unlock(&cno->lock);
		dapl_list_for_each_safe(epos, etmp, &cno->evds)
		{
			struct dapl_evd *evd = dapl_container_of(
			    epos, struct dapl_evd, cno_link);
			int call;

			if (!__atomic_exchange_n(&evd->agent_due, 0,
						 __ATOMIC_ACQ_REL) ||
			    !agent->proxy_agent_func)
				continue;
			dapl_lock(&evd->lock);
			call = (evd->state & DAT_EVD_STATE_ENABLED) &&
			       !evd->waiters && !evd->closing;
			if (call && evd->agent_watched)
				ia->ops->cq_arm(evd, 0);
			dapl_unlock(&evd->lock);
			if (call)
				return evd;
		}
	}
	return NULL;
}

/* The engine's callback for the agents' set: one agent call, 1 if there
 * was one (there may be more). */
static int cno_agents_run(void *arg)
{
	struct dapl_ia *ia = arg;
	DAT_OS_WAIT_PROXY_AGENT agent = {NULL, NULL};
	struct dapl_evd *evd = NULL;
	int took = 0;

	pthread_mutex_lock(&ia->lock);
	if (ia->agent_epfd >= 0) {
		took = cno_agents_take(ia);
		evd = cno_agents_next(ia, &agent);
	}
	pthread_mutex_unlock(&ia->lock);
	if (!evd)
		return took;
	/* No lock held: the agent may free anything, or close the IA (the
	 * engine then stops before it calls us again). */
	agent.proxy_agent_func(agent.instance_data, evd);
	return 1;
}

/* Under ia->lock: the IA's agents' set, at its first CNO. */
static DAT_RETURN cno_agents_open(struct dapl_ia *ia)
{
	struct epoll_event e;

	if (ia->agent_epfd >= 0)
		return DAT_SUCCESS;
	ia->agent_epfd = epoll_create1(EPOLL_CLOEXEC);
	ia->agent_kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	memset(&e, 0, sizeof(e));
	e.events = EPOLLIN;
	e.data.ptr = NULL;
	if (ia->agent_epfd >= 0 && ia->agent_kick >= 0 &&
	    !epoll_ctl(ia->agent_epfd, EPOLL_CTL_ADD, ia->agent_kick, &e) &&
	    !dapl_progress_watch(ia, ia->agent_epfd, cno_agents_run, ia))
		return DAT_SUCCESS;
	if (ia->agent_epfd >= 0)
		close(ia->agent_epfd);
	if (ia->agent_kick >= 0)
		close(ia->agent_kick);
	ia->agent_epfd = ia->agent_kick = -1;
	return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

void dapl_cno_agents_close(struct dapl_ia *ia)
{
	int epfd, kick;

	pthread_mutex_lock(&ia->lock);
	epfd = ia->agent_epfd;
	kick = ia->agent_kick;
	ia->agent_epfd = ia->agent_kick = -1;
	pthread_mutex_unlock(&ia->lock);
	if (epfd < 0)
		return;
	/* from the agent itself (it closed the IA) this does not wait, and
	 * the callback touches nothing after the agent returns */
	dapl_progress_unwatch(ia, epfd);
	close(epfd);
	close(kick);
}

/* ---- wait ---- */

/*
 * An attached EVD with an event, or NULL; arms every CQ it finds empty.
 * Under ia->lock.  Disabled EVDs and EVDs with a waiter of their own do
 * not notify the CNO (dat_cno_wait(3DAT)).
 */
static struct dapl_evd *cno_scan(struct dapl_cno *cno)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &cno->evds)
	{
		struct dapl_evd *evd =
		    dapl_container_of(pos, struct dapl_evd, cno_link);
		int found = 0;

		dapl_lock(&evd->lock);
		if ((evd->state & DAT_EVD_STATE_ENABLED) && !evd->waiters &&
		    !evd->closing)
			found = cno->obj.ia->evd_ready(evd);
		dapl_unlock(&evd->lock);
		if (found)
			return evd;
	}
	return NULL;
}

/* wake_fd first, then the CQ fds of the attached EVDs.  Under ia->lock. */
static int cno_fds(struct dapl_cno *cno, struct pollfd **pfd,
		   struct dapl_evd ***evds)
{
	struct dapl_list *pos, *tmp;
	int n = 1;

	dapl_list_for_each_safe(pos, tmp, &cno->evds) n++;
	*pfd = calloc((size_t)n, sizeof(**pfd));
	*evds = calloc((size_t)n, sizeof(**evds));
	if (!*pfd || !*evds) {
		free(*pfd);
		free(*evds);
		return -1;
	}
	(*pfd)[0].fd = cno->wake_fd;
	(*pfd)[0].events = POLLIN;
	n = 1;
	dapl_list_for_each_safe(pos, tmp, &cno->evds)
	{
		struct dapl_evd *evd =
		    dapl_container_of(pos, struct dapl_evd, cno_link);

		(*evds)[n] = evd;
		(*pfd)[n].fd = evd->waiters ? -1 : evd->cq_fd;
		(*pfd)[n].events = POLLIN;
		n++;
	}
	return n;
}

static int cno_attached(struct dapl_cno *cno, struct dapl_evd *evd)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp,
				&cno->evds) if (pos == &evd->cno_link) return 1;
	return 0;
}

/* Consumes what poll(2) reported.  Under ia->lock. */
static void cno_ack(struct dapl_cno *cno, struct pollfd *pfd,
		    struct dapl_evd **evds, int n)
{
	uint64_t v;
	int i;

	if ((pfd[0].revents & POLLIN) &&
	    read(cno->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		dapl_dbg(DAPL_DBG_ERR, "cno eventfd read: %d", errno);
	for (i = 1; i < n; i++) {
		struct dapl_evd *evd = evds[i];

		if (!(pfd[i].revents & POLLIN) || !cno_attached(cno, evd))
			continue;
		dapl_lock(&evd->lock);
		if (evd->cq_fd >= 0 && !evd->waiters)
			evd->obj.ia->ops->cq_ack(evd);
		dapl_unlock(&evd->lock);
	}
}

/*
 * One scan, then one block.  *again is set when the caller should scan
 * once more; else the result is final: DAT_SUCCESS with *found (NULL when
 * the CNO lost its EVDs or is closing), or DAT_QUEUE_EMPTY on timeout.
 */
static DAT_RETURN cno_wait_once(struct dapl_cno *cno, struct dapl_ia *ia,
				const struct dapl_deadline *dl, int *had_evds,
				struct dapl_evd **found, int *again)
{
	struct pollfd *pfd;
	struct dapl_evd **evds;
	int n, ms;

	*again = 0;
	*found = NULL;
	if (cno->closing || (*had_evds && dapl_list_empty(&cno->evds)))
		return DAT_SUCCESS;
	*had_evds |= !dapl_list_empty(&cno->evds);
	*found = cno_scan(cno);
	if (*found)
		return DAT_SUCCESS;
	ms = dapl_deadline_ms(dl);
	if (!ms)
		return DAPL_ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	n = cno_fds(cno, &pfd, &evds);
	if (n < 0)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	pthread_mutex_unlock(&ia->lock);
	dapl_progress_block(ia, 1);
	/* A timeout or EINTR just leads to the next scan. */
	if (poll(pfd, (nfds_t)n, ms) <= 0)
		n = 0;
	dapl_progress_block(ia, 0);
	pthread_mutex_lock(&ia->lock);
	if (n)
		cno_ack(cno, pfd, evds, n);
	free(pfd);
	free(evds);
	*again = 1;
	return DAT_SUCCESS;
}

DAT_RETURN dapl_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			 DAT_EVD_HANDLE *evd_handle)
{
	struct dapl_cno *cno = cno_handle;
	struct dapl_evd *found;
	struct dapl_deadline dl;
	struct dapl_ia *ia;
	int had_evds = 0, again;
	DAT_RETURN rc;

	if (!dapl_obj_ok(cno, DAT_HANDLE_TYPE_CNO))
		return BAD_CNO;
	if (!evd_handle)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ia = cno->obj.ia;
	dapl_deadline_set(&dl, timeout);
	pthread_mutex_lock(&ia->lock);
	cno->waiters++;
	do {
		rc = cno_wait_once(cno, ia, &dl, &had_evds, &found, &again);
	} while (again);
	cno->waiters--;
	if (cno->closing)
		pthread_cond_broadcast(&cno->cond);
	pthread_mutex_unlock(&ia->lock);
	/* dat_cno_wait(3DAT): a timeout is DAT_QUEUE_EMPTY, handle NULL. */
	*evd_handle = found;
	return rc;
}

/* ---- free ---- */

DAT_RETURN dapl_cno_free(DAT_CNO_HANDLE cno_handle)
{
	struct dapl_cno *cno = cno_handle;
	struct dapl_ia *ia;
	int busy;

	if (!dapl_obj_ok(cno, DAT_HANDLE_TYPE_CNO))
		return BAD_CNO;
	ia = cno->obj.ia;
	pthread_mutex_lock(&ia->lock);
	busy = !dapl_list_empty(&cno->evds) || cno->waiters || cno->closing;
	if (!busy)
		cno->closing = 1;
	pthread_mutex_unlock(&ia->lock);
	if (busy)
		return DAPL_ERR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_CNO_IN_USE);
	dapl_cno_teardown(cno);
	return DAT_SUCCESS;
}

void dapl_cno_teardown(struct dapl_cno *cno)
{
	struct dapl_ia *ia = cno->obj.ia;
	struct dapl_list *pos, *tmp;

	pthread_mutex_lock(&ia->lock);
	cno->closing = 1;
	/* EVDs still attached (IA close) just lose their CNO. */
	dapl_list_for_each_safe(pos, tmp, &cno->evds)
	{
		struct dapl_evd *evd =
		    dapl_container_of(pos, struct dapl_evd, cno_link);

		dapl_lock(&evd->lock);
		dapl_cno_agent_detach(evd);
		dapl_list_del(&evd->cno_link);
		evd->cno = NULL;
		dapl_unlock(&evd->lock);
	}
	cno->use_count = 0;
	/* Waiters return DAT_SUCCESS with a NULL handle. */
	cno_wake(cno);
	while (cno->waiters)
		pthread_cond_wait(&cno->cond, &ia->lock);
	pthread_mutex_unlock(&ia->lock);
	close(cno->wake_fd);
	pthread_cond_destroy(&cno->cond);
	pthread_mutex_destroy(&cno->lock);
	dapl_obj_free(cno);
}
