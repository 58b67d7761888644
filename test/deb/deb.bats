#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/deb/deb.bats - the Debian packages in the soft-RoCE guest (make
# check-deb; its root is a throw-away overlay).  In order: Debian's DAT 2.0
# packages, then ours beside them; an IA opened through the installed
# files with the installed dapltest1; the installed datadm -u writing our
# drop-in, not libdapl2's /etc/dat.conf; a purge that leaves nothing of ours
# and DAT 2.0's files as they were; then make install into the system and
# make uninstall.  DEB_DIR holds our .deb files and dat2/ Debian's.

TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SCALE=${TEST_TIMEOUT_SCALE:-1}
OURS="udapl-utils libdat-dev libdaplcma1 libdaplofi1 libdat1"
STATE=$TOP/build/deb/guest-state
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

setup_file() {
	[ "${VM_GUEST:-}" = 1 ] || { echo "only inside the throw-away guest (make check-deb)" >&2; return 1; }
	[ -e /sys/class/infiniband/rxe0 ] || { echo "no rxe0" >&2; return 1; }
	# nothing of the build tree: only what the packages install
	unset LD_LIBRARY_PATH DAT_OVERRIDE
}

# installed_lib_run CMD...: CMD with the dynamic linker's report of what it
# loaded (LD_DEBUG=libs) in $output; the IA names of the guest's registry
run_installed() {
	run env -u LD_LIBRARY_PATH DAT_OVERRIDE="$TOP/test/vm/dat.conf" \
		LD_DEBUG=libs timeout -k 5 $((120 * SCALE)) "$@"
	printf '%s\n' "$output" | grep -v 'LD_DEBUG\|^ *[0-9]*: *$' | grep -v 'find library\|search\|trying file' | head -60
}

@test "Debian's DAT 2.0 packages install first (libdapl2, dapl2-utils)" {
	mkdir -p "$STATE"
	dpkg -i "$DEB_DIR"/dat2/*.deb
	[ -f /etc/dat.conf ] && [ -x /usr/bin/dapltest ]
	md5sum /etc/dat.conf /usr/bin/dapltest /usr/share/man/man5/dat.conf.5.gz > "$STATE/dat2.md5"
}

@test "dpkg -i installs libdat1, libdat-dev, libdaplcma1, libdaplofi1 and udapl-utils beside them" {
	dpkg -i "$DEB_DIR"/libdat1_*.deb "$DEB_DIR"/libdat-dev_*.deb \
		"$DEB_DIR"/libdaplcma1_*.deb "$DEB_DIR"/libdaplofi1_*.deb \
		"$DEB_DIR"/udapl-utils_*.deb
	for p in $OURS; do
		[ "$(dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ]
	done
	[ -f "/usr/lib/$MA/libdat.so.1" ] && [ -f "/usr/lib/$MA/libdaplcma.so.1" ]
	[ -f "/usr/lib/$MA/libdaplofi.so.1" ]
	[ -x /usr/bin/dapltest1 ] && [ -x /usr/sbin/datadm ]
	[ -f /etc/dat.conf.d/libdaplcma1.conf ]
	md5sum -c "$STATE/dat2.md5"
	for p in $OURS; do dpkg -L "$p"; done | sort -u > "$STATE/ours.list"
	[ "$(wc -l < "$STATE/ours.list")" -ge 100 ]
	/usr/bin/dapltest1 --version
	[ "$(/usr/bin/dapltest1 --version)" = "dapltest (uDAPL) $(cat "$TOP/VERSION"), DAT API 1.2" ]
}

@test "the installed dapltest1 opens IAs through the installed libdat.so.1 and libdaplcma.so.1 (limit test)" {
	run_installed /usr/bin/dapltest1 -T L -D rxe0-cma -m 2 -w 1
	[ "$status" -eq 0 ]
	grep -q '^11 passed, 0 failed$' <<< "$output"
	grep -q '^limit_ia  *Result: PASS' <<< "$output"
	grep -Eq "calling init: (/usr)?/lib/$MA/libdat.so.1" <<< "$output"
	grep -Eq "calling init: (/usr)?/lib/$MA/libdaplcma.so.1" <<< "$output"
	[ "$(grep -c "calling init: $TOP" <<< "$output" || :)" -eq 0 ]
}

@test "a program built with pkg-config against libdat-dev opens an IA" {
	cc -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/pingpong" \
		/usr/share/doc/libdat-dev/examples/pingpong.c \
		/usr/share/doc/libdat-dev/examples/example.c $(pkg-config --cflags --libs dat)
	[ "$(pkg-config --modversion dat)" = "$(cat "$TOP/VERSION")" ]
	run_installed "$BATS_TEST_TMPDIR/pingpong" -D no-such-ia 10.77.0.1
	[ "$status" -eq 1 ]
	grep -q 'dat_ia_open: DAT_PROVIDER_NOT_FOUND' <<< "$output"
}

@test "the installed datadm -u writes /etc/dat.conf.d/libdaplcma1.conf, not libdapl2's /etc/dat.conf; the installed datadm -v says its entries open" {
	run env -u DAT_OVERRIDE /usr/sbin/datadm -u
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "datadm: -u writes the drop-in file /etc/dat.conf.d/libdaplcma1.conf; /etc/dat.conf is not edited" ]
	# rdma_cm's two a netdev, and the socket CM's two a port
	# (libdaplscm.so.1, shipped in libdaplcma1)
	[ "${lines[1]}" = "/etc/dat.conf.d/libdaplcma1.conf: 8 entries for the RDMA devices present (0 removed)" ]
	md5sum -c "$STATE/dat2.md5"
	grep -qx 'OpenIB-cma-roe-vethA u1.2 threadsafe default libdaplcma.so.1 dapl.1.2 "vethA 0" "" # datadm:auto' /etc/dat.conf.d/libdaplcma1.conf
	grep -qx 'OpenIB-rxe0-1 u1.2 nonthreadsafe default libdaplscm.so.1 dapl.1.2 "rxe0 1" "" # datadm:auto' /etc/dat.conf.d/libdaplcma1.conf
	run env -u DAT_OVERRIDE /usr/sbin/datadm -v
	printf '%s\n' "$output"
	[ "$(grep -c '^[0-9]* *OpenIB-cma-roe-veth[AB] .* auto *yes *ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -c '^[0-9]* *OpenIB-rxe[01]-1 .* auto *yes *ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -c '^# /etc/dat.conf.d/libdaplcma1.conf$' <<< "$output")" -eq 1 ]
}

@test "dpkg --purge leaves no file of ours, and DAT 2.0's files as they were" {
	dpkg --purge $OURS
	left=""
	while read -r f; do
		[ -d "$f" ] && continue
		[ -e "$f" ] || [ -L "$f" ] || continue
		left="$left $f"
	done < "$STATE/ours.list"
	echo "left:$left"
	[ -z "$left" ]
	[ ! -e /etc/dat.conf.d ]
	[ "$(ldconfig -p | grep -c 'libdat.so.1\|libdaplcma.so.1\|libdaplscm.so.1\|libdaplofi.so.1' || :)" -eq 0 ]
	md5sum -c "$STATE/dat2.md5"
}

@test "make install without DESTDIR: the installed dapltest1 works at once (no manual ldconfig); make uninstall removes it" {
	cd "$TOP"
	make -s install
	[ -f /usr/local/lib/libdat.so.1 ]
	ldconfig -p | grep -q 'libdat.so.1 .*=> /usr/local/lib/libdat.so.1'
	run_installed /usr/local/bin/dapltest1 -T L -D rxe0-cma -m 2 -w 1
	[ "$status" -eq 0 ]
	grep -q '^11 passed, 0 failed$' <<< "$output"
	grep -q "calling init: /usr/local/lib/libdat.so.1" <<< "$output"
	grep -q "calling init: /usr/local/lib/libdaplcma.so.1" <<< "$output"
	make -s uninstall
	[ ! -e /usr/local/lib/libdat.so.1 ] && [ ! -e /usr/local/bin/dapltest1 ]
	[ "$(ldconfig -p | grep -c '/usr/local/lib/libdat.so.1' || :)" -eq 0 ]
	md5sum -c "$STATE/dat2.md5"
}
