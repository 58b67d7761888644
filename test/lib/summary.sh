#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# summary.sh DIR: adds up the TAP results under DIR (run-suite.sh wrote
# them) and prints the one line "N passed, N failed, N skipped".  Exits 1
# if anything failed, or if nothing ran; with CI=true, a skip fails too.
# Before that line, the time table: each part (the directory a suite's
# results are in: host, ofi, verbs) and each suite, slowest first, from
# the NAME.secs files run-suite.sh wrote.
set -u
dir=$1
files=$(find "$dir" -name '*.tap' 2>/dev/null | sort)
pass=0 fail=0 skip=0
for f in $files; do
	p=$(grep -E '^ok\b' "$f" | grep -viEc '# skip')
	s=$(grep -E '^ok\b' "$f" | grep -iEc '# skip')
	n=$(grep -c '^not ok' "$f")
	pass=$((pass + p)) skip=$((skip + s)) fail=$((fail + n))
	[ "$n" -gt 0 ] && echo "FAILED in $(basename "$f" .tap):" &&
		grep '^not ok' "$f" | sed 's/^/    /'
	[ "$s" -gt 0 ] && echo "skipped in $(basename "$f" .tap):" &&
		grep -E '^ok\b' "$f" | grep -iE '# skip' | sed 's/^/    /'
done
# The status matrix: what each fabric reported for the same events (the
# "# status-matrix: ..." lines tests print to their TAP output, which
# run-suite.sh keeps in NAME.log), one table, a line per suite and line.
matrix=
for f in $files; do
	out=${f%.tap}.log
	[ -f "$out" ] || out=$f
	rel=${f#"$dir"/}
	matrix="$matrix$(sed -n "s|^# status-matrix: |  ${rel%.tap}: |p" "$out")
"
done
if [ -n "$(printf '%s' "$matrix" | tr -d '\n')" ]; then
	echo "status matrix (the same event on every fabric):"
	printf '%s' "$matrix" | grep .
fi
secs=$(find "$dir" -name '*.secs' 2>/dev/null | sort)
if [ -n "$secs" ]; then
	echo "time per suite, slowest first (seconds):"
	for f in $secs; do
		rel=${f#"$dir"/}
		printf '%s %s\n' "$(cat "$f")" "${rel%.secs}"
	done | sort -k1,1nr > "$dir/.time-table"
	# the parts: host, ofi/<fabric>, verbs (the guest's suites)
	awk '{ n = split($2, c, "/"); p = n > 1 ? c[1] : "."
	       if (n > 2) p = p "/" c[2]
	       t[p] += $1; all += $1 }
	     END { for (p in t) printf "  %6d  %s (part)\n", t[p], p
	           printf "  %6d  all suites added up (make check runs the verbs part beside the others)\n", all }' "$dir/.time-table" | sort -k1,1nr
	# the suites: the 15 slowest here, all of them in time-table.txt
	awk '{ printf "  %6d  %s\n", $1, $2 }' "$dir/.time-table" > "$dir/time-table.txt"
	head -n 15 "$dir/time-table.txt"
	echo "  (every suite: $dir/time-table.txt)"
	rm -f "$dir/.time-table"
fi
# The tests, slowest first, from bats --timing's " in Nms" (every suite
# runs with it): the 15 slowest here, all of them in test-times.txt.
for f in $files; do
	rel=${f#"$dir"/}
	sed -n "s|^\(not \)\{0,1\}ok [0-9]* \(.*\) in \([0-9][0-9]*\)ms\( # skip.*\)\{0,1\}\$|\3 ${rel%.tap}: \2|p" "$f"
done | sort -k1,1nr | awk '{ $1 = sprintf("  %6.1f ", $1 / 1000); print }' > "$dir/test-times.txt"
if [ -s "$dir/test-times.txt" ]; then
	echo "time per test, slowest first (seconds):"
	head -n 15 "$dir/test-times.txt" | cut -c 1-150
	echo "  (every test: $dir/test-times.txt)"
fi
# Last before the count, where a log's tail shows it: what each failed
# test printed (its TAP diagnostics, at most 60 lines a test).  Lines
# that report a passing case (dapltest's "Result: PASS", TAP's "ok") are
# counted, not shown, and a line repeated at once is shown once with its
# count, so that the line which failed, and the server's output after the
# client's, are among the 60.
# run-suite.sh keeps bats' diagnostics in NAME.log beside NAME.tap.
for f in $files; do
	grep -q '^not ok' "$f" || continue
	out=${f%.tap}.log
	[ -f "$out" ] || out=$f
	echo "--- what the failed tests of $(basename "$f" .tap) printed:"
	awk 'function passed() { if (p) print "#   (" p " passing line(s) not shown)"; p = 0 }
	     function repeats() { if (r && n <= 60) print "#   (the line above " r " more time(s))"; r = 0 }
	     /^not ok/ { repeats(); on = 1; n = 0; p = 0; last = ""; print; next }
	     /^(ok|not ok) / { if (on) { repeats(); passed() }; on = 0 }
	     on && /^# *(.*Result: PASS|ok [0-9]+ )/ { p++; next }
	     on && /^#/ && $0 == last { r++; next }
	     on && /^#/ { repeats(); last = $0 }
	     on && /^#/ && n < 60 { print; n++ }
	     on && /^#/ && n == 60 { print "#   [... cut: the whole output is in '"$out"']"; n++ }
	     END { if (on) { repeats(); passed() } }' "$out"
done
echo "$pass passed, $fail failed, $skip skipped"
if [ $((pass + fail + skip)) -eq 0 ]; then
	echo "no test results under $dir" >&2
	exit 1
fi
if [ "${CI:-}" = true ] && [ "$skip" -gt 0 ]; then
	echo "CI=true: skipped tests count as failures" >&2
	exit 1
fi
[ "$fail" -eq 0 ]
