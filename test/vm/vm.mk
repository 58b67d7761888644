# test/vm/vm.mk - the test bed's own suites (included by the Makefile).
#
# The kernel witness (kernel-witness.sh, run by test/lib/check-verbs.sh
# around every verbs suite in the guest): its judging half on made-up
# kernel logs here on the host, and a planted warning in the guest.
HOST_BATS_SUITES += test/vm/witness-scan.bats
VERBS_SUITES += test/vm/witness.bats
