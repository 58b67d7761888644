/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IA: which verbs device and address an ia_params string names, and
 * the device context rdma_cm uses for that address (the rest of the IA
 * is providers/verbs/device.c's).
 *
 * ia_params is "<name> <port>" where name is one of
 *   - an IP address literal ("10.77.0.1 0", compat-dapl style),
 *   - a network interface ("ib0 0", "vethA 0": its IPv4, else IPv6 address),
 *   - a verbs device ("rxe0 1", "mlx5_0 1": the first local address whose
 *     rdma_cm binding lands on that device and port),
 *   - a host name (resolved with getaddrinfo).
 * With an address or interface the port is ignored (compat-dapl used 0);
 * with a verbs device, a nonzero port must match.
 *
 * The device context is the one rdma_cm binds the address to
 * (cm_id->verbs), so that every PD, CQ and QP we create can be attached to
 * rdma_cm ids.  An "anchor" id stays bound to the address for the life of
 * the IA; it keeps librdmacm's device open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "cma.h"

#define CMA_DEFAULT_ACK_TIMEOUT 19
#define CMA_DEFAULT_RETRY_COUNT 7

/*
 * The tuning variables, read once per process (so a bad value is
 * reported once).  OFA dapl's names have OFA's meaning and units
 * (dapl/openib_cma, dapl/openib_common):
 *   DAPL_ACK_TIMER      local ACK timeout exponent, 4.096 us * 2^v (0..31)
 *   DAPL_ACK_RETRY      transport retry count (0..7)
 *   DAPL_RNR_RETRY      RNR NAK retry count, 7 = forever (0..7)
 *   DAPL_RNR_TIMER      min_rnr_timer code of our QPs (0..31)
 *   DAPL_CM_ARP_TIMEOUT_MS, DAPL_CM_ARP_RETRY_COUNT   address resolution:
 *                       ms per try, tries after the first
 *   DAPL_CM_ROUTE_TIMEOUT_MS, DAPL_CM_ROUTE_RETRY_COUNT  the same, route
 *   DAPL_MAX_CM_RESPONSE_TIME, DAPL_MAX_CM_RETRIES   IB CM response
 *                       timeout exponent and REQ retries: checked, but
 *                       upstream rdma_cm fixes both in the kernel
 *   DAPL_CM_TOS         the IP type of service of the connections this
 *                       process makes (0..255; RoCE: the traffic class,
 *                       whose DSCP picks the switch's priority; unset or
 *                       0: rdma_cm's default, as OFA, which sets only a
 *                       nonzero value)
 *   (DAPL_MAX_INLINE: providers/verbs/qp.c)
 * Our own DAPL_CMA_ACK_TIMEOUT and DAPL_CMA_RETRY_COUNT win over
 * DAPL_ACK_TIMER and DAPL_ACK_RETRY when both are set.  Unset, every
 * value is what this provider did before OFA's names were honoured.
 */
#define CMA_OFA_ARP_TIMEOUT_MS 4000	/* OFA's IB_ARP_TIMEOUT */
#define CMA_OFA_ARP_RETRIES 15		/* OFA's IB_ARP_RETRY_COUNT */
#define CMA_OFA_ROUTE_TIMEOUT_MS 4000	/* OFA's IB_ROUTE_TIMEOUT */
#define CMA_OFA_ROUTE_RETRIES 15	/* OFA's IB_ROUTE_RETRY_COUNT */
#define CMA_ENV_MAX_MS 3600000L		/* an hour per try at most */
#define CMA_ENV_MAX_RETRIES 1000L

static struct verbs_cm cma_env;
static pthread_once_t cma_env_once = PTHREAD_ONCE_INIT;

static void cma_env_read(void)
{
	int set, set2;
	long v;

	/* the local ACK timeout exponent: 4.096 us * 2^v */
	v = verbs_env_long("DAPL_CMA_ACK_TIMEOUT", 5, 31, -1, &set);
	if (!set)
		v = verbs_env_long("DAPL_ACK_TIMER", 0, 31,
				   CMA_DEFAULT_ACK_TIMEOUT, NULL);
	cma_env.ack_timeout = (uint8_t)v;
	/* rxe retries forever with 7 (hardware does 7 tries), so a dead
	 * link is noticed there only with a smaller count */
	v = verbs_env_long("DAPL_CMA_RETRY_COUNT", 0, 7, -1, &set);
	if (!set)
		v = verbs_env_long("DAPL_ACK_RETRY", 0, 7,
				   CMA_DEFAULT_RETRY_COUNT, NULL);
	cma_env.retry_count = (uint8_t)v;
	cma_env.rnr_retry =
	    (uint8_t)verbs_env_long("DAPL_RNR_RETRY", 0, 7, 7, NULL);
	cma_env.rnr_timer = (int)verbs_env_long("DAPL_RNR_TIMER", 0, 31, -1,
						NULL);

	v = verbs_env_long("DAPL_CM_ARP_TIMEOUT_MS", 1, CMA_ENV_MAX_MS,
			   CMA_OFA_ARP_TIMEOUT_MS, &set);
	cma_env.arp_retries = (int)verbs_env_long(
	    "DAPL_CM_ARP_RETRY_COUNT", 0, CMA_ENV_MAX_RETRIES,
	    CMA_OFA_ARP_RETRIES, &set2);
	cma_env.arp_ms = set || set2 ? (int)v : 0;
	v = verbs_env_long("DAPL_CM_ROUTE_TIMEOUT_MS", 1, CMA_ENV_MAX_MS,
			   CMA_OFA_ROUTE_TIMEOUT_MS, &set);
	cma_env.route_retries = (int)verbs_env_long(
	    "DAPL_CM_ROUTE_RETRY_COUNT", 0, CMA_ENV_MAX_RETRIES,
	    CMA_OFA_ROUTE_RETRIES, &set2);
	cma_env.route_ms = set || set2 ? (int)v : 0;
	/* accepted and checked for OFA's job scripts; the kernel's rdma_cm
	 * sets the CM response timeout and retries itself */
	verbs_env_long("DAPL_MAX_CM_RESPONSE_TIME", 0, 31, 23, NULL);
	verbs_env_long("DAPL_MAX_CM_RETRIES", 0, 15, 15, NULL);
	cma_env.tos = (uint8_t)verbs_env_long("DAPL_CM_TOS", 0, 255, 0, NULL);
}

void cma_tunables(struct verbs_cm *cm)
{
	pthread_once(&cma_env_once, cma_env_read);
	cm->ack_timeout = cma_env.ack_timeout;
	cm->retry_count = cma_env.retry_count;
	cm->rnr_retry = cma_env.rnr_retry;
	cm->rnr_timer = cma_env.rnr_timer;
	cm->arp_ms = cma_env.arp_ms;
	cm->arp_retries = cma_env.arp_retries;
	cm->route_ms = cma_env.route_ms;
	cm->route_retries = cma_env.route_retries;
	cm->tos = cma_env.tos;
}

/* An address literal, with port 0. */
static int cma_parse_literal(const char *name, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, name, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, name, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		return 0;
	}
	return -1;
}

static int cma_ifa_usable(const struct ifaddrs *ifa)
{
	return ifa->ifa_addr && (ifa->ifa_flags & IFF_UP) &&
	       (ifa->ifa_addr->sa_family == AF_INET ||
		ifa->ifa_addr->sa_family == AF_INET6);
}

/* The address of a network interface: IPv4 first, else IPv6. */
static int cma_parse_netdev(const char *name, struct sockaddr_storage *ss)
{
	struct ifaddrs *list, *ifa;
	int found = 0, pass;

	if (getifaddrs(&list))
		return -1;
	for (pass = 0; pass < 2 && !found; pass++) {
		int fam = pass ? AF_INET6 : AF_INET;

		for (ifa = list; ifa && !found; ifa = ifa->ifa_next) {
			if (!cma_ifa_usable(ifa) ||
			    ifa->ifa_addr->sa_family != fam ||
			    strcmp(ifa->ifa_name, name))
				continue;
			memset(ss, 0, sizeof(*ss));
			memcpy(ss, ifa->ifa_addr,
			       dapl_sockaddr_len(ifa->ifa_addr));
			found = 1;
		}
	}
	freeifaddrs(list);
	return found ? 0 : -1;
}

static int cma_is_verbs_device(const char *name)
{
	struct ibv_device **list;
	int n, i, found = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	for (i = 0; i < n && !found; i++)
		found = !strcmp(ibv_get_device_name(list[i]), name);
	ibv_free_device_list(list);
	return found;
}

/* Does binding this address land on device name (and port, if nonzero)? */
static int cma_addr_on_device(struct rdma_event_channel *ch,
			      const struct sockaddr *sa, const char *name,
			      unsigned port)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int match = 0;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 0;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, dapl_sockaddr_len(sa));
	if (!rdma_bind_addr(id, (struct sockaddr *)&ss) && id->verbs &&
	    !strcmp(ibv_get_device_name(id->verbs->device), name) &&
	    (!port || id->port_num == port))
		match = 1;
	rdma_destroy_id(id);
	return match;
}

/* The first local address (IPv4 first) that rdma_cm binds to the device. */
static int cma_parse_device(struct rdma_event_channel *ch, const char *name,
			    unsigned port, struct sockaddr_storage *ss)
{
	struct ifaddrs *list, *ifa;
	int found = 0, pass;

	if (!cma_is_verbs_device(name) || getifaddrs(&list))
		return -1;
	for (pass = 0; pass < 2 && !found; pass++) {
		int fam = pass ? AF_INET6 : AF_INET;

		for (ifa = list; ifa && !found; ifa = ifa->ifa_next) {
			if (!cma_ifa_usable(ifa) ||
			    ifa->ifa_addr->sa_family != fam ||
			    (ifa->ifa_flags & IFF_LOOPBACK))
				continue;
			if (!cma_addr_on_device(ch, ifa->ifa_addr, name, port))
				continue;
			memset(ss, 0, sizeof(*ss));
			memcpy(ss, ifa->ifa_addr,
			       dapl_sockaddr_len(ifa->ifa_addr));
			found = 1;
		}
	}
	freeifaddrs(list);
	return found ? 0 : -1;
}

static int cma_parse_hostname(const char *name, struct sockaddr_storage *ss)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;

	if (getaddrinfo(name, NULL, &hints, &res))
		return -1;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	((struct sockaddr_in *)ss)->sin_port = 0; /* same offset in v6 */
	return 0;
}

/* ia_params -> the IA's address (port 0) and the wanted verbs port. */
static DAT_RETURN cma_parse_params(struct rdma_event_channel *ch,
				   const char *params,
				   struct sockaddr_storage *ss, unsigned *port)
{
	char name[256];
	int n;

	*port = 0;
	if (!params)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	n = sscanf(params, " %255s %u", name, port);
	if (n < 1)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!cma_parse_literal(name, ss) || !cma_parse_netdev(name, ss)) {
		*port = 0;
		return DAT_SUCCESS;
	}
	if (!cma_parse_device(ch, name, *port, ss))
		return DAT_SUCCESS;
	if (!cma_parse_hostname(name, ss)) {
		*port = 0;
		return DAT_SUCCESS;
	}
	dapl_dbg(DAPL_DBG_ERR,
		 "cma: ia_params '%s': no such address, "
		 "interface or RDMA device",
		 params);
	return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
}

/* Binds the anchor id: the device context and port of the address. */
static DAT_RETURN cma_bind_anchor(struct verbs_cm *cm,
				  struct sockaddr_storage *ss, unsigned port)
{
	char buf[INET6_ADDRSTRLEN] = "?";
	const void *a =
	    ss->ss_family == AF_INET
		? (const void *)&((struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((struct sockaddr_in6 *)ss)->sin6_addr;

	inet_ntop(ss->ss_family, a, buf, sizeof(buf));
	if (rdma_create_id(cm->ch, &cm->anchor, NULL, RDMA_PS_TCP))
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	if (rdma_bind_addr(cm->anchor, (struct sockaddr *)ss) ||
	    !cm->anchor->verbs) {
		dapl_dbg(DAPL_DBG_ERR, "cma: %s: no RDMA device (%s)", buf,
			 strerror(errno));
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_DEVICE);
	}
	if (port && cm->anchor->port_num != port)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	dapl_dbg(DAPL_DBG_CM, "cma: IA %s on %s port %u", buf,
		 ibv_get_device_name(cm->anchor->verbs->device),
		 cm->anchor->port_num);
	return DAT_SUCCESS;
}

static void cma_cm_free(struct verbs_cm *cm)
{
	if (cm->anchor)
		rdma_destroy_id(cm->anchor);
	if (cm->ch)
		rdma_destroy_event_channel(cm->ch);
	free(cm);
}

/* The event channel and the anchor: the IA's address and device. */
static DAT_RETURN cma_cm_open(struct verbs_cm *cm, const char *ia_params,
			      struct sockaddr_storage *ss)
{
	unsigned port;
	DAT_RETURN ret;
	int fl;

	cma_tunables(cm);
	cm->ch = rdma_create_event_channel();
	if (!cm->ch)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				errno == ENODEV ? DAT_RESOURCE_DEVICE
						: DAT_RESOURCE_MEMORY);
	ret = cma_parse_params(cm->ch, ia_params, ss, &port);
	if (ret == DAT_SUCCESS)
		ret = cma_bind_anchor(cm, ss, port);
	if (ret != DAT_SUCCESS)
		return ret;
	/* The CM callback reads the channel without blocking under
	 * cia->lock. */
	fl = fcntl(cm->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(cm->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	return DAT_SUCCESS;
}

DAT_RETURN cma_ia_open(struct dapl_ia *ia, const char *ia_params,
		       struct dapl_caps *caps)
{
	struct sockaddr_storage ss;
	struct dapl_tp_ia *cia;
	struct verbs_cm *cm;
	DAT_RETURN ret;

	/* a forked child: librdmacm cannot start again (device.c) */
	ret = verbs_fork_guard("cma");
	if (ret != DAT_SUCCESS)
		return ret;
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	ret = cma_cm_open(cm, ia_params, &ss);
	if (ret == DAT_SUCCESS)
		ret = verbs_ia_open(ia, cm->anchor->verbs,
				    cm->anchor->port_num, &cma_cm_ops, caps);
	if (ret != DAT_SUCCESS) {
		cma_cm_free(cm);
		return ret;
	}
	cia = dapl_ia_tp(ia);
	cia->cm = cm;
	cm->conn_timer = cma_conn_timer;
	/* the engine starts once this returned: what it watches */
	if (dapl_progress_watch(ia, cm->ch->fd, cma_cm_event, cia)) {
		verbs_ia_close(ia);
		cma_cm_free(cm);
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	}
	caps->max_private_data = CMA_MAX_PDATA;
	dapl_ia_set_addr(ia, (struct sockaddr *)&ss);
	return DAT_SUCCESS;
}

void cma_ia_close(struct dapl_ia *ia)
{
	struct dapl_tp_ia *cia = dapl_ia_tp(ia);
	struct verbs_cm *cm;

	if (!cia)
		return;
	/*
	 * In a forked child the device state and the ids belong to the
	 * parent: touch nothing, leave the memory.  (udapl stopped the
	 * engine, so nothing watches our fds any more.)
	 */
	if (verbs_ia_forked(cia)) {
		verbs_ia_close(ia);
		return;
	}
	cm = cia->cm;
	verbs_ia_close(ia);
	cma_cm_free(cm);
}
