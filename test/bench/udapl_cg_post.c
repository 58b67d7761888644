/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/udapl_cg_post.c - udapl's one-segment send and receive
 * posts, natively, for callgrind (test/bench/udapl-cg.sh): the unit
 * test's fake transport (test/unit/test_udapl_ep.c, included whole for
 * its static fake) with the one-segment ops; N rounds of a send and a
 * receive on a connected EP, each cookie retired at once.  udapl's
 * per-call figures are the guest's (`dapl_ep_post_send`,
 * `dapl_ep_post_recv` of `make bench`).
 */
#define main test_udapl_ep_main
#include "../unit/test_udapl_ep.c"
#undef main

int main(int argc, char **argv)
{
	static struct dapl_ops ops1;
	struct dapl_ep *ep;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, bad = 0;

	setup();
	ops1 = fake_ops;
	ops1.post_send1 = post_send1;
	ops1.post_recv1 = post_recv1;
	ia->ops = &ops1;
	ep = new_ep();
	connect_ep(ep);
	for (i = 0; i < n; i++) {
		bad += send1(ep, 0) != DAT_SUCCESS;
		dapl_cookie_put(&ep->send_ring, f.cookie1);
		bad += recv1(ep) != DAT_SUCCESS;
		dapl_cookie_put(&ep->recv_ring, f.cookie1);
	}
	printf("posts refused: %d of %d\n", bad, 2 * n);
	return bad != 0;
}
