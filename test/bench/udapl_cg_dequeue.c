/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/udapl_cg_dequeue.c - udapl's dequeue of one completion
 * through a direct poll, natively, for callgrind (test/bench/udapl-cg.sh):
 * the unit test's fake transport (test/unit/test_udapl_evd.c, included
 * whole for its static fake) with its fake direct poll; N rounds of a
 * receive and a send completed and dequeued.  udapl's own code is the
 * same as in the provider, so its per-call figure is the guest's
 * (`dapl_evd_dequeue` of `make bench`); the fake's poll is not counted.
 */
#define main test_udapl_evd_main
#include "../unit/test_udapl_evd.c"
#undef main

int main(int argc, char **argv)
{
	DAT_EVD_HANDLE async, evd;
	DAT_IA_HANDLE ia;
	DAT_EVENT out;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, got = 0;

	fake_entry.ops = fake_ops;
	dapl_ops_fill_defaults(&fake_entry.ops);
	fake_direct = 1;
	ia = ia_open(&async);
	fake_ep.send_ring = (struct dapl_cookie_ring){send_slots, 8, 0, 0};
	fake_ep.recv_ring = (struct dapl_cookie_ring){recv_slots, 8, 0, 0};
	dapl_evd_create(ia, 4, NULL, DAT_EVD_DTO_FLAG, &evd);
	for (i = 0; i < n; i++) {
		fake_complete(evd, post(&fake_ep.recv_ring, i, DAPL_OP_RECV, 1),
			      DAT_DTO_SUCCESS, 33);
		got += dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
		fake_complete(evd, post(&fake_ep.send_ring, i, DAPL_OP_SEND, 1),
			      DAT_DTO_SUCCESS, 0);
		got += dapl_evd_dequeue(evd, &out) == DAT_SUCCESS;
	}
	dapl_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	printf("dequeued %d of %d\n", got, 2 * n);
	return got != 2 * n;
}
