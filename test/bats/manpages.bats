#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-3-Clause
# The manual pages: lint-clean, one for every symbol libdat exports, and
# what their SYNOPSIS declares is what the headers declare.

load helpers

EXTRA="dat_ia_open dat_provider_init dat_provider_fini libdat dat_ib_post_fetch_and_add dat_ib_post_cmp_and_swap"

@test "every page lints clean with mandoc -Tlint -W warning" {
	cd "$TOP"
	shopt -s nullglob
	pages=(man[1-9]/*.[1-9])
	[ "${#pages[@]}" -ge 78 ]
	run mandoc -Tlint -W warning "${pages[@]}"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "every symbol libdat.so.1 exports has a section 3 page" {
	nm -D --defined-only "$DATTEST_BUILD/lib/libdat.so.1" |
		awk '$2 ~ /^[TW]$/ {sub(/@.*/, "", $3); print $3}' > "$BATS_TEST_TMPDIR/syms"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/syms")" -ge 72 ]
	missing=""
	while read -r s; do
		[ -f "$TOP/man3/$s.3" ] || missing="$missing $s"
	done < "$BATS_TEST_TMPDIR/syms"
	for s in $EXTRA; do
		[ -f "$TOP/man3/$s.3" ] || missing="$missing $s"
	done
	echo "no page:$missing"
	[ -z "$missing" ]
}

@test "no section 3 page without a symbol" {
	nm -D --defined-only "$DATTEST_BUILD/lib/libdat.so.1" |
		awk '$2 ~ /^[TW]$/ {sub(/@.*/, "", $3); print $3}' > "$BATS_TEST_TMPDIR/syms"
	local -A sym=()
	while read -r n; do sym[$n]=1; done < "$BATS_TEST_TMPDIR/syms"
	stray=""
	for f in "$TOP"/man3/*.3; do
		n=${f##*/} n=${n%.3}
		[ -n "${sym[$n]:-}" ] || [[ " $EXTRA " == *" $n "* ]] ||
			stray="$stray $n"
	done
	echo "stray:$stray"
	[ -z "$stray" ]
}

@test "each call's page has NAME, SYNOPSIS, DESCRIPTION, RETURN VALUES and SEE ALSO, in order" {
	# one awk for every page (a few processes per page made the suite
	# slow on a busy machine: issue 34)
	bad=$(awk 'function done_() { if (f != "" && got != want) printf " %s", f }
		BEGIN { want = ".SH NAME|.SH SYNOPSIS|.SH DESCRIPTION|.SH RETURN VALUES|.SH SEE ALSO|" }
		FNR == 1 { done_(); f = FILENAME; sub(/.*\//, "", f); got = ""; n++ }
		/^\.SH/ && /NAME|SYNOPSIS|DESCRIPTION|RETURN VALUES|SEE ALSO/ { got = got $0 "|" }
		END { done_(); printf "\n%d\n", n }' "$TOP"/man3/dat_*.3)
	echo "bad:${bad%$'\n'*}"
	[ "${bad##*$'\n'}" -ge 60 ]
	[ -z "${bad%$'\n'*}" ]
}

@test "the prototype in each SYNOPSIS compiles against the installed headers" {
	# A redeclaration that differs from the header's is a compile error.
	# Every page's prototypes go into one file, compiled once; only when
	# that fails is each page compiled alone, to name it.
	local all="$BATS_TEST_TMPDIR/all.c" pages=() f n p
	echo '#include <dat/udat.h>' > "$all"
	echo '#include <dat/dat_registry.h>' >> "$all"
	echo '#include <dat/dat_ib_extensions.h>' >> "$all"
	for f in "$TOP"/man3/dat_*.3; do
		case $f in */dat_ia_open.3 | */dat_ib_post_*) continue ;; esac	# macros
		pages+=("$f")
	done
	# Every page rendered by one mandoc (not one per page: issue 34); a
	# page's rendering starts with its header, "DAT_CR_ACCEPT(3)" at the
	# start of the line, and its SYNOPSIS goes to dat_cr_accept.proto.
	MANWIDTH=200 mandoc -Tascii "${pages[@]}" | col -b |
		awk -v dir="$BATS_TEST_TMPDIR" '
		/^[A-Z][A-Z0-9_]*\(3\)[ \t]/ { if (out != "") close(out)
			n = $1; sub(/\(3\)$/, "", n); out = dir "/" tolower(n) ".proto"
			printf "" > out; s = 0; next }
		/^SYNOPSIS/ { s = 1; next }
		/^[A-Z]/ { s = 0 }
		s && !/^ *cc / && !/#include/ { print > out }'
	for f in "${pages[@]}"; do
		n=${f##*/} n=${n%.3} p=
		[ -f "$BATS_TEST_TMPDIR/$n.proto" ] &&
			IFS= read -r -d '' p < "$BATS_TEST_TMPDIR/$n.proto" || :
		[[ $p == *"$n("* ]] || { echo "$n: no prototype"; return 1; }
		printf '%s' "$p" >> "$all"
	done
	[ "$(grep -o 'dat_[a-z_]*(' "$all" | wc -l)" -ge 60 ]
	cc -std=gnu11 -Wall -Werror -fsyntax-only -I"$TOP/include" "$all" && return 0
	# each page's prototypes (extracted above) alone, to name the culprit
	for p in "$BATS_TEST_TMPDIR"/*.proto; do
		head -n 3 "$all" | cat - "$p" > "${p%.proto}.c"
		cc -std=gnu11 -Wall -Werror -fsyntax-only -I"$TOP/include" "${p%.proto}.c" ||
			{ echo "$(basename "$p" .proto): $(cat "$p")"; return 1; }
	done
	return 1
}

# The pages as make install names them (dapltest.1 becomes dapltest1.1 and
# dat.conf.5 dat.conf1.5: Debian's dapl2-utils owns the plain names), one
# "name(section)" a line, into $BATS_TEST_TMPDIR/installed.
# installed_pages: the pages make install writes, as NAME(SECTION), in
# $BATS_TEST_TMPDIR/installed and (with the known system pages) in the
# associative array KNOWN, which known REF asks without a process
installed_pages() {
	local d="$BATS_TEST_TMPDIR/inst" r
	declare -gA KNOWN=()
	make -s -C "$TOP" DESTDIR="$d" MANDIR=/man install-man install-dapltest > /dev/null
	(cd "$d/man" && ls man[1-9]/*.[1-9]) | sed -E 's|^man[1-9]/(.*)\.([1-9])$|\1(\2)|' |
		sort > "$BATS_TEST_TMPDIR/installed"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/installed")" -ge 78 ]
	while read -r r; do KNOWN[$r]=1; done < "$BATS_TEST_TMPDIR/installed"
	for r in $KNOWN_SYSTEM; do KNOWN[$r]=1; done
}
known() { [ -n "${KNOWN[$1]:-}" ]; }

# System pages the SEE ALSO sections and the text may name.
KNOWN_SYSTEM="dlopen(3) dlsym(3) dlclose(3) secure_getenv(3) poll(2) fork(2) flock(2) rename(2) pkg-config(1) ldconfig(8) rdma_cm(7) fi_provider(7)"

# refs FILE...: "name(section)" for each page reference of each FILE, after
# a line "@@FILE NAME" that names it: .BR/.IR name (N) lines, and name(N)
# or \fBname\fP(N) in the text (lower-case names: DAT_HANDLE_TYPE_IA(3) is
# a value, not a page).  One pipeline for every page, not one a page
# (issue 34).
refs() {
	awk 'FNR == 1 { f = FILENAME; sub(/.*\//, "", f); print "@@FILE " f } 1' "$@" |
		sed -e '/^\.\\"/d' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' |
		sed -nE -e 's/^\.[BI]R +([A-Za-z0-9_.+-]+) +\(([1-9])\).*/\1(\2)/p' \
			-e '/^\.[BI]R /!{s/([^A-Za-z0-9_.+-]|^)([a-z][a-z0-9_.+-]*\([1-9]\))/\n\2\n/g; p}' |
		grep -E '^[A-Za-z0-9_.+-]+\([1-9]\)$|^@@FILE ' | sed 's/^\.*//'
}

@test "every SEE ALSO reference names a page under its installed name (dat.conf1(5), dapltest1(1)) or a known system page" {
	installed_pages
	bad="" n=0
	local f ref
	# one awk for every page: "PAGE REF" a line
	while read -r f ref; do
		n=$((n + 1))
		known "$ref" || bad="$bad $f:$ref"
	done < <(awk 'FNR == 1 { f = FILENAME; sub(/.*\//, "", f); s = 0 }
		/^\.SH SEE ALSO/ { s = 1; next } /^\.SH/ { s = 0 }
		s && /^\.BR/ { r = $2 $3; gsub(/,/, "", r); print f, r }' \
		"$TOP"/man[1-9]/*.[1-9])
	echo "$n references; dangling:$bad"
	[ "$n" -ge 300 ]
	[ -z "$bad" ]
	grep -qxF 'dat.conf1(5)' "$BATS_TEST_TMPDIR/installed"
	grep -qxF 'dapltest1(1)' "$BATS_TEST_TMPDIR/installed"
}

@test "every page reference in the text names an installed page or a known system page; each installed page's NAME starts with its installed name" {
	installed_pages
	bad="" n=0
	local f= ref
	while read -r ref; do
		case $ref in "@@FILE "*) f=${ref#@@FILE }; continue ;; esac
		n=$((n + 1))
		known "$ref" || bad="$bad $f:$ref"
	done < <(refs "$TOP"/man[1-9]/*.[1-9])
	echo "$n references; dangling:$bad"
	[ "$n" -ge 400 ]
	[ -z "$bad" ]
	# whatis and apropos index a page by its NAME line
	bad=""
	local -a paths=()
	while read -r ref; do
		page=${ref%(*} sec=${ref#*(}
		sec=${sec%)}
		paths+=("$BATS_TEST_TMPDIR/inst/man/man$sec/$page.$sec")
	done < "$BATS_TEST_TMPDIR/installed"
	# one awk for every page: "PAGE(SEC) FIRST-WORD-OF-NAME", or "-"
	while read -r ref first; do
		page=${ref%(*}
		[ "$first" = "$page" ] || bad="$bad $ref:$first"
	done < <(awk 'function out() { if (f != "") print f, (w == "" ? "-" : w) }
		FNR == 1 { out(); f = FILENAME; sub(/.*\//, "", f)
			sec = f; sub(/.*\./, "", sec); sub(/\.[1-9]$/, "", f)
			f = f "(" sec ")"; w = ""; s = 0 }
		s == 1 { w = $1; gsub(/,/, "", w); s = 2 }
		/^\.SH NAME/ && s == 0 { s = 1 }
		END { out() }' "${paths[@]}")
	[ "${#paths[@]}" -ge 78 ]
	echo "NAME differs:$bad"
	[ -z "$bad" ]
}

@test "the RMR pages describe memory windows, not DAT_NOT_IMPLEMENTED" {
	# (libdat refuses a table with an empty slot: no page names DAT_NOT_IMPLEMENTED)
	for n in dat_rmr_create dat_rmr_bind dat_rmr_query dat_rmr_free; do
		! grep -qi 'not implemented' "$TOP/man3/$n.3" || { echo "$n"; return 1; }
		[ "$(grep -c 'DAT_NOT_IMPLEMENTED' "$TOP/man3/$n.3")" -eq 0 ] || { echo "$n"; return 1; }
		grep -q 'ibv_alloc_mw' "$TOP/man3/$n.3" || { echo "$n"; return 1; }
	done
	grep -q 'automatic fence' "$TOP/man3/dat_rmr_bind.3"
	grep -q 'DAPL_RMR_FENCES' "$TOP/man3/dat_ia_query.3"
}

@test "the SRQ pages describe shared receive queues, not DAT_NOT_IMPLEMENTED" {
	# (libdat refuses a table with an empty slot: no page names DAT_NOT_IMPLEMENTED)
	for n in dat_srq_create \
		 dat_srq_free dat_srq_post_recv dat_srq_query dat_srq_resize dat_srq_set_lw \
		 dat_ep_create_with_srq; do
		! grep -qi 'not implemented' "$TOP/man3/$n.3" || { echo "$n"; return 1; }
		[ "$(grep -c 'DAT_NOT_IMPLEMENTED' "$TOP/man3/$n.3")" -eq 0 ] || { echo "$n"; return 1; }
		grep -q 'ibv_' "$TOP/man3/$n.3" || { echo "$n"; return 1; }
	done
	grep -q 'DAT_SRQ_LOW_WATERMARK_EVENT' "$TOP/man3/dat_srq_set_lw.3"
}

@test "the atomic extension has its pages and names its event and privilege" {
	for n in dat_extension_op dat_registry_add_extension \
		 dat_ib_post_fetch_and_add dat_ib_post_cmp_and_swap; do
		[ -f "$TOP/man3/$n.3" ] || { echo "$n"; return 1; }
		grep -q 'version node' "$TOP/man3/$n.3" || { echo "$n"; return 1; }
	done
	grep -q 'DAT_IB_DTO_EVENT' "$TOP/man3/dat_ib_post_fetch_and_add.3"
	grep -q 'DAT_IB_MEM_PRIV_REMOTE_ATOMIC' "$TOP/man3/dat_lmr_create.3"
}

@test "the generated pages are what man/gen.py makes from man/pages.py" {
	command -v python3 > /dev/null || skip "python3 is not installed (only needed to regenerate pages)"
	mkdir "$BATS_TEST_TMPDIR/gen"
	python3 "$TOP/man/gen.py" "$BATS_TEST_TMPDIR/gen"
	for f in "$BATS_TEST_TMPDIR"/gen/*.3; do
		cmp "$f" "$TOP/man3/$(basename "$f")" || { echo "stale: $(basename "$f"): run make man-pages"; return 1; }
	done
}

@test "each SYNOPSIS has the headers' parameter names, and PARAMETERS describes only those" {
	run python3 "$TOP/test/lib/man_synopsis.py" "$TOP"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" pages checked, 0 with mismatches" ]]
}

@test "the page of every call an example program makes has an EXAMPLES section naming it" {
	# "PAGE examples/X.c" for each example an EXAMPLES section names,
	# read by one awk for every page (issue 34)
	local -A named=()
	local page ex f call
	while read -r page ex; do named[$page:$ex]=1; done < <(awk '
		FNR == 1 { p = FILENAME; sub(/.*\//, "", p); sub(/\.3$/, "", p); s = 0 }
		/^\.SH EXAMPLES/ { s = 1; next } /^\.SH/ { s = 0 }
		s { while (match($0, /examples\/[A-Za-z0-9_.-]+\.c/)) {
			print p, substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH) } }' \
		"$TOP"/man3/*.3)
	missing=""
	for f in "$TOP"/examples/*.c; do
		for call in $(grep -o '\bdat_[a-z_]*\s*(' "$f" | tr -d ' (' | sort -u); do
			[ -f "$TOP/man3/$call.3" ] || continue
			[ -n "${named[$call:examples/${f##*/}]:-}" ] || missing="$missing $call:${f##*/}"
		done
	done
	echo "missing:$missing"
	[ -z "$missing" ]
	[ "$(grep -l '^\.SH EXAMPLES' "$TOP"/man3/dat_*.3 | wc -l)" -ge 20 ]
}

@test "no drift: libdat(3) on RMR/SRQ, FILES, DAT 2.0 IA names, the provider name dat_ia_query reports" {
	[ "$(grep -ci 'not implemented\|until their issues land' "$TOP/man3/libdat.3" || :)" -eq 0 ]
	# FILES names the file by SYSCONFDIR, not by one build's path
	awk '/^\.SH FILES/ {s = 1; next} /^\.SH/ {s = 0} s && prev == ".TP" {print} {prev = $0}' \
		"$TOP/man3/libdat.3" > "$BATS_TEST_TMPDIR/files"
	[ "$(grep -c '^\.I \$(SYSCONFDIR)/' "$BATS_TEST_TMPDIR/files")" -eq 2 ]
	[ "$(grep -c '^\.I /' "$BATS_TEST_TMPDIR/files" || :)" -eq 0 ]
	[ "$(grep -l 'ofa\\\?-v2' "$TOP"/man[1-9]/*.[1-9] | wc -l)" -eq 0 ]
	grep -q 'provider_name "cma"' "$TOP/man3/dat_ia_query.3"
	grep -q '^\.B dapltest1$' "$TOP/man1/dapltest.1"
}
