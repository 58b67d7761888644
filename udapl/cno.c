/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Consumer notification objects.
 *
 * A CNO is an eventfd (wake_fd) and the list of EVDs attached to it
 * (cno->evds, guarded by ia->lock, like waiters and closing).  dat_cno_wait
 * scans the attached EVDs (polling their CQs into their rings, arming
 * them), and blocks in poll(2) on wake_fd and their CQ fds.  Software
 * events on an attached EVD without a waiter write wake_fd and call the
 * proxy agent (dapl_cno_notify); cno->lock guards only the agent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "slots.h"

#define BAD_CNO DAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO)

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

DAT_OS_WAIT_PROXY_AGENT dapl_cno_notify(struct dapl_cno *cno)
{
	DAT_OS_WAIT_PROXY_AGENT agent;

	cno_wake(cno);
	pthread_mutex_lock(&cno->lock);
	agent = cno->agent;
	pthread_mutex_unlock(&cno->lock);
	return agent;
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
			found = dapl_evd_ready(evd);
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
