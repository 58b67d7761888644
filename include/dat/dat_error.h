/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_error.h - DAT_RETURN: the status every DAT call returns.
 *
 * A DAT_RETURN is a 32-bit value made of three fields:
 *
 *	bits 31..30	class (error, warning or success)
 *	bits 29..16	type (DAT_RETURN_TYPE)
 *	bits 15..0	subtype (DAT_RETURN_SUBTYPE)
 *
 * A status is class | type | subtype; DAT_SUCCESS is 0.  The values are
 * part of the binary interface and must never change.
 */
#ifndef _DAT_ERROR_H_
#define _DAT_ERROR_H_

#include <dat/dat_platform_specific.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef DAT_UINT32 DAT_RETURN;

/* class */
#define DAT_CLASS_ERROR		0x80000000U
#define DAT_CLASS_WARNING	0x40000000U
#define DAT_CLASS_SUCCESS	0x00000000U

/* field masks */
#define DAT_TYPE_MASK		0x3fff0000U
#define DAT_SUBTYPE_MASK	0x0000FFFFU

#define DAT_IS_WARNING(status)	((DAT_UINT32)(status) & DAT_CLASS_WARNING)
#define DAT_GET_TYPE(status)	((DAT_UINT32)(status) & DAT_TYPE_MASK)
#define DAT_GET_SUBTYPE(status)	((DAT_UINT32)(status) & DAT_SUBTYPE_MASK)

/* type: bits 29..16 */
typedef enum dat_return_type {
	DAT_SUCCESS			= 0x00000000,
	DAT_ABORT			= 0x00010000,
	DAT_CONN_QUAL_IN_USE		= 0x00020000,
	DAT_INSUFFICIENT_RESOURCES	= 0x00030000,
	DAT_INTERNAL_ERROR		= 0x00040000,
	DAT_INVALID_HANDLE		= 0x00050000,
	DAT_INVALID_PARAMETER		= 0x00060000,
	DAT_INVALID_STATE		= 0x00070000,
	DAT_LENGTH_ERROR		= 0x00080000,
	DAT_MODEL_NOT_SUPPORTED		= 0x00090000,
	DAT_PROVIDER_NOT_FOUND		= 0x000A0000,
	DAT_PRIVILEGES_VIOLATION	= 0x000B0000,
	DAT_PROTECTION_VIOLATION	= 0x000C0000,
	DAT_QUEUE_EMPTY			= 0x000D0000,
	DAT_QUEUE_FULL			= 0x000E0000,
	DAT_TIMEOUT_EXPIRED		= 0x000F0000,
	DAT_PROVIDER_ALREADY_REGISTERED	= 0x00100000,
	DAT_PROVIDER_IN_USE		= 0x00110000,
	DAT_INVALID_ADDRESS		= 0x00120000,
	DAT_INTERRUPTED_CALL		= 0x00130000,
	DAT_CONN_QUAL_UNAVAILABLE	= 0x00140000,
	DAT_NOT_IMPLEMENTED		= 0x0FFF0000	/* 1.2 value */
} DAT_RETURN_TYPE;

/* DAT 1.0 spelling */
#define DAT_NAME_NOT_FOUND	DAT_PROVIDER_NOT_FOUND

/*
 * subtype: bits 15..0.  One ordered list; the values are positions in it,
 * spelled out so that an insertion cannot silently renumber the rest.
 * The group comments say which type each subtype normally goes with.
 */
typedef enum dat_return_subtype {
	DAT_NO_SUBTYPE                           = 0,

	/* with DAT_ABORT */
	DAT_SUB_INTERRUPTED                      = 1,

	/* with DAT_INSUFFICIENT_RESOURCES */
	DAT_RESOURCE_MEMORY                      = 2,
	DAT_RESOURCE_DEVICE                      = 3,
	DAT_RESOURCE_TEP                         = 4,
	DAT_RESOURCE_TEVD                        = 5,
	DAT_RESOURCE_PROTECTION_DOMAIN           = 6,
	DAT_RESOURCE_MEMORY_REGION               = 7,
	DAT_RESOURCE_ERROR_HANDLER               = 8,
	DAT_RESOURCE_CREDITS                     = 9,
	DAT_RESOURCE_SRQ                         = 10,

	/* with DAT_INVALID_HANDLE */
	DAT_INVALID_HANDLE_IA                    = 11,
	DAT_INVALID_HANDLE_EP                    = 12,
	DAT_INVALID_HANDLE_LMR                   = 13,
	DAT_INVALID_HANDLE_RMR                   = 14,
	DAT_INVALID_HANDLE_PZ                    = 15,
	DAT_INVALID_HANDLE_PSP                   = 16,
	DAT_INVALID_HANDLE_RSP                   = 17,
	DAT_INVALID_HANDLE_CR                    = 18,
	DAT_INVALID_HANDLE_CNO                   = 19,
	DAT_INVALID_HANDLE_EVD_CR                = 20,
	DAT_INVALID_HANDLE_EVD_REQUEST           = 21,
	DAT_INVALID_HANDLE_EVD_RECV              = 22,
	DAT_INVALID_HANDLE_EVD_CONN              = 23,
	DAT_INVALID_HANDLE_EVD_ASYNC             = 24,
	DAT_INVALID_HANDLE_SRQ                   = 25,
	DAT_INVALID_HANDLE1                      = 26,
	DAT_INVALID_HANDLE2                      = 27,
	DAT_INVALID_HANDLE3                      = 28,
	DAT_INVALID_HANDLE4                      = 29,
	DAT_INVALID_HANDLE5                      = 30,
	DAT_INVALID_HANDLE6                      = 31,
	DAT_INVALID_HANDLE7                      = 32,
	DAT_INVALID_HANDLE8                      = 33,
	DAT_INVALID_HANDLE9                      = 34,
	DAT_INVALID_HANDLE10                     = 35,

	/* with DAT_INVALID_PARAMETER */
	DAT_INVALID_ARG1                         = 36,
	DAT_INVALID_ARG2                         = 37,
	DAT_INVALID_ARG3                         = 38,
	DAT_INVALID_ARG4                         = 39,
	DAT_INVALID_ARG5                         = 40,
	DAT_INVALID_ARG6                         = 41,
	DAT_INVALID_ARG7                         = 42,
	DAT_INVALID_ARG8                         = 43,
	DAT_INVALID_ARG9                         = 44,
	DAT_INVALID_ARG10                        = 45,

	/* with DAT_INVALID_STATE */
	DAT_INVALID_STATE_EP_UNCONNECTED         = 46,
	DAT_INVALID_STATE_EP_ACTCONNPENDING      = 47,
	DAT_INVALID_STATE_EP_PASSCONNPENDING     = 48,
	DAT_INVALID_STATE_EP_TENTCONNPENDING     = 49,
	DAT_INVALID_STATE_EP_CONNECTED           = 50,
	DAT_INVALID_STATE_EP_DISCONNECTED        = 51,
	DAT_INVALID_STATE_EP_RESERVED            = 52,
	DAT_INVALID_STATE_EP_COMPLPENDING        = 53,
	DAT_INVALID_STATE_EP_DISCPENDING         = 54,
	DAT_INVALID_STATE_EP_PROVIDERCONTROL     = 55,
	DAT_INVALID_STATE_EP_NOTREADY            = 56,
	DAT_INVALID_STATE_EP_RECV_WATERMARK      = 57,
	DAT_INVALID_STATE_EP_PZ                  = 58,
	DAT_INVALID_STATE_EP_EVD_REQUEST         = 59,
	DAT_INVALID_STATE_EP_EVD_RECV            = 60,
	DAT_INVALID_STATE_EP_EVD_CONNECT         = 61,
	DAT_INVALID_STATE_EP_UNCONFIGURED        = 62,
	DAT_INVALID_STATE_EP_UNCONFRESERVED      = 63,
	DAT_INVALID_STATE_EP_UNCONFPASSIVE       = 64,
	DAT_INVALID_STATE_EP_UNCONFTENTATIVE     = 65,
	DAT_INVALID_STATE_CNO_IN_USE             = 66,
	DAT_INVALID_STATE_CNO_DEAD               = 67,
	DAT_INVALID_STATE_EVD_OPEN               = 68,
	DAT_INVALID_STATE_EVD_ENABLED            = 69,
	DAT_INVALID_STATE_EVD_DISABLED           = 70,
	DAT_INVALID_STATE_EVD_WAITABLE           = 71,
	DAT_INVALID_STATE_EVD_UNWAITABLE         = 72,
	DAT_INVALID_STATE_EVD_IN_USE             = 73,
	DAT_INVALID_STATE_EVD_CONFIG_NOTIFY      = 74,
	DAT_INVALID_STATE_EVD_CONFIG_SOLICITED   = 75,
	DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD   = 76,
	DAT_INVALID_STATE_EVD_WAITER             = 77,
	DAT_INVALID_STATE_EVD_ASYNC              = 78,
	DAT_INVALID_STATE_IA_IN_USE              = 79,
	DAT_INVALID_STATE_LMR_IN_USE             = 80,
	DAT_INVALID_STATE_LMR_FREE               = 81,
	DAT_INVALID_STATE_PZ_IN_USE              = 82,
	DAT_INVALID_STATE_PZ_FREE                = 83,
	DAT_INVALID_STATE_SRQ_OPERATIONAL        = 84,
	DAT_INVALID_STATE_SRQ_ERROR              = 85,
	DAT_INVALID_STATE_SRQ_IN_USE             = 86,

	/* with DAT_PRIVILEGES_VIOLATION */
	DAT_PRIVILEGES_READ                      = 87,
	DAT_PRIVILEGES_WRITE                     = 88,
	DAT_PRIVILEGES_RDMA_READ                 = 89,
	DAT_PRIVILEGES_RDMA_WRITE                = 90,

	/* with DAT_PROTECTION_VIOLATION */
	DAT_PROTECTION_READ                      = 91,
	DAT_PROTECTION_WRITE                     = 92,
	DAT_PROTECTION_RDMA_READ                 = 93,
	DAT_PROTECTION_RDMA_WRITE                = 94,

	/* with DAT_INVALID_ADDRESS */
	DAT_INVALID_ADDRESS_UNSUPPORTED          = 95,
	DAT_INVALID_ADDRESS_UNREACHABLE          = 96,
	DAT_INVALID_ADDRESS_MALFORMED            = 97,

	/* with DAT_PROVIDER_NOT_FOUND */
	DAT_NAME_NOT_REGISTERED                  = 98,
	DAT_MAJOR_NOT_FOUND                      = 99,
	DAT_MINOR_NOT_FOUND                      = 100,
	DAT_THREAD_SAFETY_NOT_FOUND              = 101
} DAT_RETURN_SUBTYPE;

#ifdef __cplusplus
}
#endif

#endif /* _DAT_ERROR_H_ */
