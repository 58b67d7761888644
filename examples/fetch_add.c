/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fetch_add.c - the atomic fetch-and-add of <dat/dat_ib_extensions.h> on
 * a counter in the peer's memory.
 *
 *   server:  fetch_add -D OpenIB-cma [-q 7000] [-n 10]
 *   client:  fetch_add -D OpenIB-cma [-q 7000] [-n 10] SERVER_IP
 *
 * The server registers an 8-byte counter (8-byte aligned) with
 * DAT_IB_MEM_PRIV_REMOTE_ATOMIC and sends its rmr_context; the client
 * adds 1 COUNT times with dat_ib_post_fetch_and_add.  Each completion is
 * a DAT_IB_DTO_EVENT, and the counter's value before the add lands in
 * the client's local buffer: 100, 101, ... here.  Atomics are an
 * extension beyond DAT 1.2: check that dat_ia_query's provider attributes
 * say DAT_IB_ATTR_FETCH_AND_ADD=TRUE before relying on them.
 */
#include <stdio.h>
#include <string.h>

#include "example.h"	/* <dat/udat.h> first: the extension header needs it */
#include <dat/dat_ib_extensions.h>

#define START 100

/* The provider attribute name=TRUE? */
static int have(struct ex *x, const char *name)
{
	DAT_PROVIDER_ATTR pa;
	DAT_COUNT i;

	ex_check(dat_ia_query(x->ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa),
		 "dat_ia_query");
	for (i = 0; i < pa.num_provider_specific_attr; i++)
		if (!strcmp(pa.provider_specific_attr[i].name, name))
			return !strcmp(pa.provider_specific_attr[i].value, "TRUE");
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_mem msg, counter, result;
	struct ex_args a;
	DAT_RMR_TRIPLET remote;
	DAT_LMR_TRIPLET local;
	DAT_DTO_COOKIE cookie;
	struct ex x;
	DAT_EVENT ev;
	uint64_t old;
	unsigned long i;

	ex_args(argc, argv, "fetch-and-add on the peer's counter", &a);
	ex_open(&x, a.ia_name);
	if (!have(&x, DAT_IB_ATTR_FETCH_AND_ADD)) {
		fprintf(stderr, "%s: the provider has no fetch-and-add\n",
			a.ia_name);
		return 1;
	}
	ex_mem_register(&x, &msg, sizeof(struct ex_buf_msg),
			DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG);

	if (!a.server) {
		ex_mem_register(&x, &counter, 8,
				DAT_MEM_PRIV_LOCAL_READ_FLAG |
				DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
				DAT_IB_MEM_PRIV_REMOTE_ATOMIC);
		*(uint64_t *)counter.buf = START;
		ex_mem_register(&x, &result, 1, DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
		ex_post_recv(&x, &result, 1, 2);	/* for "done" */
		ex_serve(&x, a.qual);
		ex_send_buf(&x, &msg, &counter, 0, 8, counter.rmr_context);
		ex_wait_dto(x.rcv_evd, 2, &ev);
		/* after "done", every add has landed (same connection, in order) */
		if (*(uint64_t *)counter.buf != START + a.count) {
			fprintf(stderr, "server: counter %llu, expected %llu\n",
				(unsigned long long)*(uint64_t *)counter.buf,
				(unsigned long long)(START + a.count));
			return 1;
		}
		printf("server: the counter went from %d to %llu\n", START,
		       (unsigned long long)*(uint64_t *)counter.buf);
		ex_wait(x.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
		ex_mem_free(&counter);
	} else {
		/* where the counter's previous value lands: LOCAL_WRITE */
		ex_mem_register(&x, &result, 8,
				DAT_MEM_PRIV_LOCAL_READ_FLAG |
				DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
		ex_post_recv(&x, &msg, sizeof(struct ex_buf_msg), 0);
		ex_connect(&x, a.server, a.qual);
		remote = ex_recv_buf(&x, &msg);
		local = ex_iov(&result, 0, 8);
		for (i = 0; i < a.count; i++) {
			cookie.as_64 = 10 + i;
			ex_check(dat_ib_post_fetch_and_add(x.ep, 1, &local, cookie,
							   &remote,
							   DAT_COMPLETION_DEFAULT_FLAG),
				 "dat_ib_post_fetch_and_add");
			ex_wait(x.req_evd, DAT_IB_DTO_EVENT, &ev);
			if (ev.event_data.dto_completion_event_data.status !=
			    DAT_DTO_SUCCESS) {
				fprintf(stderr, "client: add %lu failed\n", i);
				return 1;
			}
			memcpy(&old, result.buf, 8);
			if (old != START + i) {
				fprintf(stderr, "client: add %lu saw %llu\n", i,
					(unsigned long long)old);
				return 1;
			}
		}
		printf("client: %lu adds, each saw the value before it (%d..%lu)\n",
		       a.count, START, START + a.count - 1);
		ex_post_send(&x, &msg, 1, 3);		/* "done" */
		ex_wait_dto(x.req_evd, 3, &ev);
		ex_disconnect(&x);
	}
	ex_mem_free(&result);
	ex_mem_free(&msg);
	ex_close(&x);
	return 0;
}
