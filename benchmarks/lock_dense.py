#!/usr/bin/env python3
"""A trace whose lock has many clauses for its size: one node, THREADS
threads, each writing y, then SECTIONS sections of lock L one after
another (a write each, of the thread's own x or, one time in ten, of the
shared z; one time in ten a read of z follows the section), then reading
y.  Its lock has SECTIONS^2 * THREADS * (THREADS - 1) / 2 mutual-exclusion
clauses: Z3 given them all at once searched for minutes among a few
thousand (benchmarks/RESULTS.md, the eager threshold).

    benchmarks/lock_dense.py THREADS SECTIONS > FILE
"""
import json
import random
import sys


def main():
    threads, n = int(sys.argv[1]), int(sys.argv[2])
    r = random.Random(threads * 1000 + n)
    out = sys.stdout
    for th in range(threads):
        name = "t%d@n" % th
        evs = [{"thread": name, "type": "W", "variable": "y", "loc": "Y%d" % th}]
        for i in range(n):
            v = "z" if r.random() < 0.1 else "x%d" % th
            evs += [{"thread": name, "type": "LOCK", "variable": "L"},
                    {"thread": name, "type": "W", "variable": v, "loc": "X%d.%d" % (th, i % 3)},
                    {"thread": name, "type": "UNLOCK", "variable": "L"}]
            if r.random() < 0.1:
                evs.append({"thread": name, "type": "R", "variable": "z", "loc": "ZR%d" % th})
        evs.append({"thread": name, "type": "R", "variable": "y", "loc": "YR%d" % th})
        out.writelines(json.dumps(e) + "\n" for e in evs)


if __name__ == "__main__":
    main()
