#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/shm-names.bats - the names an IA over libfabric's shm may know
# in its life (README.md: shm; providers/ofi/addr.c): libfabric 1.17's
# shm lets an IA's address vector take 256, one for each peer IA and each
# listener the IA connected to.  The client of test/verbs/vt_cm_many.c
# shm-names connects to a new listener (a PSP on a qualifier of its own)
# round after round until a connect fails: that must be
# DAT_INVALID_ADDRESS, after 254 listeners (the server's control
# endpoint and the first listener are the other two names), the IA must
# have said so on stderr, once at 224 names and once when shm refused
# one, and a listener the IA knew before must still be reached.  Over
# shm only (OFI_SUITES_shm in providers/ofi/ofi.mk).

load ofi_helpers

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: an IA that connects to 300 listeners one after another: 254 connect, the next is DAT_INVALID_ADDRESS, stderr said it before and then, and a listener it knew still connects" {
	pair shm-names -n 300 -- -n 300
	grep -q '^  ok 254 listeners reached, then a connect to a new one: DAT_INVALID_ADDRESS$' <<< "$output"
	grep -q '^  ok a new EP connects to the listener the IA knew before$' <<< "$output"
	[ "$(grep -c '^dapl: ofi: shm IA 127.0.0.2 has taken 224 of the 256 peer names' <<< "$output")" -eq 1 ]
	[ "$(grep -c '^dapl: ofi: shm IA 127.0.0.2: libfabric.s shm took no more peer names (256 taken)' <<< "$output")" -eq 1 ]
	grep -q '^  ok 254 connections accepted, each on a PSP of its own$' "$SRV_OUT"
	# the server's IA took one name (the client's control endpoint)
	! grep -q '^dapl: ofi: shm IA' "$SRV_OUT"
}
