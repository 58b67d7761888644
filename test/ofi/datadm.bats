#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/datadm.bats - datadm -v/--check on entries of the libfabric
# provider: they are judged by whether libfabric offers their provider
# and their address is local, not as a netdev name.

load ofi_helpers

DATADM="$OFI_TOP/build/bin/datadm"

setup_file() {
	ofi_setup_file
	[ -x "$DATADM" ] || { echo "$DATADM is missing: make" >&2; return 1; }
}

# conf LINE...: a dat.conf of these lines in DAT_OVERRIDE
conf() {
	export DAT_OVERRIDE="$BATS_TEST_TMPDIR/dat.conf"
	printf '%s\n' "$@" > "$DAT_OVERRIDE"
}

@test "$OFI_FABRIC: datadm --check: the ofi entries of test/ofi/dat.conf are usable" {
	run "$DATADM" --check
	echo "$output"
	[ "$status" -eq 0 ]
	run "$DATADM" -v
	echo "$output"
	[ "$status" -eq 0 ]
	if [ "$OFI_FABRIC" = verbs ]; then
		# test/ofi/dat-verbs.conf
		[ "$(grep -Ec '^[0-9]+ +ofi-verbs-[ab] .* ok$' <<< "$output")" -eq 4 ]
		grep -q '^# 4 entries, 0 problems$' <<< "$output"
		return
	fi
	[ "$(grep -Ec '^[0-9]+ +ofi-[ab] .* ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -Ec '^[0-9]+ +ofi-shm-[ab] .* ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -Ec '^[0-9]+ +ofi-msg-[ab] .* ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -Ec '^[0-9]+ +ofi-rxd-[ab] .* ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -Ec '^[0-9]+ +ofi-netrxm-[ab] .* ok$' <<< "$output")" -eq 4 ]
	[ "$(grep -Ec '^[0-9]+ +ofi-net-[ab] .* ok$' <<< "$output")" -eq 4 ]
	grep -q '^# 24 entries, 0 problems$' <<< "$output"
}

@test "$OFI_FABRIC: datadm --check: an unknown libfabric provider, a non-local address and malformed ia_params are problems, each said" {
	conf 'G u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 127.0.0.1" ""' \
	     'P u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "nosuchprov;ofi_rxm 127.0.0.1" ""' \
	     'A u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 192.0.2.1" ""' \
	     'M u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm" ""'
	run "$DATADM" --check
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'libfabric has no provider nosuchprov;ofi_rxm for RDM endpoints on 127.0.0.1' <<< "$output")" -eq 1 ]
	[ "$(grep -c 'address 192.0.2.1 is not on a local interface' <<< "$output")" -eq 1 ]
	[ "$(grep -c 'want "<libfabric provider> <IPv4 address>"' <<< "$output")" -eq 1 ]
	# the good entry is not a problem: three are
	[ "$(grep -c ': G: ' <<< "$output")" -eq 0 ]
	[ "$(grep -c 'dat.conf:[0-9]*: [PAM]: ' <<< "$output")" -eq 3 ]
}

# libfabric without ofi_rxm (FI_PROVIDER=^ofi_rxm) still offers tcp's MSG
# endpoints and no RDM ones: an entry of tcp named alone is usable (its IA
# opens MSG endpoints, providers/ofi/select.c), one of tcp;ofi_rxm is not.
# datadm asks libfabric for what the IA will open, so the two agree.
@test "$OFI_FABRIC: datadm --check judges an entry by the endpoints its IA opens: tcp alone by MSG ones, tcp;ofi_rxm by RDM ones" {
	conf 'M u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "tcp 127.0.0.1" ""' \
	     'M u1.2 threadsafe default libdaplofi.so.1 dapl.1.2 "tcp 127.0.0.1" ""' \
	     'R u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 127.0.0.1" ""'
	export FI_PROVIDER='^ofi_rxm'
	run "$DATADM" --check
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'dat.conf:3: R: libfabric has no provider tcp;ofi_rxm for RDM endpoints on 127.0.0.1' <<< "$output")" -eq 1 ]
	[ "$(grep -c ': M: ' <<< "$output")" -eq 0 ]
	run "$DATADM" -v
	echo "$output"
	[ "$(grep -Ec '^[12] +M .* yes +ok$' <<< "$output")" -eq 2 ]
	[ "$(grep -c '^# 3 entries, 1 problems$' <<< "$output")" -eq 1 ]
	# and the IAs: M opens, R does not
	local_test query local -i M -a 127.0.0.1
	run "$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" query local -i R -a 127.0.0.1
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(grep -c 'DAT_PROVIDER_NOT_FOUND' <<< "$output")" -ge 1 ]
}

# issue 33 item 5: libfabric 1.17's sockets provider, which fi_info lists
# on this machine, crashes a dapltest server (SIGSEGV in libfabric's own
# thread) at the first connection request.  An IA of it is refused at
# dat_ia_open with the reason on stderr, and datadm says the same; a
# provider whose name only starts with "sockets" is not refused for it.
@test "$OFI_FABRIC: the sockets provider is refused, with the reason: dat_ia_open DAT_PROVIDER_NOT_FOUND and one message, datadm --check a problem" {
	conf 'S u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "sockets 127.0.0.1" ""' \
	     'R u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "sockets;ofi_rxm 127.0.0.1" ""' \
	     'X u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "socketsx 127.0.0.1" ""'
	# fi_info offers it: what is refused is there to be used
	fi_info -p sockets > /dev/null
	run "$OFI_TOP/build/test/dattest" open S
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q '^open S: DAT_PROVIDER_NOT_FOUND' <<< "$output"
	[ "$(grep -c 'libfabric provider sockets refused: .*crashes' <<< "$output")" -eq 1 ]
	run "$OFI_TOP/build/test/dattest" open R
	[ "$(grep -c 'libfabric provider sockets;ofi_rxm refused' <<< "$output")" -eq 1 ]
	run "$DATADM" --check
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c ': S: refused: .*SIGSEGV' <<< "$output")" -eq 1 ]
	[ "$(grep -c ': R: refused: ' <<< "$output")" -eq 1 ]
	# not a name that only begins with it
	[ "$(grep -c ': X: libfabric has no provider socketsx' <<< "$output")" -eq 1 ]
}
