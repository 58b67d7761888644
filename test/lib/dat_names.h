/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/lib/dat_names.h - the names of DAT return codes, event numbers, DTO
 * completion statuses and EP states, for the messages of the test programs
 * (test/verbs, dapltest).  Header-only: each program that includes it gets
 * its own copy of these few functions.
 */
#ifndef DAT_TEST_NAMES_H
#define DAT_TEST_NAMES_H

#include <stdio.h>
#include <string.h>

#include <dat/udat.h>
#include <dat/dat_ib_extensions.h>

/* "DAT_X DAT_Y (0x...)": the two constants dat_strerror names. */
static inline const char *dat_name_rc(DAT_RETURN rc)
{
	static __thread char buf[4][160];
	static __thread unsigned n;
	const char *major, *minor;
	char *b = buf[n++ % 4];

	if (dat_strerror(rc, &major, &minor) != DAT_SUCCESS) {
		snprintf(b, sizeof(buf[0]), "0x%08x (unknown)", rc);
		return b;
	}
	snprintf(b, sizeof(buf[0]), "%.*s %.*s (0x%08x)",
		 (int)strcspn(major, ":"), major, (int)strcspn(minor, ":"),
		 minor, rc);
	return b;
}

struct dat_name {
	unsigned v;
	const char *name;
};
#define DAT_NAME(x) { x, #x }

static inline const char *dat_name_of(const struct dat_name *t, size_t n,
				      unsigned v)
{
	static __thread char buf[4][32];
	static __thread unsigned k;
	char *b;
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].name;
	b = buf[k++ % 4];
	snprintf(b, sizeof(buf[0]), "0x%x (unknown)", v);
	return b;
}
#define DAT_NAME_OF(t, v) dat_name_of(t, sizeof(t) / sizeof(t[0]), (v))

static inline const char *dat_name_event(DAT_EVENT_NUMBER n)
{
	static const struct dat_name names[] = {
		DAT_NAME(DAT_DTO_COMPLETION_EVENT),
		DAT_NAME(DAT_IB_DTO_EVENT),
		DAT_NAME(DAT_RMR_BIND_COMPLETION_EVENT),
		DAT_NAME(DAT_CONNECTION_REQUEST_EVENT),
		DAT_NAME(DAT_CONNECTION_EVENT_ESTABLISHED),
		DAT_NAME(DAT_CONNECTION_EVENT_PEER_REJECTED),
		DAT_NAME(DAT_CONNECTION_EVENT_NON_PEER_REJECTED),
		DAT_NAME(DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR),
		DAT_NAME(DAT_CONNECTION_EVENT_DISCONNECTED),
		DAT_NAME(DAT_CONNECTION_EVENT_BROKEN),
		DAT_NAME(DAT_CONNECTION_EVENT_TIMED_OUT),
		DAT_NAME(DAT_CONNECTION_EVENT_UNREACHABLE),
		DAT_NAME(DAT_ASYNC_ERROR_EVD_OVERFLOW),
		DAT_NAME(DAT_ASYNC_ERROR_IA_CATASTROPHIC),
		DAT_NAME(DAT_ASYNC_ERROR_EP_BROKEN),
		DAT_NAME(DAT_ASYNC_ERROR_TIMED_OUT),
		DAT_NAME(DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR),
		DAT_NAME(DAT_SOFTWARE_EVENT),
	};

	return DAT_NAME_OF(names, n);
}

static inline const char *dat_name_dto(DAT_DTO_COMPLETION_STATUS s)
{
	static const struct dat_name names[] = {
		DAT_NAME(DAT_DTO_SUCCESS),
		DAT_NAME(DAT_DTO_ERR_FLUSHED),
		DAT_NAME(DAT_DTO_ERR_LOCAL_LENGTH),
		DAT_NAME(DAT_DTO_ERR_LOCAL_EP),
		DAT_NAME(DAT_DTO_ERR_LOCAL_PROTECTION),
		DAT_NAME(DAT_DTO_ERR_BAD_RESPONSE),
		DAT_NAME(DAT_DTO_ERR_REMOTE_ACCESS),
		DAT_NAME(DAT_DTO_ERR_REMOTE_RESPONDER),
		DAT_NAME(DAT_DTO_ERR_TRANSPORT),
		DAT_NAME(DAT_DTO_ERR_RECEIVER_NOT_READY),
		DAT_NAME(DAT_DTO_ERR_PARTIAL_PACKET),
		DAT_NAME(DAT_RMR_OPERATION_FAILED),
	};

	return DAT_NAME_OF(names, s);
}

static inline const char *dat_name_ep_state(DAT_EP_STATE s)
{
	static const struct dat_name names[] = {
		DAT_NAME(DAT_EP_STATE_UNCONNECTED),
		DAT_NAME(DAT_EP_STATE_UNCONFIGURED_UNCONNECTED),
		DAT_NAME(DAT_EP_STATE_RESERVED),
		DAT_NAME(DAT_EP_STATE_UNCONFIGURED_RESERVED),
		DAT_NAME(DAT_EP_STATE_PASSIVE_CONNECTION_PENDING),
		DAT_NAME(DAT_EP_STATE_UNCONFIGURED_PASSIVE),
		DAT_NAME(DAT_EP_STATE_ACTIVE_CONNECTION_PENDING),
		DAT_NAME(DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING),
		DAT_NAME(DAT_EP_STATE_UNCONFIGURED_TENTATIVE),
		DAT_NAME(DAT_EP_STATE_CONNECTED),
		DAT_NAME(DAT_EP_STATE_DISCONNECT_PENDING),
		DAT_NAME(DAT_EP_STATE_DISCONNECTED),
		DAT_NAME(DAT_EP_STATE_COMPLETION_PENDING),
	};

	return DAT_NAME_OF(names, s);
}

#endif
