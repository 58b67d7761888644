# SPDX-License-Identifier: BSD-3-Clause
# Shared setup of the libfabric suites (test/ofi/*.bats), run natively by
# make check-ofi: the DAT suites' programs (test/verbs) over libdaplofi.so.1
# on tcp;ofi_rxm or shm (OFI_FABRIC), a server on IA ofi-a (127.0.0.1) and
# a client on ofi-b (127.0.0.2), or ofi-shm-a and ofi-shm-b, from
# test/ofi/dat.conf.  verbs_helpers.bash's functions
# (start_server, wait_listening, pair, ...) are transport-neutral and used
# as they are.
#
# No fixed ports: servers take a free qualifier (PSP_any) or one that
# free_qual found free, so that runs of several developers at once on
# this host do not collide.

OFI_TOP="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
export DAT_OVERRIDE="$OFI_TOP/test/ofi/dat.conf"
# The fabric (make check-ofi runs every suite on each): OFI_FABRIC=tcp,
# libfabric's tcp;ofi_rxm, IAs ofi-a and ofi-b; OFI_FABRIC=shm, its shm,
# IAs ofi-shm-a and ofi-shm-b; OFI_FABRIC=tcpmsg, libfabric's tcp alone,
# whose FI_EP_MSG connections the provider uses (providers/ofi/msg.c), IAs
# ofi-msg-a and ofi-msg-b.  Test names begin with the fabric.
OFI_FABRIC=${OFI_FABRIC:-tcp}
# OFI_FABRIC=verbs, only inside the soft-RoCE guest (make check-verbs):
# libfabric's verbs;ofi_rxm on rxe0 (10.77.0.1) and rxe1 (10.77.0.2),
# IAs ofi-verbs-a and ofi-verbs-b of test/ofi/dat-verbs.conf.  The suites
# name the IA addresses DATTEST_SERVER_ADDR and DATTEST_CLIENT_ADDR.
OFI_EP_TYPE=FI_EP_RDM OFI_ATOMICS=1
case $OFI_FABRIC in
tcp) OFI_PROV='tcp;ofi_rxm' OFI_A=ofi-a OFI_B=ofi-b ;;
shm) OFI_PROV=shm OFI_A=ofi-shm-a OFI_B=ofi-shm-b ;;
tcpmsg) OFI_PROV=tcp OFI_A=ofi-msg-a OFI_B=ofi-msg-b OFI_EP_TYPE=FI_EP_MSG OFI_ATOMICS=0 ;;
verbs) OFI_PROV='verbs;ofi_rxm' OFI_A=ofi-verbs-a OFI_B=ofi-verbs-b ;;
rxd) OFI_PROV='udp;ofi_rxd' OFI_A=ofi-rxd-a OFI_B=ofi-rxd-b ;;
netrxm) OFI_PROV='net;ofi_rxm' OFI_A=ofi-netrxm-a OFI_B=ofi-netrxm-b ;;
net) OFI_PROV=net OFI_A=ofi-net-a OFI_B=ofi-net-b OFI_EP_TYPE=FI_EP_MSG OFI_ATOMICS=0 ;;
*) OFI_PROV=unknown OFI_A=unknown OFI_B=unknown ;;
esac
# OFI_ATOMICS=0: the IA has no atomics (dat_ia_query says FALSE)
# OFI_NOLISTENER: how a connect to a port nobody listens on ends.  Where
# the fabric cannot tell "nobody there" from "no answer yet" (verbs:
# rxm retries what rdma_cm refused, and no TCP probe reaches an rdma_cm
# port; rxd: datagrams over UDP), the DAT timeout ends it: TIMED_OUT.
# Elsewhere our TCP probe (tcp, net under rxm: providers/ofi/rdm.c), the
# refused TCP connect (tcp, net MSG) or the missing name (shm) says it:
# NON_PEER_REJECTED.
case $OFI_FABRIC in
verbs | rxd) OFI_NOLISTENER=TIMED_OUT ;;
*) OFI_NOLISTENER=NON_PEER_REJECTED ;;
esac
export OFI_FABRIC OFI_PROV OFI_A OFI_B OFI_EP_TYPE OFI_ATOMICS OFI_NOLISTENER
export DATTEST_SERVER_IA=$OFI_A DATTEST_CLIENT_IA=$OFI_B
if [ "$OFI_FABRIC" = verbs ]; then
	export DATTEST_SERVER_ADDR=10.77.0.1 DATTEST_CLIENT_ADDR=10.77.0.2
	export DAT_OVERRIDE="$OFI_TOP/test/ofi/dat-verbs.conf"
else
	export DATTEST_SERVER_ADDR=127.0.0.1 DATTEST_CLIENT_ADDR=127.0.0.2
fi
load ../verbs/verbs_helpers

# valgrind's suppressions (memcheck_helpers.bash, badinput.bats): the
# one-time constructor allocations of libfabric's dependencies, and over
# verbs rdma-core's own globals and one report inside rdma_accept, reached
# through libfabric (each file says why none of it is ours)
OFI_VG_SUPP=(--suppressions="$OFI_TOP/test/ofi/libfabric.supp")
if [ "$OFI_FABRIC" = verbs ]; then
	OFI_VG_SUPP+=(--suppressions="$OFI_TOP/test/ofi/libfabric-verbs.supp")
fi

ofi_setup_file() {
	case $SCALE in
	'' | *[!0-9]* | 0)
		echo "TEST_TIMEOUT_SCALE must be a positive integer (is '$SCALE')" >&2
		return 1
		;;
	esac
	if [ ! -e "$TOP/build/lib/libdaplofi.so.1" ] || [ ! -x "$VT" ] ||
		[ ! -x "$QT" ]; then
		echo "the provider, $VT or $QT is missing: make test-programs" >&2
		return 1
	fi
	if [ "$OFI_PROV" = unknown ]; then
		echo "OFI_FABRIC must be tcp, shm, tcpmsg or verbs (is '$OFI_FABRIC')" >&2
		return 1
	fi
	# once a bats run: suites grouped in one process (the guest's,
	# test/lib/check-verbs.sh GROUP=) ask it once (fi_info takes 1 to 4
	# s there)
	local seen="${BATS_RUN_TMPDIR:-}/fi_info-$OFI_FABRIC"
	[ -z "${BATS_RUN_TMPDIR:-}" ] || [ ! -e "$seen" ] || return 0
	if ! fi_info -p "$OFI_PROV" -t "$OFI_EP_TYPE" > /dev/null 2>&1; then
		echo "libfabric has no $OFI_PROV here (scripts/deps.sh installs libfabric-bin)" >&2
		return 1
	fi
	[ -z "${BATS_RUN_TMPDIR:-}" ] || : > "$seen"
}

# shm_clean PID: the shm regions a process killed with SIGKILL left in
# /dev/shm (shm names them <pid>:<uid>:<n>; a listener's region, named
# dat-<IP>-<port>, is found by the qualifier: shm_clean_qual)
shm_clean() {
	[ "$OFI_FABRIC" = shm ] && [ -n "$1" ] || return 0
	rm -f /dev/shm/"$1":[0-9]*:[0-9]*
}
shm_clean_qual() {
	[ "$OFI_FABRIC" = shm ] && [ -n "$1" ] || return 0
	rm -f /dev/shm/dat-127.0.0.[12]-"$1"
}

# free_qual: a qualifier whose port (the qualifier itself, in 1024..32767:
# providers/ofi/addr.c) is
# free on 127.0.0.1 and 127.0.0.2 right now, and no shm listener's name:
# a random one in 10000-19999, below the kernel's ephemeral ports
# (ip_local_port_range, 32768 up here), so that no socket another test
# opens meanwhile (make check runs the fabrics' lanes side by side) can
# be given it before the test's listener binds it; below planted.bats's
# 20000 up, too.
free_qual() {
	python3 -c 'import os, random, socket
for _ in range(1000):
    q = random.randrange(10000, 20000)
    if any(os.path.lexists("/dev/shm/dat-127.0.0.%d-%d" % (h, q)) for h in (1, 2)):
        continue
    try:
        for h in ("127.0.0.1", "127.0.0.2"):
            with socket.socket() as s:
                s.bind((h, q))
    except OSError:
        continue
    print(q)
    break
else:
    raise SystemExit("free_qual: no free port in 10000-19999")'
}

# fi_field NAME: the first "NAME: value" of fi_info -v for the fabric
fi_field() {
	fi_info -p "$OFI_PROV" -t "$OFI_EP_TYPE" -v |
		sed -n "s/^[[:space:]]*$1:[[:space:]]*\([0-9]*\).*/\1/p" | head -n 1
}

# passive_pair TEST N: dattest-verbs' TEST with a server that calls
# nothing of DAT until "report N" arrives on its standard input (a FIFO),
# and a client run (bats' run) with -n N between; then the report sent
# and the server waited for ($SRV_OUT, $SRV_RC).  passive.bats,
# atomic.bats.
passive_pair() {
	local t=$1 n=$2 fifo=$BATS_TEST_TMPDIR/report
	mkfifo "$fifo"
	# read-write, so that neither the server's open nor ours blocks
	exec 5<> "$fifo"
	"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" "$t" server \
		< "$fifo" > "$SRV_OUT" 2>&1 3>&- 5>&- &
	SRV_PID=$!
	wait_listening
	run_client "$t" -q "$QUAL" -n "$n"
	echo "report $n" >&5
	exec 5>&-
	wait_server
}
