#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# check-verbs.sh RESULTS_DIR TESTS SUITE.bats[:REGEX]|GROUP=A.bats,B.bats[:REGEX]...
#
# SUITE.bats:REGEX runs only that suite's tests whose names match REGEX
# (bats --filter), unless TESTS is given, which then applies alone.
# GROUP=A.bats,B.bats,... runs the suites (their tests that match REGEX,
# if given) in one bats process, recorded as one suite named after GROUP:
# under emulation each bats process costs seconds before its first test
# (issue 34: 3.5 s to start, 1 s for its kernel witness; 0.8 s a test),
# which small suites pay more than once.  A group whose name begins with
# scm runs its suites over the socket CM's IAs (DATTEST_SERVER_IA /
# DATTEST_CLIENT_IA: OpenIB-rxe0-1 and OpenIB-rxe1-1; dapltest's and
# the demo's, DAPLTEST_* and DEMO_*, the other way round), recorded as
# verbs-<name>.
# With VERBS_LANES=N (the Makefile: 3) the suites run N at a time, after
# those VERBS_ALONE lists, which run first, one after another, with
# nothing beside them (see run_lane below).
# The verbs suites run against real RDMA devices only.  Where this machine
# has them (real hardware, or inside the soft-RoCE guest) they run here;
# otherwise one boot of the guest (test/vm/run.sh) runs `make check-verbs`
# (or the target CHECK_VERBS_TARGET names, which runs this script with
# the same suites) inside it, which writes its results into the same
# shared build tree.
# TESTS, if not empty, is a regular expression for bats --filter.
# Inside the guest each suite also runs under the kernel witness
# (test/vm/kernel-witness.sh): its kernel-witness-<suite>.tap fails when
# the suite left a WARNING, BUG, refcount or use-after-free report in the
# guest's kernel log.
#
# A guest that cannot exist at all (test/vm/run.sh exit 77: not x86_64,
# or packages missing and not root) is recorded as a skip with its reason;
# any other failure to boot or set up is recorded as a failure.
# The guest has no overall time limit, only run.sh's watchdog (silence for
# VM_IDLE_TIMEOUT seconds, default 1800): when it stops the guest, every
# suite that finished keeps its results, the suite that was running is a
# failure naming the test it was in, and the suites that never ran are one
# failure that lists them.
set -u
dir=$1 tests=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

# result_name SUITE[:REGEX]: the name its results go under (NAME.tap,
# NAME.log)
result_name() {
	case ${1%%:*} in
	*=*) case ${1#*=} in
		test/ofi/*) echo "ofi-verbs-${1%%=*}" ;;
		*) echo "verbs-${1%%=*}" ;;
		esac ;;
	test/ofi/*) echo "ofi-verbs-$(basename "${1%%:*}" .bats)" ;;
	*) echo "verbs-$(basename "${1%%:*}" .bats)" ;;
	esac
}

# suite_files SUITE[:REGEX]|GROUP=A,B: the bats files it runs
suite_files() {
	g=${1%%:*}
	echo "${g#*=}" | tr ',' ' '
}

# suite_filter SUITE[:REGEX]: the filter bats runs it with, or nothing
suite_filter() {
	if [ -n "$tests" ]; then
		echo "$tests"
	else
		case $1 in
		*:*) echo "${1#*:}" ;;
		esac
	fi
}

# test_name SUITE[:REGEX] N: the name of the Nth test bats runs from SUITE
# (in file order, those its filter selects), or "?" past the last
test_name() {
	f=$(suite_filter "$1")
	# shellcheck disable=SC2046 # the files, split
	sed -n 's/^@test "\(.*\)" *{ *$/\1/p' $(suite_files "$1") |
		{ if [ -n "$f" ]; then grep -E -- "$f"; else cat; fi; } |
		sed -n "${2}p" | grep . || echo "?"
}

have_devices() {
	[ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]
}

# run_one SUITE[:REGEX]|GROUP=A,B[:REGEX]: one suite (or group), recorded
run_one() {
	local arg=$1 name filter suite fab witness
	name=$(result_name "$arg")
	filter=$(suite_filter "$arg")
	suite=$(suite_files "$arg")
	# the libfabric suites (providers/ofi/ofi.mk OFI_SUITES_verbs):
	# over verbs;ofi_rxm, named after the fabric
	fab=
	case $suite in
	test/ofi/*) fab="env OFI_FABRIC=verbs" ;;
	esac
	# a group named scm...: the verbs suites over the socket CM's IAs
	# (providers/scm/scm.mk; test/vm/dat.conf's OpenIB-rxe0-1/-rxe1-1)
	case $arg in
	scm*=*) fab="env DATTEST_SERVER_IA=OpenIB-rxe0-1 DATTEST_CLIENT_IA=OpenIB-rxe1-1 DAPLTEST_SERVER_IA=OpenIB-rxe1-1 DAPLTEST_CLIENT_IA=OpenIB-rxe0-1 DEMO_SERVER_IA=OpenIB-rxe1-1 DEMO_CLIENT_IA=OpenIB-rxe0-1" ;;
	esac
	# In the guest the kernel is a witness: a suite whose run leaves
	# a WARNING/BUG/refcount/use-after-free report in its log fails
	# (test/vm/kernel-witness.sh writes kernel-witness-<name>.tap).
	witness=
	[ "${VM_GUEST:-}" = 1 ] && witness="test/vm/kernel-witness.sh $dir $name"
	if [ -n "$filter" ]; then
		# shellcheck disable=SC2086 # witness, fab: command prefixes
		test/lib/run-suite.sh "$dir" "$name" tap $witness $fab bats --tap --timing --filter "$filter" $suite
	else
		# shellcheck disable=SC2086 # and suite: the group's files
		test/lib/run-suite.sh "$dir" "$name" tap $witness $fab bats --tap --timing $suite
	fi
}

# is_alone SUITE...: whether it is one of VERBS_ALONE's (it changes the
# links, netem, or writes reports into the kernel log)
is_alone() {
	local a
	for a in ${VERBS_ALONE:-}; do
		[ "${1%%:*}" = "$a" ] && return 0
	done
	return 1
}

# run_lane N: runs, one after another, the items no other lane took first
# (a claim is a directory made in $dir: mkdir is atomic).  Item 0 is the
# libfabric suites, one after another, as natively (providers/ofi/ofi.mk:
# a fabric's suites share its names and ports); each other item is one
# suite.  VERBS_LANE tells the suites their lane (test/verbs/
# verbs_helpers.bash random_qual: each lane its own qualifiers).
run_lane() {
	local i s
	export VERBS_LANE=$1 RUN_SUITE_TAG=lane$1
	for i in "${!items[@]}"; do
		mkdir "$dir/.claim-$i" 2> /dev/null || continue
		if [ "$i" -eq 0 ]; then
			for s in "${ofi[@]}"; do run_one "$s"; done
		else
			run_one "${items[$i]}"
		fi
	done
}

if have_devices; then
	export LD_LIBRARY_PATH="$top/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export DAT_OVERRIDE="${DAT_OVERRIDE:-$top/test/vm/dat.conf}"
	lanes=${VERBS_LANES:-1}
	if [ "$lanes" -le 1 ]; then
		for arg in "$@"; do run_one "$arg"; done
		exit 0
	fi
	# Lanes (issue 34): the guest's suites spend most of their time
	# waiting for their peers, so several at a time keep its two vCPUs
	# busier.  First the suites that must run alone, one after another,
	# then the others, LANES at a time, in the order given.  A report in
	# the kernel log while several suites run fails the witness of the
	# one that started last.
	alone=() ofi=() items=(ofi)
	for arg in "$@"; do
		if is_alone "$arg"; then
			alone+=("$arg")
		else
			case $(suite_files "$arg") in
			test/ofi/*) ofi+=("$arg") ;;
			*) items+=("$arg") ;;
			esac
		fi
	done
	[ ${#ofi[@]} -gt 0 ] || unset 'items[0]'
	for arg in "${alone[@]}"; do run_one "$arg"; done
	mkdir -p "$dir"
	rm -rf "$dir"/.claim-*
	for l in $(seq 1 "$lanes"); do
		run_lane "$((l - 1))" &
	done
	wait
	rm -rf "$dir"/.claim-*
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
# The guest shares this machine's root: where a mount namespace can be
# made, it boots where the registry files are hostile (issue 40;
# test/vm/selftest.bats checks the guest sees them).
hermetic=
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2> /dev/null; then
	hermetic=test/lib/hermetic.sh
fi
$hermetic test/vm/run.sh -w "$top" -l "$log" -- \
	make --no-print-directory "${CHECK_VERBS_TARGET:-check-verbs}" TESTS="$tests" \
	2> "$dir/.vm-stderr"
rc=$?
cat "$dir/.vm-stderr" >&2
why=$(sed -n 's/^vm: FAIL: //p' "$dir/.vm-stderr" | head -n 1)
rm -f "$dir/.vm-stderr"
if [ $rc -eq 124 ]; then
	# Stopped by the watchdog: name where, keep what finished.
	notrun=
	for suite in "$@"; do
		name=$(result_name "$suite")
		[ -e "$dir/$name.tap" ] && continue
		if [ -e "$dir/$name.log" ]; then
			ran=$(grep -cE '^(not )?ok\b' "$dir/$name.log")
			{
				grep -E '^(not )?ok\b|^1\.\.[0-9]+' "$dir/$name.log"
				printf 'not ok - %s stopped in its test %d, "%s", after %d finished: %s\n' \
					"$name" $((ran + 1)) "$(test_name "$suite" $((ran + 1)))" "$ran" "$why"
			} > "$dir/$name.tap"
		else
			notrun="$notrun $name"
		fi
	done
	if [ -n "$notrun" ]; then
		printf '1..1\nnot ok 1 - soft-RoCE guest stopped before these suites ran:%s\n' \
			"$notrun" > "$dir/guest.tap"
	elif ! grep -qs '^not ok' "$dir"/*.tap; then
		printf '1..1\nnot ok 1 - soft-RoCE guest stopped after its last suite: %s\n' \
			"$why" > "$dir/guest.tap"
	fi
elif [ $rc -eq 77 ]; then
	printf '1..1\nok 1 - verbs suites # SKIP the soft-RoCE guest cannot run on this machine (see vm: SKIP above)\n' \
		> "$dir/guest.tap"
elif [ $rc -ne 0 ] && ! grep -qs '^not ok' "$dir"/*.tap; then
	printf '1..1\nnot ok 1 - soft-RoCE guest failed (exit status %d, console log %s)\n' \
		"$rc" "$log" > "$dir/guest.tap"
elif ! ls "$dir"/*.tap > /dev/null 2>&1; then
	printf '1..1\nnot ok 1 - soft-RoCE guest ran but recorded no results\n' > "$dir/guest.tap"
fi
exit 0
