# SPDX-License-Identifier: BSD-3-Clause
# test/lib/wait.bash - polling a file from a bats suite with bash's
# builtins only (loaded by test/verbs/verbs_helpers.bash,
# test/dapltest/dapltest.bats and test/bench/ofibench.bats; each defines
# secs, the timeout scaling wait_line uses).  Under the soft-RoCE guest's emulation
# each fork and exec of a sed, grep or sleep costs milliseconds of a
# core, which the server being waited for needs: a wait for a server's
# "listening" line polled with them took a good part of a core.

# nap: a tenth of a second, without a process (read on a FIFO this shell
# holds open at both ends times out; only that outcome is expected)
nap() {
	if [ -z "${NAP_FD:-}" ]; then
		local fifo
		fifo=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/.nap
		[ -p "$fifo" ] || mkfifo "$fifo"
		exec {NAP_FD}<> "$fifo"
	fi
	read -r -t 0.1 -u "$NAP_FD" _ || [ $? -gt 128 ]
}

# nth_listening FILE N: the qualifier of the Nth "listening <qual>" line of
# FILE in QUAL, empty if there is none (or no FILE) yet
nth_listening() {
	local l n=0
	QUAL=
	[ -e "$1" ] || return 0	# (not written yet)
	while IFS= read -r l; do
		[[ $l =~ ^listening\ ([0-9]+)$ ]] || continue
		n=$((n + 1))
		[ "$n" -eq "$2" ] && { QUAL=${BASH_REMATCH[1]}; return 0; }
	done < "$1"
	return 0
}

# has_line FILE LINE: whether FILE has LINE as a whole line
has_line() {
	local l
	[ -e "$1" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		[ "$l" = "$2" ] && return 0
	done < "$1"
	return 1
}

# wait_line FILE PID LINE SECS: until FILE has LINE, bounded (SECS, scaled
# by the suite's secs); the process PID must not end first
wait_line() {
	local f=$1 pid=$2 line=$3 end=$((SECONDS + $(secs $4)))
	until has_line "$f" "$line"; do
		if ! kill -0 "$pid" 2> /dev/null && ! has_line "$f" "$line"; then
			echo "ended before '$line'; its output:"
			cat "$f"
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "no '$line' after $(secs $4)s; output so far:"
			cat "$f"
			return 1
		fi
		nap
	done
}

# stop_process PID SECS: SIGSTOP to PID, then until no thread of it runs
# or sleeps (state R, S or D in /proc/PID/task/*/stat), bounded (SECS,
# scaled).
# kill(1) returns once the signal is queued; each thread stops only when
# it next leaves the kernel, so a target that must not serve what comes
# next is waited for (test/ofi/errors-stuck.bats's stopped server once
# served the RDMA read posted right after its SIGSTOP: make check on a
# busy machine)
stop_process() {
	local pid=$1 end=$((SECONDS + $(secs $2))) t st running
	kill -STOP "$pid" || return 1
	while :; do
		running=0
		for t in /proc/"$pid"/task/*/stat; do
			[ -e "$t" ] || continue
			read -r st < "$t" || continue
			# the state is the field after the ")" closing comm
			st=${st##*) }
			case ${st%% *} in R | S | D) running=1 ;; esac
		done
		[ "$running" = 0 ] && return 0
		if [ "$SECONDS" -ge "$end" ]; then
			echo "process $pid not stopped after $(secs $2)s"
			return 1
		fi
		nap
	done
}
