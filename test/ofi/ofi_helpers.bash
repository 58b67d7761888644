# SPDX-License-Identifier: BSD-3-Clause
# Shared setup of the libfabric suites (test/ofi/*.bats), run natively by
# make check-ofi: the DAT suites' programs (test/verbs) over libdaplofi.so.1
# on tcp;ofi_rxm, a server on IA ofi-a (127.0.0.1) and a client on ofi-b
# (127.0.0.2), from test/ofi/dat.conf.  verbs_helpers.bash's functions
# (start_server, wait_listening, pair, ...) are transport-neutral and used
# as they are.
#
# No fixed ports: servers take a free qualifier (PSP_any) or one that
# free_qual found free, so that runs of several developers at once on
# this host do not collide.

OFI_TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
export DAT_OVERRIDE="$OFI_TOP/test/ofi/dat.conf"
export DATTEST_SERVER_IA=ofi-a DATTEST_CLIENT_IA=ofi-b
export DATTEST_SERVER_ADDR=127.0.0.1 DATTEST_CLIENT_ADDR=127.0.0.2
load ../verbs/verbs_helpers

ofi_setup_file() {
	case $SCALE in
	'' | *[!0-9]* | 0)
		echo "TEST_TIMEOUT_SCALE must be a positive integer (is '$SCALE')" >&2
		return 1
		;;
	esac
	if [ ! -e "$TOP/build/lib/libdaplofi.so.1" ] || [ ! -x "$VT" ]; then
		echo "the provider or $VT is missing: make test-programs" >&2
		return 1
	fi
	if ! fi_info -p 'tcp;ofi_rxm' -t FI_EP_RDM > /dev/null 2>&1; then
		echo "libfabric has no tcp;ofi_rxm here (scripts/deps.sh installs libfabric-bin)" >&2
		return 1
	fi
}

# free_qual: a qualifier whose port (the qualifier itself, below 65536) is
# free on 127.0.0.1 right now: the kernel's pick
free_qual() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# fi_field NAME: the first "NAME: value" of fi_info -v for tcp;ofi_rxm
fi_field() {
	fi_info -p 'tcp;ofi_rxm' -t FI_EP_RDM -v |
		sed -n "s/^[[:space:]]*$1:[[:space:]]*\([0-9]*\).*/\1/p" | head -n 1
}
