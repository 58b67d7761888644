#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""man_synopsis.py TOP: every section 3 page's SYNOPSIS against the headers.

For each man3/dat_*.3 page whose call the headers declare (a function, or a
macro such as dat_ia_open and dat_ib_post_*): the SYNOPSIS declaration of
the call has the headers' parameter names in the headers' order, and every
name the PARAMETERS section describes is one of them.  Prints one line per
mismatch and exits 1 if there is any.  (That the SYNOPSIS types compile
against the headers is test/bats/manpages.bats' job.)
"""
import glob
import os
import re
import sys


def last_ident(arg):
    """The parameter name of one declared parameter."""
    arg = re.sub(r"[\[\]()]", " ", arg.strip())
    m = re.search(r"(\w+)\s*$", arg)
    return m.group(1) if m else ""


def split_args(text):
    return [a for a in (x.strip() for x in text.split(",")) if a and a != "void"]


def header_params(top):
    out = {}
    for h in glob.glob(os.path.join(top, "include/dat/*.h")):
        s = open(h).read()
        s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
        for m in re.finditer(r"extern\s+[\w\s\*]+?\b(dat_\w+)\s*\((.*?)\)\s*;", s, re.S):
            out[m.group(1)] = [last_ident(re.sub(r"^(IN|OUT|INOUT)\s+", "", a))
                               for a in split_args(m.group(2))]
        for m in re.finditer(r"#define\s+(dat_\w+)\(([^)]*)\)", s):
            args = m.group(2).replace("\\\n", " ")
            out[m.group(1)] = [a.strip() for a in args.split(",") if a.strip()]
    return out


def roff_text(line):
    """The text of one roff line of a SYNOPSIS (.B/.BI/.I quoted words)."""
    if line.startswith("."):
        words = re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', line.split(None, 1)[1] if " " in line else "")
        line = "".join(a or b for a, b in words)
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace("\\e", "\\").replace("\\(dq", '"').replace("\\-", "-").replace("\\&", "")


def section(src, name):
    m = re.search(r"^\.SH %s\s*$(.*?)(?=^\.SH )" % re.escape(name), src, re.S | re.M)
    return m.group(1) if m else ""


def main():
    top = sys.argv[1]
    hdr = header_params(top)
    bad = 0
    checked = 0
    for page in sorted(glob.glob(os.path.join(top, "man3/dat_*.3"))):
        name = os.path.basename(page)[:-2]
        if name not in hdr:
            continue
        src = open(page).read()
        syn = " ".join(roff_text(l) for l in section(src, "SYNOPSIS").split("\n"))
        m = re.search(r"\b%s\s*\((.*?)\)\s*;" % re.escape(name), syn, re.S)
        if not m:
            print("%s: no declaration of %s() in SYNOPSIS" % (name, name))
            bad += 1
            continue
        want = hdr[name]
        got = [last_ident(a) for a in split_args(m.group(1))]
        if got != want:
            print("%s: SYNOPSIS parameters %s, the header's %s" % (name, got, want))
            bad += 1
        params = re.findall(r"^\.TP\s*\n\\fI(\w+)\\fP", section(src, "PARAMETERS"), re.M)
        stray = [p for p in params if p not in want]
        if stray:
            print("%s: PARAMETERS describes %s, not parameters of %s%s" % (
                name, stray, name, tuple(want)))
            bad += 1
        checked += 1
    print("%d pages checked, %d with mismatches" % (checked, bad))
    return 1 if bad or checked < 70 else 0


if __name__ == "__main__":
    sys.exit(main())
