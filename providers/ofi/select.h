/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/select.h - which fi_info an IA of libdaplofi.so.1 opens:
 * the hints and the choice between FI_EP_MSG and FI_EP_RDM.  One code for
 * the provider (ia.c) and for datadm --check/-v
 * (registry/datadm_status.c), so that datadm judges an entry by the
 * endpoints the IA will use.  datadm does not link libfabric (it reaches
 * it through dlopen), so the few libfabric calls come in a table; this
 * file includes nothing of ours.
 */
#ifndef DAPL_OFI_SELECT_H
#define DAPL_OFI_SELECT_H

#include <stdint.h>
#include <netinet/in.h>
#include <rdma/fabric.h>

#define OFI_FI_VERSION FI_VERSION(1, 17)

struct ofi_fi_calls {
	int (*getinfo)(uint32_t version, const char *node,
		       const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info);
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	void (*freeinfo)(struct fi_info *info);
};

/* A libfabric provider named alone (no utility provider after a ';') is
 * asked for FI_EP_MSG first (msg.c), else for FI_EP_RDM. */
int ofi_msg_wanted(const char *prov)
	__attribute__((visibility("hidden")));

/*
 * Why an IA refuses libfabric provider prov ("sockets", or a stack with
 * it, "sockets;ofi_rxm"), or NULL when it does not: a provider that was
 * seen to crash or hang the consumer is never opened, whatever
 * fi_getinfo offers.
 */
const char *ofi_refused(const char *prov)
	__attribute__((visibility("hidden")));

/*
 * The fi_info for an IA of libfabric provider prov on addr: FI_EP_MSG
 * where ofi_msg_wanted and libfabric offers it, else FI_EP_RDM (with
 * atomics where offered, without where not).  0 and *out, or libfabric's
 * negative error (-FI_ENODATA: no such endpoints there; -FI_ENOSYS: a
 * provider ofi_refused names).  The caller
 * serializes it with its other libfabric set-up calls.
 */
int ofi_select_info(const struct ofi_fi_calls *fi, const char *prov,
		    const struct sockaddr_in *addr, struct fi_info **out)
	__attribute__((visibility("hidden")));

#endif
