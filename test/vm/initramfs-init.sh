#!/bin/busybox sh
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=dash
# /init of the test VM's initramfs (see setup.sh, which copies it in).
# The initramfs holds only static busybox and a few modules, and has no
# /bin/sh: hence the #! line (a "#!/bin/sh" here fails with error -2).
#
#   1. insmod virtio / 9p / overlay (setup.sh lists them, in dependency order,
#      in /modules/order);
#   2. mount the host's / (9p tag "hostroot", read-only) with a tmpfs overlay
#      on top, so the guest's root is the host's, but writable and throw-away;
#   3. mount the per-run job directory (9p tag "job") at /vmjob of that root;
#      it names the stage 2 script and the unpacked kernel's module tree;
#   4. bind that module tree onto /lib/modules (the host has none of its own
#      for this kernel) and switch_root to stage 2 (guest-stage2.sh).
# Every failure prints a @@VM-FAIL marker on the console and powers off at
# once, so run.sh reports it within seconds instead of at its timeout.
set -u
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
# The kernel's built-in initramfs normally supplies /dev/console; reopen it
# from devtmpfs so our messages reach the serial console in any case.
exec < /dev/console > /dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys

fail() {
    echo "vm: initramfs: $*"
    echo "@@VM-FAIL=125 initramfs: $*@@"
    poweroff -f
    exit 1 # not reached; if it were, PID 1 exiting panics and qemu exits too
}

while read -r m; do
    insmod "/modules/$m.ko" || fail "insmod $m failed"
done < /modules/order

mkdir -p /lower /upper /newroot
# cache=loose: the host's / does not change under a test run, and this makes
# starting programs from it much faster
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower ||
    fail "cannot mount the host's / (9p tag hostroot)"
mount -t tmpfs -o size=75% tmpfs /upper || fail "cannot mount the tmpfs for the overlay"
mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot ||
    fail "cannot mount the overlay root"
mkdir -p /newroot/vmjob
mount -t 9p -o trans=virtio,version=9p2000.L job /newroot/vmjob ||
    fail "cannot mount the job directory (9p tag job)"
[ -e /newroot/vmjob/verbose ] && echo "vm: [$(cut -d' ' -f1 /proc/uptime)s] initramfs: 9p mounted"

# Paths come from files, not the kernel command line, so they may hold spaces.
read -r STAGE2 < /newroot/vmjob/stage2 || fail "no stage2 in the job directory"
read -r KMODS < /newroot/vmjob/kmods || fail "no kmods in the job directory"
[ -f "/newroot$STAGE2" ] || fail "stage 2 script $STAGE2 not visible in the guest"
[ -d "/lower$KMODS" ] || fail "module tree $KMODS not visible in the guest"
mkdir -p /newroot/lib/modules
mount --bind "/lower$KMODS" /newroot/lib/modules || fail "cannot bind $KMODS onto /lib/modules"

mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
# stage 2 runs under the host's bash, from the host's tree
exec switch_root /newroot /bin/bash "$STAGE2"
