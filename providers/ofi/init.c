/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's entry points, its ops table and small shared helpers.
 *
 * Environment read by this provider (at dat_ia_open):
 *   DAPL_OFI_KEEPALIVE_MS=<n>   interval of the keepalive every side of an
 *	established connection sends (default 1000).
 *   DAPL_OFI_KEEPALIVE_TIMEOUT_MS=<n>   silence after which a connection
 *	is BROKEN (default 10000): a peer that died, was killed or stopped.
 *   DAPL_OFI_POLL_MAX_US=<n>    the longest sleep of the progress engine's
 *	polling while it finds nothing to do (default 10000).
 *   DAPL_OFI_POLL_WAIT_US=<n>   the longest sleep while a consumer blocks
 *	in dat_evd_wait or dat_cno_wait (unset: the above; at most the
 *	above): what a blocked waiter's completion may wait after a quiet
 *	spell, for that many rounds a second of the engine (1000: 1.5-2 %
 *	of a core natively while blocked).
 *   DAPL_OFI_DTO_TIMEOUT_MS=<n>   a request that went this long without a
 *	completion fails with DAT_DTO_ERR_TRANSPORT and breaks its
 *	connection (default 30000; ep.c ofi_ep_stuck).
 *   DAPL_OFI_LINGER_MS=<n>   shm: how long a freed PSP's listening
 *	endpoint stays open for a PSP created on its qualifier to take over
 *	(default 5000; lep.c ofi_lep_linger).  The tests shorten it to reach
 *	the end of a linger without waiting 5 s.
 *   DAPL_OFI_SHM_SWEEP=0   shm: the first IA of a process does not remove
 *	the regions of processes that are gone from /dev/shm (shm_sweep.c
 *	ofi_shm_sweep_dead; on by default).
 *
 * And one of libfabric's, set here unless the environment has it:
 *   FI_OFI_RXM_USE_SRX=0, not for an IA over verbs: rxm's shared receive
 *	context (its 1.17 default over tcp) costs every endpoint 4096
 *	bounce buffers of 16 KiB, set to zero: 200 MB and half a second per
 *	endpoint, and a DAT EP is an endpoint.  Without it an endpoint
 *	costs a few kB and a millisecond; each connection then has its own
 *	receive buffers.
 *   FI_OFI_RXM_USE_SRX=1 and FI_OFI_RXM_MSG_RX_SIZE=128, for an IA over
 *	verbs: one shared receive context of 128 buffers an endpoint (what
 *	a connection has without it; 4096 is rxm's default with it).
 *	Without it libfabric 1.17's rxm over verbs posts each connection's
 *	receive buffers on the connection's verbs endpoint and sends
 *	credit messages (verbs flow control) on it; rxm handles the end of
 *	a connection (ours, or the peer's: an rdma_cm event, from inside
 *	fi_cq_read or fi_send) by closing the verbs endpoint and only then
 *	handling what its verbs CQ still holds, and a message found there
 *	has its buffer posted again on the closed endpoint (rxm_free_rx_buf
 *	tests conn->msg_ep, cleared only after that): SIGSEGV in
 *	rxm_post_recv.  Churn.bats in the soft-RoCE guest: the server in
 *	dat_psp_free, a credit message of the client on the listener's
 *	connection (fi_close, rxm_close_conn, rxm_handle_comp: the credit
 *	case, rxm_post_recv; 1 run in 13), and, with the reads before a
 *	control endpoint's close (ctl.c ofi_ctl_shut), the client in the
 *	engine's fi_cq_read, a credit message of the listener whose
 *	connection ended (rxm_conn_progress, rxm_process_shutdown,
 *	rxm_close_conn, the same; 1 run in 48).  The call is the credit
 *	case of rxm_handle_comp by the disassembly of Debian's libfabric
 *	(its flow-control add_credits right before).  With a shared
 *	receive context verbs has no flow control (no credit messages),
 *	and a buffer is posted again on the shared context, which lives as
 *	long as rxm's endpoint: no crash in 223 runs of the pair in four
 *	boots; with the renewal of a REQ canceled (rdm.c ofi_ctl_tx_failed)
 *	149 of 149 passed in two boots.  A run of the pair took 5-6 s so
 *	(4-5 s without the shared context, 11-15 s with its 4096 buffers).
 *	Unlike the other settings here, set for each IA (ofi_env_rxm_srx
 *	below); FI_OFI_RXM_MSG_RX_SIZE=128 is set for every IA (rxm's
 *	default without the shared context).
 *   FI_MR_CACHE_MAX_COUNT=0   no registration cache: with it, verbs hands
 *	a second registration of the same pages the first one's MR and
 *	key (whatever its access), and rxm then refuses it (-FI_ENOKEY), so
 *	two LMRs of one buffer, or a window inside an LMR, would share a
 *	key, and closing a window's registration would revoke nothing.
 *	A process that set up libfabric with the cache before its first
 *	dat_ia_open keeps it: ia.c then refuses an IA that needs keys
 *	of its own (FI_MR_PROV_KEY).
 *   FI_OFI_RXM_CQ_EQ_FAIRNESS=1   rxm reads its connection events (its
 *	msg EQ) from fi_cq_read only when its msg CQ was empty, or after
 *	128 reads that found something (default).  Once the peer endpoint
 *	of an rxm connection closed (a freed PSP's listener), the reads
 *	of the client's control endpoint kept finding something: for 128
 *	rounds of the engine (1.3 s; 0.35 s with 32) nothing read that
 *	endpoint's events, neither the connection's end nor the connection
 *	the listener's IA made to send its REQACK and REJECT (strace: its
 *	EQ not polled, its listening socket not accepted meanwhile).  The
 *	client's resent REQs then went on the dead connection and failed
 *	ENOTCONN: NON_PEER_REJECTED instead of the peer's reject
 *	(psp-gone.bats over tcp).  With 1 the events are read
 *	at least every FI_OFI_RXM_CM_PROGRESS_INTERVAL.  Not for an IA
 *	over verbs (not tried in the soft-RoCE guest).
 *   FI_OFI_RXM_CM_PROGRESS_INTERVAL=1000 (us), beside it: rxm connects
 *	two endpoints at the first send between them, and with the default
 *	10 ms between its reads of connection events each step of that
 *	handshake waited up to 10 ms: a first exchange (connect, accept, a
 *	64-byte send each way: test/bench/connbench.c) took 13.6-14.5 ms
 *	on loopback against tcp MSG's 0.7-2 ms.  With 1 ms: 5.7-12 ms under
 *	load (100 us did no better); a read of rxm's events each ms costs a
 *	spinning consumer nothing it would notice.
 *   FI_AV_REMOVE_CLEANUP=1: fi_av_remove closes rxm's connections to
 *	the address removed (1.17 leaves them by default).  ctl.c
 *	ofi_av_renew removes the address of a listener that rxm's
 *	connection to is stuck (TCP: ofi_rxm_unstick; verbs: a REQ
 *	canceled, ofi_ctl_tx_failed), and inserts it again, to connect
 *	afresh.  Our only fi_av_remove over rxm.
 *   FI_UNIVERSE_SIZE=64: rxm sizes each endpoint's verbs CQ for that
 *	many peers (256 by default: 256 x 256 entries), more than rxe gives
 *	(ibv_create_cq fails, and so does fi_enable of every endpoint).
 *	libfabric reads it once, at its first use in the process, so it is
 *	set for every IA: set only for verbs IAs, a verbs IA opened after a
 *	tcp one failed to open (test/ofi/mixed.bats).  A tcp IA's rxm CQs
 *	are sized for 64 peers as well, a size and not a limit: a tcp IA
 *	serves 80 peer IAs at once in connect.bats (many-ia), 150 by hand.
 *	Only where libfabric was not set up before in the process.
 *   FI_OFI_RXM_COMP_PER_PROGRESS=64, for an IA over verbs only: rxm reads
 *	that many of its verbs completions per read of our CQ (1 by
 *	default), so that one read handles what has arrived.  libfabric
 *	1.17's rxm handles a connection's end (the peer's endpoint closed:
 *	an rdma_cm event), also from inside fi_send, by closing the verbs
 *	endpoint and only then handling the completions left in its CQ; a
 *	message received there has its buffer posted again on the closed
 *	endpoint (SIGSEGV: the client of cr_overflow.bats, whose server
 *	rejected one request and exited; core from the guest).  The engine
 *	reads the control CQ right before it sends what was held back
 *	(progress.c), and with this that read leaves nothing behind.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "ofi.h"
#include "data.h"
#include "cm.h"

const struct dapl_ops ofi_ops = {
    .ia_open = ofi_ia_open,
    .ia_close = ofi_ia_close,
    .pz_create = ofi_pz_create,
    .pz_free = ofi_pz_free,
    .mr_register = ofi_mr_register,
    .mr_share = ofi_mr_share,
    .mr_deregister = ofi_mr_deregister,
    .cq_create = ofi_cq_create,
    .cq_resize = ofi_cq_resize,
    .cq_destroy = ofi_cq_destroy,
    .cq_poll = ofi_cq_poll,
    .cq_direct_cqe = ofi_cq_direct_cqe,
    .cq_arm = ofi_cq_arm,
    .cq_ack = ofi_cq_ack,
    .qp_create = ofi_qp_create,
    .qp_destroy = ofi_qp_destroy,
    .qp_reset = ofi_qp_reset,
    .post_send = ofi_post_send,
    .post_recv = ofi_post_recv,
    .post_send1 = ofi_post_send1,
    .post_recv1 = ofi_post_recv1,
    .post_write1 = ofi_post_write1,
    .post_read1 = ofi_post_read1,
    .listen = ofi_listen,
    .listen_stop = ofi_listen_stop,
    .connect = ofi_connect,
    .accept = ofi_accept,
    .reject = ofi_reject,
    .cr_destroy = ofi_cr_destroy,
    .disconnect = ofi_disconnect,
    .mw_alloc = ofi_mw_alloc,
    .mw_free = ofi_mw_free,
    .progress = ofi_progress,
    .progress_fd = ofi_progress_fd,
};

/*
 * A set-uid or set-gid program (AT_SECURE): libfabric reads its FI_*
 * variables with plain getenv, and FI_PROVIDER_PATH names libraries it
 * loads (a library owned by nobody ran with euid 0), FI_HOOK providers
 * it layers in, FI_VERBS_XRCD_FILENAME a file it writes; the others
 * change what the program's owner chose in ways nobody vetted.  So none
 * of the caller's is left to libfabric: each is cleared before our
 * first libfabric call (this runs when libdat loads the provider;
 * libfabric reads its variables at its first fi_getinfo), and one
 * message says so.  The provider's own DAPL_* variables name no path.
 */
static void ofi_secure_env(void)
{
	extern char **environ;
	char name[128], first[128] = "";
	unsigned cleared = 0, tries;

	if (!getauxval(AT_SECURE))
		return;
	for (tries = 0; tries < 4096; tries++) {
		char **e = environ;
		size_t n;

		while (e && *e && strncmp(*e, "FI_", 3))
			e++;
		if (!e || !*e)
			break;
		n = strcspn(*e, "=");
		if (n >= sizeof(name)) {
			*e = "FI_=";	/* a name too long to unset: hidden */
			n = 3;
		}
		memcpy(name, *e, n);
		name[n] = '\0';
		if (!cleared)
			memcpy(first, name, n + 1);
		if (unsetenv(name))
			break;
		cleared++;
	}
	if (cleared)
		dapl_dbg(DAPL_DBG_ERR | DAPL_DBG_WARN,
			 "ofi: a set-uid or set-gid program: the caller's "
			 "FI_* variables decide nothing here; %u cleared "
			 "(%s%s)",
			 cleared, first, cleared > 1 ? ", ..." : "");
}

__attribute__((constructor)) static void ofi_atfork(void)
{
	ofi_secure_env();
	pthread_atfork(ofi_global_enter, ofi_global_leave, NULL);
}

void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *info,
				 const char *ia_params)
{
	/* before libfabric reads its parameters (the first fi_getinfo) */
	ofi_env_srx_init();
	setenv("FI_MR_CACHE_MAX_COUNT", "0", 0);
	setenv("FI_AV_REMOVE_CLEANUP", "1", 0);
	/* rxm's default without a shared receive context, so the same
	 * for a tcp IA; for a verbs IA's shared one (4096 by default) */
	setenv("FI_OFI_RXM_MSG_RX_SIZE", "128", 0);
	setenv("FI_UNIVERSE_SIZE", "64", 0);
	if (ia_params && !strncmp(ia_params, "verbs", 5)) {
		setenv("FI_OFI_RXM_COMP_PER_PROGRESS", "64", 0);
	} else {
		setenv("FI_OFI_RXM_CQ_EQ_FAIRNESS", "1", 0);
		setenv("FI_OFI_RXM_CM_PROGRESS_INTERVAL", "1000", 0);
	}
	dapl_provider_init(info, ia_params, &ofi_ops, "ofi");
}

void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *info)
{
	dapl_provider_fini(info);
}

