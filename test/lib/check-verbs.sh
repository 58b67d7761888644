#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-verbs.sh RESULTS_DIR TESTS SUITE.bats...
#
# The verbs suites run against real RDMA devices only.  Where this machine
# has them (real hardware, or inside the soft-RoCE guest) they run here;
# otherwise one boot of the guest (test/vm/run.sh) runs `make check-verbs`
# inside it, which writes its results into the same shared build tree.
# TESTS, if not empty, is a regular expression for bats --filter.
# Inside the guest each suite also runs under the kernel witness
# (test/vm/kernel-witness.sh): its kernel-witness-<suite>.tap fails when
# the suite left a WARNING, BUG, refcount or use-after-free report in the
# guest's kernel log.
#
# A guest that cannot exist at all (test/vm/run.sh exit 77: not x86_64,
# or packages missing and not root) is recorded as a skip with its reason;
# any other failure to boot or set up is recorded as a failure.
set -u
dir=$1 tests=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

have_devices() {
	[ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]
}

if have_devices; then
	export LD_LIBRARY_PATH="$top/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export DAT_OVERRIDE="${DAT_OVERRIDE:-$top/test/vm/dat.conf}"
	for suite in "$@"; do
		name=verbs-$(basename "$suite" .bats)
		# the libfabric suites (providers/ofi/ofi.mk OFI_SUITES_verbs):
		# over verbs;ofi_rxm, named after the fabric
		fab=
		case $suite in
		test/ofi/*) name=ofi-verbs-$(basename "$suite" .bats) fab="env OFI_FABRIC=verbs" ;;
		esac
		# In the guest the kernel is a witness: a suite whose run leaves
		# a WARNING/BUG/refcount/use-after-free report in its log fails
		# (test/vm/kernel-witness.sh writes kernel-witness-<name>.tap).
		witness=
		[ "${VM_GUEST:-}" = 1 ] && witness="test/vm/kernel-witness.sh $dir $name"
		if [ -n "$tests" ]; then
			# shellcheck disable=SC2086 # witness, fab: command prefixes
			test/lib/run-suite.sh "$dir" "$name" tap $witness $fab bats --tap --filter "$tests" "$suite"
		else
			# shellcheck disable=SC2086
			test/lib/run-suite.sh "$dir" "$name" tap $witness $fab bats --tap "$suite"
		fi
	done
	exit 0
fi

if [ -n "${VM_GUEST:-}" ]; then
	# Inside the guest and still no device: the bed itself is broken.
	mkdir -p "$dir"
	printf '1..1\nnot ok 1 - soft-RoCE guest has no RDMA device\n' > "$dir/guest.tap"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
log="$top/build/vm-console.log"
echo "=== no RDMA device here: running the verbs suites in the soft-RoCE guest"
test/vm/run.sh -t "${VM_TIMEOUT:-1800}" -w "$top" -l "$log" -- \
	make --no-print-directory check-verbs TESTS="$tests"
rc=$?
if [ $rc -eq 77 ]; then
	printf '1..1\nok 1 - verbs suites # SKIP the soft-RoCE guest cannot run on this machine (see vm: SKIP above)\n' \
		> "$dir/guest.tap"
elif [ $rc -ne 0 ] && ! grep -qs '^not ok' "$dir"/*.tap; then
	printf '1..1\nnot ok 1 - soft-RoCE guest failed (exit status %d, console log %s)\n' \
		"$rc" "$log" > "$dir/guest.tap"
elif ! ls "$dir"/*.tap > /dev/null 2>&1; then
	printf '1..1\nnot ok 1 - soft-RoCE guest ran but recorded no results\n' > "$dir/guest.tap"
fi
exit 0
