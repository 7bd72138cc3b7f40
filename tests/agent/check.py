#!/usr/bin/env python3
"""Compares spider's JSON report on the trace of one tests/agent program
with what the program plants.  In the program's comments:

  //! KIND LOC LOC [LOC]   a planted group: KIND is data, message, handler
                          or atomicity; LOC is Class.method@mark, the line
                          of the mark being the line that ends in "// @mark"
                          (or has "// @mark " in its comment)
  //~ LOC LOC             a planted non-race: both locations are in the
                          trace, and no group has them both

spider's groups must be exactly the planted ones.  Also: every receive is
matched, no lock, handler or unlock anomaly, nothing undecided.  Prints
"ok ..." / "not ok ..." lines; the exit status is 1 if any is not ok.

usage: check.py PROGRAM.java REPORT.json TRACE-DIR
"""
import json, os, re, sys

src, report, tdir = sys.argv[1:4]
name = os.path.basename(src)[:-5]
lines = open(src).read().split("\n")
marks = {}
for i, l in enumerate(lines, 1):
    for m in re.finditer(r"//\s+@(\w+)", l):
        marks.setdefault(m.group(1), i)


def loc(s):
    cls_meth, _, mark = s.partition("@")
    if mark not in marks:
        raise SystemExit("%s: no line marked // @%s" % (src, mark))
    return "%s.%d" % (cls_meth, marks[mark])


KEYS = {"data": "data_races", "message": "message_races", "handler": "handler_races",
        "atomicity": "atomicity_violations"}
want, nonraces = set(), []
for l in lines:
    m = re.match(r"\s*//!\s+(\w+)\s+(.*)", l)
    if m:
        kind, locs = m.group(1), [loc(x) for x in m.group(2).split()]
        if kind not in KEYS:
            raise SystemExit("%s: unknown kind %s" % (src, kind))
        want.add((kind, tuple(locs if kind == "atomicity" else sorted(locs))))
    m = re.match(r"\s*//~\s+(.*)", l)
    if m:
        nonraces.append([loc(x) for x in m.group(1).split()])

d = json.load(open(report))
got = set()
for kind, key in KEYS.items():
    for g in d.get(key, []):
        got.add((kind, tuple(g["locations"])))

failed = 0


def check(cond, what):
    global failed
    print(("ok " if cond else "not ok ") + name + ": " + what)
    failed += not cond


for g in sorted(want):
    check(g in got, "planted %s race %s reported" % (g[0], " / ".join(g[1])))
for g in sorted(got - want):
    check(False, "unplanted %s group %s" % (g[0], " / ".join(g[1])))

traced = set()
for f in os.listdir(tdir):
    for l in open(os.path.join(tdir, f), errors="replace"):
        m = re.search(r'"loc":"([^"]*)"', l)
        if m:
            traced.add(m.group(1))
for a, b in nonraces:
    check(a in traced and b in traced, "non-race %s / %s: both traced" % (a, b))
    both = [g for g in got if a in g[1] and b in g[1] and (a != b or list(g[1]).count(a) >= 2)]
    check(not both, "non-race %s / %s: not reported" % (a, b))

s = d["summary"]
check(s["messages"]["unmatched_receives"] == 0, "every receive matched (%d unmatched)"
      % s["messages"]["unmatched_receives"])
bad = {k: v for k, v in s["anomalies"].items() if v}
check(not bad, "no lock/handler anomaly %s" % (bad or ""))
check(s["undecided"] == 0 and not s["partial"], "nothing undecided")
sys.exit(1 if failed else 0)
