# SPDX-License-Identifier: BSD-3-Clause
# test/deb/deb.mk - make check-deb (included by the Makefile; long, not
# part of make check): the Debian packages built from this tree
# (dpkg-buildpackage -us -uc -b in a copy, host tests only, then lintian),
# installed with dpkg -i in the soft-RoCE guest beside Debian's DAT 2.0
# packages, an IA opened through the installed files with the installed
# dapltest1, purged, and nothing of ours left; then make install into the
# guest's system (no DESTDIR) and the installed dapltest1 without a manual
# ldconfig.  The guest's root is a throw-away overlay.

#
# make debs builds (or finds up to date) the packages alone, on the host:
# run it first, then flock /tmp/dat-guest.lock make check-deb, so that the
# guest lock is not held through a package build.  Their build-time needs
# and lintian come from Debian through scripts/deps.sh.
DEB_OUT := $(B)/deb
.PHONY: debs check-deb
debs: all
	sh scripts/deps.sh
	sh scripts/deps.sh debhelper lintian dpkg-dev fakeroot
	test/deb/build-debs.sh "$(CURDIR)/$(DEB_OUT)"

check-deb: debs
	test/deb/check-deb.sh "$(CURDIR)/$(DEB_OUT)" "$(CURDIR)/$(RESULTS)/deb"
	test/lib/summary.sh $(RESULTS)/deb
