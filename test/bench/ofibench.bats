#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/bench/ofibench.bats - make bench's raw libfabric twin of datbench
# (test/bench/ofibench.c, issue 35) works on the providers its rows use,
# natively: each test between a server and a client prints its RESULT
# line, the atomics check what they fetched (the program exits 1 on a
# wrong value), and bad input is refused.  Nothing here measures time.

load ../bats/helpers
load ../lib/wait

OB="$DATTEST_BUILD/test/bench/ofibench"
SCALE=${TEST_TIMEOUT_SCALE:-1}
secs() { echo $(($1 * SCALE)); }

setup_file() {
	[ -x "$OB" ] || { echo "$OB is missing: make test-programs" >&2; return 1; }
}

setup() {
	SRV_PID=
}

teardown() {
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null || :
		wait "$SRV_PID" 2> /dev/null || :
	fi
}

free_port() { "$TOP/test/bench/free-port"; }

# pair PROV TEST SIZE [FLAG...]: server and client of TEST, 50
# iterations, both with the FLAGs; the client's output in $output
pair() {
	local prov=$1 t=$2 s=$3 p sa=() ca=()
	shift 3
	p=$(free_port)
	[ "$prov" = shm ] || { sa=(-a 127.0.0.1); ca=(-a 127.0.0.2); }
	sa+=("$@"); ca+=("$@")
	: > "$BATS_TEST_TMPDIR/srv"
	timeout -k 5 "$(secs 60)" "$OB" server -p "$prov" -t "$t" -s "$s" -n 50 -w 8 \
		-P "$p" "${sa[@]}" > "$BATS_TEST_TMPDIR/srv" 2>&1 3>&- &
	SRV_PID=$!
	wait_line "$BATS_TEST_TMPDIR/srv" "$SRV_PID" listening 30
	run timeout -k 5 "$(secs 60)" "$OB" client -p "$prov" -h 127.0.0.1 -t "$t" -s "$s" \
		-n 50 -w 8 -P "$p" "${ca[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	wait "$SRV_PID" || { cat "$BATS_TEST_TMPDIR/srv"; false; }
	SRV_PID=
	# the server says nothing more than that it listens
	[ "$(cat "$BATS_TEST_TMPDIR/srv")" = listening ]
}

# every PROV: each test once; its RESULT line has figures
every() {
	local t
	for t in send_lat write_lat read_lat atomic_fadd atomic_cas; do
		pair "$1" "$t" "$([ "${t#atomic}" = "$t" ] && echo 64 || echo 8)"
		grep -Eq "^RESULT $t (64|8) 50 typ=[0-9.]+ min=[0-9.]+ max=[0-9.]+ avg=[0-9.]+ p99=[0-9.]+$" <<< "$output"
	done
	pair "$1" write_bw 65536
	grep -Eq '^RESULT write_bw 65536 50 bw=[0-9.]+$' <<< "$output"
	# a 1 MiB write goes beyond any inject size: fi_writemsg without a
	# completion, the peer polling memory
	pair "$1" write_lat 1048576
	grep -Eq '^RESULT write_lat 1048576 50 typ=' <<< "$output"
	# -d: the writes ask for delivery completion (run-bench-ofi.sh's
	# reference for DAT's writes over tcp), small and large
	pair "$1" write_lat 64 -d
	grep -Eq '^RESULT write_lat 64 50 typ=[0-9.]+ ' <<< "$output"
	pair "$1" write_bw 65536 -d
	grep -Eq '^RESULT write_bw 65536 50 bw=[0-9.]+$' <<< "$output"
}

@test "ofibench: tcp;ofi_rxm: send, RDMA write and read, fetch-add and compare-swap (each value fetched checked), write bandwidth" {
	every 'tcp;ofi_rxm'
}

@test "ofibench: shm: send, RDMA write and read, fetch-add and compare-swap (each value fetched checked), write bandwidth" {
	every shm
}

@test "ofibench: bad input: usage (exit 2); a provider libfabric does not have: fi_getinfo's error (exit 1)" {
	run "$OB" client -p shm -t nothing -s 8 -n 1 -P 1 -h 127.0.0.1
	[ "$status" -eq 2 ]
	grep -q '^usage: ofibench server' <<< "$output"
	run "$OB" server -p shm -t atomic_fadd -s 64 -n 1 -P 1
	[ "$status" -eq 2 ]
	run "$OB" server -p no-such-provider -t send_lat -s 8 -n 1 -P "$(free_port)"
	[ "$status" -eq 1 ]
	grep -q '^ofibench: fi_getinfo: ' <<< "$output"
}

@test "ofibench: callgrind's instruction counts per round through DAT and raw (test/bench/ofi-cg.sh over shm): each component has its figure, raw has none of ours" {
	command -v valgrind || skip "valgrind is missing (make bench-deps)"
	[ -x "$DATTEST_BUILD/test/bench/datbench" ]
	run env BENCH_CG_ROUNDS=50 BENCH_CG_FABRICS=shm "$TOP/test/bench/ofi-cg.sh" "$BATS_TEST_TMPDIR/cg.md"
	echo "$output"
	cat "$BATS_TEST_TMPDIR/cg.md"
	[ "$status" -eq 0 ]
	# | component | through DAT | raw libfabric |
	row() { sed -n "s/^| $1 | \([0-9]*\) | \([0-9]*\) |$/\1 \2/p" "$BATS_TEST_TMPDIR/cg.md"; }
	read -r d r <<< "$(row '\*\*our code, total\*\*')"
	[ "$d" -gt 100 ] && [ "$r" -eq 0 ]
	read -r d r <<< "$(row libfabric)"
	[ "$d" -gt 100 ] && [ "$r" -gt 100 ]
	read -r d r <<< "$(row '\*\*everything in user space\*\*')"
	[ "$d" -gt "$r" ]
	grep -Eq '^Total through DAT / raw: [0-9.]+ \(target ≤ 1.25: (met|\*\*missed\*\*)\); our code [0-9]+ per round' "$BATS_TEST_TMPDIR/cg.md"
}

# datbench's side of the write rows (run-bench-ofi.sh): write_lat waits on
# memory alone, write_lat_poll dequeues its request EVD meanwhile; both
# over DAT's ofi-a/ofi-b (tcp;ofi_rxm) and shm IAs print their RESULT
@test "datbench: write_lat and write_lat_poll over ofi-tcp and ofi-shm: each prints its RESULT line" {
	local DB="$DATTEST_BUILD/test/bench/datbench" t ia p
	[ -x "$DB" ]
	export DAT_OVERRIDE="$TOP/test/ofi/dat.conf"
	for ia in ofi-a:ofi-b ofi-shm-a:ofi-shm-b; do
		for t in write_lat write_lat_poll; do
			p=$(free_port)
			: > "$BATS_TEST_TMPDIR/srv"
			timeout -k 5 "$(secs 60)" "$DB" server -D "${ia%:*}" -t "$t" -s 64 -n 50 \
				-q "$p" > "$BATS_TEST_TMPDIR/srv" 2>&1 3>&- &
			SRV_PID=$!
			wait_line "$BATS_TEST_TMPDIR/srv" "$SRV_PID" listening 30
			run timeout -k 5 "$(secs 60)" "$DB" client -D "${ia#*:}" -h 127.0.0.1 -t "$t" \
				-s 64 -n 50 -q "$p"
			echo "$ia $t: $output"
			[ "$status" -eq 0 ]
			wait "$SRV_PID"
			SRV_PID=
			grep -Eq "^RESULT $t 64 50 typ=[0-9.]+ min=[0-9.]+ max=[0-9.]+ avg=[0-9.]+ p99=[0-9.]+$" <<< "$output"
		done
	done
}
