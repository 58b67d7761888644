/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat_platform_specific.h - basic DAT types for Linux (LP64 and ILP32).
 *
 * DAT_UINT64 must stay uint64_t (unsigned long on x86_64 glibc) and
 * DAT_UVERYLONG unsigned long long: same size, different C types, and
 * consumers take pointers to both.
 */
#ifndef _DAT_PLATFORM_SPECIFIC_H_
#define _DAT_PLATFORM_SPECIFIC_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* parameter direction annotations, for documentation only */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif

typedef uint32_t		DAT_UINT32;	/* unsigned 32 bits */
typedef uint64_t		DAT_UINT64;	/* unsigned 64 bits */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201103L
/* long long is not C++98: keep -pedantic consumers quiet */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wlong-long"
#endif
typedef unsigned long long	DAT_UVERYLONG;	/* at least 64 bits */
#if defined(__GNUC__) && defined(__cplusplus) && __cplusplus < 201103L
#pragma GCC diagnostic pop
#endif
typedef void *			DAT_PVOID;
typedef int			DAT_COUNT;	/* signed counts */
typedef DAT_UINT64		DAT_PADDR;	/* physical address */

/* socket addresses; struct sockaddr_in6 is complete only with <netinet/in.h> */
typedef struct sockaddr		DAT_SOCK_ADDR;
typedef struct sockaddr_in6	DAT_SOCK_ADDR6;

#define DAT_AF_INET		AF_INET
#define DAT_AF_INET6		AF_INET6

/* 64-bit constants (the mask bits); <stdint.h> normally supplies it */
#ifndef UINT64_C
#define UINT64_C(c)		c ## ULL
#endif

/* buffer alignment a provider reports as optimal, in bytes */
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT	256
#endif

#ifdef __cplusplus
}
#endif

#endif /* _DAT_PLATFORM_SPECIFIC_H_ */
