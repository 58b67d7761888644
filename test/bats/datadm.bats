#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# datadm(8): the listing and --check against libdat's parser, -a/-r/-u with
# owned lines, byte-for-byte preservation, refusals that change nothing, a
# read-only file, and concurrent writers under the lock.  No RDMA: RDMA
# devices and interfaces come from a fake sysfs tree (DATADM_SYSFS).

load helpers
bats_require_minimum_version 1.5.0

DATADM="$DATTEST_BUILD/bin/datadm"

setup() {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/etc/dat.conf"
	mkdir -p "$BATS_TEST_TMPDIR/etc"
	# A fake sysfs: rxe0 port 1 on netdev fakeeth0 (RoCE), mlx5_0 port 1
	# without a netdev, and "lo" as a plain interface with no RDMA.
	FS="$BATS_TEST_TMPDIR/sys"
	mkdir -p "$FS/class/infiniband/rxe0/ports/1/gid_attrs/ndevs" \
		 "$FS/class/infiniband/mlx5_0/ports/1" \
		 "$FS/class/net/fakeeth0" "$FS/class/net/lo"
	echo fakeeth0 > "$FS/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
	echo Ethernet > "$FS/class/infiniband/rxe0/ports/1/link_layer"
	export DATADM_SYSFS="$FS"
	SVC="$BATS_TEST_TMPDIR/svc"
	mkdir -p "$SVC"
}

# A dat.conf written by an administrator: comments, odd spacing, a
# trailing comment, and a malformed line, all to be kept byte for byte.
admin_conf() {
	printf '%s\n' '# the administrator'"'"'s registry' \
		'   ' \
		'T1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""   # keep me' \
		'T1    u1.2 threadsafe default libdattest.so.1 dapl.1.2 "rxe0 1" ""' \
		'broken line' > "$DAT_OVERRIDE"
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/orig"
}

svc() {	# svc NAME LINE...: writes a service file
	local f="$SVC/$1"
	shift
	printf '%s\n' "$@" > "$f"
}

@test "-v lists every line as libdat parses it, with each entry's status" {
	printf '%s\n' '# comment' \
		'OK u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'DEV u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "mlx5_0 1" ""' \
		'NOLIB u1.2 nonthreadsafe default libnothere.so.9 dapl.1.2 "fakeeth0 0" ""' \
		'NOINIT u1.2 nonthreadsafe default libdat.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'NODEV u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "ib7 0" ""' \
		'LO u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "lo 0" ""' \
		'NOPORT u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "rxe0 2" ""' \
		'OK u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'ND u1.2 nonthreadsafe nondefault libdattest.so.1 dapl.1.2 "x" ""' \
		'K k1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "x" ""' \
		'BAD u1.2 sometimes default libdattest.so.1 dapl.1.2 "x" ""' > "$DAT_OVERRIDE"
	run "$DATADM" -v
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "# DAT_OVERRIDE=$DAT_OVERRIDE" ]]
	[[ "${lines[1]}" =~ ^LINE\ +IA_NAME\ +API\ +THREADSAFETY\ +LIBRARY\ +IA_PARAMS\ +OWNER\ +OPENS\ +STATUS$ ]]
	# fakeeth0 is only in the fake sysfs: a good entry that cannot open now
	[[ "$output" =~ 2\ +OK\ +u1\.2\ +nonthreadsafe\ +libdattest\.so\.1\ +\"fakeeth0\ 0\"\ +-\ +no\ +ok\ \(interface\ fakeeth0\ is\ not\ here\) ]]
	[[ "$output" =~ 3\ +DEV\ .*\ ok ]]
	[[ "$output" =~ 4\ +NOLIB\ .*library\ cannot\ be\ loaded:\ libnothere\.so\.9 ]]
	[[ "$output" =~ 5\ +NOINIT\ .*library\ libdat\.so\.1\ has\ no\ dat_provider_init ]]
	[[ "$output" =~ 6\ +NODEV\ .*no\ interface,\ address\ or\ RDMA\ device\ named\ ib7 ]]
	[[ "$output" =~ 7\ +LO\ .*interface\ lo\ has\ no\ RDMA\ device ]]
	[[ "$output" =~ 8\ +NOPORT\ .*RDMA\ device\ rxe0\ has\ no\ port\ 2 ]]
	[[ "$output" =~ 9\ +OK\ .*ignored:\ repeats\ line\ 2 ]]
	[[ "$output" =~ 10\ +ND\ .*ignored:\ nondefault ]]
	[[ "$output" =~ 11\ +K\ .*ignored:\ kernel\ entry ]]
	[[ "$output" =~ 12\ +-\ .*malformed: ]]
	[ "${lines[-1]}" = "# 10 entries, 7 problems" ]
}

@test "--check prints only the problems and fails; a clean registry passes silently" {
	printf '%s\n' 'OK u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'x' 'NOLIB u1.2 threadsafe default libnothere.so.9 dapl.1.2 "rxe0 1" ""' > "$DAT_OVERRIDE"
	run "$DATADM" --check
	printf '%s\n' "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "$DAT_OVERRIDE:2: malformed: "* ]]
	[[ "${lines[1]}" == "$DAT_OVERRIDE:3: NOLIB: library cannot be loaded: "* ]]
	sed -i '2,3d' "$DAT_OVERRIDE"
	run "$DATADM" --check
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "an IP address is checked against the local interfaces" {
	printf '%s\n' 'A u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "127.0.0.1 0" ""' \
		'B u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "192.0.2.77 0" ""' > "$DAT_OVERRIDE"
	# 127.0.0.1 is on lo; make lo an RDMA port's netdev in the fake tree
	mkdir -p "$FS/class/infiniband/rxe9/ports/1/gid_attrs/ndevs"
	echo lo > "$FS/class/infiniband/rxe9/ports/1/gid_attrs/ndevs/0"
	run "$DATADM" -v
	printf '%s\n' "$output"
	[[ "$output" =~ 1\ +A\ .*\ ok ]]
	[[ "$output" =~ 2\ +B\ .*address\ 192\.0\.2\.77\ is\ not\ on\ a\ local\ interface ]]
}

@test "DAT_OVERRIDE naming a missing file is an error; no dat.conf at all fails --check" {
	run "$DATADM" -v
	[ "$status" -eq 1 ]
	[[ "$output" == *"DAT_OVERRIDE=$DAT_OVERRIDE: No such file or directory"* ]]
	# a datadm of the test's own, whose compiled-in places are empty (the
	# machine's dat.conf, if any, must not decide this)
	local b="$BATS_TEST_TMPDIR/b" etc="$BATS_TEST_TMPDIR/sysconf"
	mkdir -p "$etc"
	make -s -C "$TOP" B="$b" SYSCONFDIR="$etc" DAT_FALLBACK_CONF="$etc/fallback/dat.conf" "$b/bin/datadm"
	DAT_OVERRIDE= run "$b/bin/datadm" --check
	printf '%s\n' "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no dat.conf"* ]]
}

@test "usage errors exit 2" {
	run "$DATADM"
	[ "$status" -eq 2 ]
	run "$DATADM" -v -u
	[ "$status" -eq 2 ]
	run "$DATADM" --lock-timeout x -u
	[ "$status" -eq 2 ]
	run "$DATADM" -a "$SVC/bad name"
	[ "$status" -eq 2 ]
}

@test "-a appends owned lines and keeps every other byte; again replaces; -r restores the file exactly" {
	admin_conf
	svc acme.conf '# acme' \
		'ACME u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0   0" ""' \
		'ACME u1.2 threadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""   # trailing'
	run --separate-stderr "$DATADM" -a "$SVC/acme.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: added 2 entries of acme.conf" ]
	# the administrator's malformed line is reported and kept
	[ "$stderr" = "datadm: warning: $DAT_OVERRIDE:5: malformed (fewer than 8 fields), kept as it is" ]
	n=$(wc -c < "$BATS_TEST_TMPDIR/orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	run tail -n 2 "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'ACME u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0   0" "" # datadm:svc=acme.conf' ]
	[ "${lines[1]}" = 'ACME u1.2 threadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:svc=acme.conf' ]
	# libdat reads the result: both entries, with the parser's view
	run "$DATADM" -v
	[[ "$output" =~ 6\ +ACME\ +u1\.2\ +nonthreadsafe\ .*svc=acme\.conf\ +no\ +ok ]]
	[[ "$output" =~ 7\ +ACME\ +u1\.2\ +threadsafe\ .*svc=acme\.conf\ +no\ +ok ]]
	# the service file changes: -a replaces its entries, nothing else
	svc acme.conf 'ACME u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "rxe0 1" ""'
	run --separate-stderr "$DATADM" -a "$SVC/acme.conf"
	[ "$output" = "$DAT_OVERRIDE: replaced 1 entries of acme.conf" ]
	[ "$(grep -c 'datadm:svc=acme.conf' "$DAT_OVERRIDE")" -eq 1 ]
	grep -q '"rxe0 1" "" # datadm:svc=acme.conf$' "$DAT_OVERRIDE"
	run --separate-stderr "$DATADM" -r "$SVC/acme.conf"
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of acme.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "the entries show up in dat_registry_list_providers" {
	conf '# empty'
	svc t.conf 'T7 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p7" ""'
	"$DATADM" -a "$SVC/t.conf"
	run "$DATTEST" list
	[[ "$output" == *T7* ]]
}

@test "-r of a service file that is gone removes its entries; of one never added, nothing" {
	admin_conf
	svc gone.conf 'G u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "rxe0 1" ""'
	"$DATADM" -a "$SVC/gone.conf"
	rm "$SVC/gone.conf"
	run --separate-stderr "$DATADM" -r "$SVC/gone.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of gone.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	run --separate-stderr "$DATADM" -r "$SVC/never.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: removed 0 entries of never.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "a file whose last line has no newline keeps it; appending adds the one newline" {
	printf '# no newline at the end' > "$DAT_OVERRIDE"
	svc n.conf 'N u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "rxe0 1" ""'
	"$DATADM" -a "$SVC/n.conf"
	[ "$(head -n 1 "$DAT_OVERRIDE")" = '# no newline at the end' ]
	[ "$(wc -l < "$DAT_OVERRIDE")" -eq 2 ]
	"$DATADM" -r "$SVC/n.conf"
	[ "$(cat "$DAT_OVERRIDE")" = '# no newline at the end' ]
}

@test "a malformed service file is refused with file, line and reason, and nothing changes" {
	admin_conf
	svc bad.conf '# fine' 'B u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "x" ""' \
		'B u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "unterminated'
	run "$DATADM" -a "$SVC/bad.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == "datadm: $SVC/bad.conf:3: malformed: "*"; nothing changed" ]]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	svc dup.conf 'D u1.2 nonthreadsafe default l.so dapl.1.2 "x" ""' 'D u1.2 nonthreadsafe default l.so dapl.1.2 "y" ""'
	run "$DATADM" -a "$SVC/dup.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"dup.conf:2: repeats line 1; nothing changed" ]]
	svc empty.conf '# only a comment'
	run "$DATADM" -a "$SVC/empty.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"empty.conf: no entries; nothing changed" ]]
	run "$DATADM" -a "$SVC/missing.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"missing.conf: No such file or directory; nothing changed" ]]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "an entry whose key is on the administrator's line or another service's is refused" {
	admin_conf
	svc clash.conf 'T1 u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run "$DATADM" -a "$SVC/clash.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"T1 u1.2 threadsafe is already in $DAT_OVERRIDE line 4; nothing changed" ]]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	svc one.conf 'X u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	svc two.conf 'X u1.2 threadsafe default libdattest.so.1 dapl.1.2 "y" ""'
	"$DATADM" -a "$SVC/one.conf"
	run "$DATADM" -a "$SVC/two.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"line 6, owned by svc=one.conf; nothing changed" ]]
}

@test "a hand-edited owned line that no longer parses stops every change" {
	admin_conf
	svc s.conf 'S u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/s.conf"
	sed -i 's/^S u1.2 threadsafe/S u1.2 sometimes/' "$DAT_OVERRIDE"
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/edited"
	run "$DATADM" -r "$SVC/s.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$DAT_OVERRIDE:6: a line marked \"# datadm:svc=s.conf\" is malformed"*"nothing changed" ]]
	cmp "$BATS_TEST_TMPDIR/edited" "$DAT_OVERRIDE"
}

@test "a read-only dat.conf is refused and left alone, even for root" {
	admin_conf
	chmod 0444 "$DAT_OVERRIDE"
	svc r.conf 'R u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run "$DATADM" -a "$SVC/r.conf"
	[ "$status" -eq 1 ]
	[ "$output" = "datadm: $DAT_OVERRIDE is read-only; nothing changed" ]
	run "$DATADM" -u
	[ "$status" -eq 1 ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	[ "$(stat -c %a "$DAT_OVERRIDE")" = 444 ]
	# and no temporary file is left behind
	[ "$(ls -A "$BATS_TEST_TMPDIR/etc")" = dat.conf ]
}

@test "a change keeps the file's mode and leaves no temporary file" {
	admin_conf
	chmod 0640 "$DAT_OVERRIDE"
	svc m.conf 'M u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/m.conf"
	[ "$(stat -c %a "$DAT_OVERRIDE")" = 640 ]
	[ "$(ls -A "$BATS_TEST_TMPDIR/etc")" = dat.conf ]
}

@test "-a creates a missing dat.conf" {
	svc c.conf 'C u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/c.conf"
	[ "$(cat "$DAT_OVERRIDE")" = 'C u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" "" # datadm:svc=c.conf' ]
	[ "$(stat -c %a "$DAT_OVERRIDE")" = 644 ]
}

@test "-u makes two entries per RDMA port and is idempotent" {
	admin_conf
	run --separate-stderr "$DATADM" -u
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: 4 entries for the RDMA devices present (0 removed)" ]
	run tail -n 4 "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'OpenIB-cma-mlx5_0-1 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "mlx5_0 1" "" # datadm:auto' ]
	[ "${lines[1]}" = 'OpenIB-cma-mlx5_0-1 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "mlx5_0 1" "" # datadm:auto' ]
	[ "${lines[2]}" = 'OpenIB-cma-roe-fakeeth0 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:auto' ]
	[ "${lines[3]}" = 'OpenIB-cma-roe-fakeeth0 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:auto' ]
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/after1"
	run --separate-stderr "$DATADM" -u
	[ "$output" = "$DAT_OVERRIDE: 4 entries for the RDMA devices present (4 removed)" ]
	cmp "$BATS_TEST_TMPDIR/after1" "$DAT_OVERRIDE"
	n=$(wc -c < "$BATS_TEST_TMPDIR/orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

# compat-dapl's socket CM entries (issue 37): OpenIB-<dev>-<port>,
# libdaplscm.so.1, "<dev> <port>", for each port whose state is ACTIVE
# (sysfs' "4: ACTIVE"), beside rdma_cm's; none with --library, which
# names the one library -u writes for
@test "-u adds the socket CM's OpenIB-<dev>-<port> entries for the active ports only, not with --library" {
	echo "4: ACTIVE" > "$FS/class/infiniband/rxe0/ports/1/state"
	echo "1: DOWN" > "$FS/class/infiniband/mlx5_0/ports/1/state"
	: > "$DAT_OVERRIDE"
	run --separate-stderr "$DATADM" -u
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: 6 entries for the RDMA devices present (0 removed)" ]
	run cat "$DAT_OVERRIDE"
	printf '%s\n' "$output"
	[ "$(printf '%s\n' "$output" | grep -c libdaplscm)" -eq 2 ]
	grep -qx 'OpenIB-rxe0-1 u1.2 nonthreadsafe default libdaplscm.so.1 dapl.1.2 "rxe0 1" "" # datadm:auto' "$DAT_OVERRIDE"
	grep -qx 'OpenIB-rxe0-1 u1.2 threadsafe default libdaplscm.so.1 dapl.1.2 "rxe0 1" "" # datadm:auto' "$DAT_OVERRIDE"
	! grep -q 'OpenIB-mlx5_0-1 ' "$DAT_OVERRIDE"
	run --separate-stderr "$DATADM" -u --library /opt/lib/libdaplcma.so.1
	[ "$output" = "$DAT_OVERRIDE: 4 entries for the RDMA devices present (6 removed)" ]
	! grep -q libdaplscm "$DAT_OVERRIDE"
}

@test "-u finds an IPoIB interface through device/infiniband and dev_port" {
	rm -rf "$FS/class/infiniband/rxe0" "$FS/class/infiniband/mlx5_0"
	mkdir -p "$FS/class/infiniband/mlx4_0/ports/1" "$FS/class/infiniband/mlx4_0/ports/2" \
		 "$FS/class/net/ib1/device/infiniband/mlx4_0"
	echo 1 > "$FS/class/net/ib1/dev_port"
	: > "$DAT_OVERRIDE"
	"$DATADM" -u --library /opt/lib/libdaplcma.so.1
	run cat "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'OpenIB-cma-mlx4_0-1 u1.2 nonthreadsafe default /opt/lib/libdaplcma.so.1 dapl.1.2 "mlx4_0 1" "" # datadm:auto' ]
	[ "${lines[2]}" = 'OpenIB-cma-1 u1.2 nonthreadsafe default /opt/lib/libdaplcma.so.1 dapl.1.2 "ib1 0" "" # datadm:auto' ]
}

@test "-u with no RDMA devices says so and removes the entries it made" {
	admin_conf
	"$DATADM" -u
	rm -rf "$FS/class/infiniband"
	run --separate-stderr "$DATADM" -u
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: no RDMA devices ($FS/class/infiniband): removed 4 entries" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "-u keeps the service entries and -a keeps the auto entries" {
	admin_conf
	svc k.conf 'K u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/k.conf"
	"$DATADM" -u
	"$DATADM" -a "$SVC/k.conf"
	[ "$(grep -c '# datadm:auto$' "$DAT_OVERRIDE")" -eq 4 ]
	[ "$(grep -c '# datadm:svc=k.conf$' "$DAT_OVERRIDE")" -eq 1 ]
}

@test "while another holds the lock nothing is written; --lock-timeout gives up with a message" {
	admin_conf
	svc w.conf 'W u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	exec 9< "$BATS_TEST_TMPDIR/etc"
	flock 9
	run "$DATADM" --lock-timeout 0 -a "$SVC/w.conf" 9<&-
	flock -u 9
	exec 9<&-
	[ "$status" -eq 1 ]
	[ "$output" = "datadm: $DAT_OVERRIDE is locked by another datadm; gave up after 0 s, nothing changed" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "concurrent writers queue on the lock and no update is lost" {
	admin_conf
	for i in 1 2 3 4 5 6 7 8; do
		svc "c$i.conf" "C$i u1.2 threadsafe default libdattest.so.1 dapl.1.2 \"x\" \"\""
	done
	timeout=$((30 * ${TEST_TIMEOUT_SCALE:-1}))
	# Hold the lock while they start: whatever the timing, none may
	# write before it is released, and all must have written after.
	exec 9< "$BATS_TEST_TMPDIR/etc"
	flock 9
	pids=""
	for i in 1 2 3 4 5 6 7 8; do
		"$DATADM" --lock-timeout "$timeout" -a "$SVC/c$i.conf" 9<&- > /dev/null &
		pids="$pids $!"
	done
	"$DATADM" --lock-timeout "$timeout" -u 9<&- > /dev/null &
	pids="$pids $!"
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	flock -u 9
	exec 9<&-
	for p in $pids; do
		wait "$p"
	done
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(grep -c "^C$i u1.2 .*# datadm:svc=c$i.conf\$" "$DAT_OVERRIDE")" -eq 1 ]
	done
	[ "$(grep -c '# datadm:auto$' "$DAT_OVERRIDE")" -eq 4 ]
	[ "$(wc -l < "$DAT_OVERRIDE")" -eq $((5 + 8 + 4)) ]
	n=$(wc -c < "$BATS_TEST_TMPDIR/orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

# ---- real hardware names (issue 20) ----------------------------------------

@test "-u names: OpenIB-cma(-N) for ibN, OpenIB-bond for bond0, roe and iwarp for other interfaces" {
	rm -rf "$FS/class/infiniband" "$FS/class/net"
	local ib="$FS/class/infiniband"
	# mlx4_0: two IB ports with IPoIB ib0 (dev_port 0) and ib1 (dev_port 1)
	mkdir -p "$ib/mlx4_0/ports/1" "$ib/mlx4_0/ports/2" \
		 "$FS/class/net/ib0/device/infiniband/mlx4_0" "$FS/class/net/ib1/device/infiniband/mlx4_0"
	echo 0 > "$FS/class/net/ib0/dev_port"
	echo 1 > "$FS/class/net/ib1/dev_port"
	echo InfiniBand > "$ib/mlx4_0/ports/1/link_layer"
	echo InfiniBand > "$ib/mlx4_0/ports/2/link_layer"
	# bond0 over ib0 and ib1
	mkdir -p "$FS/class/net/bond0/bonding"
	echo "ib0 ib1" > "$FS/class/net/bond0/bonding/slaves"
	# mlx5_0: RoCE on enp2s0; cxgb4_0: iWARP on eth3
	mkdir -p "$ib/mlx5_0/ports/1/gid_attrs/ndevs" "$ib/cxgb4_0/ports/1/gid_attrs/ndevs"
	echo enp2s0 > "$ib/mlx5_0/ports/1/gid_attrs/ndevs/0"
	echo Ethernet > "$ib/mlx5_0/ports/1/link_layer"
	echo "1: CA" > "$ib/mlx5_0/node_type"
	echo eth3 > "$ib/cxgb4_0/ports/1/gid_attrs/ndevs/0"
	echo Ethernet > "$ib/cxgb4_0/ports/1/link_layer"
	echo "4: RNIC" > "$ib/cxgb4_0/node_type"
	: > "$DAT_OVERRIDE"
	run "$DATADM" -u
	[ "$output" = "$DAT_OVERRIDE: 10 entries for the RDMA devices present (0 removed)" ]
	run sed 's/ # datadm:auto$//' "$DAT_OVERRIDE"
	printf '%s\n' "$output"
	[ "${#lines[@]}" -eq 10 ]
	[ "${lines[0]}" = 'OpenIB-iwarp-eth3 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "eth3 0" ""' ]
	[ "${lines[1]}" = 'OpenIB-iwarp-eth3 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "eth3 0" ""' ]
	[ "${lines[2]}" = 'OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""' ]
	[ "${lines[3]}" = 'OpenIB-cma u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""' ]
	[ "${lines[4]}" = 'OpenIB-cma-1 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib1 0" ""' ]
	[ "${lines[5]}" = 'OpenIB-cma-1 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "ib1 0" ""' ]
	[ "${lines[6]}" = 'OpenIB-cma-roe-enp2s0 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "enp2s0 0" ""' ]
	[ "${lines[7]}" = 'OpenIB-cma-roe-enp2s0 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "enp2s0 0" ""' ]
	[ "${lines[8]}" = 'OpenIB-bond u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "bond0 0" ""' ]
	[ "${lines[9]}" = 'OpenIB-bond u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "bond0 0" ""' ]
}

@test "--check: u2.0 lines are another DAT version, not checked and not problems" {
	printf '%s\n' 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""' \
		'ofa-v2-mlx5_0-1 u2.0 nonthreadsafe default libdaplomcm.so.2 dapl.2.0 "mlx5_0 1" ""' \
		'OK u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' > "$DAT_OVERRIDE"
	run "$DATADM" --check
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run "$DATADM" -v
	[[ "$output" =~ 1\ +ofa-v2-ib0\ +u2\.0\ .*\ +-\ +other\ DAT\ version\ \(u2\.0\),\ not\ checked ]]
	[ "${lines[-1]}" = "# 3 entries, 0 problems" ]
}

@test "--check and -v: a relative library path is a problem" {
	echo 'Rel u1.2 nonthreadsafe default lib/libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' > "$DAT_OVERRIDE"
	run "$DATADM" --check
	[ "$status" -eq 1 ]
	[ "$output" = "$DAT_OVERRIDE:1: Rel: library path lib/libdattest.so.1 is relative to the current directory: libdat refuses it" ]
}

@test "--check of 1,000 entries naming hosts that do not resolve makes no lookup; --resolve looks up, within its time" {
	awk 'BEGIN { for (i = 0; i < 1000; i++)
		printf "H%d u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 \"no-such-host-%d.invalid 0\" \"\"\n", i, i }' > "$DAT_OVERRIDE"
	run timeout $((30 * ${TEST_TIMEOUT_SCALE:-1})) "$DATADM" --check
	[ "$status" -eq 1 ]
	[ "$(count 'no interface, address or RDMA device named no-such-host-[0-9]*.invalid (host names are looked up only with --resolve)$')" -eq 1000 ]
	# opt-in: a name in /etc/hosts needs no resolver at all
	echo 'L u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "localhost 0" ""' > "$DAT_OVERRIDE"
	run "$DATADM" --check
	[ "$output" = "$DAT_OVERRIDE:1: L: localhost is on interface lo, which has no RDMA device" ]
	# --resolve with no time left looks nothing up and says so
	echo 'H u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "no-such-host.invalid 0" ""' > "$DAT_OVERRIDE"
	run timeout $((30 * ${TEST_TIMEOUT_SCALE:-1})) "$DATADM" --resolve=0 --check
	[ "$output" = "$DAT_OVERRIDE:1: H: host name no-such-host.invalid not looked up: --resolve time spent" ]
	run timeout $((30 * ${TEST_TIMEOUT_SCALE:-1})) "$DATADM" --resolve=1 --check
	[ "$status" -eq 1 ]
	[[ "$output" == "$DAT_OVERRIDE:1: H: "*"no-such-host.invalid"* ]]
}

# ---- edits keep the file whole (issue 17 item 8) ---------------------------

@test "an edit keeps owner, mode, ACLs and extended attributes" {
	admin_conf
	chown nobody:nogroup "$DAT_OVERRIDE"
	chmod 0640 "$DAT_OVERRIDE"
	setfacl -m u:daemon:r "$DAT_OVERRIDE"
	setfattr -n user.origin -v admin "$DAT_OVERRIDE"
	getfacl -p "$DAT_OVERRIDE" | grep -v '^# file' > "$BATS_TEST_TMPDIR/acl.before"
	svc x.conf 'X u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/x.conf" 2> /dev/null
	[ "$(stat -c %U:%G "$DAT_OVERRIDE")" = nobody:nogroup ]
	getfacl -p "$DAT_OVERRIDE" | grep -v '^# file' > "$BATS_TEST_TMPDIR/acl.after"
	diff "$BATS_TEST_TMPDIR/acl.before" "$BATS_TEST_TMPDIR/acl.after"
	grep -q 'user:daemon:r--' "$BATS_TEST_TMPDIR/acl.after"
	[ "$(getfattr --only-values -n user.origin "$DAT_OVERRIDE")" = admin ]
	[ "$(grep -c 'datadm:svc=x.conf' "$DAT_OVERRIDE")" -eq 1 ]
}

@test "a symlinked dat.conf stays a symlink and its target is edited" {
	admin_conf
	mkdir "$BATS_TEST_TMPDIR/real"
	mv "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/real/dat.conf"
	ln -s ../real/dat.conf "$DAT_OVERRIDE"
	svc l.conf 'L u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run --separate-stderr "$DATADM" -a "$SVC/l.conf"
	[ "$status" -eq 0 ]
	[ -L "$DAT_OVERRIDE" ]
	[ "$(readlink "$DAT_OVERRIDE")" = ../real/dat.conf ]
	[ "$(grep -c 'datadm:svc=l.conf' "$BATS_TEST_TMPDIR/real/dat.conf")" -eq 1 ]
	"$DATADM" -r "$SVC/l.conf" 2> /dev/null
	[ -L "$DAT_OVERRIDE" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$BATS_TEST_TMPDIR/real/dat.conf"
}

@test "a CRLF dat.conf: -a adds CRLF lines, -r removes them, the file comes back byte for byte" {
	printf '%s\r\n' '# written on another system' \
		'T1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' > "$DAT_OVERRIDE"
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/orig"
	svc c.conf 'C u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/c.conf"
	[ "$(tail -c 2 "$DAT_OVERRIDE" | od -An -tx1 | tr -d ' ')" = 0d0a ]
	run "$DATADM" -r "$SVC/c.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of c.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	# an entry written by hand on a CRLF line, owned by a service, goes too
	printf '%s\r\n' 'H u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" "" # datadm:svc=h.conf' >> "$DAT_OVERRIDE"
	run "$DATADM" -r "$SVC/h.conf"
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of h.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

# ---- -a writes only what reads back (issue 17 item 9) ----------------------

@test "-a refuses a field that would not read back: control characters, blank or # in a bare field" {
	admin_conf
	svc v.conf "$(printf '"V\vW" u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""')"
	run --separate-stderr "$DATADM" -a "$SVC/v.conf"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"v.conf:1: ia_name holds the control character 0x0b; nothing changed" ]]
	svc h.conf '"A#B" u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run --separate-stderr "$DATADM" -a "$SVC/h.conf"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"h.conf:1: ia_name holds '#', which a dat.conf parser would not read back; nothing changed" ]]
	svc b.conf '"A B" u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run --separate-stderr "$DATADM" -a "$SVC/b.conf"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"b.conf:1: ia_name holds ' ', which"* ]]
	svc t.conf "$(printf 'T u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x\ty" ""')"
	run --separate-stderr "$DATADM" -a "$SVC/t.conf"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"t.conf:1: ia_params holds the control character 0x09; nothing changed" ]]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "a malformed line of another owner does not block -a or -r; it is reported with its line number" {
	admin_conf
	svc one.conf 'O u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	svc two.conf 'W u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	"$DATADM" -a "$SVC/one.conf" 2> /dev/null
	sed -i 's/^O u1.2 threadsafe/O u1.2 sometimes/' "$DAT_OVERRIDE"
	run --separate-stderr "$DATADM" -a "$SVC/two.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: added 1 entries of two.conf" ]
	[[ "$stderr" == *"warning: $DAT_OVERRIDE:6: malformed (thread safety is not threadsafe or nonthreadsafe), kept as it is"* ]]
	run --separate-stderr "$DATADM" -r "$SVC/two.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of two.conf" ]
	grep -q '^O u1.2 sometimes' "$DAT_OVERRIDE"
}

# ---- drop-in files (issue 20) -----------------------------------------------

@test "--file and --drop-in target one file; --drop-in creates dat.conf.d" {
	svc d.conf 'D u1.2 threadsafe default libdattest.so.1 dapl.1.2 "x" ""'
	run "$DATADM" --file "$BATS_TEST_TMPDIR/etc/other.conf" -a "$SVC/d.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$BATS_TEST_TMPDIR/etc/other.conf: added 1 entries of d.conf" ]
	[ ! -e "$DAT_OVERRIDE" ]
	run "$DATADM" --file "$BATS_TEST_TMPDIR/etc/other.conf" -v
	[[ "${lines[0]}" == "# $BATS_TEST_TMPDIR/etc/other.conf" ]]
	[[ "$output" =~ 1\ +D\ +u1\.2\ +threadsafe ]]
	run "$DATADM" --drop-in ../x -a "$SVC/d.conf"
	[ "$status" -eq 2 ]
}

@test "without DAT_OVERRIDE: -v lists dat.conf and then dat.conf.d/*.conf, a key repeated across files is flagged; --drop-in adds to its own file" {
	local b="$BATS_TEST_TMPDIR/b" etc="$BATS_TEST_TMPDIR/sysconf"
	mkdir -p "$etc/dat.conf.d"
	make -s -C "$TOP" B="$b" SYSCONFDIR="$etc" DAT_FALLBACK_CONF="$etc/fallback/dat.conf" "$b/bin/datadm"
	unset DAT_OVERRIDE
	echo 'A u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' > "$etc/dat.conf"
	printf '%s\n' 'B u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'A u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' > "$etc/dat.conf.d/50-b.conf"
	run "$b/bin/datadm" -v
	printf '%s\n' "$output"
	[ "${lines[0]}" = "# $etc/dat.conf" ]
	[ "$(count "^# $etc/dat.conf.d/50-b.conf\$")" -eq 1 ]
	[[ "$output" =~ 2\ +A\ .*ignored:\ repeats\ $etc/dat\.conf:1 ]]
	[ "${lines[-1]}" = "# 3 entries, 1 problems" ]
	svc ours.conf 'U u1.2 threadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""'
	rm -r "$etc/dat.conf.d"
	run "$b/bin/datadm" --drop-in udapl1 -a "$SVC/ours.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$etc/dat.conf.d/udapl1.conf: added 1 entries of ours.conf" ]
	[ "$(cat "$etc/dat.conf.d/udapl1.conf")" = 'U u1.2 threadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:svc=ours.conf' ]
	# the main file is untouched
	[ "$(cat "$etc/dat.conf")" = 'A u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" ""' ]
}

@test "the sample dat.conf: compat-dapl names, then the libfabric entries, each in both thread safeties, every line well formed" {
	run "$DATADM" --file "$TOP/dat.conf" -v
	printf '%s\n' "$output"
	[ "$(count ' malformed: ')" -eq 0 ]
	for n in OpenIB-cma OpenIB-cma-1 OpenIB-cma-2 OpenIB-cma-3 OpenIB-bond ofi-tcp ofi-shm ofi-tcp-msg; do
		[ "$(count "^[0-9]* *$n *u1.2 *nonthreadsafe ")" -eq 1 ]
		[ "$(count "^[0-9]* *$n *u1.2 *threadsafe ")" -eq 1 ]
	done
	# the verbs entries first, the libfabric ones after them
	[ "$(grep -n 'libdaplcma' <<< "$output" | tail -n 1 | cut -d: -f1)" -lt \
	  "$(grep -n 'libdaplofi' <<< "$output" | head -n 1 | cut -d: -f1)" ]
	[[ "${lines[-1]}" == "# 16 entries, "* ]]
}

# The sample is the drop-in the packages install (make install, debian/):
# libdaplofi1's description names each of its libfabric IAs.
@test "debian/control: libdaplofi1's description names every libfabric entry of the sample dat.conf, and says MSG as well as RDM" {
	local desc names n
	desc=$(awk '/^Package: libdaplofi1$/ {p = 1; next} /^Package:/ {p = 0} p' "$TOP/debian/control")
	printf '%s\n' "$desc"
	names=$(awk '!/^#/ && $5 == "libdaplofi.so.1" {print $1}' "$TOP/dat.conf" | sort -u)
	[ "$(wc -l <<< "$names")" -eq 3 ]
	for n in $names; do
		grep -Eq "(^|[^-[:alnum:]])$n([^-[:alnum:]]|\$)" <<< "$desc" ||
			{ echo "not named: $n"; return 1; }
	done
	grep -q 'FI_EP_MSG' <<< "$desc"
	grep -q 'FI_EP_RDM' <<< "$desc"
}

@test "-u without DAT_OVERRIDE writes the drop-in dat.conf.d/libdaplcma1.conf and says so; dat.conf is not edited; an identical unowned entry there is kept, not repeated" {
	local b="$BATS_TEST_TMPDIR/b" etc="$BATS_TEST_TMPDIR/sysconf"
	mkdir -p "$etc"
	make -s -C "$TOP" B="$b" SYSCONFDIR="$etc" DAT_FALLBACK_CONF="$etc/fallback/dat.conf" "$b/bin/datadm"
	unset DAT_OVERRIDE
	# the main file, as Debian's libdapl2 ships it (a conffile of another package)
	printf '%s\n' '# DAT 2.0' 'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""' > "$etc/dat.conf"
	cp "$etc/dat.conf" "$BATS_TEST_TMPDIR/main.orig"
	chmod 644 "$etc/dat.conf"
	touch -d '2020-01-01 00:00' "$etc/dat.conf"
	run "$b/bin/datadm" -u
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "datadm: -u writes the drop-in file $etc/dat.conf.d/libdaplcma1.conf; $etc/dat.conf is not edited" ]
	[ "${lines[1]}" = "$etc/dat.conf.d/libdaplcma1.conf: 4 entries for the RDMA devices present (0 removed)" ]
	cmp "$BATS_TEST_TMPDIR/main.orig" "$etc/dat.conf"
	[ "$(stat -c %Y "$etc/dat.conf")" = "$(date -d '2020-01-01 00:00' +%s)" ]
	[ "$(grep -c ' # datadm:auto$' "$etc/dat.conf.d/libdaplcma1.conf")" -eq 4 ]
	grep -qx 'OpenIB-cma-roe-fakeeth0 u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:auto' "$etc/dat.conf.d/libdaplcma1.conf"
	# libdat reads the drop-in: -v lists both files, the -u entries under the drop-in
	run "$b/bin/datadm" -v
	[ "${lines[0]}" = "# $etc/dat.conf" ]
	[ "$(count "^# $etc/dat.conf.d/libdaplcma1.conf\$")" -eq 1 ]
	[ "$(count '^[0-9]* *OpenIB-cma-roe-fakeeth0 .* auto ')" -eq 2 ]
	# the drop-in as the package installs it: the sample entries, unowned;
	# -u keeps one that is exactly what it would write, and adds the rest
	printf '%s\n' '# sample' 'OpenIB-cma-roe-fakeeth0 u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" ""' \
		'ofi-tcp u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 127.0.0.1" ""' > "$etc/dat.conf.d/libdaplcma1.conf"
	cp "$etc/dat.conf.d/libdaplcma1.conf" "$BATS_TEST_TMPDIR/dropin.orig"
	run "$b/bin/datadm" -u
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "$etc/dat.conf.d/libdaplcma1.conf: 4 entries for the RDMA devices present (0 removed, 1 already there as written)" ]
	n=$(wc -c < "$BATS_TEST_TMPDIR/dropin.orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/dropin.orig" "$etc/dat.conf.d/libdaplcma1.conf"
	[ "$(grep -c ' # datadm:auto$' "$etc/dat.conf.d/libdaplcma1.conf")" -eq 3 ]
	[ "$(grep -c '^OpenIB-cma-roe-fakeeth0 u1.2 nonthreadsafe ' "$etc/dat.conf.d/libdaplcma1.conf")" -eq 1 ]
	cmp "$BATS_TEST_TMPDIR/main.orig" "$etc/dat.conf"
	# --file still targets the file it names, the main one included
	run "$b/bin/datadm" --file "$etc/dat.conf" -u
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$etc/dat.conf: 4 entries for the RDMA devices present (0 removed)" ]
}
