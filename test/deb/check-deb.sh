#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-deb.sh DEB_DIR RESULTS_DIR: make check-deb's steps (see deb.mk):
# the packages (build-debs.sh: built again only when a source changed),
# then the guest.  Debian's own DAT 2.0 packages (libdapl2, dapl2-utils),
# whose files ours must not touch, are fetched with apt-get download (not
# installed on the host: only inside the throw-away guest).
set -u
deb=$1 res=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
rm -rf "$res"
mkdir -p "$res"
if ! test/deb/build-debs.sh "$deb"; then
	printf '1..1\nnot ok 1 - the packages build and are lintian clean (see the output above)\n' > "$res/build.tap"
	exit 0
fi
printf '1..1\nok 1 - dpkg-buildpackage -us -uc -b (host tests) and lintian --fail-on error,warning\n' > "$res/build.tap"
mkdir -p "$deb/dat2"
(cd "$deb/dat2" && apt-get download libdapl2 dapl2-utils) || {
	printf '1..1\nnot ok 1 - apt-get download libdapl2 dapl2-utils\n' > "$res/dat2.tap"
	exit 0
}
log="$top/build/vm-deb-console.log"
test/vm/run.sh -t "${VM_TIMEOUT:-1500}" -w "$top" -l "$log" -- \
	test/lib/run-suite.sh "$res" deb-guest tap env DEB_DIR="$deb" bats --tap --timing test/deb/deb.bats
rc=$?
if [ $rc -eq 77 ]; then
	printf '1..1\nok 1 - guest # SKIP the soft-RoCE guest cannot run on this machine\n' > "$res/guest.tap"
elif [ $rc -ne 0 ] && ! grep -qs '^not ok' "$res"/deb-guest.tap; then
	printf '1..1\nnot ok 1 - soft-RoCE guest failed (exit status %d, console log %s)\n' "$rc" "$log" > "$res/guest.tap"
elif [ ! -s "$res/deb-guest.tap" ]; then
	printf '1..1\nnot ok 1 - soft-RoCE guest ran but recorded no results\n' > "$res/guest.tap"
fi
exit 0
