/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IA: the libfabric provider and address ia_params name (addr.c),
 * fi_getinfo for FI_EP_MSG or FI_EP_RDM with messages and RMA (select.c,
 * shared with datadm), the fabric, the domain
 * (FI_THREAD_SAFE: the progress engine and consumer threads call in at
 * once), one address vector, the control CQ and endpoint.  dat_ia_query's limits come from the
 * fi_info.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "ofi.h"
#include "data.h"
#include "wire.h"
#include "cm.h"
#include "keytab.h"

/* The libfabric calls of the IA's selection (select.c): the library's own */
static const struct ofi_fi_calls ofi_fi_calls = {
	.getinfo = fi_getinfo,
	.dupinfo = fi_dupinfo,
	.freeinfo = fi_freeinfo,
};

/*
 * Where the provider picks the keys (FI_MR_PROV_KEY), every registration
 * must be one of its own: two of one page must not share a key (init.c:
 * a registration cache makes them share one).  0 if so, else -FI_EKEYREJECTED.
 */
static int ofi_mr_distinct(struct dapl_tp_ia *oia)
{
	static char page[64];
	struct fid_mr *a = NULL, *b = NULL;
	int rc;

	if (!(oia->info->domain_attr->mr_mode & FI_MR_PROV_KEY))
		return 0;
	rc = fi_mr_reg(oia->domain, page, sizeof(page), FI_REMOTE_READ, 0, 1,
		       0, &a, NULL);
	if (!rc)
		rc = fi_mr_reg(oia->domain, page, sizeof(page), FI_REMOTE_READ,
			       0, 2, 0, &b, NULL);
	if (!rc && fi_mr_key(a) == fi_mr_key(b))
		rc = -FI_EKEYREJECTED;
	if (b)
		fi_close(&b->fid);
	if (a)
		fi_close(&a->fid);
	if (rc)
		dapl_dbg(DAPL_DBG_ERR,
			 "ofi: %s shares one key between registrations of the "
			 "same memory (libfabric's registration cache: "
			 "FI_MR_CACHE_MAX_COUNT=0 turns it off): %s",
			 oia->prov_name, fi_strerror(-rc));
	return rc ? -FI_EKEYREJECTED : 0;
}

static int ofi_cq_open_waitable(struct dapl_tp_ia *oia, size_t size,
				struct fid_cq **cq)
{
	struct fi_cq_attr ca = {
	    .size = size,
	    .format = FI_CQ_FORMAT_DATA,
	    .wait_obj = FI_WAIT_NONE,
	};

	return fi_cq_open(oia->domain, &ca, cq, NULL);
}

static void ofi_ia_free(struct dapl_tp_ia *oia)
{
	/* first: then its walk of the guards runs no more */
	dapl_watchdog_remove(oia->watchdog);
	ofi_gens_close(oia); /* gen.c: the control endpoints, the AVs */
	if (oia->ctl_cq)
		fi_close(&oia->ctl_cq->fid);
	if (oia->null_cq)
		fi_close(&oia->null_cq->fid);
	ofi_msg_ia_close(oia);
	ofi_global_enter();
	if (oia->domain)
		fi_close(&oia->domain->fid);
	if (oia->fabric)
		fi_close(&oia->fabric->fid);
	ofi_global_leave();
	if (oia->info)
		fi_freeinfo(oia->info);
	ofi_wake_ia_close(oia);
	ofi_keytab_close(oia->keytab);
	pthread_mutex_destroy(&oia->guard_lock);
	pthread_mutex_destroy(&oia->lock);
	free(oia);
}

/* The connection state machine's upcalls (cm.h struct ofi_cm_upcalls) */
static const struct ofi_cm_upcalls ofi_cm_up = {
	.rx = ofi_rx_conn,		/* cm.c */
	.rx_req = ofi_rx_req,		/* rdm.c */
	.tx_failed = ofi_ctl_tx_failed,	/* rdm.c */
};

/* What we report where libfabric sets no limit. */
#define OFI_DEFAULT_LIMIT 65536

static DAT_COUNT ofi_count(unsigned long long v)
{
	return v > INT_MAX ? INT_MAX : (DAT_COUNT)v;
}

static void ofi_caps(const struct dapl_tp_ia *oia, struct dapl_caps *caps)
{
	const struct fi_info *i = oia->info;
	DAT_IA_ATTR *a = &caps->attr;
	size_t iov = i->tx_attr->iov_limit < i->rx_attr->iov_limit
			 ? i->tx_attr->iov_limit
			 : i->rx_attr->iov_limit;
	size_t dtos = i->tx_attr->size < i->rx_attr->size ? i->tx_attr->size
							   : i->rx_attr->size;
	uint64_t msg = i->ep_attr->max_msg_size > UINT32_MAX
			   ? UINT32_MAX
			   : i->ep_attr->max_msg_size;
	uint32_t v = fi_version();

	snprintf(a->adapter_name, sizeof(a->adapter_name), "%s",
		 oia->prov_name);
	snprintf(a->vendor_name, sizeof(a->vendor_name), "libfabric %u.%u",
		 FI_MAJOR(v), FI_MINOR(v));
	a->hardware_version_major = FI_MAJOR(i->fabric_attr->prov_version);
	a->hardware_version_minor = FI_MINOR(i->fabric_attr->prov_version);
	/* one libfabric endpoint per DAT EP, and the IA's control endpoint
	 * (every PSP/RSP takes one more: README.md); shm: 256 a domain */
	a->max_eps = ofi_count(i->domain_attr->ep_cnt ? i->domain_attr->ep_cnt - 1
						      : 0);
	a->max_dto_per_ep = ofi_count(dtos);
	a->max_rdma_read_per_ep_in = ofi_count(i->tx_attr->size);
	a->max_rdma_read_per_ep_out = ofi_count(i->tx_attr->size);
	a->max_evds = ofi_count(i->domain_attr->cq_cnt);
	a->max_evd_qlen = 65536;
	a->max_iov_segments_per_dto = ofi_count(iov);
	/* 0: libfabric names no limit; we name a generous one */
	a->max_lmrs = i->domain_attr->mr_cnt ? ofi_count(i->domain_attr->mr_cnt)
					     : OFI_DEFAULT_LIMIT;
	a->max_lmr_block_size = msg;
	a->max_lmr_virtual_address = UINT64_MAX;
	a->max_pzs = OFI_DEFAULT_LIMIT;	/* in software */
	a->max_message_size = msg;
	a->max_rdma_size = msg;
	/* memory windows, emulated (rmr.c): a registration each */
	a->max_rmrs = a->max_lmrs;
	a->max_rmr_target_address = UINT64_MAX;
	a->max_srqs = 0;	/* rxm and shm have no shared receive contexts */
	a->max_iov_segments_per_rdma_read = ofi_count(iov);
	a->max_iov_segments_per_rdma_write = ofi_count(iov);
	a->max_rdma_read_in = ofi_count(i->tx_attr->size * 64ull);
	a->max_rdma_read_out = ofi_count(i->tx_attr->size * 64ull);
	a->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	a->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
	caps->flags = DAPL_CAP_FENCE | DAPL_CAP_MW; /* in software */
	if (oia->fab.atomics)
		caps->flags |= DAPL_CAP_ATOMICS;
	caps->mw_types = DAPL_MW_TYPE_1;
	caps->mw_note = OFI_MW_NOTE;
	caps->max_inline = 0;
	caps->max_private_data = OFI_MAX_PDATA; /* MSG: fits (msg.c) */
	/* rxm, tcp and shm progress data only when driven: the engine
	 * wakes for what the endpoints' wait sets and doorbells announce
	 * (wake.c) and polls for the rest, sleeping longer while it finds
	 * nothing (see ofi_ia_open) */
	caps->progress = DAPL_PROGRESS_POLL;
	caps->poll_min_us = 20;
	caps->poll_max_us = (uint32_t)ofi_env_num("DAPL_OFI_POLL_MAX_US",
						  10000, 1000000);
	/* while a consumer blocks in dat_evd_wait or dat_cno_wait: what a
	 * completion after a quiet spell may wait for the engine's round,
	 * against the rounds a second it costs.  Opt-in (0: the longest
	 * sleep): natively a wait blocked 3 s took 0.2-0.4 % of a core
	 * without it and 1.5-2.0 % with 1 ms, but over verbs;ofi_rxm in the
	 * emulated guest 1 ms took 5.5-6.6 %, over ordering.bats' 5 % (the
	 * guest's rounds cost more than udapl's duty floor sees: README) */
	caps->poll_wait_us = (uint32_t)ofi_env_num("DAPL_OFI_POLL_WAIT_US",
						   0, 1000000);
}

DAT_RETURN ofi_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps)
{
	struct dapl_tp_ia *oia;
	DAT_RETURN ret = DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	uint64_t ka_min_ms;
	int rc;

	oia = calloc(1, sizeof(*oia));
	if (!oia)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	oia->cm = &ofi_cm_up;
	pthread_mutex_init(&oia->lock, NULL);
	dapl_list_init(&oia->sps);
	dapl_list_init(&oia->conns);
	dapl_list_init(&oia->eps);
	dapl_list_init(&oia->cqs);
	dapl_list_init(&oia->txbufs);
	dapl_list_init(&oia->mrs);
	dapl_list_init(&oia->notes);
	dapl_list_init(&oia->lingering);
	dapl_list_init(&oia->lingering_leps);
	dapl_list_init(&oia->wakes);
	pthread_mutex_init(&oia->wake_lock, NULL);
	pthread_mutex_init(&oia->guard_lock, NULL);
	dapl_list_init(&oia->guards);
	oia->wake_epfd = -1;
	oia->wake_off = 1;
	oia->bell_tx = -1;
	oia->linger_ns =
	    ofi_env_num("DAPL_OFI_LINGER_MS", 5000, 600000) * 1000000ull;
	oia->ia = ia;
	oia->pid = getpid();
	oia->next_conn_id = ((uint64_t)getpid() << 32) | 1;
	oia->next_key = 1;
	oia->ka_interval_ns =
	    ofi_env_num("DAPL_OFI_KEEPALIVE_MS", 1000, 3600000) * 1000000ull;
	/* at least three keepalives: a shorter silence is no sign of a
	 * dead peer (1 ms made every accept fail) */
	ka_min_ms = 3 * (oia->ka_interval_ns / 1000000ull);
	oia->ka_timeout_ns =
	    ofi_env_range("DAPL_OFI_KEEPALIVE_TIMEOUT_MS",
			  ka_min_ms > 10000 ? ka_min_ms : 10000, ka_min_ms,
			  86400000) *
	    1000000ull;
	if (ofi_params_parse(ia_params, oia->prov_name,
			     sizeof(oia->prov_name), &oia->addr)) {
		dapl_dbg(DAPL_DBG_ERR,
			 "ofi: ia_params '%s': want \"<libfabric provider> "
			 "<IPv4 address>\"",
			 ia_params ? ia_params : "");
		ret = DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
		goto err;
	}
	oia->fab.rxm_srx = !strncmp(oia->prov_name, "verbs", 5);
	ofi_global_enter();
	ofi_env_rxm_srx(oia->fab.rxm_srx);
	/* MSG where the provider named alone offers it (msg.c), else RDM:
	 * select.c, which datadm --check asks too */
	rc = ofi_select_info(&ofi_fi_calls, oia->prov_name, &oia->addr,
			     &oia->info);
	if (rc == -FI_ENOSYS) {
		ofi_global_leave();
		/* shown whatever DAPL_DBG_TYPE says: the entry can never
		 * work, and its administrator must learn why */
		dapl_dbg(DAPL_DBG_ERR | DAPL_DBG_WARN,
			 "ofi: ia_params \"%s\": libfabric provider %s "
			 "refused: %s",
			 ia_params, oia->prov_name,
			 ofi_refused(oia->prov_name));
		ret = DAPL_ERR(DAT_PROVIDER_NOT_FOUND,
			       DAT_NAME_NOT_REGISTERED);
		goto err;
	}
	if (rc) {
		ofi_global_leave();
		dapl_dbg(DAPL_DBG_ERR, "ofi: fi_getinfo(%s): %s",
			 oia->prov_name, fi_strerror(-rc));
		ret = DAPL_ERR(DAT_PROVIDER_NOT_FOUND,
			       DAT_NAME_NOT_REGISTERED);
		goto err;
	}
	oia->fab.ep_type = oia->info->ep_attr->type;
	oia->fab.virt_addr = !!(oia->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR);
	/* libfabric's net is its tcp under another name: the same sockets
	 * (so the same probe) and the same rxm above it */
	oia->fab.tcp_probe = oia->info->addr_format == FI_SOCKADDR_IN &&
			 (!strncmp(oia->prov_name, "tcp", 3) ||
			  !strncmp(oia->prov_name, "net", 3));
	oia->fab.linger = oia->info->addr_format == FI_ADDR_STR;
	oia->fab.ep_av = oia->info->addr_format == FI_ADDR_STR;
	oia->fab.renew_canceled = oia->fab.rxm_srx; /* rxm over verbs, both */
	/* not over rxm: there the waiter's CQ read and the engine's round,
	 * woken by the same fd, contend in rxm's progress, and dapltest -T
	 * P -m b's median got no better (RDMA write 19 -> 29 and 20 -> 26
	 * us, read 27 -> 34, in two batches with the builds in turn; the
	 * same with the processes pinned to a core each: test/bench/
	 * results/2026-12-03-waiter.md) */
	oia->fab.waiter_reads = oia->fab.ep_type == FI_EP_MSG ||
				oia->fab.ep_av;
	rc = fi_fabric(oia->info->fabric_attr, &oia->fabric, NULL);
	if (!rc)
		rc = fi_domain(oia->fabric, oia->info, &oia->domain, NULL);
	ofi_global_leave();
	if (!rc)
		rc = ofi_mr_distinct(oia);
	if (!rc && ofi_is_msg(oia))
		rc = ofi_msg_ia_open(oia); /* msg.c: the EQ, fab */
	if (rc)
		goto err_fi;
	/*
	 * No wait object on the CQs: libfabric 1.17's rxm leaves the message
	 * CQ of a closed endpoint in its CQ's wait set, and the next
	 * fi_trywait on it (which must come before any sleep on the set's
	 * fd) crashes.  Each endpoint has a wait set of its own instead
	 * (wake.c), and the engine polls for the rest, sleeping longer while
	 * it finds nothing (ofi_caps: what that costs is in README.md).  The
	 * consumer's waits block on the EVDs' eventfds, which the engine
	 * writes.
	 */
	rc = ofi_cq_open_waitable(oia, 1024, &oia->ctl_cq);
	if (!rc)
		rc = ofi_cq_open_waitable(oia, 1024, &oia->null_cq);
	if (rc)
		goto err_fi;
	dapl_ia_set_tp(ia, oia);
	ofi_wake_ia_open(oia); /* wake.c: before the first endpoint */
	if (oia->info->addr_format == FI_ADDR_STR)
		ofi_shm_sweep_stale(); /* shm: before its first endpoint */
	/* the AV and the control endpoint (gen.c); MSG: no control
	 * endpoint, the connections carry it (msg.c) */
	rc = ofi_gen_open(oia);
	if (rc)
		goto err_fi;
	if (!ofi_is_msg(oia))
		oia->serve = ofi_progress_ctl; /* progress.c, for cq.c */
	oia->announce = ofi_keys_announce; /* cm.c, for ep.c */
	if (oia->fab.ep_av) /* shm: the keys peers read (keytab.c) */
		oia->keytab = ofi_keytab_open();
	dapl_ia_set_addr(ia, (const struct sockaddr *)&oia->addr);
	oia->fab.atomics = ofi_ctl_of(oia) &&
			   ofi_atomic_probe(oia, ofi_ctl_of(oia)->ep);
	oia->dto_timeout_ns = ofi_env_num("DAPL_OFI_DTO_TIMEOUT_MS", 30000,
					  86400000) * 1000000ull; /* ep.c */
	/* shm: locks a dead peer left held (shm_guard.c); without the
	 * thread, connections go unguarded (fep.c ofi_ep_guard) */
	if (oia->fab.ep_av)
		oia->watchdog = dapl_watchdog_add(ofi_ep_guards_watch, oia);
	ofi_caps(oia, caps);
	return DAT_SUCCESS;

err_fi:
	dapl_dbg(DAPL_DBG_ERR, "ofi: IA setup on %s: %s", oia->prov_name,
		 fi_strerror(-rc));
	ret = ofi_fi_err(rc, DAT_RESOURCE_MEMORY);
err:
	dapl_ia_set_tp(ia, NULL);
	ofi_ia_free(oia);
	return ret;
}

/* Every object of the IA is gone and the engine has stopped. */
void ofi_ia_close(struct dapl_ia *ia)
{
	struct dapl_tp_ia *oia = dapl_ia_tp(ia);
	struct dapl_list *pos, *tmp;

	if (!oia)
		return;
	dapl_ia_set_tp(ia, NULL);
	if (oia->pid != getpid())
		return; /* a forked child: the parent's */
	ofi_notes_drop(oia);
	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		dapl_list_del(&c->link);
		if (c->m)
			ofi_msg_conn_free(c);
		free(c);
	}
	ofi_lep_linger_end(oia, 1);
	/* the control endpoints go first: then libfabric holds none;
	 * once what they sent has arrived (ctl.c ofi_ctl_sent_wait) */
	if (ofi_ctl_of(oia))
		ofi_ctl_sent_wait(oia);
	ofi_gens_close(oia); /* gen.c */
	dapl_list_for_each_safe(pos, tmp, &oia->txbufs) {
		struct ofi_txbuf *tb = dapl_container_of(pos, struct ofi_txbuf,
							 link);

		dapl_list_del(&tb->link);
		free(tb);
	}
	ofi_ia_free(oia);
}
