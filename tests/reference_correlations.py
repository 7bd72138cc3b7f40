"""Correlated variables, for tests/reference.py --multi-variable (SPEC §4,
choices 12-16 in reference.py's docstring): the --correlated file, the
gaps between a thread's accesses to two variables, their median and MAD,
and correlations(), the correlated pairs of a trace."""
import re

from reference_load import TraceError


# ---------------------------------------------------------------- correlations

MAD_SCALE = 1.4826
BLANK = re.compile(r"[ \t\r\n\v\f]+")


def bkey(x):
    """Byte-wise (strcmp) order of a name."""
    return x.encode("utf-8", "surrogateescape")


def parse_correlated(path):
    """[(node or None for *, x, y)] of a --correlated file, or raise
    TraceError naming FILE:LINE."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as ex:
        raise TraceError("%s: cannot read: %s" % (path, ex.strerror))
    out = []
    for n, line in enumerate(data.decode("utf-8", "surrogateescape").split("\n"), 1):
        toks = [t for t in BLANK.split(line) if t]
        if not toks or toks[0].startswith("#"):
            continue
        if len(toks) != 3:
            raise TraceError("%s:%d: want NODE X Y or * X Y" % (path, n))
        if toks[1] == toks[2]:
            raise TraceError("%s:%d: a variable is not correlated with itself" % (path, n))
        out.append((None if toks[0] == "*" else toks[0], toks[1], toks[2]))
    return out


def median(xs):
    xs = sorted(xs)
    k = len(xs)
    return xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) / 2


def gap_stats(gaps):
    """(distance or None, support) of a list of gaps (choice 14)."""
    if not gaps:
        return None, 0
    m = median(gaps)
    mad = median([abs(g - m) for g in gaps])
    if mad == 0:
        kept = [g for g in gaps if g == m]
    else:
        kept = [g for g in gaps if abs(g - m) < 2 * MAD_SCALE * mad]
    if not kept:
        return None, 0
    return sum(kept) / len(kept), len(kept)


MUVI_MIN_SUPPORT, MUVI_MIN_CONFIDENCE, MUVI_MAX_LINES, MUVI_POPULAR = 3, 0.8, 10, 100
FUNCTION = re.compile(r"(.+)\.([0-9]{1,9})\Z", re.S)


def function_of(loc):
    """(function, line) of a location: a.b.C.m.12 is line 12 of a.b.C.m;
    without a trailing number, the location itself at line 0."""
    m = FUNCTION.match(loc)
    return (m.group(1), int(m.group(2))) if m else (loc, 0)


def muvi_rules(tr):
    """MUVI's access rules that hold (docs/model.md, "MUVI's access
    rules"): [(from, to, A1, A2, support, confidence)], A1/A2 in R, W, A,
    sorted by (from, to) byte-wise, then A1, A2 in the order R, W, A."""
    acc = {}             # function -> set of (line, variable name, type)
    for e in tr.events:
        if e.type in ("R", "W") and e.loc_given:
            fn, line = function_of(e.loc)
            acc.setdefault(fn, set()).add((line, e.var[1], e.type))
    performs = {}        # (variable, A) -> functions
    support = {}         # (from, to, A1, A2) -> functions
    for fn, s in acc.items():
        kinds = lambda t: (t, "A")
        for _, v, t in s:
            for a in kinds(t):
                performs.setdefault((v, a), set()).add(fn)
        for l1, x, t1 in s:
            for l2, y, t2 in s:
                if x != y and abs(l1 - l2) <= MUVI_MAX_LINES:
                    for a1 in kinds(t1):
                        for a2 in kinds(t2):
                            support.setdefault((x, y, a1, a2), set()).add(fn)
    popular = {v for (v, a), fns in performs.items() if a == "A" and len(fns) > MUVI_POPULAR}
    out = []
    for (x, y, a1, a2), fns in support.items():
        conf = len(fns) / len(performs[(x, a1)])
        if len(fns) >= MUVI_MIN_SUPPORT and conf >= MUVI_MIN_CONFIDENCE and \
                x not in popular and y not in popular:
            out.append((x, y, a1, a2, len(fns), conf))
    order = {"R": 0, "W": 1, "A": 2}
    out.sort(key=lambda r: (bkey(r[0]), bkey(r[1]), order[r[2]], order[r[3]]))
    return out


def correlations(tr, given, max_distance, min_support, miners=("sun",)):
    """The correlated pairs of a trace: a list of dicts node, variables
    [X, Y] (X < Y byte-wise), distance, support, source, and with MUVI's
    miner the pair's strongest rule; sorted."""
    threads_of = {}      # (node, var) -> set of threads
    names = {}           # node -> set of variable names accessed
    gaps = {}            # (node, X, Y) -> [gap]
    for th, evs in tr.threads.items():
        last = {}        # var name -> position of the thread's last access
        for e in evs:
            if e.type not in ("R", "W"):
                continue
            node, y = e.var
            threads_of.setdefault(e.var, set()).add(th)
            names.setdefault(node, set()).add(y)
            ly = last.get(y, -1)
            for x, lx in last.items():
                if x != y and lx > ly:      # x is the previous access to x or y
                    key = (node,) + ((x, y) if bkey(x) < bkey(y) else (y, x))
                    gaps.setdefault(key, []).append(e.idx - lx)
            last[y] = e.idx
    pairs = {}
    for key, gs in gaps.items():
        node, x, y = key
        if len(threads_of[(node, x)]) < 2 or len(threads_of[(node, y)]) < 2:
            continue
        d, sup = gap_stats(gs)
        if "sun" in miners and d is not None and sup >= min_support and d <= max_distance:
            pairs[key] = dict(node=node, variables=[x, y], distance=d, support=sup,
                              source="mined")
    for gnode, x, y in given:
        if bkey(y) < bkey(x):
            x, y = y, x
        for node in ([gnode] if gnode is not None else list(names)):
            if node not in names or x not in names[node] or y not in names[node]:
                continue
            key = (node, x, y)
            if key in pairs:
                if pairs[key]["source"] == "mined":
                    pairs[key]["source"] = "both"
                continue
            d, sup = gap_stats(gaps.get(key, []))
            pairs[key] = dict(node=node, variables=[x, y], distance=d, support=sup,
                              source="given")
    if "muvi" in miners:
        best = {}        # {x, y} -> the strongest rule: confidence, support, first
        for r in muvi_rules(tr):
            k = frozenset(r[:2])
            if k not in best or (r[5], r[4]) > (best[k][5], best[k][4]):
                best[k] = r
        for r in best.values():
            x, y = sorted(r[:2], key=bkey)
            for node in names:
                if x not in names[node] or y not in names[node]:
                    continue
                key = (node, x, y)
                p = pairs.get(key)
                if p is None:
                    d, sup = gap_stats(gaps.get(key, []))
                    p = pairs[key] = dict(node=node, variables=[x, y], distance=d,
                                          support=sup, source="muvi")
                else:
                    p["source"] = {"mined": "mined+muvi", "given": "given+muvi",
                                   "both": "mined+given+muvi"}[p["source"]]
                p["rule"] = dict(text="%s(%s) => %s(%s)" % (r[2], r[0], r[3], r[1]),
                                 support=r[4], confidence=r[5])
    return [pairs[k] for k in sorted(pairs, key=lambda k: tuple(bkey(x) for x in k))]


def inconsistent_updates(tr):
    """MUVI's inconsistent updates (docs/model.md): for each rule
    W(x) => A(y) that holds, each write w of x at a location of a
    function that never accesses y, with s the least access to y (by
    thread name, then place) in a function that writes x and accesses y.
    Groups {(loc(w), loc(s)): dict(count, w, s, rule)}, w the least."""
    rules = muvi_rules(tr)
    holds = {(r[0], r[1], r[2], r[3]): r for r in rules}
    by_var = {}
    for e in tr.events:
        if e.type in ("R", "W") and e.loc_given:
            by_var.setdefault(e.var[1], []).append((function_of(e.loc)[0], e))
    least = lambda e: (bkey(e.thread), e.idx)
    groups = {}
    for x, y, a1, a2, sup, conf in rules:
        if (a1, a2) != ("W", "A"):
            continue
        writes_x = {fn for fn, e in by_var.get(x, []) if e.type == "W"}
        touches_y = {fn for fn, e in by_var.get(y, [])}
        supp = [e for fn, e in by_var.get(y, []) if fn in writes_x]
        if not supp:
            continue
        s = min(supp, key=least)
        text = "W(x) => %s(y)" % ("W" if (x, y, "W", "W") in holds else "A")
        for fn, w in by_var.get(x, []):
            if w.type != "W" or fn in touches_y:
                continue
            g = groups.setdefault((w.loc, s.loc), dict(count=0, w=w, s=s,
                                                      rule=(text, sup, conf)))
            g["count"] += 1
            if least(w) < least(g["w"]):
                g["w"] = w
    return groups
