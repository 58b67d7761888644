#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/planted.bats - shm, issue 33: /dev/shm is writable by every
# user, and a file planted at a listener's name (dat-<IP>-<port>) froze
# dat_ep_connect and dat_psp_create in shm_open (a FIFO: an open for
# reading waits for a writer) under the IA's lock, and the IA with them.
# For each kind of planted file: the connect returns DAT_INVALID_ADDRESS
# at once and the PSP DAT_CONN_QUAL_IN_USE, each with one message that
# names the file and what it is, and both IAs go on working
# (test/ofi/planted.c).  Over shm only (OFI_SUITES_shm in
# providers/ofi/ofi.mk).

load ofi_helpers

VP="$TOP/build/test/ofi/dattest-ofi-planted"

setup_file() { ofi_setup_file; }

# planted KIND WHAT: plant KIND at a free qualifier's name, run the
# program, and check the message says the name is WHAT
# A qualifier (its own port: providers/ofi/addr.c) of 20000..24575, where
# neither free_qual (10000..19999, which the other suites listen on) nor
# PSP_any (24576 up) lands: a suite of another run beside this one (make
# check in another tree) must not find a planted file at its own
# listener's name (seen: a dapltest server of a concurrent run refused
# its port, the planted 12-byte file there).
planted_qual() {
	local lo
	read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range
	[ "$lo" -gt 21000 ] || lo=21000
	# and below the ports PSP_any takes (24576 up: providers/ofi/addr.c)
	[ "$lo" -le 24576 ] || lo=24576
	echo $((20000 + RANDOM % (lo - 20000)))
}

planted() {
	local kind=$1 what=$2 q name i
	for i in $(seq 100); do
		q=$(planted_qual)
		name=/dev/shm/dat-$DATTEST_SERVER_ADDR-$q
		[ -e "$name" ] || [ -L "$name" ] || break
	done
	case $kind in
	fifo) mkfifo "$name" ;;
	dir) mkdir "$name" ;;
	symlink) ln -s /etc/passwd "$name" ;;
	other) head -c 65536 /dev/zero > "$name" && chown nobody "$name" ;;
	small) printf 'not a region' > "$name" ;;
	esac
	run env VT_FIRST_IA="$OFI_A" "$QT" -t "$(secs 600)" "$(secs 60)" \
		"$VP" planted local -i "$OFI_B" -a "$DATTEST_SERVER_ADDR" -q "$q"
	rm -rf "$name"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	grep -q '^  ok dat_ep_connect to the planted name: DAT_INVALID_ADDRESS' <<< "$output"
	grep -q '^  ok dat_psp_create at the planted name: DAT_CONN_QUAL_IN_USE' <<< "$output"
	# one message for each of the two calls
	[ "$(grep -c "ofi: $name is $what, not a listener's region" <<< "$output")" -eq 2 ]
}

@test "$OFI_FABRIC: a FIFO planted at a listener's name: connect DAT_INVALID_ADDRESS and psp_create DAT_CONN_QUAL_IN_USE at once, one message each, the IAs keep working" {
	planted fifo "a FIFO"
}

@test "$OFI_FABRIC: a directory planted at a listener's name: the same" {
	planted dir "a directory"
}

@test "$OFI_FABRIC: a symbolic link planted at a listener's name: the same" {
	planted symlink "a symbolic link"
}

@test "$OFI_FABRIC: a file of another user at a listener's name: the same" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a file of another user"
	planted other "a file of another user"
}

@test "$OFI_FABRIC: a file too small for a region at a listener's name: the same" {
	planted small "a file of 12 bytes"
}
