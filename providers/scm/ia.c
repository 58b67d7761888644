/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IA: which verbs device and port an ia_params string names, the
 * address our QPs are reached at (GID, LID), and the IP address the
 * peers' CM reaches us at (the rest of the IA is providers/verbs/
 * device.c's).
 *
 * ia_params is "<device> <port> [<address>]", compat-dapl's scm form
 * ("mlx4_0 1", "rxe0 1").  The IA's IP address, where our listeners are
 * and the DAT address dat_ia_query reports, is the first of:
 *   1. the third field: an IPv4 literal or a network interface's name;
 *   2. DAPL_SCM_NETDEV, a network interface (OFA dapl's variable);
 *   3. the interface the port's GID table names: RoCE, the netdev of
 *      its RoCE v2 GIDs; InfiniBand, the IPoIB interface of GID 0;
 *   4. the address the host name resolves to, else the host's first
 *      IPv4 interface that is up and not loopback (OFA's scm did this
 *      always: an InfiniBand fabric whose HCAs have no IPoIB address
 *      uses the Ethernet the hosts share).
 * The GID we send from: on RoCE the RoCE v2 GID of the IA's address if
 * the port has one (else the port's first RoCE v2 GID, else GID 0: RoCE
 * v1); on InfiniBand GID 0, with the LID; DAPL_GLOBAL_ROUTING=1 adds the
 * GRH there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/epoll.h>

#include "scm.h"

#define SCM_DEFAULT_ACK_TIMEOUT 19	/* as cma: 2.1 s, for emulated hosts */
#define SCM_DEFAULT_RNR_TIMER 12	/* 0.64 ms, OFA scm's */
#define SCM_DEFAULT_HOP_LIMIT 64
#define SCM_MAX_GIDS 256

/*
 * The tuning variables, OFA dapl's names with OFA's meaning and units
 * (dapl/openib_scm):
 *   DAPL_ACK_TIMER       local ACK timeout exponent, 4.096 us * 2^v (0..31)
 *   DAPL_ACK_RETRY       transport retry count (0..7)
 *   DAPL_RNR_RETRY       RNR NAK retry count, 7 = forever (0..7)
 *   DAPL_RNR_TIMER       min_rnr_timer code of our QPs (0..31)
 *   DAPL_GLOBAL_ROUTING  1: a GRH on InfiniBand too (RoCE always has one)
 *   DAPL_HOP_LIMIT       the GRH's hop limit (0..255)
 *   DAPL_TCLASS          the GRH's traffic class (0..255)
 *   DAPL_IB_MTU          the largest path MTU in bytes (256..4096); the
 *                        port's active MTU if smaller
 */
static void scm_tunables(struct verbs_cm *cm)
{
	long mtu;

	cm->ack_timeout = (uint8_t)verbs_env_long("DAPL_ACK_TIMER", 0, 31,
						  SCM_DEFAULT_ACK_TIMEOUT, NULL);
	cm->retry_count =
	    (uint8_t)verbs_env_long("DAPL_ACK_RETRY", 0, 7, 7, NULL);
	cm->rnr_retry = (uint8_t)verbs_env_long("DAPL_RNR_RETRY", 0, 7, 7, NULL);
	cm->rnr_timer = (uint8_t)verbs_env_long("DAPL_RNR_TIMER", 0, 31,
						SCM_DEFAULT_RNR_TIMER, NULL);
	cm->global = (int)verbs_env_long("DAPL_GLOBAL_ROUTING", 0, 1, 0, NULL);
	cm->hop_limit = (uint8_t)verbs_env_long("DAPL_HOP_LIMIT", 0, 255,
						SCM_DEFAULT_HOP_LIMIT, NULL);
	cm->tclass = (uint8_t)verbs_env_long("DAPL_TCLASS", 0, 255, 0, NULL);
	mtu = verbs_env_long("DAPL_IB_MTU", 256, 4096, 4096, NULL);
	cm->mtu = mtu >= 4096 ? IBV_MTU_4096 : mtu >= 2048 ? IBV_MTU_2048
		  : mtu >= 1024 ? IBV_MTU_1024 : mtu >= 512 ? IBV_MTU_512
		  : IBV_MTU_256;
}

/* The IPv4 address of the interface with this name or index. */
static int scm_netdev_addr(const char *name, unsigned ifindex,
			   struct sockaddr_in *sin)
{
	char byindex[IF_NAMESIZE];
	struct ifaddrs *list, *ifa;
	int found = 0;

	if (!name && !(name = if_indextoname(ifindex, byindex)))
		return -1;
	if (getifaddrs(&list))
		return -1;
	for (ifa = list; ifa && !found; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET ||
		    !(ifa->ifa_flags & IFF_UP) || strcmp(ifa->ifa_name, name))
			continue;
		memcpy(sin, ifa->ifa_addr, sizeof(*sin));
		found = 1;
	}
	freeifaddrs(list);
	return found ? 0 : -1;
}

/* 4: the host name's IPv4 address, else the first usable interface's. */
static int scm_host_addr(struct sockaddr_in *sin)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM}, *res, *r;
	struct ifaddrs *list, *ifa;
	char host[256];
	int found = 0;

	if (!gethostname(host, sizeof(host)) &&
	    !getaddrinfo(host, NULL, &hints, &res)) {
		for (r = res; r && !found; r = r->ai_next) {
			const struct sockaddr_in *a = (void *)r->ai_addr;

			if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
				continue;
			memcpy(sin, a, sizeof(*sin));
			found = 1;
		}
		freeaddrinfo(res);
	}
	if (found || getifaddrs(&list))
		return found ? 0 : -1;
	for (ifa = list; ifa && !found; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET ||
		    !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
			continue;
		memcpy(sin, ifa->ifa_addr, sizeof(*sin));
		found = 1;
	}
	freeifaddrs(list);
	return found ? 0 : -1;
}

/* An IPv4-mapped GID (::ffff:a.b.c.d), its address in *a. */
static int scm_gid_v4(const union ibv_gid *g, struct in_addr *a)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0,
					   0, 0, 0xff, 0xff};

	if (memcmp(g->raw, prefix, sizeof(prefix)))
		return 0;
	memcpy(&a->s_addr, g->raw + 12, 4);
	return 1;
}

/*
 * The GID we send from and, unless the address was named (*have_addr),
 * the IA's address from the GID table (rule 3 above).
 */
static int scm_pick_gid(struct verbs_cm *cm, uint8_t port, int roce,
			int *have_addr)
{
	struct ibv_gid_entry *e = calloc(SCM_MAX_GIDS, sizeof(*e));
	ssize_t n, i, pick = -1;
	struct in_addr a;

	if (!e)
		return -1;
	n = ibv_query_gid_table(cm->ctx, e, SCM_MAX_GIDS, 0);
	for (i = 0; i < n; i++) {
		if (e[i].port_num != port)
			continue;
		if (!roce) { /* InfiniBand: GID 0 and its IPoIB netdev */
			if (e[i].gid_index != 0)
				continue;
			pick = i;
			if (!*have_addr && e[i].ndev_ifindex &&
			    !scm_netdev_addr(NULL, e[i].ndev_ifindex, &cm->addr))
				*have_addr = 1;
			break;
		}
		if (e[i].gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    !scm_gid_v4(&e[i].gid, &a))
			continue;
		if (*have_addr) {
			if (a.s_addr == cm->addr.sin_addr.s_addr) {
				pick = i;
				break;
			}
			if (pick < 0)
				pick = i;
			continue;
		}
		pick = i;
		cm->addr.sin_family = AF_INET;
		cm->addr.sin_addr = a;
		*have_addr = 1;
		break;
	}
	if (pick >= 0) {
		cm->gid_index = (uint8_t)e[pick].gid_index;
		cm->gid = e[pick].gid;
	}
	free(e);
	if (pick >= 0)
		return 0;
	/* RoCE v1 or a table libibverbs cannot read: GID 0 */
	cm->gid_index = 0;
	return ibv_query_gid(cm->ctx, port, 0, &cm->gid) ? -1 : 0;
}

static struct ibv_context *scm_open_device(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/* ia_params -> device context, port and the IA's address and GID. */
static DAT_RETURN scm_cm_open(struct verbs_cm *cm, const char *params,
			      uint8_t *port)
{
	char dev[64], where[256], buf[INET_ADDRSTRLEN] = "?";
	struct ibv_port_attr pa;
	const char *netdev = secure_getenv("DAPL_SCM_NETDEV");
	unsigned p = 0;
	int n, have_addr = 0, roce;

	n = params ? sscanf(params, " %63s %u %255s", dev, &p, where) : 0;
	if (n < 2 || !p || p > 255) {
		dapl_dbg(DAPL_DBG_ERR,
			 "scm: ia_params '%s': want \"<device> <port> "
			 "[<address or interface>]\"",
			 params ? params : "");
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	memset(&cm->addr, 0, sizeof(cm->addr));
	cm->addr.sin_family = AF_INET;
	if (n == 3) {
		if (inet_pton(AF_INET, where, &cm->addr.sin_addr) != 1 &&
		    scm_netdev_addr(where, 0, &cm->addr)) {
			dapl_dbg(DAPL_DBG_ERR,
				 "scm: ia_params '%s': %s is no IPv4 address "
				 "or interface with one",
				 params, where);
			return DAPL_ERR(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG1);
		}
		have_addr = 1;
	} else if (netdev && *netdev) {
		if (scm_netdev_addr(netdev, 0, &cm->addr)) {
			dapl_dbg(DAPL_DBG_ERR,
				 "scm: DAPL_SCM_NETDEV=%s has no IPv4 address",
				 netdev);
			return DAPL_ERR(DAT_INVALID_PARAMETER,
					DAT_INVALID_ARG1);
		}
		have_addr = 1;
	}
	cm->ctx = scm_open_device(dev);
	if (!cm->ctx) {
		dapl_dbg(DAPL_DBG_ERR, "scm: ia_params '%s': no RDMA device %s",
			 params, dev);
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	if (ibv_query_port(cm->ctx, (uint8_t)p, &pa)) {
		dapl_dbg(DAPL_DBG_ERR, "scm: ia_params '%s': %s has no port %u",
			 params, dev, p);
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	if (pa.state != IBV_PORT_ACTIVE)
		dapl_dbg(DAPL_DBG_WARN, "scm: %s port %u is not active (%s)",
			 dev, p, ibv_port_state_str(pa.state));
	roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (scm_pick_gid(cm, (uint8_t)p, roce, &have_addr)) {
		dapl_dbg(DAPL_DBG_ERR, "scm: %s port %u: no GID", dev, p);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_DEVICE);
	}
	if (!have_addr && scm_host_addr(&cm->addr)) {
		dapl_dbg(DAPL_DBG_ERR, "scm: %s port %u: no IPv4 address for "
			 "the CM (name one in ia_params or DAPL_SCM_NETDEV)",
			 dev, p);
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	}
	cm->addr.sin_port = 0;
	if (roce)
		cm->global = 1;
	cm->lid = pa.lid;
	if ((int)pa.active_mtu < (int)cm->mtu)
		cm->mtu = (uint8_t)pa.active_mtu;
	*port = (uint8_t)p;
	inet_ntop(AF_INET, &cm->addr.sin_addr, buf, sizeof(buf));
	dapl_dbg(DAPL_DBG_CM, "scm: IA %s on %s port %u (%s, GID index %u)",
		 buf, dev, p, roce ? "RoCE" : "InfiniBand", cm->gid_index);
	return DAT_SUCCESS;
}

static void scm_cm_free(struct verbs_cm *cm)
{
	if (cm->epfd >= 0)
		close(cm->epfd);
	if (cm->ctx)
		ibv_close_device(cm->ctx);
	free(cm);
}

DAT_RETURN scm_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps)
{
	struct dapl_tp_ia *cia;
	struct verbs_cm *cm;
	DAT_RETURN ret;
	uint8_t port = 0;

	/* a forked child: libibverbs' device list may be locked by a parent
	 * thread that was opening an IA at the fork (device.c) */
	ret = verbs_fork_guard("scm");
	if (ret != DAT_SUCCESS)
		return ret;
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	dapl_list_init(&cm->conns);
	scm_tunables(cm);
	cm->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (cm->epfd < 0) {
		scm_cm_free(cm);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	ret = scm_cm_open(cm, ia_params, &port);
	if (ret == DAT_SUCCESS)
		ret = verbs_ia_open(ia, cm->ctx, port, &scm_cm_ops, caps);
	if (ret != DAT_SUCCESS) {
		scm_cm_free(cm);
		return ret;
	}
	cia = dapl_ia_tp(ia);
	cia->cm = cm;
	cm->conn_timer = scm_conn_timer;
	/* the engine starts once this returned: what it watches */
	if (dapl_progress_watch(ia, cm->epfd, scm_cm_event, cia)) {
		verbs_ia_close(ia);
		scm_cm_free(cm);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	caps->max_private_data = SCM_MAX_PDATA;
	dapl_ia_set_addr(ia, (struct sockaddr *)&cm->addr);
	return DAT_SUCCESS;
}

void scm_ia_close(struct dapl_ia *ia)
{
	struct dapl_tp_ia *cia = dapl_ia_tp(ia);
	struct verbs_cm *cm;

	if (!cia)
		return;
	cm = cia->cm;
	/* a forked child: the device and sockets are the parent's too;
	 * the child's close touches only its own copies of the fds */
	if (verbs_ia_forked(cia)) {
		verbs_ia_close(ia);
		return;
	}
	/* what no CR or EP took: sockets whose REQ never came whole, and
	 * connections udapl already let go of (the engine is stopped) */
	while (!dapl_list_empty(&cm->conns)) {
		struct dapl_tp_cr *conn = dapl_container_of(
		    cm->conns.next, struct dapl_tp_cr, link);

		scm_conn_unlink(conn);
		scm_conn_free(conn);
	}
	verbs_ia_close(ia);
	scm_cm_free(cm);
}
