#!/usr/bin/env bats
# test/ofi/faults.bats - a dead peer over tcp;ofi_rxm: build/test/verbs/
# dattest-faults streams RDMA writes both ways between ofi-a and ofi-b and
# the suite kills one side (SIGKILL).  The survivor must see the
# connection BROKEN (or DISCONNECTED) within the keepalive period
# (DAPL_OFI_KEEPALIVE_TIMEOUT_MS, 3 s here; the default is 10 s), every
# outstanding DTO completed, and close cleanly.

load ofi_helpers

VF="$OFI_TOP/build/test/verbs/dattest-faults"
export DAPL_OFI_KEEPALIVE_TIMEOUT_MS=3000

setup_file() {
	ofi_setup_file
	[ -x "$VF" ] || { echo "$VF is missing: make test-programs" >&2; return 1; }
}

setup() {
	SRV_PID=
	CLI_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	CLI_OUT=$BATS_TEST_TMPDIR/client.out
	QUAL=
}

teardown() {
	local p
	for p in "$SRV_PID" "$CLI_PID"; do
		if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
}

# fstart VAR OUT TEST ROLE ARGS...: a role in the background, bounded
fstart() {
	local var=$1 out=$2
	shift 2
	timeout -k 5 "$(secs 150)" "$VF" "$@" > "$out" 2>&1 3>&- &
	printf -v "$var" %s $!
}

# wait_line FILE PID LINE SECS: until FILE has LINE, bounded
wait_line() {
	local f=$1 pid=$2 line=$3 end=$((SECONDS + $(secs $4)))
	until grep -qx "$line" "$f"; do
		if ! kill -0 "$pid" 2> /dev/null && ! grep -qx "$line" "$f"; then
			echo "ended before '$line'; its output:"
			cat "$f"
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "no '$line' after $(secs $4)s; output so far:"
			cat "$f"
			return 1
		fi
		sleep 0.1
	done
}

fwait() {
	local var=$1 pidvar=$2 out=$3 rc=0
	wait "${!pidvar}" || rc=$?
	printf -v "$pidvar" %s ''
	printf -v "$var" %s "$rc"
	echo "--- $out: exit status $rc"
	cat "$out"
}

pid_of() { sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1; }

# dead VICTIM: both stream, VICTIM (client or server) is killed
dead() {
	local vout sout vpid
	fstart SRV_PID "$SRV_OUT" dead server
	wait_listening
	fstart CLI_PID "$CLI_OUT" dead client -q "$QUAL"
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	if [ "$1" = client ]; then vout=$CLI_OUT sout=$SRV_OUT; else vout=$SRV_OUT sout=$CLI_OUT; fi
	vpid=$(pid_of "$vout")
	[ -n "$vpid" ]
	kill -KILL "$vpid"
	fwait SRV_RC SRV_PID "$SRV_OUT"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	if [ "$1" = client ]; then
		[ "$CLI_RC" -eq 137 ]
		[ "$SRV_RC" -eq 0 ]
	else
		[ "$SRV_RC" -eq 137 ]
		[ "$CLI_RC" -eq 0 ]
	fi
	grep -qx PASS "$sout"
	grep -Eq '^  ok connection end: DAT_CONNECTION_EVENT_(BROKEN|DISCONNECTED)$' "$sout"
}

@test "dead peer: client killed (SIGKILL) mid-transfer; the server sees the connection end, flushes, closes" {
	dead client
}

@test "dead peer: server killed (SIGKILL) mid-transfer; the client sees the connection end, flushes, closes" {
	dead server
}
