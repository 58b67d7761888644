#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run-soak.sh [ofi] [verbs]: the soak (make soak; issue 18, item 6).
#
# For each provider named (default: both): a dat-soak server and a
# dat-soak client process (test/soak/soak.c) for SOAK_MINUTES minutes
# (default 10), the client with SOAK_THREADS threads (default 4); both
# print their operations by kind, bytes verified and errors by kind.
#   ofi    natively, libdaplofi over tcp;ofi_rxm: server on ofi-a
#          (127.0.0.1), client on ofi-b (test/ofi/dat.conf)
#   verbs  the cma provider on soft-RoCE: server on rxe0-cma, client on
#          rxe1-cma (test/vm/dat.conf), here if the machine has RDMA
#          devices, else in one boot of the test VM (test/vm/run.sh; wrap
#          make soak in flock /tmp/dat-guest.lock on a shared machine)
# SOAK_VM_TIMEOUT=SECS bounds the guest's whole run, boot included (default
# 2x the soak + 15 min, 20x under valgrind: set it lower on a shared guest).
# SOAK_VALGRIND=1 runs both processes under valgrind memcheck (errors and
# definite/indirect/possible leaks fail; only the suppressions the
# memcheck suites use).  SOAK_OUT=FILE also writes the report there.
# Exit status 0 only if every process of every provider passed (no lost
# or corrupted byte, no leak, no crash, no error of any kind).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
SOAK=$top/build/test/soak/dat-soak
MIN=${SOAK_MINUTES:-10}
THREADS=${SOAK_THREADS:-4}
SCALE=${TEST_TIMEOUT_SCALE:-1}
VG=${SOAK_VALGRIND:-0}
OUT=${SOAK_OUT:-}
provs=("$@")
[ ${#provs[@]} -eq 0 ] && provs=(ofi verbs)
export LD_LIBRARY_PATH="$top/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

case $MIN in '' | *[!0-9]* | 0) echo "SOAK_MINUTES must be a positive integer" >&2; exit 2 ;; esac
[ -x "$SOAK" ] || { echo "$SOAK is missing: make soak builds it" >&2; exit 2; }

say() {
	echo "$*"
	if [ -n "$OUT" ]; then echo "$*" >> "$OUT"; fi
}

# one PROVIDER SERVER-IA CLIENT-IA SERVER-ADDR SUPP: a server and a client
one() {
	local prov=$1 sia=$2 cia=$3 addr=$4 supp=$5 secs=$((MIN * 60))
	local dir srv cli q="" spid rc_s=0 rc_c=0 end vg=() scale=$SCALE
	dir=$(mktemp -d)
	srv=$dir/server.out cli=$dir/client.out
	if [ "$VG" = 1 ]; then
		# shellcheck disable=SC2054 # the commas are valgrind's
		vg=(valgrind -q --error-exitcode=99 --leak-check=full
			--errors-for-leak-kinds=definite,indirect,possible
			--show-leak-kinds=definite,indirect,possible
			--keep-debuginfo=yes --num-callers=30 --suppressions="$supp")
		scale=$((SCALE * 10))
	fi
	TEST_TIMEOUT_SCALE=$scale timeout -k 10 $((secs + 900 * scale)) \
		"${vg[@]}" "$SOAK" server -i "$sia" -s "$secs" > "$srv" 2>&1 &
	spid=$!
	end=$((SECONDS + 120 * scale))
	while [ -z "$q" ]; do
		q=$(sed -n 's/^listening \([0-9][0-9]*\)$/\1/p' "$srv")
		if [ -z "$q" ] && { ! kill -0 "$spid" 2> /dev/null || [ $SECONDS -ge $end ]; }; then
			say "soak $prov: the server did not listen; its output:"
			say "$(cat "$srv")"
			kill "$spid" 2> /dev/null
			wait "$spid"
			rm -rf "$dir"
			return 1
		fi
		[ -z "$q" ] && sleep 0.2
	done
	TEST_TIMEOUT_SCALE=$scale timeout -k 10 $((secs + 900 * scale)) \
		"${vg[@]}" "$SOAK" client -i "$cia" -a "$addr" -q "$q" \
		-s "$secs" -t "$THREADS" > "$cli" 2>&1 || rc_c=$?
	wait "$spid" || rc_s=$?
	say "=== soak $prov: $MIN minute(s), $THREADS client thread(s)$([ "$VG" = 1 ] && echo ', under valgrind memcheck')"
	say "--- server ($sia), exit status $rc_s"
	say "$(cat "$srv")"
	say "--- client ($cia), exit status $rc_c"
	say "$(cat "$cli")"
	rm -rf "$dir"
	[ $rc_s -eq 0 ] && [ $rc_c -eq 0 ]
}

have_devices() {
	[ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2> /dev/null)" ]
}

rc=0
for p in "${provs[@]}"; do
	case $p in
	ofi)
		DAT_OVERRIDE=$top/test/ofi/dat.conf \
			one ofi ofi-a ofi-b 127.0.0.1 "$top/test/ofi/libfabric.supp" || rc=1
		;;
	verbs)
		if have_devices; then
			# in the guest the kernel is a witness too (as for the
			# suites): no WARNING/BUG/refcount/use-after-free report
			# may appear in its log during the soak
			klines=$(dmesg 2> /dev/null | wc -l)
			DAT_OVERRIDE=${DAT_OVERRIDE:-$top/test/vm/dat.conf} \
				one verbs rxe0-cma rxe1-cma 10.77.0.1 \
				"$top/test/verbs/rdma-core.supp" || rc=1
			if [ -n "${VM_GUEST:-}" ]; then
				kreports=$(dmesg | tail -n +$((klines + 1)) |
					grep -E 'WARNING:|BUG:|refcount_t|use-after-free' || :)
				if [ -n "$kreports" ]; then
					say "soak verbs: the kernel log has reports:"
					say "$kreports"
					rc=1
				else
					say "soak verbs: no WARNING, BUG, refcount or use-after-free report in the guest's kernel log"
				fi
			fi
		elif [ -n "${VM_GUEST:-}" ]; then
			say "soak verbs: inside the guest and no RDMA device"
			rc=1
		else
			say "=== no RDMA device here: the verbs soak runs in the soft-RoCE guest"
			# the guest writes its report to a file of the shared tree
			gout=$top/build/soak-verbs.out
			rm -f "$gout"
			test/vm/run.sh -t "${SOAK_VM_TIMEOUT:-$((MIN * 60 * (VG == 1 ? 20 : 2) + 900))}" -w "$top" \
				-l "$top/build/vm-soak-console.log" -- \
				env SOAK_MINUTES="$MIN" SOAK_THREADS="$THREADS" \
				SOAK_VALGRIND="$VG" SOAK_OUT="$gout" \
				test/soak/run-soak.sh verbs
			grc=$?
			# (the guest's output came through above)
			if [ -s "$gout" ] && [ -n "$OUT" ]; then
				cat "$gout" >> "$OUT"
			fi
			[ $grc -eq 0 ] || { say "soak verbs: guest exit status $grc"; rc=1; }
		fi
		;;
	*)
		echo "run-soak.sh: unknown provider '$p' (ofi, verbs)" >&2
		exit 2
		;;
	esac
done
say "soak: $([ $rc -eq 0 ] && echo PASS || echo FAIL)"
exit $rc
