#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/dapltest.bats - dapltest (build/bin/dapltest) over tcp;ofi_rxm,
# natively: a server on ofi-a (127.0.0.1) on a free port, clients on
# ofi-b.  Every functional group passes, memory windows (emulated with
# application keys, providers/ofi/rmr.c) and atomics (libfabric atomics)
# included: rxm and shm have what they need, so nothing is UNSUPP there;
# over tcpmsg (libfabric's tcp MSG endpoints, no atomics) the atomic
# group is UNSUPP, each case printing that dat_ia_query says FALSE.

load dapltest_helpers

@test "$OFI_FABRIC: dapltest -T T over $OFI_A: validated transactions, 3 threads x 2 EPs, SR RR RW both ways" {
	dt_server
	dt_client -T T -t 3 -w 2 -i 8 -V client SR 4096 3 server SR 100 \
		client RR 8192 2 server RR 512 client RW 2048 4 server RW 64
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED: 3 thread(s) x 2 EP(s) x 8 iteration(s) x 6 op(s)' <<< "$output"
	dt_client -T T -t 2 -w 2 -i 5 -V -Q server SR 256 client RW 1024 server RR 1024
	[ "$status" -eq 0 ]
	grep -q '^Transaction test: PASSED' <<< "$output"
	dt_stop
	grep -q '^Server: transaction test done$' "$SRV_OUT"
}

# -i N is N operations, as OFA's dapltest counts them (dapltest(1)): 20
# ops in rounds of 4 (5 rounds), of 2 (10), and 10 ops in rounds of 4
# (4, 4, 2; SR: the server's receives follow the short last round)
@test "$OFI_FABRIC: dapltest -T P over $OFI_A: RW, RR (blocking) and SR (polling) print their figures; -i counts operations" {
	local what n
	dt_server
	for args in "-m b -i 20 -p 4 RW 8192:20:5" "-m b -i 20 -p 2 RR 4096 2:20:10" \
		"-m p -i 10 -p 4 SR 1024:10:3"; do
		# shellcheck disable=SC2086
		dt_client -T P ${args%%:*}
		[ "$status" -eq 0 ]
		grep -q '^Performance test: PASSED$' <<< "$output"
		n=${args#*:}
		grep -q "pipeline [0-9]*, ${n%%:*} op(s) in ${n#*:} round(s)" <<< "$output"
		grep -q "^  ${n%%:*} ops, " <<< "$output"
		for what in 'latency (us per op):' 'bandwidth (MB/s):'; do
			n=$(grep -F "  $what" <<< "$output" |
				awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $i + 0 > 0) c++ } END { print c + 0 }')
			[ "$n" -eq 3 ]
		done
	done
	dt_stop
}

# verbs, rxd: cm_no_listener is the one case that fails, and
# how: nobody listening ends in TIMED_OUT there (OFI_NOLISTENER,
# ofi_helpers.bash; connect.bats)
@test "$OFI_FABRIC: dapltest -T F over $OFI_A: every case PASS, the memory window (emulated) and atomic groups included; 0 FAIL; UNSUPP only for what dat_ia_query reports absent (tcpmsg, net: the atomic group, libfabric's tcp and net MSG have no atomics; verbs, rxd: cm_no_listener FAIL, TIMED_OUT)" {
	local total rmr_at absent=0 fail=0
	dt_server
	dt_client -T F
	if [ "$OFI_NOLISTENER" = TIMED_OUT ]; then
		fail=1
		[ "$status" -eq 1 ]
		grep -Eq '^cm_no_listener +Result: FAIL +a connection nobody listens for: event DAT_CONNECTION_EVENT_TIMED_OUT, want DAT_CONNECTION_EVENT_NON_PEER_REJECTED$' <<< "$output"
	else
		[ "$status" -eq 0 ]
	fi
	total=$("$DT" -T F --list | wc -l)
	rmr_at=$("$DT" -T F --list | awk '$1 == "rmr" || $1 == "atomic"' | wc -l)
	[ "$rmr_at" -ge 10 ]
	# no atomics on the IA (OFI_ATOMICS=0): every atomic case UNSUPP,
	# each saying the provider attributes are FALSE (dat_ia_query)
	# (at_wrong_handle still passes: the handle is checked first)
	if [ "$OFI_ATOMICS" = 0 ]; then
		absent=$(grep 'Result: UNSUPP' <<< "$output" |
			grep -Ec '^at_.*DAT_IB_FETCH_AND_ADD/DAT_IB_CMP_AND_SWAP (FALSE|not TRUE) \(no atomics\)')
		[ "$absent" -ge 4 ]
		[ "$absent" -lt "$("$DT" -T F --list | awk '$1 == "atomic"' | wc -l)" ]
	fi
	[ "$(grep -c 'Result: FAIL' <<< "$output")" -eq "$fail" ]
	[ "$(grep -c 'Result: UNSUPP' <<< "$output")" -eq "$absent" ]
	[ "$(grep -c 'Result: PASS' <<< "$output")" -eq $((total - absent - fail)) ]
	# the two groups of part 2 ran and passed (but what is absent)
	[ "$(grep -E '^(rmr|at)_' <<< "$output" | grep -c 'Result: PASS')" -eq $((rmr_at - absent)) ]
	if [ "$absent" -eq 0 ]; then
		grep -Eq "^$((total - fail)) passed, $fail failed\$" <<< "$output"
	else
		grep -Eq "^$((total - absent - fail)) passed, $fail failed, $absent unsupported\$" <<< "$output"
	fi
	dt_stop
}
