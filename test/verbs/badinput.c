/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * badinput.c - the bad-input matrix (issue 5), of any provider.
 *
 * dattest-badinput [-a IA_A] [-b IA_B] [-s ADDR_A] [absent|present]
 *
 * The IAs: -a and -b, else $DATTEST_SERVER_IA and $DATTEST_CLIENT_IA,
 * else rxe0-cma and rxe1-cma (the soft-RoCE guest's); ADDR_A is A's IPv4
 * address (-s, $DATTEST_SERVER_ADDR, else 10.77.0.1).  test/verbs runs it
 * on rxe, test/ofi on ofi-a and ofi-b (libfabric).
 *
 * Without an argument: opens IA A and IA B in one
 * process, connects an EP of B to a PSP of A, and
 * runs a table with rows for every slot of DAT_PROVIDER (the 68 calls from
 * ia_open to srq_set_lw).  Each row makes one call with one bad input -- a
 * NULL handle, a freed handle of the right type, a live handle of another
 * type, a pointer to a handle variable, a bad length or segment count, bad
 * flags, an out-of-range enum, a NULL out-pointer -- and asserts the exact
 * DAT_RETURN (type and subtype).
 *
 * Where the expected code comes from: the type is the one the Solaris man
 * page of the call (illumos man3dat) names for that input.  The pages
 * leave the subtype open; then a bad dispatch handle gets the subtype of
 * the reference libdat wrapper (dat-1.2-abi.md section 9: e.g.
 * DAT_INVALID_HANDLE1 for the dat_evd_* calls, DAT_INVALID_HANDLE_EP for
 * the dat_ep_* calls), so that libdat's NULL check and the provider's own
 * check answer alike; another handle argument gets the subtype that names
 * its role (DAT_INVALID_HANDLE_EVD_RECV, _CNO, ...); a bad parameter gets
 * DAT_INVALID_ARGn, n its position (1-based); a state error the
 * DAT_INVALID_STATE subtype of the state met.  A row whose man page does
 * not name the code at all keeps the provider's choice; its note says so.
 *
 * A feature IA A reports absent (max_srqs 0, max_rmrs 0, the atomic
 * extension's provider attributes FALSE) gets the rows of its absence
 * instead of the live ones: the handle checks first, then
 * DAT_MODEL_NOT_SUPPORTED for input that would otherwise be valid.
 *
 * With "absent" (run with DAPL_CMA_DISABLE=mw,atomic,srq): dat_ia_query
 * must report memory windows and SRQs absent, and the calls of these
 * features return DAT_MODEL_NOT_SUPPORTED for otherwise valid input.
 *
 * The SRQ slots work (issue 7): their rows use a live SRQ with an EP on
 * it (segment counts, LMR checks, resize and watermark ranges, in-use
 * state).  So does the atomic extension's dat_extension_op, listed after
 * the 68 slots.  The RMR slots work (issue 6): their rows include the
 * bind's state, PZ and privilege checks.
 *
 * Ends with "badinput: N rows, M checks, K failures" and exits non-zero on
 * any failure.  Every wait is bounded and scaled by TEST_TIMEOUT_SCALE.
 * Run it under valgrind too: everything created is freed, and both IAs
 * close GRACEFULly, which proves no object was left behind.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <dat/udat.h>
#include <dat/dat_ib_extensions.h>

/* The two IAs and A's address: -a/-b/-s, else DATTEST_SERVER_IA,
 * DATTEST_CLIENT_IA and DATTEST_SERVER_ADDR (the names the DAT suites'
 * programs read), else the soft-RoCE guest's. */
static const char *IA_A = "rxe0-cma", *IA_B = "rxe1-cma", *ADDR_A = "10.77.0.1";

#define E(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))
#define HANDLE(s) E(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_##s)
#define HANDLE1 E(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1)
#define ARG(n) E(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)
#define STATE(s) E(DAT_INVALID_STATE, DAT_INVALID_STATE_##s)
#define NOSUB(t) E(t, DAT_NO_SUBTYPE)

static int n_rows, n_checks, n_failures, scale = 1;

/* ---- the slots of DAT_PROVIDER, in table order ------------------------ */

static const char *const slots[] = {
    "ia_open",
    "ia_query",
    "ia_close",
    "set_consumer_context",
    "get_consumer_context",
    "get_handle_type",
    "cno_create",
    "cno_modify_agent",
    "cno_query",
    "cno_free",
    "cno_wait",
    "cr_query",
    "cr_accept",
    "cr_reject",
    "cr_handoff",
    "evd_create",
    "evd_query",
    "evd_modify_cno",
    "evd_enable",
    "evd_disable",
    "evd_wait",
    "evd_resize",
    "evd_post_se",
    "evd_dequeue",
    "evd_free",
    "ep_create",
    "ep_query",
    "ep_modify",
    "ep_connect",
    "ep_dup_connect",
    "ep_disconnect",
    "ep_post_send",
    "ep_post_recv",
    "ep_post_rdma_read",
    "ep_post_rdma_write",
    "ep_get_status",
    "ep_free",
    "lmr_create",
    "lmr_query",
    "lmr_free",
    "rmr_create",
    "rmr_query",
    "rmr_bind",
    "rmr_free",
    "psp_create",
    "psp_query",
    "psp_free",
    "rsp_create",
    "rsp_query",
    "rsp_free",
    "pz_create",
    "pz_query",
    "pz_free",
    "psp_create_any",
    "ep_reset",
    "evd_set_unwaitable",
    "evd_clear_unwaitable",
    "lmr_sync_rdma_read",
    "lmr_sync_rdma_write",
    "ep_create_with_srq",
    "ep_recv_query",
    "ep_set_watermark",
    "srq_create",
    "srq_free",
    "srq_post_recv",
    "srq_query",
    "srq_resize",
    "srq_set_lw",
    /* not a slot: libdat's dat_extension_op (the atomic extension) */
    "extension_op",
};
#define N_SLOTS ((int)(sizeof(slots) / sizeof(slots[0])))
static int slot_rows[N_SLOTS];

/* ---- reporting ---------------------------------------------------------- */

static const char *rc_name(DAT_RETURN rc, char *b, size_t n)
{
	const char *major, *minor;

	if (rc == DAT_SUCCESS)
		snprintf(b, n, "DAT_SUCCESS");
	else if (dat_strerror(rc, &major, &minor) != DAT_SUCCESS)
		snprintf(b, n, "0x%08x", rc);
	else
		snprintf(b, n, "%.*s|%.*s (0x%08x)", (int)strcspn(major, ":"),
			 major, (int)strcspn(minor, ":"), minor, rc);
	return b;
}

static void check(const char *what, int ok)
{
	n_checks++;
	if (ok) {
		printf("ok %s\n", what);
	} else {
		n_failures++;
		printf("FAIL %s\n", what);
	}
}

/* One row of the table: slot, the bad input, what came back, the code the
 * man page names and, where a choice was made, why. */
static void row(const char *slot, const char *what, DAT_RETURN got,
		DAT_RETURN want, const char *note)
{
	char g[160], w[160];
	int i;

	for (i = 0; i < N_SLOTS && strcmp(slots[i], slot); i++)
		;
	if (i == N_SLOTS) {
		printf("FAIL row names no slot: %s\n", slot);
		n_failures++;
		return;
	}
	slot_rows[i]++;
	n_rows++;
	n_checks++;
	if (got == want) {
		printf("ok %d %s: %s: %s\n", n_rows, slot, what,
		       rc_name(got, g, sizeof(g)));
		return;
	}
	n_failures++;
	printf("FAIL %d %s: %s: got %s, want %s%s%s\n", n_rows, slot, what,
	       rc_name(got, g, sizeof(g)), rc_name(want, w, sizeof(w)),
	       note ? " -- " : "", note ? note : "");
}

#define ROW(slot, what, call, want) row(slot, what, (call), (want), NULL)
#define ROWN(slot, what, call, want, note) row(slot, what, (call), (want), note)

static void must(const char *what, DAT_RETURN rc)
{
	char b[160];

	n_checks++;
	if (rc == DAT_SUCCESS)
		return;
	printf("FAIL setup %s: %s\n", what, rc_name(rc, b, sizeof(b)));
	printf("badinput: %d rows, %d checks, %d failures (aborted)\n", n_rows,
	       n_checks, n_failures + 1);
	exit(1);
}

static DAT_TIMEOUT secs(unsigned n)
{
	return (DAT_TIMEOUT)n * 1000000u * (unsigned)scale;
}

/* ---- the objects the rows use ----------------------------------------- */

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn, cr;
};

static struct side A, B;
static DAT_IA_ATTR ia_attr;
/* What IA A reports (dat_ia_query): a feature reported absent gets the
 * rows of its absence -- the handle checks first, then
 * DAT_MODEL_NOT_SUPPORTED for input that would otherwise be valid. */
static int has_srq, has_mw, has_atomics;
#define IF_SRQ(want) (has_srq ? (want) : NOSUB(DAT_MODEL_NOT_SUPPORTED))
#define IF_ATOMICS(want) (has_atomics ? (want) : NOSUB(DAT_MODEL_NOT_SUPPORTED))
static DAT_PZ_HANDLE pz2;     /* A: a second PZ (protection rows) */
static DAT_EVD_HANDLE sw_evd; /* A: software events, on cno */
static DAT_CNO_HANDLE cno;
static DAT_EP_HANDLE ep;	 /* A: unconnected */
static DAT_EP_HANDLE ep_a, ep_b; /* A passive, B active: connected */
static DAT_PSP_HANDLE psp;
static DAT_CONN_QUAL psp_qual;
static DAT_CR_HANDLE cr;
static DAT_RSP_HANDLE rsp; /* A: on ep_r */
static DAT_EP_HANDLE ep_r;
static DAT_CONN_QUAL rsp_qual;

struct mem {
	unsigned char *buf;
	DAT_VLEN len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
};
static struct mem m1, m2; /* A: m1 in A.pz, m2 in pz2 */

/* freed handles, one of each type */
static DAT_IA_HANDLE s_ia;
static DAT_PZ_HANDLE s_pz;
static DAT_EVD_HANDLE s_evd;
static DAT_CNO_HANDLE s_cno;
static DAT_EP_HANDLE s_ep;
static DAT_LMR_HANDLE s_lmr;
static DAT_PSP_HANDLE s_psp;
static DAT_RSP_HANDLE s_rsp;
static DAT_CR_HANDLE s_cr; /* the CR once accepted */

/* A pointer to a handle variable passed as the handle (one of Open MPI
 * 1.6's error paths does this): its first word is a handle, not a
 * provider table, so libdat refuses it. */
static DAT_HANDLE hvar;
#define HVAR ((DAT_HANDLE)&hvar)

static const DAT_MEM_PRIV_FLAGS all_priv =
    DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
    DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG;

static void mem_reg(struct mem *m, DAT_PZ_HANDLE pz, DAT_VLEN len)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	m->buf = calloc(1, len);
	if (!m->buf)
		must("calloc", E(DAT_INSUFFICIENT_RESOURCES, 0));
	m->len = len;
	r.for_va = m->buf;
	must("dat_lmr_create",
	     dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, len, pz, all_priv,
			    &m->lmr, &m->lctx, &m->rctx, &rlen, &raddr));
}

static void mem_free(struct mem *m)
{
	must("dat_lmr_free", dat_lmr_free(m->lmr));
	free(m->buf);
}

/*
 * dat_lmr_create(3DAT): DAT_INVALID_PARAMETER, "Invalid parameter": memory
 * that is not there is no region, on every fabric, refused when it is
 * registered (libfabric's tcp and shm pin nothing: the first DTO through
 * it used to kill the provider's engine with SIGSEGV).  The unmapped page
 * sits between two mapped ones, so nothing else is mapped there while the
 * row runs; a range that runs past the end of the address space is
 * refused for its length.
 */
static void lmr_create_nomem(DAT_REGION_DESCRIPTION *r)
{
	long page = sysconf(_SC_PAGESIZE);
	char *three = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	DAT_LMR_HANDLE l;

	if (three == MAP_FAILED || munmap(three + page, (size_t)page)) {
		check("mmap of three pages, the middle one unmapped", 0);
		return;
	}
	r->for_va = three + page;
	ROW("lmr_create", "an unmapped page",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, *r, 64, A.pz, all_priv,
			   &l, NULL, NULL, NULL, NULL),
	    ARG(3));
	r->for_va = three;
	ROW("lmr_create", "a mapped page and the unmapped one after it",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, *r, 2 * (DAT_VLEN)page,
			   A.pz, all_priv, &l, NULL, NULL, NULL, NULL),
	    ARG(3));
	r->for_va = (void *)(uintptr_t)-(uintptr_t)page; /* the last page */
	ROW("lmr_create", "a range that wraps the address space",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, *r, 2 * (DAT_VLEN)page,
			   A.pz, all_priv, &l, NULL, NULL, NULL, NULL),
	    ARG(4));
	munmap(three, (size_t)page);
	munmap(three + 2 * page, (size_t)page);
	r->for_va = m1.buf;
}

static DAT_LMR_TRIPLET iov(const struct mem *m, DAT_VLEN off, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = m->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(m->buf + off);
	t.segment_length = len;
	return t;
}

static void ep_attr(DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = 4096;
	a->max_rdma_size = 4096;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = 8;
	a->max_request_dtos = 8;
	a->max_recv_iov = 2;
	a->max_request_iov = 2;
	a->max_rdma_read_in = 1;
	a->max_rdma_read_out = 1;
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = 2;
	a->max_rdma_write_iov = 2;
}

static void side_open(struct side *s, const char *name)
{
	s->async = DAT_HANDLE_NULL;
	must(name, dat_ia_open((DAT_NAME_PTR)name, 8, &s->async, &s->ia));
	must("dat_pz_create", dat_pz_create(s->ia, &s->pz));
	must("dat_evd_create(DTO)", dat_evd_create(s->ia, 16, DAT_HANDLE_NULL,
						   DAT_EVD_DTO_FLAG, &s->dto));
	must("dat_evd_create(CONNECTION)",
	     dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			    &s->conn));
	must("dat_evd_create(CR)", dat_evd_create(s->ia, 8, DAT_HANDLE_NULL,
						  DAT_EVD_CR_FLAG, &s->cr));
}

static void side_close(struct side *s)
{
	must("dat_evd_free", dat_evd_free(s->dto));
	must("dat_evd_free", dat_evd_free(s->conn));
	must("dat_evd_free", dat_evd_free(s->cr));
	must("dat_pz_free", dat_pz_free(s->pz));
	must("dat_ia_close(GRACEFUL)",
	     dat_ia_close(s->ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static DAT_EP_HANDLE ep_new(struct side *s)
{
	DAT_EP_HANDLE h = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;

	ep_attr(&a);
	must("dat_ep_create",
	     dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, &a, &h));
	return h;
}

/* Waits (bounded) for one event of this number on evd. */
static void expect_event(const char *what, DAT_EVD_HANDLE evd,
			 DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_COUNT more;
	DAT_RETURN rc = dat_evd_wait(evd, secs(30), 1, ev, &more);

	if (rc != DAT_SUCCESS)
		must(what, rc);
	if (ev->event_number != want) {
		printf("FAIL setup %s: event 0x%x, want 0x%x\n", what,
		       ev->event_number, want);
		must(what, E(DAT_INTERNAL_ERROR, 0));
	}
	n_checks++;
}

/* Creates, then frees, one object of each type: the freed handles.  No
 * object of these types is created afterwards, so none is reused. */
static void make_stale(void)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_REGION_DESCRIPTION r;
	DAT_CONN_QUAL q = 0;
	DAT_EP_HANDLE e;

	must("open IA A again",
	     dat_ia_open((DAT_NAME_PTR)IA_A, 4, &async, &s_ia));
	must("close it", dat_ia_close(s_ia, DAT_CLOSE_ABRUPT_FLAG));
	must("stale pz", dat_pz_create(A.ia, &s_pz));
	must("free it", dat_pz_free(s_pz));
	must("stale evd", dat_evd_create(A.ia, 4, DAT_HANDLE_NULL,
					 DAT_EVD_SOFTWARE_FLAG, &s_evd));
	must("free it", dat_evd_free(s_evd));
	must("stale cno",
	     dat_cno_create(A.ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &s_cno));
	must("free it", dat_cno_free(s_cno));
	r.for_va = m1.buf;
	must("stale lmr", dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64,
					 A.pz, DAT_MEM_PRIV_LOCAL_READ_FLAG,
					 &s_lmr, NULL, NULL, NULL, NULL));
	must("free it", dat_lmr_free(s_lmr));
	must("stale psp",
	     dat_psp_create_any(A.ia, &q, A.cr, DAT_PSP_CONSUMER_FLAG, &s_psp));
	must("free it", dat_psp_free(s_psp));
	e = ep_new(&A);
	must("stale rsp", dat_rsp_create(A.ia, q, e, A.cr, &s_rsp));
	must("free it", dat_rsp_free(s_rsp));
	must("dat_ep_free", dat_ep_free(e));
	s_ep = ep_new(&A);
	must("free it", dat_ep_free(s_ep));
}

/* ---- the rows, one function per group of slots --------------------------- */

/* NULL, freed, wrong-type and pointer-to-variable rows of a call whose
 * dispatch handle is H. */
#define HANDLE_ROWS(slot, want, stale, wrong, wrongname, call)                 \
	do {                                                                   \
		DAT_HANDLE H;                                                  \
		H = DAT_HANDLE_NULL;                                           \
		row(slot, "NULL handle", (call), want, NULL);                  \
		if (stale) {                                                   \
			H = (stale);                                           \
			row(slot, "freed handle", (call), want, NULL);         \
		}                                                              \
		H = (wrong);                                                   \
		row(slot, wrongname, (call), want, NULL);                      \
		H = HVAR;                                                      \
		row(slot, "pointer to a handle variable", (call), want, NULL); \
	} while (0)

static void rows_ia_open(void)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;

	/* ia_open: libdat checks the name and ia_handle (abi.md section
	 * 10), the provider the async EVD arguments. */
	async = DAT_HANDLE_NULL;
	ROW("ia_open", "NULL name", dat_ia_open(NULL, 4, &async, &ia), ARG(1));
	ROW("ia_open", "unregistered name",
	    dat_ia_open((DAT_NAME_PTR) "no-such-ia", 4, &async, &ia),
	    E(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED));
	ROW("ia_open", "NULL ia_handle",
	    dat_ia_open((DAT_NAME_PTR)IA_A, 4, &async, NULL), HANDLE(IA));
	ROWN("ia_open", "NULL async_evd_handle pointer",
	     dat_ia_open((DAT_NAME_PTR)IA_A, 4, NULL, &ia), ARG(3),
	     "page names DAT_INVALID_PARAMETER; ARG3 by position");
	ROWN("ia_open", "async_evd_min_qlen 0 with a new async EVD",
	     dat_ia_open((DAT_NAME_PTR)IA_A, 0, &async, &ia), ARG(2),
	     "page names DAT_INVALID_PARAMETER; ARG2 by position");
	ROWN("ia_open", "async_evd_min_qlen -1 with a new async EVD",
	     dat_ia_open((DAT_NAME_PTR)IA_A, -1, &async, &ia), ARG(2), NULL);
	async = A.ia;
	ROW("ia_open", "IA handle as async EVD",
	    dat_ia_open((DAT_NAME_PTR)IA_A, 4, &async, &ia), HANDLE(EVD_ASYNC));
	async = A.dto;
	ROW("ia_open", "DTO EVD as async EVD",
	    dat_ia_open((DAT_NAME_PTR)IA_A, 4, &async, &ia), HANDLE(EVD_ASYNC));
	check("ia_open: a refused async_evd_handle is left unchanged",
	      async == A.dto);
}

static void rows_ia(void)
{
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_IA_ATTR a;

	async = s_evd;
	ROW("ia_open", "freed EVD as async EVD",
	    dat_ia_open((DAT_NAME_PTR)IA_A, 4, &async, &ia), HANDLE(EVD_ASYNC));

	HANDLE_ROWS("ia_query", HANDLE(IA), s_ia, A.dto, "EVD as IA",
		    dat_ia_query(H, NULL, DAT_IA_FIELD_ALL, &a, 0, NULL));
	ROWN("ia_query", "ia_attr_mask with NULL ia_attributes",
	     dat_ia_query(A.ia, NULL, DAT_IA_FIELD_ALL, NULL, 0, NULL), ARG(4),
	     "page names DAT_INVALID_PARAMETER; ARG4 by position");
	ROW("ia_query", "provider_attr_mask with NULL provider_attributes",
	    dat_ia_query(A.ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, NULL),
	    ARG(6));

	/* ia_close: libdat answers for handles it never returned. */
	HANDLE_ROWS("ia_close", HANDLE(IA), s_ia, A.dto, "EVD as IA",
		    dat_ia_close(H, DAT_CLOSE_ABRUPT_FLAG));
	ROW("ia_close", "ia_flags 7", dat_ia_close(A.ia, 7), ARG(2));
	ROW("ia_close", "ia_flags -1", dat_ia_close(A.ia, (DAT_CLOSE_FLAGS)-1),
	    ARG(2));
	ROW("ia_close", "GRACEFUL with objects left",
	    dat_ia_close(A.ia, DAT_CLOSE_GRACEFUL_FLAG), STATE(IA_IN_USE));
	check("ia_close: the IA is still open after the refusals",
	      dat_ia_query(A.ia, NULL, 0, NULL, 0, NULL) == DAT_SUCCESS);
}

static void rows_context(void)
{
	DAT_CONTEXT c;
	DAT_HANDLE_TYPE t;
	/* libdat reads a handle's first 8 bytes: all of them defined. */
	union {
		DAT_HANDLE_TYPE t;
		uint64_t word;
	} tv = {.word = 0};

	c.as_64 = 1;
	HANDLE_ROWS("set_consumer_context", HANDLE1, s_pz, (DAT_HANDLE)&c,
		    "pointer to a DAT_CONTEXT as handle",
		    dat_set_consumer_context(H, c));
	HANDLE_ROWS("get_consumer_context", HANDLE1, s_evd,
		    (DAT_HANDLE)&ia_attr, "pointer to a DAT_IA_ATTR as handle",
		    dat_get_consumer_context(H, &c));
	ROWN("get_consumer_context", "NULL context",
	     dat_get_consumer_context(A.pz, NULL), ARG(2),
	     "page names no DAT_INVALID_PARAMETER: provider's choice kept");
	HANDLE_ROWS("get_handle_type", HANDLE1, s_ep, (DAT_HANDLE)&tv.t,
		    "pointer to a DAT_HANDLE_TYPE as handle",
		    dat_get_handle_type(H, &t));
	ROWN("get_handle_type", "NULL handle_type",
	     dat_get_handle_type(A.ia, NULL), ARG(2),
	     "page names no DAT_INVALID_PARAMETER: provider's choice kept");
	ROW("get_handle_type", "freed IA", dat_get_handle_type(s_ia, &t),
	    HANDLE1);
}

static void rows_cno(void)
{
	DAT_OS_WAIT_PROXY_AGENT none = DAT_OS_WAIT_PROXY_AGENT_NULL;
	DAT_CNO_HANDLE c;
	DAT_CNO_PARAM p;
	DAT_EVD_HANDLE e;

	HANDLE_ROWS("cno_create", HANDLE(IA), s_ia, A.dto, "EVD as IA",
		    dat_cno_create(H, none, &c));
	ROWN("cno_create", "NULL cno_handle", dat_cno_create(A.ia, none, NULL),
	     ARG(3), "page names DAT_INVALID_PARAMETER; ARG3 by position");
	HANDLE_ROWS("cno_modify_agent", HANDLE(CNO), s_cno, A.ia, "IA as CNO",
		    dat_cno_modify_agent(H, none));
	HANDLE_ROWS("cno_query", HANDLE(CNO), s_cno, A.dto, "EVD as CNO",
		    dat_cno_query(H, DAT_CNO_FIELD_ALL, &p));
	ROW("cno_query", "NULL cno_param",
	    dat_cno_query(cno, DAT_CNO_FIELD_ALL, NULL), ARG(3));
	ROW("cno_query", "cno_param_mask with undefined bits",
	    dat_cno_query(cno, (DAT_CNO_PARAM_MASK)0x100, &p), ARG(2));
	HANDLE_ROWS("cno_wait", HANDLE(CNO), s_cno, A.ia, "IA as CNO",
		    dat_cno_wait(H, 0, &e));
	ROWN("cno_wait", "NULL evd_handle", dat_cno_wait(cno, 0, NULL), ARG(3),
	     "page names DAT_INVALID_PARAMETER; ARG3 by position");
	HANDLE_ROWS("cno_free", HANDLE(CNO), s_cno, A.ia, "IA as CNO",
		    dat_cno_free(H));
	ROW("cno_free", "CNO an EVD feeds", dat_cno_free(cno),
	    STATE(CNO_IN_USE));
}

static void rows_evd(void)
{
	DAT_EVD_HANDLE e;
	DAT_EVD_PARAM p;
	DAT_EVENT ev;
	DAT_COUNT more;
	int i;

	HANDLE_ROWS(
	    "evd_create", HANDLE(IA), s_ia, A.dto, "EVD as IA",
	    dat_evd_create(H, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &e));
	/* No illumos page for dat_evd_create (udat.h): the DAT 1.2 text
	 * names DAT_INVALID_PARAMETER for a bad qlen or flags and
	 * DAT_INVALID_HANDLE for a bad CNO. */
	ROW("evd_create", "evd_min_qlen 0",
	    dat_evd_create(A.ia, 0, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &e),
	    ARG(2));
	ROW("evd_create", "evd_min_qlen -1",
	    dat_evd_create(A.ia, -1, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			   &e),
	    ARG(2));
	ROW("evd_create", "evd_min_qlen over max_evd_qlen",
	    dat_evd_create(A.ia, ia_attr.max_evd_qlen + 1, DAT_HANDLE_NULL,
			   DAT_EVD_DTO_FLAG, &e),
	    ARG(2));
	ROW("evd_create", "IA handle as CNO",
	    dat_evd_create(A.ia, 4, A.ia, DAT_EVD_SOFTWARE_FLAG, &e),
	    HANDLE(CNO));
	ROW("evd_create", "freed CNO",
	    dat_evd_create(A.ia, 4, s_cno, DAT_EVD_SOFTWARE_FLAG, &e),
	    HANDLE(CNO));
	ROW("evd_create", "evd_flags 0",
	    dat_evd_create(A.ia, 4, DAT_HANDLE_NULL, 0, &e), ARG(4));
	ROW("evd_create", "evd_flags with undefined bits",
	    dat_evd_create(A.ia, 4, DAT_HANDLE_NULL, (DAT_EVD_FLAGS)0x4000, &e),
	    ARG(4));
	ROW("evd_create", "NULL evd_handle",
	    dat_evd_create(A.ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
			   NULL),
	    ARG(5));

	HANDLE_ROWS("evd_query", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_query(H, DAT_EVD_FIELD_ALL, &p));
	ROW("evd_query", "NULL evd_param",
	    dat_evd_query(A.dto, DAT_EVD_FIELD_ALL, NULL), ARG(3));
	ROW("evd_query", "evd_param_mask with undefined bits",
	    dat_evd_query(A.dto, (DAT_EVD_PARAM_MASK)0x100, &p), ARG(2));

	HANDLE_ROWS("evd_modify_cno", HANDLE1, s_evd, ep, "EP as EVD",
		    dat_evd_modify_cno(H, DAT_HANDLE_NULL));
	ROW("evd_modify_cno", "IA handle as CNO",
	    dat_evd_modify_cno(A.dto, A.ia), HANDLE(CNO));
	ROW("evd_modify_cno", "freed CNO", dat_evd_modify_cno(A.dto, s_cno),
	    HANDLE(CNO));

	HANDLE_ROWS("evd_enable", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_enable(H));
	HANDLE_ROWS("evd_disable", HANDLE1, s_evd, cno, "CNO as EVD",
		    dat_evd_disable(H));
	HANDLE_ROWS("evd_set_unwaitable", HANDLE1, s_evd, A.pz, "PZ as EVD",
		    dat_evd_set_unwaitable(H));
	HANDLE_ROWS("evd_clear_unwaitable", HANDLE1, s_evd, ep, "EP as EVD",
		    dat_evd_clear_unwaitable(H));

	HANDLE_ROWS("evd_wait", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_wait(H, 0, 1, &ev, &more));
	ROW("evd_wait", "threshold 0", dat_evd_wait(sw_evd, 0, 0, &ev, &more),
	    ARG(3));
	ROW("evd_wait", "threshold -1", dat_evd_wait(sw_evd, 0, -1, &ev, &more),
	    ARG(3));
	ROW("evd_wait", "threshold over the queue length",
	    dat_evd_wait(sw_evd, 0, 5, &ev, &more), ARG(3));
	ROWN("evd_wait", "NULL event", dat_evd_wait(sw_evd, 0, 1, NULL, &more),
	     ARG(4), "page names DAT_INVALID_PARAMETER; ARG4 by position");
	must("dat_evd_set_unwaitable", dat_evd_set_unwaitable(sw_evd));
	ROW("evd_wait", "unwaitable EVD",
	    dat_evd_wait(sw_evd, 0, 1, &ev, &more), STATE(EVD_UNWAITABLE));
	must("dat_evd_clear_unwaitable", dat_evd_clear_unwaitable(sw_evd));

	HANDLE_ROWS("evd_post_se", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_post_se(H, &ev));
	memset(&ev, 0, sizeof(ev));
	ROW("evd_post_se", "NULL event", dat_evd_post_se(sw_evd, NULL), ARG(2));
	ev.event_number = DAT_CONNECTION_EVENT_ESTABLISHED;
	ROW("evd_post_se", "event_number not DAT_SOFTWARE_EVENT",
	    dat_evd_post_se(sw_evd, &ev), ARG(2));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ROWN("evd_post_se", "EVD without DAT_EVD_SOFTWARE_FLAG",
	     dat_evd_post_se(A.conn, &ev), ARG(1),
	     "page: DAT_INVALID_PARAMETER; the EVD (arg 1) cannot take it");
	for (i = 0; i < 4; i++)
		must("dat_evd_post_se", dat_evd_post_se(sw_evd, &ev));
	ROW("evd_post_se", "full queue", dat_evd_post_se(sw_evd, &ev),
	    NOSUB(DAT_QUEUE_FULL));

	HANDLE_ROWS("evd_resize", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_resize(H, 8));
	ROW("evd_resize", "evd_min_qlen 0", dat_evd_resize(sw_evd, 0), ARG(2));
	ROW("evd_resize", "evd_min_qlen -5", dat_evd_resize(sw_evd, -5),
	    ARG(2));
	ROW("evd_resize", "evd_min_qlen over max_evd_qlen",
	    dat_evd_resize(A.dto, ia_attr.max_evd_qlen + 1), ARG(2));
	ROWN("evd_resize", "smaller than the events queued",
	     dat_evd_resize(sw_evd, 2), NOSUB(DAT_INVALID_STATE),
	     "page: DAT_INVALID_STATE; no subtype names this state");

	HANDLE_ROWS("evd_dequeue", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_dequeue(H, &ev));
	ROWN("evd_dequeue", "NULL event", dat_evd_dequeue(sw_evd, NULL), ARG(2),
	     "page names no DAT_INVALID_PARAMETER: provider's choice kept");
	for (i = 0; i < 4; i++)
		must("dat_evd_dequeue", dat_evd_dequeue(sw_evd, &ev));
	ROW("evd_dequeue", "empty queue", dat_evd_dequeue(sw_evd, &ev),
	    NOSUB(DAT_QUEUE_EMPTY));

	HANDLE_ROWS("evd_free", HANDLE1, s_evd, A.ia, "IA as EVD",
		    dat_evd_free(H));
	ROW("evd_free", "EVD an EP uses", dat_evd_free(A.dto),
	    STATE(EVD_IN_USE));
	ROW("evd_free", "the IA's own async EVD", dat_evd_free(A.async),
	    STATE(EVD_IN_USE));
}

static void rows_pz(void)
{
	DAT_PZ_HANDLE p;
	DAT_PZ_PARAM pp;

	HANDLE_ROWS("pz_create", HANDLE(IA), s_ia, A.pz, "PZ as IA",
		    dat_pz_create(H, &p));
	ROWN("pz_create", "NULL pz_handle", dat_pz_create(A.ia, NULL), ARG(2),
	     "page names DAT_INVALID_PARAMETER; ARG2 by position");
	HANDLE_ROWS("pz_query", HANDLE(PZ), s_pz, m1.lmr, "LMR as PZ",
		    dat_pz_query(H, DAT_PZ_FIELD_ALL, &pp));
	ROW("pz_query", "NULL pz_param",
	    dat_pz_query(A.pz, DAT_PZ_FIELD_ALL, NULL), ARG(3));
	ROW("pz_query", "pz_param_mask with undefined bits",
	    dat_pz_query(A.pz, (DAT_PZ_PARAM_MASK)0x10, &pp), ARG(2));
	HANDLE_ROWS("pz_free", HANDLE(PZ), s_pz, A.ia, "IA as PZ",
		    dat_pz_free(H));
	ROW("pz_free", "PZ in use by an EP and LMRs", dat_pz_free(A.pz),
	    STATE(PZ_IN_USE));
}

static void rows_lmr(void)
{
	DAT_REGION_DESCRIPTION r;
	DAT_LMR_HANDLE l;
	DAT_LMR_PARAM lp;
	DAT_LMR_TRIPLET t[2];

	r.for_va = m1.buf;
	HANDLE_ROWS("lmr_create", HANDLE(IA), s_ia, A.dto, "EVD as IA",
		    dat_lmr_create(H, DAT_MEM_TYPE_VIRTUAL, r, 64, A.pz,
				   all_priv, &l, NULL, NULL, NULL, NULL));
	ROW("lmr_create", "mem_type out of range",
	    dat_lmr_create(A.ia, (DAT_MEM_TYPE)0x99, r, 64, A.pz, all_priv, &l,
			   NULL, NULL, NULL, NULL),
	    ARG(2));
	ROWN("lmr_create", "DAT_MEM_TYPE_SHARED_VIRTUAL",
	     dat_lmr_create(A.ia, DAT_MEM_TYPE_SHARED_VIRTUAL, r, 64, A.pz,
			    all_priv, &l, NULL, NULL, NULL, NULL),
	     NOSUB(DAT_MODEL_NOT_SUPPORTED),
	     "page: MODEL_NOT_SUPPORTED for a type lmr_mem_types_supported "
	     "lacks");
	ROW("lmr_create", "freed PZ",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, s_pz, all_priv,
			   &l, NULL, NULL, NULL, NULL),
	    HANDLE(PZ));
	ROW("lmr_create", "IA handle as PZ",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, A.ia, all_priv,
			   &l, NULL, NULL, NULL, NULL),
	    HANDLE(PZ));
	ROW("lmr_create", "PZ of another IA",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, B.pz, all_priv,
			   &l, NULL, NULL, NULL, NULL),
	    HANDLE(PZ));
	ROW("lmr_create", "length 0",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 0, A.pz, all_priv, &l,
			   NULL, NULL, NULL, NULL),
	    ARG(4));
	r.for_va = NULL;
	ROW("lmr_create", "NULL for_va",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, A.pz, all_priv,
			   &l, NULL, NULL, NULL, NULL),
	    ARG(3));
	lmr_create_nomem(&r);
	r.for_va = m1.buf;
	ROW("lmr_create", "privileges with undefined bits",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, A.pz,
			   (DAT_MEM_PRIV_FLAGS)0x1000, &l, NULL, NULL, NULL,
			   NULL),
	    ARG(6));
	ROW("lmr_create", "NULL lmr_handle",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, r, 64, A.pz, all_priv,
			   NULL, NULL, NULL, NULL, NULL),
	    ARG(7));
	r.for_lmr_handle = s_lmr;
	ROW("lmr_create", "DAT_MEM_TYPE_LMR of a freed LMR",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_LMR, r, 64, A.pz, all_priv, &l,
			   NULL, NULL, NULL, NULL),
	    HANDLE(LMR));
	r.for_lmr_handle = A.pz;
	ROW("lmr_create", "DAT_MEM_TYPE_LMR of a PZ handle",
	    dat_lmr_create(A.ia, DAT_MEM_TYPE_LMR, r, 64, A.pz, all_priv, &l,
			   NULL, NULL, NULL, NULL),
	    HANDLE(LMR));

	HANDLE_ROWS("lmr_query", HANDLE(LMR), s_lmr, A.pz, "PZ as LMR",
		    dat_lmr_query(H, DAT_LMR_FIELD_ALL, &lp));
	ROW("lmr_query", "NULL lmr_param",
	    dat_lmr_query(m1.lmr, DAT_LMR_FIELD_ALL, NULL), ARG(3));
	ROW("lmr_query", "lmr_param_mask with undefined bits",
	    dat_lmr_query(m1.lmr, (DAT_LMR_PARAM_MASK)0x10000, &lp), ARG(2));
	HANDLE_ROWS("lmr_free", HANDLE(LMR), s_lmr, A.pz, "PZ as LMR",
		    dat_lmr_free(H));

	t[0] = iov(&m1, 0, 64);
	HANDLE_ROWS("lmr_sync_rdma_read", HANDLE(IA), s_ia, m1.lmr, "LMR as IA",
		    dat_lmr_sync_rdma_read(H, t, 1));
	HANDLE_ROWS("lmr_sync_rdma_write", HANDLE(IA), s_ia, A.pz, "PZ as IA",
		    dat_lmr_sync_rdma_write(H, t, 1));
	ROW("lmr_sync_rdma_read", "NULL local_segments, 1 segment",
	    dat_lmr_sync_rdma_read(A.ia, NULL, 1), ARG(2));
	ROW("lmr_sync_rdma_write", "NULL local_segments, 1 segment",
	    dat_lmr_sync_rdma_write(A.ia, NULL, 1), ARG(2));
	t[1] = iov(&m1, m1.len - 8, 16);
	ROW("lmr_sync_rdma_read", "segment past the end of its LMR",
	    dat_lmr_sync_rdma_read(A.ia, t, 2), ARG(2));
	ROW("lmr_sync_rdma_write", "segment past the end of its LMR",
	    dat_lmr_sync_rdma_write(A.ia, t, 2), ARG(2));
	t[1] = iov(&m1, 0, 16);
	t[1].virtual_address -= 8;
	ROW("lmr_sync_rdma_write", "segment before the start of its LMR",
	    dat_lmr_sync_rdma_write(A.ia, t, 2), ARG(2));
	t[1] = iov(&m1, 0, 16);
	t[1].lmr_context ^= 0x5a5a0000;
	ROW("lmr_sync_rdma_read", "unknown lmr_context",
	    dat_lmr_sync_rdma_read(A.ia, t, 2), ARG(2));
	t[1].lmr_context = m1.lctx;
	t[1].segment_length = (DAT_VLEN)-1;
	ROW("lmr_sync_rdma_read", "segment_length 2^64-1",
	    dat_lmr_sync_rdma_read(A.ia, t, 2), ARG(2));
}

/*
 * The RMR slots (issue 6).  ep_a is CONNECTED, the RMR r in A.pz.  The
 * live RMRs are made before the freed one, so no later create reuses it.
 */
#define BIND(rmr, t, priv, e, flags, out)                                      \
	dat_rmr_bind(rmr, t, priv, e, ck, flags, out)
static void rows_rmr(void)
{
	DAT_RMR_HANDLE r = DAT_HANDLE_NULL, r2 = DAT_HANDLE_NULL, s_rmr;
	DAT_RMR_PARAM rp;
	DAT_RMR_CONTEXT rc;
	DAT_LMR_TRIPLET t = iov(&m1, 0, 64), bad;
	DAT_RMR_COOKIE ck;
	const DAT_MEM_PRIV_FLAGS rr = DAT_MEM_PRIV_REMOTE_READ_FLAG;
	DAT_REGION_DESCRIPTION reg;
	DAT_LMR_HANDLE ro = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT ro_ctx;

	ck.as_64 = 1;
	must("dat_rmr_create", dat_rmr_create(A.pz, &r));
	must("dat_rmr_create(pz2)", dat_rmr_create(pz2, &r2));
	must("stale rmr", dat_rmr_create(A.pz, &s_rmr));
	must("free it", dat_rmr_free(s_rmr));

	HANDLE_ROWS("rmr_create", HANDLE(PZ), s_pz, A.ia, "IA as PZ",
		    dat_rmr_create(H, &r));
	ROWN("rmr_create", "NULL rmr_handle", dat_rmr_create(A.pz, NULL),
	     ARG(2), "page names no DAT_INVALID_PARAMETER: provider's choice");

	HANDLE_ROWS("rmr_query", HANDLE(RMR), s_rmr, m1.lmr, "LMR as RMR",
		    dat_rmr_query(H, DAT_RMR_FIELD_ALL, &rp));
	ROW("rmr_query", "PZ as RMR",
	    dat_rmr_query(A.pz, DAT_RMR_FIELD_ALL, &rp), HANDLE(RMR));
	ROW("rmr_query", "mask with an unknown bit",
	    dat_rmr_query(r, 0x100, &rp), ARG(2));
	ROWN("rmr_query", "NULL rmr_param",
	     dat_rmr_query(r, DAT_RMR_FIELD_ALL, NULL), ARG(3),
	     "page names DAT_INVALID_PARAMETER for the mask only");

	HANDLE_ROWS("rmr_bind", HANDLE(RMR), s_rmr, m1.lmr, "LMR as RMR",
		    BIND(H, &t, rr, ep_a, 0, &rc));
	ROW("rmr_bind", "EP as RMR", BIND(ep_a, &t, rr, ep_a, 0, &rc),
	    HANDLE(RMR));
	ROW("rmr_bind", "NULL ep_handle", BIND(r, &t, rr, NULL, 0, &rc),
	    HANDLE(EP));
	ROW("rmr_bind", "freed ep_handle", BIND(r, &t, rr, s_ep, 0, &rc),
	    HANDLE(EP));
	ROW("rmr_bind", "LMR as ep_handle", BIND(r, &t, rr, m1.lmr, 0, &rc),
	    HANDLE(EP));
	ROW("rmr_bind", "NULL lmr_triplet", BIND(r, NULL, rr, ep_a, 0, &rc),
	    ARG(2));
	bad = iov(&m1, m1.len - 8, 16);
	ROW("rmr_bind", "segment past the end of its LMR",
	    BIND(r, &bad, rr, ep_a, 0, &rc), ARG(2));
	bad = iov(&m1, 0, 16);
	bad.virtual_address -= 8;
	ROW("rmr_bind", "segment before the start of its LMR",
	    BIND(r, &bad, rr, ep_a, 0, &rc), ARG(2));
	bad = iov(&m1, 0, 16);
	bad.lmr_context ^= 0x5a5a0000;
	ROWN("rmr_bind", "unknown lmr_context", BIND(r, &bad, rr, ep_a, 0, &rc),
	     ARG(2),
	     "the page names no code: the triplet is an invalid parameter");
	ROW("rmr_bind", "mem_privileges with an unknown bit",
	    BIND(r, &t, 0x100, ep_a, 0, &rc), ARG(3));
	ROW("rmr_bind", "completion flags SOLICITED_WAIT",
	    BIND(r, &t, rr, ep_a, DAT_COMPLETION_SOLICITED_WAIT_FLAG, &rc),
	    ARG(6));
	ROW("rmr_bind", "UNSIGNALLED, EP without it",
	    BIND(r, &t, rr, ep_a, DAT_COMPLETION_UNSIGNALLED_FLAG, &rc),
	    ARG(6));
	ROW("rmr_bind", "completion flags 0xff00",
	    BIND(r, &t, rr, ep_a, 0xff00, &rc), ARG(6));
	ROWN("rmr_bind", "NULL rmr_context", BIND(r, &t, rr, ep_a, 0, NULL),
	     ARG(7), "page names no code: provider's choice");
	bad = iov(&m2, 0, 64);
	ROW("rmr_bind", "LMR of another PZ", BIND(r, &bad, rr, ep_a, 0, &rc),
	    NOSUB(DAT_PROTECTION_VIOLATION));
	ROW("rmr_bind", "RMR of another PZ than the EP's",
	    BIND(r2, &t, rr, ep_a, 0, &rc), NOSUB(DAT_PROTECTION_VIOLATION));
	ROW("rmr_bind", "EP UNCONNECTED", BIND(r, &t, rr, ep, 0, &rc),
	    STATE(EP_UNCONNECTED));
	/* Remote write needs the LMR's local write (DAT 1.2). */
	reg.for_va = m1.buf;
	must("read-only LMR",
	     dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, reg, 64, A.pz,
			    DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro, &ro_ctx, NULL,
			    NULL, NULL));
	bad = iov(&m1, 0, 64);
	bad.lmr_context = ro_ctx;
	ROW("rmr_bind", "remote write on an LMR without local write",
	    BIND(r, &bad, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, ep_a, 0, &rc),
	    NOSUB(DAT_PRIVILEGES_VIOLATION));
	must("dat_lmr_free", dat_lmr_free(ro));

	HANDLE_ROWS("rmr_free", HANDLE(RMR), s_rmr, A.ia, "IA as RMR",
		    dat_rmr_free(H));
	ROW("rmr_free", "LMR as RMR", dat_rmr_free(m1.lmr), HANDLE(RMR));
	must("dat_rmr_free", dat_rmr_free(r));
	must("dat_rmr_free(pz2)", dat_rmr_free(r2));
}

/* The RMR slots of an IA that reports max_rmrs 0: the handle checks come
 * first, then DAT_MODEL_NOT_SUPPORTED; no RMR can exist, so every other
 * handle passed as an RMR is of the wrong type. */
static void rows_rmr_absent(void)
{
	DAT_RMR_HANDLE r = DAT_HANDLE_NULL;
	DAT_RMR_PARAM rp;
	DAT_RMR_CONTEXT rc;
	DAT_LMR_TRIPLET t = iov(&m1, 0, 64);
	DAT_RMR_COOKIE ck;
	const DAT_MEM_PRIV_FLAGS rr = DAT_MEM_PRIV_REMOTE_READ_FLAG;

	ck.as_64 = 1;
	HANDLE_ROWS("rmr_create", HANDLE(PZ), s_pz, A.ia, "IA as PZ",
		    dat_rmr_create(H, &r));
	ROW("rmr_create", "valid input, max_rmrs 0", dat_rmr_create(A.pz, &r),
	    NOSUB(DAT_MODEL_NOT_SUPPORTED));
	ROWN("rmr_create", "NULL rmr_handle, max_rmrs 0",
	     dat_rmr_create(A.pz, NULL), NOSUB(DAT_MODEL_NOT_SUPPORTED),
	     "the feature's absence is checked before the out-pointer");
	HANDLE_ROWS("rmr_query", HANDLE(RMR), NULL, m1.lmr, "LMR as RMR",
		    dat_rmr_query(H, DAT_RMR_FIELD_ALL, &rp));
	ROW("rmr_query", "PZ as RMR",
	    dat_rmr_query(A.pz, DAT_RMR_FIELD_ALL, &rp), HANDLE(RMR));
	HANDLE_ROWS("rmr_bind", HANDLE(RMR), NULL, m1.lmr, "LMR as RMR",
		    BIND(H, &t, rr, ep_a, 0, &rc));
	ROW("rmr_bind", "EP as RMR", BIND(ep_a, &t, rr, ep_a, 0, &rc),
	    HANDLE(RMR));
	HANDLE_ROWS("rmr_free", HANDLE(RMR), NULL, A.ia, "IA as RMR",
		    dat_rmr_free(H));
	ROW("rmr_free", "LMR as RMR", dat_rmr_free(m1.lmr), HANDLE(RMR));
}
#undef BIND

/* The SRQ slots: handle and parameter checks only (the SRQ issue). */
static void rows_srq(void)
{
	DAT_SRQ_HANDLE s;
	DAT_SRQ_ATTR sa;
	DAT_SRQ_PARAM sp;
	DAT_LMR_TRIPLET t = iov(&m1, 0, 64);
	DAT_DTO_COOKIE ck;
	DAT_EP_HANDLE e;
	DAT_EP_ATTR a;

	ck.as_64 = 1;
	memset(&sa, 0, sizeof(sa));
	sa.max_recv_dtos = 4;
	sa.max_recv_iov = 1;
	ep_attr(&a);
	HANDLE_ROWS("srq_create", HANDLE(IA), s_ia, A.pz, "PZ as IA",
		    dat_srq_create(H, A.pz, &sa, &s));
	ROW("srq_create", "freed PZ", dat_srq_create(A.ia, s_pz, &sa, &s),
	    HANDLE(PZ));
	ROW("srq_create", "IA handle as PZ",
	    dat_srq_create(A.ia, A.ia, &sa, &s), HANDLE(PZ));
	ROW("srq_create", "PZ of another IA",
	    dat_srq_create(A.ia, B.pz, &sa, &s), HANDLE(PZ));
	ROW("srq_create", "NULL srq_attr", dat_srq_create(A.ia, A.pz, NULL, &s),
	    IF_SRQ(ARG(3)));
	ROW("srq_create", "NULL srq_handle",
	    dat_srq_create(A.ia, A.pz, &sa, NULL), IF_SRQ(ARG(4)));
	sa.max_recv_dtos = -1;
	ROW("srq_create", "max_recv_dtos -1",
	    dat_srq_create(A.ia, A.pz, &sa, &s), IF_SRQ(ARG(3)));
	sa.max_recv_dtos = 4;
	sa.max_recv_iov = -1;
	ROW("srq_create", "max_recv_iov -1",
	    dat_srq_create(A.ia, A.pz, &sa, &s), IF_SRQ(ARG(3)));
	sa.max_recv_iov = 1;
	if (!has_srq)
		ROW("srq_create", "valid input, max_srqs 0",
		    dat_srq_create(A.ia, A.pz, &sa, &s),
		    NOSUB(DAT_MODEL_NOT_SUPPORTED));

	HANDLE_ROWS("srq_free", HANDLE(SRQ), NULL, A.pz, "PZ as SRQ",
		    dat_srq_free(H));
	ROW("srq_free", "IA as SRQ", dat_srq_free(A.ia), HANDLE(SRQ));
	HANDLE_ROWS("srq_post_recv", HANDLE(SRQ), NULL, ep, "EP as SRQ",
		    dat_srq_post_recv(H, 1, &t, ck));
	HANDLE_ROWS("srq_query", HANDLE(SRQ), NULL, A.dto, "EVD as SRQ",
		    dat_srq_query(H, DAT_SRQ_FIELD_ALL, &sp));
	HANDLE_ROWS("srq_resize", HANDLE(SRQ), NULL, cno, "CNO as SRQ",
		    dat_srq_resize(H, 8));
	HANDLE_ROWS("srq_set_lw", HANDLE(SRQ), NULL, m1.lmr, "LMR as SRQ",
		    dat_srq_set_lw(H, 1));

	HANDLE_ROWS("ep_create_with_srq", HANDLE(IA), s_ia, A.dto, "EVD as IA",
		    dat_ep_create_with_srq(H, A.pz, A.dto, A.dto, A.conn, A.pz,
					   &a, &e));
	ROW("ep_create_with_srq", "freed PZ",
	    dat_ep_create_with_srq(A.ia, s_pz, A.dto, A.dto, A.conn, A.pz, &a,
				   &e),
	    HANDLE(PZ));
	ROW("ep_create_with_srq", "CR EVD as recv EVD",
	    dat_ep_create_with_srq(A.ia, A.pz, A.cr, A.dto, A.conn, A.pz, &a,
				   &e),
	    HANDLE(EVD_RECV));
	ROW("ep_create_with_srq", "PZ as SRQ",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, A.pz, &a,
				   &e),
	    IF_SRQ(HANDLE(SRQ)));
	ROW("ep_create_with_srq", "NULL SRQ",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn,
				   DAT_HANDLE_NULL, &a, &e),
	    IF_SRQ(HANDLE(SRQ)));
}

/* The SRQ calls on a live SRQ (issue 7), and dat_extension_op. */
static void rows_srq_live(void)
{
	DAT_SRQ_HANDLE s, s2, stale;
	DAT_SRQ_ATTR sa = {8, 2, DAT_SRQ_LW_DEFAULT}, bad;
	DAT_LMR_TRIPLET t[3];
	DAT_SRQ_PARAM sp;
	DAT_DTO_COOKIE ck;
	DAT_EP_HANDLE e = DAT_HANDLE_NULL, e2;
	DAT_EP_ATTR a;
	DAT_COUNT nb;

	ck.as_64 = 7;
	ep_attr(&a);
	must("dat_srq_create", dat_srq_create(A.ia, A.pz, &sa, &s));
	must("dat_srq_create(pz2)", dat_srq_create(A.ia, pz2, &sa, &s2));
	must("dat_srq_create(stale)", dat_srq_create(A.ia, A.pz, &sa, &stale));
	must("dat_srq_free(stale)", dat_srq_free(stale));

	bad = sa;
	bad.low_watermark = 9;
	ROW("srq_create", "low_watermark above max_recv_dtos",
	    dat_srq_create(A.ia, A.pz, &bad, &s2), ARG(3));
	bad = sa;
	bad.max_recv_dtos = ia_attr.max_recv_per_srq + 1;
	ROW("srq_create", "max_recv_dtos above the IA's max_recv_per_srq",
	    dat_srq_create(A.ia, A.pz, &bad, &s2), ARG(3));
	bad = sa;
	bad.max_recv_iov = 0;
	ROW("srq_create", "max_recv_iov 0",
	    dat_srq_create(A.ia, A.pz, &bad, &s2), ARG(3));

	ROW("srq_free", "freed handle", dat_srq_free(stale), HANDLE(SRQ));
	ROW("srq_post_recv", "freed handle",
	    dat_srq_post_recv(stale, 0, NULL, ck), HANDLE(SRQ));
	ROW("srq_query", "freed handle",
	    dat_srq_query(stale, DAT_SRQ_FIELD_ALL, &sp), HANDLE(SRQ));
	ROW("srq_resize", "freed handle", dat_srq_resize(stale, 8),
	    HANDLE(SRQ));
	ROW("srq_set_lw", "freed handle", dat_srq_set_lw(stale, 1),
	    HANDLE(SRQ));

	t[0] = iov(&m1, 0, 64);
	t[1] = iov(&m1, 64, 64);
	t[2] = iov(&m1, 128, 64);
	ROW("srq_post_recv", "num_segments -1", dat_srq_post_recv(s, -1, t, ck),
	    ARG(2));
	ROW("srq_post_recv", "num_segments 3 > max_recv_iov 2",
	    dat_srq_post_recv(s, 3, t, ck), ARG(2));
	ROW("srq_post_recv", "NULL local_iov with 1 segment",
	    dat_srq_post_recv(s, 1, NULL, ck), ARG(3));
	t[0] = iov(&m1, 4000, 200);
	ROW("srq_post_recv", "segment past the end of its LMR",
	    dat_srq_post_recv(s, 1, t, ck), ARG(3));
	t[0] = iov(&m1, 0, 64);
	t[0].lmr_context ^= 0x5a5a00;
	ROW("srq_post_recv", "unknown lmr_context",
	    dat_srq_post_recv(s, 1, t, ck), NOSUB(DAT_PRIVILEGES_VIOLATION));
	t[0] = iov(&m2, 0, 64);
	ROW("srq_post_recv", "LMR of another PZ",
	    dat_srq_post_recv(s, 1, t, ck), NOSUB(DAT_PROTECTION_VIOLATION));

	ROW("srq_query", "param_mask 0x100",
	    dat_srq_query(s, (DAT_SRQ_PARAM_MASK)0x100, &sp), ARG(2));
	ROW("srq_query", "NULL srq_param",
	    dat_srq_query(s, DAT_SRQ_FIELD_ALL, NULL), ARG(3));
	ROW("srq_resize", "srq_max_recv_dto 0", dat_srq_resize(s, 0), ARG(2));
	ROW("srq_resize", "srq_max_recv_dto -1", dat_srq_resize(s, -1), ARG(2));
	ROW("srq_resize", "above the IA's max_recv_per_srq",
	    dat_srq_resize(s, ia_attr.max_recv_per_srq + 1), ARG(2));
	ROW("srq_set_lw", "low_watermark -1", dat_srq_set_lw(s, -1), ARG(2));
	ROW("srq_set_lw", "low_watermark above max_recv_dtos",
	    dat_srq_set_lw(s, 9), ARG(2));

	ROW("ep_create_with_srq", "NULL ep_attributes",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, s, NULL,
				   &e),
	    ARG(7));
	ROW("ep_create_with_srq", "NULL ep_handle",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, s, &a,
				   NULL),
	    ARG(8));
	ROW("ep_create_with_srq", "freed SRQ",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, stale, &a,
				   &e),
	    HANDLE(SRQ));
	ROWN("ep_create_with_srq", "SRQ of another PZ",
	     dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, s2, &a,
				    &e),
	     ARG(2), "page: pz_handle does not match the SRQ's");
	a.service_type = (DAT_SERVICE_TYPE)7;
	ROW("ep_create_with_srq", "service_type 7",
	    dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, s, &a, &e),
	    ARG(7));
	ep_attr(&a);
	must("dat_ep_create_with_srq",
	     dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn, s, &a,
				    &e));
	ROWN("srq_free", "an EP is on it", dat_srq_free(s), STATE(SRQ_IN_USE),
	     "page: DAT_SRQ_IN_USE");
	t[0] = iov(&m1, 0, 64);
	ROWN("ep_post_recv", "an EP on an SRQ",
	     dat_ep_post_recv(e, 1, t, ck, DAT_COMPLETION_DEFAULT_FLAG),
	     NOSUB(DAT_INVALID_STATE),
	     "page (ep_create_with_srq): receives go to the SRQ");
	ROW("ep_recv_query", "an EP on an SRQ: the counts are unknown",
	    dat_ep_recv_query(e, &nb, NULL), DAT_SUCCESS);
	check("ep_recv_query on an SRQ EP: DAT_VALUE_UNKNOWN",
	      nb == DAT_VALUE_UNKNOWN);
	ROWN("ep_set_watermark", "soft high watermark 4 (not supported)",
	     dat_ep_set_watermark(e, 4, DAT_WATERMARK_INFINITE),
	     NOSUB(DAT_MODEL_NOT_SUPPORTED),
	     "provider attribute srq_watermarks_supported is 0");
	ROW("ep_set_watermark", "soft high watermark -2",
	    dat_ep_set_watermark(e, -2, DAT_WATERMARK_INFINITE), ARG(2));
	ROW("ep_set_watermark", "hard high watermark -2",
	    dat_ep_set_watermark(e, DAT_WATERMARK_INFINITE, -2), ARG(3));
	e2 = e;
	must("dat_ep_free", dat_ep_free(e));
	ROW("ep_recv_query", "freed SRQ EP", dat_ep_recv_query(e2, &nb, NULL),
	    HANDLE(EP));
	must("dat_srq_free", dat_srq_free(s));
	must("dat_srq_free(pz2)", dat_srq_free(s2));
}

/* dat_extension_op: the atomics' checks before anything is posted. */
static void rows_extension(void)
{
	DAT_LMR_TRIPLET t = iov(&m1, 0, 8), t4 = iov(&m1, 0, 4);
	DAT_RMR_TRIPLET rt, rmis;
	DAT_DTO_COOKIE ck;

	ck.as_64 = 9;
	rt.rmr_context = m1.rctx;
	rt.pad = 0;
	rt.target_address = (DAT_VADDR)(uintptr_t)m1.buf + 1024;
	rt.segment_length = 8;
	rmis = rt;
	rmis.target_address += 4;

	ROW("extension_op", "NULL handle",
	    dat_ib_post_fetch_and_add(NULL, 1, &t, ck, &rt, 0), HANDLE1);
	ROW("extension_op", "pointer to a handle variable",
	    dat_ib_post_fetch_and_add(HVAR, 1, &t, ck, &rt, 0), HANDLE1);
	ROW("extension_op", "freed EP",
	    dat_ib_post_fetch_and_add(s_ep, 1, &t, ck, &rt, 0), HANDLE(EP));
	ROW("extension_op", "IA as EP",
	    dat_ib_post_cmp_and_swap(A.ia, 1, 2, &t, ck, &rt, 0), HANDLE(EP));
	ROW("extension_op", "unknown operation 77", dat_extension_op(ep, 77),
	    NOSUB(DAT_MODEL_NOT_SUPPORTED));
	ROW("extension_op", "fetch_and_add: remote address 4 mod 8",
	    dat_ib_post_fetch_and_add(ep, 1, &t, ck, &rmis, 0),
	    IF_ATOMICS(ARG(5)));
	ROW("extension_op", "cmp_and_swap: remote address 4 mod 8",
	    dat_ib_post_cmp_and_swap(ep, 1, 2, &t, ck, &rmis, 0),
	    IF_ATOMICS(ARG(6)));
	ROW("extension_op", "fetch_and_add: NULL remote_iov",
	    dat_ib_post_fetch_and_add(ep, 1, &t, ck, NULL, 0),
	    IF_ATOMICS(ARG(5)));
	ROW("extension_op", "fetch_and_add: local buffer of 4 bytes",
	    dat_ib_post_fetch_and_add(ep, 1, &t4, ck, &rt, 0),
	    IF_ATOMICS(NOSUB(DAT_LENGTH_ERROR)));
	ROW("extension_op", "cmp_and_swap: NULL local_iov",
	    dat_ib_post_cmp_and_swap(ep, 1, 2, NULL, ck, &rt, 0),
	    IF_ATOMICS(ARG(4)));
	ROW("extension_op", "fetch_and_add: completion flags 0x4000",
	    dat_ib_post_fetch_and_add(ep, 1, &t, ck, &rt, 0x4000),
	    IF_ATOMICS(ARG(6)));
	ROW("extension_op", "cmp_and_swap: completion flags 0x4000",
	    dat_ib_post_cmp_and_swap(ep, 1, 2, &t, ck, &rt, 0x4000),
	    IF_ATOMICS(ARG(7)));
	ROW("extension_op", "fetch_and_add on an UNCONNECTED EP",
	    dat_ib_post_fetch_and_add(ep, 1, &t, ck, &rt, 0),
	    IF_ATOMICS(STATE(EP_UNCONNECTED)));
}

static void rows_ep_create(void)
{
	DAT_EP_HANDLE e;
	DAT_EP_ATTR a, good;
	DAT_EP_PARAM p;

	ep_attr(&good);
	HANDLE_ROWS("ep_create", HANDLE(IA), s_ia, A.pz, "PZ as IA",
		    dat_ep_create(H, A.pz, A.dto, A.dto, A.conn, &good, &e));
	ROW("ep_create", "freed PZ",
	    dat_ep_create(A.ia, s_pz, A.dto, A.dto, A.conn, &good, &e),
	    HANDLE(PZ));
	ROW("ep_create", "EVD as PZ",
	    dat_ep_create(A.ia, A.dto, A.dto, A.dto, A.conn, &good, &e),
	    HANDLE(PZ));
	ROW("ep_create", "PZ of another IA",
	    dat_ep_create(A.ia, B.pz, A.dto, A.dto, A.conn, &good, &e),
	    HANDLE(PZ));
	ROW("ep_create", "IA handle as recv EVD",
	    dat_ep_create(A.ia, A.pz, A.ia, A.dto, A.conn, &good, &e),
	    HANDLE(EVD_RECV));
	ROW("ep_create", "connection EVD as recv EVD",
	    dat_ep_create(A.ia, A.pz, A.conn, A.dto, A.conn, &good, &e),
	    HANDLE(EVD_RECV));
	ROW("ep_create", "freed EVD as request EVD",
	    dat_ep_create(A.ia, A.pz, A.dto, s_evd, A.conn, &good, &e),
	    HANDLE(EVD_REQUEST));
	ROW("ep_create", "DTO EVD of another IA as request EVD",
	    dat_ep_create(A.ia, A.pz, A.dto, B.dto, A.conn, &good, &e),
	    HANDLE(EVD_REQUEST));
	ROW("ep_create", "DTO EVD as connect EVD",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.dto, &good, &e),
	    HANDLE(EVD_CONN));
	ROW("ep_create", "CNO as connect EVD",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, cno, &good, &e),
	    HANDLE(EVD_CONN));
	a = good;
	a.service_type = (DAT_SERVICE_TYPE)99;
	ROW("ep_create", "service_type out of range",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.max_recv_dtos = -1;
	ROW("ep_create", "max_recv_dtos -1",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.max_request_dtos = ia_attr.max_dto_per_ep + 1;
	ROW("ep_create", "max_request_dtos over max_dto_per_ep",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.max_request_iov = ia_attr.max_iov_segments_per_dto + 1;
	ROW("ep_create", "max_request_iov over max_iov_segments_per_dto",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.max_message_size = ia_attr.max_message_size + 1;
	ROW("ep_create", "max_message_size over the IA's",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.recv_completion_flags = (DAT_COMPLETION_FLAGS)0x80;
	ROW("ep_create", "recv_completion_flags with undefined bits",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.qos = (DAT_QOS)0x100;
	ROW("ep_create", "qos out of range",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	a = good;
	a.ep_provider_specific_count = 2;
	a.ep_provider_specific = NULL;
	ROW("ep_create", "2 provider-specific attributes, NULL array",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &a, &e), ARG(6));
	ROW("ep_create", "NULL ep_handle",
	    dat_ep_create(A.ia, A.pz, A.dto, A.dto, A.conn, &good, NULL),
	    ARG(7));

	HANDLE_ROWS("ep_query", HANDLE(EP), s_ep, A.dto, "EVD as EP",
		    dat_ep_query(H, DAT_EP_FIELD_ALL, &p));
	ROW("ep_query", "NULL ep_param",
	    dat_ep_query(ep, DAT_EP_FIELD_ALL, NULL), ARG(3));
	ROW("ep_query", "ep_param_mask with undefined bits",
	    dat_ep_query(ep, (DAT_EP_PARAM_MASK)1 << 40, &p), ARG(2));

	memset(&p, 0, sizeof(p));
	must("dat_ep_query", dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	HANDLE_ROWS("ep_modify", HANDLE(EP), s_ep, A.ia, "IA as EP",
		    dat_ep_modify(H, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p));
	ROW("ep_modify", "ep_param_mask with undefined bits",
	    dat_ep_modify(ep, (DAT_EP_PARAM_MASK)1 << 40, &p), ARG(2));
	ROW("ep_modify", "ep_param_mask naming the IA (not modifiable)",
	    dat_ep_modify(ep, DAT_EP_FIELD_IA_HANDLE, &p), ARG(2));
	ROW("ep_modify", "ep_param_mask naming the state (not modifiable)",
	    dat_ep_modify(ep, DAT_EP_FIELD_EP_STATE, &p), ARG(2));
	ROW("ep_modify", "NULL ep_param",
	    dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, NULL),
	    ARG(3));
	p.pz_handle = A.ia;
	ROW("ep_modify", "IA handle as the new PZ",
	    dat_ep_modify(ep, DAT_EP_FIELD_PZ_HANDLE, &p), HANDLE(PZ));
	p.pz_handle = A.pz;
	p.recv_evd_handle = s_evd;
	ROW("ep_modify", "freed EVD as the new recv EVD",
	    dat_ep_modify(ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &p),
	    HANDLE(EVD_RECV));
	p.recv_evd_handle = A.dto;
	p.connect_evd_handle = A.cr;
	ROW("ep_modify", "CR EVD as the new connect EVD",
	    dat_ep_modify(ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p),
	    HANDLE(EVD_CONN));
	p.connect_evd_handle = A.conn;
	p.ep_attr.max_recv_dtos = -1;
	ROW("ep_modify", "max_recv_dtos -1",
	    dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p), ARG(3));
	p.ep_attr.max_recv_dtos = 8;
	p.ep_attr.service_type = (DAT_SERVICE_TYPE)7;
	ROW("ep_modify", "service_type out of range",
	    dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &p), ARG(3));
	p.ep_attr.service_type = DAT_SERVICE_TYPE_RC;
	check("ep_modify: the refused changes left the EP as it was",
	      dat_ep_query(ep, DAT_EP_FIELD_ALL, &p) == DAT_SUCCESS &&
		  p.ep_attr.max_recv_dtos == 8 && p.pz_handle == A.pz &&
		  p.connect_evd_handle == A.conn);

	HANDLE_ROWS("ep_get_status", HANDLE(EP), s_ep, A.pz, "PZ as EP",
		    dat_ep_get_status(H, NULL, NULL, NULL));
	ROWN("ep_get_status", "all out-pointers NULL",
	     dat_ep_get_status(ep, NULL, NULL, NULL), DAT_SUCCESS,
	     "page names no DAT_INVALID_PARAMETER: NULL outputs are skipped");
	HANDLE_ROWS("ep_recv_query", HANDLE(EP), s_ep, A.dto, "EVD as EP",
		    dat_ep_recv_query(H, NULL, NULL));
	ROWN("ep_recv_query", "both out-pointers NULL",
	     dat_ep_recv_query(ep, NULL, NULL), DAT_SUCCESS,
	     "the page makes both outputs optional (\"if not NULL\")");
	HANDLE_ROWS("ep_set_watermark", HANDLE(EP), s_ep, cno, "CNO as EP",
		    dat_ep_set_watermark(H, DAT_WATERMARK_INFINITE,
					 DAT_WATERMARK_INFINITE));
	ROW("ep_set_watermark", "soft_high_watermark -5",
	    dat_ep_set_watermark(ep, -5, DAT_WATERMARK_INFINITE), ARG(2));
	ROW("ep_set_watermark", "hard_high_watermark -5",
	    dat_ep_set_watermark(ep, DAT_WATERMARK_INFINITE, -5), ARG(3));
	HANDLE_ROWS("ep_reset", HANDLE(EP), s_ep, A.dto, "EVD as EP",
		    dat_ep_reset(H));
	HANDLE_ROWS("ep_free", HANDLE(EP), s_ep, A.ia, "IA as EP",
		    dat_ep_free(H));
	ROW("ep_free", "EP of an RSP (RESERVED)", dat_ep_free(ep_r),
	    STATE(EP_RESERVED));
}

static void rows_sp(void)
{
	DAT_PSP_HANDLE p;
	DAT_RSP_HANDLE r;
	DAT_PSP_PARAM pp;
	DAT_RSP_PARAM rp;
	DAT_CONN_QUAL q;

	HANDLE_ROWS("psp_create", HANDLE(IA), s_ia, A.cr, "EVD as IA",
		    dat_psp_create(H, 5001, A.cr, DAT_PSP_CONSUMER_FLAG, &p));
	ROW("psp_create", "DTO EVD as CR EVD",
	    dat_psp_create(A.ia, 5001, A.dto, DAT_PSP_CONSUMER_FLAG, &p),
	    HANDLE(EVD_CR));
	ROW("psp_create", "IA handle as CR EVD",
	    dat_psp_create(A.ia, 5001, A.ia, DAT_PSP_CONSUMER_FLAG, &p),
	    HANDLE(EVD_CR));
	ROW("psp_create", "freed EVD as CR EVD",
	    dat_psp_create(A.ia, 5001, s_evd, DAT_PSP_CONSUMER_FLAG, &p),
	    HANDLE(EVD_CR));
	ROW("psp_create", "CR EVD of another IA",
	    dat_psp_create(A.ia, 5001, B.cr, DAT_PSP_CONSUMER_FLAG, &p),
	    HANDLE(EVD_CR));
	ROW("psp_create", "psp_flags 7",
	    dat_psp_create(A.ia, 5001, A.cr, (DAT_PSP_FLAGS)7, &p), ARG(4));
	ROW("psp_create", "NULL psp_handle",
	    dat_psp_create(A.ia, 5001, A.cr, DAT_PSP_CONSUMER_FLAG, NULL),
	    ARG(5));
	ROW("psp_create", "conn_qual of a live PSP",
	    dat_psp_create(A.ia, psp_qual, A.cr, DAT_PSP_CONSUMER_FLAG, &p),
	    NOSUB(DAT_CONN_QUAL_IN_USE));
	ROW("psp_create", "conn_qual of a live RSP",
	    dat_psp_create(A.ia, rsp_qual, A.cr, DAT_PSP_CONSUMER_FLAG, &p),
	    NOSUB(DAT_CONN_QUAL_IN_USE));

	HANDLE_ROWS("psp_create_any", HANDLE(IA), s_ia, A.cr, "EVD as IA",
		    dat_psp_create_any(H, &q, A.cr, DAT_PSP_CONSUMER_FLAG, &p));
	ROW("psp_create_any", "NULL conn_qual",
	    dat_psp_create_any(A.ia, NULL, A.cr, DAT_PSP_CONSUMER_FLAG, &p),
	    ARG(2));
	ROW("psp_create_any", "connection EVD as CR EVD",
	    dat_psp_create_any(A.ia, &q, A.conn, DAT_PSP_CONSUMER_FLAG, &p),
	    HANDLE(EVD_CR));
	ROW("psp_create_any", "psp_flags -1",
	    dat_psp_create_any(A.ia, &q, A.cr, (DAT_PSP_FLAGS)-1, &p), ARG(4));
	ROW("psp_create_any", "NULL psp_handle",
	    dat_psp_create_any(A.ia, &q, A.cr, DAT_PSP_CONSUMER_FLAG, NULL),
	    ARG(5));

	HANDLE_ROWS("psp_query", HANDLE(PSP), s_psp, rsp, "RSP as PSP",
		    dat_psp_query(H, DAT_PSP_FIELD_ALL, &pp));
	ROW("psp_query", "NULL psp_param",
	    dat_psp_query(psp, DAT_PSP_FIELD_ALL, NULL), ARG(3));
	ROW("psp_query", "psp_param_mask with undefined bits",
	    dat_psp_query(psp, (DAT_PSP_PARAM_MASK)0x100, &pp), ARG(2));
	HANDLE_ROWS("psp_free", HANDLE(PSP), s_psp, rsp, "RSP as PSP",
		    dat_psp_free(H));

	HANDLE_ROWS("rsp_create", HANDLE(IA), s_ia, ep, "EP as IA",
		    dat_rsp_create(H, 5002, ep, A.cr, &r));
	ROW("rsp_create", "EVD as EP",
	    dat_rsp_create(A.ia, 5002, A.dto, A.cr, &r), HANDLE(EP));
	ROW("rsp_create", "freed EP",
	    dat_rsp_create(A.ia, 5002, s_ep, A.cr, &r), HANDLE(EP));
	ROW("rsp_create", "EP of another IA",
	    dat_rsp_create(A.ia, 5002, ep_b, A.cr, &r), HANDLE(EP));
	ROWN("rsp_create", "NULL EP (a Provider-created one)",
	     dat_rsp_create(A.ia, 5002, DAT_HANDLE_NULL, A.cr, &r),
	     NOSUB(DAT_MODEL_NOT_SUPPORTED),
	     "DAT_HANDLE_NULL asks for a Provider EP; only PSPs make them");
	ROW("rsp_create", "DTO EVD as CR EVD",
	    dat_rsp_create(A.ia, 5002, ep, A.dto, &r), HANDLE(EVD_CR));
	ROWN("rsp_create", "conn_qual 0", dat_rsp_create(A.ia, 0, ep, A.cr, &r),
	     ARG(2), "page: conn_qual invalid; 0 is no port");
	ROW("rsp_create", "NULL rsp_handle",
	    dat_rsp_create(A.ia, 5002, ep, A.cr, NULL), ARG(5));
	ROWN("rsp_create", "EP already on an RSP",
	     dat_rsp_create(A.ia, 5002, ep_r, A.cr, &r), STATE(EP_RESERVED),
	     "page: DAT_INVALID_STATE, EP not idle");
	ROW("rsp_create", "conn_qual of a live PSP",
	    dat_rsp_create(A.ia, psp_qual, ep, A.cr, &r),
	    NOSUB(DAT_CONN_QUAL_IN_USE));

	HANDLE_ROWS("rsp_query", HANDLE(RSP), s_rsp, psp, "PSP as RSP",
		    dat_rsp_query(H, DAT_RSP_FIELD_ALL, &rp));
	ROW("rsp_query", "NULL rsp_param",
	    dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, NULL), ARG(3));
	ROW("rsp_query", "rsp_param_mask with undefined bits",
	    dat_rsp_query(rsp, (DAT_RSP_PARAM_MASK)0x100, &rp), ARG(2));
	HANDLE_ROWS("rsp_free", HANDLE(RSP), s_rsp, psp, "PSP as RSP",
		    dat_rsp_free(H));
}

/* On the pending CR, before it is accepted. */
static void rows_cr_live(void)
{
	DAT_CR_PARAM p;
	char pdata[8] = "badin";

	ROW("cr_query", "NULL cr_param",
	    dat_cr_query(cr, DAT_CR_FIELD_ALL, NULL), ARG(3));
	ROW("cr_query", "cr_param_mask with undefined bits",
	    dat_cr_query(cr, (DAT_CR_PARAM_MASK)0x100, &p), ARG(2));
	ROW("cr_accept", "NULL EP for a PSP's CR",
	    dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL), HANDLE(EP));
	ROW("cr_accept", "EVD as EP", dat_cr_accept(cr, A.dto, 0, NULL),
	    HANDLE(EP));
	ROW("cr_accept", "freed EP", dat_cr_accept(cr, s_ep, 0, NULL),
	    HANDLE(EP));
	ROW("cr_accept", "EP of another IA", dat_cr_accept(cr, ep_b, 0, NULL),
	    HANDLE(EP));
	ROW("cr_accept", "private_data_size -1",
	    dat_cr_accept(cr, ep_a, -1, pdata), ARG(3));
	ROW("cr_accept", "private_data_size over max_private_data_size",
	    dat_cr_accept(cr, ep_a, 1 << 20, pdata), ARG(3));
	ROW("cr_accept", "private_data_size 8, NULL private_data",
	    dat_cr_accept(cr, ep_a, 8, NULL), ARG(4));
	ROW("cr_handoff", "conn_qual nobody listens on",
	    dat_cr_handoff(cr, 5003), ARG(2));
	check("cr: the refusals left the CR pending",
	      dat_cr_query(cr, DAT_CR_FIELD_ALL, &p) == DAT_SUCCESS);
}

/* CR handle rows (freed: the CR after its accept). */
static void rows_cr_handles(void)
{
	DAT_CR_PARAM p;

	ROW("get_handle_type", "freed CR",
	    dat_get_handle_type(s_cr, &(DAT_HANDLE_TYPE){0}), HANDLE1);
	HANDLE_ROWS("cr_query", HANDLE(CR), s_cr, A.cr, "EVD as CR",
		    dat_cr_query(H, DAT_CR_FIELD_ALL, &p));
	HANDLE_ROWS("cr_accept", HANDLE(CR), s_cr, ep_a, "EP as CR",
		    dat_cr_accept(H, ep, 0, NULL));
	HANDLE_ROWS("cr_reject", HANDLE(CR), s_cr, psp, "PSP as CR",
		    dat_cr_reject(H));
	HANDLE_ROWS("cr_handoff", HANDLE(CR), s_cr, A.ia, "IA as CR",
		    dat_cr_handoff(H, psp_qual));
}

/* Posts and CM calls, on the connected ep_a and the unconnected ep. */
static void rows_dto(void)
{
	DAT_LMR_TRIPLET t[4];
	DAT_RMR_TRIPLET rt;
	DAT_DTO_COOKIE ck;
	struct sockaddr_in sin;
	int i;

	ck.as_64 = 0xbad;
	for (i = 0; i < 4; i++)
		t[i] = iov(&m1, (DAT_VLEN)i * 64, 64);
	rt.rmr_context = m1.rctx;
	rt.pad = 0;
	rt.target_address = (DAT_VADDR)(uintptr_t)m1.buf + 1024;
	rt.segment_length = 64;

	HANDLE_ROWS("ep_post_send", HANDLE(EP), s_ep, A.dto, "EVD as EP",
		    dat_ep_post_send(H, 1, t, ck, DAT_COMPLETION_DEFAULT_FLAG));
	HANDLE_ROWS("ep_post_recv", HANDLE(EP), s_ep, A.ia, "IA as EP",
		    dat_ep_post_recv(H, 1, t, ck, DAT_COMPLETION_DEFAULT_FLAG));
	HANDLE_ROWS("ep_post_rdma_read", HANDLE(EP), s_ep, m1.lmr, "LMR as EP",
		    dat_ep_post_rdma_read(H, 1, t, ck, &rt,
					  DAT_COMPLETION_DEFAULT_FLAG));
	HANDLE_ROWS("ep_post_rdma_write", HANDLE(EP), s_ep, cno, "CNO as EP",
		    dat_ep_post_rdma_write(H, 1, t, ck, &rt,
					   DAT_COMPLETION_DEFAULT_FLAG));

	/* segment counts */
#define POSTS(what, n, iovp, want)                                             \
	do {                                                                   \
		ROW("ep_post_send", what,                                      \
		    dat_ep_post_send(ep_a, n, iovp, ck,                        \
				     DAT_COMPLETION_DEFAULT_FLAG),             \
		    want);                                                     \
		ROW("ep_post_recv", what,                                      \
		    dat_ep_post_recv(ep_a, n, iovp, ck,                        \
				     DAT_COMPLETION_DEFAULT_FLAG),             \
		    want);                                                     \
		ROW("ep_post_rdma_read", what,                                 \
		    dat_ep_post_rdma_read(ep_a, n, iovp, ck, &rt,              \
					  DAT_COMPLETION_DEFAULT_FLAG),        \
		    want);                                                     \
		ROW("ep_post_rdma_write", what,                                \
		    dat_ep_post_rdma_write(ep_a, n, iovp, ck, &rt,             \
					   DAT_COMPLETION_DEFAULT_FLAG),       \
		    want);                                                     \
	} while (0)

	POSTS("num_segments -1", -1, t, ARG(2));
	POSTS("num_segments over the EP's max iov (2)", 3, t, ARG(2));
	POSTS("num_segments 1, NULL local_iov", 1, NULL, ARG(3));
	/* dat_ep_post_send(3DAT) and the others: "one of the IOV segments
	 * pointed to a memory outside its LMR" is DAT_INVALID_PARAMETER. */
	t[1] = iov(&m1, m1.len - 32, 64);
	POSTS("segment past the end of its LMR", 2, t, ARG(3));
	t[1] = iov(&m1, 0, 64);
	t[1].virtual_address -= 4096;
	POSTS("segment before the start of its LMR", 2, t, ARG(3));
	t[1] = iov(&m1, 0, 64);
	t[1].segment_length = (DAT_VLEN)1 << 32;
	POSTS("segment_length 2^32", 2, t, ARG(3));
	/* "one of the LMRs used in local_iov was invalid":
	 * DAT_PRIVILEGES_VIOLATION; another PZ: DAT_PROTECTION_VIOLATION. */
	t[1] = iov(&m1, 64, 64);
	t[1].lmr_context ^= 0x5a5a0000;
	POSTS("unknown lmr_context", 2, t, NOSUB(DAT_PRIVILEGES_VIOLATION));
	t[1] = iov(&m2, 0, 64);
	POSTS("LMR of another PZ", 2, t, NOSUB(DAT_PROTECTION_VIOLATION));
	t[1] = iov(&m1, 64, 64);
	{
		/* "the local memory privileges do not allow the DTO
		 * operation": where the device writes, local write */
		DAT_REGION_DESCRIPTION reg;
		DAT_LMR_CONTEXT ro_ctx;
		DAT_LMR_TRIPLET ro_t;
		DAT_LMR_HANDLE ro;

		reg.for_va = m1.buf;
		must("read-only LMR",
		     dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, reg, 64, A.pz,
				    DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro, &ro_ctx,
				    NULL, NULL, NULL));
		ro_t = iov(&m1, 0, 64);
		ro_t.lmr_context = ro_ctx;
		ROW("ep_post_recv", "LMR without local write",
		    dat_ep_post_recv(ep_a, 1, &ro_t, ck,
				     DAT_COMPLETION_DEFAULT_FLAG),
		    NOSUB(DAT_PRIVILEGES_VIOLATION));
		ROW("ep_post_rdma_read", "LMR without local write",
		    dat_ep_post_rdma_read(ep_a, 1, &ro_t, ck, &rt,
					  DAT_COMPLETION_DEFAULT_FLAG),
		    NOSUB(DAT_PRIVILEGES_VIOLATION));
		must("dat_lmr_free", dat_lmr_free(ro));
	}

	ROW("ep_post_send", "completion_flags with undefined bits",
	    dat_ep_post_send(ep_a, 1, t, ck, (DAT_COMPLETION_FLAGS)0x80),
	    ARG(5));
	ROW("ep_post_send", "UNSIGNALLED on an EP without it",
	    dat_ep_post_send(ep_a, 1, t, ck, DAT_COMPLETION_UNSIGNALLED_FLAG),
	    ARG(5));
	ROW("ep_post_recv", "completion_flags with undefined bits",
	    dat_ep_post_recv(ep_a, 1, t, ck, (DAT_COMPLETION_FLAGS)0x80),
	    ARG(5));
	ROWN(
	    "ep_post_recv", "BARRIER_FENCE (a request-only flag)",
	    dat_ep_post_recv(ep_a, 1, t, ck, DAT_COMPLETION_BARRIER_FENCE_FLAG),
	    ARG(5), "dat_ep_modify(3DAT): recv posting does not support it");
	ROW("ep_post_rdma_read", "completion_flags with undefined bits",
	    dat_ep_post_rdma_read(ep_a, 1, t, ck, &rt,
				  (DAT_COMPLETION_FLAGS)0x80),
	    ARG(6));
	ROW("ep_post_rdma_write", "UNSIGNALLED on an EP without it",
	    dat_ep_post_rdma_write(ep_a, 1, t, ck, &rt,
				   DAT_COMPLETION_UNSIGNALLED_FLAG),
	    ARG(6));
	ROW("ep_post_rdma_read", "NULL remote_iov",
	    dat_ep_post_rdma_read(ep_a, 1, t, ck, NULL,
				  DAT_COMPLETION_DEFAULT_FLAG),
	    ARG(5));
	ROW("ep_post_rdma_write", "NULL remote_iov",
	    dat_ep_post_rdma_write(ep_a, 1, t, ck, NULL,
				   DAT_COMPLETION_DEFAULT_FLAG),
	    ARG(5));
	rt.segment_length = 128;
	ROWN("ep_post_rdma_read", "local buffer smaller than the remote",
	     dat_ep_post_rdma_read(ep_a, 1, t, ck, &rt,
				   DAT_COMPLETION_DEFAULT_FLAG),
	     NOSUB(DAT_LENGTH_ERROR), "page: DAT_LENGTH_ERROR, no subtype");
	rt.segment_length = 32;
	ROWN("ep_post_rdma_write", "remote buffer smaller than the local",
	     dat_ep_post_rdma_write(ep_a, 1, t, ck, &rt,
				    DAT_COMPLETION_DEFAULT_FLAG),
	     NOSUB(DAT_LENGTH_ERROR), "page: DAT_LENGTH_ERROR, no subtype");
	rt.segment_length = 64;

	ROW("ep_post_send", "unconnected EP",
	    dat_ep_post_send(ep, 1, t, ck, DAT_COMPLETION_DEFAULT_FLAG),
	    STATE(EP_UNCONNECTED));
	ROW("ep_post_rdma_read", "unconnected EP",
	    dat_ep_post_rdma_read(ep, 1, t, ck, &rt,
				  DAT_COMPLETION_DEFAULT_FLAG),
	    STATE(EP_UNCONNECTED));
	ROW("ep_post_rdma_write", "unconnected EP",
	    dat_ep_post_rdma_write(ep, 1, t, ck, &rt,
				   DAT_COMPLETION_DEFAULT_FLAG),
	    STATE(EP_UNCONNECTED));
	/* Receives may be posted in any state: these fail on their own. */
	t[1] = iov(&m1, m1.len - 32, 64);
	ROW("ep_post_recv", "unconnected EP, segment past its LMR",
	    dat_ep_post_recv(ep, 2, t, ck, DAT_COMPLETION_DEFAULT_FLAG),
	    ARG(3));
	t[1] = iov(&m2, 0, 64);
	ROW("ep_post_recv", "unconnected EP, LMR of another PZ",
	    dat_ep_post_recv(ep, 2, t, ck, DAT_COMPLETION_DEFAULT_FLAG),
	    NOSUB(DAT_PROTECTION_VIOLATION));
	{
		DAT_BOOLEAN ri = DAT_FALSE, qi = DAT_FALSE;
		DAT_EP_STATE st;

		check("dto: nothing was posted by the refused posts",
		      dat_ep_get_status(ep_a, &st, &ri, &qi) == DAT_SUCCESS &&
			  st == DAT_EP_STATE_CONNECTED && ri == DAT_TRUE &&
			  qi == DAT_TRUE);
	}

	/* connect */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(5004);
	inet_pton(AF_INET, ADDR_A, &sin.sin_addr);
	HANDLE_ROWS("ep_connect", HANDLE(EP), s_ep, A.pz, "PZ as EP",
		    dat_ep_connect(H, (DAT_IA_ADDRESS_PTR)&sin, 5004, secs(1),
				   0, NULL, DAT_QOS_BEST_EFFORT,
				   DAT_CONNECT_DEFAULT_FLAG));
#define CONNECT(addr, t, n, pd, qos, fl)                                       \
	dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)(addr), 5004, t, n, pd, qos, fl)
	ROW("ep_connect", "NULL remote_ia_address",
	    CONNECT(NULL, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT,
		    DAT_CONNECT_DEFAULT_FLAG),
	    ARG(2));
	sin.sin_family = 99;
	ROWN("ep_connect", "address family 99",
	     CONNECT(&sin, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT,
		     DAT_CONNECT_DEFAULT_FLAG),
	     E(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED),
	     "page: DAT_INVALID_ADDRESS when it cannot be converted");
	sin.sin_family = AF_INET;
	ROWN("ep_connect", "timeout 0",
	     CONNECT(&sin, 0, 0, NULL, DAT_QOS_BEST_EFFORT,
		     DAT_CONNECT_DEFAULT_FLAG),
	     ARG(4), "DAT 1.2: the timeout must be positive");
	ROW("ep_connect", "private_data_size -1",
	    CONNECT(&sin, secs(1), -1, NULL, DAT_QOS_BEST_EFFORT,
		    DAT_CONNECT_DEFAULT_FLAG),
	    ARG(5));
	ROW("ep_connect", "private_data_size over max_private_data_size",
	    CONNECT(&sin, secs(1), 1 << 20, m1.buf, DAT_QOS_BEST_EFFORT,
		    DAT_CONNECT_DEFAULT_FLAG),
	    ARG(5));
	ROW("ep_connect", "private_data_size 8, NULL private_data",
	    CONNECT(&sin, secs(1), 8, NULL, DAT_QOS_BEST_EFFORT,
		    DAT_CONNECT_DEFAULT_FLAG),
	    ARG(6));
	ROW("ep_connect", "qos out of range",
	    CONNECT(&sin, secs(1), 0, NULL, (DAT_QOS)0x100,
		    DAT_CONNECT_DEFAULT_FLAG),
	    ARG(7));
	ROWN("ep_connect", "qos HIGH_THROUGHPUT (not in dat_qos_supported)",
	     CONNECT(&sin, secs(1), 0, NULL, DAT_QOS_HIGH_THROUGHPUT,
		     DAT_CONNECT_DEFAULT_FLAG),
	     NOSUB(DAT_MODEL_NOT_SUPPORTED),
	     "page: MODEL_NOT_SUPPORTED for a qos the Provider lacks");
	ROW("ep_connect", "connect_flags with undefined bits",
	    CONNECT(&sin, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT,
		    (DAT_CONNECT_FLAGS)0x10),
	    ARG(8));
	ROW("ep_connect", "connected EP",
	    dat_ep_connect(ep_a, (DAT_IA_ADDRESS_PTR)&sin, 5004, secs(1), 0,
			   NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
	    STATE(EP_CONNECTED));

	HANDLE_ROWS(
	    "ep_dup_connect", HANDLE(EP), s_ep, A.dto, "EVD as EP",
	    dat_ep_dup_connect(H, ep_a, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT));
	ROW("ep_dup_connect", "NULL ep_dup_handle",
	    dat_ep_dup_connect(ep, DAT_HANDLE_NULL, secs(1), 0, NULL,
			       DAT_QOS_BEST_EFFORT),
	    HANDLE(EP));
	ROW("ep_dup_connect", "IA handle as ep_dup_handle",
	    dat_ep_dup_connect(ep, A.ia, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT),
	    HANDLE(EP));
	ROW("ep_dup_connect", "freed EP as ep_dup_handle",
	    dat_ep_dup_connect(ep, s_ep, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT),
	    HANDLE(EP));
	ROW("ep_dup_connect", "timeout 0",
	    dat_ep_dup_connect(ep, ep_a, 0, 0, NULL, DAT_QOS_BEST_EFFORT),
	    ARG(3));
	ROW("ep_dup_connect", "private_data_size -1",
	    dat_ep_dup_connect(ep, ep_a, secs(1), -1, NULL,
			       DAT_QOS_BEST_EFFORT),
	    ARG(4));
	ROW("ep_dup_connect", "private_data_size 8, NULL private_data",
	    dat_ep_dup_connect(ep, ep_a, secs(1), 8, NULL, DAT_QOS_BEST_EFFORT),
	    ARG(5));
	ROW("ep_dup_connect", "qos out of range",
	    dat_ep_dup_connect(ep, ep_a, secs(1), 0, NULL, (DAT_QOS)0x100),
	    ARG(6));
	ROWN(
	    "ep_dup_connect", "ep_dup_handle not connected",
	    dat_ep_dup_connect(ep, ep_r, secs(1), 0, NULL, DAT_QOS_BEST_EFFORT),
	    STATE(EP_RESERVED), "page: DAT_INVALID_STATE; subtype: its state");
	ROW("ep_dup_connect", "connected ep_handle",
	    dat_ep_dup_connect(ep_a, ep_a, secs(1), 0, NULL,
			       DAT_QOS_BEST_EFFORT),
	    STATE(EP_CONNECTED));

	HANDLE_ROWS("ep_disconnect", HANDLE(EP), s_ep, A.ia, "IA as EP",
		    dat_ep_disconnect(H, DAT_CLOSE_GRACEFUL_FLAG));
	ROW("ep_disconnect", "disconnect_flags 7",
	    dat_ep_disconnect(ep_a, (DAT_CLOSE_FLAGS)7), ARG(2));
	ROW("ep_disconnect", "unconnected EP",
	    dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG),
	    STATE(EP_UNCONNECTED));
	ROW("ep_disconnect", "RESERVED EP",
	    dat_ep_disconnect(ep_r, DAT_CLOSE_ABRUPT_FLAG), STATE(EP_RESERVED));
	ROW("ep_reset", "connected EP", dat_ep_reset(ep_a),
	    STATE(EP_CONNECTED));
	ROW("ep_reset", "RESERVED EP", dat_ep_reset(ep_r), STATE(EP_RESERVED));
	{
		DAT_EP_PARAM p;

		memset(&p, 0, sizeof(p));
		p.ep_attr.max_recv_dtos = 4;
		ROW("ep_modify", "max_recv_dtos of a connected EP",
		    dat_ep_modify(ep_a, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p),
		    STATE(EP_CONNECTED));
	}
	ROWN("rsp_create", "connected EP",
	     dat_rsp_create(A.ia, 5002, ep_a, A.cr, &(DAT_RSP_HANDLE){0}),
	     STATE(EP_CONNECTED), "page: DAT_INVALID_STATE, EP not idle");
	check("dto: the connection is still up after the bad calls",
	      dat_ep_get_status(ep_a, &(DAT_EP_STATE){0}, NULL, NULL) ==
		  DAT_SUCCESS);
}

/* ---- the run --------------------------------------------------------------
 */

static void connect_pair(void)
{
	struct sockaddr_in sin;
	DAT_EVENT ev;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	inet_pton(AF_INET, ADDR_A, &sin.sin_addr);
	must("dat_ep_connect",
	     dat_ep_connect(ep_b, (DAT_IA_ADDRESS_PTR)&sin, psp_qual, secs(30),
			    0, NULL, DAT_QOS_BEST_EFFORT,
			    DAT_CONNECT_DEFAULT_FLAG));
	expect_event("connection request", A.cr, DAT_CONNECTION_REQUEST_EVENT,
		     &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	rows_cr_live();
	must("dat_cr_accept", dat_cr_accept(cr, ep_a, 0, NULL));
	s_cr = cr;
	expect_event("established (passive)", A.conn,
		     DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	expect_event("established (active)", B.conn,
		     DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

static void disconnect_pair(void)
{
	DAT_EVENT ev;

	must("dat_ep_disconnect",
	     dat_ep_disconnect(ep_b, DAT_CLOSE_GRACEFUL_FLAG));
	expect_event("disconnected (active)", B.conn,
		     DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	expect_event("disconnected (passive)", A.conn,
		     DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
}

/* A provider attribute (name, value) whose value is "TRUE". */
static int attr_true(const DAT_PROVIDER_ATTR *pa, const char *name)
{
	int i;

	for (i = 0; i < pa->num_provider_specific_attr; i++)
		if (!strcmp(pa->provider_specific_attr[i].name, name))
			return !strcmp(pa->provider_specific_attr[i].value,
				       "TRUE");
	return 0;
}

static int coverage(void)
{
	int i, missing = 0;

	for (i = 0; i < N_SLOTS; i++) {
		if (!slot_rows[i]) {
			printf("FAIL slot %s has no row\n", slots[i]);
			missing++;
		}
	}
	n_checks++;
	if (N_SLOTS != 69) {
		printf("FAIL the slot list has %d entries, not 68 + 1\n",
		       N_SLOTS);
		missing++;
	}
	n_failures += missing;
	return missing;
}

static int run_matrix(void)
{
	DAT_PROVIDER_ATTR pa;
	DAT_EVENT ev;

	side_open(&A, IA_A);
	side_open(&B, IA_B);
	must("dat_ia_query",
	     dat_ia_query(A.ia, NULL, DAT_IA_FIELD_ALL, &ia_attr,
			  DAT_PROVIDER_FIELD_ALL, &pa));
	has_srq = ia_attr.max_srqs > 0;
	has_mw = ia_attr.max_rmrs > 0;
	has_atomics = attr_true(&pa, DAT_IB_ATTR_FETCH_AND_ADD) &&
		      attr_true(&pa, DAT_IB_ATTR_CMP_AND_SWAP);
	printf("# IA A reports: SRQ %s, memory windows %s, atomics %s\n",
	       has_srq ? "yes" : "no", has_mw ? "yes" : "no",
	       has_atomics ? "yes" : "no");
	hvar = A.ia;
	must("pz2", dat_pz_create(A.ia, &pz2));
	must("cno", dat_cno_create(A.ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	must("software EVD",
	     dat_evd_create(A.ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &sw_evd));
	mem_reg(&m1, A.pz, 4096);
	mem_reg(&m2, pz2, 4096);
	ep = ep_new(&A);
	ep_a = ep_new(&A);
	ep_r = ep_new(&A);
	ep_b = ep_new(&B);
	must("dat_psp_create_any",
	     dat_psp_create_any(A.ia, &psp_qual, A.cr, DAT_PSP_CONSUMER_FLAG,
				&psp));
	rsp_qual = psp_qual + 1;
	if (dat_rsp_create(A.ia, rsp_qual, ep_r, A.cr, &rsp) != DAT_SUCCESS) {
		rsp_qual = psp_qual + 2;
		must("dat_rsp_create",
		     dat_rsp_create(A.ia, rsp_qual, ep_r, A.cr, &rsp));
	}

	/* ia_open's rows first: a refused open must not reuse the freed
	 * IA handle the other rows use. */
	rows_ia_open();
	make_stale();
	rows_ia();
	rows_context();
	rows_cno();
	rows_evd();
	rows_pz();
	rows_lmr();
	rows_sp();
	rows_ep_create();
	rows_srq();
	if (has_srq)
		rows_srq_live();

	connect_pair(); /* with the CR rows on the pending CR */
	rows_cr_handles();
	rows_dto();
	if (has_mw)
		rows_rmr();
	else
		rows_rmr_absent();
	rows_extension();
	disconnect_pair();

	/* Teardown; graceful closes prove nothing was left behind. */
	must("dat_rsp_free", dat_rsp_free(rsp));
	must("dat_psp_free", dat_psp_free(psp));
	must("dat_ep_free", dat_ep_free(ep));
	must("dat_ep_free", dat_ep_free(ep_a));
	must("dat_ep_free", dat_ep_free(ep_r));
	must("dat_ep_free", dat_ep_free(ep_b));
	mem_free(&m1);
	mem_free(&m2);
	check("no event left on the software EVD",
	      dat_evd_dequeue(sw_evd, &ev) == NOSUB(DAT_QUEUE_EMPTY));
	must("dat_evd_free", dat_evd_free(sw_evd));
	must("dat_cno_free", dat_cno_free(cno));
	must("dat_pz_free", dat_pz_free(pz2));
	side_close(&B);
	side_close(&A);
	return coverage();
}

/*
 * DAPL_CMA_DISABLE=mw,atomic,srq: the features are reported absent and
 * their calls say DAT_MODEL_NOT_SUPPORTED for input that is otherwise
 * valid; without it (rxe has both) they are reported present.
 */
static int run_features(int absent)
{
	DAT_PROVIDER_ATTR pa;
	DAT_SRQ_ATTR sa;
	DAT_SRQ_HANDLE s = DAT_HANDLE_NULL;
	DAT_RMR_HANDLE r = DAT_HANDLE_NULL;
	DAT_EP_HANDLE e = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;
	char what[160];

	side_open(&A, IA_A);
	must("dat_ia_query",
	     dat_ia_query(A.ia, NULL, DAT_IA_FIELD_ALL, &ia_attr,
			  DAT_PROVIDER_FIELD_ALL, &pa));
	printf("# max_rmrs %d, max_srqs %d, srq_supported %d\n",
	       ia_attr.max_rmrs, ia_attr.max_srqs, pa.srq_supported);
	if (absent) {
		check("ia_query: max_rmrs 0", ia_attr.max_rmrs == 0);
		check("ia_query: max_rmr_target_address 0",
		      ia_attr.max_rmr_target_address == 0);
		check("ia_query: max_srqs 0", ia_attr.max_srqs == 0);
		check("ia_query: max_ep_per_srq 0",
		      ia_attr.max_ep_per_srq == 0);
		check("ia_query: max_recv_per_srq 0",
		      ia_attr.max_recv_per_srq == 0);
		check("ia_query: srq_supported FALSE",
		      pa.srq_supported == DAT_FALSE);
	} else {
		snprintf(what, sizeof(what),
			 "ia_query: rxe reports memory windows (max_rmrs %d)",
			 ia_attr.max_rmrs);
		check(what, ia_attr.max_rmrs > 0);
		snprintf(what, sizeof(what),
			 "ia_query: rxe reports SRQs (max_srqs %d)",
			 ia_attr.max_srqs);
		check(what, ia_attr.max_srqs > 0);
	}
	if (absent) {
		memset(&sa, 0, sizeof(sa));
		sa.max_recv_dtos = 4;
		sa.max_recv_iov = 1;
		ep_attr(&a);
		ROW("rmr_create", "valid input, max_rmrs 0",
		    dat_rmr_create(A.pz, &r), NOSUB(DAT_MODEL_NOT_SUPPORTED));
		ROW("srq_create", "valid input, max_srqs 0",
		    dat_srq_create(A.ia, A.pz, &sa, &s),
		    NOSUB(DAT_MODEL_NOT_SUPPORTED));
		ROWN("ep_create_with_srq", "max_srqs 0 (no SRQ can exist)",
		     dat_ep_create_with_srq(A.ia, A.pz, A.dto, A.dto, A.conn,
					    DAT_HANDLE_NULL, &a, &e),
		     NOSUB(DAT_MODEL_NOT_SUPPORTED),
		     "page: MODEL_NOT_SUPPORTED; the feature is reported "
		     "absent");
		/* The handle checks still come first. */
		ROW("rmr_create", "IA handle as PZ, max_rmrs 0",
		    dat_rmr_create(A.ia, &r), HANDLE(PZ));
		ROW("srq_create", "bad PZ, max_srqs 0",
		    dat_srq_create(A.ia, A.ia, &sa, &s), HANDLE(PZ));
	}
	side_close(&A);
	return 0;
}

static const char *env_or(const char *name, const char *def)
{
	const char *s = getenv(name);

	return s && *s ? s : def;
}

int main(int argc, char **argv)
{
	const char *s = getenv("TEST_TIMEOUT_SCALE");
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (s && atoi(s) > 0)
		scale = atoi(s);
	IA_A = env_or("DATTEST_SERVER_IA", IA_A);
	IA_B = env_or("DATTEST_CLIENT_IA", IA_B);
	ADDR_A = env_or("DATTEST_SERVER_ADDR", ADDR_A);
	while ((c = getopt(argc, argv, "a:b:s:")) != -1) {
		switch (c) {
		case 'a':
			IA_A = optarg;
			break;
		case 'b':
			IA_B = optarg;
			break;
		case 's':
			ADDR_A = optarg;
			break;
		default:
			goto usage;
		}
	}
	printf("# IA A %s (%s), IA B %s\n", IA_A, ADDR_A, IA_B);
	if (optind < argc && !strcmp(argv[optind], "absent"))
		run_features(1);
	else if (optind < argc && !strcmp(argv[optind], "present"))
		run_features(0);
	else if (optind < argc)
		goto usage;
	else
		run_matrix();
	printf("badinput: %d rows, %d checks, %d failures\n", n_rows, n_checks,
	       n_failures);
	return n_failures ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: %s [-a IA_A] [-b IA_B] [-s ADDR_A] [absent|present]\n",
		argv[0]);
	return 2;
}
