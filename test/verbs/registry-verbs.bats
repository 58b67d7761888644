#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# libdat's registry and datadm against the soft-RoCE guest's devices
# (check-verbs): rxe0 on vethA (10.77.0.1), rxe1 on vethB (10.77.0.2),
# the registry test/vm/dat.conf.  Issue 17 item 1 on a real provider (one
# IA name, two entries on two devices), issue 20's datadm -v and -u.
# Every test name starts with "registry-verbs:" so that
# make check-verbs TESTS=registry-verbs runs only these.

load verbs_helpers

DATTEST="$TOP/build/test/dattest"
DATADM="$TOP/build/bin/datadm"

# count PATTERN: how many lines of $output match.
count() {
	printf '%s\n' "$output" | grep -c -- "$1" || :
}

setup_file() {
	verbs_setup_file
	[ -x "$DATTEST" ] || { echo "$DATTEST is missing: make test-programs" >&2; return 1; }
	[ -x "$DATADM" ] || { echo "$DATADM is missing: make" >&2; return 1; }
}

@test "registry-verbs: one IA name, an entry per thread safety on different devices: each IA gets its entry's device; closing one leaves the other's IAs working" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	printf '%s\n' 'X u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.1 0" ""' \
		'X u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.2 0" ""' > "$DAT_OVERRIDE"
	# dattest bind: opens X nonthreadsafe, X threadsafe, X nonthreadsafe
	# again; prints each IA's ia_params and address (dat_ia_query); closes
	# the threadsafe one and queries the two others again
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$DATTEST" bind X
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "$(count '^nonthreadsafe: params "10.77.0.1 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^threadsafe: params "10.77.0.2 0" address 10.77.0.2$')" -eq 1 ]
	[ "$(count '^nonthreadsafe again: params "10.77.0.1 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^after close: nonthreadsafe: params "10.77.0.1 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^after close: nonthreadsafe again: params "10.77.0.1 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^bind X: 0 failures$')" -eq 1 ]
	# the other way round: the nonthreadsafe entry on rxe1, threadsafe on rxe0
	printf '%s\n' 'X u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.1 0" ""' \
		'X u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.0.2 0" ""' > "$DAT_OVERRIDE"
	run "$QT" -t "$(secs 1200)" "$(secs 120)" "$DATTEST" bind X
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "$(count '^nonthreadsafe: params "10.77.0.2 0" address 10.77.0.2$')" -eq 1 ]
	[ "$(count '^threadsafe: params "10.77.0.1 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^after close: nonthreadsafe again: params "10.77.0.2 0" address 10.77.0.2$')" -eq 1 ]
	[ "$(count '^bind X: 0 failures$')" -eq 1 ]
}

@test "registry-verbs: datadm -v on the guest's dat.conf: every rxe entry is ok and opens now; entries that cannot open say why" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	cp "$TOP/test/vm/dat.conf" "$DAT_OVERRIDE"
	printf '%s\n' 'GONE u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.9.9 0" ""' \
		'LO u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "lo 0" ""' \
		'DEV u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "rxe0 1" ""' \
		'NOPORT u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "rxe1 2" ""' \
		'ND u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "vethB 0" ""' >> "$DAT_OVERRIDE"
	run "$DATADM" -v
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" =~ ^LINE\ +IA_NAME\ +API\ +THREADSAFETY\ +LIBRARY\ +IA_PARAMS\ +OWNER\ +OPENS\ +STATUS$ ]]
	[ "$(count '^[0-9]* *rxe0-cma *u1\.2 *\(threadsafe\|nonthreadsafe\) *libdaplcma\.so\.1 *"10\.77\.0\.1 0" *- *yes *ok$')" -eq 2 ]
	[ "$(count '^[0-9]* *rxe1-cma *u1\.2 *\(threadsafe\|nonthreadsafe\) *libdaplcma\.so\.1 *"10\.77\.0\.2 0" *- *yes *ok$')" -eq 2 ]
	[ "$(count '^[0-9]* *DEV .* yes *ok$')" -eq 1 ]
	[ "$(count '^[0-9]* *ND .* yes *ok$')" -eq 1 ]
	[ "$(count '^[0-9]* *OpenIB-rxe[01]-1 *u1\.2 *\(threadsafe\|nonthreadsafe\) *libdaplscm\.so\.1 *"rxe[01] 1" *- *yes *ok$')" -eq 4 ]
	[ "$(count '^[0-9]* *GONE .* no *address 10\.77\.9\.9 is not on a local interface$')" -eq 1 ]
	[ "$(count '^[0-9]* *LO .* no *interface lo has no RDMA device$')" -eq 1 ]
	[ "$(count '^[0-9]* *NOPORT .* no *RDMA device rxe1 has no port 2$')" -eq 1 ]
	[ "${lines[-1]}" = "# 13 entries, 3 problems" ]
	# what -v says opens, opens
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open DEV
	[ "$status" -eq 0 ]
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open ND
	[ "$status" -eq 0 ]
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open GONE
	[ "$status" -ne 0 ]
}

@test "registry-verbs: datadm -u makes OpenIB-cma-roe-<netdev> entries for rxe0 and rxe1, and the socket CM's OpenIB-<dev>-<port>; -v says they open now; they do, each on its device" {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	echo 'Gone u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "10.77.9.9 0" ""' > "$DAT_OVERRIDE"
	[ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0)" = vethA ]
	[ "$(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/ndevs/0)" = vethB ]
	run "$DATADM" -u
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: 8 entries for the RDMA devices present (0 removed)" ]
	cat "$DAT_OVERRIDE"
	[ "$(grep -c . "$DAT_OVERRIDE")" -eq 9 ]
	for nd in vethA vethB; do
		[ "$(grep -c "^OpenIB-cma-roe-$nd u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 \"$nd 0\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
		[ "$(grep -c "^OpenIB-cma-roe-$nd u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 \"$nd 0\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
	done
	for dev in rxe0 rxe1; do
		[ "$(grep -c "^OpenIB-$dev-1 u1.2 nonthreadsafe default libdaplscm.so.1 dapl.1.2 \"$dev 1\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
		[ "$(grep -c "^OpenIB-$dev-1 u1.2 threadsafe default libdaplscm.so.1 dapl.1.2 \"$dev 1\" \"\" # datadm:auto\$" "$DAT_OVERRIDE")" -eq 1 ]
	done
	run "$DATADM" -v
	printf '%s\n' "$output"
	[ "$(count '^[0-9]* *OpenIB-cma-roe-veth[AB] .* auto *yes *ok$')" -eq 4 ]
	[ "$(count '^[0-9]* *OpenIB-rxe[01]-1 .* auto *yes *ok$')" -eq 4 ]
	[ "$(count '^1 *Gone .* no *address 10\.77\.9\.9 is not on a local interface$')" -eq 1 ]
	# the socket CM's entries open too
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open OpenIB-rxe1-1
	[ "$status" -eq 0 ]
	# the generated entries open, each IA on its own interface's device
	printf '%s\n' 'Y u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "vethA 0" ""' \
		'Y u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "vethB 0" ""' > "$BATS_TEST_TMPDIR/y.conf"
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open OpenIB-cma-roe-vethA
	[ "$status" -eq 0 ]
	run "$QT" -t "$(secs 600)" "$(secs 60)" "$DATTEST" open OpenIB-cma-roe-vethB 1 2 1
	[ "$status" -eq 0 ]
	run env DAT_OVERRIDE="$BATS_TEST_TMPDIR/y.conf" "$QT" -t "$(secs 1200)" "$(secs 120)" "$DATTEST" bind Y
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "$(count '^nonthreadsafe: params "vethA 0" address 10.77.0.1$')" -eq 1 ]
	[ "$(count '^threadsafe: params "vethB 0" address 10.77.0.2$')" -eq 1 ]
	[ "$(count '^after close: nonthreadsafe: params "vethA 0" address 10.77.0.1$')" -eq 1 ]
	# again: the same file (idempotent)
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/after1"
	run "$DATADM" -u
	[ "$output" = "$DAT_OVERRIDE: 8 entries for the RDMA devices present (8 removed)" ]
	cmp "$BATS_TEST_TMPDIR/after1" "$DAT_OVERRIDE"
}
