#!/usr/bin/env python3
"""Writes net-stats.log (README.md beside this file): after the Linux bug
MUVI found, velocity_receive_frame updating net_device_stats::rx_packets
without rx_bytes while four other drivers' receive paths update both.

    benchmarks/inconsistent/generate.py [FILE]
"""
import json
import os
import sys

N = "10.0.0.1"
DRIVERS = [("drv.rhine.rhine_rx", 810, 811), ("drv.e1000.e1000_clean_rx", 4410, 4412),
           ("drv.tg3.tg3_rx", 6710, 6711), ("drv.sky2.sky2_status_intr", 2300, 2302)]


def main():
    ev = []

    def e(th, typ, loc=None, **kw):
        d = {"thread": "%s@%s" % (th, N)}
        if loc:
            d["loc"] = loc
        d["type"] = typ
        d.update(kw)
        ev.append(d)

    def update(th, fn, line, var):
        e(th, "R", "%s.%d" % (fn, line), variable="net_device_stats." + var)
        e(th, "W", "%s.%d" % (fn, line), variable="net_device_stats." + var)

    e("main", "START")
    for k in (0, 1):
        e("main", "CREATE", "net.core.netdev_init.%d" % (40 + k), child="irq%d@%s" % (k, N))
    for k, th in enumerate(("irq0", "irq1")):
        e(th, "START")
        for fn, a, b in DRIVERS:   # every receive path under the stats lock
            e(th, "LOCK", "%s.%d" % (fn, a - 1), variable="stats_lock")
            update(th, fn, a, "rx_packets")
            update(th, fn, b, "rx_bytes")
            e(th, "UNLOCK", "%s.%d" % (fn, b + 1), variable="stats_lock")
        if k == 1:                 # the bug: rx_bytes forgotten
            fn = "drv.velocity.velocity_receive_frame"
            e(th, "LOCK", fn + ".1559", variable="stats_lock")
            update(th, fn, 1560, "rx_packets")
            e(th, "UNLOCK", fn + ".1561", variable="stats_lock")
        e(th, "END")
    for k in (0, 1):
        e("main", "JOIN", "net.core.netdev_stop.%d" % (90 + k), child="irq%d@%s" % (k, N))
    e("main", "END")
    for i, d in enumerate(ev):
        d["timestamp"] = 100 + i
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "net-stats.log")
    with open(out, "w") as f:
        f.write("".join(json.dumps(d, separators=(",", ":")) + "\n" for d in ev))


if __name__ == "__main__":
    main()
