#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/verbs/compat.bats - what OFA dapl's users rely on (issue 19):
# Provider-created EPs, connection qualifiers above 65535, and OFA's
# tuning variables reaching the QPs.  build/test/verbs/dattest-compat runs
# each test in one process with both IAs (rxe0-cma serves, rxe1-cma
# connects); see test/verbs/compat.c.

load verbs_helpers

VC="$TOP/build/test/verbs/dattest-compat"

setup_file() {
	verbs_setup_file
	[ -x "$VC" ] || {
		echo "$VC is missing: make test-programs" >&2
		return 1
	}
}

# compat [ENV=VALUE...] TEST ARGS...: one run of dattest-compat, bounded;
# it must pass
compat() {
	local envs=()
	while [[ $1 == *=* ]]; do
		envs+=("$1")
		shift
	done
	local t=$1
	shift
	run env "${envs[@]}" "$QT" -t "$(secs 2000)" "$(secs 200)" "$VC" "$t" local "$@"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}

# qp ROLE FIELD: a value dattest-compat's tunables printed
qp() {
	sed -n "s/^qp $1 $2 //p" <<< "$output"
}

# qp_is FIELD VALUE: both QPs of the pair have it
qp_is() {
	local r ok=0
	for r in active passive; do
		if [ "$(qp "$r" "$1")" != "$2" ]; then
			echo "MISMATCH $r QP $1 = '$(qp "$r" "$1")', want $2"
			ok=1
		fi
	done
	return "$ok"
}

@test "DAT_PSP_PROVIDER_FLAG: the provider's EP is named by dat_cr_query, set up, accepted with ep_handle NULL, carries data; a reject frees it" {
	compat provider-ep -q "$(random_qual)"
}

@test "qualifiers Q and (1 << 32) | Q on one IA (one rdma_cm port): each connect reaches its own PSP; (2 << 32) | Q is NON_PEER_REJECTED" {
	compat quals -q "$(random_qual)"
}

@test "tunables unset: the QPs get this provider's defaults (ACK timeout 19, retries 7, RNR retry 7, rdma_cm's min_rnr_timer 0, inline 256)" {
	compat tunables -q "$(random_qual)"
	qp_is timeout 19
	qp_is retry_cnt 7
	qp_is rnr_retry 7
	qp_is min_rnr_timer 0
	qp_is max_inline_data 256
	qp_is traffic_class 0
	[ "$(grep -c 'warning' <<< "$output")" -eq 0 ]
}

@test "OFA's DAPL_ACK_TIMER/ACK_RETRY/RNR_RETRY/RNR_TIMER/MAX_INLINE reach both QPs (ibv_query_qp); the CM variables are accepted silently" {
	compat DAPL_ACK_TIMER=20 DAPL_ACK_RETRY=5 DAPL_RNR_RETRY=6 \
		DAPL_RNR_TIMER=14 DAPL_MAX_INLINE=100 \
		DAPL_CM_ROUTE_TIMEOUT_MS=20000 DAPL_CM_ROUTE_RETRY_COUNT=15 \
		DAPL_MAX_CM_RESPONSE_TIME=20 DAPL_MAX_CM_RETRIES=15 \
		tunables -q "$(random_qual)"
	qp_is timeout 20
	qp_is retry_cnt 5
	qp_is rnr_retry 6
	qp_is min_rnr_timer 14
	qp_is max_inline_data 100
	[ "$(grep -c 'warning' <<< "$output")" -eq 0 ]
}

@test "OFA's DAPL_CM_TOS: the type of service a connect asks for is both QPs' traffic class (RoCE: the DSCP of every packet); 0 leaves rdma_cm's" {
	compat DAPL_CM_TOS=104 tunables -q "$(random_qual)"
	qp_is traffic_class 104
	[ "$(grep -c 'warning\|DAPL_CM_TOS' <<< "$output")" -eq 0 ]
	compat DAPL_CM_TOS=0 tunables -q "$(random_qual)"
	qp_is traffic_class 0
}

@test "OFA's DAPL_WR_MAX: dat_ia_query's max_dto_per_ep is at most it, EPs of the default sizes stay under it and carry data, a bad value warns" {
	run env DAPL_WR_MAX=16 "$QT" -t "$(secs 600)" "$(secs 60)" "$VT" query local -i rxe0-cma -a 10.77.0.1
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sed -n 's/^attr max_dto_per_ep //p' <<< "$output")" = 16 ]
	# above the device's max_qp_wr: the device's
	run env DAPL_WR_MAX=2147483647 "$QT" -t "$(secs 600)" "$(secs 60)" "$VT" query local -i rxe0-cma -a 10.77.0.1
	[ "$status" -eq 0 ]
	[ "$(sed -n 's/^attr max_dto_per_ep //p' <<< "$output")" = "$("$QT" -t "$(secs 300)" "$(secs 30)" ibv_devinfo -v -d rxe0 | sed -n 's/^[[:space:]]*max_qp_wr:[[:space:]]*//p')" ]
	compat DAPL_WR_MAX=16 tunables -q "$(random_qual)"
	run env DAPL_WR_MAX=0 "$QT" -t "$(secs 600)" "$(secs 60)" "$VT" query local -i rxe0-cma -a 10.77.0.1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'warning: DAPL_WR_MAX=' <<< "$output")" -eq 1 ]
}

@test "DAPL_CMA_ACK_TIMEOUT and DAPL_CMA_RETRY_COUNT win over DAPL_ACK_TIMER and DAPL_ACK_RETRY" {
	compat DAPL_CMA_ACK_TIMEOUT=21 DAPL_ACK_TIMER=20 \
		DAPL_CMA_RETRY_COUNT=4 DAPL_ACK_RETRY=5 \
		tunables -q "$(random_qual)"
	qp_is timeout 21
	qp_is retry_cnt 4
}

@test "bad values: one warning each (two IAs open), and the default" {
	compat DAPL_ACK_TIMER=99 DAPL_RNR_RETRY=seven DAPL_MAX_CM_RETRIES=16 \
		DAPL_MAX_INLINE=-1 DAPL_CM_TOS=256 tunables -q "$(random_qual)"
	qp_is timeout 19
	qp_is rnr_retry 7
	qp_is max_inline_data 256
	qp_is traffic_class 0
	local v
	for v in DAPL_ACK_TIMER DAPL_RNR_RETRY DAPL_MAX_CM_RETRIES DAPL_MAX_INLINE DAPL_CM_TOS; do
		[ "$(grep -c "warning: $v=" <<< "$output")" -eq 1 ] ||
			{ echo "want one warning for $v"; return 1; }
	done
}

@test "unreachable address, DAT timeout 6 s: UNREACHABLE by default (resolution gives up at half the timeout)" {
	compat unreachable -a 10.77.0.3 -n 6
	grep -qx 'event DAT_CONNECTION_EVENT_UNREACHABLE' <<< "$output"
}

@test "unreachable address: DAPL_CM_ARP_TIMEOUT_MS x (1 + DAPL_CM_ARP_RETRY_COUNT) beyond the DAT timeout: TIMED_OUT instead" {
	# the DAT timeout (-n, scaled by dattest) well inside the 2 tries
	compat DAPL_CM_ARP_TIMEOUT_MS=$(($(secs 10) * 1000)) \
		DAPL_CM_ARP_RETRY_COUNT=1 unreachable -a 10.77.0.3 -n 2
	grep -qx 'event DAT_CONNECTION_EVENT_TIMED_OUT' <<< "$output"
}

@test "valgrind: provider-ep and quals: no error, no leak" {
	command -v valgrind > /dev/null || {
		echo "valgrind is not installed in the guest" >&2
		return 1
	}
	local t
	for t in provider-ep quals; do
		# as badinput.bats: --keep-debuginfo for the dlclosed provider
		run "$QT" -t "$(secs 4000)" "$(secs 400)" valgrind --error-exitcode=1 \
			--errors-for-leak-kinds=definite,indirect,possible \
			--show-leak-kinds=definite,indirect,possible \
			--leak-check=full --keep-debuginfo=yes --num-callers=30 \
			--suppressions="$BATS_TEST_DIRNAME/rdma-core.supp" \
			"$VC" "$t" local -q "$(random_qual)"
		echo "--- $t: exit status $status; output:"
		echo "$output"
		[ "$status" -eq 0 ]
		grep -q '^PASS$' <<< "$output"
		grep -q 'ERROR SUMMARY: 0 errors' <<< "$output"
	done
}
