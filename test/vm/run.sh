#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/run.sh - run one command inside the soft-RoCE test VM.
#
# Usage: test/vm/run.sh [-i SECS] [-t SECS] [-w DIR] [-l LOGFILE] [-n] [-v] -- CMD [ARGS...]
#   -i SECS     the watchdog: once booted, the guest is stopped when its
#               console has been silent this long (default $VM_IDLE_TIMEOUT,
#               else 1800).  A timeout is there to catch a hang, not
#               slowness: a long run that keeps printing (run-suite.sh shows
#               each test's result as it comes) goes on however busy the
#               machine is, and one that stops printing is named (the last
#               console line) instead of being cut off at a fixed total.
#   -t SECS     hard overall limit, setup and boot included (default: none)
#   -w DIR      directory shared read-write, at the same path (default: $PWD)
#   -l LOGFILE  write the whole console log (kernel + command + guest dmesg
#               on failure) to LOGFILE
#   -n          no soft-RoCE devices (just a VM)
#   -v          verbose: kernel messages and boot progress on the output
#
# Boots Debian's kernel under qemu with the host's / shared read-only (plus a
# throw-away tmpfs overlay, so every host binary, library and config is there)
# and DIR read-write; loads rdma_rxe and creates rxe0 (vethA, 10.77.0.1) and
# rxe1 (vethB, 10.77.0.2) over a veth pair; runs CMD (no shell involved) in
# the caller's directory if it is inside DIR, else in DIR, with the caller's
# environment (make's jobserver options removed: its pipe fds do not exist in
# the guest) plus VM_GUEST=1, VM_ACCEL=kvm|tcg and TEST_TIMEOUT_SCALE (1 under
# KVM, 4 under TCG, unless already set: it scales every test timeout).
# CMD's stdout and stderr both arrive on stdout (serial console); its stdin is
# /dev/null.  Files it writes outside DIR are lost at power-off.  The
# guest's /proc/kallsyms reads empty (guest-stage2.sh says why).
# Inside the VM already (VM_GUEST=1) CMD simply runs in place.
#
# Exit status: CMD's own, when the guest ran it.  Otherwise, with one line
# "vm: FAIL: <what>" (naming the kept console log) or "vm: SKIP: <why>" on stderr:
#   77  the VM cannot exist here: not x86_64, or packages missing and not root
#   124 overall timeout         125 setup, boot or guest failure / no report
#   126 soft-RoCE setup failed  130 interrupted (INT/TERM/HUP)  2 usage error
#
# Environment: VMCACHE (see setup.sh); VM_ACCEL=auto|kvm|tcg (default auto:
# KVM only when kvm_intel/kvm_amd backs a writable /dev/kvm; a /dev/kvm from
# e.g. kvm_pvm cannot run a stock kernel); VM_MEM (MiB, default 2048); VM_SMP
# (vCPUs, default nproc, at most 8); VM_BIOS (firmware; default qboot, empty =
# SeaBIOS); VM_BOOT_TIMEOUT (seconds until the guest must be up, default 300);
# VM_RXE_MODULE (soft-RoCE module, default rdma_rxe: a bogus name exercises
# the failure path).
set -u
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2

usage() {
    echo "usage: $0 [-i SECS] [-t SECS] [-w DIR] [-l LOGFILE] [-n] [-v] -- CMD [ARGS...]" >&2
    exit 2
}
# fail CODE MESSAGE: a failure of the test bed (not of CMD)
fail() {
    local code=$1
    shift
    echo "vm: FAIL: $*" >&2
    exit "$code"
}

TMO=0 IDLE=${VM_IDLE_TIMEOUT:-1800} WORK=$PWD LOG='' RXE=1 VERBOSE=0
while getopts i:t:w:l:nvh opt; do
    case $opt in
    i) IDLE=$OPTARG ;;
    t) TMO=$OPTARG ;;
    w) WORK=$OPTARG ;;
    l) LOG=$OPTARG ;;
    n) RXE=0 ;;
    v) VERBOSE=1 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
case $TMO in '' | *[!0-9]*) echo "vm: -t needs a number of seconds" >&2; usage ;; esac
case $IDLE in '' | *[!0-9]* | 0) echo "vm: -i (VM_IDLE_TIMEOUT) needs a positive number of seconds" >&2; usage ;; esac
WORK=$(cd "$WORK" 2> /dev/null && pwd -P) || fail 2 "-w: no such directory: $WORK"
[ "$WORK" != / ] || fail 2 "-w /: the work directory cannot be the whole root"
# the caller's directory if it is inside DIR, else DIR
CWD=$(pwd -P)
case $CWD/ in "$WORK"/*) ;; *) CWD=$WORK ;; esac

if [ "${VM_GUEST:-}" = 1 ]; then
    cd "$CWD" && exec "$@"
    exit 127
fi

[ "$(uname -m)" = x86_64 ] || {
    echo "vm: SKIP: the test VM needs an x86_64 host (this is $(uname -m))" >&2
    exit 77
}
END=$((SECONDS + TMO))
# seconds left of the overall limit; 0 (timeout(1): none) when there is none
remaining() {
    if [ "$TMO" = 0 ]; then echo 0; else echo $((END - SECONDS)); fi
}

# The cache: kernel, initramfs, module tree (setup.sh builds what is missing).
if ! paths=$("$HERE/setup.sh" --check 2> /dev/null); then
    timeout -k 10 "$(remaining)" "$HERE/setup.sh" >&2
    rc=$?
    case $rc in
    0) ;;
    77) exit 77 ;; # setup.sh printed the SKIP line
    124 | 137) fail 124 "timed out after ${TMO}s while running setup.sh" ;;
    *) fail 125 "test/vm/setup.sh failed (exit $rc)" ;;
    esac
    paths=$("$HERE/setup.sh" --check) || fail 125 "setup.sh succeeded but the cache is incomplete"
fi
KERNEL=$(sed -n 's/^kernel //p' <<< "$paths")
INITRD=$(sed -n 's/^initrd //p' <<< "$paths")
KMODS=$(sed -n 's/^modules //p' <<< "$paths")

# Accelerator.  Only a hardware KVM module is trusted: some sandboxes expose a
# /dev/kvm from kvm_pvm, where a stock kernel hangs after "Probing EDD".
kvm_usable() {
    [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
        { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } &&
        grep -qwE 'vmx|svm' /proc/cpuinfo
}
ACCEL=${VM_ACCEL:-auto}
case $ACCEL in
auto) if kvm_usable; then ACCEL=kvm; else ACCEL=tcg; fi ;;
kvm | tcg) ;;
*) fail 2 "VM_ACCEL must be auto, kvm or tcg (not $ACCEL)" ;;
esac
# KCLOCK: under TCG the kernel finds the vCPUs' TSCs "unsynchronized" (its
# check runs too slowly under emulation) and falls back to the HPET, whose
# every read is a system call and an emulated device access: the guest's
# clock_gettime (the engines' timers, bats' timing, every bounded wait)
# cost that much.  TCG's TSC is one host clock for every vCPU, so the
# kernel may trust it: the same suites took 11 % less time and 12 % less
# CPU with it (dto, evd, connect and compat: 199 and 175 s against 175
# and 156 s, in turn; issue 34).  Under KVM the guest uses kvm-clock.
KCLOCK=
if [ "$ACCEL" = kvm ]; then
    QACCEL=(-enable-kvm -cpu host)
    SCALE=1
else
    QACCEL=(-accel "tcg,thread=multi" -cpu max)
    SCALE=4
    KCLOCK=tsc=reliable
fi
SMP=${VM_SMP:-$(nproc)}
MEM=${VM_MEM:-2048}
case $SMP$MEM in *[!0-9]*) fail 2 "VM_SMP and VM_MEM must be numbers" ;; esac
[ "$SMP" -le 8 ] || SMP=8
# qboot (qemu-system-data) is faster than SeaBIOS and prints nothing on the
# serial line; VM_BIOS= (empty) selects qemu's default, SeaBIOS.
BIOS=${VM_BIOS-/usr/share/qemu/qboot.rom}
[ -z "$BIOS" ] || [ -f "$BIOS" ] || BIOS=

# Per-run job directory, shared with the guest (see guest-stage2.sh).
JOB=$(mktemp -d "${TMPDIR:-/tmp}/dat-vm-job.XXXXXX") || fail 125 "mktemp failed"
if [ -n "$LOG" ]; then
    CONSOLE=$LOG
    : > "$CONSOLE" || fail 2 "-l: cannot write $LOG"
else
    CONSOLE=$(mktemp "${TMPDIR:-/tmp}/dat-vm-console.XXXXXX") || fail 125 "mktemp failed"
fi
KEEPLOG=0
QPID='' FPID='' WPID=''
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
    [ -z "$WPID" ] || kill "$WPID" 2> /dev/null
    [ -z "$QPID" ] || kill "$QPID" 2> /dev/null
    rm -rf "$JOB"
    [ "$KEEPLOG" = 1 ] || [ -n "$LOG" ] || rm -f "$CONSOLE"
}
trap cleanup EXIT
trap '{ true >&4; } 2> /dev/null && exec 2>&4; KEEPLOG=1; fail 130 "interrupted (console log: $CONSOLE)"' INT TERM HUP

printf '%s\n' "$WORK" > "$JOB/work"
printf '%s\n' "$CWD" > "$JOB/cwd"
printf '%s\n' "$HERE/guest-stage2.sh" > "$JOB/stage2"
printf '%s\n' "$KMODS" > "$JOB/kmods"
printf '%s\0' "$@" > "$JOB/argv0"
[ "$RXE" = 1 ] || : > "$JOB/norxe"
[ "$VERBOSE" = 0 ] || : > "$JOB/verbose"
[ -z "${VM_RXE_MODULE:-}" ] || printf '%s\n' "$VM_RXE_MODULE" > "$JOB/rxemod"
{
    # make's jobserver pipe fds do not exist in the guest; an inner make keeps
    # the other flags (-jN makes it start its own jobserver)
    env -0 | sed -z -e '/^PWD=/d' -e '/^OLDPWD=/d' \
        -e '/^\(MAKEFLAGS\|MFLAGS\)=/s/ *--jobserver-\(auth\|fds\)=[^ ]*//g'
    [ -n "${TEST_TIMEOUT_SCALE:-}" ] || printf 'TEST_TIMEOUT_SCALE=%s\0' "$SCALE"
    printf 'VM_GUEST=1\0VM_ACCEL=%s\0' "$ACCEL"
} > "$JOB/env0"

# -virtfs option values need commas doubled
vesc() { printf '%s' "${1//,/,,}"; }
# log_buf_len: the kernel witness (kernel-witness.sh) reads a whole suite's
# kernel messages back from the ring buffer after the suite
QUIET="quiet loglevel=1"
[ "$VERBOSE" = 0 ] || QUIET=
Q=(qemu-system-x86_64 "${QACCEL[@]}" -smp "$SMP" -m "$MEM"
    -machine q35 -nographic -no-reboot -nodefaults -serial stdio
    -kernel "$KERNEL" -initrd "$INITRD"
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=$(vesc "$WORK"),mount_tag=work,security_model=none,multidevs=remap"
    -virtfs "local,path=$(vesc "$JOB"),mount_tag=job,security_model=none"
    -append "console=ttyS0 panic=-1 $QUIET mitigations=off $KCLOCK nokaslr log_buf_len=8M rdinit=/init")
[ -z "$BIOS" ] || Q+=(-bios "$BIOS")

left=$(remaining)
[ "$TMO" = 0 ] || [ "$left" -gt 0 ] || fail 124 "timed out after ${TMO}s (nothing left to boot with)"
BOOT_TMO=${VM_BOOT_TIMEOUT:-300}
limits="stopped after ${IDLE}s of silence"
[ "$TMO" = 0 ] || limits="$limits or after ${left}s in all"
echo "vm: booting $(basename "$KERNEL") under $ACCEL, $SMP vCPUs ($limits)" >&2

mkfifo "$JOB/console.fifo" || fail 125 "mkfifo failed"
# --foreground: timeout stays in our process group and exits 128+N when qemu
# dies of signal N (instead of re-raising it, which makes bash print "Aborted")
timeout --foreground -k 5 "$left" "${Q[@]}" < /dev/null > "$JOB/console.fifo" 2>&1 &
QPID=$!
# Console: drop the serial line's \r, keep everything in the log, and show
# everything but our @@ markers (and the kernel's last words) on stdout.
{
    sed -u 's/\r$//' | tee -a "$CONSOLE" |
        sed -u -e '/^@@K /d' -e '/@@VM-/{s/@@VM-[A-Z]*\(=[^@]*\)\{0,1\}@@//;/^$/d;}' \
            -e '/^\[ *[0-9.]*\] reboot: Power down$/d'
} < "$JOB/console.fifo" &
FPID=$!
# The watchdog.  A hung boot (say, a broken accelerator) is caught within
# BOOT_TMO: stage 2 writes "booted" as soon as it starts.  After that the
# guest runs as long as its console keeps growing, and is stopped once it
# has been silent for IDLE seconds.
(
    end=$((SECONDS + BOOT_TMO))
    while [ ! -e "$JOB/booted" ]; do
        kill -0 "$QPID" 2> /dev/null || exit 0
        if [ "$SECONDS" -ge "$end" ]; then
            : > "$JOB/boot-timeout"
            kill "$QPID"
            exit 0
        fi
        sleep 1
    done
    size=-1 heard=$SECONDS
    while kill -0 "$QPID" 2> /dev/null; do
        now=$(stat -c %s "$CONSOLE" 2> /dev/null) || now=-1
        if [ "$now" != "$size" ]; then
            size=$now heard=$SECONDS
        elif [ $((SECONDS - heard)) -ge "$IDLE" ]; then
            : > "$JOB/idle-timeout"
            kill "$QPID"
            exit 0
        fi
        sleep 5
    done
) &
WPID=$!

# bash reports a job killed by a signal ("Aborted" and the whole command
# line) on its stderr while waiting: keep that out, the FAIL line says it all.
exec 4>&2 2> /dev/null
wait "$FPID"
wait "$QPID"
qrc=$?
exec 2>&4 4>&-
QPID=
kill "$WPID" 2> /dev/null
wait "$WPID" 2> /dev/null
WPID=

# The outcome, most reliable source first: the job files, then the last
# console marker (in case the job share broke), then what happened to qemu.
result() {
    local f m
    f=$(head -n 1 "$JOB/fail" 2> /dev/null)
    [ -n "$f" ] || m=$(head -n 1 "$JOB/rc" 2> /dev/null)
    if [ -z "$f" ] && [ -z "$m" ]; then
        m=$(grep -o '@@VM-\(RC\|FAIL\)=[^@]*@@' "$CONSOLE" | tail -n 1)
        case $m in
        @@VM-FAIL=*) f=${m#@@VM-FAIL=} f=${f%@@} m='' ;;
        @@VM-RC=*) m=${m#@@VM-RC=} m=${m%@@} ;;
        esac
    fi
    if [ -n "$f" ]; then
        KEEPLOG=1
        case ${f%% *} in
        126) fail 126 "${f#* } (console log: $CONSOLE)" ;;
        *) fail 125 "${f#* } (console log: $CONSOLE)" ;;
        esac
    fi
    if [ -n "$m" ]; then
        if [ "$m" != 0 ]; then
            KEEPLOG=1
            echo "vm: command exited with status $m (console log with the guest's kernel messages: $CONSOLE)" >&2
        fi
        exit "$m"
    fi
    KEEPLOG=1
    if [ -e "$JOB/boot-timeout" ]; then
        fail 125 "guest did not come up within ${BOOT_TMO}s (accel $ACCEL; console log: $CONSOLE)"
    fi
    m=$(grep -v -e '^@@' -e '^qemu-system' "$CONSOLE" | grep . | tail -n 1 | cut -c1-200)
    if [ -e "$JOB/idle-timeout" ]; then
        fail 124 "stopped: the guest printed nothing for ${IDLE}s (last console line: ${m:-none}; console log: $CONSOLE)"
    fi
    case $qrc in
    124 | 137) fail 124 "timed out after ${TMO}s in all (last console line: ${m:-none}; console log: $CONSOLE)" ;;
    esac
    if [ ! -e "$JOB/booted" ]; then
        fail 125 "guest did not boot (accel $ACCEL, qemu exit $qrc; last console line: ${m:-none}; console log: $CONSOLE)"
    fi
    fail 125 "guest never reported a result (qemu exit $qrc; last console line: ${m:-none}; console log: $CONSOLE)"
}
result
