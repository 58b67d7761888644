/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest: drives libdat.so.1 from the command line for the Bats tests
 * (test/bats/).  Each command prints what it did and what libdat
 * returned, by name, and exits 0 only if every call returned what the
 * command expects.
 *
 *   dattest list [MAX]                 list the registered providers
 *   dattest open NAME [MAJ MIN TS [QLEN]]  open and close one IA (graceful)
 *   dattest open2 NAME                 two IAs of one provider at once
 *   dattest reopen NAME N [fork]       open and close the only IA N times;
 *                                      with fork, then a child does the
 *                                      same and leaves by exit()
 *   dattest dispatch NAME              each wrapper reaches its own slot,
 *                                      and refuses bad handles
 *   dattest fork NAME                  a child opens/closes while the
 *                                      parent holds an IA
 *   dattest threads NAME N ITER        N threads open and close at once
 *   dattest dynamic                    add/remove an in-process provider
 *   dattest strerror-all               a message for every value
 *   dattest args                       the entry points' argument checks
 *   dattest bind NAME                  IAs of NAME nonthreadsafe, threadsafe,
 *                                      nonthreadsafe: each one's DAPL_IA_PARAMS
 *                                      and address, then again after the
 *                                      threadsafe one closed
 *   dattest fork-storm NAME N FORKS    N threads open, post and close while
 *                                      the main thread forks FORKS children,
 *                                      each of which opens, posts, closes,
 *                                      lists and exits (bounded by alarm)
 *   dattest remove-race                remove an in-process provider while
 *                                      an open of it is inside ia_open
 *   dattest ext NAME                   dat_extension_op and
 *                                      dat_registry_add_extension on a
 *                                      provider that registered none
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dat/udat.h>
#include <dat/dat_registry.h>
#include <dat/dat_ib_extensions.h>

#include "unit/table_fill.h"

#define ERR(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))
#define SLOT_MARK(k) ERR(DAT_INTERNAL_ERROR, (k))

static int failures;

/* "DAT_X DAT_Y" for a return value: the two constants dat_strerror names. */
static const char *rc_name(DAT_RETURN rc)
{
	static __thread char buf[160];
	const char *major, *minor;

	if (dat_strerror(rc, &major, &minor) != DAT_SUCCESS) {
		snprintf(buf, sizeof(buf), "0x%08x (unknown)", rc);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%.*s %.*s", (int)strcspn(major, ":"), major,
		 (int)strcspn(minor, ":"), minor);
	return buf;
}

static void expect(const char *what, DAT_RETURN got, DAT_RETURN want)
{
	if (got == want)
		return;
	failures++;
	printf("FAIL %s: got %s (0x%08x)", what, rc_name(got), got);
	printf(", want %s (0x%08x)\n", rc_name(want), want);
}

static int cmd_list(int argc, char **argv)
{
	DAT_COUNT max = argc > 0 ? atoi(argv[0]) : 64, n = -1, i;
	DAT_PROVIDER_INFO *list[64], info[64];
	DAT_RETURN rc;

	if (max > 64)
		max = 64;
	for (i = 0; i < 64; i++)
		list[i] = &info[i];
	rc = dat_registry_list_providers(max, &n, list);
	printf("list: %s count %d\n", rc_name(rc), n);
	for (i = 0; rc == DAT_SUCCESS && i < n; i++)
		printf("provider %s u%u.%u %s\n", info[i].ia_name,
		       info[i].dapl_version_major, info[i].dapl_version_minor,
		       info[i].is_thread_safe ? "threadsafe" : "nonthreadsafe");
	return rc == DAT_SUCCESS || (max == 0 && n >= 0) ? 0 : 1;
}

static DAT_RETURN open_ia(const char *name, DAT_UINT32 major, DAT_UINT32 minor,
			  DAT_BOOLEAN ts, DAT_COUNT qlen, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;

	return dat_ia_openv((DAT_NAME_PTR)name, qlen, &async, ia, major, minor,
			    ts);
}

static int cmd_open(int argc, char **argv)
{
	DAT_UINT32 major = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	DAT_UINT32 minor = argc > 2 ? strtoul(argv[2], NULL, 0) : 2;
	DAT_BOOLEAN ts = argc > 3 && atoi(argv[3]) ? DAT_TRUE : DAT_FALSE;
	DAT_COUNT qlen = argc > 4 ? atoi(argv[4]) : 8;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	rc = open_ia(argv[0], major, minor, ts, qlen, &ia);
	printf("open %s: %s\n", argv[0], rc_name(rc));
	if (rc != DAT_SUCCESS)
		return 1;
	rc = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	printf("close %s: %s\n", argv[0], rc_name(rc));
	return rc != DAT_SUCCESS;
}

static int cmd_open2(int argc, char **argv)
{
	DAT_IA_HANDLE a = DAT_HANDLE_NULL, b = DAT_HANDLE_NULL;

	(void)argc;
	expect("open first", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &a),
	       DAT_SUCCESS);
	expect("open second", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &b),
	       DAT_SUCCESS);
	if (a == b)
		printf("FAIL two opens returned one handle\n"), failures++;
	expect("close first", dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG),
	       DAT_SUCCESS);
	expect("close first again", dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	expect("close second", dat_ia_close(b, DAT_CLOSE_GRACEFUL_FLAG),
	       DAT_SUCCESS);
	printf("open2 %s: %d failures\n", argv[0], failures);
	return failures != 0;
}

static void open_close_n(const char *name, int n, const char *who)
{
	DAT_IA_HANDLE ia;
	int i;

	for (i = 0; i < n; i++) {
		ia = DAT_HANDLE_NULL;
		expect(who, open_ia(name, 1, 2, DAT_FALSE, 8, &ia),
		       DAT_SUCCESS);
		expect(who, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		       DAT_SUCCESS);
	}
}

/* A process that opens and closes its only IA again and again. */
static int cmd_reopen(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, status;
	pid_t pid;

	open_close_n(argv[0], n, "parent open/close");
	fflush(stdout);
	fflush(stderr);
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid = fork();
		if (pid == 0) {
			open_close_n(argv[0], n, "child open/close");
			printf("child: %d failures\n", failures);
			exit(failures != 0);	/* exit(): its atexit handlers */
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("FAIL child did not exit cleanly\n");
			failures++;
		}
	}
	printf("reopen %s: %d failures\n", argv[0], failures);
	return failures != 0;
}

/* The 66 dispatching entry points: slot and the subtype of a bad handle. */
static const struct {
	const char *name;
	int slot;
	DAT_RETURN_SUBTYPE bad_handle;
} wrappers[] = {
    {"dat_ia_query", 3, DAT_INVALID_HANDLE_IA},
    {"dat_set_consumer_context", 5, DAT_INVALID_HANDLE1},
    {"dat_get_consumer_context", 6, DAT_INVALID_HANDLE1},
    {"dat_get_handle_type", 7, DAT_INVALID_HANDLE1},
    {"dat_cr_query", 13, DAT_INVALID_HANDLE_CR},
    {"dat_cr_accept", 14, DAT_INVALID_HANDLE_CR},
    {"dat_cr_reject", 15, DAT_INVALID_HANDLE_CR},
    {"dat_cr_handoff", 16, DAT_INVALID_HANDLE_CR},
    {"dat_evd_resize", 23, DAT_INVALID_HANDLE1},
    {"dat_evd_post_se", 24, DAT_INVALID_HANDLE1},
    {"dat_evd_dequeue", 25, DAT_INVALID_HANDLE1},
    {"dat_evd_query", 18, DAT_INVALID_HANDLE1},
    {"dat_evd_free", 26, DAT_INVALID_HANDLE1},
    {"dat_ep_create", 27, DAT_INVALID_HANDLE_IA},
    {"dat_ep_query", 28, DAT_INVALID_HANDLE_EP},
    {"dat_ep_modify", 29, DAT_INVALID_HANDLE_EP},
    {"dat_ep_connect", 30, DAT_INVALID_HANDLE_EP},
    {"dat_ep_dup_connect", 31, DAT_INVALID_HANDLE_EP},
    {"dat_ep_disconnect", 32, DAT_INVALID_HANDLE_EP},
    {"dat_ep_post_send", 33, DAT_INVALID_HANDLE_EP},
    {"dat_ep_post_recv", 34, DAT_INVALID_HANDLE_EP},
    {"dat_ep_post_rdma_read", 35, DAT_INVALID_HANDLE_EP},
    {"dat_ep_post_rdma_write", 36, DAT_INVALID_HANDLE_EP},
    {"dat_ep_get_status", 37, DAT_INVALID_HANDLE_EP},
    {"dat_ep_free", 38, DAT_INVALID_HANDLE_EP},
    {"dat_ep_reset", 56, DAT_INVALID_HANDLE_EP},
    {"dat_lmr_query", 40, DAT_INVALID_HANDLE_LMR},
    {"dat_lmr_free", 41, DAT_INVALID_HANDLE_LMR},
    {"dat_lmr_sync_rdma_read", 59, DAT_INVALID_HANDLE_IA},
    {"dat_lmr_sync_rdma_write", 60, DAT_INVALID_HANDLE_IA},
    {"dat_rmr_create", 42, DAT_INVALID_HANDLE_PZ},
    {"dat_rmr_query", 43, DAT_INVALID_HANDLE_RMR},
    {"dat_rmr_bind", 44, DAT_INVALID_HANDLE_RMR},
    {"dat_rmr_free", 45, DAT_INVALID_HANDLE_RMR},
    {"dat_psp_create", 46, DAT_INVALID_HANDLE_IA},
    {"dat_psp_create_any", 55, DAT_INVALID_HANDLE_IA},
    {"dat_psp_query", 47, DAT_INVALID_HANDLE_PSP},
    {"dat_psp_free", 48, DAT_INVALID_HANDLE_PSP},
    {"dat_rsp_create", 49, DAT_INVALID_HANDLE_IA},
    {"dat_rsp_query", 50, DAT_INVALID_HANDLE_RSP},
    {"dat_rsp_free", 51, DAT_INVALID_HANDLE_RSP},
    {"dat_pz_create", 52, DAT_INVALID_HANDLE_IA},
    {"dat_pz_query", 53, DAT_INVALID_HANDLE_PZ},
    {"dat_pz_free", 54, DAT_INVALID_HANDLE_PZ},
    {"dat_ep_create_with_srq", 61, DAT_INVALID_HANDLE_IA},
    {"dat_ep_recv_query", 62, DAT_INVALID_HANDLE_EP},
    {"dat_ep_set_watermark", 63, DAT_INVALID_HANDLE_EP},
    {"dat_srq_create", 64, DAT_INVALID_HANDLE_IA},
    {"dat_srq_free", 65, DAT_INVALID_HANDLE_SRQ},
    {"dat_srq_post_recv", 66, DAT_INVALID_HANDLE_SRQ},
    {"dat_srq_query", 67, DAT_INVALID_HANDLE_SRQ},
    {"dat_srq_resize", 68, DAT_INVALID_HANDLE_SRQ},
    {"dat_srq_set_lw", 69, DAT_INVALID_HANDLE_SRQ},
    {"dat_lmr_create", 39, DAT_INVALID_HANDLE_IA},
    {"dat_evd_create", 17, DAT_INVALID_HANDLE_IA},
    {"dat_evd_modify_cno", 19, DAT_INVALID_HANDLE1},
    {"dat_cno_create", 8, DAT_INVALID_HANDLE_IA},
    {"dat_cno_modify_agent", 9, DAT_INVALID_HANDLE_CNO},
    {"dat_cno_query", 10, DAT_INVALID_HANDLE_CNO},
    {"dat_cno_free", 11, DAT_INVALID_HANDLE_CNO},
    {"dat_cno_wait", 12, DAT_INVALID_HANDLE_CNO},
    {"dat_evd_enable", 20, DAT_INVALID_HANDLE1},
    {"dat_evd_wait", 22, DAT_INVALID_HANDLE1},
    {"dat_evd_disable", 21, DAT_INVALID_HANDLE1},
    {"dat_evd_set_unwaitable", 57, DAT_INVALID_HANDLE1},
    {"dat_evd_clear_unwaitable", 58, DAT_INVALID_HANDLE1},
};

#define N_WRAPPERS ((int)(sizeof(wrappers) / sizeof(wrappers[0])))

/* Calls wrapper i with h as its dispatch handle and zeros elsewhere. */
static DAT_RETURN call_wrapper(int i, DAT_HANDLE h)
{
	switch (i) {
	case 0:
		return dat_ia_query(h, (DAT_EVD_HANDLE *){0},
				    (DAT_IA_ATTR_MASK){0}, (DAT_IA_ATTR *){0},
				    (DAT_PROVIDER_ATTR_MASK){0},
				    (DAT_PROVIDER_ATTR *){0});
	case 1:
		return dat_set_consumer_context(h, (DAT_CONTEXT){0});
	case 2:
		return dat_get_consumer_context(h, (DAT_CONTEXT *){0});
	case 3:
		return dat_get_handle_type(h, (DAT_HANDLE_TYPE *){0});
	case 4:
		return dat_cr_query(h, (DAT_CR_PARAM_MASK){0},
				    (DAT_CR_PARAM *){0});
	case 5:
		return dat_cr_accept(h, (DAT_EP_HANDLE){0}, (DAT_COUNT){0},
				     (const DAT_PVOID){0});
	case 6:
		return dat_cr_reject(h);
	case 7:
		return dat_cr_handoff(h, (DAT_CONN_QUAL){0});
	case 8:
		return dat_evd_resize(h, (DAT_COUNT){0});
	case 9:
		return dat_evd_post_se(h, (const DAT_EVENT *){0});
	case 10:
		return dat_evd_dequeue(h, (DAT_EVENT *){0});
	case 11:
		return dat_evd_query(h, (DAT_EVD_PARAM_MASK){0},
				     (DAT_EVD_PARAM *){0});
	case 12:
		return dat_evd_free(h);
	case 13:
		return dat_ep_create(h, (DAT_PZ_HANDLE){0}, (DAT_EVD_HANDLE){0},
				     (DAT_EVD_HANDLE){0}, (DAT_EVD_HANDLE){0},
				     (const DAT_EP_ATTR *){0},
				     (DAT_EP_HANDLE *){0});
	case 14:
		return dat_ep_query(h, (DAT_EP_PARAM_MASK){0},
				    (DAT_EP_PARAM *){0});
	case 15:
		return dat_ep_modify(h, (DAT_EP_PARAM_MASK){0},
				     (const DAT_EP_PARAM *){0});
	case 16:
		return dat_ep_connect(h, (DAT_IA_ADDRESS_PTR){0},
				      (DAT_CONN_QUAL){0}, (DAT_TIMEOUT){0},
				      (DAT_COUNT){0}, (const DAT_PVOID){0},
				      (DAT_QOS){0}, (DAT_CONNECT_FLAGS){0});
	case 17:
		return dat_ep_dup_connect(h, (DAT_EP_HANDLE){0},
					  (DAT_TIMEOUT){0}, (DAT_COUNT){0},
					  (const DAT_PVOID){0}, (DAT_QOS){0});
	case 18:
		return dat_ep_disconnect(h, (DAT_CLOSE_FLAGS){0});
	case 19:
		return dat_ep_post_send(
		    h, (DAT_COUNT){0}, (DAT_LMR_TRIPLET *){0},
		    (DAT_DTO_COOKIE){0}, (DAT_COMPLETION_FLAGS){0});
	case 20:
		return dat_ep_post_recv(
		    h, (DAT_COUNT){0}, (DAT_LMR_TRIPLET *){0},
		    (DAT_DTO_COOKIE){0}, (DAT_COMPLETION_FLAGS){0});
	case 21:
		return dat_ep_post_rdma_read(
		    h, (DAT_COUNT){0}, (DAT_LMR_TRIPLET *){0},
		    (DAT_DTO_COOKIE){0}, (const DAT_RMR_TRIPLET *){0},
		    (DAT_COMPLETION_FLAGS){0});
	case 22:
		return dat_ep_post_rdma_write(
		    h, (DAT_COUNT){0}, (DAT_LMR_TRIPLET *){0},
		    (DAT_DTO_COOKIE){0}, (const DAT_RMR_TRIPLET *){0},
		    (DAT_COMPLETION_FLAGS){0});
	case 23:
		return dat_ep_get_status(h, (DAT_EP_STATE *){0},
					 (DAT_BOOLEAN *){0},
					 (DAT_BOOLEAN *){0});
	case 24:
		return dat_ep_free(h);
	case 25:
		return dat_ep_reset(h);
	case 26:
		return dat_lmr_query(h, (DAT_LMR_PARAM_MASK){0},
				     (DAT_LMR_PARAM *){0});
	case 27:
		return dat_lmr_free(h);
	case 28:
		return dat_lmr_sync_rdma_read(h, (const DAT_LMR_TRIPLET *){0},
					      (DAT_VLEN){0});
	case 29:
		return dat_lmr_sync_rdma_write(h, (const DAT_LMR_TRIPLET *){0},
					       (DAT_VLEN){0});
	case 30:
		return dat_rmr_create(h, (DAT_RMR_HANDLE *){0});
	case 31:
		return dat_rmr_query(h, (DAT_RMR_PARAM_MASK){0},
				     (DAT_RMR_PARAM *){0});
	case 32:
		return dat_rmr_bind(
		    h, (const DAT_LMR_TRIPLET *){0}, (DAT_MEM_PRIV_FLAGS){0},
		    (DAT_EP_HANDLE){0}, (DAT_RMR_COOKIE){0},
		    (DAT_COMPLETION_FLAGS){0}, (DAT_RMR_CONTEXT *){0});
	case 33:
		return dat_rmr_free(h);
	case 34:
		return dat_psp_create(h, (DAT_CONN_QUAL){0},
				      (DAT_EVD_HANDLE){0}, (DAT_PSP_FLAGS){0},
				      (DAT_PSP_HANDLE *){0});
	case 35:
		return dat_psp_create_any(
		    h, (DAT_CONN_QUAL *){0}, (DAT_EVD_HANDLE){0},
		    (DAT_PSP_FLAGS){0}, (DAT_PSP_HANDLE *){0});
	case 36:
		return dat_psp_query(h, (DAT_PSP_PARAM_MASK){0},
				     (DAT_PSP_PARAM *){0});
	case 37:
		return dat_psp_free(h);
	case 38:
		return dat_rsp_create(h, (DAT_CONN_QUAL){0}, (DAT_EP_HANDLE){0},
				      (DAT_EVD_HANDLE){0},
				      (DAT_RSP_HANDLE *){0});
	case 39:
		return dat_rsp_query(h, (DAT_RSP_PARAM_MASK){0},
				     (DAT_RSP_PARAM *){0});
	case 40:
		return dat_rsp_free(h);
	case 41:
		return dat_pz_create(h, (DAT_PZ_HANDLE *){0});
	case 42:
		return dat_pz_query(h, (DAT_PZ_PARAM_MASK){0},
				    (DAT_PZ_PARAM *){0});
	case 43:
		return dat_pz_free(h);
	case 44:
		return dat_ep_create_with_srq(
		    h, (DAT_PZ_HANDLE){0}, (DAT_EVD_HANDLE){0},
		    (DAT_EVD_HANDLE){0}, (DAT_EVD_HANDLE){0},
		    (DAT_SRQ_HANDLE){0}, (const DAT_EP_ATTR *){0},
		    (DAT_EP_HANDLE *){0});
	case 45:
		return dat_ep_recv_query(h, (DAT_COUNT *){0}, (DAT_COUNT *){0});
	case 46:
		return dat_ep_set_watermark(h, (DAT_COUNT){0}, (DAT_COUNT){0});
	case 47:
		return dat_srq_create(h, (DAT_PZ_HANDLE){0},
				      (DAT_SRQ_ATTR *){0},
				      (DAT_SRQ_HANDLE *){0});
	case 48:
		return dat_srq_free(h);
	case 49:
		return dat_srq_post_recv(h, (DAT_COUNT){0},
					 (DAT_LMR_TRIPLET *){0},
					 (DAT_DTO_COOKIE){0});
	case 50:
		return dat_srq_query(h, (DAT_SRQ_PARAM_MASK){0},
				     (DAT_SRQ_PARAM *){0});
	case 51:
		return dat_srq_resize(h, (DAT_COUNT){0});
	case 52:
		return dat_srq_set_lw(h, (DAT_COUNT){0});
	case 53:
		return dat_lmr_create(
		    h, (DAT_MEM_TYPE){0}, (DAT_REGION_DESCRIPTION){0},
		    (DAT_VLEN){0}, (DAT_PZ_HANDLE){0}, (DAT_MEM_PRIV_FLAGS){0},
		    (DAT_LMR_HANDLE *){0}, (DAT_LMR_CONTEXT *){0},
		    (DAT_RMR_CONTEXT *){0}, (DAT_VLEN *){0}, (DAT_VADDR *){0});
	case 54:
		return dat_evd_create(h, (DAT_COUNT){0}, (DAT_CNO_HANDLE){0},
				      (DAT_EVD_FLAGS){0},
				      (DAT_EVD_HANDLE *){0});
	case 55:
		return dat_evd_modify_cno(h, (DAT_CNO_HANDLE){0});
	case 56:
		return dat_cno_create(h, (DAT_OS_WAIT_PROXY_AGENT){0},
				      (DAT_CNO_HANDLE *){0});
	case 57:
		return dat_cno_modify_agent(h, (DAT_OS_WAIT_PROXY_AGENT){0});
	case 58:
		return dat_cno_query(h, (DAT_CNO_PARAM_MASK){0},
				     (DAT_CNO_PARAM *){0});
	case 59:
		return dat_cno_free(h);
	case 60:
		return dat_cno_wait(h, (DAT_TIMEOUT){0}, (DAT_EVD_HANDLE *){0});
	case 61:
		return dat_evd_enable(h);
	case 62:
		return dat_evd_wait(h, (DAT_TIMEOUT){0}, (DAT_COUNT){0},
				    (DAT_EVENT *){0}, (DAT_COUNT *){0});
	case 63:
		return dat_evd_disable(h);
	case 64:
		return dat_evd_set_unwaitable(h);
	case 65:
		return dat_evd_clear_unwaitable(h);
	}
	abort();
}

static int cmd_dispatch(int argc, char **argv)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_HANDLE not_a_handle;
	int i, checks = 0;
	char what[128];

	(void)argc;
	expect("open", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &ia), DAT_SUCCESS);
	if (failures)
		return 1;
	not_a_handle = &ia; /* Open MPI 1.6 passes &handle by mistake */
	for (i = 0; i < N_WRAPPERS; i++) {
		DAT_RETURN bad =
		    ERR(DAT_INVALID_HANDLE, wrappers[i].bad_handle);
		DAT_RETURN good = wrappers[i].slot == 3
				      ? DAT_SUCCESS
				      : SLOT_MARK(wrappers[i].slot);

		snprintf(what, sizeof(what), "%s(ia)", wrappers[i].name);
		expect(what, call_wrapper(i, ia), good);
		snprintf(what, sizeof(what), "%s(NULL)", wrappers[i].name);
		expect(what, call_wrapper(i, NULL), bad);
		snprintf(what, sizeof(what), "%s(misaligned)",
			 wrappers[i].name);
		expect(what, call_wrapper(i, (char *)ia + 1), bad);
		snprintf(what, sizeof(what), "%s(&handle)", wrappers[i].name);
		expect(what, call_wrapper(i, not_a_handle), bad);
		checks += 4;
	}
	expect("close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	printf("dispatch: %d wrappers, %d checks, %d failures\n", N_WRAPPERS,
	       checks + 2, failures);
	return failures != 0;
}

static int cmd_fork(int argc, char **argv)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, ia2 = DAT_HANDLE_NULL;
	int status;
	pid_t pid;

	(void)argc;
	expect("parent open", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &ia),
	       DAT_SUCCESS);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		DAT_IA_HANDLE c = DAT_HANDLE_NULL;

		expect("child open", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &c),
		       DAT_SUCCESS);
		expect("child close", dat_ia_close(c, DAT_CLOSE_GRACEFUL_FLAG),
		       DAT_SUCCESS);
		printf("child: %d failures\n", failures);
		fflush(stdout);
		_exit(failures != 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("FAIL child did not exit cleanly\n");
		failures++;
	}
	/* The parent's registry and IA are untouched by the child. */
	expect("parent second open", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &ia2),
	       DAT_SUCCESS);
	expect("parent close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
	       DAT_SUCCESS);
	expect("parent close 2", dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG),
	       DAT_SUCCESS);
	printf("fork: %d failures\n", failures);
	return failures != 0;
}

struct thread_arg {
	const char *name;
	int iterations;
	int failed;
};

static void *open_close_loop(void *p)
{
	struct thread_arg *a = p;
	DAT_IA_HANDLE ia;
	int i;

	for (i = 0; i < a->iterations; i++) {
		ia = DAT_HANDLE_NULL;
		if (open_ia(a->name, 1, 2, DAT_FALSE, 8, &ia) != DAT_SUCCESS ||
		    dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS)
			a->failed++;
	}
	return NULL;
}

static int cmd_threads(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8,
	    iter = argc > 2 ? atoi(argv[2]) : 100;
	struct thread_arg args[64];
	pthread_t tid[64];
	int i, failed = 0;

	if (n < 1 || n > 64)
		return 2;
	for (i = 0; i < n; i++) {
		args[i] = (struct thread_arg){argv[0], iter, 0};
		pthread_create(&tid[i], NULL, open_close_loop, &args[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		failed += args[i].failed;
	}
	printf("threads: %d threads x %d open/close, %d failed\n", n, iter,
	       failed);
	return failed != 0;
}

/* Prints what dat_ia_query says about ia: the entry's ia_params (the
 * DAPL_IA_PARAMS provider attribute) and the IA's IPv4 address, if any. */
static void print_ia(const char *label, DAT_IA_HANDLE ia)
{
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR pa;
	DAT_EVD_HANDLE evd;
	const char *params = "?";
	char addr[INET6_ADDRSTRLEN] = "-";
	DAT_RETURN rc;
	int i;

	memset(&ia_attr, 0, sizeof(ia_attr));
	memset(&pa, 0, sizeof(pa));
	rc = dat_ia_query(ia, &evd, DAT_IA_ALL, &ia_attr, DAT_PROVIDER_FIELD_ALL,
			  &pa);
	if (rc != DAT_SUCCESS) {
		printf("%s: query %s\n", label, rc_name(rc));
		failures++;
		return;
	}
	for (i = 0; i < pa.num_provider_specific_attr; i++)
		if (!strcmp(pa.provider_specific_attr[i].name, "DAPL_IA_PARAMS"))
			params = pa.provider_specific_attr[i].value;
	if (ia_attr.ia_address_ptr &&
	    ia_attr.ia_address_ptr->sa_family == AF_INET)
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)ia_attr.ia_address_ptr)->sin_addr,
			  addr, sizeof(addr));
	printf("%s: params \"%s\" address %s\n", label, params, addr);
}

static int cmd_bind(int argc, char **argv)
{
	DAT_IA_HANDLE a = DAT_HANDLE_NULL, b = DAT_HANDLE_NULL,
		      c = DAT_HANDLE_NULL;

	(void)argc;
	expect("open nonthreadsafe", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &a),
	       DAT_SUCCESS);
	expect("open threadsafe", open_ia(argv[0], 1, 2, DAT_TRUE, 8, &b),
	       DAT_SUCCESS);
	expect("open nonthreadsafe again",
	       open_ia(argv[0], 1, 2, DAT_FALSE, 8, &c), DAT_SUCCESS);
	if (failures)
		return 1;
	print_ia("nonthreadsafe", a);
	print_ia("threadsafe", b);
	print_ia("nonthreadsafe again", c);
	expect("close threadsafe", dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG),
	       DAT_SUCCESS);
	print_ia("after close: nonthreadsafe", a);
	print_ia("after close: nonthreadsafe again", c);
	expect("close nonthreadsafe", dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG),
	       DAT_SUCCESS);
	expect("close nonthreadsafe again",
	       dat_ia_close(c, DAT_CLOSE_ABRUPT_FLAG), DAT_SUCCESS);
	printf("bind %s: %d failures\n", argv[0], failures);
	return failures != 0;
}

static _Atomic int storm_stop;

static void *storm_loop(void *p)
{
	struct thread_arg *a = p;
	DAT_IA_HANDLE ia;

	while (!storm_stop) {
		ia = DAT_HANDLE_NULL;
		if (open_ia(a->name, 1, 2, DAT_FALSE, 8, &ia) != DAT_SUCCESS) {
			a->failed++;
			continue;
		}
		/* a dispatched call: the handle check and the provider's slot */
		if (dat_ep_post_send(ia, 0, NULL, (DAT_DTO_COOKIE){0}, 0) !=
		    SLOT_MARK(33))
			a->failed++;
		if (dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
			a->failed++;
		a->iterations++;
	}
	return NULL;
}

/* In the child: a new IA, a dispatched call, a close, a list, exit(). */
static void storm_child(const char *name, unsigned seconds)
{
	DAT_PROVIDER_INFO info, *list[1] = {&info};
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_COUNT n = 0;
	int bad = 0;

	alarm(seconds);	/* a deadlock ends as SIGALRM, a failure */
	bad |= open_ia(name, 1, 2, DAT_FALSE, 8, &ia) != DAT_SUCCESS;
	bad |= !bad && dat_ep_post_send(ia, 0, NULL, (DAT_DTO_COOKIE){0}, 0) !=
			       SLOT_MARK(33);
	bad |= !bad && dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG) != DAT_SUCCESS;
	bad |= dat_registry_list_providers(1, &n, list) != DAT_SUCCESS;
	exit(bad);
}

static int cmd_fork_storm(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, forks = argc > 2 ? atoi(argv[2]) : 50;
	unsigned seconds = 10 * (getenv("TEST_TIMEOUT_SCALE")
					 ? (unsigned)atoi(getenv("TEST_TIMEOUT_SCALE"))
					 : 1);
	struct thread_arg args[16];
	pthread_t tid[16];
	int i, status, children_failed = 0, failed = 0;
	long iterations = 0;
	pid_t pid;

	if (n < 1 || n > 16 || forks < 1)
		return 2;
	for (i = 0; i < n; i++) {
		args[i] = (struct thread_arg){argv[0], 0, 0};
		pthread_create(&tid[i], NULL, storm_loop, &args[i]);
	}
	for (i = 0; i < forks; i++) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			storm_child(argv[0], seconds ? seconds : 10);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			children_failed++;
			if (pid > 0 && WIFSIGNALED(status))
				printf("FAIL child %d: signal %d%s\n", i,
				       WTERMSIG(status),
				       WTERMSIG(status) == SIGALRM
					       ? " (deadlocked)" : "");
		}
	}
	storm_stop = 1;
	for (i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		failed += args[i].failed;
		iterations += args[i].iterations;
	}
	printf("fork-storm: %d forks, %d children failed; %d threads, %s open/post/close, %d failed\n",
	       forks, children_failed, n, iterations > 0 ? "some" : "no",
	       failed);
	return children_failed || failed || !iterations;
}

/* An application-supplied provider: only open and close do anything. */
struct app_ia {
	DAT_PROVIDER *provider;
};

static DAT_PROVIDER app_table;

/* What the entry points a test does not call do (table_fill: libdat
 * refuses a table with an empty one). */
static DAT_RETURN unused_slot(void)
{
	return ERR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
}

static DAT_RETURN app_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			   DAT_EVD_HANDLE *async, DAT_IA_HANDLE *ia)
{
	struct app_ia *o = malloc(sizeof(*o));

	(void)name, (void)qlen, (void)async;
	if (!o)
		return ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	o->provider = &app_table;
	*ia = o;
	return DAT_SUCCESS;
}

static DAT_RETURN app_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	(void)flags;
	free(ia);
	return DAT_SUCCESS;
}

static int cmd_dynamic(void)
{
	DAT_PROVIDER_INFO info = {.ia_name = "app-ia",
				  .dapl_version_major = 1,
				  .dapl_version_minor = 2,
				  .is_thread_safe = DAT_FALSE};
	DAT_PROVIDER_INFO other = info;
	DAT_PROVIDER_INFO out[8], *list[8];
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_COUNT n = 0, i;
	struct app_ia stale;
	int seen = 0;

	table_fill(&app_table, unused_slot);
	app_table.device_name = "app-ia";
	app_table.ia_open_func = app_open;
	app_table.ia_close_func = app_close;
	for (i = 0; i < 8; i++)
		list[i] = &out[i];

	expect("open before add", open_ia("app-ia", 1, 2, DAT_FALSE, 8, &ia),
	       ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED));
	expect("add NULL provider", dat_registry_add_provider(NULL, &info),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("add NULL info", dat_registry_add_provider(&app_table, NULL),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	{
		/* a table with an empty entry point is no provider's */
		DAT_PROVIDER holey = app_table;

		holey.srq_set_lw_func = NULL;
		expect("add a table without srq_set_lw",
		       dat_registry_add_provider(&holey, &info),
		       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
		holey = app_table;
		holey.ep_post_send_func = NULL;
		expect("add a table without ep_post_send",
		       dat_registry_add_provider(&holey, &info),
		       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	}
	expect("add", dat_registry_add_provider(&app_table, &info),
	       DAT_SUCCESS);
	expect("add again", dat_registry_add_provider(&app_table, &info),
	       ERR(DAT_PROVIDER_ALREADY_REGISTERED, DAT_NO_SUBTYPE));
	expect("list", dat_registry_list_providers(8, &n, list), DAT_SUCCESS);
	for (i = 0; i < n; i++)
		seen += !strcmp(out[i].ia_name, "app-ia");
	if (seen != 1)
		printf("FAIL app-ia listed %d times\n", seen), failures++;
	expect("open", open_ia("app-ia", 1, 2, DAT_FALSE, 8, &ia), DAT_SUCCESS);
	expect("open threadsafe", open_ia("app-ia", 1, 2, DAT_TRUE, 8, &ia),
	       ERR(DAT_PROVIDER_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND));
	expect("remove while open",
	       dat_registry_remove_provider(&app_table, &info),
	       ERR(DAT_PROVIDER_IN_USE, DAT_NO_SUBTYPE));
	expect("close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	other.dapl_version_minor = 7;
	expect("remove unknown key",
	       dat_registry_remove_provider(&app_table, &other),
	       ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED));
	expect("remove NULL", dat_registry_remove_provider(NULL, &info),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("remove", dat_registry_remove_provider(&app_table, &info),
	       DAT_SUCCESS);
	expect("open after remove", open_ia("app-ia", 1, 2, DAT_FALSE, 8, &ia),
	       ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED));
	/* An object of the removed provider: its table is no longer known. */
	stale.provider = &app_table;
	expect("dispatch after remove", dat_pz_create(&stale, &ia),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	printf("dynamic: %d failures\n", failures);
	return failures != 0;
}

/* remove-race: app_open of the race table waits here until released. */
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t race_cond = PTHREAD_COND_INITIALIZER;
static int race_inside, race_release;
static DAT_PROVIDER race_table;

static DAT_RETURN race_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			    DAT_EVD_HANDLE *async, DAT_IA_HANDLE *ia)
{
	struct app_ia *o = malloc(sizeof(*o));

	(void)name, (void)qlen, (void)async;
	if (!o)
		return ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	pthread_mutex_lock(&race_lock);
	race_inside = 1;
	pthread_cond_broadcast(&race_cond);
	while (!race_release)
		pthread_cond_wait(&race_cond, &race_lock);
	pthread_mutex_unlock(&race_lock);
	o->provider = &race_table;
	*ia = o;
	return DAT_SUCCESS;
}

struct race_open_arg {
	DAT_IA_HANDLE ia;
	DAT_RETURN rc;
};

static void *race_opener(void *p)
{
	struct race_open_arg *a = p;

	a->rc = open_ia("race-ia", 1, 2, DAT_FALSE, 8, &a->ia);
	return NULL;
}

/*
 * dat_registry_remove_provider while an open of the same provider has
 * found it but not yet counted its IA: DAT_PROVIDER_IN_USE, and the open
 * ends with a live IA that closes through the still-registered table.
 */
static int cmd_remove_race(void)
{
	DAT_PROVIDER_INFO info = {.ia_name = "race-ia",
				  .dapl_version_major = 1,
				  .dapl_version_minor = 2,
				  .is_thread_safe = DAT_FALSE};
	struct race_open_arg arg = {DAT_HANDLE_NULL, 0};
	pthread_t t;

	table_fill(&race_table, unused_slot);
	race_table.device_name = "race-ia";
	race_table.ia_open_func = race_open;
	race_table.ia_close_func = app_close;
	expect("add", dat_registry_add_provider(&race_table, &info),
	       DAT_SUCCESS);
	pthread_create(&t, NULL, race_opener, &arg);
	pthread_mutex_lock(&race_lock);
	while (!race_inside)
		pthread_cond_wait(&race_cond, &race_lock);
	pthread_mutex_unlock(&race_lock);
	/* The open is inside ia_open_func: its IA is not counted yet. */
	expect("remove during open",
	       dat_registry_remove_provider(&race_table, &info),
	       ERR(DAT_PROVIDER_IN_USE, DAT_NO_SUBTYPE));
	pthread_mutex_lock(&race_lock);
	race_release = 1;
	pthread_cond_broadcast(&race_cond);
	pthread_mutex_unlock(&race_lock);
	pthread_join(t, NULL);
	expect("open", arg.rc, DAT_SUCCESS);
	expect("remove while open",
	       dat_registry_remove_provider(&race_table, &info),
	       ERR(DAT_PROVIDER_IN_USE, DAT_NO_SUBTYPE));
	expect("close", dat_ia_close(arg.ia, DAT_CLOSE_GRACEFUL_FLAG),
	       DAT_SUCCESS);
	expect("remove after close",
	       dat_registry_remove_provider(&race_table, &info), DAT_SUCCESS);
	printf("remove-race: %d failures\n", failures);
	return failures != 0;
}

/* Every type with every subtype has two messages; other values don't. */
static int cmd_strerror_all(void)
{
	static const DAT_RETURN types[] = {
	    DAT_SUCCESS,
	    DAT_ABORT,
	    DAT_CONN_QUAL_IN_USE,
	    DAT_INSUFFICIENT_RESOURCES,
	    DAT_INTERNAL_ERROR,
	    DAT_INVALID_HANDLE,
	    DAT_INVALID_PARAMETER,
	    DAT_INVALID_STATE,
	    DAT_LENGTH_ERROR,
	    DAT_MODEL_NOT_SUPPORTED,
	    DAT_PROVIDER_NOT_FOUND,
	    DAT_PRIVILEGES_VIOLATION,
	    DAT_PROTECTION_VIOLATION,
	    DAT_QUEUE_EMPTY,
	    DAT_QUEUE_FULL,
	    DAT_TIMEOUT_EXPIRED,
	    DAT_PROVIDER_ALREADY_REGISTERED,
	    DAT_PROVIDER_IN_USE,
	    DAT_INVALID_ADDRESS,
	    DAT_INTERRUPTED_CALL,
	    DAT_CONN_QUAL_UNAVAILABLE,
	    DAT_NOT_IMPLEMENTED,
	};
	const char *major, *minor;
	unsigned t, s, n = 0;
	DAT_RETURN rc;

	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (s = DAT_NO_SUBTYPE; s <= DAT_THREAD_SAFETY_NOT_FOUND;
		     s++) {
			major = minor = NULL;
			rc = dat_strerror(DAT_CLASS_ERROR | types[t] | s,
					  &major, &minor);
			n++;
			if (rc != DAT_SUCCESS || !major || !minor || !*major ||
			    !*minor) {
				printf("FAIL strerror(0x%08x)\n", types[t] | s);
				failures++;
			} else if (s == 0 || s == DAT_THREAD_SAFETY_NOT_FOUND) {
				printf("0x%08x: %s | %s\n",
				       DAT_CLASS_ERROR | types[t] | s, major,
				       minor);
			}
		}
	}
	expect("unknown type", dat_strerror(0x00150000, &major, &minor),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect(
	    "unknown subtype",
	    dat_strerror(DAT_INVALID_HANDLE | (DAT_THREAD_SAFETY_NOT_FOUND + 1),
			 &major, &minor),
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("NULL major", dat_strerror(DAT_SUCCESS, NULL, &minor),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	expect("NULL minor", dat_strerror(DAT_SUCCESS, &major, NULL),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	printf("strerror: %u values, %d failures\n", n, failures);
	return failures != 0;
}

/* The argument checks libdat makes before any provider is involved. */
static int cmd_args(void)
{
	char long_name[DAT_NAME_MAX_LENGTH + 1];
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PROVIDER_INFO info, *list[1] = {&info};
	DAT_COUNT n = -1;

	memset(long_name, 'x', DAT_NAME_MAX_LENGTH);
	long_name[DAT_NAME_MAX_LENGTH] = '\0';
	expect("open NULL name",
	       dat_ia_openv(NULL, 8, &async, &ia, 1, 2, DAT_FALSE),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("open long name",
	       dat_ia_openv(long_name, 8, &async, &ia, 1, 2, DAT_FALSE),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("open NULL ia",
	       dat_ia_openv("x", 8, &async, NULL, 1, 2, DAT_FALSE),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	expect("close NULL", dat_ia_close(NULL, DAT_CLOSE_ABRUPT_FLAG),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	expect("close never opened", dat_ia_close(&ia, DAT_CLOSE_ABRUPT_FLAG),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	expect("list NULL count", dat_registry_list_providers(1, NULL, list),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	expect("list NULL list", dat_registry_list_providers(1, &n, NULL),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	expect("list negative max", dat_registry_list_providers(-1, &n, list),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("list max 0", dat_registry_list_providers(0, &n, NULL),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	printf("args: max 0 counted %d, %d failures\n", n, failures);
	return failures != 0;
}

/* An extension function of this program: returns a mark made of its
 * operation and first argument, to show what reached it. */
static DAT_HANDLE ext_seen_handle;

static DAT_RETURN ext_fn(DAT_HANDLE handle, DAT_EXTENDED_OP op, va_list ap)
{
	DAT_UINT64 v = va_arg(ap, DAT_UINT64);

	ext_seen_handle = handle;
	return SLOT_MARK((DAT_RETURN)(op * 16 + (int)(v & 15)));
}

/*
 * The atomic extension on a provider that registered none (the test
 * provider keeps a pointer of its own in the `extension` slot, which
 * libdat must never read): DAT_MODEL_NOT_SUPPORTED, no crash.  Then an
 * extension registered for its table by hand reaches dat_extension_op
 * with its arguments, and a NULL registration takes it away again.
 */
static int cmd_ext(int argc, char **argv)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET lt = {.segment_length = 8};
	DAT_RMR_TRIPLET rt = {.segment_length = 8};
	DAT_DTO_COOKIE ck = {.as_64 = 1};
	DAT_PROVIDER other = {0};
	const DAT_PROVIDER *table;
	DAT_HANDLE not_a_handle;

	(void)argc;
	expect("open", open_ia(argv[0], 1, 2, DAT_FALSE, 8, &ia), DAT_SUCCESS);
	if (failures)
		return 1;
	not_a_handle = &ia;
	table = *(DAT_PROVIDER *const *)ia;
	expect("extension_op(ia, FETCH_AND_ADD)",
	       dat_extension_op(ia, DAT_IB_FETCH_AND_ADD_OP, (DAT_UINT64)1, &lt,
				ck, &rt, (DAT_COMPLETION_FLAGS)0),
	       ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	expect("dat_ib_post_fetch_and_add(ia)",
	       dat_ib_post_fetch_and_add(ia, 1, &lt, ck, &rt,
					 DAT_COMPLETION_DEFAULT_FLAG),
	       ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	expect("dat_ib_post_cmp_and_swap(ia)",
	       dat_ib_post_cmp_and_swap(ia, 1, 2, &lt, ck, &rt,
					DAT_COMPLETION_DEFAULT_FLAG),
	       ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	expect("extension_op(unknown op)", dat_extension_op(ia, 12345),
	       ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	expect("extension_op(NULL)",
	       dat_extension_op(NULL, DAT_IB_FETCH_AND_ADD_OP),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	expect("extension_op(misaligned)",
	       dat_extension_op((char *)ia + 1, DAT_IB_FETCH_AND_ADD_OP),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	expect("extension_op(&handle)",
	       dat_extension_op(not_a_handle, DAT_IB_FETCH_AND_ADD_OP),
	       ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1));
	expect("add_extension(NULL)", dat_registry_add_extension(NULL, ext_fn),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("add_extension(unregistered table)",
	       dat_registry_add_extension(&other, ext_fn),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	expect("add_extension(table)", dat_registry_add_extension(table, ext_fn),
	       DAT_SUCCESS);
	expect("extension_op(ia) reaches it",
	       dat_ib_post_cmp_and_swap(ia, 7, 2, &lt, ck, &rt, 0),
	       SLOT_MARK(DAT_IB_CMP_AND_SWAP_OP * 16 + 7));
	if (ext_seen_handle != ia) {
		printf("FAIL extension got handle %p, want %p\n",
		       ext_seen_handle, ia);
		failures++;
	}
	expect("add_extension(table, NULL)",
	       dat_registry_add_extension(table, NULL), DAT_SUCCESS);
	expect("extension_op(ia) after NULL",
	       dat_ib_post_fetch_and_add(ia, 1, &lt, ck, &rt, 0),
	       ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE));
	expect("close", dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_SUCCESS);
	/* The library is unloaded now: its table is no provider any more. */
	expect("add_extension(unloaded table)",
	       dat_registry_add_extension(table, ext_fn),
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1));
	printf("ext: %d failures\n", failures);
	return failures != 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 2, argv + 2);
	if (!strcmp(argv[1], "strerror-all"))
		return cmd_strerror_all();
	if (!strcmp(argv[1], "dynamic"))
		return cmd_dynamic();
	if (!strcmp(argv[1], "args"))
		return cmd_args();
	if (!strcmp(argv[1], "remove-race"))
		return cmd_remove_race();
	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "open"))
		return cmd_open(argc - 2, argv + 2);
	if (!strcmp(argv[1], "reopen"))
		return cmd_reopen(argc - 2, argv + 2);
	if (!strcmp(argv[1], "open2"))
		return cmd_open2(argc - 2, argv + 2);
	if (!strcmp(argv[1], "dispatch"))
		return cmd_dispatch(argc - 2, argv + 2);
	if (!strcmp(argv[1], "fork"))
		return cmd_fork(argc - 2, argv + 2);
	if (!strcmp(argv[1], "threads"))
		return cmd_threads(argc - 2, argv + 2);
	if (!strcmp(argv[1], "ext"))
		return cmd_ext(argc - 2, argv + 2);
	if (!strcmp(argv[1], "bind"))
		return cmd_bind(argc - 2, argv + 2);
	if (!strcmp(argv[1], "fork-storm"))
		return cmd_fork_storm(argc - 2, argv + 2);
usage:
	fprintf(stderr,
		"usage: see the comment at the top of test/dattest.c\n");
	return 2;
}
