/*
 * dt.h - dapltest, the uDAPL conformance and performance runner.
 *
 * Uses only the public DAT API (<dat/udat.h>, -ldat): it goes through the
 * registry and the provider exactly as a legacy application does.  Every
 * wait is bounded (seconds scaled by TEST_TIMEOUT_SCALE); every failure
 * names the DAT_RETURN by its dat_strerror text.
 */
#ifndef DT_H
#define DT_H

#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include <dat/udat.h>

/* Exit statuses (dapltest(1)): never a truncated DAT_RETURN. */
enum {
	DT_EXIT_OK = 0,		/* everything ran and passed */
	DT_EXIT_FAIL = 1,	/* a test or case failed (peer lost included) */
	DT_EXIT_USAGE = 2,	/* bad command line */
	DT_EXIT_IA = 3,		/* the IA cannot be opened */
	DT_EXIT_CONNECT = 4,	/* server unreachable, or handshake refused */
};

#define DT_DEFAULT_PORT		45278	/* the OFA dapltest's 0xB0DE */
#define DT_PROTO_VERSION	1
#define DT_BYTE_ORDER		0x01020304u
#define DT_MAX_OPS		8
#define DT_MAX_THREADS		64	/* as OFA's dapltest accepts */
#define DT_MAX_EPS		64	/* per thread */

/* dt_hello.features of the server's answer (0 from a server that predates
 * a feature: the field was padding, always zero) */
#define DT_FEAT_FS_CMD		0x1	/* F: the echo service's RDMA commands */

enum dt_test { DT_T = 1, DT_P, DT_F, DT_Q };
enum dt_op_type { DT_SR = 1, DT_RR, DT_RW };

struct dt_op {
	uint32_t server_init;	/* 1: the server sends, reads, writes */
	uint32_t type;		/* enum dt_op_type */
	uint32_t seg_size;
	uint32_t num_segs;
	uint32_t reap;		/* -f: reaped by polling */
	uint32_t pad;
};

/*
 * The handshake: the client's first message on its control connection and
 * the server's answer.  byte_order is written in the sender's order; the
 * receiver sees 0x04030201 if the two differ.  All fields are then in the
 * (common) host order.
 */
struct dt_hello {
	char magic[8];		/* "DAPLTEST" */
	uint32_t byte_order;
	uint32_t version;
	uint32_t test;		/* enum dt_test */
	uint32_t status;	/* answer: 0 ok, else refused (see text) */
	uint32_t threads, eps, iterations, nops;
	uint32_t validate, poll, cno;
	uint32_t pipeline, perf_type, seg_size, num_segs, perf_poll;
	uint32_t features;	/* answer: DT_FEAT_* the server offers */
	uint64_t data_qual;	/* answer: where data connections go */
	uint64_t buf_addr;	/* answer (F, P): the server's RDMA buffer */
	uint64_t buf_len;
	uint32_t buf_rctx;
	uint32_t pad2;
	struct dt_op ops[DT_MAX_OPS];
	char text[160];
};

/* The client's command line, shared by T, P and F. */
struct dt_args {
	int test;
	const char *ia_name;
	const char *server;
	unsigned port;
	int debug;
	int tap;
	/* T */
	unsigned threads, eps, iterations;
	int validate, poll, cno;
	unsigned nops;
	struct dt_op ops[DT_MAX_OPS];
	/* P */
	int perf_poll;
	unsigned pipeline;
	/* L */
	unsigned limit_max, limit_width;
	/* L, F: selected names */
	const char *names[32];
	unsigned nnames;
	/* F: -f area (OFA's function feature) */
	const char *area;
};

/* ---- dt_util.c ---- */
extern int dt_scale;
extern int dt_debug;
const char *dt_rc(DAT_RETURN rc);
const char *dt_ev(DAT_EVENT_NUMBER n);
const char *dt_dto(DAT_DTO_COMPLETION_STATUS s);
void dt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dt_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t dt_now_us(void);
DAT_TIMEOUT dt_secs(unsigned n);
void dt_sleep_ms(unsigned ms);

/* waits for one event on evd: blocking (dat_evd_wait), polling
 * (dat_evd_dequeue) or through a CNO; bounded by t */
DAT_RETURN dt_wait(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno, int poll,
		   DAT_TIMEOUT t, DAT_EVENT *ev);
/* waits for one DTO completion and checks status and cookie */
int dt_wait_dto(const char *what, DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno,
		int poll, uint64_t cookie, DAT_VLEN *len);

/* a registered buffer */
struct dt_mem {
	unsigned char *buf;
	DAT_VLEN len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
};
#define DT_PRIV_ALL (DAT_MEM_PRIV_LOCAL_READ_FLAG | \
	DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG | \
	DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
DAT_RETURN dt_mem_alloc(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, struct dt_mem *m,
			DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv);
void dt_mem_free(struct dt_mem *m);
DAT_LMR_TRIPLET dt_iov(const struct dt_mem *m, DAT_VLEN off, DAT_VLEN len);
DAT_DTO_COOKIE dt_cookie(uint64_t v);
void dt_fill(void *buf, size_t len, uint32_t seed);
/* 1 if buf holds the pattern of seed; else reports where it differs */
int dt_check(const char *what, const void *buf, size_t len, uint32_t seed);

/* EP attributes every test uses: RC, the given queue depths */
void dt_ep_attr(const DAT_IA_ATTR *ia, DAT_EP_ATTR *a, int recvs, int reqs,
		int iov);
int dt_sockaddr(struct sockaddr_in *sin, const char *host, unsigned port);
/* opens the IA or prints why not */
DAT_RETURN dt_ia_open(const char *name, DAT_IA_HANDLE *ia,
		      DAT_EVD_HANDLE *async);
/* connect ep and wait for ESTABLISHED (bounded); 0 on success */
int dt_connect(DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd,
	       const struct sockaddr_in *sin, DAT_CONN_QUAL qual,
	       const void *pdata, DAT_COUNT plen, const char *what);
/* accept a CR onto ep and wait for ESTABLISHED; 0 on success */
int dt_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd,
	      const void *pdata, DAT_COUNT plen);
/* graceful disconnect, waiting (bounded) for DISCONNECTED */
void dt_disconnect(DAT_EP_HANDLE ep, DAT_EVD_HANDLE conn_evd);
const char *dt_op_name(uint32_t type);

/* ---- the IA without -D, and -R (dt_ia.c) ---- */
extern DAT_QOS dt_qos_wanted;	/* -R */
extern DAT_QOS dt_qos;		/* what EPs and connects use on this IA */
int dt_qos_parse(const char *s, DAT_QOS *q);
/* after an IA opened: dt_qos is dt_qos_wanted if the provider offers it,
 * else best effort (said once) */
void dt_qos_settle(DAT_IA_HANDLE ia, const char *ia_name);
/* the first DAT 1.2 entry of dat.conf whose IA opens, or NULL (said why) */
const char *dt_default_ia(void);

/* ---- the functional cases by area (dt_func.c) ---- */
int dt_func_area(const char *area);
/* the name of case number n (OFA's "case<n>") of area, or NULL */
const char *dt_func_case(const char *area, unsigned n, unsigned *ncases);
void dt_func_list(const char *area);

/* ---- control connection (dt_ctl.c) ---- */
struct dt_ctl {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE req, rcv, conn, cr;
	DAT_IA_ATTR attr;
	DAT_EP_HANDLE ep;
	struct dt_mem mem;	/* slot 0: send, 1..: receives */
	unsigned next_recv;
};
int dt_ctl_open(struct dt_ctl *c, const char *ia_name);
void dt_ctl_close(struct dt_ctl *c);
int dt_ctl_post_recv(struct dt_ctl *c);
int dt_ctl_send(struct dt_ctl *c, const struct dt_hello *h);
int dt_ctl_recv(struct dt_ctl *c, struct dt_hello *h, unsigned secs);
/* a message if one is there: 1, none: 0, the connection failed: -1 */
int dt_ctl_poll(struct dt_ctl *c, struct dt_hello *h);
/* checks magic, version and byte order; 0 if acceptable, else why in buf */
int dt_hello_check(const struct dt_hello *h, char *why, size_t n);
void dt_hello_init(struct dt_hello *h, int test);
/* client: open, connect to the server, handshake; returns DT_EXIT_* */
int dt_client_start(struct dt_ctl *c, const struct dt_args *a,
		    struct dt_hello *h, struct dt_hello *answer);
void dt_client_finish(struct dt_ctl *c);

/* ---- the tests ---- */
int dt_server(const struct dt_args *a);
int dt_quit(const struct dt_args *a);
int dt_transaction(const struct dt_args *a);
int dt_performance(const struct dt_args *a);
int dt_limit(const struct dt_args *a);
int dt_functional(const struct dt_args *a);

/* server halves (run on the server's control connection) */
int dt_serve_transaction(struct dt_ctl *c, struct dt_hello *h);
int dt_serve_performance(struct dt_ctl *c, struct dt_hello *h);
int dt_serve_functional(struct dt_ctl *c, struct dt_hello *h);

/* one end of the transaction test on an EP (shared by client and server) */
struct dt_xep;
struct dt_xcfg {
	const struct dt_op *ops;
	unsigned nops, iterations;
	int validate, poll;
	int server;		/* this side is the server */
};

/* ---- results: PASS/FAIL/UNSUPP lines, TAP ---- */
struct dt_results {
	int tap;
	unsigned passed, failed, unsupp, n;
};
void dt_result(struct dt_results *r, const char *name, int result,
	       const char *why);
#define DT_PASS 0
#define DT_FAIL 1
#define DT_UNSUPP 2
int dt_summary(struct dt_results *r);

#endif /* DT_H */
