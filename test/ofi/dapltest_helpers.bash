# SPDX-License-Identifier: BSD-3-Clause
# Shared by the dapltest suites over libfabric (test/ofi/dapltest.bats,
# test/ofi/dapltest-cli.bats): ofi_helpers, then dapltest's server on
# $OFI_A on a free port, stopped with -T Q, and its client on $OFI_B.

load ofi_helpers

DT="$OFI_TOP/build/bin/dapltest"

setup_file() {
	ofi_setup_file
	[ -x "$DT" ] || { echo "$DT is missing: make test-programs" >&2; return 1; }
}

setup() {
	SRV_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	PORT=$(free_qual)
}

# the server on ofi-a in the background (fd 3 closed, or bats waits)
dt_server() {
	: > "$SRV_OUT" # before the job starts (verbs_helpers start_server)
	"$QT" -t "$(secs 3000)" "$(secs 300)" "$DT" -T S -D "$OFI_A" -n "$PORT" \
		> "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
	wait_line "$SRV_OUT" "$SRV_PID" "listening $PORT" 30
}

# dt_stop: -T Q, then the server must exit 0
dt_stop() {
	run "$QT" -t "$(secs 300)" "$(secs 30)" "$DT" -T Q -s "$DATTEST_SERVER_ADDR" -D "$OFI_B" -n "$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	local rc=0
	wait "$SRV_PID" || rc=$?
	SRV_PID=
	echo "--- server (exit status $rc):"
	cat "$SRV_OUT"
	[ "$rc" -eq 0 ]
	grep -q '^Dapltest server: finished$' "$SRV_OUT"
}

# dt_client ARGS...: dapltest against the server, bounded; output in $output
dt_client() {
	run "$QT" -t "$(secs 2000)" "$(secs 200)" "$DT" -s "$DATTEST_SERVER_ADDR" -D "$OFI_B" -n "$PORT" "$@"
	echo "--- client exit status $status:"
	echo "$output"
}
