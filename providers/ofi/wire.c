/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control message (layer 4): ofi_wire_init zeroes the fixed part of
 * a struct ofi_wire (wire.h) and gives it its magic, version and type
 * and the sender's IA address.
 *
 * It calls nothing of ours.  Every sender of a control message starts
 * here: link.c, rdm.c, msg.c, cm.c and the engine's KEYQ (progress.c).
 */
#include <string.h>
#include "ofi.h"
#include "wire.h"

void ofi_wire_init(struct dapl_tp_ia *oia, struct ofi_wire *m,
		   enum ofi_msg_type type)
{
	memset(m, 0, offsetof(struct ofi_wire, pdata));
	m->magic = OFI_WIRE_MAGIC;
	m->version = OFI_WIRE_VERSION;
	m->type = (uint16_t)type;
	/* ctl_addr: the control endpoint it goes through (ofi_ctl_send) */
	m->ia_addr = oia->addr;
}
