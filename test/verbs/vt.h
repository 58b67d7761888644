/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt.h - shared helpers of dattest-verbs, the verbs test program of the
 * provider suites (the test/verbs Bats suites).
 *
 * Only the public DAT API is used (<dat/udat.h>, -ldat).  Every check
 * prints what it compared, by name (dat_strerror for DAT_RETURN values,
 * symbolic names for events and DTO statuses), and counts failures; the
 * program exits non-zero if anything did not match.  Every wait is bounded
 * and scaled by TEST_TIMEOUT_SCALE.
 */
#ifndef VT_H
#define VT_H

#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include <dat/udat.h>

/* Options of one run: role and where to find the peer. */
struct vt_opts {
	const char *test;
	const char *role;	/* "server", "client" or "local" */
	const char *ia_name;	/* -i */
	const char *addr;	/* -a: the peer's (or expected own) address */
	DAT_CONN_QUAL qual;	/* -q */
	int count;		/* -n */
};

/* One open IA with the objects every test uses. */
struct vt {
	const char *name;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async_evd;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE req_evd;		/* DTO: request completions */
	DAT_EVD_HANDLE rcv_evd;		/* DTO: receive completions */
	DAT_EVD_HANDLE conn_evd;	/* CONNECTION */
	DAT_EVD_HANDLE cr_evd;		/* CR */
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR prov_attr;
	/* control messages: a small registered area */
	struct vt_mem *ctl;
	unsigned ctl_next;		/* next recv slot */
	unsigned ctl_seq;		/* cookies of control sends */
};

/* A registered buffer. */
struct vt_mem {
	unsigned char *buf;
	DAT_VLEN len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
};

/* A control message (64 bytes): what tests tell each other. */
struct vt_msg {
	char tag[16];
	uint64_t addr;
	uint64_t len;
	uint32_t rmr_context;
	uint32_t seed;
	uint32_t arg;
	uint32_t pad;
	char text[16];
};

/* The addresses of the server's and the client's IA: the guest's
 * rxe0-cma (vethA, 10.77.0.1) and rxe1-cma (vethB, 10.77.0.2) unless
 * DATTEST_SERVER_ADDR / DATTEST_CLIENT_ADDR name others (test/ofi, whose
 * DATTEST_SERVER_IA / DATTEST_CLIENT_IA name the IAs). */
const char *vt_server_addr(void);
const char *vt_client_addr(void);
#define VT_SERVER_ADDR	vt_server_addr()
#define VT_CLIENT_ADDR	vt_client_addr()
/* the IA of a role: DATTEST_CLIENT_IA for "client" (rxe1-cma unset),
 * else DATTEST_SERVER_IA (rxe0-cma unset) */
const char *vt_role_ia(const char *role);

#define VT_CTL_SLOTS	8
#define VT_CTL_SLOT	256
#define VT_CTL_COOKIE	0xC7100000ULL	/* | slot: control receives */
#define VT_CTL_SCOOKIE	0xC7500000ULL	/* | seq: control sends */

extern int vt_failures;
extern int vt_scale;
/* set: vt_note prints nothing (the middle of a long loop); failures
 * still print */
extern int vt_quiet;

/* ---- reporting ---- */
const char *vt_rc(DAT_RETURN rc);
const char *vt_ev(DAT_EVENT_NUMBER n);
const char *vt_dto(DAT_DTO_COMPLETION_STATUS s);
const char *vt_state(DAT_EP_STATE s);
void vt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						   noreturn));
/* rc == want, else a failure; returns whether it matched */
int vt_expect(const char *what, DAT_RETURN got, DAT_RETURN want);
/* the type (class bits and subtype ignored) matches */
int vt_expect_type(const char *what, DAT_RETURN got, DAT_RETURN want_type);
/* a call that must succeed for the test to go on */
void vt_must(const char *what, DAT_RETURN got);
int vt_expect_u64(const char *what, uint64_t got, uint64_t want);
int vt_expect_ptr(const char *what, const void *got, const void *want);
int vt_expect_true(const char *what, int cond);

/* ---- time ---- */
uint64_t vt_now_us(void);
/* n seconds, scaled, in microseconds (a DAT_TIMEOUT) */
DAT_TIMEOUT vt_secs(unsigned n);
DAT_TIMEOUT vt_msecs(unsigned n);
void vt_sleep_ms(unsigned ms);

/* ---- IA ---- */
void vt_open(struct vt *v, const char *name);
void vt_close(struct vt *v);
void vt_ep_attr(const struct vt *v, DAT_EP_ATTR *a);
DAT_EP_HANDLE vt_ep(struct vt *v, const DAT_EP_ATTR *a);
void vt_ep_free(DAT_EP_HANDLE ep);
DAT_EP_STATE vt_ep_state(DAT_EP_HANDLE ep);
void vt_expect_state(const char *what, DAT_EP_HANDLE ep, DAT_EP_STATE want);
void vt_sockaddr(struct sockaddr_in *sin, const char *addr);
int vt_addr_is(const char *what, const DAT_SOCK_ADDR *sa, const char *addr);

/* ---- memory ---- */
void vt_mem_alloc(struct vt *v, struct vt_mem *m, DAT_VLEN len,
		  DAT_MEM_PRIV_FLAGS priv);
void vt_mem_free(struct vt_mem *m);
DAT_LMR_TRIPLET vt_iov(const struct vt_mem *m, DAT_VLEN off, DAT_VLEN len);
DAT_RMR_TRIPLET vt_riov(const struct vt_msg *msg, DAT_VLEN off,
			DAT_VLEN len);
void vt_fill(void *buf, size_t len, uint32_t seed);
int vt_check(const char *what, const void *buf, size_t len, uint32_t seed);
void vt_fill_at(void *buf, size_t len, uint32_t seed, size_t start);
int vt_check_at(const char *what, const void *buf, size_t len, uint32_t seed,
		size_t start);
DAT_DTO_COOKIE vt_cookie(uint64_t v);

/* ---- events ---- */
/* dat_evd_wait, threshold 1; returns the DAT_RETURN */
DAT_RETURN vt_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT t, DAT_EVENT *ev);
/* waits (default bound) for one event and checks its number */
int vt_expect_event(const char *what, DAT_EVD_HANDLE evd,
		    DAT_EVENT_NUMBER want, DAT_EVENT *ev);
/* polls with dat_evd_dequeue until an event comes or t expires */
DAT_RETURN vt_poll(DAT_EVD_HANDLE evd, DAT_TIMEOUT t, DAT_EVENT *ev);
/* checks a DTO completion event */
int vt_check_dto(const char *what, const DAT_EVENT *ev, DAT_EP_HANDLE ep,
		 uint64_t cookie, DAT_DTO_COMPLETION_STATUS status,
		 DAT_VLEN len);
/* waits for one DTO completion and checks it */
int vt_expect_dto(const char *what, DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep,
		  uint64_t cookie, DAT_DTO_COMPLETION_STATUS status,
		  DAT_VLEN len);
/* as vt_expect_dto, by polling (for EPs whose waits need solicited) */
int vt_expect_dto_poll(const char *what, DAT_EVD_HANDLE evd,
		       DAT_EP_HANDLE ep, uint64_t cookie,
		       DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len);
/* nothing more queued right now */
void vt_expect_empty(const char *what, DAT_EVD_HANDLE evd);

/* ---- connections ---- */
void vt_listening(DAT_CONN_QUAL qual);
DAT_PSP_HANDLE vt_psp(struct vt *v, DAT_CONN_QUAL *qual);
/* waits for a CR on v->cr_evd; returns its handle, fills *ev */
DAT_CR_HANDLE vt_wait_cr(struct vt *v, DAT_EVENT *ev);
void vt_accept(struct vt *v, DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
	       const void *pdata, DAT_COUNT plen);
void vt_connect(struct vt *v, DAT_EP_HANDLE ep, const char *addr,
		DAT_CONN_QUAL qual, const void *pdata, DAT_COUNT plen);
/* graceful disconnect and its DISCONNECTED event */
/* a connection's end, however it ends: ev is DISCONNECTED or BROKEN;
 * vt_wait_conn_end waits for it on v's connection EVD (30 s) */
int vt_check_conn_end(const char *what, const DAT_EVENT *ev);
void vt_wait_conn_end(struct vt *v, const char *what);
void vt_disconnect(struct vt *v, DAT_EP_HANDLE ep);
/* waits for the peer's disconnect */
void vt_wait_disconnected(struct vt *v, DAT_EP_HANDLE ep);
/* server side: psp_any, accept one connection on a new EP */
DAT_EP_HANDLE vt_serve_one(struct vt *v, const DAT_EP_ATTR *a,
			   int ctl_recvs, DAT_PSP_HANDLE *psp);
/* two IAs of one process: c's ep_c connects to l's listener at addr,
 * qual; l accepts on a new EP (returned), sends tag, c receives it */
DAT_EP_HANDLE vt_connect_local(struct vt *l, struct vt *c,
			       DAT_EP_HANDLE ep_c, const char *addr,
			       DAT_CONN_QUAL qual, const char *tag);
/* client side: new EP connected to opts' address/qual */
DAT_EP_HANDLE vt_client_one(struct vt *v, const struct vt_opts *o,
			    const DAT_EP_ATTR *a, int ctl_recvs);

/* ---- control messages ---- */
void vt_ctl_init(struct vt *v);
void vt_ctl_post(struct vt *v, DAT_EP_HANDLE ep);
void vt_ctl_send(struct vt *v, DAT_EP_HANDLE ep, const struct vt_msg *m,
		 DAT_COMPLETION_FLAGS flags);
/* waits for a control message; poll=1 uses dequeue (solicited EPs) */
void vt_ctl_recv(struct vt *v, DAT_EP_HANDLE ep, struct vt_msg *m,
		 const char *want_tag, int poll);
void vt_msg_init(struct vt_msg *m, const char *tag);

/* ---- tests ---- */
typedef int (*vt_test_fn)(const struct vt_opts *o);
struct vt_test {
	const char *name;
	vt_test_fn server;	/* or the only role, for local tests */
	vt_test_fn client;
};

/*
 * The main of a test program: PROG TEST server|client|local [-i IA]
 * [-a ADDR] [-q QUAL] [-n COUNT].  Finds TEST in the NULL-terminated
 * tables, runs the role ("local" is the server slot) bounded by an alarm
 * of alarm_secs (times TEST_TIMEOUT_SCALE) and prints PASS or FAILED;
 * its exit status.  Usage errors exit 2.  print_pid: first print
 * "pid <pid>" (for suites that signal the process).
 */
/* The test goes on: its watchdog (vt_run's alarm_secs, scaled) starts
 * again.  Every vt_note calls it; a loop that prints its own progress
 * lines calls it too. */
void vt_progress(void);
int vt_run(int argc, char **argv, const char *prog,
	   const struct vt_test *const *tables, unsigned ntables,
	   unsigned alarm_secs, int print_pid);

extern const struct vt_test vt_cm_tests[];
extern const struct vt_test vt_cm_many_tests[];
extern const struct vt_test vt_dto_tests[];
extern const struct vt_test vt_evd_tests[];
extern const struct vt_test vt_legacy_tests[];
extern const struct vt_test vt_atomic_tests[];	/* atomic.c */
extern const struct vt_test vt_srq_tests[];	/* srq.c */
extern const struct vt_test vt_order_tests[];	/* vt_order.c */
extern const struct vt_test vt_passive_tests[];	/* vt_passive.c */
extern const struct vt_test vt_reuse_tests[];	/* vt_reuse.c */
extern const struct vt_test vt_lmr_life_tests[]; /* vt_lmr_life.c */
extern const struct vt_test vt_cno_agent_tests[]; /* vt_cno_agent.c */
extern const struct vt_test vt_rmr_pz_tests[];	/* vt_rmr_pz.c */
extern const struct vt_test vt_accept_dead_tests[]; /* vt_accept_dead.c */
extern const struct vt_test vt_graceful_tests[]; /* vt_graceful.c */

#endif /* VT_H */
