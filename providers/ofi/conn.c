/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection records (layer 4): struct ofi_conn, made with a fresh id,
 * found by id (every control message names one), and freed, with its MSG
 * side (msg_chan.c).
 *
 * It calls msg_chan.c.  The connection code above finds and frees
 * connections here: ctl.c, link.c, rdm.c, msg.c and cm.c.
 */
#include <stdlib.h>
#include <unistd.h>
#include "ofi.h"
#include "cm.h"

/* ---- connections ---- */

struct ofi_conn *ofi_conn_new(struct dapl_tp_ia *oia)
{
	struct ofi_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->id = oia->next_conn_id++;
	c->gen = oia->gen;
	c->gen->conns++;
	c->last_heard = dapl_now_ns();
	c->probe_fd = -1;
	dapl_list_add_tail(&oia->conns, &c->link);
	return c;
}

struct ofi_conn *ofi_conn_find(struct dapl_tp_ia *oia, uint64_t id)
{
	struct dapl_list *pos, *tmp;

	dapl_list_for_each_safe(pos, tmp, &oia->conns) {
		struct ofi_conn *c = dapl_container_of(pos, struct ofi_conn,
						       link);

		if (c->id == id)
			return c;
	}
	return NULL;
}

void ofi_conn_free(struct dapl_tp_ia *oia, struct ofi_conn *c)
{
	(void)oia;
	c->gen->conns--; /* closed, if an old one, by ofi_gens_reap */
	if (c->m)
		ofi_msg_conn_free(c);
	if (c->ep) {
		struct dapl_tp_ep *oep = dapl_ep_tp(c->ep);

		if (oep && oep->conn == c)
			oep->conn = NULL;
	}
	if (c->probe_fd >= 0)
		close(c->probe_fd);
	free(c->req);
	dapl_list_del(&c->link);
	free(c);
}
