/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * graceful-sends: sends still in flight when their EP disconnects
 * gracefully.
 *
 * dat_ep_disconnect(3DAT): "For graceful disconnect, all outstanding and
 * in-progress request DTOs and RMR Binds must try to be completed
 * successfully first, before disconnect proceeds."  The client posts
 * GS_N sends of 64 B to 256 KiB (each size a provider may carry its own
 * way: inline, eager, in segments, by rendezvous) and, without waiting
 * for any completion, disconnects gracefully.  The server, its GS_N
 * receives posted before it accepted, must get every message whole, in
 * order, before the connection's end; the client must get every send's
 * completion DAT_DTO_SUCCESS, and DISCONNECTED.  Over libfabric's tcp
 * MSG endpoints a send completes when libfabric has written it to its
 * socket (providers/ofi/msg.c): the disconnect's DISC, counting the
 * sends and travelling behind them, is what makes the peer take them
 * all before it ends the connection.  Over verbs (libdaplcma,
 * libdaplscm) the QP drains its send queue (SQD) before the DREQ, which
 * moves it to the error state.  Run over every libfabric fabric
 * (test/ofi/dto.bats), cma and scm (test/verbs/dto.bats, scm.bats).
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"

#define GS_N 16
#define GS_SLOT (256 << 10)
#define GS_PRIV (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

static DAT_VLEN gs_len(int i)
{
	static const DAT_VLEN len[] = { 64, 4096, 65536, GS_SLOT };

	return len[i % 4];
}

static int gs_server(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov[GS_N];
	DAT_CONN_QUAL qual = 0;
	DAT_PSP_HANDLE psp;
	DAT_EP_HANDLE ep;
	DAT_CR_HANDLE cr;
	DAT_EP_ATTR a;
	DAT_EVENT ev;
	struct vt_mem m;
	struct vt v;
	char what[64];
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)GS_N * GS_SLOT, GS_PRIV);
	memset(m.buf, 0xEE, (size_t)GS_N * GS_SLOT);
	vt_ep_attr(&v, &a);
	psp = vt_psp(&v, &qual);
	vt_listening(qual);
	cr = vt_wait_cr(&v, &ev);
	ep = vt_ep(&v, &a);
	for (i = 0; i < GS_N; i++) {
		iov[i] = vt_iov(&m, (DAT_VLEN)i * GS_SLOT, GS_SLOT);
		vt_must("dat_ep_post_recv",
			dat_ep_post_recv(ep, 1, &iov[i], vt_cookie(0x100 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	vt_accept(&v, cr, ep, NULL, 0);
	for (i = 0; i < GS_N; i++) {
		snprintf(what, sizeof(what), "receive %d (%llu bytes)", i,
			 (unsigned long long)gs_len(i));
		vt_expect_dto(what, v.rcv_evd, ep, 0x100 + i, DAT_DTO_SUCCESS,
			      gs_len(i));
		vt_check(what, m.buf + (size_t)i * GS_SLOT, gs_len(i), 40 + i);
	}
	vt_note("%d messages received whole, in order", GS_N);
	vt_wait_disconnected(&v, ep);
	vt_ep_free(ep);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

static int gs_client(const struct vt_opts *o)
{
	DAT_LMR_TRIPLET iov[GS_N];
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	struct vt_mem m;
	struct vt v;
	char what[64];
	int i;

	vt_open(&v, o->ia_name);
	vt_mem_alloc(&v, &m, (DAT_VLEN)GS_N * GS_SLOT, GS_PRIV);
	vt_ep_attr(&v, &a);
	ep = vt_ep(&v, &a);
	vt_connect(&v, ep, o->addr, o->qual, NULL, 0);
	for (i = 0; i < GS_N; i++) {
		vt_fill(m.buf + (size_t)i * GS_SLOT, gs_len(i), 40 + i);
		iov[i] = vt_iov(&m, (DAT_VLEN)i * GS_SLOT, gs_len(i));
		vt_must("dat_ep_post_send",
			dat_ep_post_send(ep, 1, &iov[i], vt_cookie(0x200 + i),
					 DAT_COMPLETION_DEFAULT_FLAG));
	}
	/* at once: none of the sends was seen complete */
	vt_disconnect(&v, ep);
	for (i = 0; i < GS_N; i++) {
		snprintf(what, sizeof(what), "send %d (%llu bytes)", i,
			 (unsigned long long)gs_len(i));
		vt_expect_dto(what, v.req_evd, ep, 0x200 + i, DAT_DTO_SUCCESS,
			      gs_len(i));
	}
	vt_expect_empty("request EVD after the sends", v.req_evd);
	vt_ep_free(ep);
	vt_mem_free(&m);
	vt_close(&v);
	return 0;
}

const struct vt_test vt_graceful_tests[] = {
	{ "graceful-sends", gs_server, gs_client },
	{ NULL, NULL, NULL }
};
