#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/errors-stuck.bats - an RDMA read that libfabric never completes
# (the target process stopped, over tcp;ofi_rxm, whose reads need the
# target's progress): the provider's own bound, DAPL_OFI_DTO_TIMEOUT_MS
# (default 30 s; 2 s here), fails it with DAT_DTO_ERR_TRANSPORT and breaks
# the connection, so no DTO is left without a completion.  Not over shm:
# there a read from a stopped target completes, with the data (shm reads
# the peer's memory itself), so nothing is stuck.

load ofi_helpers

VT="$TOP/build/test/ofi/dattest-ofi-errors"

setup_file() { ofi_setup_file; }

@test "$OFI_FABRIC: errors: a 1 MiB RDMA read libfabric never completes (target stopped): DAT_DTO_ERR_TRANSPORT after DAPL_OFI_DTO_TIMEOUT_MS, BROKEN" {
	local cout="$BATS_TEST_TMPDIR/client.out" go="$BATS_TEST_TMPDIR/go" crc=0 spid
	start_server stuck
	wait_listening
	spid=$(pgrep -P "$SRV_PID" -x dattest-ofi-err)
	[ -n "$spid" ]
	DATTEST_GO="$go" DAPL_OFI_DTO_TIMEOUT_MS=2000 DAPL_OFI_KEEPALIVE_TIMEOUT_MS=600000 \
		"$QT" -t "$(secs 1000)" "$(secs 100)" "$VT" stuck client -q "$QUAL" > "$cout" 2>&1 3>&- &
	local cpid=$!
	local end=$((SECONDS + $(secs 30)))
	until has_line "$cout" 'have target'; do
		[ "$SECONDS" -lt "$end" ] && kill -0 "$cpid"
		nap
	done
	stop_process "$spid" 30 || { kill -CONT "$spid"; false; }
	touch "$go"
	wait "$cpid" || crc=$?
	kill -CONT "$spid"
	echo "--- client ($crc):"; cat "$cout"
	wait_server
	[ "$crc" -eq 0 ] && grep -q '^PASS$' "$cout"
	grep -q 'ok the read no completion came for: .*DAT_DTO_ERR_TRANSPORT' "$cout"
	grep -q 'ok connection broken by the failed DTO: DAT_CONNECTION_EVENT_BROKEN' "$cout"
	[ "$SRV_RC" -eq 0 ] && grep -q '^PASS$' "$SRV_OUT"
}
