# SPDX-License-Identifier: BSD-3-Clause
# Shared setup of the verbs suites (test/verbs/*.bats), run inside the
# soft-RoCE guest by `make check-verbs` from the top of the tree.
#
# Each test runs build/test/verbs/dattest-verbs twice: a server on rxe0-cma
# (10.77.0.1) in the background and a client on rxe1-cma (10.77.0.2).  The
# client starts once the server printed "listening <qual>" (polled, never
# a fixed sleep).  Every wait is bounded and scaled by TEST_TIMEOUT_SCALE.

SCALE=${TEST_TIMEOUT_SCALE:-1}
TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
VT="$TOP/build/test/verbs/dattest-verbs"
# The bound of a test program: stopped once it printed nothing for N
# seconds, or ran ten times that (test/lib/quiet-timeout.c: a timeout is
# there to catch a hang, not a busy machine): "$QT" -t "$(secs 10N)"
# "$(secs N)" PROGRAM...
# (from this file's place: examples/examples.bats sets its own TOP)
QT="$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)/build/test/lib/quiet-timeout"
export DAT_OVERRIDE="${DAT_OVERRIDE:-$TOP/test/vm/dat.conf}"
export LD_LIBRARY_PATH="$TOP/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEST_TIMEOUT_SCALE="$SCALE"

# secs N: N seconds, scaled
secs() { echo $(($1 * SCALE)); }

# nap, has_line, nth_listening: waits without a process (test/lib/wait.bash)
load "${BASH_SOURCE[0]%/*}/../lib/wait"

verbs_setup_file() {
	case $SCALE in
	'' | *[!0-9]* | 0)
		echo "TEST_TIMEOUT_SCALE must be a positive integer (is '$SCALE')" >&2
		return 1
		;;
	esac
	local d
	for d in rxe0 rxe1; do
		if [ ! -e "/sys/class/infiniband/$d" ]; then
			echo "no $d: run the verbs suites in the test VM (make check-verbs)" >&2
			return 1
		fi
	done
	if [ ! -x "$VT" ] || [ ! -x "$QT" ]; then
		echo "$VT or $QT is missing: make test-programs" >&2
		return 1
	fi
	if [ ! -e "$TOP/build/lib/libdaplcma.so.1" ]; then
		echo "the provider is missing: make provider" >&2
		return 1
	fi
}

setup() {
	SRV_PID=
	SRV_OUT=$BATS_TEST_TMPDIR/server.out
	QUAL=
}

teardown() {
	# a server left behind by a failed test must not disturb the next one
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2> /dev/null; then
		kill "$SRV_PID" 2> /dev/null || :
		wait "$SRV_PID" 2> /dev/null || :
	fi
}

# start_server TEST ARGS...: the server role in the background, bounded by
# $QT; its output goes to $SRV_OUT.  fd 3 is closed, or bats waits for it.
start_server() {
	local t=$1
	shift
	# emptied here, not by the background job's redirection: that one
	# may come after wait_listening read the last server's "listening"
	# line (a test that starts two servers in turn connected to the
	# first one's port: NON_PEER_REJECTED, connect.bats connect-ends)
	: > "$SRV_OUT"
	"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" "$t" server "$@" \
		> "$SRV_OUT" 2>&1 3>&- &
	SRV_PID=$!
}

# wait_listening [N]: until the server printed its Nth (default first)
# "listening <qual>"; sets QUAL.
wait_listening() {
	local end=$((SECONDS + $(secs 30))) nth=${1:-1}
	while :; do
		nth_listening "$SRV_OUT" "$nth"
		[ -n "$QUAL" ] && return 0
		if ! kill -0 "$SRV_PID" 2> /dev/null; then
			echo "server exited before listening; its output:"
			cat "$SRV_OUT"
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "server not listening after $(secs 30)s; its output:"
			cat "$SRV_OUT"
			return 1
		fi
		nap
	done
}

# wait_server: the server's exit status in SRV_RC (bounded by its timeout)
wait_server() {
	SRV_RC=0
	wait "$SRV_PID" || SRV_RC=$?
	SRV_PID=
	echo "--- server exit status $SRV_RC; server output:"
	cat "$SRV_OUT"
}

# show_matrix: the "status-matrix: ..." lines the server ($SRV_OUT) and
# the client ($output) printed, as comments in the TAP log (fd 3), where
# test/lib/summary.sh gathers every fabric's into one table
show_matrix() {
	{ cat "$SRV_OUT"; printf '%s\n' "$output"; } |
		sed -n 's/^status-matrix:/# &/p' >&3
}

# churn_tally: psp-churn's two counts agree (test/verbs/vt_cm_many.c).
# dat_psp_free(3DAT): "Any incoming Connection Requests for the Connection
# Qualifier on the destroyed Service Point it had been listening on are
# automatically rejected by the Provider with the return analogous to the
# no listening Service Point" -- so every PEER_REJECTED the client saw was
# a dat_cr_reject of the server's consumer: the client's (its tries' and
# its last word) are at most the server's (a reject that came after the
# client's connect timed out is counted on the server's side alone).
# libdaplcma and libdaplscm answered a request for a PSP being freed as
# a consumer's reject: the client counted more, and now and then took
# such an answer to its last word for the server's, which never heard it.
churn_tally() {
	local srv cli
	srv=$(sed -n 's/^  ok [0-9]* rounds, \([0-9]*\) connection requests rejected, .*/\1/p' "$SRV_OUT")
	cli=$(sed -n 's/^  ok [0-9]* tries of 4: \([0-9]*\) rejected by the server, .*/\1/p' <<< "$output")
	# in the TAP log (fd 3) too, where a passing test's output is not
	echo "# dat_cr_reject at the server: $srv; PEER_REJECTED at the client: $cli and its last word" |
		tee /dev/fd/3
	[ -n "$srv" ] && [ -n "$cli" ]
	[ $((cli + 1)) -le "$srv" ]
}

# readme_has_row: the README's table "What each fabric gives" holds
# exactly the row test/lib/ia-row.sh makes of $output, what "dattest-verbs
# query local" printed for one IA
readme_has_row() {
	local row
	row=$("$TOP/test/lib/ia-row.sh" <<< "$output")
	echo "row: $row"
	[ -n "$row" ]
	grep -qxF -- "$row" "$TOP/README.md"
}

# run_client TEST ARGS...: the client role, output in $output
run_client() {
	local t=$1
	shift
	run "$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" "$t" client "$@"
	echo "--- client exit status $status; client output:"
	echo "$output"
}

# pair_args [SERVER ARGS...] [-- CLIENT ARGS...]: the words before "--"
# in SRV_ARGS, those after it in CLI_ARGS
pair_args() {
	SRV_ARGS=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		SRV_ARGS+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	CLI_ARGS=("$@")
}

# pair TEST [SERVER ARGS...] [-- CLIENT ARGS...]: server and client of
# TEST, both must pass
pair() {
	local t=$1
	shift
	pair_args "$@"
	start_server "$t" "${SRV_ARGS[@]}"
	wait_listening
	run_client "$t" -q "$QUAL" "${CLI_ARGS[@]}"
	wait_server
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
	[ "$SRV_RC" -eq 0 ]
	grep -q '^PASS$' "$SRV_OUT"
}

# local_test TEST ARGS...: a one-process test
local_test() {
	run "$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" "$@"
	echo "--- exit status $status; output:"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^PASS$' <<< "$output"
}

# a connection qualifier (port) for tests that need a fixed one: below
# the kernel's ephemeral ports (32768 up: rdma_cm's PSP_any), and each of
# check-verbs.sh's lanes (VERBS_LANE 0, 1 or 2) its own 4,000
random_qual() { echo $((20000 + ${VERBS_LANE:-0} * 4000 + RANDOM % 4000)); }

# ---- two roles of a fault test in the background (faults.bats of
# test/verbs and test/ofi); VF is the suite's program ----

# fstart VAR OUT TEST ROLE ARGS...: a dattest-faults role in the background,
# bounded by $QT; its pid (of quiet-timeout) in VAR, its output in OUT
fstart() {
	local var=$1 out=$2
	shift 2
	"$QT" -t "$(secs 1500)" "$(secs 150)" "$VF" "$@" > "$out" 2>&1 3>&- &
	printf -v "$var" %s $!
}

# fwait VAR PIDVAR OUT: exit status of the background role in VAR
fwait() {
	local var=$1 pidvar=$2 out=$3 rc=0
	wait "${!pidvar}" || rc=$?
	printf -v "$pidvar" %s ''
	printf -v "$var" %s "$rc"
	echo "--- $out: exit status $rc"
	cat "$out"
}

# pid_of OUT: the program's own pid (its first line), not quiet-timeout's
pid_of() { sed -n 's/^pid \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1; }
