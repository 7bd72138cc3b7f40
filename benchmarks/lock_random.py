#!/usr/bin/env python3
"""A lock-heavy trace from a generator spider was never tuned on: one node,
8 threads, 8 locks, 8 variables; each step a random thread takes or
releases a lock (about 30% of steps, nested, innermost released first) or
reads or writes a random variable; locks still held at the end are never
released.  The interleaving is uniform at random, so critical sections of
different threads alternate much more than in gen-trace --shape=locks.

    benchmarks/lock_random.py EVENTS [SEED] > FILE
"""
import json
import random
import sys


def main():
    n = int(sys.argv[1])
    r = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    threads, locks, variables = 8, 8, 8
    held = [[] for _ in range(threads)]
    owner = {}
    for _ in range(n):
        t = r.randrange(threads)
        th = "t%d@n1" % t
        if r.random() < 0.3:
            free = [k for k in range(locks) if k not in owner]
            if held[t] and (r.random() < 0.5 or not free):
                k = held[t].pop()
                del owner[k]
                e = {"thread": th, "type": "UNLOCK", "variable": "l%d" % k, "loc": "U%d" % k}
            elif free:
                k = r.choice(free)
                owner[k] = t
                held[t].append(k)
                e = {"thread": th, "type": "LOCK", "variable": "l%d" % k, "loc": "L%d" % k}
            else:
                e = {"thread": th, "type": "R", "variable": "v0", "loc": "x"}
        else:
            v = r.randrange(variables)
            ty = r.choice("RW")
            e = {"thread": th, "type": ty, "variable": "v%d" % v,
                 "loc": "%s%d.%d" % (ty, v, r.randrange(20))}
        print(json.dumps(e))


if __name__ == "__main__":
    main()
