/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's bottom (layer 0): the DAPL_OFI_* tunables read from the
 * environment, the ofi_global lock around libfabric's process-wide state,
 * FI_OFI_RXM_USE_SRX set per IA, and libfabric errors as DAT returns.
 *
 * It calls nothing of ours.  Every layer reads its tunables or maps its
 * errors here; ia.c and fabric.c take ofi_global around their calls into
 * libfabric, and init.c's constructor makes fork() wait for it.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ofi.h"

/*
 * libfabric's process-wide state (the provider list fi_getinfo walks, the
 * list of open fabrics) has locks of its own, and a child forked while
 * another thread was inside fi_getinfo inherits one held by a thread it
 * does not have: its first dat_ia_open would wait forever.  So our calls
 * that reach that state (IA open and close; endpoint open and close, as
 * shm keeps its endpoints' names in a process-wide list) run under one
 * lock, which the prepare handler takes: no thread is inside them at the
 * fork.  The lock
 * is a module lock, new in the child at its first use (udapl/transport.h);
 * there is no child handler to rely on.  Left open: a fork in the moment
 * another thread is loading this library (glibc runs no handler
 * registered after the fork began).
 */
static struct dapl_module_lock ofi_global = DAPL_MODULE_LOCK_INITIALIZER;

void ofi_global_enter(void)
{
	dapl_module_lock(&ofi_global);
}

void ofi_global_leave(void)
{
	dapl_module_unlock(&ofi_global);
}

/*
 * FI_OFI_RXM_USE_SRX is the one setting here that libfabric 1.17 reads
 * again at each fi_getinfo and endpoint open (rxm_use_srx), not once: so
 * each IA gets its own, set right before those calls (ia.c and
 * fabric.c, both under ofi_global): 1 over verbs, 0 elsewhere (init.c).
 * A verbs IA opened
 * after a tcp one in the same process had no shared receive context
 * before, and with it the crash init.c tells of.  Unless the consumer's
 * environment had the variable before our first IA: then it stays.
 */
static int ofi_srx_consumer = -1; /* -1: not looked yet */

/* At the provider's load: does the consumer's environment set it? */
void ofi_env_srx_init(void)
{
	ofi_global_enter();
	if (ofi_srx_consumer < 0)
		ofi_srx_consumer = getenv("FI_OFI_RXM_USE_SRX") != NULL;
	ofi_global_leave();
}

void ofi_env_rxm_srx(int over_verbs)
{
	if (ofi_srx_consumer)
		return;
	setenv("FI_OFI_RXM_USE_SRX", over_verbs ? "1" : "0", 1);
}

/* A negative libfabric return -> DAT_RETURN (resource: the subtype for
 * running out). */
DAT_RETURN ofi_fi_err(int err, DAT_RETURN resource)
{
	switch (err < 0 ? -err : err) {
	case FI_ENOMEM:
	case FI_ENOSPC:
	case FI_EAGAIN:
	case EMFILE:
	case ENFILE:
		return DAPL_ERR(DAT_INSUFFICIENT_RESOURCES, resource);
	case FI_EINVAL:
		return DAPL_ERR(DAT_INVALID_PARAMETER, 0);
	case FI_EBUSY:
		return DAPL_ERR(DAT_INVALID_STATE, 0);
	case FI_EADDRINUSE:
		return DAPL_ERR(DAT_CONN_QUAL_IN_USE, 0);
	case FI_ENODATA:
	case FI_EADDRNOTAVAIL:
	case FI_EHOSTUNREACH:
		return DAPL_ERR(DAT_INVALID_ADDRESS,
				DAT_INVALID_ADDRESS_UNREACHABLE);
	case FI_ENOSYS:
	case FI_EOPNOTSUPP:
		return DAPL_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	default:
		return DAPL_ERR(DAT_INTERNAL_ERROR, 0);
	}
}

/*
 * The tuning variables (DAPL_OFI_*).  A value that is not a whole number
 * in its range is refused with a warning on stderr, whatever
 * DAPL_DBG_TYPE says (a job script's typo must not go unnoticed: a
 * keepalive timeout of 1 ms made every accept fail), once a process for
 * each variable, and the default is used, as the verbs provider does
 * (providers/verbs/env.c).  secure_getenv: a set-uid program takes none.
 */
static pthread_mutex_t ofi_env_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *ofi_env_warned[16];

static void ofi_env_warn(const char *name, const char *s, uint64_t min,
			 uint64_t max, uint64_t def)
{
	size_t i, n = sizeof(ofi_env_warned) / sizeof(ofi_env_warned[0]);
	int told = 0;

	pthread_mutex_lock(&ofi_env_lock);
	for (i = 0; i < n && ofi_env_warned[i]; i++)
		told |= !strcmp(ofi_env_warned[i], name);
	if (!told && i < n)
		ofi_env_warned[i] = name; /* a literal: lives for ever */
	pthread_mutex_unlock(&ofi_env_lock);
	if (!told)
		dapl_dbg(DAPL_DBG_ERR | DAPL_DBG_WARN,
			 "warning: %s=\"%s\" is not a number in [%llu, %llu]; "
			 "using the default %llu",
			 name, s, (unsigned long long)min,
			 (unsigned long long)max, (unsigned long long)def);
}

uint64_t ofi_env_range(const char *name, uint64_t def, uint64_t min,
		       uint64_t max)
{
	const char *s = secure_getenv(name);
	char *end;
	unsigned long long v;

	if (!s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || errno || *end || v < min || v > max) {
		ofi_env_warn(name, s, min, max, def);
		return def;
	}
	return v;
}

uint64_t ofi_env_num(const char *name, uint64_t def, uint64_t max)
{
	return ofi_env_range(name, def, 1, max);
}
