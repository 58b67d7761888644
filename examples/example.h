/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.h - the few steps every example program shares: open an IA,
 * connect two processes, register memory, wait for one event.  Each
 * example (pingpong.c, rdma_write.c, mw_bind.c, fetch_add.c) shows one
 * thing on top of these; copy example.c along with the one you start from.
 *
 * Every function prints the failing call and exits on an error: an
 * example must stay short.  A real application would clean up and report.
 */
#ifndef EXAMPLE_H
#define EXAMPLE_H

#include <stdint.h>

#include <dat/udat.h>

/* Everything one side of a connection owns. */
struct ex {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async_evd;	/* the IA's: errors of the whole IA */
	DAT_PZ_HANDLE pz;		/* EP and memory must share it */
	DAT_EVD_HANDLE req_evd;		/* completions of our sends, writes... */
	DAT_EVD_HANDLE rcv_evd;		/* completions of our receives */
	DAT_EVD_HANDLE conn_evd;	/* ESTABLISHED, DISCONNECTED ... */
	DAT_EVD_HANDLE cr_evd;		/* connection requests (server) */
	DAT_PSP_HANDLE psp;		/* the server's listening point */
	DAT_EP_HANDLE ep;		/* the connection */
};

/* Registered memory: the buffer and what DTOs name it by. */
struct ex_mem {
	unsigned char *buf;
	DAT_VLEN len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lmr_context;	/* for our own posts (DAT_LMR_TRIPLET) */
	DAT_RMR_CONTEXT rmr_context;	/* for the peer's RDMA (DAT_RMR_TRIPLET) */
};

/*
 * What one side tells the other about a buffer it may access remotely:
 * sent as an ordinary message.  Fixed-size fields in network byte order,
 * because the peer may be another machine.
 */
struct ex_buf_msg {
	uint64_t address;
	uint32_t rmr_context;
	uint32_t length;
};

/* The command line every example takes; see ex_args(). */
struct ex_args {
	const char *ia_name;	/* -D: the dat.conf entry to open */
	const char *server;	/* client: the server's IP address */
	DAT_CONN_QUAL qual;	/* -q: the connection qualifier */
	unsigned long count;	/* -n: how many round trips, adds ... */
};

void ex_args(int argc, char **argv, const char *what, struct ex_args *a);
void ex_check(DAT_RETURN rc, const char *call);
void ex_open(struct ex *x, const char *ia_name);
void ex_close(struct ex *x);
void ex_serve(struct ex *x, DAT_CONN_QUAL qual);
void ex_connect(struct ex *x, const char *server, DAT_CONN_QUAL qual);
void ex_disconnect(struct ex *x);
void ex_mem_register(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		     DAT_MEM_PRIV_FLAGS priv);
void ex_mem_free(struct ex_mem *m);
DAT_LMR_TRIPLET ex_iov(const struct ex_mem *m, DAT_VLEN off, DAT_VLEN len);
void ex_post_recv(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		  uint64_t cookie);
void ex_post_send(struct ex *x, struct ex_mem *m, DAT_VLEN len,
		  uint64_t cookie);
void ex_wait(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want, DAT_EVENT *ev);
void ex_wait_dto(DAT_EVD_HANDLE evd, uint64_t cookie, DAT_EVENT *ev);
void ex_send_buf(struct ex *x, struct ex_mem *msg, const struct ex_mem *m,
		 DAT_VLEN off, DAT_VLEN len, DAT_RMR_CONTEXT ctx);
DAT_RMR_TRIPLET ex_recv_buf(struct ex *x, struct ex_mem *msg);

#endif
