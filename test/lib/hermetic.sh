#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hermetic.sh COMMAND...
#
# Runs COMMAND where the machine's registry is hostile (issue 40): in a
# mount namespace of its own, /etc/dat.conf (the fallback libdat and
# datadm read when SYSCONFDIR has no dat.conf: DAT 2.0's and OFA's place)
# and a drop-in in $HERMETIC_SYSCONFDIR/dat.conf.d (default
# /usr/local/etc, the SYSCONFDIR of a plain build) hold DAT 2.0 entries,
# a broken line, and 1.2 entries under the IA names the tests use that
# name libraries that do not exist.  A test that reads the machine's
# registry instead of its own then fails; the suites COMMAND runs must
# pass as they do without these files.  Nothing outside the namespace
# changes: both places are overlays (or bind-mounted copies) there.
# HERMETIC_MARKER, exported, is in both files (the guest's selftest looks
# for it: the guest shares this root).
#
# Needs root (unshare -m).  Elsewhere, or where no overlay or bind mount
# can be made, it says why on stderr and exits 77 without running
# COMMAND; callers record a skip (with CI=true a skip fails the run).
#
# hermetic.sh --tap NAME COMMAND...: the same for a TAP-speaking COMMAND;
# where it cannot run, one skipped test NAME is printed instead (exit 0).
set -u
tap=
if [ "${1:-}" = --tap ] && [ $# -ge 3 ]; then
	tap=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--tap NAME] COMMAND..." >&2; exit 2; }
sysconf=${HERMETIC_SYSCONFDIR:-/usr/local/etc}

# skip REASON: not here
skip() {
	echo "hermetic: SKIP: $1" >&2
	if [ -n "$tap" ]; then
		printf '1..1\nok 1 - %s # SKIP %s\n' "$tap" "$1"
		exit 0
	fi
	exit 77
}

if [ "${HERMETIC_INSIDE:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || skip "needs root for a mount namespace (unshare -m)"
	unshare -m --propagation private true 2> /dev/null ||
		skip "unshare -m is refused here"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/dat-hermetic.XXXXXX") || exit 2
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM HUP
	HERMETIC_MARKER="dat-hermetic-$$-$(date +%s)"
	export HERMETIC_MARKER HERMETIC_TMP="$tmp" HERMETIC_INSIDE=1 HERMETIC_TAP="$tap"
	mkdir -p "$tmp/etc" "$tmp/sysconf/dat.conf.d" "$tmp/w1" "$tmp/w2"
	for f in "$tmp/etc/dat.conf" "$tmp/sysconf/dat.conf.d/00-hostile.conf"; do
		cat > "$f" <<-END
		# $HERMETIC_MARKER: a hostile registry file (test/lib/hermetic.sh);
		# no test may read it
		ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""
		ofa-v2-mlx4_0-1 u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 "mlx4_0 1" ""
		this line is broken
		OpenIB-cma u1.2 nonthreadsafe default /nonexistent/libdaplcma.so.1 dapl.1.2 "ib0 0" ""
		rxe0-cma u1.2 nonthreadsafe default /nonexistent/libdaplcma.so.1 dapl.1.2 "vethA 0" ""
		rxe1-cma u1.2 threadsafe default /nonexistent/libdaplcma.so.1 dapl.1.2 "vethB 0" ""
		ofi-a u1.2 nonthreadsafe default /nonexistent/libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 127.0.0.1" ""
		ofi-tcp u1.2 nonthreadsafe default /nonexistent/libdaplofi.so.1 dapl.1.2 "tcp;ofi_rxm 127.0.0.1" ""
		T1 u1.2 nonthreadsafe default /nonexistent/libdattest.so.1 dapl.1.2 "" ""
		Main u1.2 nonthreadsafe default /nonexistent/libdattest.so.1 dapl.1.2 "" ""
		END
	done
	unshare -m --propagation private "$0" "$@"
	exit $?
fi
tap=$HERMETIC_TAP

# In the namespace: an overlay over each place, else a copy bound over it.
# place DIR UPPER WORK
place() {
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" 2> /dev/null &&
		return 0
	# a copy under the hostile files, which it must not replace
	cp -a -n "$1/." "$2/" 2> /dev/null
	mount --bind "$2" "$1"
}
place /etc "$HERMETIC_TMP/etc" "$HERMETIC_TMP/w1" ||
	skip "no overlay or bind mount over /etc here"
if [ -d "$sysconf" ]; then
	place "$sysconf" "$HERMETIC_TMP/sysconf" "$HERMETIC_TMP/w2" ||
		skip "no overlay or bind mount over $sysconf here"
else
	echo "hermetic: $sysconf does not exist: only /etc/dat.conf is hostile" >&2
fi
grep -qs "$HERMETIC_MARKER" /etc/dat.conf || {
	echo "hermetic: FAIL: /etc/dat.conf is not the hostile one" >&2
	exit 1
}
echo "hermetic: /etc/dat.conf and $sysconf/dat.conf.d/00-hostile.conf are hostile ($HERMETIC_MARKER)" >&2
unset HERMETIC_INSIDE HERMETIC_TMP HERMETIC_TAP
"$@"
