#!/usr/bin/env python3
"""Writes property-cache.log (README.md beside this file): after the
Mozilla-0.8 bug of Lu's thesis, Figure 5.1(a-b): cache.table and
cache.empty, each under a lock of its own, updated one after the other
by js_FlushPropertyCache and js_PropertyCacheFill, and read by a lookup.

    benchmarks/mvrace/generate.py [FILE]
"""
import json
import os
import sys

N = "10.0.0.1"


def main():
    ev = []

    def e(th, typ, loc=None, **kw):
        d = {"thread": "%s@%s" % (th, N)}
        if loc:
            d["loc"] = loc
        d["type"] = typ
        d.update(kw)
        ev.append(d)

    def locked(th, fn, line, typ, var, lock):
        e(th, "LOCK", "%s.%d" % (fn, line - 1), variable=lock)
        e(th, typ, "%s.%d" % (fn, line), variable="JSPropertyCache." + var)
        e(th, "UNLOCK", "%s.%d" % (fn, line + 1), variable=lock)

    threads = ("gc", "fill", "lookup")
    e("main", "START")
    for k, th in enumerate(threads):
        e("main", "CREATE", "js.jsapi.JS_NewRuntime.%d" % (210 + k), child="%s@%s" % (th, N))
    # the flush: the table emptied, then the flag set, in two sections
    e("gc", "START")
    fn = "js.jsinterp.js_FlushPropertyCache"
    locked("gc", fn, 412, "W", "table", "table_lock")
    locked("gc", fn, 415, "W", "empty", "empty_lock")
    e("gc", "END")
    # three fills: an entry stored, then the flag cleared
    e("fill", "START")
    fn = "js.jsinterp.js_PropertyCacheFill"
    for _ in range(3):
        locked("fill", fn, 471, "W", "table", "table_lock")
        locked("fill", fn, 474, "W", "empty", "empty_lock")
    e("fill", "END")
    # a lookup reads the table only (what --multi-variable cannot see)
    e("lookup", "START")
    locked("lookup", "js.jsinterp.js_PropertyCacheTest", 520, "R", "table", "table_lock")
    e("lookup", "END")
    for k, th in enumerate(threads):
        e("main", "JOIN", "js.jsapi.JS_DestroyRuntime.%d" % (300 + k), child="%s@%s" % (th, N))
    e("main", "END")
    for i, d in enumerate(ev):
        d["timestamp"] = 100 + i
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "property-cache.log")
    with open(out, "w") as f:
        f.write("".join(json.dumps(d, separators=(",", ":")) + "\n" for d in ev))


if __name__ == "__main__":
    main()
