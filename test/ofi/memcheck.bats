#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/memcheck.bats - the libfabric provider under valgrind memcheck:
# a connection, send/recv and RDMA at offsets, a graceful disconnect
# (dattest-verbs rdma), and IA close ABRUPT on live objects
# (dattest-stress abrupt), client and server each under valgrind: no
# error, no definite, indirect or possible leak.  The only suppressions
# are the one-time constructor allocations of libfabric's dependencies
# (test/ofi/libfabric.supp, each entry commented) and, over verbs,
# rdma-core's globals and one report inside rdma_accept
# (test/ofi/libfabric-verbs.supp); none names our code.

load ofi_helpers
load memcheck_helpers

STRESS="$OFI_TOP/build/test/verbs/dattest-stress"

setup_file() {
	ofi_setup_file
	[ -x "$STRESS" ] || { echo "$STRESS is missing: make test-programs" >&2; return 1; }
	command -v valgrind > /dev/null || { echo "valgrind is missing" >&2; return 1; }
}

@test "$OFI_FABRIC: valgrind: connect, RDMA write and read at offsets, graceful disconnect and close, both sides clean" {
	vg_pair "$VT" rdma
}

@test "$OFI_FABRIC: valgrind: client and server close their IAs ABRUPT with connected EPs, LMRs, EVDs, CNO, PSP alive" {
	vg_pair "$STRESS" abrupt
}

# dat_cno_create(3DAT): the agent "is invoked when the CNO is triggered";
# the server's agent closes the IA from inside the call (cno-agent-close,
# test/verbs/vt_cno_agent.c): nothing of the IA is touched after it
@test "$OFI_FABRIC: valgrind: a CNO agent that closes its IA from inside the call (dat_ia_close ABRUPT), both sides clean" {
	vg_pair "$VT" cno-agent-close
}
