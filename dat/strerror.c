/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_strerror: a message for the type and one for the subtype of any
 * DAT_RETURN.  Each names the constant first (what a programmer greps
 * for), then says what it means.
 */
#include <stddef.h>

#include "../registry/registry.h"

/* Indexed by DAT_GET_TYPE(value) >> 16. */
static const char *const type_text[] = {
	[0x00] = "DAT_SUCCESS: no error",
	[0x01] = "DAT_ABORT: the operation was aborted",
	[0x02] = "DAT_CONN_QUAL_IN_USE: the connection qualifier is in use",
	[0x03] = "DAT_INSUFFICIENT_RESOURCES: not enough resources",
	[0x04] = "DAT_INTERNAL_ERROR: internal error in the provider",
	[0x05] = "DAT_INVALID_HANDLE: invalid handle",
	[0x06] = "DAT_INVALID_PARAMETER: invalid parameter",
	[0x07] = "DAT_INVALID_STATE: the object is in the wrong state",
	[0x08] = "DAT_LENGTH_ERROR: length error",
	[0x09] = "DAT_MODEL_NOT_SUPPORTED: the provider does not support this",
	[0x0A] = "DAT_PROVIDER_NOT_FOUND: no such provider",
	[0x0B] = "DAT_PRIVILEGES_VIOLATION: privileges violation",
	[0x0C] = "DAT_PROTECTION_VIOLATION: protection violation",
	[0x0D] = "DAT_QUEUE_EMPTY: the queue is empty",
	[0x0E] = "DAT_QUEUE_FULL: the queue is full",
	[0x0F] = "DAT_TIMEOUT_EXPIRED: the timeout expired",
	[0x10] = "DAT_PROVIDER_ALREADY_REGISTERED: the provider is already registered",
	[0x11] = "DAT_PROVIDER_IN_USE: the provider is in use",
	[0x12] = "DAT_INVALID_ADDRESS: invalid address",
	[0x13] = "DAT_INTERRUPTED_CALL: the call was interrupted",
	[0x14] = "DAT_CONN_QUAL_UNAVAILABLE: no connection qualifier is available",
};

static const char not_implemented_text[] =
	"DAT_NOT_IMPLEMENTED: not implemented (a DAT 1.2 code: no call of this "
	"library returns it, another implementation's may)";

#define MSG(name, text) [name] = #name ": " text

static const char *const subtype_text[] = {
	MSG(DAT_NO_SUBTYPE, "no detail"),
	MSG(DAT_SUB_INTERRUPTED, "interrupted"),
	MSG(DAT_RESOURCE_MEMORY, "out of memory"),
	MSG(DAT_RESOURCE_DEVICE, "out of device resources"),
	MSG(DAT_RESOURCE_TEP, "out of endpoints"),
	MSG(DAT_RESOURCE_TEVD, "out of event dispatchers"),
	MSG(DAT_RESOURCE_PROTECTION_DOMAIN, "out of protection domains"),
	MSG(DAT_RESOURCE_MEMORY_REGION, "out of memory regions"),
	MSG(DAT_RESOURCE_ERROR_HANDLER, "out of error handlers"),
	MSG(DAT_RESOURCE_CREDITS, "out of credits"),
	MSG(DAT_RESOURCE_SRQ, "out of shared receive queues"),
	MSG(DAT_INVALID_HANDLE_IA, "invalid interface adapter handle"),
	MSG(DAT_INVALID_HANDLE_EP, "invalid endpoint handle"),
	MSG(DAT_INVALID_HANDLE_LMR, "invalid local memory region handle"),
	MSG(DAT_INVALID_HANDLE_RMR, "invalid remote memory region handle"),
	MSG(DAT_INVALID_HANDLE_PZ, "invalid protection zone handle"),
	MSG(DAT_INVALID_HANDLE_PSP, "invalid public service point handle"),
	MSG(DAT_INVALID_HANDLE_RSP, "invalid reserved service point handle"),
	MSG(DAT_INVALID_HANDLE_CR, "invalid connection request handle"),
	MSG(DAT_INVALID_HANDLE_CNO, "invalid consumer notification object handle"),
	MSG(DAT_INVALID_HANDLE_EVD_CR, "invalid connection request event dispatcher"),
	MSG(DAT_INVALID_HANDLE_EVD_REQUEST, "invalid request event dispatcher"),
	MSG(DAT_INVALID_HANDLE_EVD_RECV, "invalid receive event dispatcher"),
	MSG(DAT_INVALID_HANDLE_EVD_CONN, "invalid connection event dispatcher"),
	MSG(DAT_INVALID_HANDLE_EVD_ASYNC, "invalid asynchronous event dispatcher"),
	MSG(DAT_INVALID_HANDLE_SRQ, "invalid shared receive queue handle"),
	MSG(DAT_INVALID_HANDLE1, "argument 1 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE2, "argument 2 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE3, "argument 3 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE4, "argument 4 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE5, "argument 5 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE6, "argument 6 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE7, "argument 7 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE8, "argument 8 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE9, "argument 9 is an invalid handle"),
	MSG(DAT_INVALID_HANDLE10, "argument 10 is an invalid handle"),
	MSG(DAT_INVALID_ARG1, "argument 1 is invalid"),
	MSG(DAT_INVALID_ARG2, "argument 2 is invalid"),
	MSG(DAT_INVALID_ARG3, "argument 3 is invalid"),
	MSG(DAT_INVALID_ARG4, "argument 4 is invalid"),
	MSG(DAT_INVALID_ARG5, "argument 5 is invalid"),
	MSG(DAT_INVALID_ARG6, "argument 6 is invalid"),
	MSG(DAT_INVALID_ARG7, "argument 7 is invalid"),
	MSG(DAT_INVALID_ARG8, "argument 8 is invalid"),
	MSG(DAT_INVALID_ARG9, "argument 9 is invalid"),
	MSG(DAT_INVALID_ARG10, "argument 10 is invalid"),
	MSG(DAT_INVALID_STATE_EP_UNCONNECTED, "the endpoint is unconnected"),
	MSG(DAT_INVALID_STATE_EP_ACTCONNPENDING, "the endpoint has an active connection pending"),
	MSG(DAT_INVALID_STATE_EP_PASSCONNPENDING, "the endpoint has a passive connection pending"),
	MSG(DAT_INVALID_STATE_EP_TENTCONNPENDING, "the endpoint has a tentative connection pending"),
	MSG(DAT_INVALID_STATE_EP_CONNECTED, "the endpoint is connected"),
	MSG(DAT_INVALID_STATE_EP_DISCONNECTED, "the endpoint is disconnected"),
	MSG(DAT_INVALID_STATE_EP_RESERVED, "the endpoint is reserved"),
	MSG(DAT_INVALID_STATE_EP_COMPLPENDING, "the endpoint has a completion pending"),
	MSG(DAT_INVALID_STATE_EP_DISCPENDING, "the endpoint has a disconnect pending"),
	MSG(DAT_INVALID_STATE_EP_PROVIDERCONTROL, "the endpoint is under provider control"),
	MSG(DAT_INVALID_STATE_EP_NOTREADY, "the endpoint is not ready"),
	MSG(DAT_INVALID_STATE_EP_RECV_WATERMARK, "the endpoint's receive watermark was reached"),
	MSG(DAT_INVALID_STATE_EP_PZ, "the endpoint's protection zone does not match"),
	MSG(DAT_INVALID_STATE_EP_EVD_REQUEST, "the endpoint has no usable request event dispatcher"),
	MSG(DAT_INVALID_STATE_EP_EVD_RECV, "the endpoint has no usable receive event dispatcher"),
	MSG(DAT_INVALID_STATE_EP_EVD_CONNECT, "the endpoint has no usable connection event dispatcher"),
	MSG(DAT_INVALID_STATE_EP_UNCONFIGURED, "the endpoint is unconfigured"),
	MSG(DAT_INVALID_STATE_EP_UNCONFRESERVED, "the endpoint is unconfigured and reserved"),
	MSG(DAT_INVALID_STATE_EP_UNCONFPASSIVE, "the endpoint is unconfigured and passive"),
	MSG(DAT_INVALID_STATE_EP_UNCONFTENTATIVE, "the endpoint is unconfigured and tentative"),
	MSG(DAT_INVALID_STATE_CNO_IN_USE, "the notification object is in use"),
	MSG(DAT_INVALID_STATE_CNO_DEAD, "the notification object is dead"),
	MSG(DAT_INVALID_STATE_EVD_OPEN, "the event dispatcher is open"),
	MSG(DAT_INVALID_STATE_EVD_ENABLED, "the event dispatcher is enabled"),
	MSG(DAT_INVALID_STATE_EVD_DISABLED, "the event dispatcher is disabled"),
	MSG(DAT_INVALID_STATE_EVD_WAITABLE, "the event dispatcher is waitable"),
	MSG(DAT_INVALID_STATE_EVD_UNWAITABLE, "the event dispatcher is unwaitable"),
	MSG(DAT_INVALID_STATE_EVD_IN_USE, "the event dispatcher is in use"),
	MSG(DAT_INVALID_STATE_EVD_CONFIG_NOTIFY, "the event dispatcher is configured for notification"),
	MSG(DAT_INVALID_STATE_EVD_CONFIG_SOLICITED, "the event dispatcher is configured for solicited events"),
	MSG(DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD, "the event dispatcher is configured for a threshold"),
	MSG(DAT_INVALID_STATE_EVD_WAITER, "another thread waits on the event dispatcher"),
	MSG(DAT_INVALID_STATE_EVD_ASYNC, "the event dispatcher is the asynchronous one"),
	MSG(DAT_INVALID_STATE_IA_IN_USE, "the interface adapter still has objects"),
	MSG(DAT_INVALID_STATE_LMR_IN_USE, "the memory region is in use"),
	MSG(DAT_INVALID_STATE_LMR_FREE, "the memory region is free"),
	MSG(DAT_INVALID_STATE_PZ_IN_USE, "the protection zone is in use"),
	MSG(DAT_INVALID_STATE_PZ_FREE, "the protection zone is free"),
	MSG(DAT_INVALID_STATE_SRQ_OPERATIONAL, "the shared receive queue is operational"),
	MSG(DAT_INVALID_STATE_SRQ_ERROR, "the shared receive queue is in error"),
	MSG(DAT_INVALID_STATE_SRQ_IN_USE, "the shared receive queue is in use"),
	MSG(DAT_PRIVILEGES_READ, "no read privilege"),
	MSG(DAT_PRIVILEGES_WRITE, "no write privilege"),
	MSG(DAT_PRIVILEGES_RDMA_READ, "no RDMA read privilege"),
	MSG(DAT_PRIVILEGES_RDMA_WRITE, "no RDMA write privilege"),
	MSG(DAT_PROTECTION_READ, "read protection violation"),
	MSG(DAT_PROTECTION_WRITE, "write protection violation"),
	MSG(DAT_PROTECTION_RDMA_READ, "RDMA read protection violation"),
	MSG(DAT_PROTECTION_RDMA_WRITE, "RDMA write protection violation"),
	MSG(DAT_INVALID_ADDRESS_UNSUPPORTED, "unsupported address"),
	MSG(DAT_INVALID_ADDRESS_UNREACHABLE, "unreachable address"),
	MSG(DAT_INVALID_ADDRESS_MALFORMED, "malformed address"),
	MSG(DAT_NAME_NOT_REGISTERED, "no provider is registered under this name"),
	MSG(DAT_MAJOR_NOT_FOUND, "no provider of this name has this major version"),
	MSG(DAT_MINOR_NOT_FOUND, "no provider of this name and major version has this minor version"),
	MSG(DAT_THREAD_SAFETY_NOT_FOUND, "no provider of this name and version has this thread safety"),
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

DAT_RETURN dat_strerror(DAT_RETURN value, const char **major_message,
			const char **minor_message)
{
	DAT_RETURN type = DAT_GET_TYPE(value) >> 16;
	DAT_RETURN subtype = DAT_GET_SUBTYPE(value);
	const char *major;

	if (!major_message)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!minor_message)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (DAT_GET_TYPE(value) == DAT_NOT_IMPLEMENTED)
		major = not_implemented_text;
	else if (type < ARRAY_SIZE(type_text))
		major = type_text[type];
	else
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (subtype >= ARRAY_SIZE(subtype_text))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	*major_message = major;
	*minor_message = subtype_text[subtype];
	return DAT_SUCCESS;
}
