#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/relisten.bats - a PSP created again on its qualifier after the
# freed one's listening endpoint closed must be reached by a client IA
# that connected to the freed one (test/ofi/relisten.c).  Over shm: a
# freed PSP's endpoint lingers (providers/ofi/lep.c ofi_lep_linger), 5 s
# by default; the server here sets DAPL_OFI_LINGER_MS=1 so that the
# linger is over at once, and waits until the listener's region is gone
# before it listens again.  Before providers/ofi/addr.c's
# ofi_addr_dest, the client's second connect went through shm's mapping
# of the freed listener's region, which nobody read: TIMED_OUT.  Over
# shm only (OFI_SUITES_shm in providers/ofi/ofi.mk).

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-relisten"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: a PSP created again on its qualifier after the freed one's linger: the client IA that connected to the freed one connects again and its data arrives" {
	local cout="$BATS_TEST_TMPDIR/client.out" go="$BATS_TEST_TMPDIR/go" crc=0
	DAPL_OFI_LINGER_MS=1 start_server relisten
	wait_listening
	DATTEST_GO="$go" "$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" relisten client \
		-q "$QUAL" > "$cout" 2>&1 3>&- &
	local cpid=$!
	wait_line "$cout" "$cpid" 'first connection done' 30
	# the server's second "listening": the PSP on the same qualifier
	local first=$QUAL
	wait_listening 2
	[ "$QUAL" = "$first" ]
	touch "$go"
	wait "$cpid" || crc=$?
	echo "--- client ($crc):"
	cat "$cout"
	wait_server
	[ "$crc" -eq 0 ] && grep -q '^PASS$' "$cout"
	grep -q 'ok connected again, to the PSP created anew' "$cout"
	grep -q 'ok the freed PSP.s listener is gone' "$SRV_OUT"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}
