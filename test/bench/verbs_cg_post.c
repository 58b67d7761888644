/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/bench/verbs_cg_post.c - the verbs glue of a one-sided post
 * (providers/verbs/post.c), natively, for callgrind
 * (test/bench/udapl-cg.sh): N posts of one kind (argv[2]: write, read,
 * faa, cas; with "-gen" the general verbs_post_send of a struct
 * dapl_post, else the one-segment op and its template) on a fake QP
 * whose device library's post_send does nothing.  The glue's own
 * instructions are those of the guest (ibv_post_send is an inline call
 * through the QP's context; the device library is not counted).
 */
#include <stdlib.h>
#include <string.h>

#include "../../providers/verbs/verbs.h"

/* post.c's other symbols: a window bind, never posted here, and
 * udapl's errno conversion, reached only by a refused post (the fake
 * device refuses none that is counted) */
DAT_RETURN verbs_post_mw(struct dapl_ep *ep, const struct dapl_post *p)
{
	(void)ep;
	(void)p;
	return DAT_INTERNAL_ERROR;
}

DAT_RETURN dapl_post_errno(int err)
{
	(void)err;
	return DAT_INTERNAL_ERROR;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp;
	(void)bad;
	return wr->num_sge != 1; /* the device would read it */
}

int main(int argc, char **argv)
{
	static struct ibv_context ctx;
	static struct ibv_qp qp;
	static struct dapl_tp_ep cep;
	static struct dapl_obj ep; /* the header is all the glue reads */
	static struct dapl_cookie *cookie;
	const char *what = argc > 2 ? argv[2] : "write";
	const int gen = strstr(what, "-gen") != NULL;
	struct dapl_sge sge = {.addr = 0x1000, .length = 8, .lkey = 5};
	struct dapl_post p;
	int i, n = argc > 1 ? atoi(argv[1]) : 200, bad = 0;
	enum dapl_op op;

	ctx.ops.post_send = fake_post_send;
	qp.context = &ctx;
	cep.qp = &qp;
	verbs_post_init(&cep);
	ep.tp = &cep;
	cookie = malloc(64);
	switch (what[0]) {
	case 'w': op = DAPL_OP_RDMA_WRITE; break;
	case 'r': op = DAPL_OP_RDMA_READ; break;
	case 'f': op = DAPL_OP_ATOMIC_FETCH_ADD; break;
	default: op = DAPL_OP_ATOMIC_CMP_SWAP; break;
	}
	for (i = 0; i < n; i++) {
		struct dapl_ep *e = (struct dapl_ep *)&ep;
		DAT_RETURN rc;

		if (gen) {
			p.op = op;
			p.cookie = cookie;
			p.sge = &sge;
			p.num_sge = 1;
			p.flags = DAPL_POST_SIGNALED;
			p.remote_addr = 0x2000;
			p.rkey = 77;
			p.compare_add = 1;
			p.swap = 2;
			rc = verbs_post_send(e, &p);
		} else if (op == DAPL_OP_RDMA_WRITE) {
			rc = verbs_post_write1(e, cookie, &sge,
					       DAPL_POST_SIGNALED, 0x2000, 77);
		} else if (op == DAPL_OP_RDMA_READ) {
			rc = verbs_post_read1(e, cookie, &sge,
					      DAPL_POST_SIGNALED, 0x2000, 77);
		} else {
			rc = verbs_post_atomic1(e, cookie, &sge,
						DAPL_POST_SIGNALED, op, 0x2000,
						77, 1, 2);
		}
		bad += rc != DAT_SUCCESS;
	}
	free(cookie);
	return bad != 0;
}
