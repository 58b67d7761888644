#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build-debs.sh OUTDIR: the Debian packages of this tree, as a distribution
# would build them: dpkg-buildpackage -us -uc -b in a copy of the sources
# (the tracked and new files, not build/: debian/rules clean must not touch
# the working tree's build), then lintian at its default level, failing on
# any error or warning (overrides are in debian/*.lintian-overrides, each
# with its reason).  The .deb files land in OUTDIR.
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out/src"
# git ls-files -co: tracked and untracked-but-not-ignored, i.e. what a
# commit of the working tree would hold; a tarball has no .git: find
if [ -e "$top/.git" ]; then
	(cd "$top" && git ls-files -co --exclude-standard -z |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$out/src"
else
	(cd "$top" && tar -cf - --exclude=./build .) | tar -xf - -C "$out/src"
fi
cd "$out/src"
dpkg-buildpackage -us -uc -b
cd "$out"
ls -1 ./*.deb
lintian --fail-on error,warning --info ./*.changes
echo "build-debs: packages built, lintian clean"
