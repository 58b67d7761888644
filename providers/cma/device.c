/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IA: which verbs device and address an ia_params string names, the
 * device context rdma_cm uses for that address, and the device limits
 * dat_ia_query reports.
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

unsigned cma_disable_flags(const char *s)
{
	unsigned flags = 0;
	char buf[128], *tok, *save;

	if (!s)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!strcasecmp(tok, "mw") || !strcasecmp(tok, "rmr"))
			flags |= CMA_NO_MW;
		else if (!strncasecmp(tok, "atomic", 6))
			flags |= CMA_NO_ATOMIC;
		else if (!strcasecmp(tok, "srq"))
			flags |= CMA_NO_SRQ;
		else
			dapl_dbg(DAPL_DBG_WARN,
				 "cma: DAPL_CMA_DISABLE: unknown '%s'", tok);
	}
	return flags;
}

/* A small number from the environment: def unless it is in [lo, hi]. */
static uint8_t cma_env_u8(const char *name, long lo, long hi, uint8_t def)
{
	const char *s = secure_getenv(name);
	long v;

	if (!s)
		return def;
	v = strtol(s, NULL, 0);
	return v >= lo && v <= hi ? (uint8_t)v : def;
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
			memcpy(ss, ifa->ifa_addr, cma_addr_len(ifa->ifa_addr));
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
	memcpy(&ss, sa, cma_addr_len(sa));
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
			memcpy(ss, ifa->ifa_addr, cma_addr_len(ifa->ifa_addr));
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

/* Binds the anchor id and learns the device context and port. */
static DAT_RETURN cma_bind_anchor(struct cma_ia *cia,
				  struct sockaddr_storage *ss, unsigned port)
{
	char buf[INET6_ADDRSTRLEN] = "?";
	const void *a =
	    ss->ss_family == AF_INET
		? (const void *)&((struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((struct sockaddr_in6 *)ss)->sin6_addr;

	inet_ntop(ss->ss_family, a, buf, sizeof(buf));
	if (rdma_create_id(cia->ch, &cia->anchor, NULL, RDMA_PS_TCP))
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	if (rdma_bind_addr(cia->anchor, (struct sockaddr *)ss) ||
	    !cia->anchor->verbs) {
		dapl_dbg(DAPL_DBG_ERR, "cma: %s: no RDMA device (%s)", buf,
			 strerror(errno));
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_DEVICE);
	}
	if (port && cia->anchor->port_num != port)
		return DAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	cia->ctx = cia->anchor->verbs;
	cia->port = cia->anchor->port_num;
	if (ibv_query_device(cia->ctx, &cia->dattr) ||
	    ibv_query_port(cia->ctx, cia->port, &cia->pattr))
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_DEVICE);
	dapl_dbg(DAPL_DBG_CM, "cma: IA %s on %s port %u", buf,
		 ibv_get_device_name(cia->ctx->device), cia->port);
	return DAT_SUCCESS;
}

static void cma_ia_free(struct cma_ia *cia)
{
	if (cia->anchor)
		rdma_destroy_id(cia->anchor);
	if (cia->ch)
		rdma_destroy_event_channel(cia->ch);
	pthread_cond_destroy(&cia->upcall_done);
	pthread_mutex_destroy(&cia->lock);
	cma_qpn_map_free(cia);
	free(cia);
}

DAT_RETURN cma_ia_open(struct dapl_ia *ia, const char *ia_params)
{
	struct sockaddr_storage ss;
	struct cma_ia *cia;
	unsigned port;
	DAT_RETURN ret;
	int fl;

	cia = calloc(1, sizeof(*cia));
	if (!cia)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	cia->ia = ia;
	cia->pid = getpid();
	cia->wake_fd = -1;
	cia->disable = cma_disable_flags(secure_getenv("DAPL_CMA_DISABLE"));
	/* the local ACK timeout exponent: 4.096 us * 2^v */
	cia->ack_timeout = cma_env_u8("DAPL_CMA_ACK_TIMEOUT", 5, 31,
				      CMA_DEFAULT_ACK_TIMEOUT);
	/* rxe retries forever with 7 (hardware does 7 tries), so a dead link
	 * is noticed there only with a smaller count */
	cia->retry_count = cma_env_u8("DAPL_CMA_RETRY_COUNT", 0, 7,
				      CMA_DEFAULT_RETRY_COUNT);
	pthread_mutex_init(&cia->lock, NULL);
	pthread_cond_init(&cia->upcall_done, NULL);
	dapl_list_init(&cia->timers);
	dapl_list_init(&cia->notes);
	dapl_list_init(&cia->dev_link);

	cia->ch = rdma_create_event_channel();
	if (!cia->ch) {
		ret = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
			       errno == ENODEV ? DAT_RESOURCE_DEVICE
					       : DAT_RESOURCE_MEMORY);
		goto err;
	}
	ret = cma_parse_params(cia->ch, ia_params, &ss, &port);
	if (ret == DAT_SUCCESS)
		ret = cma_bind_anchor(cia, &ss, port);
	if (ret != DAT_SUCCESS)
		goto err;

	/* The CM thread reads the channel without blocking under cia->lock. */
	fl = fcntl(cia->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(cia->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		ret = DAPL_ERR(DAT_INTERNAL_ERROR, 0);
		goto err;
	}
	cia->dev = cma_dev_get(cia->ctx);
	if (!cia->dev) {
		ret = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto err;
	}
	if (cma_cm_start(cia)) {
		cma_dev_put(cia->dev, NULL);
		ret = DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto err;
	}
	cma_dev_add_ia(cia->dev, cia);
	memcpy(&ia->addr, &ss, sizeof(ss));
	ia->prov = cia;
	return DAT_SUCCESS;
err:
	cma_ia_free(cia);
	return ret;
}

void cma_ia_close(struct dapl_ia *ia)
{
	struct cma_ia *cia = ia->prov;

	if (!cia)
		return;
	ia->prov = NULL;
	/*
	 * In a forked child the threads do not exist and the device state
	 * belongs to the parent: touch nothing, leave the memory.
	 */
	if (cia->pid != getpid())
		return;
	cma_cm_stop(cia);
	cma_dev_put(cia->dev, cia);
	cma_ia_free(cia);
}

static const char *cma_vendor(uint32_t id)
{
	switch (id) {
	case 0x0002c9:
	case 0x0015b3:
		return "Mellanox Technologies";
	case 0x001175:
		return "QLogic";
	case 0x0008f1:
		return "Chelsio";
	case 0x008086:
		return "Intel";
	case 0x0014e4:
	case 0x000af7:
		return "Broadcom";
	case 0x001fc2:
		return "Cavium/QLogic";
	case 0xffffff:
		return "Linux soft-RoCE (rxe)";
	default:
		return NULL;
	}
}

static DAT_COUNT cma_count(long long v)
{
	return v > INT_MAX ? INT_MAX : v < 0 ? 0 : (DAT_COUNT)v;
}

static void cma_query_names(const struct cma_ia *cia, DAT_IA_ATTR *attr)
{
	const struct ibv_device_attr *d = &cia->dattr;
	const char *vendor = cma_vendor(d->vendor_id);
	unsigned fw_major = 0, fw_minor = 0;

	snprintf(attr->adapter_name, sizeof(attr->adapter_name), "%s",
		 ibv_get_device_name(cia->ctx->device));
	if (vendor)
		snprintf(attr->vendor_name, sizeof(attr->vendor_name), "%s",
			 vendor);
	else
		snprintf(attr->vendor_name, sizeof(attr->vendor_name),
			 "vendor 0x%06x", d->vendor_id);
	attr->hardware_version_major = d->hw_ver;
	attr->hardware_version_minor = d->vendor_part_id;
	sscanf(d->fw_ver, "%u.%u", &fw_major, &fw_minor);
	attr->firmware_version_major = fw_major;
	attr->firmware_version_minor = fw_minor;
}

void cma_ia_query(struct dapl_ia *ia, DAT_IA_ATTR *attr)
{
	const struct cma_ia *cia = ia->prov;
	const struct ibv_device_attr *d = &cia->dattr;
	int mw = !(cia->disable & CMA_NO_MW) &&
		 (d->device_cap_flags & IBV_DEVICE_MEM_WINDOW) && d->max_mw;
	int srq = !(cia->disable & CMA_NO_SRQ) && d->max_srq;
	long long rd_total = d->max_res_rd_atom
				 ? d->max_res_rd_atom
				 : (long long)d->max_qp_rd_atom * d->max_qp;

	cma_query_names(cia, attr);
	attr->max_eps = d->max_qp;
	attr->max_dto_per_ep = d->max_qp_wr;
	attr->max_rdma_read_per_ep_in = d->max_qp_rd_atom;
	attr->max_rdma_read_per_ep_out = d->max_qp_init_rd_atom;
	attr->max_evds = d->max_cq;
	attr->max_evd_qlen = d->max_cqe;
	attr->max_iov_segments_per_dto = d->max_sge;
	attr->max_lmrs = d->max_mr;
	attr->max_lmr_block_size = d->max_mr_size;
	attr->max_lmr_virtual_address = UINT64_MAX;
	attr->max_pzs = d->max_pd;
	attr->max_message_size = cia->pattr.max_msg_sz;
	attr->max_rdma_size = cia->pattr.max_msg_sz;
	attr->max_rmrs = mw ? d->max_mw : 0;
	attr->max_rmr_target_address = mw ? UINT64_MAX : 0;
	/* the atomic extension (udapl/ext.c, provider attributes) */
	ia->atomics = !(cia->disable & CMA_NO_ATOMIC) &&
		      d->atomic_cap != IBV_ATOMIC_NONE;
	attr->max_srqs = srq ? d->max_srq : 0;
	attr->max_ep_per_srq = srq ? d->max_qp : 0;
	attr->max_recv_per_srq = srq ? d->max_srq_wr : 0;
	attr->max_iov_segments_per_rdma_read =
	    d->max_sge_rd && d->max_sge_rd < d->max_sge ? d->max_sge_rd
							: d->max_sge;
	attr->max_iov_segments_per_rdma_write = d->max_sge;
	attr->max_rdma_read_in = cma_count(rd_total);
	attr->max_rdma_read_out = cma_count(rd_total);
	attr->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	attr->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
}
