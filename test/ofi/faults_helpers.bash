# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/faults_helpers.bash - what faults.bats and shm-dead.bats share:
# build/test/verbs/dattest-faults streams RDMA writes both ways between
# the fabric's two IAs, and a test kills one side (the victim).

load ofi_helpers

VF="$OFI_TOP/build/test/verbs/dattest-faults"

# faults_setup_file [PROGRAM...]: the fabric, and dattest-faults and the
# other programs the suite runs are built
faults_setup_file() {
	local p
	ofi_setup_file
	for p in "$VF" "$@"; do
		[ -x "$p" ] || { echo "$p is missing: make test-programs" >&2; return 1; }
	done
}

setup() {
	SRV_PID=
	CLI_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	CLI_OUT=$BATS_TEST_TMPDIR/client.out
	QUAL=
}

# (a victim stopped by shm-dead.bats's program is continued, then ended)
teardown() {
	local p
	for p in "$SRV_PID" "$CLI_PID"; do
		if [ -n "$p" ] && kill -0 "$p" 2> /dev/null; then
			kill -CONT "$p" 2> /dev/null || :
			kill "$p" 2> /dev/null || :
			wait "$p" 2> /dev/null || :
		fi
	done
}

# streaming VICTIM: server and client stream; VICTIM is client or server:
# VPID and VOUT are its pid and output, SPID and SOUT the survivor's
streaming() {
	fstart SRV_PID "$SRV_OUT" dead server
	wait_listening
	fstart CLI_PID "$CLI_OUT" dead client -q "$QUAL"
	wait_line "$SRV_OUT" "$SRV_PID" streaming 30
	wait_line "$CLI_OUT" "$CLI_PID" streaming 30
	if [ "$1" = client ]; then
		VOUT=$CLI_OUT SOUT=$SRV_OUT
	else
		VOUT=$SRV_OUT SOUT=$CLI_OUT
	fi
	VPID=$(pid_of "$VOUT")
	SPID=$(pid_of "$SOUT")
	[ -n "$VPID" ] && [ -n "$SPID" ]
}

# survived VICTIM: both ended, the victim by SIGKILL (its shm regions,
# left in /dev/shm, removed), the survivor passed
survived() {
	fwait SRV_RC SRV_PID "$SRV_OUT"
	fwait CLI_RC CLI_PID "$CLI_OUT"
	shm_clean "$VPID"
	[ "$1" = client ] || shm_clean_qual "$QUAL"
	if [ "$1" = client ]; then
		[ "$CLI_RC" -eq 137 ]
		[ "$SRV_RC" -eq 0 ]
	else
		[ "$SRV_RC" -eq 137 ]
		[ "$CLI_RC" -eq 0 ]
	fi
	grep -qx PASS "$SOUT"
}
