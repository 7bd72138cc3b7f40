#!/usr/bin/env python3
"""Learning from passing runs (docs/model.md, "Learning from passing
runs"), written from that definition, not from spider's C, for
tests/t0172-learn.sh to compare spider --learn with:

    reference_invariants.py [--correlated=FILE] [--max-distance=D]
                            [--min-support=N] OUT RUN...

Each RUN (a file or a directory) is one run; OUT gets the invariants file
spider writes for the same runs (docs/report.md, "Invariants file"),
byte for byte.  The correlated pairs are the reference's own
(reference_correlations.py).

A region of a run:
  atomicity       (loc(p), loc(c)), p and c consecutive accesses to a
                  variable in one context (thread, innermost handler);
                  interleaved when an access r of another thread lies
                  between them in input order (a node's events as the
                  input lists them) and (p, r, c) is RWR, WWR, WRW or RWW;
  multi-variable  (loc(a1), loc(a2)), a1 and a2 consecutive among a
                  context's accesses to a correlated pair, on different
                  variables; interleaved when one other thread has bx on
                  a1's variable and by on a2's, both between them in input
                  order, bx conflicting with a1 and by with a2.
"""
import sys

from reference_correlations import bkey, correlations, parse_correlated
from reference_load import TraceError, load
from reference_model import Trace

UNSERIALIZABLE = {"RWR", "WWR", "WRW", "RWW"}
KINDS = ("atomicity", "multi-variable")


def between(evs, a, b):
    lo, hi = min(a.gid, b.gid), max(a.gid, b.gid)
    return [e for e in evs if lo < e.gid < hi]


def atomicity_regions(tr, by_var, out):
    for th, evs in tr.threads.items():
        last = {}                          # (context, variable) -> access
        for c in evs:
            if c.type not in ("R", "W"):
                continue
            key = (id(c.ctx), c.var)
            p = last.get(key)
            last[key] = c
            if p is None:
                continue
            hit = any(r.thread != th and p.type + r.type + c.type in UNSERIALIZABLE
                      for r in between(by_var[c.var], p, c))
            k = ("atomicity", p.loc, c.loc)
            out[k] = out.get(k, False) or hit


def conflict(a, b):
    return a.type == "W" or b.type == "W"


def multivar_regions(tr, by_var, pairs, out):
    for pair in pairs:
        node = pair["node"]
        x, y = ((node, v) for v in pair["variables"])
        for th, evs in tr.threads.items():
            last = {}                      # context -> access to x or y
            for a2 in evs:
                if a2.type not in ("R", "W") or a2.var not in (x, y):
                    continue
                a1 = last.get(id(a2.ctx))
                last[id(a2.ctx)] = a2
                if a1 is None or a1.var == a2.var:
                    continue
                bx = {e.thread for e in between(by_var[a1.var], a1, a2)
                      if e.thread != th and conflict(a1, e)}
                hit = any(e.thread in bx and conflict(a2, e)
                          for e in between(by_var[a2.var], a1, a2))
                k = ("multi-variable", a1.loc, a2.loc)
                out[k] = out.get(k, False) or hit


def learn_run(path, given, max_distance, min_support):
    tr = Trace(load([path]))
    by_var = {}
    for e in tr.events:
        if e.type in ("R", "W"):
            by_var.setdefault(e.var, []).append(e)
    out = {}
    atomicity_regions(tr, by_var, out)
    multivar_regions(tr, by_var, correlations(tr, given, max_distance, min_support), out)
    return out


def escape(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def write(path, runs, counts):
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.write("# spider: access-interleaving invariants learnt from passing "
                "runs (docs/report.md)\n# kind, runs that executed the region, "
                "runs that interleaved it, its two locations\n"
                "spider-invariants 1\nruns %d\n" % runs)
        for k in sorted(counts, key=lambda k: (KINDS.index(k[0]), bkey(k[1]), bkey(k[2]))):
            ex, inter = counts[k]
            f.write("%s\t%d\t%d\t%s\t%s\n" % (k[0], ex, inter, escape(k[1]), escape(k[2])))


def main(argv):
    given, max_distance, min_support, rest = [], 5.0, 3, []
    for a in argv:
        if a.startswith("--correlated="):
            given = parse_correlated(a.split("=", 1)[1])
        elif a.startswith("--max-distance="):
            max_distance = float(a.split("=", 1)[1])
        elif a.startswith("--min-support="):
            min_support = int(a.split("=", 1)[1])
        else:
            rest.append(a)
    if len(rest) < 2:
        sys.exit(__doc__)
    counts = {}
    for run in rest[1:]:
        for k, hit in learn_run(run, given, max_distance, min_support).items():
            ex, inter = counts.get(k, (0, 0))
            counts[k] = (ex + 1, inter + hit)
    write(rest[0], len(rest) - 1, counts)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except TraceError as ex:
        sys.exit("reference_invariants: %s" % ex)
