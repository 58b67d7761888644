#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-layers.sh [-f] [-p PROGRAM]... OBJDIR GROUP... - calls that go
# around a loop.
#
# Each GROUP is a folder of OBJDIR (dat, registry, udapl, providers/cma,
# ...) whose .o files are read with nm: file A calls file B when A leaves
# a symbol undefined that B defines (a call by name; a call through a
# function pointer set at open, as struct dapl_ops goes down, is not
# one).  A PROGRAM (registry/datadm: a tool that links some of the
# library's objects) is a group of its own, outside its folder's.
# Reported, one line each with the calls that close the loop:
#   two groups that reach each other, directly or around a loop of
#     groups: "folder loop: dat registry";
#   with -f, also two files of one group that do: "file loop: udapl/cno
#     udapl/evd_dequeue", then "  udapl/cno -> udapl/evd_dequeue
#     (dapl_evd_ready)".
# Exit 0 if none, 1 if any, 2 on bad use.  Issue 36: layers that call
# only downward.
set -eu
# sort and join agree on the order whatever the locale
export LC_ALL=C

usage() { echo "usage: check-layers.sh [-f] [-p PROGRAM]... OBJDIR GROUP..." >&2; exit 2; }
files=0
programs=" "
while getopts fp: opt; do
	case $opt in
	f) files=1 ;;
	p) programs="$programs$OPTARG " ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
objdir=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One nm per group and kind, not per object: each nm costs about 0.2 s
# before it reads a byte (it loads its plugins), which made this check
# take 35-45 s of make check for 90 objects (issue 34).  -A names the
# object on each line: "OBJDIR/G/F.o:ADDR T SYM" or "OBJDIR/G/F.o: U SYM".
# name: the line's object as G/F; its group is G, or G/F for a PROGRAM.
awkname='function name(line,   p) { p = line; sub(/\.o:.*/, "", p)
	return substr(p, length(objdir) + 2) }
function group(f) { return index(programs, " " f " ") ? f : g }'
: > "$tmp/defs"
: > "$tmp/uses"
for g in "$@"; do
	set -- "$objdir/$g"/*.o
	[ -e "$1" ] || { echo "check-layers: no objects in $objdir/$g" >&2; exit 2; }
	nm -A --defined-only "$@" | awk -v objdir="$objdir" -v g="$g" \
		-v programs="$programs" "$awkname"'
		$2 ~ /^[TDBRV]$/ { f = name($0); print $3, f, group(f) }' \
		>> "$tmp/defs"
	nm -A -u "$@" | awk -v objdir="$objdir" -v g="$g" \
		-v programs="$programs" "$awkname"'
		{ f = name($0); print $3, f, group(f) }' >> "$tmp/uses"
done
sort -k1,1 "$tmp/defs" > "$tmp/defs.s"
sort -k1,1 "$tmp/uses" > "$tmp/uses.s"
# symbol user user-group definer definer-group
join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $4' > "$tmp/calls"

# loops: the transitive closure of the edges, then every pair that
# reaches each other.  $1 from, $2 to, $3 the symbols (for the report).
loops() {
	awk -v kind="$1" '
	{ n[$1] = 1; n[$2] = 1; r[$1, $2] = 1
	  if (!(($1, $2) in why)) why[$1, $2] = $3 }
	END {
		for (k in n) for (i in n) if ((i, k) in r)
			for (j in n) if ((k, j) in r) r[i, j] = 1
		bad = 0
		for (i in n) for (j in n)
			if (i < j && (i, j) in r && (j, i) in r) {
				printf "%s loop: %s %s\n", kind, i, j
				if ((i, j) in why)
					printf "  %s -> %s (%s)\n", i, j, why[i, j]
				if ((j, i) in why)
					printf "  %s -> %s (%s)\n", j, i, why[j, i]
				bad = 1
			}
		exit bad
	}'
}

status=0
awk '$3 != $5 { print $3, $5, $1 }' "$tmp/calls" | sort -u \
	| loops folder || status=1
if [ "$files" = 1 ]; then
	awk '$3 == $5 { print $2, $4, $1 }' "$tmp/calls" | sort -u \
		| loops file || status=1
fi
exit $status
