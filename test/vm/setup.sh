#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test/vm/setup.sh - prepare the soft-RoCE test VM used by test/vm/run.sh.
#
# Usage: test/vm/setup.sh           build whatever is missing (idempotent)
#        test/vm/setup.sh --check   build nothing; exit 0 and print the paths
#                                   ("kernel P", "initrd P", "modules P")
#                                   when everything is in place, else exit 1
#
# What it does, on a Debian 12 x86_64 host:
#   1. installs the host packages the guest needs (the guest runs the host's
#      own binaries over 9p, so they are installed on the host), only those
#      missing; apt-get update only when something is missing;
#   2. downloads Debian's kernel package (linux-image-*-amd64) and unpacks it
#      (it is never installed: this host may not even boot Debian kernels),
#      then runs depmod on the unpacked tree, which ships no modules.dep;
#   3. builds a tiny initramfs: static busybox, initramfs-init.sh as /init and
#      the handful of modules needed to mount the host's / over 9p.
#
# Cache ($VMCACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/dat-rdma-vm):
#   kernel/                 unpacked kernel (+ file kver); never changed once
#                           complete, because running guests read modules from it
#   initrd-<key>.gz         one per version of initramfs-init.sh and kernel
#   lock                    flock(1) lock file serializing builders
# Every piece is built under a .tmp.* name and renamed into place, so a killed
# setup never leaves something that looks complete; leftovers are removed by
# the next run.  Delete the whole directory to start over (e.g. for a newer
# kernel).
#
# Environment: VMCACHE (above); VM_KERNEL_PKG (kernel package to use instead of
# what linux-image-amd64 depends on); VM_LOCK_TIMEOUT (seconds to wait for a
# concurrent setup, default 3600).
#
# Exit status: 0 ready; 77 this host can never run the VM (not x86_64, or
# packages missing and not root), with one line "vm: SKIP: <reason>" on
# stderr; 1 anything else failed, with a line "vm: FAIL: <what>" on stderr.
# All progress output goes to stderr.
set -u

# Bump when the layout or the initramfs recipe changes: it is part of the
# initrd's key, so old caches are rebuilt instead of silently reused.
FORMAT=1
PKGS="qemu-system-x86 busybox-static kmod iproute2 rdma-core ibverbs-providers
ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev bats"
# Modules /init loads before it can mount anything (their dependencies are
# added by modprobe --show-depends).
INITRD_MODULES="virtio_pci 9pnet_virtio 9p overlay"

HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
VMCACHE=${VMCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dat-rdma-vm}
CHECK=
case ${1:-} in
--check) CHECK=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

say() { echo "vm-setup: $*" >&2; }
die() { echo "vm: FAIL: setup: $*" >&2; exit 1; }
skip() { echo "vm: SKIP: $*" >&2; exit 77; }

# Packages from $PKGS that are not installed, space separated (one dpkg-query
# call: this runs on every run.sh, so it must stay cheap).
missing_pkgs() {
    # shellcheck disable=SC2086 # $PKGS is a word list
    inst=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null |
        awk '$1 == "ii" { printf " %s ", $2 }')
    for p in $PKGS; do
        case $inst in *" $p "*) ;; *) printf '%s ' "$p" ;; esac
    done
}

initrd_key() {
    # kernel version + this recipe + the exact /init that goes in
    crc=$(cksum < "$HERE/initramfs-init.sh" | cut -d' ' -f1)
    echo "f$FORMAT-$1-$crc"
}

# Succeeds (printing the paths run.sh needs) when nothing is left to do.
ready() {
    [ -z "$(missing_pkgs)" ] || return 1
    [ -f "$VMCACHE/kernel/kver" ] || return 1
    kv=$(cat "$VMCACHE/kernel/kver") || return 1
    [ -f "$VMCACHE/kernel/boot/vmlinuz-$kv" ] || return 1
    [ -f "$VMCACHE/kernel/lib/modules/$kv/modules.dep" ] || return 1
    initrd="$VMCACHE/initrd-$(initrd_key "$kv").gz"
    [ -f "$initrd" ] || return 1
    printf 'kernel %s\ninitrd %s\nmodules %s\n' \
        "$VMCACHE/kernel/boot/vmlinuz-$kv" "$initrd" "$VMCACHE/kernel/lib/modules"
}

[ "$(uname -m)" = x86_64 ] ||
    skip "the test VM needs an x86_64 host (this is $(uname -m))"

if [ -n "$CHECK" ]; then
    ready
    exit
fi
# A warm cache: nothing to do, and no lock needed (complete pieces never change).
if ready > /dev/null; then
    say "cache complete: $VMCACHE"
    exit 0
fi

mkdir -p "$VMCACHE" || die "cannot create $VMCACHE"
# One builder at a time: a second setup (or run.sh) waits here and then finds
# everything done by the first.
exec 9>> "$VMCACHE/lock" || die "cannot open $VMCACHE/lock"
if ! flock -n 9; then
    say "waiting for another setup.sh to finish (lock $VMCACHE/lock)"
    flock -w "${VM_LOCK_TIMEOUT:-3600}" 9 || die "gave up waiting for $VMCACHE/lock"
fi
if ready > /dev/null; then
    say "cache completed by a concurrent setup: $VMCACHE"
    exit 0
fi

# We hold the lock, so any .tmp.* is debris of a killed run.
rm -rf "$VMCACHE"/.tmp.*
TMPD=
trap 'rm -rf "$TMPD"' EXIT
trap 'exit 130' INT TERM HUP

UPDATED=
apt_update() {
    [ -n "$UPDATED" ] && return 0
    say "apt-get update"
    apt-get update -q >&2 9>&- || die "apt-get update failed"
    UPDATED=1
}

# 1. host packages
missing=$(missing_pkgs)
if [ -n "$missing" ]; then
    [ "$(id -u)" = 0 ] ||
        skip "packages missing (${missing% }) and not root to install them"
    command -v apt-get > /dev/null || die "apt-get not found; install by hand: $missing"
    apt_update
    say "installing $missing"
    # shellcheck disable=SC2086 # word list
    # (9>&-: a daemon some postinst starts must not inherit, and hold, our lock)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $missing >&2 9>&- || die "apt-get install $missing failed"
    missing=$(missing_pkgs)
    [ -z "$missing" ] || die "still missing after apt-get install: $missing"
fi

# 2. kernel
if [ ! -f "$VMCACHE/kernel/kver" ]; then
    # the kernel package linux-image-amd64 currently points at
    resolve() {
        apt-cache depends linux-image-amd64 2> /dev/null |
            sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
    }
    kpkg=${VM_KERNEL_PKG:-}
    if [ -z "$kpkg" ]; then
        kpkg=$(resolve)
        # a fresh image may have no package lists yet
        if [ -z "$kpkg" ] && [ "$(id -u)" = 0 ]; then apt_update; kpkg=$(resolve); fi
        [ -n "$kpkg" ] || die "cannot resolve linux-image-amd64 to a kernel package (apt-cache depends linux-image-amd64)"
    fi
    TMPD=$(mktemp -d "$VMCACHE/.tmp.kernel.XXXXXX") || die "mktemp in $VMCACHE failed"
    say "downloading $kpkg"
    # As root apt drops to user _apt for downloads, which cannot write into a
    # private directory (it would warn and go on unsandboxed anyway).
    sandbox=
    [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
    # shellcheck disable=SC2086 # $sandbox is empty or two words
    if ! (cd "$TMPD" && apt-get download -q $sandbox "$kpkg") >&2; then
        # stale package lists name a version the archive no longer has
        if [ "$(id -u)" != 0 ] || [ -n "$UPDATED" ]; then die "apt-get download $kpkg failed"; fi
        apt_update
        [ -n "${VM_KERNEL_PKG:-}" ] || kpkg=$(resolve)
        say "downloading $kpkg"
        (cd "$TMPD" && apt-get download -q $sandbox "$kpkg") >&2 ||
            die "apt-get download $kpkg failed"
    fi
    deb=$(ls "$TMPD"/*.deb) || die "no .deb after apt-get download $kpkg"
    say "unpacking $(basename "$deb")"
    dpkg-deb -x "$deb" "$TMPD/k" || die "dpkg-deb -x $deb failed"
    rm -f "$deb"
    rm -rf "$TMPD/k/usr/share/doc"
    kv=$(ls "$TMPD/k/lib/modules")
    if [ -z "$kv" ] || [ ! -f "$TMPD/k/boot/vmlinuz-$kv" ]; then
        die "$kpkg does not contain boot/vmlinuz-<ver> and lib/modules/<ver>"
    fi
    depmod -b "$TMPD/k" "$kv" || die "depmod -b $TMPD/k $kv failed"
    echo "$kv" > "$TMPD/k/kver" || die "cannot write kver"
    # rename(2): kernel/ appears complete or not at all
    mv -T "$TMPD/k" "$VMCACHE/kernel" || die "cannot rename the kernel tree into $VMCACHE/kernel"
    rm -rf "$TMPD"
    TMPD=
fi
kv=$(cat "$VMCACHE/kernel/kver")
K="$VMCACHE/kernel"

# 3. initramfs
initrd="$VMCACHE/initrd-$(initrd_key "$kv").gz"
if [ ! -f "$initrd" ]; then
    say "building $(basename "$initrd")"
    TMPD=$(mktemp -d "$VMCACHE/.tmp.initrd.XXXXXX") || die "mktemp in $VMCACHE failed"
    IR="$TMPD/root"
    mkdir -p "$IR/bin" "$IR/modules" "$IR/proc" "$IR/sys" "$IR/dev" "$IR/newroot" || die "mkdir in $IR failed"
    cp /bin/busybox "$IR/bin/busybox" || die "no /bin/busybox (busybox-static)"
    if ! cp "$HERE/initramfs-init.sh" "$IR/init" || ! chmod 755 "$IR/init"; then
        die "cannot copy initramfs-init.sh"
    fi
    : > "$IR/modules/order"
    : > "$TMPD/deps"
    # shellcheck disable=SC2086 # word list
    for m in $INITRD_MODULES; do
        modprobe -d "$K" -S "$kv" --show-depends "$m" >> "$TMPD/deps" ||
            die "modprobe --show-depends $m failed for kernel $kv"
    done
    sed -n -E 's/^insmod (.*\.ko(\.xz|\.zst|\.gz)?)( .*)?$/\1/p' "$TMPD/deps" > "$TMPD/kos"
    [ -s "$TMPD/kos" ] || die "no modules found for: $INITRD_MODULES"
    # in dependency order, each once; busybox insmod wants plain .ko files
    awk '!seen[$0]++' "$TMPD/kos" | while IFS= read -r ko; do
        n=$(basename "$ko"); n=${n%%.ko*}
        case $ko in
        *.ko) cp "$ko" "$IR/modules/$n.ko" ;;
        *.ko.xz) xz -dc "$ko" > "$IR/modules/$n.ko" ;;
        *.ko.zst) zstd -qdc "$ko" > "$IR/modules/$n.ko" ;;
        *.ko.gz) gzip -dc "$ko" > "$IR/modules/$n.ko" ;;
        esac || exit 1
        echo "$n" >> "$IR/modules/order"
    done || die "cannot copy the initramfs modules"
    (cd "$IR" && find . | busybox cpio -o -H newc 2> /dev/null | gzip -9) > "$TMPD/initrd.gz" ||
        die "cannot build the initramfs archive"
    mv "$TMPD/initrd.gz" "$initrd" || die "cannot rename the initramfs into $initrd"
    rm -rf "$TMPD"
    TMPD=
    # Keep a few older initrds: another checkout sharing this cache may still
    # use one (they are ~1.5 MB each).
    # shellcheck disable=SC2012 # our own file names, no odd characters
    ls -t "$VMCACHE"/initrd-*.gz | tail -n +5 | while IFS= read -r old; do rm -f "$old"; done
fi

ready > /dev/null || die "cache still incomplete after building (bug in setup.sh)"
say "ready: kernel $kv in $VMCACHE"
