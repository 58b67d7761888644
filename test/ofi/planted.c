/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * planted.c - dattest-ofi-planted: shm, a name in /dev/shm that another
 * user (or anyone) planted where a listener's region would be
 * (test/ofi/planted.bats makes a FIFO, a directory, a symbolic link, a
 * file of another user, a file too small for a region).
 *
 * dattest-ofi-planted planted local -i IA -a ADDR -q QUAL
 *   with VT_FIRST_IA naming a second IA, whose address is ADDR; the name
 *   of (ADDR, QUAL) holds the planted file.
 *   - dat_ep_connect from IA to (ADDR, QUAL) returns at once with
 *     DAT_INVALID_ADDRESS (dat_ep_connect(3DAT): "DAT_INVALID_ADDRESS
 *     Invalid address."): there is no listener's region to send to;
 *   - dat_psp_create on the first IA at QUAL returns at once with
 *     DAT_CONN_QUAL_IN_USE (dat_psp_create(3DAT): "DAT_CONN_QUAL_IN_USE
 *     Specified Connection Qualifier was in use.");
 *   - both IAs keep working: a PSP on a free qualifier of the first IA,
 *     a connection from IA, a message across.
 * Before, the first call froze in shm_open on a FIFO (an open for
 * reading waits for a writer) under the IA's lock, and every later call
 * of the IA with it.  Every wait is bounded (the run's alarm, and
 * TEST_TIMEOUT_SCALE); PASS and exit status 0 only if every check passed.
 */
#include <stdlib.h>
#include <string.h>

#include "../verbs/vt.h"

static int planted_local(const struct vt_opts *o)
{
	const char *first = getenv("VT_FIRST_IA");
	DAT_EP_HANDLE ep_c, ep_l;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL free_qual = 0;
	struct sockaddr_in sin;
	struct vt l, c;

	if (!first || !*first || !o->qual)
		vt_die("planted: VT_FIRST_IA names the listening IA, -q the "
		       "qualifier whose name holds the planted file");
	vt_open(&l, first);
	vt_open(&c, o->ia_name);
	vt_sockaddr(&sin, o->addr);

	ep_c = vt_ep(&c, NULL);
	vt_expect_type("dat_ep_connect to the planted name",
		       dat_ep_connect(ep_c, (DAT_IA_ADDRESS_PTR)&sin, o->qual,
				      vt_secs(20), 0, NULL,
				      DAT_QOS_BEST_EFFORT,
				      DAT_CONNECT_DEFAULT_FLAG),
		       DAT_INVALID_ADDRESS);
	vt_expect_type("dat_psp_create at the planted name",
		       dat_psp_create(l.ia, o->qual, l.cr_evd,
				      DAT_PSP_CONSUMER_FLAG, &psp),
		       DAT_CONN_QUAL_IN_USE);
	if (psp)
		dat_psp_free(psp);

	/* both IAs still work */
	psp = vt_psp(&l, &free_qual);
	ep_l = vt_connect_local(&l, &c, ep_c, o->addr, free_qual,
				"still works");
	vt_ep_free(ep_c);
	vt_ep_free(ep_l);
	vt_expect("dat_psp_free", dat_psp_free(psp), DAT_SUCCESS);
	vt_close(&c);
	vt_close(&l);
	return 0;
}

static const struct vt_test tests[] = {
	{ "planted", planted_local, NULL },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	static const struct vt_test *const tables[] = { tests };

	return vt_run(argc, argv, "dattest-ofi-planted", tables, 1, 120, 0);
}
