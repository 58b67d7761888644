/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * relisten.c - dattest-ofi-relisten: a PSP created again on its qualifier
 * after the freed one's listening endpoint closed, reached by the client
 * IA that connected to the freed one (test/ofi/relisten.bats).
 *
 * dattest-ofi-relisten relisten server|client [-i IA] [-a ADDR] [-q QUAL]
 *
 *   server  a PSP on a free qualifier Q ("listening Q"); accepts one
 *           connection, receives "first", sees the disconnect, frees the
 *           EP and the PSP.  Over shm it then waits until the listener's
 *           region, /dev/shm/dat-<server address>-<port of Q>, is gone:
 *           the freed PSP's endpoint lingered (providers/ofi/lep.c
 *           ofi_lep_linger; the suite shortens it, DAPL_OFI_LINGER_MS)
 *           and has closed.  Then a PSP on Q again ("listening Q" a
 *           second time), one more connection, whose client sends
 *           "second" and 64 KiB of data that must arrive intact.
 *   client  on one IA for the whole run: connects to Q, sends "first",
 *           disconnects, prints "first connection done", waits until the
 *           file $DATTEST_GO exists (the suite creates it once the
 *           server listens again), then connects to Q again on a new EP
 *           and sends the data.
 *
 * dattest-ofi-relisten mute server|client [-i IA] [-a ADDR] [-q QUAL]
 *   (tcp;ofi_rxm) as libfabric 1.17's tcp leaves a connection that a
 *   listener closed before it read its request: a listener that is no
 *   DAT listener at all.
 *   server  a plain TCP socket listens on a free port Q of its address
 *           ("listening Q"), accepts what comes and reads nothing; once
 *           a connection brought bytes (rxm's connection request) and
 *           the file $DATTEST_GO exists (the suite creates it once the
 *           client's first connect ended), it closes the listening
 *           socket, keeps the connections open, and creates a PSP on Q ("listening Q" a second time); accepts one
 *           connection, whose client sends 64 KiB of data that must
 *           arrive intact.
 *   client  on one IA: connects to Q with a 3 s timeout, which must end
 *           TIMED_OUT (nobody answers); prints "first connect timed out",
 *           waits until the file $DATTEST_GO exists (another one than
 *           the server's: the suite creates it once the server listens
 *           again), then connects to Q again on a
 *           new EP and sends the data.
 *
 * Every wait is bounded and scaled by TEST_TIMEOUT_SCALE; PASS and exit
 * status 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../verbs/vt.h"

#define DATA_LEN 65536
#define DATA_SEED 77

/* 1 while shm's region of the listener at (addr, qual) exists; 0 when it
 * does not (also when the fabric is not shm: there is none) */
static int region_exists(const char *addr, DAT_CONN_QUAL qual)
{
	char name[96];
	int fd;

	/* the port of the qualifier: providers/ofi/sp.c ofi_qual_port
	 * (the suite's qualifiers are 1024 or more) */
	snprintf(name, sizeof(name), "/dat-%s-%u", addr,
		 (unsigned)(1024 + (qual - 1024) % 31744));
	fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* accepts one connection on a new EP, its receive posted: a control
 * message, or all of data */
static DAT_EP_HANDLE accept_one(struct vt *v, struct vt_mem *data)
{
	DAT_LMR_TRIPLET iov;
	DAT_CR_HANDLE cr;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;

	cr = vt_wait_cr(v, &ev);
	ep = vt_ep(v, NULL);
	if (data) {
		iov = vt_iov(data, 0, data->len);
		vt_must("dat_ep_post_recv(the data)",
			dat_ep_post_recv(ep, 1, &iov, vt_cookie(0xda7a),
					 DAT_COMPLETION_DEFAULT_FLAG));
	} else {
		vt_ctl_post(v, ep);
	}
	vt_accept(v, cr, ep, NULL, 0);
	return ep;
}

/* A PSP on qual (again), one connection, the client's data checked. */
static void receive_data_once(struct vt *v, DAT_CONN_QUAL qual)
{
	struct vt_mem data;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;

	vt_mem_alloc(v, &data, DATA_LEN,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	memset(data.buf, 0, DATA_LEN);
	psp = vt_psp(v, &qual);
	vt_listening(qual);
	ep = accept_one(v, &data);
	vt_expect_dto("the client's data", v->rcv_evd, ep, 0xda7a,
		      DAT_DTO_SUCCESS, DATA_LEN);
	vt_check("the client's data", data.buf, DATA_LEN, DATA_SEED);
	vt_wait_disconnected(v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free (the one made again)", dat_psp_free(psp),
		  DAT_SUCCESS);
	vt_mem_free(&data);
}

static int relisten_server(const struct vt_opts *o)
{
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	uint64_t until;
	struct vt v;

	vt_open(&v, o->ia_name);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	ep = accept_one(&v, NULL);
	vt_ctl_recv(&v, ep, &m, "first", 0);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);

	/* past the linger: the freed PSP's endpoint closed */
	until = vt_now_us() + (uint64_t)vt_secs(30);
	while (region_exists(vt_server_addr(), qual) && vt_now_us() < until)
		vt_sleep_ms(10);
	if (region_exists(vt_server_addr(), qual))
		vt_fail("the freed PSP's listening region still exists");
	else
		vt_note("ok the freed PSP's listener is gone");

	receive_data_once(&v, qual);
	vt_close(&v);
	return 0;
}

/* the client's data once it connected; the go file first */
static void send_data_after_go(struct vt *v, const struct vt_opts *o,
			       const char *go)
{
	DAT_LMR_TRIPLET iov;
	struct vt_mem data;
	DAT_EP_HANDLE ep;
	uint64_t until;

	until = vt_now_us() + (uint64_t)vt_secs(60);
	while (access(go, F_OK) && vt_now_us() < until)
		vt_sleep_ms(10);
	if (access(go, F_OK))
		vt_die("no %s after %us", go, vt_secs(60) / 1000000);
	vt_mem_alloc(v, &data, DATA_LEN,
		     DAT_MEM_PRIV_LOCAL_READ_FLAG |
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	vt_fill(data.buf, DATA_LEN, DATA_SEED);
	ep = vt_ep(v, NULL);
	vt_connect(v, ep, o->addr, o->qual, NULL, 0);
	vt_note("ok connected again, to the PSP created anew");
	iov = vt_iov(&data, 0, DATA_LEN);
	vt_must("dat_ep_post_send(the data)",
		dat_ep_post_send(ep, 1, &iov, vt_cookie(0x5e4d),
				 DAT_COMPLETION_DEFAULT_FLAG));
	vt_expect_dto("the data sent", v->req_evd, ep, 0x5e4d,
		      DAT_DTO_SUCCESS, DATA_LEN);
	vt_disconnect(v, ep);
	vt_ep_free(ep);
	vt_mem_free(&data);
}

static int relisten_client(const struct vt_opts *o)
{
	const char *go = getenv("DATTEST_GO");
	DAT_EP_HANDLE ep;
	struct vt_msg m;
	struct vt v;

	if (!go)
		vt_die("DATTEST_GO names the file the suite creates");
	vt_open(&v, o->ia_name);
	ep = vt_ep(&v, NULL);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	vt_msg_init(&m, "first");
	vt_ctl_send(&v, ep, &m, DAT_COMPLETION_DEFAULT_FLAG);
	vt_disconnect(&v, ep);
	vt_ep_free(ep);
	printf("first connection done\n");
	fflush(stdout);
	send_data_after_go(&v, o, go);
	vt_close(&v);
	return 0;
}

#define MUTE_MAX 16

static int mute_server(const struct vt_opts *o)
{
	const char *go = getenv("DATTEST_GO");
	int lfd, fds[MUTE_MAX], nfds = 0, got = 0, one = 1, i;
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	DAT_CONN_QUAL qual;
	uint64_t until;
	struct vt v;

	if (!go)
		vt_die("DATTEST_GO names the file the suite creates");
	vt_open(&v, o->ia_name);
	vt_sockaddr(&sin, vt_server_addr());
	/* SO_REUSEADDR: the PSP's listener binds the port while the
	 * connections accepted here still hold it (as the leaked ones do) */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		vt_die("the mute listener: %s", strerror(errno));
	/* at a port that is a qualifier's (1024..32767,
	 * providers/ofi/addr.c; the kernel's pick would be an ephemeral
	 * one, which none is) */
	srand((unsigned)getpid());
	for (i = 0; i < 1000; i++) {
		sin.sin_port = htons((uint16_t)(10000 + rand() % 10000));
		if (!bind(lfd, (struct sockaddr *)&sin, sizeof(sin)))
			break;
	}
	if (i == 1000 || getsockname(lfd, (struct sockaddr *)&sin, &len) ||
	    listen(lfd, 16))
		vt_die("the mute listener: %s", strerror(errno));
	qual = ntohs(sin.sin_port);
	vt_listening(qual);
	until = vt_now_us() + (uint64_t)vt_secs(30);
	while (!got && vt_now_us() < until) {
		struct pollfd p = {.fd = lfd, .events = POLLIN};

		if (poll(&p, 1, 10) == 1 && nfds < MUTE_MAX) {
			fds[nfds] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fds[nfds] >= 0)
				nfds++;
		}
		for (i = 0; i < nfds && !got; i++) {
			int n = 0;

			if (!ioctl(fds[i], FIONREAD, &n) && n > 0)
				got = 1;
		}
	}
	if (!vt_expect_true("a connection request came to the mute "
			    "listener", got))
		vt_die("nothing to go on with");
	vt_note("ok a connection request came to the mute listener");
	/* the client's first connect ended first (the suite creates the
	 * file then): it must not reach the PSP */
	until = vt_now_us() + (uint64_t)vt_secs(60);
	while (access(go, F_OK) && vt_now_us() < until)
		vt_sleep_ms(10);
	if (access(go, F_OK))
		vt_die("no %s after %us", go, vt_secs(60) / 1000000);
	close(lfd);

	receive_data_once(&v, qual);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	vt_close(&v);
	return 0;
}

static int mute_client(const struct vt_opts *o)
{
	const char *go = getenv("DATTEST_GO");
	struct sockaddr_in sin;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	struct vt v;

	if (!go)
		vt_die("DATTEST_GO names the file the suite creates");
	vt_open(&v, o->ia_name);
	vt_sockaddr(&sin, o->addr);
	ep = vt_ep(&v, NULL);
	vt_must("dat_ep_connect (to the mute listener)",
		dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
			       vt_secs(3), 0, NULL, DAT_QOS_BEST_EFFORT,
			       DAT_CONNECT_DEFAULT_FLAG));
	vt_expect_event("the connect to the mute listener", v.conn_evd,
			DAT_CONNECTION_EVENT_TIMED_OUT, &ev);
	vt_ep_free(ep);
	printf("first connect timed out\n");
	fflush(stdout);
	send_data_after_go(&v, o, go);
	vt_close(&v);
	return 0;
}

static const struct vt_test tests[] = {
	{ "relisten", relisten_server, relisten_client },
	{ "mute", mute_server, mute_client },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	static const struct vt_test *const tables[] = { tests };

	return vt_run(argc, argv, "dattest-ofi-relisten", tables, 1, 150, 0);
}
