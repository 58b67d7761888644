#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# datadm(8): the listing and --check against libdat's parser, -a/-r/-u with
# owned lines, byte-for-byte preservation, refusals that change nothing, a
# read-only file, and concurrent writers under the lock.  No RDMA: RDMA
# devices and interfaces come from a fake sysfs tree (DATADM_SYSFS).

load helpers

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
	[[ "$output" =~ 2\ +OK\ +u1\.2\ +nonthreadsafe\ +libdattest\.so\.1\ +\"fakeeth0\ 0\"\ +-\ +ok ]]
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
	DAT_OVERRIDE= run "$DATADM" --check
	if [ ! -e /usr/local/etc/dat.conf ] && [ ! -e /etc/dat.conf ]; then
		[ "$status" -eq 1 ]
		[[ "$output" == *"no dat.conf"* ]]
	fi
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
	run "$DATADM" -a "$SVC/acme.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: added 2 entries of acme.conf" ]
	n=$(wc -c < "$BATS_TEST_TMPDIR/orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	run tail -n 2 "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'ACME u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "fakeeth0   0" "" # datadm:svc=acme.conf' ]
	[ "${lines[1]}" = 'ACME u1.2 threadsafe default libdattest.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:svc=acme.conf' ]
	# libdat reads the result: both entries, with the parser's view
	run "$DATADM" -v
	[[ "$output" =~ 6\ +ACME\ +u1\.2\ +nonthreadsafe\ .*svc=acme\.conf\ +ok ]]
	[[ "$output" =~ 7\ +ACME\ +u1\.2\ +threadsafe\ .*svc=acme\.conf\ +ok ]]
	# the service file changes: -a replaces its entries, nothing else
	svc acme.conf 'ACME u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "rxe0 1" ""'
	run "$DATADM" -a "$SVC/acme.conf"
	[ "$output" = "$DAT_OVERRIDE: replaced 1 entries of acme.conf" ]
	[ "$(grep -c 'datadm:svc=acme.conf' "$DAT_OVERRIDE")" -eq 1 ]
	grep -q '"rxe0 1" "" # datadm:svc=acme.conf$' "$DAT_OVERRIDE"
	run "$DATADM" -r "$SVC/acme.conf"
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
	run "$DATADM" -r "$SVC/gone.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: removed 1 entries of gone.conf" ]
	cmp "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
	run "$DATADM" -r "$SVC/never.conf"
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
	[[ "$output" == *"$DAT_OVERRIDE:6: a line marked \"# datadm:\" is malformed"*"nothing changed" ]]
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

@test "-u makes two entries per RDMA port, named device-port-cma, and is idempotent" {
	admin_conf
	run "$DATADM" -u
	[ "$status" -eq 0 ]
	[ "$output" = "$DAT_OVERRIDE: 4 entries for the RDMA devices present (0 removed)" ]
	run tail -n 4 "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'mlx5_0-1-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "mlx5_0 1" "" # datadm:auto' ]
	[ "${lines[1]}" = 'mlx5_0-1-cma u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "mlx5_0 1" "" # datadm:auto' ]
	[ "${lines[2]}" = 'rxe0-1-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:auto' ]
	[ "${lines[3]}" = 'rxe0-1-cma u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "fakeeth0 0" "" # datadm:auto' ]
	cp "$DAT_OVERRIDE" "$BATS_TEST_TMPDIR/after1"
	run "$DATADM" -u
	[ "$output" = "$DAT_OVERRIDE: 4 entries for the RDMA devices present (4 removed)" ]
	cmp "$BATS_TEST_TMPDIR/after1" "$DAT_OVERRIDE"
	n=$(wc -c < "$BATS_TEST_TMPDIR/orig")
	cmp -n "$n" "$BATS_TEST_TMPDIR/orig" "$DAT_OVERRIDE"
}

@test "-u finds an IPoIB interface through device/infiniband and dev_port" {
	rm -rf "$FS/class/infiniband/rxe0" "$FS/class/infiniband/mlx5_0"
	mkdir -p "$FS/class/infiniband/mlx4_0/ports/1" "$FS/class/infiniband/mlx4_0/ports/2" \
		 "$FS/class/net/ib1/device/infiniband/mlx4_0"
	echo 1 > "$FS/class/net/ib1/dev_port"
	: > "$DAT_OVERRIDE"
	"$DATADM" -u --library /opt/lib/libdaplcma.so.1
	run cat "$DAT_OVERRIDE"
	[ "${lines[0]}" = 'mlx4_0-1-cma u1.2 nonthreadsafe default /opt/lib/libdaplcma.so.1 dapl.1.2 "mlx4_0 1" "" # datadm:auto' ]
	[ "${lines[2]}" = 'mlx4_0-2-cma u1.2 nonthreadsafe default /opt/lib/libdaplcma.so.1 dapl.1.2 "ib1 0" "" # datadm:auto' ]
}

@test "-u with no RDMA devices says so and removes the entries it made" {
	admin_conf
	"$DATADM" -u
	rm -rf "$FS/class/infiniband"
	run "$DATADM" -u
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
