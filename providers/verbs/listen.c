/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service points of a verbs IA on its connection manager's
 * listeners, the same for every CM: rdma_cm's (providers/cma, an
 * rdma_cm id per port) and the socket CM's (providers/scm, a TCP socket
 * per port).
 *
 * DAT connection qualifiers are 64 bits, ports 16: a qualifier listens on
 * the port verbs_qual_port() folds it to, and the CM's connect request
 * names the full qualifier, so that a listener takes only requests for
 * its own qualifiers and the service points of one IA whose qualifiers
 * fold to one port share its listener (struct verbs_port), each getting
 * the requests that name its qualifier.  0 asks for any free port
 * (PSP_any): the port is the qualifier.
 */
#include <stdlib.h>

#include "verbs.h"

/*
 * The port of a qualifier: itself up to 65535; above, its low 16 bits,
 * as OFA dapl's folding does (0xffff where those are 0: port 0 asks for
 * any port).  Collisions are harmless: the request carries the full
 * qualifier.
 */
uint16_t verbs_qual_port(DAT_CONN_QUAL qual)
{
	uint16_t p = (uint16_t)(qual & 0xffff);

	return qual > 0xffff && !p ? 0xffff : p;
}

struct verbs_port *verbs_port_find(struct dapl_list *ports, uint16_t port)
{
	struct dapl_list *pos;

	for (pos = ports->next; pos != ports; pos = pos->next) {
		struct verbs_port *p =
		    dapl_container_of(pos, struct verbs_port, link);

		if (p->port == port)
			return p;
	}
	return NULL;
}

struct dapl_tp_sp *verbs_port_sp(struct verbs_port *p, DAT_CONN_QUAL qual)
{
	struct dapl_list *pos;

	for (pos = p->sps.next; pos != &p->sps; pos = pos->next) {
		struct dapl_tp_sp *vsp =
		    dapl_container_of(pos, struct dapl_tp_sp, link);

		if (vsp->qual == qual)
			return vsp;
	}
	return NULL;
}

/* locked: vsp joins the IA's listener on port: 0; VERBS_JOIN_NONE if
 * there is none; VERBS_JOIN_IN_USE if the qualifier listens already */
enum { VERBS_JOIN_NONE = 1, VERBS_JOIN_IN_USE };
static int verbs_port_join(struct dapl_list *ports, struct dapl_tp_sp *vsp,
			   uint16_t port)
{
	struct verbs_port *p = verbs_port_find(ports, port);

	if (!p)
		return VERBS_JOIN_NONE;
	if (verbs_port_sp(p, vsp->qual))
		return VERBS_JOIN_IN_USE;
	vsp->port = p;
	dapl_list_add_tail(&p->sps, &vsp->link);
	return 0;
}

DAT_RETURN verbs_listen(struct dapl_sp *sp, DAT_CONN_QUAL *qual)
{
	struct dapl_tp_ia *cia = dapl_tp_ia_of(sp);
	struct dapl_list *ports = &cia->ports;
	uint16_t port = verbs_qual_port(*qual);
	struct verbs_port *p = NULL;
	struct dapl_tp_sp *vsp;
	DAT_RETURN ret = DAT_SUCCESS;
	int join = VERBS_JOIN_NONE;

	vsp = calloc(1, sizeof(*vsp));
	if (!vsp)
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	vsp->sp = sp;
	vsp->qual = *qual;
	dapl_list_init(&vsp->link);
	if (*qual) {
		pthread_mutex_lock(&cia->lock);
		join = verbs_port_join(ports, vsp, port);
		pthread_mutex_unlock(&cia->lock);
	}
	if (join == VERBS_JOIN_NONE) {
		ret = cia->cm_ops->port_open(cia, port, &p);
		pthread_mutex_lock(&cia->lock);
		if (ret == DAT_SUCCESS) {
			if (!*qual)
				*qual = vsp->qual = p->port;
			dapl_list_add_tail(ports, &p->link);
			vsp->port = p;
			dapl_list_add_tail(&p->sps, &vsp->link);
			join = 0;
		} else if (ret == DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0) && *qual) {
			/* another thread of this IA opened it meanwhile? */
			join = verbs_port_join(ports, vsp, port);
		}
		pthread_mutex_unlock(&cia->lock);
	}
	if (join) {
		free(vsp);
		if (join == VERBS_JOIN_IN_USE)
			return DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0);
		return ret;
	}
	dapl_dbg(DAPL_DBG_CM, "verbs: listening on %llu (port %u)",
		 (unsigned long long)*qual, vsp->port->port);
	dapl_sp_set_tp(sp, vsp);
	return DAT_SUCCESS;
}

/* Once vsp left its port (under the lock the CM handles requests in) no
 * new request upcall for sp starts, and udapl waits for one running.
 * The last service point of a port closes its listener, without the
 * lock, so the qualifier is free again on return. */
void verbs_listen_stop(struct dapl_sp *sp)
{
	struct dapl_tp_sp *vsp = dapl_sp_tp(sp);
	struct dapl_tp_ia *cia = dapl_tp_ia_of(sp);
	struct verbs_port *p = NULL;

	if (!vsp)
		return;
	dapl_sp_set_tp(sp, NULL);
	pthread_mutex_lock(&cia->lock);
	vsp->sp = NULL;
	dapl_list_del(&vsp->link);
	if (dapl_list_empty(&vsp->port->sps)) {
		p = vsp->port;
		dapl_list_del(&p->link);
	}
	pthread_mutex_unlock(&cia->lock);
	if (p)
		cia->cm_ops->port_close(cia, p);
	free(vsp);
}
