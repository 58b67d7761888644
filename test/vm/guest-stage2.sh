#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/guest-stage2.sh - PID 1 of the test VM after switch_root.
#
# Runs inside the guest, under the host's own bash, on a writable overlay of
# the host's root.  The job directory (written by run.sh, 9p tag "job") is at
# /vmjob and holds:
#   work      host directory to mount read-write at the same path (9p "work")
#   cwd       directory to run the command in
#   argv0     the command, NUL-separated
#   env0      its environment (NAME=value, NUL-separated)
#   norxe     (optional) do not set up soft-RoCE
#   rxemod    (optional) name of the soft-RoCE module (default rdma_rxe)
#   verbose   (optional) print progress with guest uptimes
# and receives:
#   booted    written first thing, so run.sh knows the guest came up
#   rc        the command's exit status
#   fail      "CODE reason" when the test bed itself failed (125: boot or
#             mount, 126: soft-RoCE setup); the command did not run then
# The same results also go to the console as @@VM-RC=n@@ / @@VM-FAIL=...@@
# markers, in case the job share is what broke.  Then the guest powers off.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
JOB=/vmjob
VERBOSE=0
[ -e "$JOB/verbose" ] && VERBOSE=1

trace() {
    if [ "$VERBOSE" = 1 ]; then echo "vm: [$(cut -d' ' -f1 /proc/uptime)s] $*"; fi
}

power_off() {
    sync
    # reboot(2) via static busybox is synchronous and never returns; qemu then
    # exits.  (sysrq "o" is asynchronous: the script would run on into 9p
    # mounts being torn down.)  Fallbacks only spin in builtins.
    busybox poweroff -f
    echo o > /proc/sysrq-trigger
    while :; do :; done
}

# fail CODE MESSAGE: the test bed is broken; report and stop right away.
fail() {
    local code=$1 msg
    shift
    msg="$*"
    msg=${msg//$'\n'/ }
    echo "vm: guest: $msg"
    echo "$code $msg" > "$JOB/fail"
    echo "@@VM-FAIL=$code $msg@@"
    power_off
}

# must CMD...: run a setup step; on failure report it with its output (126).
must() {
    local out
    out=$("$@" 2>&1) || fail 126 "soft-RoCE setup: '$*' failed: $out"
}

# sysctl without procps (not on every host): NAME VALUE
setsys() {
    echo "$2" > "/proc/sys/${1//.//}" || fail 126 "soft-RoCE setup: cannot set $1=$2"
}

trace "stage 2 started"
# / is host / plus a tmpfs overlay, so /tmp is already writable (and shows the
# host's /tmp); /run gets a fresh tmpfs so no host runtime state leaks in.
mount -t tmpfs -o mode=755 tmpfs /run || fail 125 "cannot mount /run"
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts || fail 125 "cannot mount /dev/pts"
mount -t tmpfs tmpfs /dev/shm || fail 125 "cannot mount /dev/shm"
# devtmpfs has no /dev/fd & co; many scripts use them
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
echo booted > "$JOB/booted"
# the serial line would turn every \n into \r\n on the host's side
stty -onlcr 2> /dev/null
echo dat-vm > /proc/sys/kernel/hostname
ip link set lo up || fail 125 "cannot bring up lo"
# registering memory pins it
ulimit -l unlimited

read -r WORK < "$JOB/work" || fail 125 "no work directory named in the job"
mkdir -p "$WORK"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 work "$WORK" ||
    fail 125 "cannot mount the work directory $WORK (9p tag work)"
trace "work directory $WORK mounted"

if [ ! -e "$JOB/norxe" ]; then
    RXEMOD=rdma_rxe
    [ -s "$JOB/rxemod" ] && read -r RXEMOD < "$JOB/rxemod"
    for m in ib_uverbs rdma_ucm "$RXEMOD" veth; do must modprobe "$m"; done
    trace "modules loaded"

    # Two soft-RoCE devices on the two ends of one veth pair, both in the root
    # network namespace: rxe (6.1) is not netns-aware, its UDP socket (port
    # 4791) lives in init_net only, so an rxe on a veth moved into another
    # namespace never receives anything.
    must ip link add vethA type veth peer name vethB
    must ip addr add 10.77.0.1/24 dev vethA
    must ip addr add 10.77.0.2/24 dev vethB
    must ip link set vethA mtu 4500 up
    must ip link set vethB mtu 4500 up
    # Both addresses are local, so by default the kernel would deliver
    # 10.77.0.1 <-> 10.77.0.2 over lo, and rxe0 <-> rxe1 connections fail
    # ("Failed to modify QP to RTR", rdma_cm ADDR_ERROR -110).  Policy routing
    # sends locally generated traffic for the peer address out of the matching
    # veth; accept_local + no rp_filter let the other end take a packet whose
    # source is one of our own addresses; arp_ignore/arp_filter keep each
    # address answered on its own veth only.
    for i in all vethA vethB; do
        setsys "net.ipv4.conf.$i.accept_local" 1
        setsys "net.ipv4.conf.$i.rp_filter" 0
    done
    setsys net.ipv4.conf.all.arp_ignore 1
    setsys net.ipv4.conf.all.arp_filter 1
    must ip rule add pref 10 iif lo to 10.77.0.2 lookup 100
    must ip rule add pref 11 iif lo to 10.77.0.1 lookup 101
    must ip route add 10.77.0.2 dev vethA src 10.77.0.1 table 100
    must ip route add 10.77.0.1 dev vethB src 10.77.0.2 table 101
    # the local table must come after our rules, not before (pref 0)
    must ip rule add pref 100 lookup local
    must ip rule del pref 0
    trace "veth and routing ready"
    must rdma link add rxe0 type rxe netdev vethA
    must rdma link add rxe1 type rxe netdev vethB

    # The port goes ACTIVE and the RoCE v2 GID (index 1, ::ffff:10.77.0.x) is
    # filled in asynchronously; tests rely on both, so wait here (bounded).
    for d in rxe0:0001 rxe1:0002; do
        dev=${d%:*}
        want="0000:0000:0000:0000:0000:ffff:0a4d:${d#*:}"
        p=/sys/class/infiniband/$dev/ports/1
        end=$((SECONDS + 20))
        until grep -q ACTIVE "$p/state" 2> /dev/null &&
            [ "$(cat "$p/gids/1" 2> /dev/null)" = "$want" ]; do
            [ "$SECONDS" -lt "$end" ] ||
                fail 126 "soft-RoCE setup: $dev not ACTIVE with GID[1] $want after 20s (state: $(cat "$p/state" 2>&1), gid 1: $(cat "$p/gids/1" 2>&1))"
            sleep 0.1
        done
    done
    trace "rxe0 and rxe1 ready"
fi

# /proc/kallsyms reads empty here.  libfabric 1.17's verbs provider reads
# the whole of it twice when a process first calls fi_getinfo (it looks
# for ib_umem_dmabuf_get: DMA-buf registrations, which nothing here uses
# and rxe does not offer), whatever provider the process asked for: under
# emulation that took 2 to 3 s of CPU for every process that loads
# libfabric (fi_info -p tcp: 4.8 to 7.2 s, 2.6 s without it; issue 34).
# Nothing else here reads it: the kernel witness reads dmesg, whose
# reports the kernel symbolizes itself.
if ! mount --bind /dev/null /proc/kallsyms 2> /dev/null; then
    trace "cannot hide /proc/kallsyms: libfabric reads it at every start"
fi

# libibverbs here loads only rxe's driver.  Finding devices it has no
# driver for yet, it loads every driver /etc/libibverbs.d names (17 on
# Debian 12, each a library with its own dependencies) in each process
# that opens one, although rxe0 and rxe1 need only rxe's: about 0.2 s of
# emulated CPU per verbs process, measured in a boot beside a make check
# (issue 34).  The host's directory stays as it is (a bind mount here).
IBVD=/run/dattest-libibverbs.d
if [ -f /etc/libibverbs.d/rxe.driver ] && mkdir -p "$IBVD" &&
    cp /etc/libibverbs.d/rxe.driver "$IBVD/" &&
    mount --bind "$IBVD" /etc/libibverbs.d 2> /dev/null; then
    trace "libibverbs loads rxe's driver only"
else
    trace "cannot narrow /etc/libibverbs.d: every driver loads"
fi
read -r CWD < "$JOB/cwd" || fail 125 "no cwd in the job"
cd "$CWD" || fail 125 "cannot cd to $CWD"
if [ ! -f "$JOB/env0" ] || [ ! -f "$JOB/argv0" ]; then fail 125 "job has no env0/argv0"; fi
mapfile -d '' -t ENVS < "$JOB/env0"
mapfile -d '' -t ARGV < "$JOB/argv0"
trace "running: ${ARGV[*]}"
# exactly the caller's environment (run.sh already added VM_GUEST etc.)
env -i "${ENVS[@]}" "${ARGV[@]}" < /dev/null
rc=$?
trace "command exited with status $rc"
if [ "$rc" != 0 ]; then
    # the kernel's messages go to the console log only (run.sh keeps them out
    # of the output): they tell rxe retries and errors apart
    echo "@@VM-DMESG@@"
    dmesg | sed 's/^/@@K /'
fi
echo "$rc" > "$JOB/rc"
echo "@@VM-RC=$rc@@"
power_off
