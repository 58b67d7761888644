/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of the udapl state machines (handles, IA, PZ, LMR, EVD,
 * CNO) driven through a FAKE struct dapl_ops: a software CQ whose fd is
 * an eventfd.  It checks udapl's own logic only; every test of the
 * provider runs on rxe (test/verbs).  Prints TAP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../udapl/slots.h"
#include <dat/dat_ib_extensions.h> /* after udat.h (slots.h) */
#include "tap.h"

/* ---- the fake transport ----------------------------------------------------
 */

struct fake_cq {
	struct dapl_cqe q[256];
	int head, count;
	int fd;
	int armed;
	pthread_mutex_t lock;
};

static DAT_LMR_CONTEXT next_ctx = 0x100;
static int ia_opened, ia_closed;

static DAT_RETURN f_ia_open(struct dapl_ia *ia, const char *params DAPL_UNUSED,
			    struct dapl_caps *caps)
{
	ia_opened++;
	ia->addr.ss_family = AF_INET;
	strcpy(caps->attr.adapter_name, "fake0");
	caps->attr.max_evd_qlen = 64;
	caps->attr.max_lmr_block_size = 1ull << 30;
	/* claims SRQs and memory windows without their ops: udapl's
	 * defaults answer and dat_ia_query reports them absent */
	caps->flags = DAPL_CAP_FENCE | DAPL_CAP_ATOMICS | DAPL_CAP_SRQ |
		      DAPL_CAP_MW;
	caps->attr.max_srqs = 4;
	caps->attr.max_rmrs = 4;
	caps->max_private_data = 56;
	return DAT_SUCCESS;
}

static void f_ia_close(struct dapl_ia *ia DAPL_UNUSED)
{
	ia_closed++;
}

static DAT_RETURN f_ok_pz(struct dapl_pz *pz DAPL_UNUSED)
{
	return DAT_SUCCESS;
}

static DAT_RETURN f_mr_register(struct dapl_lmr *lmr, void *addr, DAT_VLEN len,
				DAT_MEM_PRIV_FLAGS priv DAPL_UNUSED)
{
	lmr->lmr_context = next_ctx++;
	lmr->rmr_context = lmr->lmr_context + 0x10000;
	lmr->reg_addr = (uintptr_t)addr;
	lmr->reg_len = len;
	return DAT_SUCCESS;
}

static DAT_RETURN f_mr_share(struct dapl_lmr *lmr, struct dapl_lmr *orig)
{
	lmr->lmr_context = orig->lmr_context;
	lmr->rmr_context = orig->rmr_context;
	lmr->reg_addr = orig->reg_addr;
	lmr->reg_len = orig->reg_len;
	return DAT_SUCCESS;
}

static DAT_RETURN f_mr_deregister(struct dapl_lmr *lmr DAPL_UNUSED)
{
	return DAT_SUCCESS;
}

/*
 * A direct poll (transport.h, struct dapl_cq_direct) over the same fake
 * queue, with a record of its own layout and status values, so that
 * udapl must read it at the offsets given: status 0x5a is a success,
 * any other is the DAT status + 1, which only f_cq_direct_cqe knows.
 */
struct fake_rec {
	uint64_t wr_id;
	uint32_t pad;
	uint32_t len;
	uint32_t status;
};
#define FAKE_REC_OK 0x5a
static int fake_direct, direct_polls, direct_cqes;

static int f_poll_direct(void *cqp, int max, void *rec)
{
	struct fake_cq *cq = cqp;
	struct fake_rec r;
	struct dapl_cqe e;

	if (max != 1)
		abort();
	pthread_mutex_lock(&cq->lock);
	if (!cq->count) {
		pthread_mutex_unlock(&cq->lock);
		return 0;
	}
	e = cq->q[cq->head];
	cq->head = (cq->head + 1) % 256;
	cq->count--;
	pthread_mutex_unlock(&cq->lock);
	memset(&r, 0xee, sizeof(r));
	r.wr_id = e.wr_id;
	r.len = e.byte_len;
	r.status = e.status == DAT_DTO_SUCCESS ? FAKE_REC_OK
					       : (uint32_t)e.status + 1;
	memcpy(rec, &r, sizeof(r));
	direct_polls++;
	return 1;
}

static void f_cq_direct_cqe(struct dapl_evd *evd DAPL_UNUSED,
			    const void *rec, struct dapl_cqe *cqe)
{
	struct fake_rec r;

	memcpy(&r, rec, sizeof(r));
	cqe->wr_id = r.wr_id;
	cqe->status = r.status == FAKE_REC_OK
			  ? DAT_DTO_SUCCESS
			  : (DAT_DTO_COMPLETION_STATUS)(r.status - 1);
	cqe->byte_len = r.len;
	cqe->ep = NULL;
	direct_cqes++;
}

static DAT_RETURN f_cq_create(struct dapl_evd *evd, DAT_COUNT *qlen, int *fd)
{
	struct fake_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, 0);
	cq->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&cq->lock, NULL);
	evd->obj.tp = cq;
	*fd = cq->fd;
	(void)qlen;
	if (fake_direct) {
		const struct dapl_cq_direct d = {
		    .poll = f_poll_direct,
		    .cq = cq,
		    .status_off = offsetof(struct fake_rec, status),
		    .len_off = offsetof(struct fake_rec, len),
		    .status_ok = FAKE_REC_OK,
		};

		dapl_evd_set_cq_direct(evd, &d);
	}
	return DAT_SUCCESS;
}

static DAT_RETURN f_cq_resize(struct dapl_evd *evd DAPL_UNUSED,
			      DAT_COUNT *qlen DAPL_UNUSED)
{
	return DAT_SUCCESS;
}

static void f_cq_destroy(struct dapl_evd *evd)
{
	struct fake_cq *cq = evd->obj.tp;

	close(cq->fd);
	pthread_mutex_destroy(&cq->lock);
	free(cq);
	evd->obj.tp = NULL;
}

static int f_cq_poll(struct dapl_evd *evd, struct dapl_cqe *cqe, int max)
{
	struct fake_cq *cq = evd->obj.tp;
	int n = 0;

	pthread_mutex_lock(&cq->lock);
	while (n < max && cq->count) {
		cqe[n++] = cq->q[cq->head];
		cq->head = (cq->head + 1) % 256;
		cq->count--;
	}
	pthread_mutex_unlock(&cq->lock);
	return n;
}

static DAT_RETURN f_cq_arm(struct dapl_evd *evd, int solicited DAPL_UNUSED)
{
	struct fake_cq *cq = evd->obj.tp;

	pthread_mutex_lock(&cq->lock);
	cq->armed = 1;
	pthread_mutex_unlock(&cq->lock);
	return DAT_SUCCESS;
}

static void f_cq_ack(struct dapl_evd *evd)
{
	struct fake_cq *cq = evd->obj.tp;
	uint64_t v;

	if (read(cq->fd, &v, sizeof(v)) < 0)
		return;
}

/* A completion arrives: queued, and the fd fires if the CQ was armed. */
static void fake_complete(struct dapl_evd *evd, struct dapl_cookie *c,
			  DAT_DTO_COMPLETION_STATUS st, uint32_t len)
{
	struct fake_cq *cq = evd->obj.tp;
	uint64_t one = 1;

	pthread_mutex_lock(&cq->lock);
	cq->q[(cq->head + cq->count) % 256] =
	    (struct dapl_cqe){(uintptr_t)c, st, len, NULL};
	cq->count++;
	if (cq->armed) {
		cq->armed = 0;
		if (write(cq->fd, &one, sizeof(one)) < 0)
			abort();
	}
	pthread_mutex_unlock(&cq->lock);
}

static const struct dapl_ops fake_ops = {
    .ia_open = f_ia_open,
    .ia_close = f_ia_close,
    .pz_create = f_ok_pz,
    .pz_free = f_ok_pz,
    .mr_register = f_mr_register,
    .mr_share = f_mr_share,
    .mr_deregister = f_mr_deregister,
    .cq_create = f_cq_create,
    .cq_resize = f_cq_resize,
    .cq_destroy = f_cq_destroy,
    .cq_poll = f_cq_poll,
    .cq_direct_cqe = f_cq_direct_cqe,
    .cq_arm = f_cq_arm,
    .cq_ack = f_cq_ack,
};

static struct dapl_provider fake_entry = {
    .info = {.ia_name = "fake-ia",
	     .dapl_version_major = 1,
	     .dapl_version_minor = 2,
	     .is_thread_safe = DAT_TRUE},
    .ia_params = "fake0 1",
    .name = "fakeprov",
};

/* ---- what the EP/CM helper provides in the real library ---------------------
 */

struct dapl_provider *dapl_provider_find(const char *ia_name,
					 const void *table_hint)
{
	(void)table_hint;
	return strcmp(ia_name, fake_entry.info.ia_name) ? NULL : &fake_entry;
}

/* cm.c is not linked: the engine's deferred events have nowhere to go
 * (no EP exists here). */
void dapl_cm_ep_event(struct dapl_ep *ep DAPL_UNUSED,
		      enum dapl_cm_event event DAPL_UNUSED,
		      const void *pdata DAPL_UNUSED, DAT_COUNT plen DAPL_UNUSED)
{
}

/* provider.c is not linked: this process never forks. */
int dapl_provider_forked(void)
{
	return 0;
}

void dapl_cr_teardown(struct dapl_cr *cr)
{
	dapl_obj_free(cr);
}

void dapl_ep_teardown(struct dapl_ep *ep)
{
	dapl_obj_free(ep);
}

void dapl_sp_teardown(struct dapl_sp *sp)
{
	dapl_obj_free(sp);
}

/* rmr.c's bind checks the EP state; no EP exists in this test. */
DAT_RETURN dapl_ep_state_error(DAT_EP_STATE state)
{
	return DAPL_ERR(DAT_INVALID_STATE, (DAT_RETURN_SUBTYPE)state);
}

/* ---- helpers --------------------------------------------------------------
 */

#define CHECK(cond, what) tap_ok(!!(cond), what)
#define RC_IS(rc, type, sub) ((rc) == DAPL_ERR(type, sub))

static DAT_IA_HANDLE ia_open(DAT_EVD_HANDLE *async)
{
	DAT_IA_HANDLE ia = NULL;

	*async = DAT_HANDLE_NULL;
	if (dapl_ia_open("fake-ia", 8, async, &ia) != DAT_SUCCESS)
		return NULL;
	return ia;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static DAT_EVENT sw_event(void *p)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = p;
	return ev;
}

/* ---- IA and handles
 * ----------------------------------------------------------- */

/*
 * dat_ia_open(3DAT): "All asynchronous notifications for the open
 * instance of the IA are directed by the Provider to the Consumer passed
 * in Asynchronous Event Dispatcher specified by async_evd_handle" -- and
 * when the IA that owns that EVD closes first (dat_ia_close(3DAT): its
 * objects are destroyed), the IAs that took it let go of it: their async
 * events are dropped, never posted into the freed EVD or into another
 * EVD made in its memory, and their own close frees nothing twice.  They
 * held a reference to it that the owner's close did not look at.
 */
static void test_async_shared_owner_first(void)
{
	DAT_EVD_HANDLE a1 = DAT_HANDLE_NULL, a2 = DAT_EVD_ASYNC_EXISTS, a3, q;
	DAT_EVD_HANDLE more[40];
	DAT_IA_HANDLE i1, i2 = NULL, i3 = NULL;
	DAT_EVENT ev;
	DAT_RETURN rc;
	int k, quiet = 1, made = 1, freed = 1;

	i1 = ia_open(&a1);
	a3 = a1;
	rc = dapl_ia_open("fake-ia", 0, &a2, &i2);
	CHECK(rc == DAT_SUCCESS, "a second IA takes the first's async EVD "
				 "(DAT_EVD_ASYNC_EXISTS)");
	rc = dapl_ia_open("fake-ia", 0, &a3, &i3);
	CHECK(rc == DAT_SUCCESS && a3 == a1,
	      "a third IA is given it by its handle, which stays as passed");
	dapl_async_ia_error(i3);
	rc = dapl_evd_dequeue(a1, &ev);
	CHECK(rc == DAT_SUCCESS &&
		  ev.event_number == DAT_ASYNC_ERROR_IA_CATASTROPHIC &&
		  ev.event_data.asynch_error_event_data.dat_handle == i3,
	      "the third IA's async event lands on the EVD it was given");
	CHECK(dapl_ia_close(i1, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS &&
		  !dapl_obj_ok(a1, DAT_HANDLE_TYPE_EVD),
	      "the owner closes first: its async EVD is gone");
	/* more EVDs freed than handle.c keeps aside, then made again: the
	 * first is made in the freed async EVD's memory, the oldest parked */
	for (k = 0; k < 40; k++)
		made &= dapl_evd_create(i2, 4, DAT_HANDLE_NULL,
					DAT_EVD_SOFTWARE_FLAG,
					&more[k]) == DAT_SUCCESS;
	for (k = 0; k < 40; k++)
		made &= dapl_evd_free(more[k]) == DAT_SUCCESS;
	for (k = 0; k < 40; k++)
		made &= dapl_evd_create(i2, 4, DAT_HANDLE_NULL,
					DAT_EVD_SOFTWARE_FLAG,
					&more[k]) == DAT_SUCCESS;
	CHECK(made && (void *)more[0] == (void *)a1,
	      "40 EVDs made, freed and made again: the first is made where "
	      "the async EVD was");
	dapl_async_ia_error(i2);
	dapl_async_ia_error(i3);
	for (k = 0; k < 40; k++)
		quiet &= dapl_evd_dequeue(more[k], &ev) != DAT_SUCCESS;
	CHECK(quiet, "the other two IAs' async events reach no EVD");
	CHECK(dapl_ia_query(i3, &q, 0, NULL, 0, NULL) == DAT_SUCCESS &&
		  q == DAT_HANDLE_NULL,
	      "dat_ia_query: the third IA has no async EVD any more");
	for (k = 0; k < 40; k++)
		freed &= dapl_evd_free(more[k]) == DAT_SUCCESS;
	CHECK(freed, "evd_free of the 40: no stale reference holds one");
	CHECK(dapl_ia_close(i2, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS &&
		  dapl_ia_close(i3, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS,
	      "the IAs that took it close");
	/* and the other order still holds: a sharer that goes first
	 * leaves the owner's EVD to it */
	a1 = DAT_HANDLE_NULL;
	a2 = DAT_EVD_ASYNC_EXISTS;
	i1 = ia_open(&a1);
	CHECK(dapl_ia_open("fake-ia", 0, &a2, &i2) == DAT_SUCCESS &&
		  dapl_ia_close(i2, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS,
	      "a sharer opens and closes");
	dapl_async_ia_error(i1);
	CHECK(dapl_evd_dequeue(a1, &ev) == DAT_SUCCESS &&
		  ev.event_data.asynch_error_event_data.dat_handle == i1 &&
		  dapl_ia_close(i1, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS,
	      "the owner's EVD serves on, and its IA closes gracefully");
}

static void test_ia_open(void)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, q;
	DAT_IA_HANDLE ia = NULL;
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR pa;
	DAT_RETURN rc;
	int i, diag = 1;

	rc = dapl_ia_open(NULL, 8, &async, &ia);
	CHECK(RC_IS(rc, DAT_INVALID_PARAMETER, DAT_INVALID_ARG1),
	      "ia_open NULL name: INVALID_PARAMETER|ARG1");
	rc = dapl_ia_open("fake-ia", 0, &async, &ia);
	CHECK(RC_IS(rc, DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	      "ia_open qlen 0: INVALID_PARAMETER|ARG2");
	rc = dapl_ia_open("fake-ia", 8, NULL, &ia);
	CHECK(RC_IS(rc, DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	      "ia_open NULL async ptr: ARG3");
	rc = dapl_ia_open("nope", 8, &async, &ia);
	CHECK(DAT_GET_TYPE(rc) == DAT_PROVIDER_NOT_FOUND,
	      "ia_open unknown IA: PROVIDER_NOT_FOUND");
	async = (DAT_EVD_HANDLE)&rc;
	rc = dapl_ia_open("fake-ia", 8, &async, &ia);
	CHECK(RC_IS(rc, DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC),
	      "ia_open bogus async EVD: INVALID_HANDLE|EVD_ASYNC");
	async = DAT_EVD_ASYNC_EXISTS;
	rc = dapl_ia_open("fake-ia", 8, &async, &ia);
	CHECK(RC_IS(rc, DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_ASYNC),
	      "ia_open ASYNC_EXISTS without an earlier IA: EVD_ASYNC");

	ia = ia_open(&async);
	CHECK(ia && dapl_obj_ok(async, DAT_HANDLE_TYPE_EVD),
	      "ia_open creates the async EVD");
	rc = dapl_ia_query(ia, &q, DAT_IA_FIELD_ALL, &ia_attr,
			   DAT_PROVIDER_FIELD_ALL, &pa);
	CHECK(rc == DAT_SUCCESS && q == async, "ia_query gives the async EVD");
	CHECK(ia_attr.max_evd_qlen == 64 &&
		  ia_attr.ia_address_ptr == (DAT_IA_ADDRESS_PTR) &
		      ((struct dapl_ia *)ia)->addr,
	      "ia_query: device limits and the IA address");
	for (i = 0; i < 6; i++)
		diag &= pa.evd_stream_merging_supported[i][i] == DAT_TRUE;
	CHECK(pa.is_thread_safe == DAT_TRUE && diag &&
		  pa.completion_flags_supported == 0x1F &&
		  pa.dapl_version_major == 1 && pa.dapl_version_minor == 2 &&
		  pa.max_private_data_size == 56 &&
		  pa.lmr_mem_types_supported ==
		      (DAT_MEM_TYPE_VIRTUAL | DAT_MEM_TYPE_LMR) &&
		  !strcmp(pa.provider_name, "fakeprov") &&
		  pa.num_provider_specific_attr == 5 &&
		  !strcmp(pa.provider_specific_attr[0].value, "fake0"),
	      "ia_query: provider attributes");
	CHECK(ia_attr.max_srqs == 0 && ia_attr.max_rmrs == 0 &&
		  pa.srq_supported == DAT_FALSE &&
		  !strcmp(pa.provider_specific_attr[3].value, "TRUE"),
	      "ia_query: the capability record, SRQ and RMR absent without "
	      "their ops, atomics there");
	{
		DAT_PZ_HANDLE pz;
		DAT_SRQ_ATTR sa = {.max_recv_dtos = 4, .max_recv_iov = 1};
		DAT_SRQ_HANDLE srq;
		DAT_RMR_HANDLE rmr;

		CHECK(dapl_pz_create(ia, &pz) == DAT_SUCCESS, "pz for defaults");
		rc = dapl_srq_create(ia, pz, &sa, &srq);
		CHECK(RC_IS(rc, DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE),
		      "no SRQ ops: srq_create MODEL_NOT_SUPPORTED");
		rc = dapl_rmr_create(pz, &rmr);
		CHECK(RC_IS(rc, DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE),
		      "no MW ops: rmr_create MODEL_NOT_SUPPORTED");
		CHECK(dapl_pz_free(pz) == DAT_SUCCESS, "pz freed");
	}
	rc = dapl_ia_query(ia, NULL, DAT_IA_FIELD_ALL, NULL, 0, NULL);
	CHECK(RC_IS(rc, DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	      "ia_query NULL attr: ARG4");
	rc = dapl_evd_free(async);
	CHECK(RC_IS(rc, DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE),
	      "evd_free of the IA's async EVD: EVD_IN_USE");

	{
		DAT_EVD_HANDLE a2 = DAT_EVD_ASYNC_EXISTS;
		DAT_IA_HANDLE ia2 = NULL;

		rc = dapl_ia_open("fake-ia", 0, &a2, &ia2);
		CHECK(rc == DAT_SUCCESS, "ia_open ASYNC_EXISTS shares");
		rc = dapl_ia_query(ia2, &q, 0, NULL, 0, NULL);
		CHECK(rc == DAT_SUCCESS && q == DAT_EVD_OUT_OF_SCOPE,
		      "shared async EVD is reported OUT_OF_SCOPE");
		CHECK(dapl_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG) ==
			  DAT_SUCCESS,
		      "graceful close of the sharing IA");
	}
	test_async_shared_owner_first();
	CHECK(RC_IS(dapl_ia_close(ia, 7), DAT_INVALID_PARAMETER,
		    DAT_INVALID_ARG2),
	      "ia_close bad flags: ARG2");
	CHECK(dapl_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS,
	      "graceful close with only the async EVD");
	CHECK(!dapl_obj_ok(async, DAT_HANDLE_TYPE_EVD),
	      "the owned async EVD is gone with the IA");
	CHECK(RC_IS(dapl_ia_close(ia, 0), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE_IA),
	      "closed IA handle: INVALID_HANDLE|IA");
}

static void test_handles(void)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_PZ_HANDLE pz = NULL;
	DAT_HANDLE_TYPE t = 99;
	DAT_CONTEXT ctx = {.as_64 = 42}, out = {.as_64 = 0};
	DAT_PZ_PARAM pp;
	DAT_RETURN rc;

	CHECK(dapl_get_handle_type(ia, &t) == DAT_SUCCESS &&
		  t == DAT_HANDLE_TYPE_IA,
	      "get_handle_type IA");
	CHECK(dapl_get_handle_type(async, &t) == DAT_SUCCESS &&
		  t == DAT_HANDLE_TYPE_EVD,
	      "get_handle_type EVD");
	CHECK(dapl_pz_create(ia, &pz) == DAT_SUCCESS, "pz_create");
	CHECK(dapl_set_consumer_context(pz, ctx) == DAT_SUCCESS &&
		  dapl_get_consumer_context(pz, &out) == DAT_SUCCESS &&
		  out.as_64 == 42,
	      "consumer context round trip");
	rc = dapl_get_consumer_context(pz, NULL);
	CHECK(RC_IS(rc, DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	      "get_consumer_context NULL: ARG2");
	CHECK(RC_IS(dapl_pz_query(async, DAT_PZ_FIELD_ALL, &pp),
		    DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ),
	      "wrong-type handle: INVALID_HANDLE|PZ");
	CHECK(dapl_pz_query(pz, DAT_PZ_FIELD_ALL, &pp) == DAT_SUCCESS &&
		  pp.ia_handle == ia,
	      "pz_query");
	CHECK(dapl_pz_free(pz) == DAT_SUCCESS, "pz_free");
	CHECK(RC_IS(dapl_pz_query(pz, DAT_PZ_FIELD_ALL, &pp),
		    DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ),
	      "stale PZ handle: INVALID_HANDLE|PZ");
	CHECK(RC_IS(dapl_get_handle_type(pz, &t), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE1),
	      "stale handle get_handle_type: INVALID_HANDLE1");
	CHECK(*(void **)pz == &fake_entry.table,
	      "a freed object keeps its provider word");
	{
		/* the quarantine (handle.c): the block just freed is not the
		 * next object's, so the stale handle stays invalid */
		DAT_PZ_HANDLE again = NULL;

		CHECK(dapl_pz_create(ia, &again) == DAT_SUCCESS &&
			  again != pz &&
			  RC_IS(dapl_pz_free(pz), DAT_INVALID_HANDLE,
				DAT_INVALID_HANDLE_PZ) &&
			  dapl_pz_free(again) == DAT_SUCCESS,
		      "a new PZ right after a free does not reuse the freed "
		      "block: the stale handle stays INVALID_HANDLE");
	}
	CHECK(RC_IS(dapl_set_consumer_context(NULL, ctx), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE1) &&
		  RC_IS(dapl_get_handle_type((char *)ia + 1, &t),
			DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1),
	      "NULL and misaligned handles");
	CHECK(RC_IS(dapl_rmr_create(NULL, NULL), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE_PZ) &&
		  RC_IS(dapl_rmr_free(NULL), DAT_INVALID_HANDLE,
			DAT_INVALID_HANDLE_RMR) &&
		  RC_IS(dapl_srq_free(ia), DAT_INVALID_HANDLE,
			DAT_INVALID_HANDLE_SRQ),
	      "RMR/SRQ slots check their handles");
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

/* ---- software EVDs
 * ------------------------------------------------------------ */

static void test_evd_software(void)
{
	DAT_EVD_HANDLE async, evd, dto;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_EVENT ev = sw_event((void *)1), out;
	DAT_COUNT nmore = -1;
	DAT_RETURN rc;
	double t0;

	CHECK(RC_IS(dapl_evd_create(ia, 0, NULL, DAT_EVD_SOFTWARE_FLAG, &evd),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) &&
		  RC_IS(dapl_evd_create(ia, 65, NULL, DAT_EVD_SOFTWARE_FLAG,
					&evd),
			DAT_INVALID_PARAMETER, DAT_INVALID_ARG2),
	      "evd_create qlen outside 1..max_evd_qlen: ARG2");
	CHECK(RC_IS(dapl_evd_create(ia, 4, NULL, 0, &evd),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG4) &&
		  RC_IS(dapl_evd_create(ia, 4, NULL, 0x1000, &evd),
			DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	      "evd_create bad flags: ARG4");
	CHECK(RC_IS(dapl_evd_create(ia, 4, async, DAT_EVD_SOFTWARE_FLAG, &evd),
		    DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO),
	      "evd_create bad CNO: INVALID_HANDLE|CNO");
	CHECK(dapl_evd_create(ia, 2, NULL, DAT_EVD_SOFTWARE_FLAG, &evd) ==
		  DAT_SUCCESS,
	      "evd_create software qlen 2");
	CHECK(dapl_evd_create(ia, 2, NULL, DAT_EVD_DEFAULT_FLAG, &dto) ==
		  DAT_SUCCESS,
	      "evd_create DAT_EVD_DEFAULT_FLAG (streams merged)");
	rc = dapl_evd_dequeue(evd, &out);
	CHECK(DAT_GET_TYPE(rc) == DAT_QUEUE_EMPTY, "dequeue empty");
	CHECK(RC_IS(dapl_evd_post_se(dto, &ev), DAT_INVALID_PARAMETER,
		    DAT_INVALID_ARG1),
	      "post_se on a non-software EVD: ARG1");
	out = ev;
	out.event_number = DAT_DTO_COMPLETION_EVENT;
	CHECK(RC_IS(dapl_evd_post_se(evd, &out), DAT_INVALID_PARAMETER,
		    DAT_INVALID_ARG2),
	      "post_se not a software event: ARG2");
	CHECK(dapl_evd_post_se(evd, &ev) == DAT_SUCCESS &&
		  dapl_evd_post_se(evd, &ev) == DAT_SUCCESS,
	      "post_se twice");
	rc = dapl_evd_post_se(evd, &ev);
	CHECK(RC_IS(rc, DAT_QUEUE_FULL, 0),
	      "post_se on a full EVD: QUEUE_FULL");
	CHECK(DAT_GET_TYPE(dapl_evd_dequeue(async, &out)) == DAT_QUEUE_EMPTY,
	      "post_se overflow posts nothing to the async EVD");
	CHECK(RC_IS(dapl_evd_resize(evd, 1), DAT_INVALID_STATE, 0),
	      "resize below the queued events: INVALID_STATE");
	CHECK(RC_IS(dapl_evd_wait(evd, 0, 3, &out, &nmore),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG3) &&
		  RC_IS(dapl_evd_wait(evd, 0, 0, &out, &nmore),
			DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	      "wait threshold outside 1..qlen: ARG3");
	rc = dapl_evd_wait(evd, 0, 2, &out, &nmore);
	CHECK(rc == DAT_SUCCESS && nmore == 1 &&
		  out.event_number == DAT_SOFTWARE_EVENT &&
		  out.evd_handle == evd &&
		  out.event_data.software_event_data.pointer == (void *)1,
	      "wait threshold 2 with 2 events: first event, nmore 1");
	CHECK(dapl_evd_dequeue(evd, &out) == DAT_SUCCESS, "dequeue the second");
	CHECK(dapl_evd_resize(evd, 8) == DAT_SUCCESS, "resize to 8");
	dapl_evd_post_se(evd, &ev);
	t0 = now_ms();
	rc = dapl_evd_wait(evd, 20000, 2, &out, &nmore);
	CHECK(RC_IS(rc, DAT_TIMEOUT_EXPIRED, 0) && nmore == 1 &&
		  now_ms() - t0 >= 19.0,
	      "wait below threshold: TIMEOUT_EXPIRED after the timeout, nmore");
	dapl_evd_dequeue(evd, &out);
	/* dat_evd_enable(3DAT): "The enabling and disabling EVD has no
	 * effect on direct waiters on the EVD" */
	dapl_evd_post_se(evd, &ev);
	CHECK(dapl_evd_disable(evd) == DAT_SUCCESS &&
		  dapl_evd_wait(evd, 0, 1, &out, &nmore) == DAT_SUCCESS &&
		  out.event_number == DAT_SOFTWARE_EVENT,
	      "wait on a disabled EVD: its event, as on an enabled one");
	{
		DAT_EVD_PARAM p;

		CHECK(dapl_evd_query(evd, DAT_EVD_FIELD_ALL, &p) ==
				  DAT_SUCCESS &&
			  p.evd_state == (DAT_EVD_STATE_DISABLED |
					  DAT_EVD_STATE_WAITABLE),
		      "evd_query: DISABLED");
	}
	dapl_evd_enable(evd);
	{
		DAT_EVD_PARAM p;

		CHECK(
		    dapl_evd_query(evd, DAT_EVD_FIELD_ALL, &p) == DAT_SUCCESS &&
			p.evd_qlen == 8 && p.ia_handle == ia &&
			p.evd_flags == DAT_EVD_SOFTWARE_FLAG &&
			p.evd_state ==
			    (DAT_EVD_STATE_ENABLED | DAT_EVD_STATE_WAITABLE) &&
			p.cno_handle == NULL,
		    "evd_query");
	}
	CHECK(dapl_evd_free(evd) == DAT_SUCCESS &&
		  dapl_evd_free(dto) == DAT_SUCCESS,
	      "evd_free");
	CHECK(RC_IS(dapl_evd_dequeue(evd, &out), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE1),
	      "stale EVD: INVALID_HANDLE1");
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

static void test_overflow(void)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_EVENT ev, out;
	DAT_COUNT nmore;
	int i;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_CONNECTION_EVENT_ESTABLISHED;
	dapl_evd_create(ia, 1, NULL, DAT_EVD_CONNECTION_FLAG, &evd);
	dapl_evd_post(evd, &ev);
	dapl_evd_post(evd, &ev);
	CHECK(dapl_evd_dequeue(evd, &out) == DAT_SUCCESS &&
		  DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_QUEUE_EMPTY,
	      "a full EVD drops the event");
	CHECK(dapl_evd_dequeue(async, &out) == DAT_SUCCESS &&
		  out.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW &&
		  out.event_data.asynch_error_event_data.dat_handle == evd,
	      "overflow posts DAT_ASYNC_ERROR_EVD_OVERFLOW to the async EVD");
	for (i = 0; i < 9; i++)
		dapl_async_ia_error(ia);
	CHECK(RC_IS(dapl_evd_wait(async, 0, 1, &out, &nmore), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_EVD_ASYNC),
	      "an async EVD that overflows itself is dead");
	CHECK(dapl_evd_dequeue(async, &out) == DAT_SUCCESS &&
		  out.event_number == DAT_ASYNC_ERROR_IA_CATASTROPHIC,
	      "its queued events can still be dequeued");
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

/* ---- blocking
 * ------------------------------------------------------------------ */

struct waiter {
	DAT_EVD_HANDLE evd;
	DAT_TIMEOUT timeout;
	DAT_RETURN rc;
	DAT_EVENT ev;
	DAT_COUNT nmore;
	int done;			/* dat_evd_wait returned (atomic) */
	pthread_t th;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->rc = dapl_evd_wait(w->evd, w->timeout, 1, &w->ev, &w->nmore);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void waiter_start(struct waiter *w, DAT_EVD_HANDLE evd)
{
	memset(w, 0, sizeof(*w));
	w->evd = evd;
	w->timeout = DAT_TIMEOUT_INFINITE;
	pthread_create(&w->th, NULL, wait_thread, w);
	/* until it blocks */
	while (!__atomic_load_n(&((struct dapl_evd *)evd)->waiters,
				__ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(5000);
}

static void test_evd_block(void)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_EVENT ev = sw_event((void *)7), out;
	DAT_COUNT nmore;
	struct waiter w;

	dapl_evd_create(ia, 4, NULL, DAT_EVD_SOFTWARE_FLAG, &evd);
	waiter_start(&w, evd);
	CHECK(RC_IS(dapl_evd_wait(evd, 0, 1, &out, &nmore), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_EVD_IN_USE),
	      "a second waiter: INVALID_STATE|EVD_IN_USE");
	CHECK(DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_INVALID_STATE,
	      "dequeue while a waiter blocks: INVALID_STATE");
	CHECK(RC_IS(dapl_evd_free(evd), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_EVD_IN_USE),
	      "evd_free with a waiter: EVD_IN_USE");
	dapl_evd_post_se(evd, &ev);
	pthread_join(w.th, NULL);
	CHECK(w.rc == DAT_SUCCESS &&
		  w.ev.event_data.software_event_data.pointer == (void *)7 &&
		  w.nmore == 0,
	      "a software event wakes the blocked waiter");
	/* dat_evd_enable(3DAT): "The enabling and disabling EVD has no
	 * effect on direct waiters on the EVD": a waiter stays blocked
	 * through a disable and an enable, and takes the next event */
	waiter_start(&w, evd);
	dapl_evd_disable(evd);
	dapl_evd_enable(evd);
	dapl_evd_disable(evd);
	usleep(5000);
	CHECK(!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE),
	      "disable and enable leave the blocked waiter blocked");
	dapl_evd_post_se(evd, &ev);
	pthread_join(w.th, NULL);
	CHECK(w.rc == DAT_SUCCESS &&
		  w.ev.event_data.software_event_data.pointer == (void *)7,
	      "and the next event wakes it, the EVD disabled");
	dapl_evd_enable(evd);
	/* a waiter owns the EVD even with events queued (the dequeue
	 * tests both words at once, then the waiter first): a stand-in
	 * waiter, set as dat_evd_wait sets it, under the lock */
	dapl_evd_post_se(evd, &ev);
	dapl_lock(&((struct dapl_evd *)evd)->lock);
	((struct dapl_evd *)evd)->waiters = 1;
	dapl_unlock(&((struct dapl_evd *)evd)->lock);
	CHECK(RC_IS(dapl_evd_dequeue(evd, &out), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_EVD_IN_USE),
	      "dequeue with a waiter and an event queued: INVALID_STATE|EVD_IN_USE");
	dapl_lock(&((struct dapl_evd *)evd)->lock);
	((struct dapl_evd *)evd)->waiters = 0;
	dapl_unlock(&((struct dapl_evd *)evd)->lock);
	CHECK(dapl_evd_dequeue(evd, &out) == DAT_SUCCESS &&
		  out.event_data.software_event_data.pointer == (void *)7 &&
		  DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_QUEUE_EMPTY,
	      "the waiter gone: the queued event, once");

	waiter_start(&w, evd);
	dapl_evd_set_unwaitable(evd);
	pthread_join(w.th, NULL);
	CHECK(RC_IS(w.rc, DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE),
	      "set_unwaitable wakes the waiter with INVALID_STATE");
	CHECK(RC_IS(dapl_evd_wait(evd, 0, 1, &out, &nmore), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_EVD_UNWAITABLE),
	      "wait on an unwaitable EVD: INVALID_STATE|EVD_UNWAITABLE");
	dapl_evd_clear_unwaitable(evd);
	CHECK(RC_IS(dapl_evd_wait(evd, 1000, 1, &out, &nmore),
		    DAT_TIMEOUT_EXPIRED, 0),
	      "clear_unwaitable: waits again");

	waiter_start(&w, evd);
	CHECK(dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS,
	      "abrupt close with a blocked waiter");
	pthread_join(w.th, NULL);
	CHECK(RC_IS(w.rc, DAT_ABORT, 0), "the waiter returns DAT_ABORT");
}

/* ---- DAPL_EVD_WAIT_SPIN_US (read once per process: run in a child)
 * ------------------------------------------------------------------- */

/*
 * The spinning waiter that sees its event in the ring returns from the
 * spin holding the EVD's lock, as from a sleep.  It used to return
 * without it, take the event unlocked and then release the lock whoever
 * held it had.  So the event is queued here as dat_evd_post_se queues
 * it, under the lock, and the lock is held 100 ms more: the waiter must
 * not return meanwhile, and must return with the event after.
 */
static int spin_child(void)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_EVENT ev = sw_event((void *)9);
	struct dapl_event_ring *r;
	struct dapl_evd *e;
	struct waiter w;
	int early, ok;

	if (!ia || dapl_evd_create(ia, 4, NULL, DAT_EVD_SOFTWARE_FLAG,
				   &evd) != DAT_SUCCESS)
		return 2;
	e = evd;
	r = &e->ring;
	waiter_start(&w, evd);
	dapl_lock(&e->lock);
	ev.evd_handle = evd;
	r->ev[(r->head + r->count) % r->size] = ev;
	__atomic_store_n(&r->count, r->count + 1, __ATOMIC_RELEASE);
	usleep(100000);
	early = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
	dapl_unlock(&e->lock);
	pthread_join(w.th, NULL);
	ok = !early && w.rc == DAT_SUCCESS &&
	     w.ev.event_data.software_event_data.pointer == (void *)9;
	dapl_evd_free(evd);
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	return ok ? 0 : 1;
}

static void test_evd_spin(const char *self)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, "--spin-child", (char *)NULL);
		_exit(3);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "DAPL_EVD_WAIT_SPIN_US: a waiter that sees its event while "
	      "spinning takes it under the EVD's lock (it waits while "
	      "another thread holds the lock)");
}

/* ---- CQ-backed EVDs
 * ---------------------------------------------------------- */

static struct dapl_cookie send_slots[8], recv_slots[8];
static struct dapl_ep fake_ep;

static struct dapl_cookie *post(struct dapl_cookie_ring *r, uint64_t cookie,
				enum dapl_op op, int signaled)
{
	struct dapl_cookie *c = dapl_cookie_get(r);

	c->ep = &fake_ep;
	c->user_cookie.as_64 = cookie;
	c->op = (uint8_t)op;
	c->length = 100 + cookie;
	c->signaled = (uint8_t)signaled;
	return c;
}

struct completer {
	struct dapl_evd *evd;
	struct dapl_cookie *c;
	pthread_t th;
};

static void *complete_thread(void *arg)
{
	struct completer *k = arg;

	usleep(20000);
	fake_complete(k->evd, k->c, DAT_DTO_SUCCESS, 0);
	return NULL;
}

static void test_evd_cq(void)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_EVENT out;
	DAT_COUNT nmore = -1;
	struct dapl_cookie *c;
	struct completer k;
	int ok;

	fake_ep.send_ring = (struct dapl_cookie_ring){send_slots, 8, 0, 0, 3};
	fake_ep.recv_ring = (struct dapl_cookie_ring){recv_slots, 8, 0, 0, 3};
	dapl_evd_create(ia, 4, NULL, DAT_EVD_DTO_FLAG, &evd);
	CHECK(((struct dapl_evd *)evd)->cq_fd >= 0, "DTO EVD gets a CQ fd");

	c = post(&fake_ep.recv_ring, 1, DAPL_OP_RECV, 1);
	fake_complete(evd, c, DAT_DTO_SUCCESS, 33);
	ok = dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
	CHECK(ok && out.event_number == DAT_DTO_COMPLETION_EVENT &&
		  out.evd_handle == evd &&
		  out.event_data.dto_completion_event_data.ep_handle ==
		      &fake_ep &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      1 &&
		  out.event_data.dto_completion_event_data.transfered_length ==
		      33 &&
		  dapl_cookie_outstanding(&fake_ep.recv_ring) == 0,
	      "dequeue polls a receive completion straight into the event");

	post(&fake_ep.send_ring, 2, DAPL_OP_SEND, 0); /* unsignaled */
	c = post(&fake_ep.send_ring, 3, DAPL_OP_RDMA_WRITE, 1);
	fake_complete(evd, c, DAT_DTO_SUCCESS, 0);
	ok = dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
	CHECK(ok &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      3 &&
		  out.event_data.dto_completion_event_data.transfered_length ==
		      103 &&
		  dapl_cookie_outstanding(&fake_ep.send_ring) == 0,
	      "a completion retires the unsignaled sends before it");

	c = post(&fake_ep.recv_ring, 4, DAPL_OP_RECV, 0); /* suppressed */
	fake_complete(evd, c, DAT_DTO_SUCCESS, 5);
	CHECK(DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_QUEUE_EMPTY &&
		  dapl_cookie_outstanding(&fake_ep.recv_ring) == 0,
	      "a suppressed successful receive makes no event");
	c = post(&fake_ep.recv_ring, 5, DAPL_OP_RECV, 0);
	fake_complete(evd, c, DAT_DTO_ERR_FLUSHED, 0);
	CHECK(dapl_evd_dequeue(evd, &out) == DAT_SUCCESS &&
		  out.event_data.dto_completion_event_data.status ==
		      DAT_DTO_ERR_FLUSHED,
	      "a suppressed receive that failed is reported");

	fake_complete(evd, post(&fake_ep.send_ring, 6, DAPL_OP_SEND, 1),
		      DAT_DTO_SUCCESS, 0);
	fake_complete(evd, post(&fake_ep.send_ring, 7, DAPL_OP_SEND, 1),
		      DAT_DTO_SUCCESS, 0);
	fake_complete(evd, post(&fake_ep.send_ring, 8, DAPL_OP_SEND, 1),
		      DAT_DTO_SUCCESS, 0);
	ok = dapl_evd_wait(evd, 0, 3, &out, &nmore) == DAT_SUCCESS;
	CHECK(ok && nmore == 2 &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      6,
	      "wait threshold 3 with 3 completions: nmore 2");
	CHECK(dapl_evd_dequeue(evd, &out) == DAT_SUCCESS &&
		  dapl_evd_dequeue(evd, &out) == DAT_SUCCESS &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      8 &&
		  DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_QUEUE_EMPTY,
	      "each completion is delivered exactly once");

	/* the atomic extension's completions: DAT_IB_DTO_EVENT with the
	 * DTO's data, by dequeue and by wait's batch alike; a suppressed
	 * success only retires its slot, a failure is reported */
	c = post(&fake_ep.send_ring, 30, DAPL_OP_ATOMIC_CMP_SWAP, 1);
	c->length = 8;
	fake_complete(evd, c, DAT_DTO_SUCCESS, 0);
	ok = dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
	CHECK(ok && out.event_number == DAT_IB_DTO_EVENT &&
		  out.evd_handle == evd &&
		  out.event_data.dto_completion_event_data.ep_handle ==
		      &fake_ep &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      30 &&
		  out.event_data.dto_completion_event_data.status ==
		      DAT_DTO_SUCCESS &&
		  out.event_data.dto_completion_event_data.transfered_length ==
		      8 &&
		  dapl_cookie_outstanding(&fake_ep.send_ring) == 0,
	      "an atomic's completion is a DAT_IB_DTO_EVENT of length 8");
	c = post(&fake_ep.send_ring, 31, DAPL_OP_ATOMIC_FETCH_ADD, 0);
	fake_complete(evd, c, DAT_DTO_SUCCESS, 0);
	CHECK(DAT_GET_TYPE(dapl_evd_dequeue(evd, &out)) == DAT_QUEUE_EMPTY &&
		  dapl_cookie_outstanding(&fake_ep.send_ring) == 0,
	      "a suppressed successful atomic makes no event, its slot "
	      "retired");
	c = post(&fake_ep.send_ring, 32, DAPL_OP_ATOMIC_FETCH_ADD, 0);
	fake_complete(evd, c, DAT_DTO_ERR_REMOTE_ACCESS, 0);
	ok = dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
	CHECK(ok && out.event_number == DAT_IB_DTO_EVENT &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      32 &&
		  out.event_data.dto_completion_event_data.status ==
		      DAT_DTO_ERR_REMOTE_ACCESS &&
		  out.event_data.dto_completion_event_data.transfered_length ==
		      0 &&
		  dapl_cookie_outstanding(&fake_ep.send_ring) == 0,
	      "a failed atomic is reported, length 0");
	c = post(&fake_ep.send_ring, 33, DAPL_OP_ATOMIC_FETCH_ADD, 1);
	c->length = 8;
	fake_complete(evd, c, DAT_DTO_SUCCESS, 0);
	ok = dapl_evd_wait(evd, 0, 1, &out, &nmore) == DAT_SUCCESS;
	CHECK(ok && nmore == 0 && out.event_number == DAT_IB_DTO_EVENT &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      33 &&
		  out.event_data.dto_completion_event_data.transfered_length ==
		      8 &&
		  dapl_cookie_outstanding(&fake_ep.send_ring) == 0,
	      "wait's batch makes the same atomic event");

	/* a ring of 4: six completions, wait takes only what fits */
	for (int i = 0; i < 6; i++)
		fake_complete(evd,
			      post(&fake_ep.send_ring, 10 + i, DAPL_OP_SEND, 1),
			      DAT_DTO_SUCCESS, 0);
	ok = dapl_evd_wait(evd, 0, 4, &out, &nmore) == DAT_SUCCESS;
	CHECK(ok && nmore == 3, "a full ring leaves the rest in the CQ");
	for (ok = 0; dapl_evd_dequeue(evd, &out) == DAT_SUCCESS; ok++)
		;
	CHECK(ok == 5 &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      15,
	      "and dequeue finds them in order afterwards");

	k.evd = evd;
	k.c = post(&fake_ep.send_ring, 20, DAPL_OP_SEND, 1);
	pthread_create(&k.th, NULL, complete_thread, &k);
	ok = dapl_evd_wait(evd, 5000000, 1, &out, &nmore) == DAT_SUCCESS;
	pthread_join(k.th, NULL);
	CHECK(ok &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      20,
	      "wait arms the CQ and wakes on its fd");
	CHECK(RC_IS(dapl_evd_wait(evd, 10000, 1, &out, &nmore),
		    DAT_TIMEOUT_EXPIRED, 0) &&
		  nmore == 0,
	      "wait on an empty CQ times out");
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

/* ---- CNO
 * ------------------------------------------------------------------------ */

static int agent_calls;
static DAT_EVD_HANDLE agent_evd;

static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	__atomic_store_n(&agent_evd, evd, __ATOMIC_RELAXED);
	if (data == (void *)&agent_calls)
		__atomic_add_fetch(&agent_calls, 1, __ATOMIC_RELEASE);
}

/* The agent runs on the IA's progress engine, after the event was
 * queued (cno.c): the number of its calls once it made n, or what it
 * made within 10 s (a bound, not a measure: it is there at once). */
static int agent_wait(int n)
{
	struct timespec ms = {0, 1000000};
	int i, got = 0;

	for (i = 0; i < 10000; i++) {
		got = __atomic_load_n(&agent_calls, __ATOMIC_ACQUIRE);
		if (got >= n)
			break;
		nanosleep(&ms, NULL);
	}
	return got;
}

struct cno_waiter {
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd;
	DAT_RETURN rc;
	pthread_t th;
};

static void *cno_thread(void *arg)
{
	struct cno_waiter *w = arg;

	w->rc = dapl_cno_wait(w->cno, DAT_TIMEOUT_INFINITE, &w->evd);
	return NULL;
}

static void cno_wait_start(struct cno_waiter *w, DAT_CNO_HANDLE cno)
{
	memset(w, 0, sizeof(*w));
	w->cno = cno;
	w->evd = (DAT_EVD_HANDLE)1;
	pthread_create(&w->th, NULL, cno_thread, w);
	while (!__atomic_load_n(&((struct dapl_cno *)cno)->waiters,
				__ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(5000);
}

static void test_cno(void)
{
	DAT_EVD_HANDLE async, sw, dto, h = (DAT_EVD_HANDLE)1;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_OS_WAIT_PROXY_AGENT ag = {&agent_calls, agent};
	DAT_EVENT ev = sw_event(NULL), out;
	DAT_CNO_HANDLE cno;
	DAT_CNO_PARAM cp;
	struct cno_waiter w;
	struct completer k;
	DAT_RETURN rc;

	CHECK(dapl_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno) ==
		  DAT_SUCCESS,
	      "cno_create");
	CHECK(dapl_cno_modify_agent(cno, ag) == DAT_SUCCESS &&
		  dapl_cno_query(cno, DAT_CNO_FIELD_ALL, &cp) == DAT_SUCCESS &&
		  cp.agent.proxy_agent_func == agent && cp.ia_handle == ia,
	      "cno_modify_agent and cno_query");
	dapl_evd_create(ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &sw);
	rc = dapl_cno_wait(cno, 10000, &h);
	CHECK(RC_IS(rc, DAT_QUEUE_EMPTY, 0) && h == NULL,
	      "cno_wait timeout: QUEUE_EMPTY and a NULL handle");
	CHECK(RC_IS(dapl_cno_free(cno), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_CNO_IN_USE),
	      "cno_free with an EVD attached: CNO_IN_USE");

	cno_wait_start(&w, cno);
	dapl_evd_post_se(sw, &ev);
	pthread_join(w.th, NULL);
	CHECK(w.rc == DAT_SUCCESS && w.evd == sw,
	      "a software event wakes cno_wait with its EVD");
	CHECK(agent_wait(1) == 1 &&
		  __atomic_load_n(&agent_evd, __ATOMIC_RELAXED) == sw,
	      "the proxy agent is called with the EVD (by the engine)");
	dapl_evd_dequeue(sw, &out);
	/* dat_evd_disable(3DAT): "the arrival of an event does not affect
	 * the associated CNO"; dat_evd_modify_cno(3DAT)'s recipe (disable,
	 * modify, enable: the notifications go to the new CNO) needs the
	 * enable to notify for what came meanwhile */
	dapl_evd_disable(sw);
	dapl_evd_post_se(sw, &ev);
	rc = dapl_cno_wait(cno, 10000, &h);
	CHECK(RC_IS(rc, DAT_QUEUE_EMPTY, 0) && h == NULL,
	      "an event on a disabled EVD: cno_wait finds nothing");
	cno_wait_start(&w, cno);
	dapl_evd_enable(sw);
	pthread_join(w.th, NULL);
	CHECK(w.rc == DAT_SUCCESS && w.evd == sw,
	      "the enable wakes cno_wait with the EVD its event is on");
	CHECK(agent_wait(2) == 2, "and calls the proxy agent for it");
	dapl_evd_dequeue(sw, &out);

	fake_ep.send_ring = (struct dapl_cookie_ring){send_slots, 8, 0, 0, 3};
	dapl_evd_create(ia, 4, NULL, DAT_EVD_DTO_FLAG, &dto);
	CHECK(dapl_evd_modify_cno(dto, cno) == DAT_SUCCESS,
	      "evd_modify_cno attaches");
	k.evd = dto;
	k.c = post(&fake_ep.send_ring, 30, DAPL_OP_SEND, 1);
	pthread_create(&k.th, NULL, complete_thread, &k);
	rc = dapl_cno_wait(cno, 5000000, &h);
	pthread_join(k.th, NULL);
	CHECK(rc == DAT_SUCCESS && h == dto,
	      "a completion on an attached CQ wakes cno_wait");
	CHECK(dapl_evd_dequeue(dto, &out) == DAT_SUCCESS &&
		  out.event_data.dto_completion_event_data.user_cookie.as_64 ==
		      30,
	      "and the completion is then dequeued once");

	cno_wait_start(&w, cno);
	dapl_evd_modify_cno(dto, NULL);
	dapl_evd_free(sw);
	pthread_join(w.th, NULL);
	CHECK(w.rc == DAT_SUCCESS && w.evd == NULL,
	      "cno_wait returns a NULL handle when its EVDs go");
	CHECK(dapl_cno_free(cno) == DAT_SUCCESS, "cno_free once detached");
	CHECK(RC_IS(dapl_cno_wait(cno, 0, &h), DAT_INVALID_HANDLE,
		    DAT_INVALID_HANDLE_CNO),
	      "stale CNO: INVALID_HANDLE|CNO");
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
}

/* ---- LMR
 * -------------------------------------------------------------------------- */

static void test_lmr(void)
{
	static char buf[4096];
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia = ia_open(&async);
	DAT_PZ_HANDLE pz, pz2;
	DAT_LMR_HANDLE lmr, lmr2, shared;
	DAT_LMR_CONTEXT lctx, sctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_REGION_DESCRIPTION r = {.for_va = buf};
	DAT_LMR_TRIPLET iov[3];
	struct dapl_sge sge[3];
	uint64_t total = 0;
	DAT_RETURN rc;
	struct dapl_ep ep;
	int i, ok;

	dapl_pz_create(ia, &pz);
	dapl_pz_create(ia, &pz2);
	CHECK(RC_IS(dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 0, pz,
				    DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx, &rctx,
				    &rlen, &raddr),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG4),
	      "lmr_create length 0: ARG4");
	CHECK(RC_IS(dapl_lmr_create(ia, 7, r, 10, pz, 0, &lmr, NULL, NULL, NULL,
				    NULL),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG2) &&
		  RC_IS(dapl_lmr_create(ia, DAT_MEM_TYPE_SHARED_VIRTUAL, r, 10,
					pz, 0, &lmr, NULL, NULL, NULL, NULL),
			DAT_MODEL_NOT_SUPPORTED, 0),
	      "lmr_create bad or unsupported type");
	CHECK(RC_IS(dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 10, ia, 0,
				    &lmr, NULL, NULL, NULL, NULL),
		    DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ),
	      "lmr_create bad PZ: INVALID_HANDLE|PZ");
	rc = dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, sizeof(buf), pz,
			     DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &lmr, &lctx, &rctx,
			     &rlen, &raddr);
	CHECK(rc == DAT_SUCCESS && rlen == sizeof(buf) &&
		  raddr == (uintptr_t)buf && rctx == 0,
	      "lmr_create VIRTUAL (no remote privilege: rmr_context 0)");
	CHECK(RC_IS(dapl_pz_free(pz), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_PZ_IN_USE),
	      "pz_free while an LMR uses it: PZ_IN_USE");
	CHECK(dapl_lmr_lookup(ia, lctx) == lmr, "lmr_lookup finds it");

	memset(&ep, 0, sizeof(ep));
	ep.obj.ia = ia;
	ep.pz = pz;
	iov[0] = (DAT_LMR_TRIPLET){lctx, 0, (uintptr_t)buf + 10, 100};
	iov[1] = (DAT_LMR_TRIPLET){0xdead, 0, 0, 0};
	iov[2] = (DAT_LMR_TRIPLET){lctx, 0, (uintptr_t)buf + 4000, 96};
	rc = dapl_lmr_triplets_to_sge(&ep, 0, 3, iov, sge, &total);
	CHECK(rc == DAT_SUCCESS && total == 196 &&
		  sge[0].addr == (uintptr_t)buf + 10 && sge[0].length == 100 &&
		  sge[0].lkey == lctx && sge[1].length == 0,
	      "triplets to SGEs (a zero-length one is not checked)");
	CHECK(dapl_lmr_triplets_to_sge(&ep, DAT_MEM_PRIV_LOCAL_WRITE_FLAG, 3,
				       iov, sge, &total) == DAT_SUCCESS,
	      "the device may write where the LMR has LOCAL_WRITE");
	CHECK(RC_IS(dapl_lmr_triplets_to_sge(&ep, DAT_MEM_PRIV_REMOTE_READ_FLAG,
					     3, iov, sge, &total),
		    DAT_PRIVILEGES_VIOLATION, 0),
	      "a privilege the LMR lacks: PRIVILEGES_VIOLATION");
	iov[2].segment_length = 97;
	CHECK(RC_IS(dapl_lmr_triplets_to_sge(&ep, 0, 3, iov, sge, &total),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	      "a triplet past its LMR: INVALID_PARAMETER");
	iov[2] = (DAT_LMR_TRIPLET){lctx, 0, (uintptr_t)buf - 1, 2};
	CHECK(RC_IS(dapl_lmr_triplets_to_sge(&ep, 0, 3, iov, sge, &total),
		    DAT_INVALID_PARAMETER, DAT_INVALID_ARG3),
	      "a triplet before its LMR: INVALID_PARAMETER");
	iov[2] = (DAT_LMR_TRIPLET){0xdead, 0, (uintptr_t)buf, 2};
	CHECK(RC_IS(dapl_lmr_triplets_to_sge(&ep, 0, 3, iov, sge, &total),
		    DAT_PRIVILEGES_VIOLATION, 0),
	      "an unknown lmr_context: PRIVILEGES_VIOLATION");
	ep.pz = pz2;
	CHECK(RC_IS(dapl_lmr_triplets_to_sge(&ep, 0, 1, iov, sge, &total),
		    DAT_PROTECTION_VIOLATION, 0),
	      "an LMR of another PZ: PROTECTION_VIOLATION");

	CHECK(dapl_lmr_sync_rdma_read(ia, iov, 1) == DAT_SUCCESS &&
		  dapl_lmr_sync_rdma_write(ia, iov, 1) == DAT_SUCCESS,
	      "lmr_sync_rdma_read/write");
	iov[0].segment_length = 5000;
	CHECK(RC_IS(dapl_lmr_sync_rdma_read(ia, iov, 1), DAT_INVALID_PARAMETER,
		    DAT_INVALID_ARG2),
	      "lmr_sync outside the LMR: INVALID_PARAMETER");

	r.for_lmr_handle = lmr;
	CHECK(RC_IS(dapl_lmr_create(ia, DAT_MEM_TYPE_LMR, r, 0, pz,
				    DAT_MEM_PRIV_ALL_FLAG, &shared, &sctx,
				    &rctx, &rlen, &raddr),
		    DAT_PRIVILEGES_VIOLATION, 0),
	      "lmr_create LMR with rights the original lacks: "
	      "PRIVILEGES_VIOLATION");
	rctx = 1;
	rc = dapl_lmr_create(ia, DAT_MEM_TYPE_LMR, r, 0, pz,
			     DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &shared, &sctx,
			     &rctx, &rlen, &raddr);
	CHECK(rc == DAT_SUCCESS && sctx == lctx && rctx == 0,
	      "lmr_create LMR shares the registration (no remote rights: "
	      "no rmr_context)");
	CHECK(RC_IS(dapl_lmr_free(lmr), DAT_INVALID_STATE,
		    DAT_INVALID_STATE_LMR_IN_USE),
	      "lmr_free of a shared LMR: LMR_IN_USE");
	{
		DAT_LMR_PARAM p;

		CHECK(dapl_lmr_query(shared, DAT_LMR_FIELD_ALL, &p) ==
			      DAT_SUCCESS &&
			  p.mem_type == DAT_MEM_TYPE_LMR &&
			  p.length == sizeof(buf) && p.pz_handle == pz &&
			  p.registered_address == (uintptr_t)buf,
		      "lmr_query");
	}
	CHECK(dapl_lmr_free(shared) == DAT_SUCCESS &&
		  dapl_lmr_lookup(ia, lctx) == lmr,
	      "freeing the shared LMR keeps the original's lookup");
	CHECK(dapl_lmr_free(lmr) == DAT_SUCCESS && !dapl_lmr_lookup(ia, lctx),
	      "a freed LMR is no longer found");

	/* churn: the table grows, tombstones are reused, lookups stay right */
	ok = 1;
	for (i = 0; i < 2000; i++) {
		r.for_va = buf;
		dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz, 0, &lmr,
				&lctx, NULL, NULL, NULL);
		dapl_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz, 0, &lmr2,
				&sctx, NULL, NULL, NULL);
		ok &= dapl_lmr_lookup(ia, lctx) == lmr &&
		      dapl_lmr_lookup(ia, sctx) == lmr2;
		if (i % 3)
			dapl_lmr_free(lmr);
		ok &= dapl_lmr_lookup(ia, sctx) == lmr2;
	}
	CHECK(ok, "LMR table under create/free churn");
	CHECK(RC_IS(dapl_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		    DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE),
	      "graceful close with objects left: IA_IN_USE");
	CHECK(dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS &&
		  !dapl_obj_ok(pz, DAT_HANDLE_TYPE_PZ) &&
		  !dapl_obj_ok(lmr2, DAT_HANDLE_TYPE_LMR),
	      "abrupt close frees everything");
}

/*
 * dat_ia_query's is_thread_safe is the thread safety the IA was opened
 * with (the entry's: the reference libdat keys its dat_ia_close on it).
 * Locking is separate: a threadsafe entry is always locked; a
 * nonthreadsafe one stays locked unless DAPL_NONTHREADSAFE_NOLOCK is
 * exactly "1", and then only CQ-only EVDs and the EPs drop their locks.
 */
static DAT_BOOLEAN opened_thread_safe(DAT_BOOLEAN entry_ts, const char *env,
				      int *evd_nolock, int *sw_nolock)
{
	DAT_PROVIDER_ATTR pa;
	DAT_EVD_HANDLE async, dto, sw;
	DAT_IA_HANDLE ia;
	DAT_BOOLEAN ts = 99;

	fake_entry.info.is_thread_safe = entry_ts;
	if (env)
		setenv("DAPL_NONTHREADSAFE_NOLOCK", env, 1);
	else
		unsetenv("DAPL_NONTHREADSAFE_NOLOCK");
	ia = ia_open(&async);
	if (!ia)
		return 99;
	if (dapl_ia_query(ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa) ==
	    DAT_SUCCESS)
		ts = pa.is_thread_safe;
	if (dapl_evd_create(ia, 8, NULL, DAT_EVD_DTO_FLAG, &dto) ==
	    DAT_SUCCESS) {
		*evd_nolock = ((struct dapl_evd *)dto)->nolock;
		dapl_evd_free(dto);
	}
	if (dapl_evd_create(ia, 8, NULL,
			    DAT_EVD_DTO_FLAG | DAT_EVD_SOFTWARE_FLAG,
			    &sw) == DAT_SUCCESS) {
		*sw_nolock = ((struct dapl_evd *)sw)->nolock;
		dapl_evd_free(sw);
	}
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	unsetenv("DAPL_NONTHREADSAFE_NOLOCK");
	fake_entry.info.is_thread_safe = DAT_TRUE;
	return ts;
}

static void test_thread_safety(void)
{
	int en = -1, sn = -1;

	CHECK(opened_thread_safe(DAT_TRUE, NULL, &en, &sn) == DAT_TRUE &&
		  en == 0 && sn == 0,
	      "threadsafe IA: is_thread_safe TRUE, EVDs locked");
	en = sn = -1;
	CHECK(opened_thread_safe(DAT_TRUE, "1", &en, &sn) == DAT_TRUE &&
		  en == 0 && sn == 0,
	      "threadsafe IA with DAPL_NONTHREADSAFE_NOLOCK=1: still TRUE, "
	      "locked");
	en = sn = -1;
	CHECK(opened_thread_safe(DAT_FALSE, NULL, &en, &sn) == DAT_FALSE &&
		  en == 0 && sn == 0,
	      "nonthreadsafe IA without the opt-in: FALSE, locked");
	en = sn = -1;
	CHECK(opened_thread_safe(DAT_FALSE, "0", &en, &sn) == DAT_FALSE &&
		  en == 0,
	      "nonthreadsafe IA, DAPL_NONTHREADSAFE_NOLOCK=0: FALSE, locked");
	en = sn = -1;
	CHECK(opened_thread_safe(DAT_FALSE, "yes", &en, &sn) == DAT_FALSE &&
		  en == 0,
	      "nonthreadsafe IA, DAPL_NONTHREADSAFE_NOLOCK=yes (not 1): "
	      "FALSE, locked");
	en = sn = -1;
	CHECK(opened_thread_safe(DAT_FALSE, "1", &en, &sn) == DAT_FALSE &&
		  en == 1 && sn == 0,
	      "nonthreadsafe IA with DAPL_NONTHREADSAFE_NOLOCK=1: FALSE; a "
	      "DTO EVD unlocked, one with software events still locked");
}

/* ---- lock.h: the futex lock of ep->lock and evd->lock ---- */

static struct dapl_lock t_lock;
static struct dapl_cond t_cond;
static long t_counter;
static int t_go, t_waiting, t_saw_go;

static void *lock_hammer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20000; i++) {
		dapl_lock(&t_lock);
		t_counter++;
		/* now and then give the CPU away while holding it, so
		 * that the others find it held and go to sleep */
		if (!(i & 1023))
			sched_yield();
		dapl_unlock(&t_lock);
	}
	return NULL;
}

static void *lock_sleeper(void *arg)
{
	(void)arg;
	dapl_lock(&t_lock);
	t_counter++;
	dapl_unlock(&t_lock);
	return NULL;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	dapl_lock(&t_lock);
	t_waiting = 1;
	while (!t_go)
		dapl_cond_wait(&t_cond, &t_lock);
	t_saw_go = t_go;
	dapl_unlock(&t_lock);
	return NULL;
}

static void test_lock(void)
{
	pthread_t th[4];
	int i, held, ok = 1;

	dapl_lock_init(&t_lock);
	dapl_cond_init(&t_cond);
	CHECK(dapl_trylock(&t_lock) == 0 && t_lock.v == 1,
	      "lock: a free lock is taken by trylock (word 1)");
	CHECK(dapl_trylock(&t_lock) == EBUSY,
	      "lock: trylock of a held lock is EBUSY");
	dapl_unlock(&t_lock);
	CHECK(t_lock.v == 0, "lock: unlock frees it (word 0)");
	dapl_lock(&t_lock);
	dapl_lock_destroy(&t_lock);
	dapl_lock_init(&t_lock);
	CHECK(t_lock.v == 0, "lock: init makes it free");

	/* a thread that finds it held sleeps with the word at 2 (the
	 * unlock then wakes it); spinning on the word is a wait for a
	 * state, not for a time */
	t_counter = 0;
	dapl_lock(&t_lock);
	pthread_create(&th[0], NULL, lock_sleeper, NULL);
	for (i = 0; i < 100000000 &&
		    __atomic_load_n(&t_lock.v, __ATOMIC_RELAXED) != 2; i++)
		sched_yield();
	held = __atomic_load_n(&t_lock.v, __ATOMIC_RELAXED);
	CHECK(held == 2, "lock: a contender marks the lock (word 2)");
	CHECK(t_counter == 0, "lock: the contender waits for the holder");
	dapl_unlock(&t_lock);
	pthread_join(th[0], NULL);
	CHECK(t_counter == 1 && t_lock.v == 0,
	      "lock: the unlock wakes the sleeper, who takes and frees it");

	/* mutual exclusion under contention: no increment lost */
	t_counter = 0;
	for (i = 0; i < 4; i++)
		ok &= pthread_create(&th[i], NULL, lock_hammer, NULL) == 0;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK(ok && t_counter == 4 * 20000 && t_lock.v == 0,
	      "lock: 4 threads x 20000 increments under the lock, none "
	      "lost; free at the end");

	/* the condition variable: a waiter sleeps with the lock dropped
	 * and wakes on the broadcast holding it */
	t_go = t_waiting = t_saw_go = 0;
	pthread_create(&th[0], NULL, cond_waiter, NULL);
	for (;;) {
		dapl_lock(&t_lock);
		if (t_waiting)
			break;
		dapl_unlock(&t_lock);
		sched_yield();
	}
	t_go = 1;
	dapl_cond_broadcast(&t_cond);
	dapl_unlock(&t_lock);
	pthread_join(th[0], NULL);
	CHECK(t_saw_go == 1 && t_lock.v == 0 && t_cond.seq == 1,
	      "lock: cond_wait drops the lock, the broadcast wakes the "
	      "waiter, which returns holding it");
}

int main(int argc, char **argv)
{
	/* what dapl_provider_init does for a registered entry */
	fake_entry.ops = fake_ops;
	dapl_ops_fill_defaults(&fake_entry.ops);
	if (argc > 1 && !strcmp(argv[1], "--spin-child")) {
		setenv("DAPL_EVD_WAIT_SPIN_US", "1000000", 1);
		return spin_child();
	}
	test_ia_open();
	test_handles();
	test_evd_software();
	test_overflow();
	test_evd_block();
	test_evd_cq();
	test_cno();
	test_lmr();
	CHECK(ia_opened == 15 && ia_closed == ia_opened,
	      "ops->ia_close once per ops->ia_open");
	test_thread_safety();
	/* the same completions through the transport's direct poll: the
	 * same events; only the flushed receive goes through the
	 * transport's conversion, dat_evd_wait's batches through cq_poll */
	fake_direct = 1;
	test_evd_cq();
	CHECK(direct_polls == 9 && direct_cqes == 2,
	      "direct poll: a dequeue's completions read from the "
	      "transport's record (an atomic's success too), only the "
	      "errors converted by cq_direct_cqe");
	fake_direct = 0;
	test_lock();
	test_evd_spin(argv[0]);
	dapl_obj_release_all();
	return tap_done();
}
