#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build-debs.sh OUTDIR: the Debian packages of this tree, as a distribution
# would build them: dpkg-buildpackage -us -uc -b in a copy of the sources
# (the tracked and new files, not build/: debian/rules clean must not touch
# the working tree's build), then lintian at its default level, failing on
# any error or warning (an override would go in debian/*.lintian-overrides
# with its reason; there is none).  The .deb files land in OUTDIR.
#
# Like make, it does nothing when OUTDIR already holds the packages of
# exactly these sources (a hash of every file copied), built and lintian
# clean: make debs outside the guest lock, then make check-deb under it.
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)

# the files a build copies: what a commit of the working tree would hold
# (git ls-files -co); a tarball has no .git: everything but build/
list() {
	if [ -e "$top/.git" ]; then
		(cd "$top" && git ls-files -co --exclude-standard | sort)
	else
		(cd "$top" && find . -type f ! -path './build/*' | sed 's|^\./||' | sort)
	fi
}
sum=$(cd "$top" && list | tr '\n' '\0' | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -f "$out/lintian-clean" ] && [ "$(cat "$out/lintian-clean")" = "$sum" ]; then
	echo "build-debs: $out holds the packages of these sources, built and lintian clean"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/src"
(cd "$top" && list | tr '\n' '\0' | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$out/src"
cd "$out/src"
dpkg-buildpackage -us -uc -b
cd "$out"
ls -1 ./*.deb
lintian --fail-on error,warning --info ./*.changes
echo "$sum" > "$out/lintian-clean"
echo "build-debs: packages built, lintian clean"
