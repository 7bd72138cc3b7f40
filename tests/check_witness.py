#!/usr/bin/env python3
"""Checks spider's witnesses (SPEC §4 "Witness") against Φ as
tests/reference.py builds it from the SPEC (its own SMT-LIB2, the `z3`
command), not against spider's model.

    check_witness.py [-j N] [SPIDER OPTIONS] TRACE...

Each TRACE (a file or directory) is one run.  It runs
${SPIDER:-./bin/spider} -f json --no-timings --witness [SPIDER OPTIONS]
TRACE and, for every group, checks that its instance has a witness and:
  - every event of the witness is an event of the trace (thread, index),
    listed once, and each event of the instance is in it, marked with its
    place in the instance ("instance": k);
  - the instance's events come in the order of the kind's query: a data
    race's two accesses at one step, side by side; a message race's later
    send before its earlier receive; p < r < c; a1 < bx, by < a2; for a
    handler race, two receives of its thread whose handlers hold the two
    accesses, with their sends, the later send before the earlier receive;
  - "waits_for" names an earlier event of another thread;
  - Φ ∧ the query ∧ the witness's order (O(w_i) < O(w_i+1) between steps,
    = within one) is satisfiable (z3).
A trace the reference finds inconsistent must make spider say so (exit 2)
and has no witness.  Prints one line per trace ("ok"/"not ok: why") and a closing count; exits
1 if any check failed.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402

SPIDER = os.environ.get("SPIDER", "./bin/spider").split()
KINDS = ("data_races", "message_races", "handler_races",
         "atomicity_violations", "multi_variable_violations",
         "multi_variable_races")


def v(e):
    return ref.v(e)


def lt(a, b):
    return "(< %s %s)" % (v(a), v(b))


class Failure(Exception):
    pass


def event_of(tr, x, what):
    evs = tr.threads.get(x["thread"])
    if evs is None or not 0 <= x["index"] < len(evs):
        raise Failure("%s: no event %s#%s in the trace" % (what, x["thread"], x["index"]))
    e = evs[x["index"]]
    if e.type != x["type"]:
        raise Failure("%s: %s#%d is a %s, the report says %s" %
                      (what, x["thread"], x["index"], e.type, x["type"]))
    return e


def instance_events(g, kind):
    inst = g["instance"]
    if kind == "message_races":
        return inst["sends"] + inst["receives"]
    return inst["accesses"]


def handler_query(tr, a, b, wit, step):
    """The message race behind handler race (a, b), from the witness."""
    rcvs = [e for e in wit if e.type == "RCV" and e.thread == a.thread]
    for ra in rcvs:
        for rb in rcvs:
            if ra is rb or ra.handler is None or rb.handler is None:
                continue
            if ra.handler not in a.encl or rb.handler not in b.encl:
                continue
            r1, r2 = (ra, rb) if ra.idx < rb.idx else (rb, ra)
            s1, s2 = tr.its_send.get(r1), tr.its_send.get(r2)
            if s1 in wit and s2 in wit and step[s2] < step[r1]:
                return lt(s2, r1)
    raise Failure("no racing pair of messages (sends and receives, the later "
                  "send first) whose handlers hold the two accesses")


def query_of(tr, kind, inst, wit, step):
    """The query of the kind, after checking the instance's order."""
    if kind == "data_races":
        a, b = inst
        if step[a] != step[b] or abs(wit.index(a) - wit.index(b)) != 1:
            raise Failure("the two accesses are not at one step, side by side")
        return "(= %s %s)" % (v(a), v(b))
    if kind == "message_races":
        sa, sb, ra, rb = inst
        r1, s2 = (ra, sb) if ra.idx < rb.idx else (rb, sa)
        if not step[s2] < step[r1]:
            raise Failure("the later message is not sent before the first receive")
        return lt(s2, r1)
    if kind == "handler_races":
        return handler_query(tr, inst[0], inst[1], wit, step)
    if kind in ("atomicity_violations", "multi_variable_races"):
        p, r, c = inst
        if not step[p] < step[r] < step[c]:
            raise Failure("r is not between p and c")
        return "(and %s %s)" % (lt(p, r), lt(r, c))
    a1, a2, bx, by = inst
    if not (step[a1] < step[bx] < step[a2] and step[a1] < step[by] < step[a2]):
        raise Failure("bx and by are not both between a1 and a2")
    return "(and %s %s %s %s)" % (lt(a1, bx), lt(bx, a2), lt(a1, by), lt(by, a2))


def group_query(tr, kind, g):
    """The SMT-LIB2 formula a group's witness must satisfy with Φ."""
    where = "%s %s" % (kind, " / ".join(g["locations"]))
    try:
        steps = g["instance"].get("witness")
        if not steps:
            raise Failure("no witness")
        wit, step = [], {}
        for x in steps:
            e = event_of(tr, x, "witness")
            if e in step:
                raise Failure("%s#%d listed twice" % (e.thread, e.idx))
            wit.append(e)
            step[e] = x["step"]
        inst = [event_of(tr, x, "instance") for x in instance_events(g, kind)]
        for k, e in enumerate(inst):
            marked = [w for w, x in zip(wit, steps) if x.get("instance") == k]
            if marked != [e]:
                raise Failure("instance event %d is not marked once in the witness" % k)
        order = []
        for i in range(1, len(wit)):
            d = steps[i]["step"] - steps[i - 1]["step"]
            if d not in (0, 1):
                raise Failure("steps go from %d to %d" % (steps[i - 1]["step"], steps[i]["step"]))
            order.append(("(= %s %s)" if d == 0 else "(< %s %s)") % (v(wit[i - 1]), v(wit[i])))
            w = steps[i].get("waits_for")
        for i, x in enumerate(steps):
            w = x.get("waits_for")
            if w is None:
                continue
            if not 0 <= w < i or wit[w].thread == wit[i].thread:
                raise Failure("waits_for of step %d is no earlier event of another thread" % x["step"])
        q = query_of(tr, kind, inst, wit, step)
        return "(and %s)" % " ".join([q] + order) if order else q
    except Failure as f:
        raise Failure("%s: %s" % (where, f))


def check(path, opts):
    args = SPIDER + ["-f", "json", "--no-timings", "--witness"] + opts + [path]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    handlers = "floating" if "--handlers=floating" in opts else "nested"
    tr = ref.Trace(ref.load([path]))
    model = ref.Model(tr, handlers)
    if p.returncode == 2 and "inconsistent trace" in p.stderr:
        try:
            model.solve([])
        except ref.Inconsistent:
            return "ok %s (inconsistent: no run, no witness)" % path
    if p.returncode not in (0, 1):
        return "not ok: %s: spider exit %d: %s" % (path, p.returncode, p.stderr.strip()[:300])
    report = json.loads(p.stdout)
    groups, queries = [], []
    try:
        for kind in KINDS:
            for g in report.get(kind, []):
                queries.append(group_query(tr, kind, g))
                groups.append("%s %s" % (kind, " / ".join(g["locations"])))
    except Failure as f:
        return "not ok: %s: %s" % (path, f)
    if not queries:
        return "ok %s (no group)" % path
    answers = model.solve(queries)
    bad = [g for g, a in zip(groups, answers) if not a]
    if bad:
        return "not ok: %s: Φ ∧ query ∧ witness order unsat for %s" % (path, "; ".join(bad[:3]))
    return "ok %s (%d witnesses)" % (path, len(queries))


def main():
    argv = sys.argv[1:]
    jobs = 1
    if argv[:1] == ["-j"]:
        jobs, argv = int(argv[1]), argv[2:]
    opts = [a for a in argv if a.startswith("--")]
    paths = [a for a in argv if not a.startswith("--")]
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        lines = list(ex.map(lambda p: check(p, opts), paths))
    failed = sum(1 for x in lines if not x.startswith("ok"))
    witnesses = 0
    for x in lines:
        print(x)
        if x.startswith("ok") and "witnesses)" in x:
            witnesses += int(x.rsplit("(", 1)[1].split()[0])
    print("%d traces, %d witnesses checked, %d failed" % (len(lines), witnesses, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
