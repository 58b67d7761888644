/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host unit test of providers/ofi/keytab.c, the shm key table peers map:
 * a published key is found through a view with its privileges and range,
 * an unlisted or withdrawn one is not, a second key for a taken slot is
 * not listed; a view opens only on a sealed table with the nonce the
 * connection named; busy marks are seen through a view and every one can
 * be taken; and another process (a child, through /proc/PID/fd) reads the
 * table as a peer does.  No libfabric call is made.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../../providers/ofi/ofi.h"
#include "../../providers/ofi/keytab.h"
#include "tap.h"

#define K1 0x9e3779b9u
#define SLOTS 1024u /* keytab.c KEYTAB_SLOTS: K1 + SLOTS shares K1's slot */

int main(void)
{
	struct ofi_keytab *t = ofi_keytab_open();
	struct ofi_keytab_view *v, *bad;
	uint64_t fd, nonce, base, len;
	uint32_t perm;
	int busy[65], i, n, st, other;
	pid_t child;

	if (!tap_ok(t != NULL, "a table opens (a sealed memfd)"))
		return tap_done();
	ofi_keytab_where(t, &fd, &nonce);
	tap_ok(ofi_keytab_publish(t, K1, OFI_PERM_READ | OFI_PERM_WRITE,
				  0x10000, 4096) == 1,
	       "a key is published in its free slot");
	v = ofi_keytab_view_open(getpid(), fd, nonce);
	tap_ok(v != NULL, "a view of it opens with its fd and nonce");
	if (!v)
		return tap_done();
	tap_ok(ofi_keytab_find(v, K1, &perm, &base, &len) &&
		       perm == (OFI_PERM_READ | OFI_PERM_WRITE) &&
		       base == 0x10000 && len == 4096,
	       "the view finds the key with its privileges and range");
	tap_ok(!ofi_keytab_find(v, K1 + 1, &perm, &base, &len),
	       "a key never published is not found");
	tap_ok(ofi_keytab_publish(t, K1 + SLOTS, OFI_PERM_READ, 0, 1) == 0 &&
		       !ofi_keytab_find(v, K1 + SLOTS, &perm, &base, &len),
	       "a second key for a taken slot is not listed");
	ofi_keytab_withdraw(t, K1 + SLOTS);
	tap_ok(ofi_keytab_find(v, K1, &perm, &base, &len),
	       "withdrawing a key that is not listed leaves the slot's own");
	ofi_keytab_withdraw(t, K1);
	tap_ok(!ofi_keytab_find(v, K1, &perm, &base, &len),
	       "a withdrawn key is not found");
	tap_ok(ofi_keytab_publish(t, K1 + SLOTS, OFI_PERM_READ, 0, 1) == 1,
	       "its slot takes another key");

	bad = ofi_keytab_view_open(getpid(), fd, nonce + 1);
	tap_ok(bad == NULL, "no view with another nonce");
	ofi_keytab_view_close(bad);
	other = memfd_create("not-a-table", MFD_CLOEXEC);
	if (other < 0 || ftruncate(other, 1 << 20))
		abort();
	bad = ofi_keytab_view_open(getpid(), (uint64_t)other, nonce);
	tap_ok(bad == NULL, "no view of a file whose size is not sealed");
	ofi_keytab_view_close(bad);
	close(other);
	bad = ofi_keytab_view_open(getpid(), 1u << 20, nonce);
	tap_ok(bad == NULL, "no view of an fd the process does not have");
	ofi_keytab_view_close(bad);
	tap_ok(ofi_keytab_view_open(0, fd, nonce) == NULL &&
		       ofi_keytab_view_open(getpid(), 1ull << 40, nonce) == NULL,
	       "no view of pid 0 or an fd out of range");

	busy[0] = ofi_keytab_claim(t, K1);
	tap_ok(busy[0] >= 0 && ofi_keytab_busy(v, K1) &&
		       !ofi_keytab_busy(v, K1 + 1),
	       "a busy mark is seen through a view, for its key only");
	ofi_keytab_release(t, busy[0]);
	tap_ok(!ofi_keytab_busy(v, K1), "a released mark is gone");
	for (i = 0, n = 0; i < 65; i++) {
		busy[i] = ofi_keytab_claim(t, K1 + (uint32_t)i);
		n += busy[i] >= 0;
	}
	tap_ok(n == 64 && busy[64] < 0,
	       "64 marks can be held at once, a 65th is refused");
	for (i = 0; i < 64; i++)
		ofi_keytab_release(t, busy[i]);
	tap_ok(!ofi_keytab_busy(v, K1 + 63), "all released");

	/* a peer process: its view through /proc/PID/fd, as cm.c opens it */
	child = fork();
	if (child == 0) {
		struct ofi_keytab_view *cv =
		    ofi_keytab_view_open(getppid(), fd, nonce);
		int found = cv &&
			    ofi_keytab_find(cv, K1 + SLOTS, &perm, &base,
					    &len) &&
			    perm == OFI_PERM_READ &&
			    !ofi_keytab_find(cv, K1, &perm, &base, &len);

		/* what the parent's copy holds, freed here too (memcheck) */
		ofi_keytab_view_close(cv);
		ofi_keytab_view_close(v);
		ofi_keytab_close(t);
		_exit(found ? 0 : 1);
	}
	tap_ok(child > 0 && waitpid(child, &st, 0) == child &&
		       WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "another process maps the table and finds what is listed");
	ofi_keytab_view_close(v);
	ofi_keytab_close(t);
	return tap_done();
}
