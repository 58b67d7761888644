#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# deps.sh [PACKAGE...]: installs the Debian packages that are missing, as
# root through apt-get.  Without arguments: what building and testing the
# project needs.  Used by the README's two commands, so that they work on
# a fresh Debian 12 machine; the soft-RoCE test bed installs its own
# packages (test/vm/setup.sh).
set -eu

if [ $# -eq 0 ]; then
	set -- make gcc libc6-dev binutils pkg-config bats valgrind strace procps \
		libibverbs-dev librdmacm-dev libfabric-dev libfabric-bin mandoc acl \
		attr python3
fi

missing=""
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
