# The registry's suites that need RDMA devices (included by the Makefile):
# libdat binding IAs to their entries through the verbs provider, and
# datadm's entries and OPENS column against the guest's rxe devices.
VERBS_SUITES += test/bats/registry-verbs.bats
