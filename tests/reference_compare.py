"""`reference.py compare`: each trace against spider (choices 11 and 19
in reference.py's docstring).  compare_one() runs ${SPIDER:-./bin/spider}
in the MODES for both handler models (and --list-correlations with
--multi-variable) and compares its JSON with the reference's report;
cached_reference() keeps the reference's answers under $REFERENCE_CACHE
for make check's sanitized pass."""
import hashlib
import json
import os
import pickle
import subprocess
import threading

from reference_analysis import MINERS, found, run_reference
from reference_correlations import bkey, correlations, parse_correlated
from reference_load import TraceError, load, text_of
from reference_model import Trace


def trace_bytes(path):
    """The bytes a trace path stands for: a file's, or a directory's
    regular files' with their names, in name order."""
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            return f.read()
    out = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out += [os.fsencode(name), b"\0", f.read(), b"\0"]
    return b"".join(out)


# cached_reference's keys start here: the reference's own sources, the
# entry point and its modules (a change to any of them is a new key)
SOURCES = ("reference.py", "reference_load.py", "reference_model.py",
           "reference_correlations.py", "reference_analysis.py",
           "reference_compare.py")
SCRIPT_HASH = hashlib.sha256()
for _name in SOURCES:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), _name), "rb") as _script:
        SCRIPT_HASH.update(_script.read())


def cached_reference(path, o, handlers):
    """run_reference([path], o, handlers), kept under REFERENCE_CACHE (a
    directory) by the hash of its sources, the options and the trace's
    bytes: make check's sanitized pass compares spider with the answers
    the plain pass computed for the same traces (only spider is under
    test there)."""
    cache = os.environ.get("REFERENCE_CACHE")
    if not cache:
        return run_reference([path], o, handlers)
    h = SCRIPT_HASH.copy()
    h.update(repr((sorted(o.items()), handlers)).encode())
    try:
        if o.get("correlated"):
            h.update(trace_bytes(o["correlated"]))
        h.update(trace_bytes(path))
    except OSError:  # unreadable: the reference says so, uncached
        return run_reference([path], o, handlers)
    key = os.path.join(cache, h.hexdigest())
    if os.path.exists(key):
        with open(key, "rb") as f:
            return pickle.load(f)
    result = run_reference([path], o, handlers)
    os.makedirs(cache, exist_ok=True)
    tmp = "%s.%d.%d" % (key, os.getpid(), threading.get_ident())
    with open(tmp, "wb") as f:
        pickle.dump(result, f)
    os.replace(tmp, key)
    return result

MODES = [("default", []), ("no-prune", ["--no-prune"]),
         # Z3 on every candidate, every lock's clauses given only as
         # its models break them (encode_z3.c): the reference lists them all
         ("z3", ["--solver=z3", "--no-prune", "--eager-locks=0"]),
         ("exact", ["--no-prune", "--all-instances"])]


def spider_flags(o):
    f = []
    if o["atomicity"]:
        f.append("--atomicity")
        if o["patterns"]:
            f.append("--atomicity-patterns=" + ",".join(o["patterns"]))
        if o["region"] != "access":
            f.append("--atomic-region=" + o["region"])
    if o["multi_variable"]:
        f.append("--multi-variable")
    if o.get("mv_races"):
        f.append("--multi-variable-races")
    f += correlation_flags(o)
    return f


def correlation_flags(o):
    f = []
    if o["correlated"]:
        f.append("--correlated=" + o["correlated"])
    if o["max_distance"] is not None:
        f.append("--max-distance=" + o["max_distance"])
    if o["min_support"] is not None:
        f.append("--min-support=" + o["min_support"])
    if o.get("correlation", "sun") != "sun":
        f.append("--correlation=" + o["correlation"])
    return f


def pair_diffs(ref, sp, where):
    """Differences between the reference's correlated pairs and spider's
    list (node, variables, support, source exact; distance to 1e-9)."""
    if not isinstance(sp, list):
        return ["%s: no correlated_pairs list" % where]
    out = []
    key = lambda p: (norm(p.get("node")), tuple(norm(x) for x in p.get("variables", [])))
    sk = [key(p) for p in sp]
    if sk != sorted(sk, key=lambda k: (bkey(k[0] or ""),) + tuple(bkey(x or "") for x in k[1])):
        out.append("%s: not sorted by (node, X, Y)" % where)
    rd = {key(p): p for p in ref}
    sd = {}
    for p in sp:
        if key(p) in sd:
            out.append("%s: pair %s twice" % (where, key(p)))
        sd[key(p)] = p
    for k in sorted(set(rd) - set(sd), key=str):
        out.append("%s: pair %s %s missing in spider (support %d, distance %s)"
                   % (where, k, rd[k]["source"], rd[k]["support"], rd[k]["distance"]))
    for k in sorted(set(sd) - set(rd), key=str):
        out.append("%s: pair %s listed by spider only (%s)" % (where, k, json.dumps(sd[k])))
    for k in sorted(set(rd) & set(sd), key=str):
        r, s_ = rd[k], sd[k]
        bad = []
        if s_.get("support") != r["support"]:
            bad.append("support %s, reference %d" % (s_.get("support"), r["support"]))
        if s_.get("source") != r["source"]:
            bad.append("source %s, reference %s" % (s_.get("source"), r["source"]))
        sr, rr = s_.get("rule"), r.get("rule")
        if (sr is None) != (rr is None) or (rr and (
                sr.get("text") != rr["text"] or sr.get("support") != rr["support"] or
                abs(sr.get("confidence", -1) - rr["confidence"]) > 1e-9)):
            bad.append("rule %s, reference %s" % (json.dumps(sr), json.dumps(rr)))
        d = s_.get("distance")
        if r["distance"] is None:
            if d is not None:
                bad.append("distance %s, reference null" % d)
        elif not isinstance(d, (int, float)) or isinstance(d, bool) or abs(d - r["distance"]) > 1e-9:
            bad.append("distance %s, reference %r" % (d, r["distance"]))
        if bad:
            out.append("%s: pair %s: %s" % (where, k, "; ".join(bad)))
    return out


def norm(x):
    return x if isinstance(x, str) or x is None else text_of(x)


def has_handler_events(path):
    """Whether the trace has a HANDLERBEGIN or HANDLEREND (or cannot be
    read: then each model is asked on its own)."""
    try:
        return any(e.type in ("HANDLERBEGIN", "HANDLEREND") for e in load([path]))
    except TraceError:
        return True


def compare_one(path, o):
    """[(checks, [failure lines])]"""
    spider = os.environ.get("SPIDER", "./bin/spider")
    lines, checks = [], 0
    kinds = ["data_races", "message_races", "handler_races"]
    if o["atomicity"]:
        kinds.append("atomicity_violations")
    if o["multi_variable"]:
        kinds.append("multi_variable_violations")
    if o.get("mv_races"):
        kinds.append("multi_variable_races")
    if o["multi_variable"] or o.get("mv_races"):
        checks += 1
        tag = "not ok: %s --list-correlations: " % path
        try:
            given = parse_correlated(o["correlated"]) if o["correlated"] else []
            st, ref = "ok", correlations(Trace(load([path])), given,
                                         float(o["max_distance"] or 5), int(o["min_support"] or 3),
                                         MINERS[o.get("correlation", "sun")])
        except TraceError as ex:
            st, ref = "error", str(ex)
        p = subprocess.run([spider, "-f", "json", "--no-timings", "-q", "--list-correlations"]
                           + correlation_flags(o) + [path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if st == "error":
            if p.returncode != 2:
                lines.append(tag + "reference: %s, spider exit %d" % (ref, p.returncode))
            elif o["correlated"] and ref.startswith(o["correlated"] + ":") \
                    and ref[:ref.index(":", len(o["correlated"]) + 1)] not in p.stderr:
                lines.append(tag + "spider's message does not name the line: %s" % p.stderr.strip()[:200])
        else:
            try:
                sp = json.loads(p.stdout)
            except ValueError:
                sp = None
            if p.returncode != 0:
                lines.append(tag + "spider exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
            elif not isinstance(sp, dict):
                lines.append(tag + "spider output is not a JSON object")
            else:
                d = pair_diffs(ref, sp.get("correlated_pairs"), "list")
                if d:
                    lines.append(tag + "; ".join(d))
    refs = {}
    for model in ("nested", "floating"):
        # without a handler the models are one Φ (SPEC §2): asked once
        if model == "floating" and not has_handler_events(path):
            refs[model] = refs["nested"]
        else:
            refs[model] = cached_reference(path, o, model)
        st, ref = refs[model]
        for mode, flags in MODES:
            checks += 1
            tag = "not ok: %s %s %s: " % (path, model, mode)
            try:
                p = subprocess.run([spider, "-f", "json", "--no-timings", "-q", "--handlers=" + model]
                                   + flags + spider_flags(o) + [path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            except OSError as ex:
                lines.append(tag + "cannot run %s: %s" % (spider, ex))
                continue
            if st != "ok":
                if p.returncode != 2:
                    lines.append(tag + "reference: %s, spider exit %d" % (st if st == "inconsistent" else ref, p.returncode))
                continue
            if p.returncode not in (0, 1):
                lines.append(tag + "spider exit %d: %s" % (p.returncode, " | ".join(p.stderr.strip().splitlines()[:2])[:300]))
                continue
            try:
                sp = json.loads(p.stdout)
            except ValueError:
                lines.append(tag + "spider output is not JSON")
                continue
            diffs = []
            for k in kinds:
                rg = {tuple(g["locations"]): g for g in ref[k]}
                sg = {}
                for g in sp.get(k, []):
                    sg[tuple(norm(x) for x in g["locations"])] = g
                for locs in sorted(set(rg) - set(sg)):
                    diffs.append("%s %s missing in spider (count %d)" % (k, list(locs), rg[locs]["count"]))
                for locs in sorted(set(sg) - set(rg)):
                    diffs.append("%s %s reported by spider only" % (k, list(locs)))
                for locs in sorted(set(rg) & set(sg)):
                    r, s = rg[locs], sg[locs]
                    if k in ("multi_variable_violations", "multi_variable_races"):
                        var = tuple(norm(x) for x in s.get("variables", []))
                    else:
                        var = norm(s.get("variable")) if k != "message_races" else None
                    pat = s.get("pattern") if k in ("atomicity_violations", "multi_variable_violations",
                                                    "multi_variable_races") else None
                    alt = (var, norm(s.get("node")), pat)
                    if alt not in r["alts"]:
                        diffs.append("%s %s: spider shows %s, reference has %s"
                                     % (k, list(locs), alt, sorted(r["alts"], key=str)))
                    if mode == "exact" and s.get("count") != r["count"]:
                        diffs.append("%s %s: count %s, reference %d" % (k, list(locs), s.get("count"), r["count"]))
            if sp.get("undecided"):
                diffs.append("undecided groups")
            if o["multi_variable"] or o.get("mv_races"):
                diffs += pair_diffs(ref["correlated_pairs"],
                                    (sp.get("summary") or {}).get("correlated_pairs"), "summary")
            want = 1 if found(ref) else 0
            if p.returncode != want:
                diffs.append("exit %d, reference %d" % (p.returncode, want))
            if diffs:
                lines.append(tag + "; ".join(diffs))
    return checks, lines
