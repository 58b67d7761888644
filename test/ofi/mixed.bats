#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/mixed.bats - one process with an IA over tcp;ofi_rxm and then
# one over verbs;ofi_rxm (make check-verbs, in the soft-RoCE guest:
# providers/ofi/ofi.mk).  libfabric 1.17's rxm over verbs needs its shared
# receive context (FI_OFI_RXM_USE_SRX=1; without it rxm crashes now and
# then at a connection's end: providers/ofi/init.c), a tcp IA must not
# have it, and the variable is the process's: the provider sets it for
# each IA right before libfabric reads it (ofi_env_rxm_srx).  Before, the
# first IA of a process decided: a verbs IA after a tcp one had none.
# Watched through libfabric's own log of the values it read.

load ofi_helpers

setup_file() { ofi_setup_file; }

# mixed_conf: the verbs registry plus an IA over tcp;ofi_rxm on vethA
mixed_conf() {
	local conf=$BATS_TEST_TMPDIR/mixed.conf
	cp "$OFI_TOP/test/ofi/dat-verbs.conf" "$conf"
	echo 'ofi-tcp-a u1.2 nonthreadsafe default libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 10.77.0.1" ""' >> "$conf"
	echo "$conf"
}

@test "$OFI_FABRIC: a tcp;ofi_rxm IA, then a verbs;ofi_rxm IA in the same process: rxm reads use_srx=0 for the first one's endpoints and use_srx=1 for the second's" {
	[ "$OFI_FABRIC" = verbs ]
	run env DAT_OVERRIDE="$(mixed_conf)" VT_FIRST_IA=ofi-tcp-a \
		FI_LOG_LEVEL=info FI_LOG_PROV=ofi_rxm \
		"$QT" -t "$(secs 600)" "$(secs 60)" "$VT" two-ia local -i "$OFI_A"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	# the values rxm read, in order: up to the line that says the first
	# IA and its EP are there, then up to the second's
	first=$(sed -n '/^  first IA .* open/q; s/.*read bool var use_srx=\([01]\).*/\1/p' <<< "$output" | sort -u | tr -d '\n')
	second=$(sed -n '/^  first IA .* open/,/^  second IA .* open/ s/.*read bool var use_srx=\([01]\).*/\1/p' <<< "$output" | sort -u | tr -d '\n')
	echo "use_srx read for the tcp IA: '$first'; for the verbs IA: '$second'"
	[ "$first" = 0 ]
	[ "$second" = 1 ]
}
