/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dattest-verbs: the provider's verbs tests, as separate server and client
 * processes (the test/verbs Bats suites runs them in the soft-RoCE guest).
 *
 *   dattest-verbs TEST ROLE [-i IA] [-a ADDR] [-q QUAL] [-n COUNT]
 *
 * ROLE is server (IA rxe0-cma by default), client (rxe1-cma, connecting
 * to ADDR 10.77.0.1 port QUAL) or local (one process).  A server prints
 * "listening <qual>" once its service point exists.  Every check prints
 * its result by name; the exit status is 0 only if all of them matched.
 *
 *   dattest-verbs list   the tests and their roles
 *   dattest-verbs query local [-a OWN_ADDR]   dat_ia_query, one
 *                        "attr <field> <value>" line per field
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"

static void attr_i(const char *name, long long v)
{
	printf("attr %s %lld\n", name, v);
}

static void attr_u(const char *name, unsigned long long v)
{
	printf("attr %s %llu\n", name, v);
}

static void print_ia_attr(const DAT_IA_ATTR *a)
{
	printf("attr adapter_name %s\n", a->adapter_name);
	printf("attr vendor_name %s\n", a->vendor_name);
	attr_u("hardware_version_major", a->hardware_version_major);
	attr_u("hardware_version_minor", a->hardware_version_minor);
	attr_u("firmware_version_major", a->firmware_version_major);
	attr_u("firmware_version_minor", a->firmware_version_minor);
	attr_i("max_eps", a->max_eps);
	attr_i("max_dto_per_ep", a->max_dto_per_ep);
	attr_i("max_rdma_read_per_ep_in", a->max_rdma_read_per_ep_in);
	attr_i("max_rdma_read_per_ep_out", a->max_rdma_read_per_ep_out);
	attr_i("max_evds", a->max_evds);
	attr_i("max_evd_qlen", a->max_evd_qlen);
	attr_i("max_iov_segments_per_dto", a->max_iov_segments_per_dto);
	attr_i("max_lmrs", a->max_lmrs);
	attr_u("max_lmr_block_size", a->max_lmr_block_size);
	attr_u("max_lmr_virtual_address", a->max_lmr_virtual_address);
	attr_i("max_pzs", a->max_pzs);
	attr_u("max_message_size", a->max_message_size);
	attr_u("max_rdma_size", a->max_rdma_size);
	attr_i("max_rmrs", a->max_rmrs);
	attr_u("max_rmr_target_address", a->max_rmr_target_address);
	attr_i("max_srqs", a->max_srqs);
	attr_i("max_ep_per_srq", a->max_ep_per_srq);
	attr_i("max_recv_per_srq", a->max_recv_per_srq);
	attr_i("max_iov_segments_per_rdma_read",
	       a->max_iov_segments_per_rdma_read);
	attr_i("max_iov_segments_per_rdma_write",
	       a->max_iov_segments_per_rdma_write);
	attr_i("max_rdma_read_in", a->max_rdma_read_in);
	attr_i("max_rdma_read_out", a->max_rdma_read_out);
	attr_i("max_rdma_read_per_ep_in_guaranteed",
	       a->max_rdma_read_per_ep_in_guaranteed);
	attr_i("max_rdma_read_per_ep_out_guaranteed",
	       a->max_rdma_read_per_ep_out_guaranteed);
	attr_i("num_transport_attr", a->num_transport_attr);
	attr_i("num_vendor_attr", a->num_vendor_attr);
}

static void print_named(const char *kind, DAT_COUNT n,
			const DAT_NAMED_ATTR *na)
{
	DAT_COUNT i;

	if (n > 0 && !na) {
		vt_fail("%s: %d attributes but a NULL array", kind, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!na[i].name || !na[i].value)
			vt_fail("%s %d: NULL name or value", kind, i);
		else
			printf("%s %s=%s\n", kind, na[i].name, na[i].value);
	}
}

static void print_prov_attr(const DAT_PROVIDER_ATTR *p)
{
	printf("attr provider_name %s\n", p->provider_name);
	attr_u("provider_version_major", p->provider_version_major);
	attr_u("provider_version_minor", p->provider_version_minor);
	attr_u("dapl_version_major", p->dapl_version_major);
	attr_u("dapl_version_minor", p->dapl_version_minor);
	attr_u("lmr_mem_types_supported", p->lmr_mem_types_supported);
	attr_u("iov_ownership_on_return", p->iov_ownership_on_return);
	attr_u("dat_qos_supported", p->dat_qos_supported);
	attr_u("completion_flags_supported", p->completion_flags_supported);
	attr_u("is_thread_safe", p->is_thread_safe);
	attr_i("max_private_data_size", p->max_private_data_size);
	attr_u("supports_multipath", p->supports_multipath);
	attr_u("ep_creator", p->ep_creator);
	attr_u("pz_support", p->pz_support);
	attr_u("optimal_buffer_alignment", p->optimal_buffer_alignment);
	attr_u("srq_supported", p->srq_supported);
	attr_u("lmr_sync_req", p->lmr_sync_req);
	attr_u("dto_async_return_guaranteed", p->dto_async_return_guaranteed);
	attr_u("rdma_write_for_rdma_read_req",
	       p->rdma_write_for_rdma_read_req);
	attr_i("num_provider_specific_attr", p->num_provider_specific_attr);
	print_named("provider_specific", p->num_provider_specific_attr,
		    p->provider_specific_attr);
}

static void check_prov_attr(const DAT_PROVIDER_ATTR *p)
{
	const DAT_COMPLETION_FLAGS want = DAT_COMPLETION_SUPPRESS_FLAG |
		DAT_COMPLETION_SOLICITED_WAIT_FLAG |
		DAT_COMPLETION_UNSIGNALLED_FLAG |
		DAT_COMPLETION_BARRIER_FENCE_FLAG;

	vt_expect_u64("dapl_version_major", p->dapl_version_major, 1);
	vt_expect_u64("dapl_version_minor", p->dapl_version_minor, 2);
	vt_expect_u64("completion_flags_supported has SUPPRESS, SOLICITED_WAIT, UNSIGNALLED, BARRIER_FENCE",
		      p->completion_flags_supported & want, want);
	vt_expect_true("lmr_mem_types_supported has DAT_MEM_TYPE_LMR",
		       p->lmr_mem_types_supported & DAT_MEM_TYPE_LMR);
	vt_expect_true("max_private_data_size > 0",
		       p->max_private_data_size > 0);
	vt_expect_true("optimal_buffer_alignment > 0",
		       p->optimal_buffer_alignment > 0);
	/* Open MPI merges CR with CONNECTION, and DTO with RMR_BIND */
	vt_expect_true("evd_stream_merging_supported[CR][CONNECTION]",
		       p->evd_stream_merging_supported[1][3] &&
		       p->evd_stream_merging_supported[3][1]);
	vt_expect_true("evd_stream_merging_supported[DTO][RMR_BIND]",
		       p->evd_stream_merging_supported[2][4] &&
		       p->evd_stream_merging_supported[4][2]);
}

/* The same IA name opened threadsafe (every test registry has both
 * entries) says DAT_TRUE, and closes through the entry it came from. */
static void query_threadsafe(const char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR p;
	DAT_IA_HANDLE ia;
	DAT_RETURN rc;

	/* DAT_TRUE, not DAT_THREADSAFE: the 1.2 headers define that as
	 * DAT_FALSE (udat_config.h, as the reference's). */
	rc = dat_ia_openv((DAT_NAME_PTR)name, 8, &async, &ia, DAT_VERSION_MAJOR,
			  DAT_VERSION_MINOR, DAT_TRUE);
	if (rc != DAT_SUCCESS) {
		vt_fail("dat_ia_openv(%s, threadsafe): %s", name,
			vt_rc(rc));
		return;
	}
	memset(&p, 0, sizeof(p));
	vt_must("dat_ia_query(threadsafe IA)",
		dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_ALL, &p));
	vt_expect_u64("is_thread_safe of an IA opened threadsafe",
		      p.is_thread_safe, DAT_TRUE);
	vt_must("dat_ia_close(threadsafe IA)",
		dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static int query_local(const struct vt_opts *o)
{
	DAT_IA_ATTR a;
	DAT_PROVIDER_ATTR p;
	DAT_EVD_HANDLE async;
	struct vt v;

	vt_open(&v, o->ia_name);
	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	vt_must("dat_ia_query(ALL, ALL)",
		dat_ia_query(v.ia, &async, DAT_IA_FIELD_ALL, &a,
			     DAT_PROVIDER_FIELD_ALL, &p));
	vt_expect_ptr("async EVD", async, v.async_evd);
	print_ia_attr(&a);
	print_named("transport", a.num_transport_attr, a.transport_attr);
	print_named("vendor", a.num_vendor_attr, a.vendor_attr);
	print_prov_attr(&p);
	vt_addr_is("ia_address_ptr", a.ia_address_ptr, o->addr);
	check_prov_attr(&p);
	/* dat_ia_query(3DAT): "The provider attributes are specific to the
	 * open instance of the IA", and "Thread safety: Provider Library
	 * thread safe or not".  vt_open opens through dat_ia_open, that is
	 * nonthreadsafe; the reference libdat releases the registry entry at
	 * dat_ia_close under the key it rebuilds from this very field, so it
	 * must be the one the IA was opened with. */
	vt_expect_u64("is_thread_safe of an IA opened nonthreadsafe",
		      p.is_thread_safe, DAT_FALSE);
	vt_close(&v);
	query_threadsafe(o->ia_name);
	return 0;
}

static const struct vt_test query_tests[] = {
	{ "query", query_local, NULL },
	{ NULL, NULL, NULL },
};

static const struct vt_test *const tables[] = {
	query_tests,	  vt_cm_tests,	   vt_cm_many_tests, vt_dto_tests,
	vt_evd_tests,	  vt_legacy_tests, vt_atomic_tests,  vt_srq_tests,
	vt_order_tests,	  vt_passive_tests, vt_reuse_tests, vt_lmr_life_tests,
	vt_cno_agent_tests, vt_rmr_pz_tests, vt_accept_dead_tests,
	vt_graceful_tests,
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static void list(void)
{
	const struct vt_test *t;
	size_t i;

	for (i = 0; i < NTABLES; i++)
		for (t = tables[i]; t->name; t++)
			printf("%s %s\n", t->name,
			       !t->client ? "local" :
			       !t->server ? "client" : "server client");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list")) {
		list();
		return 0;
	}
	return vt_run(argc, argv, "dattest-verbs", tables, NTABLES, 120, 0);
}
