/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept-dead: dat_cr_accept of a request whose requester died.
 *
 * dat_cr_accept(3DAT): "If the Provider cannot complete the Connection
 * establishment, the connection is not established and the Consumer is
 * notified through a Connection Event of type
 * DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR on the connect_evd of the
 * local Endpoint. It can be caused by the active side timeout
 * expiration, transport error, or any other reason. If Connection is not
 * established, Endpoint transitions into Disconnected state and all
 * posted Recv DTOs are flushed to its recv_evd_handle."
 *
 * The client role forks a requester, which connects with its pid in the
 * private data and waits.  The server takes the request, kills the
 * requester (SIGKILL, the pid from the private data) and waits until the
 * client role has reaped it (its process is gone, so are its sockets and
 * its rdma_cm ids), then accepts on an EP with two receives posted.  On
 * every fabric: dat_cr_accept returns DAT_SUCCESS, the EP's one
 * connection event is ACCEPT_COMPLETION_ERROR (never ESTABLISHED), both
 * receives complete DAT_DTO_ERR_FLUSHED, the EP is DISCONNECTED.  The
 * server prints "status-matrix: accept after the requester died: ..."
 * with what it got, for the table of what each fabric reports.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "vt.h"

#define AD_TAG "requester pid "

/* 1 once process pid is gone or a zombie (its files are closed) */
static int ad_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* "pid (comm) S ..." */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static int accept_dead_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_CR_PARAM crp;
	struct vt_mem m;
	DAT_PSP_HANDLE psp;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	char pdata[32];
	long pid = 0;
	unsigned i;
	struct vt v;
	DAT_RETURN rc;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, 4096, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	vt_must("dat_cr_query",
		dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	memset(pdata, 0, sizeof(pdata));
	if (crp.private_data && crp.private_data_size > 0)
		memcpy(pdata, crp.private_data,
		       (size_t)crp.private_data_size < sizeof(pdata) - 1
			   ? (size_t)crp.private_data_size
			   : sizeof(pdata) - 1);
	if (strncmp(pdata, AD_TAG, strlen(AD_TAG)) ||
	    (pid = strtol(pdata + strlen(AD_TAG), NULL, 10)) <= 1)
		vt_die("the request's private data: \"%s\", want \"%s<pid>\"",
		       pdata, AD_TAG);
	if (kill((pid_t)pid, SIGKILL))
		vt_die("kill(%ld, SIGKILL): %s", pid, strerror(errno));
	/* the client role reaps it: then it is gone */
	for (i = 0; !ad_gone((pid_t)pid); i++) {
		if ((DAT_TIMEOUT)i * 10000 >= vt_secs(30))
			vt_die("the requester %ld still there after 30 s", pid);
		vt_sleep_ms(10);
	}
	ep = vt_ep(&v, NULL);
	for (i = 0; i < 2; i++) {
		DAT_LMR_TRIPLET iov = vt_iov(&m, i * 2048, 2048);

		vt_must("dat_ep_post_recv",
			dat_ep_post_recv(ep, 1, &iov, vt_cookie(i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	vt_expect("dat_cr_accept (the requester dead)",
		  dat_cr_accept(cr, ep, 0, NULL), DAT_SUCCESS);
	rc = vt_wait(v.conn_evd, vt_secs(60), &ev);
	if (rc != DAT_SUCCESS) {
		vt_fail("no connection event after the accept: %s", vt_rc(rc));
		printf("status-matrix: accept after the requester died: "
		       "no event\n");
	} else {
		printf("status-matrix: accept after the requester died: %s\n",
		       vt_ev(ev.event_number));
		vt_expect_u64("the connection event (1: ACCEPT_COMPLETION_"
			      "ERROR)",
			      ev.event_number ==
				  DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			      1);
		vt_expect_ptr("its ep_handle",
			      ev.event_data.connect_event_data.ep_handle, ep);
		for (i = 0; i < 2; i++)
			vt_expect_dto("a receive posted before the accept",
				      v.rcv_evd, ep, i, DAT_DTO_ERR_FLUSHED,
				      0);
		vt_expect_state("after ACCEPT_COMPLETION_ERROR", ep,
				DAT_EP_STATE_DISCONNECTED);
		vt_expect_empty("the connection EVD", v.conn_evd);
	}
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

/* the requester: connects with its pid in the private data, waits to
 * be killed (a minute at most).  It tells nobody that its request went
 * out: the server kills it as soon as the request arrives, which can be
 * before dat_ep_connect has returned here (scm's engine sends the REQ
 * while this thread is still on its way out), so the only proof that the
 * request got out is the server's kill, seen in the status below. */
static void ad_requester(const struct vt_opts *o)
{
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	char pdata[32];
	struct vt v;
	int len;

	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_sockaddr(&sin, o->addr);
	len = snprintf(pdata, sizeof(pdata), AD_TAG "%d", (int)getpid());
	vt_must("dat_ep_connect",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(60), len + 1, pdata,
			       DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	sleep(60);
	_exit(4);
}

static int accept_dead_client(const struct vt_opts *o)
{
	int st = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		vt_die("fork: %s", strerror(errno));
	if (pid == 0)
		ad_requester(o);
	/* a requester whose connect failed exits (vt_must), one whose
	 * request never arrived exits 4 after a minute: only the server's
	 * SIGKILL, sent for the pid in the request, passes */
	if (waitpid(pid, &st, 0) != pid)
		vt_fail("waitpid: %s", strerror(errno));
	else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		vt_fail("the requester ended with status 0x%x, want killed "
			"by the server (SIGKILL) for its request", st);
	else
		vt_note("ok the requester was killed after its request");
	return 0;
}

const struct vt_test vt_accept_dead_tests[] = {
	{ "accept-dead", accept_dead_server, accept_dead_client },
	{ NULL, NULL, NULL },
};
