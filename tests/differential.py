"""Differential checks driven by tests/t0040-invariance.sh and
tests/t0050-exact.sh, in one Python process so that a few hundred traces
run in seconds.

    differential.py exact DIR-OR-FILE...        # per trace, both handler models
    differential.py invariance SEED-DIR...      # SEED-DIR holds d/ (per node) and m.log
    differential.py prune DIR-OR-FILE...        # pruning keeps every race group

Prints one "not ok: ..." line per failure and a closing "N checks, N failed";
exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

SPIDER = os.environ.get("SPIDER", "./bin/spider")
checks = failures = 0
decided = {}
removed = {}


def run(args):
    p = subprocess.run([SPIDER, "-f", "json", "--no-timings"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    return p.stdout, json.loads(p.stdout)


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("not ok:", what)


def groups(d, fields=("locations", "variable", "node", "count")):
    out = []
    for k in ("data_races", "message_races", "handler_races"):
        for g in d[k]:
            out.append((k,) + tuple(json.dumps(g.get(f)) for f in fields))
    return out


def stripped(d):
    d = json.loads(json.dumps(d))
    d["summary"].pop("decided", None)
    for k in ("data_races", "message_races", "handler_races"):
        for g in d[k]:
            g.pop("unchecked", None)
    return d


def exact(path, h):
    base = ["--handlers=" + h, "--lenient", path]
    try:
        _, z3 = run(["--solver=z3"] + base)
        _, full = run(["--all-instances"] + base)
        _, auto = run(base)
    except RuntimeError as e:
        check(False, "%s (%s): %s" % (path, h, e))
        return
    check(stripped(z3) == stripped(full),
          "%s (%s): --all-instances differs from --solver=z3" % (path, h))
    check(groups(z3, ("locations",)) == groups(auto, ("locations",)),
          "%s (%s): default groups differ from --solver=z3" % (path, h))
    for k, v in full["summary"]["decided"].items():
        if k != "solver":
            decided[k] = decided.get(k, 0) + v


def prune(path, h):
    base = ["--handlers=" + h, "--lenient", "--all-instances", path]
    try:
        _, full = run(["--no-prune"] + base)
        _, pruned = run(base)
    except RuntimeError as e:
        check(False, "%s (%s): %s" % (path, h, e))
        return
    gf, gp = groups(full, ("locations",)), groups(pruned, ("locations",))
    check(gf == gp, "%s (%s): pruning changed the race groups: lost %s, gained %s"
          % (path, h, sorted(set(gf) - set(gp))[:3], sorted(set(gp) - set(gf))[:3]))
    counts_f = {g[:2]: g[2] for g in groups(full, ("locations", "count"))}
    for g in groups(pruned, ("locations", "count")):
        check(int(g[2]) <= int(counts_f.get(g[:2], "0")),
              "%s (%s): pruning raised a count %s" % (path, h, g))
    s = pruned["summary"]
    for k in ("events", "accesses", "handler_events", "thread_events", "other_events"):
        removed[k] = removed.get(k, 0) + s["pruned"][k]
    removed["total"] = removed.get("total", 0) + s["events"]


def invariance(seed_dir, h):
    per_node, merged = seed_dir + "/d", seed_dir + "/m.log"
    try:
        t1, d1 = run(["--handlers=" + h, "-j1", per_node])
        t2, _ = run(["--handlers=" + h, "-j2", per_node])
        _, dm = run(["--handlers=" + h, merged])
        files = sorted(os.path.join(per_node, f) for f in os.listdir(per_node))
        tr, _ = run(["--handlers=" + h, "-j1"] + files[::-1])
    except RuntimeError as e:
        check(False, "%s (%s): %s" % (seed_dir, h, e))
        return
    check(t1 == t2, "%s (%s): -j1 and -j2 differ" % (seed_dir, h))
    check(t1 == tr, "%s (%s): reversed file order differs" % (seed_dir, h))
    check(groups(d1) == groups(dm),
          "%s (%s): per-node files and merged file differ" % (seed_dir, h))


def main():
    mode, paths = sys.argv[1], sys.argv[2:]
    for p in paths:
        for h in ("nested", "floating"):
            {"exact": exact, "invariance": invariance, "prune": prune}[mode](p, h)
    if decided:
        print("how candidates were decided:", decided)
    if removed:
        print("events removed by pruning:", removed)
    print("%d checks, %d failed" % (checks, failures))
    sys.exit(1 if failures or not checks else 0)


main()
