/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/udapl_cg_rdma.c - udapl's one-segment RDMA write and read
 * and the atomics (fetch-and-add, compare-and-swap through the extension
 * entry dapl_extension_op), natively, for callgrind
 * (test/bench/udapl-cg.sh): the unit test's fake transport
 * (test/unit/test_udapl_ep.c, included whole for its static fake) with
 * the one-segment ops; N posts of one kind (argv[2]: write, read, faa or
 * cas) on a connected EP, each cookie retired at once.  Built with
 * -DUDAPL_CG_OLD against a tree whose transport has no post_write1/
 * post_read1/post_atomic1 (the general path, for a before figure).
 */
#include <stdarg.h>
#define main test_udapl_ep_main
#include "../unit/test_udapl_ep.c"
#undef main
#include <dat/dat_ib_extensions.h>

static DAT_RETURN cg_ext(DAT_HANDLE h, int op, ...)
{
	DAT_RETURN rc;
	va_list ap;

	va_start(ap, op);
	rc = dapl_extension_op(h, op, ap);
	va_end(ap);
	return rc;
}

int main(int argc, char **argv)
{
	static struct dapl_ops ops1;
	const char *what = argc > 2 ? argv[2] : "write";
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET rt = {.rmr_context = 77, .target_address = 0x1000,
			      .segment_length = 64};
	DAT_DTO_COOKIE c = {.as_64 = 3};
	struct dapl_ep *ep;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, bad = 0;
	DAT_RETURN rc;

	setup();
	ops1 = fake_ops;
	ops1.post_send1 = post_send1;
	ops1.post_recv1 = post_recv1;
#ifndef UDAPL_CG_OLD
	ops1.post_write1 = post_write1;
	ops1.post_read1 = post_read1;
	ops1.post_atomic1 = post_atomic1;
#endif
	ia->ops = &ops1;
	ia->caps.flags |= DAPL_CAP_ATOMICS;
	ep = new_ep();
	connect_ep(ep);
	t = (DAT_LMR_TRIPLET){lctx, 0, (DAT_VADDR)(uintptr_t)buf, 64};
	for (i = 0; i < n; i++) {
		switch (what[0]) {
		case 'w':
			rc = dapl_ep_post_rdma_write(ep, 1, &t, c, &rt, 0);
			break;
		case 'r':
			rc = dapl_ep_post_rdma_read(ep, 1, &t, c, &rt, 0);
			break;
		case 'f':
			rc = cg_ext(ep, DAT_IB_FETCH_AND_ADD_OP, (DAT_UINT64)1,
				    &t, c, (const DAT_RMR_TRIPLET *)&rt,
				    (DAT_COMPLETION_FLAGS)0);
			break;
		default:
			rc = cg_ext(ep, DAT_IB_CMP_AND_SWAP_OP, (DAT_UINT64)1,
				    (DAT_UINT64)2, &t, c,
				    (const DAT_RMR_TRIPLET *)&rt,
				    (DAT_COMPLETION_FLAGS)0);
			break;
		}
		bad += rc != DAT_SUCCESS;
		ep->send_ring.tail = ep->send_ring.head; /* retired */
	}
	printf("%s posts refused: %d of %d\n", what, bad, n);
	return bad != 0;
}
