#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# libdat's registry and datadm against the soft-RoCE guest's devices
# (check-verbs): rxe0 on vethA (10.77.0.1), rxe1 on vethB (10.77.0.2).
# Every test name starts with "registry-verbs:" so that
# make check-verbs TESTS=registry-verbs runs only these.

load ../verbs/verbs_helpers

DATTEST="$TOP/build/test/dattest"
DATADM="$TOP/build/bin/datadm"

# count PATTERN: how many lines of $output match.
count() {
	printf '%s\n' "$output" | grep -c -- "$1" || :
}

setup_file() {
	verbs_setup_file
}

@test "registry-verbs: one IA name, an entry per thread safety on different devices: each IA gets its entry's device; closing one leaves the other's IAs working" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	printf '%s\n' 'X u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.1 0" ""' \
		'X u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.2 0" ""' > "$DAT_OVERRIDE"
	run timeout "$(secs 120)" "$DATTEST" bind X
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'nonthreadsafe: params "10.77.0.1 0" address 10.77.0.1'* ]]
	[[ "$output" == *$'\nthreadsafe: params "10.77.0.2 0" address 10.77.0.2'* ]]
	[[ "$output" == *'nonthreadsafe again: params "10.77.0.1 0" address 10.77.0.1'* ]]
	[[ "$output" == *'after close: nonthreadsafe: params "10.77.0.1 0" address 10.77.0.1'* ]]
	[[ "$output" == *'after close: nonthreadsafe again: params "10.77.0.1 0" address 10.77.0.1'* ]]
	[[ "$output" == *"bind X: 0 failures"* ]]
}

@test "registry-verbs: datadm -u makes OpenIB-cma-roe-<netdev> entries for rxe0 and rxe1; -v says they open now; they do" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	echo 'Gone u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.9.9 0" ""' > "$DAT_OVERRIDE"
	run "$DATADM" -u
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	local nd0 nd1
	nd0=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0)
	nd1=$(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/ndevs/0)
	[ "$nd0" = vethA ]
	[ "$nd1" = vethB ]
	for nd in vethA vethB; do
		[ "$(grep -c "^OpenIB-cma-roe-$nd u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 \"$nd 0\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
		[ "$(grep -c "^OpenIB-cma-roe-$nd u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 \"$nd 0\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
	done
	run "$DATADM" -v
	printf '%s\n' "$output"
	[ "$(count '^[0-9]* *OpenIB-cma-roe-veth[AB] .* yes *ok$')" -eq 4 ]
	[[ "$output" =~ 1\ +Gone\ .*\ no\ +address\ 10\.77\.9\.9\ is\ not\ on\ a\ local\ interface ]]
	run timeout "$(secs 60)" "$DATTEST" open OpenIB-cma-roe-vethA
	[ "$status" -eq 0 ]
	run timeout "$(secs 60)" "$DATTEST" open OpenIB-cma-roe-vethB 1 2 1
	[ "$status" -eq 0 ]
}
