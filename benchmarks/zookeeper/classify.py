#!/usr/bin/env python3
"""Sorts spider's JSON report on a ZooKeeper trace (benchmarks/zookeeper/run)
into the classes README.md discusses.

  classify.py REPORT.json

Data and handler races: one line per group (node, count, locations,
variable, the two threads).  Message races: counted by what the two
receives are, read from the trace lines the report points at:

  sync     one of them is an ordering message of the agent (volatile,
           future, latch: channel "sync"), not a message of the program
  queue    both are hand-offs through java.util.concurrent queues
           (from two producer threads, or two queues)
  task     at least one is the start of an executor task
  network  both are TCP/UDP receives (other connections)
  mixed    a network receive and a queue/task one
"""
import collections, json, sys

d = json.load(open(sys.argv[1]))
lines = {}


def event(ref):
    f, n = ref["file"], ref["line"]
    if f not in lines:
        lines[f] = open(f).read().split("\n")
    return json.loads(lines[f][n - 1])


def kind(e):
    if e.get("src") == "sync":
        return "sync"
    dst = str(e.get("dst", ""))
    if dst.startswith("q:"):
        return "queue"
    if dst.startswith("x:"):
        return "task"
    return "network"


s = d["summary"]
print("events %d, undecided %d, receives matched %d, unmatched %d" % (
    s["events"], s["undecided"], s["messages"]["matched_receives"], s["messages"]["unmatched_receives"]))
print("\ndata races: %d groups" % len(d["data_races"]))
for g in d["data_races"]:
    a, b = g["instance"]["accesses"]
    print("  %s x%d %s | %s\n      %s (%s %s / %s %s)" % (
        g["node"], g["count"], g["locations"][0], g["locations"][1], g["variable"].split("@")[0],
        a["type"], a["thread"].split("@")[0], b["type"], b["thread"].split("@")[0]))

classes = collections.Counter()
examples = {}
for g in d["message_races"]:
    r1, r2 = (event(r) for r in g["instance"]["receives"])
    k = sorted([kind(r1), kind(r2)])
    if "sync" in k:
        c = "sync"
    elif k == ["queue", "queue"]:
        c = "queue"
    elif "task" in k and "network" not in k:
        c = "task"
    elif k == ["network", "network"]:
        c = "network"
    else:
        c = "mixed"
    classes[c] += 1
    examples.setdefault(c, []).append("%s %s | %s (received by %s)" % (
        g["node"], g["locations"][0], g["locations"][1], r1["thread"].split("@")[0]))
print("\nmessage races: %d groups" % len(d["message_races"]))
for c, n in classes.most_common():
    print("  %-8s %d" % (c, n))
    for x in examples[c][:4]:
        print("      e.g. " + x)

print("\nhandler races: %d groups" % len(d["handler_races"]))
for g in d["handler_races"]:
    a, b = g["instance"]["accesses"]
    ha = a["context"]["handler"]["location"] if a["context"].get("handler") else "-"
    hb = b["context"]["handler"]["location"] if b["context"].get("handler") else "-"
    print("  %s x%d %s | %s\n      %s in handlers %s / %s" % (
        g["node"], g["count"], g["locations"][0], g["locations"][1], g["variable"].split("@")[0], ha, hb))
