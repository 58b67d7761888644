# SPDX-License-Identifier: BSD-3-Clause
# test/bench/cgsum.awk - flattens a callgrind dump (one event: Ir) into
# tab-separated lines for report.sh:
#   self <TAB> object <TAB> file <TAB> function <TAB> Ir
#	the function's own instructions (not those of what it calls); file
#	is the function's source file ("???" without debug information)
#   arc <TAB> caller-object <TAB> callee-object <TAB> Ir
#	instructions spent in calls from one object into another
#	(inclusive), summed over call sites
# Reads the format of callgrind_format(5): names are compressed as
# "(id) name" on first use and "(id)" later; the cost line after a
# "calls=" line is the inclusive cost of that call, not self cost.

function name(s, map,    id) {
	if (match(s, /^\([0-9]+\)/)) {
		id = substr(s, 2, RLENGTH - 2)
		s = substr(s, RLENGTH + 1)
		sub(/^ /, "", s)
		if (s != "")
			map[id] = s
		return map[id]
	}
	return s
}

BEGIN { OFS = "\t"; ob = fl = fn = "?" }

/^ob=/ { ob = name(substr($0, 4), OBS); next }
/^fl=/ { fl = name(substr($0, 4), FLS); next }
/^f[ie]=/ { name(substr($0, 4), FLS); next }
/^fn=/ { fn = name(substr($0, 4), FNS); key = ob SUBSEP fl SUBSEP fn; next }
/^cob=/ { cob = name(substr($0, 5), OBS); next }
/^cf[il]=/ { name(substr($0, 5), FLS); next }
/^cfn=/ { name(substr($0, 5), FNS); next }
/^calls=/ { incall = 1; next }
/^[0-9+*-]/ {
	c = NF >= 2 ? $2 : 0
	if (incall) {
		arc[ob SUBSEP (cob != "" ? cob : ob)] += c
		incall = 0
		cob = ""
	} else {
		self[key] += c
	}
	next
}

END {
	for (k in self) {
		split(k, p, SUBSEP)
		print "self", p[1], p[2], p[3], self[k]
	}
	for (k in arc) {
		split(k, p, SUBSEP)
		print "arc", p[1], p[2], arc[k]
	}
}
