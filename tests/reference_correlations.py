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


def correlations(tr, given, max_distance, min_support):
    """The correlated pairs of a trace: a list of dicts node, variables
    [X, Y] (X < Y byte-wise), distance, support, source; sorted."""
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
        if d is not None and sup >= min_support and d <= max_distance:
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
    return [pairs[k] for k in sorted(pairs, key=lambda k: tuple(bkey(x) for x in k))]
