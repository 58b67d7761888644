#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# test/ofi/setuid.bats - issue 33: libdat's secure mode held for
# dat.conf, drop-ins and library paths, but libdaplofi.so.1 then started
# libfabric with the caller's environment, and libfabric 1.17 reads
# FI_PROVIDER_PATH with plain getenv and loads what it finds there: a
# library owned by nobody ran with euid 0 in a set-uid-root program.  In
# a set-uid program the provider clears the caller's FI_* variables
# before libfabric reads them (providers/ofi/init.c ofi_secure_env).
#
# The test makes, in a directory of its own: a libdat whose SYSCONFDIR is
# there (a set-uid program ignores DAT_OVERRIDE), a dat.conf naming this
# tree's libdaplofi.so.1, a set-uid-root copy of dattest linked to that
# libdat, and a libfabric provider library owned by nobody whose
# constructor leaves a file behind.  nobody runs the set-uid copy with
# FI_PROVIDER_PATH at that library: the IA opens and the file is not
# made.  The same library is loaded where nothing is set-uid (the
# control: the test could fail).  Over tcp;ofi_rxm only: the path is the
# same for every fabric (OFI_SUITES_tcp in providers/ofi/ofi.mk).

load ofi_helpers

setup_file() {
	ofi_setup_file
	[ "$(id -u)" = 0 ] || return 0
	command -v setpriv > /dev/null || { echo "setpriv (util-linux) is missing" >&2; return 1; }
	export D
	D=$(mktemp -d /tmp/dat-setuid.XXXXXX)
	chmod 0755 "$D"
	mkdir -p "$D/etc" "$D/evil"
	make -s -C "$TOP" B="$D/b" SYSCONFDIR="$D/etc" \
		DAT_FALLBACK_CONF="$D/etc/fallback/dat.conf" \
		"$D/b/lib/libdat.so.1" "$D/b/lib/libdat.so"
	cc -o "$D/dattest" "$DATTEST_BUILD/test/dattest.o" -L"$D/b/lib" -ldat \
		-lpthread -Wl,--disable-new-dtags,-rpath,"$D/b/lib"
	echo "suid-ofi u1.2 nonthreadsafe default $TOP/build/lib/libdaplofi.so.1 dapl.1.2 \"tcp;ofi_rxm 127.0.0.1\" \"\"" \
		> "$D/etc/dat.conf"
	# a provider library as libfabric looks for them (lib*-fi.so), whose
	# constructor leaves a file that names the euid it ran with
	printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
		'__attribute__((constructor)) static void evil(void)' \
		'{ FILE *f = fopen(EVIL_MARK, "w"); if (f) { fprintf(f, "euid %d\n", (int)geteuid()); fclose(f); } }' \
		> "$D/evil/evil.c"
	cc -shared -fPIC -DEVIL_MARK="\"$D/loaded\"" -o "$D/evil/libevil-fi.so" "$D/evil/evil.c"
	chown -R nobody "$D/evil"
	chmod 0777 "$D"		# the library writes its mark as whoever it runs as
}

teardown_file() {
	[ -z "${D:-}" ] || rm -rf "$D"
}

@test "$OFI_FABRIC: a set-uid-root program run by nobody with FI_PROVIDER_PATH at a library nobody owns: the library is not loaded, the IA opens, one message says the FI_* variables were cleared" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a set-uid-root program"
	# the control: where nothing is set-uid, libfabric loads it
	rm -f "$D/loaded"
	run env -u DAT_OVERRIDE FI_PROVIDER_PATH="$D/evil" "$D/dattest" open suid-ofi
	echo "--- not set-uid: $status"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -e "$D/loaded" ]
	rm -f "$D/loaded"
	# set-uid root, run by nobody
	cp "$D/dattest" "$D/dattest-suid"
	chown root:root "$D/dattest-suid"
	chmod 4755 "$D/dattest-suid"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -u DAT_OVERRIDE FI_PROVIDER_PATH="$D/evil" FI_HOOK=evil \
		"$D/dattest-suid" open suid-ofi
	rm -f "$D/dattest-suid"
	echo "--- set-uid root, run by nobody: $status"
	echo "$output"
	[ ! -e "$D/loaded" ] || { echo "loaded: $(cat "$D/loaded")"; false; }
	[ "$status" -eq 0 ]
	grep -q '^open suid-ofi: DAT_SUCCESS' <<< "$output"
	[ "$(grep -c "ofi: a set-uid or set-gid program: the caller's FI_\* variables decide nothing here; 2 cleared" <<< "$output")" -eq 1 ]
}
