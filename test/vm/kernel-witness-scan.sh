#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# kernel-witness-scan.sh LOG SUITE NONCE ALLOW
#
# The judging half of the kernel witness (kernel-witness.sh): reads the
# guest's kernel log as dmesg printed it (LOG), takes the window between
# the markers "dat-witness NONCE: start SUITE" and "dat-witness NONCE: end
# SUITE", and prints TAP: one "ok" when the window holds no report, else one
# line per report, "not ok" unless the allow-list ALLOW lets it through.
#
# A report starts at a line with WARNING:, BUG:, "kernel BUG at",
# refcount_t:, use-after-free, UBSAN:, "general protection fault" or Oops:
# and runs to the kernel's "---[ end trace" line (at most 100 lines): its
# call trace is what the allow-list's function is looked up in.  It belongs
# to the test whose result line (marked "dat-witness NONCE: done <TAP line>")
# comes next, i.e. the test that was running when it appeared; one after the
# last result appeared in teardown_file or at exit.  The window of a nested
# witness (another nonce's start to its end) is that witness's to judge: the
# self-test plants warnings there.
#
# ALLOW: one entry a line, "function | test | why", '#' starts a comment.
# An entry lets a report through when its call trace names function (as
# "function+", "function(" or " function ") and "SUITE: test N 'name'"
# contains the entry's test text.  A malformed line fails the suite.
#
# Pure text processing: the host tests (test/vm/witness-scan.bats) feed it
# made-up logs.
set -u
[ $# -eq 4 ] || { echo "usage: $0 LOG SUITE NONCE ALLOW" >&2; exit 2; }
log=$1 suite=$2 nonce=$3 allow=$4
[ -r "$log" ] || { echo "$0: cannot read $log" >&2; exit 2; }
if [ ! -e "$allow" ]; then allow=/dev/null; fi

awk -v suite="$suite" -v nonce="$nonce" -v allowfile="$allow" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# the message without the "[ 12.345678] " time stamp
function text(s) { sub(/^\[ *[0-9]+\.[0-9]+\] /, "", s); return s }
# "ok 5 - name [in 12ms] # SKIP why" -> "test 5 '\''name'\''"
function label(tap,    n, name) {
	sub(/^(not )?ok /, "", tap)
	n = tap; sub(/ .*/, "", n)
	name = tap; sub(/^[0-9]+ -? ?/, "", name); sub(/ # [Ss][Kk][Ii][Pp].*$/, "", name)
	sub(/ in [0-9]+ms$/, "", name)	# bats --timing
	return "test " n " '\''" name "'\''"
}
function close_block() { inblock = 0 }
BEGIN {
	nallow = 0; bad_allow = ""
	while ((getline line < allowfile) > 0) {
		lineno++
		sub(/#.*/, "", line)
		if (trim(line) == "") continue
		nf = split(line, f, "|")
		if (nf != 3 || trim(f[1]) == "" || trim(f[2]) == "" || trim(f[3]) == "") {
			bad_allow = bad_allow " " lineno
			continue
		}
		nallow++
		afn[nallow] = trim(f[1]); atest[nallow] = trim(f[2])
		awhy[nallow] = trim(f[3]); aline[nallow] = lineno
	}
	start = "dat-witness " nonce ": start " suite
	end = "dat-witness " nonce ": end " suite
	done = "dat-witness " nonce ": done "
	state = 0	# 0 before the window, 1 in it, 2 after it
	nested = 0; nrep = 0; pending = 0; inblock = 0; ntests = 0
	pat = "WARNING:|BUG:|kernel BUG at|refcount_t:|use-after-free|UBSAN:|general protection fault|Oops:"
}
{
	msg = text($0)
	if (state == 0) { if (msg == start) state = 1; next }
	if (state == 2) next
	if (msg == end) { state = 2; close_block(); next }
	if (index(msg, "dat-witness ") == 1) {
		close_block()
		if (index(msg, done) == 1 && !nested) {
			ntests++
			lab = label(substr(msg, length(done) + 1))
			for (; pending > 0; pending--) rlabel[nrep - pending + 1] = lab
			next
		}
		if (msg ~ /^dat-witness [^ ]+: start /) nested++
		else if (msg ~ /^dat-witness [^ ]+: end / && nested > 0) nested--
		next
	}
	if (nested) next
	if (inblock) {
		block[nrep] = block[nrep] "\n" msg
		if (msg ~ /---\[ end trace/ || ++blen >= 100) close_block()
		next
	}
	if (msg ~ pat) {
		nrep++; pending++
		head[nrep] = msg; block[nrep] = msg; inblock = 1; blen = 0
		rlabel[nrep] = ""
	}
}
function place(r) {
	return rlabel[r] != "" ? "in " rlabel[r] : "after the last test (teardown_file or exit)"
}
# the allow-list entry that lets report r through, or 0
function allowed(r,    i, fn, where) {
	where = suite ": " rlabel[r]
	for (i = 1; i <= nallow; i++) {
		fn = afn[i]
		if (index(where, atest[i]) == 0) continue
		if (index(block[r], fn "+") || index(block[r], fn "(") ||
		    index(block[r] " ", " " fn " ")) return i
	}
	return 0
}
END {
	w = "kernel-witness: " suite ": "
	if (bad_allow != "") {
		print "1..1"
		print "not ok 1 - " w "malformed allow-list line(s)" bad_allow " in " allowfile " (want: function | test | why)"
		exit 0
	}
	if (state == 0) {
		print "1..1"
		print "not ok 1 - " w "its start marker is not in the kernel log (log overwritten?): nothing can be witnessed"
		exit 0
	}
	if (state == 1) {
		print "1..1"
		print "not ok 1 - " w "its end marker is not in the kernel log"
		exit 0
	}
	if (nrep == 0) {
		print "1..1"
		print "ok 1 - " w "no WARNING, BUG, refcount or use-after-free report in the kernel log (" ntests " tests)"
		exit 0
	}
	print "1.." nrep
	for (r = 1; r <= nrep; r++) {
		a = allowed(r)
		if (a)
			print "ok " r " - " w "allowed by allow-list line " aline[a] " (" afn[a] ": " awhy[a] "): " place(r) ": " head[r]
		else
			print "not ok " r " - " w place(r) ": " head[r]
	}
}' "$log"
