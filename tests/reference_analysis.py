"""The analyses, for tests/reference.py (SPEC §3-§4): analyse() lists the
candidates of every kind (data, message and handler races, atomicity and
multi-variable violations; choices 6-8, 17 and 18 in reference.py's
docstring), asks z3 about them in one script and groups the satisfiable
ones; public() and found() read its report; run_reference() analyses
trace paths under the command line's options."""
from reference_correlations import correlations, parse_correlated
from reference_load import TraceError, load
from reference_model import Inconsistent, Model, Trace, v

ALL_PATTERNS = [a + b + c for a in "RW" for b in "RW" for c in "RW"]
DEFAULT_PATTERNS = ["RWR", "WWR", "WRW", "RWW"]


# ---------------------------------------------------------------- analysis

def cross_pairs(acc, pr):
    """For correlated pair pr: ([(thread, a, b)] with a, b consecutive among
    a context's accesses to its two variables and on different ones, the
    accesses to either variable in input order)."""
    node = pr["node"]
    vx, vy = (node, pr["variables"][0]), (node, pr["variables"][1])
    both = sorted(acc.get(vx, []) + acc.get(vy, []), key=lambda e: e.gid)
    ctxs = {}
    for e in both:
        ctxs.setdefault((e.thread, e.ctx.hid if e.ctx is not None else None), []).append(e)
    out = [(th, a, b) for (th, hid), cl in ctxs.items()
           for a, b in zip(cl, cl[1:]) if a.var != b.var]
    return out, both


def analyse(events, handlers="nested", atomicity=False, patterns=None, region="access",
            z3_only=False, multi_variable=False, given=(), max_distance=5.0,
            min_support=3, miners=("sun",), mv_races=False):
    """The report as a dict of lists of groups; each group: locations,
    variable, node, count, pattern, and `alts`: the set of (variable, node,
    pattern) of its instances (for multi-variable groups the variable is the
    pair (x, y)).  With multi_variable or mv_races (multi-variable races),
    also "correlated_pairs"."""
    tr = Trace(events)
    m = Model(tr, handlers)
    queries = []      # SMT formulas
    cands = []        # (kind, payload, query index or None (unsat) )

    # Φ without disjunctions and acyclic: a candidate that the DAG does not
    # order is satisfiable (give each event its longest-path depth, then
    # merge or reorder the two events: no cycle); ask z3 nothing.
    pure = m.reach is not None and not m.asserts and not z3_only

    def ask(q):
        if pure:
            return -1
        queries.append(q)
        return len(queries) - 1

    def between(p, r, c):
        """The queries of r between p and c and r outside them, or None
        when the unconditional order already decides one of them UNSAT."""
        if m.before(r, p) or m.before(c, r):
            return None
        if m.before(p, r) and m.before(r, c):
            return None
        return (ask("(and (< %s %s) (< %s %s))" % (v(p), v(r), v(r), v(c))),
                ask("(or (< %s %s) (< %s %s))" % (v(r), v(p), v(c), v(r))))

    # data races
    acc = {}
    for e in tr.events:
        if e.type in ("R", "W"):
            acc.setdefault(e.var, []).append(e)
    for var, lst in acc.items():
        for i in range(len(lst)):
            a = lst[i]
            for j in range(i + 1, len(lst)):
                b = lst[j]
                if a.thread == b.thread or (a.type == "R" and b.type == "R"):
                    continue
                if m.before(a, b) or m.before(b, a):
                    continue
                cands.append(("data", (a, b), ask("(= %s %s)" % (v(a), v(b)))))
    # message races
    for th, evs in tr.threads.items():
        rcvs = [e for e in evs if e.type == "RCV" and e in tr.its_send]
        for i in range(len(rcvs)):
            r1 = rcvs[i]
            s1 = tr.its_send[r1]
            for j in range(i + 1, len(rcvs)):
                r2 = rcvs[j]
                s2 = tr.its_send[r2]
                if s1 is s2:
                    continue
                if r1.tcp and r2.tcp and r1.chan is not None and r1.chan == r2.chan:
                    continue
                if m.before(r1, s2) or r1 is s2:
                    continue
                cands.append(("message", (r1, r2), ask("(< %s %s)" % (v(s2), v(r1)))))
    # atomicity
    if atomicity:
        pats = set(patterns or DEFAULT_PATTERNS)
        sections = {}
        for th, lock, L, U in tr.sections:
            sections.setdefault(th, []).append((L.idx, U.idx if U is not None else float("inf")))
        for var, lst in acc.items():
            ctxs = {}
            for e in lst:
                ctxs.setdefault((e.thread, e.ctx.hid if e.ctx is not None else None), []).append(e)
            for (th, hid), cl in ctxs.items():
                if region == "handler" and hid is None:
                    continue
                for p, c in zip(cl, cl[1:]):
                    if region == "lock" and not any(L < p.idx and c.idx < U for L, U in sections.get(th, [])):
                        continue
                    for r in lst:
                        if r.thread == th:
                            continue
                        pat = p.type + r.type + c.type
                        if pat not in pats:
                            continue
                        qs = between(p, r, c)
                        if qs:
                            cands.append(("atomicity", (p, r, c, pat), qs))
    # multi-variable atomicity violations
    pairs = []
    if multi_variable or mv_races:
        pairs = correlations(tr, given, max_distance, min_support, miners)
    if mv_races:
        # multi-variable races (docs/model.md): p, c consecutive among a
        # context's accesses to x or y, on different variables; r of another
        # thread on p's variable conflicting with p, or on c's with c
        for pr in pairs:
            for th, p, c in cross_pairs(acc, pr)[0]:
                for local in (p, c):
                    for r in acc.get(local.var, []):
                        if r.thread == th or (r.type == "R" and local.type == "R"):
                            continue
                        qs = between(p, r, c)
                        if qs:
                            pat = "%sx..%sy / %s%s" % (p.type, c.type, r.type,
                                                       "x" if local is p else "y")
                            cands.append(("mvrace", (p, r, c, pat), qs))
    if multi_variable:
        by_thread = {}   # (thread, (node, var)) -> accesses in program order
        for e in tr.events:
            if e.type in ("R", "W"):
                by_thread.setdefault((e.thread, e.var), []).append(e)
        for pr in pairs:
            crossing, both = cross_pairs(acc, pr)
            others = sorted({e.thread for e in both})
            for th, a1, a2 in crossing:
                for t2 in others:
                    if t2 == th:
                        continue
                    for bx in by_thread.get((t2, a1.var), []):
                        if a1.type == "R" and bx.type == "R":
                            continue
                        for by in by_thread.get((t2, a2.var), []):
                            if a2.type == "R" and by.type == "R":
                                continue
                            if (m.before(bx, a1) or m.before(a2, bx)
                                    or m.before(by, a1) or m.before(a2, by)):
                                continue
                            if (m.before(a1, bx) and m.before(bx, a2)
                                    and m.before(a1, by) and m.before(by, a2)):
                                continue
                            conj = "(and (< %s %s) (< %s %s) (< %s %s) (< %s %s))" % (
                                v(a1), v(bx), v(bx), v(a2), v(a1), v(by), v(by), v(a2))
                            q1 = ask(conj)
                            q2 = ask("(not %s)" % conj)
                            pat = "%sx..%sy / %sx,%sy" % (a1.type, a2.type, bx.type, by.type)
                            cands.append(("mv", (a1, a2, bx, by, pat), (q1, q2)))
    ans = m.solve(queries) + [True]   # ans[-1]: decided sat without z3

    groups = {"data_races": {}, "message_races": {}, "handler_races": {},
              "atomicity_violations": {}}
    if multi_variable:
        groups["multi_variable_violations"] = {}
    if mv_races:
        groups["multi_variable_races"] = {}

    def add(kind, locs, inst, alt, extra):
        g = groups[kind].get(locs)
        if g is None:
            g = groups[kind][locs] = dict(locations=list(locs), count=0, instances=set(), alts=set(), **extra)
        if inst not in g["instances"]:
            g["instances"].add(inst)
            g["count"] += 1
            g["alts"].add(alt)

    for kind, pl, qi in cands:
        if kind == "data":
            if not ans[qi]:
                continue
            a, b = pl
            locs = tuple(sorted((a.loc, b.loc)))
            add("data_races", locs, (a.gid, b.gid), (a.var[1], a.node, None),
                dict(variable=a.var[1], node=a.node))
        elif kind == "message":
            if not ans[qi]:
                continue
            r1, r2 = pl
            s1, s2 = tr.its_send[r1], tr.its_send[r2]
            locs = tuple(sorted((s1.loc, s2.loc)))
            add("message_races", locs, (r1.gid, r2.gid), (None, r1.node, None), dict(node=r1.node))
            h1, h2 = r1.handler, r2.handler
            if h1 is None or h2 is None:
                continue
            e1, e2 = h1.events, h2.events
            set1, set2 = set(e1), set(e2)
            if h2.begin in set1:      # h2 nested in h1
                e1 = [e for e in e1 if e not in set2]
            elif h1.begin in set2:
                e2 = [e for e in e2 if e not in set1]
            a1 = [e for e in e1 if e.type in ("R", "W")]
            a2 = [e for e in e2 if e.type in ("R", "W")]
            for a in a1:
                for b in a2:
                    if a is b or a.var != b.var or (a.type == "R" and b.type == "R"):
                        continue
                    locs = tuple(sorted((a.loc, b.loc)))
                    add("handler_races", locs, (min(a.gid, b.gid), max(a.gid, b.gid)),
                        (a.var[1], a.node, None), dict(variable=a.var[1], node=a.node))
        elif kind == "mv":
            q1, q2 = qi
            if not (ans[q1] and ans[q2]):
                continue
            a1, a2, bx, by, pat = pl
            xy = (a1.var[1], a2.var[1])
            add("multi_variable_violations", (a1.loc, a2.loc, bx.loc, by.loc),
                (a1.gid, a2.gid, bx.gid, by.gid), (xy, a1.node, pat),
                dict(variables=list(xy), node=a1.node, pattern=pat))
        elif kind == "mvrace":
            q1, q2 = qi
            if not (ans[q1] and ans[q2]):
                continue
            p, r, c, pat = pl
            xy = (p.var[1], c.var[1])
            add("multi_variable_races", (p.loc, r.loc, c.loc),
                (p.gid, r.gid, c.gid), (xy, p.node, pat),
                dict(variables=list(xy), node=p.node, pattern=pat))
        else:
            q1, q2 = qi
            if not (ans[q1] and ans[q2]):
                continue
            p, r, c, pat = pl
            locs = (p.loc, r.loc, c.loc)
            add("atomicity_violations", locs, (p.gid, r.gid, c.gid), (p.var[1], p.node, pat),
                dict(pattern=pat, variable=p.var[1], node=p.node))
    out = {}
    for kind, d in groups.items():
        lst = []
        for locs in sorted(d):
            g = d[locs]
            del g["instances"]
            lst.append(g)
        out[kind] = lst
    if multi_variable or mv_races:
        out["correlated_pairs"] = pairs
    return out


def public(report):
    out = {}
    for k, lst in report.items():
        if k == "correlated_pairs":
            out["summary"] = {"correlated_pairs": lst}
        else:
            out[k] = [{x: y for x, y in g.items() if x != "alts"} for g in lst]
    return out


MINERS = {"sun": ("sun",), "muvi": ("muvi",), "both": ("sun", "muvi")}


def found(report):
    return any(lst for k, lst in report.items() if k != "correlated_pairs")


def run_reference(paths, o, handlers):
    """('ok', report) | ('inconsistent', None) | ('error', message)"""
    try:
        given = parse_correlated(o["correlated"]) if o["correlated"] else []
        ev = load(paths)
        return "ok", analyse(ev, handlers, o["atomicity"], o["patterns"], o["region"],
                               o["z3_only"], o["multi_variable"], given,
                               float(o["max_distance"] or 5), int(o["min_support"] or 3),
                               MINERS[o.get("correlation", "sun")],
                               o.get("mv_races", False))
    except TraceError as ex:
        return "error", str(ex)
    except Inconsistent:
        return "inconsistent", None
