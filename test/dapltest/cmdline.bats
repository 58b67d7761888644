#!/usr/bin/env bats
# test/dapltest/cmdline.bats - dapltest's command line on the host (make
# check-host): OFA's dapltest lines parse, bad ones are usage errors (exit
# 2), and without -D the IA is the first DAT 1.2 entry of dat.conf whose
# IA opens.  No RDMA here: a line that parsed stops at the IA (exit 3: an
# empty dat.conf, or the test provider libdattest.so.1, which opens an IA
# but creates nothing); dapltest.bats runs the same lines in the guest.

: "${DATTEST_BUILD:?run these through make check-host}"
DT="$DATTEST_BUILD/bin/dapltest"

setup() {
	export DAT_OVERRIDE=$BATS_TEST_TMPDIR/dat.conf
	: > "$DAT_OVERRIDE"
	unset DAPLTEST_IA
}

# parsed ARGS...: dapltest got past its command line (exit 3: no IA in
# the empty dat.conf), no usage message
parsed() {
	run "$DT" "$@"
	echo "dapltest $* -> exit status $status:"
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(grep -c '^usage:' <<< "$output")" -eq 0 ]
	grep -q 'no -D ia_name, and dat.conf registers no IA' <<< "$output"
}

# refused ARGS...: a usage error naming MESSAGE ($WANT)
refused() {
	run "$DT" "$@"
	echo "dapltest $* -> exit status $status:"
	echo "$output"
	[ "$status" -eq 2 ]
	grep -qF -- "$WANT" <<< "$output"
}

@test "dapltest with no arguments is a server on the default IA (as OFA's)" {
	parsed
}

@test "-R takes OFA's QoS names HT, LL, EC, PM and BE, in every test" {
	local q
	for q in HT LL EC PM BE; do
		parsed -T S -R "$q"
		parsed -T Q -s 10.0.0.1 -R "$q"
		parsed -T T -s 10.0.0.1 -R "$q" client SR 256 server SR 256
		parsed -T P -s 10.0.0.1 -R "$q" -m p RW 4096
		parsed -T L -R "$q" -m 8 limit_ia
		parsed -T F -R "$q" hwconn
	done
	WANT="-R XX: want HT, LL, EC, PM or BE" refused -T S -R XX
	WANT="-R ht: want HT" refused -T T -s h -R ht client SR 1 server SR 1
}

@test "transaction test: up to 64 threads x 64 endpoints per thread" {
	parsed -T T -s 10.0.0.1 -t 64 -w 64 -i 10 -V client SR 4096 server RW 4096
	WANT="-t 65: want 1..64 threads" refused -T T -s 10.0.0.1 -t 65 client SR 64
	WANT="-w: at most 64 endpoints per thread" refused -T T -s 10.0.0.1 -w 65 client SR 64
}

@test "functional test: -f <area> [case<n>...] as OFA's dapltest takes it" {
	parsed -T F -f hwconn
	parsed -T F -f pz case0 case2
	parsed -T F -s 10.0.0.1 -f connmgt
	# OFA's stress-test options parse (no area here uses them)
	parsed -T F -f mem -i 10 -t 2 -v 5
	WANT="-f nope: no such functional area" refused -T F -f nope
	WANT="-f pz has case0..case5" refused -T F -f pz case6
	WANT="case1: case numbers need -f area" refused -T F case1
	WANT="-f area and -v are options of -T F" refused -T L -f hwconn
}

@test "functional test: --list with -f numbers the area's cases case0, case1, ..." {
	run "$DT" -T F -f hwconn --list
	echo "$output"
	[ "$status" -eq 0 ]
	local n
	n=$("$DT" -T F --list | awk '$1 == "hwconn"' | wc -l)
	[ "$n" -ge 3 ]
	[ "${#lines[@]}" -eq "$n" ]
	[ "$(awk '{ print $2 }' <<< "$output" | tr '\n' ' ')" = "$(seq -f 'case%g' 0 $((n - 1)) | tr '\n' ' ')" ]
	# the names are the plain --list's, in its order
	[ "$(awk '{ print $3 }' <<< "$output")" = "$("$DT" -T F --list | awk '$1 == "hwconn" { print $2 }')" ]
}

@test "limit test: OFA's arguments (-d -m -w -R and the limit names)" {
	parsed -T L -d -m 100 -w 2 -R BE limit_ia limit_pz limit_cno limit_evd \
		limit_ep limit_rsp limit_psp limit_lmr limit_rpost limit_size_lmr
}

@test "OFA's -r (RSPs) is refused with a clear message, not ignored" {
	WANT="-r: RSPs for the transaction test's connections are not implemented" \
		refused -T T -s 10.0.0.1 -r client SR 64 server SR 64
}

@test "no -D: the first DAT 1.2 entry whose IA opens, past DAT 2.0 entries and an IA that fails to open" {
	printf '%s\n' \
		'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""' \
		'F1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "failopen" ""' \
		'T1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p1" ""' \
		'T2 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p2" ""' > "$DAT_OVERRIDE"
	run "$DT" -T L limit_ia
	echo "$output"
	grep -q '^dapltest: no -D: IA T1, the first DAT 1.2 entry of dat.conf whose IA opens$' <<< "$output"
	# it went on with T1: the test provider creates no PZ
	[ "$status" -eq 3 ]
	grep -q '^dapltest: limit test set-up: DAT_INTERNAL_ERROR' <<< "$output"
	[ "$(grep -c "cannot open IA" <<< "$output")" -eq 0 ]
	# -D and DAPLTEST_IA still choose
	DAPLTEST_IA=T2 run "$DT" -T L limit_ia
	[ "$(grep -c 'no -D: IA' <<< "$output")" -eq 0 ]
	grep -q '^dapltest: limit test set-up' <<< "$output"
}

@test "no -D and no DAT 1.2 entry that opens: exit 3, saying what was skipped" {
	printf '%s\n' \
		'ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""' \
		'F1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "failopen" ""' > "$DAT_OVERRIDE"
	run "$DT"
	echo "$output"
	[ "$status" -eq 3 ]
	grep -q 'no DAT 1.2 entry of dat.conf opens an IA (1 of them failed to open, 1 entries of another DAT version skipped)' <<< "$output"
}

@test "-R a class the provider does not list in dat_qos_supported: best effort, said once" {
	# the test provider's dat_qos_supported is 0: best effort only
	printf '%s\n' 'T1 u1.2 nonthreadsafe default libdattest.so.1 dapl.1.2 "p1" ""' > "$DAT_OVERRIDE"
	run "$DT" -T L -D T1 -R LL limit_ia
	echo "$output"
	[ "$status" -eq 3 ]
	[ "$(grep -c '^QoS: IA T1 does not offer low latency (dat_qos_supported 0x0): connecting best effort$' <<< "$output")" -eq 1 ]
	grep -q '^dapltest: limit test set-up' <<< "$output"
	run "$DT" -T L -D T1 -R BE limit_ia
	[ "$(grep -c '^QoS:' <<< "$output")" -eq 0 ]
}
