/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What cm.c (the active side, disconnect, the connection events) and
 * sp.c (service points and connection requests) share.
 */
#ifndef DAT_UDAPL_CM_INT_H
#define DAT_UDAPL_CM_INT_H

#include "udapl.h"

static inline DAT_RETURN bad_arg(DAT_RETURN_SUBTYPE arg)
{
	return DAPL_ERR(DAT_INVALID_PARAMETER, arg);
}

#endif
