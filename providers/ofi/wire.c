/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * providers/ofi/wire.c - the control messages' format (ofi.h struct ofi_wire)
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
