"""Differential checks driven by tests/t0040-invariance.sh,
tests/t0050-exact.sh and tests/t0060-prune-contract.sh, in one Python
process so that a few hundred traces run in seconds.

    differential.py exact [--min-coverage=N] DIR-OR-FILE...
        per trace, both handler models: the default analysis has the race
        groups of --solver=z3 --no-prune (Z3 on every candidate, every
        event); --all-instances --no-prune has its whole report, counts
        too, and --all-instances that of --solver=z3 (counts are compared
        only between runs that both prune or both do not: pruning may
        lower them)
    differential.py invariance SEED-DIR...      # SEED-DIR holds d/ (per node) and m.log
    differential.py prune [--min-coverage=N] DIR-OR-FILE...
        pruning keeps every race group and raises no count

A trace PATH written by bin/gen-trace may have its coverage line (the
generator's stderr) in PATH.coverage; the totals over the run are printed,
and with --min-coverage=N a feature hit fewer than N times in all (or no
coverage file at all) is a failure.  --extra=ARG adds ARG to every spider
run (repeat it for more), e.g. --extra=--atomicity: the atomicity groups
are then compared too (and --extra=--multi-variable the multi-variable
ones, with the correlated pairs of the summary).

Traces run as many at a time as there are CPUs.  Prints one "not ok: ..."
line per failure and a closing "N checks, N failed";
exits 1 on any failure.
"""
import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

SPIDER = os.environ.get("SPIDER", "./bin/spider")
EXTRA = []          # --extra=ARG: added to every spider run (e.g. --atomicity)
KINDS = ("data_races", "message_races", "handler_races", "atomicity_violations",
         "multi_variable_violations")
checks = failures = 0
decided = {}
removed = {}
coverage = {}
coverage_files = 0
lock = threading.Lock()  # traces run two at a time (one per CPU): the
                         # counters above are shared


INCONSISTENT = {"inconsistent": True}


def run(args, inconsistent_ok=False):
    """The JSON report; with inconsistent_ok, INCONSISTENT for an
    inconsistent trace (exit 2, "inconsistent trace"), which every mode
    must then say alike."""
    p = subprocess.run([SPIDER, "-f", "json", "--no-timings"] + EXTRA + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if inconsistent_ok and p.returncode == 2 and "inconsistent trace" in p.stderr:
        return "", INCONSISTENT
    if p.returncode not in (0, 1):
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    return p.stdout, json.loads(p.stdout)


def same_consistency(reports, path, h):
    """True when every report is a report; a check that they agree when
    some say the trace is inconsistent."""
    bad = [r is INCONSISTENT for r in reports]
    if any(bad):
        check(all(bad), "%s (%s): only some modes find the trace inconsistent: %s"
              % (path, h, bad))
        return False
    return True


def check(ok, what):
    global checks, failures
    with lock:
        checks += 1
        if not ok:
            failures += 1
            print("not ok:", what)


def groups(d, fields=("locations", "variable", "node", "count")):
    out = []
    for k in KINDS:
        for g in d.get(k, []):
            out.append((k,) + tuple(json.dumps(g.get(f)) for f in fields))
    return out


def stripped(d):
    d = json.loads(json.dumps(d))
    d["summary"].pop("decided", None)
    for k in KINDS:
        for g in d.get(k, []):
            g.pop("unchecked", None)
    return d


def exact(path, h):
    base = ["--handlers=" + h, "--lenient", path]
    try:
        _, ref = run(["--solver=z3", "--no-prune"] + base, True)
        _, full = run(["--all-instances", "--no-prune"] + base, True)
        _, z3_pruned = run(["--solver=z3"] + base, True)
        _, full_pruned = run(["--all-instances"] + base, True)
        _, auto = run(base, True)
    except RuntimeError as e:
        check(False, "%s (%s): %s" % (path, h, e))
        return
    if not same_consistency((ref, full, z3_pruned, full_pruned, auto), path, h):
        return
    check(stripped(ref) == stripped(full),
          "%s (%s): --all-instances --no-prune differs from --solver=z3 --no-prune"
          % (path, h))
    check(stripped(z3_pruned) == stripped(full_pruned),
          "%s (%s): --all-instances differs from --solver=z3 (both prune)" % (path, h))
    gr, ga = groups(ref, ("locations",)), groups(auto, ("locations",))
    check(gr == ga, "%s (%s): default groups differ from --solver=z3 --no-prune: "
          "default lacks %s, has extra %s"
          % (path, h, sorted(set(gr) - set(ga))[:3], sorted(set(ga) - set(gr))[:3]))
    with lock:
        for k, v in full["summary"]["decided"].items():
            if k != "solver":
                decided[k] = decided.get(k, 0) + v


def prune(path, h):
    base = ["--handlers=" + h, "--lenient", "--all-instances", path]
    try:
        _, full = run(["--no-prune"] + base, True)
        _, pruned = run(base, True)
    except RuntimeError as e:
        check(False, "%s (%s): %s" % (path, h, e))
        return
    if not same_consistency((full, pruned), path, h):
        return
    gf, gp = groups(full, ("locations",)), groups(pruned, ("locations",))
    check(gf == gp, "%s (%s): pruning changed the race groups: lost %s, gained %s"
          % (path, h, sorted(set(gf) - set(gp))[:3], sorted(set(gp) - set(gf))[:3]))
    counts_f = {g[:2]: g[2] for g in groups(full, ("locations", "count"))}
    for g in groups(pruned, ("locations", "count")):
        check(int(g[2]) <= int(counts_f.get(g[:2], "0")),
              "%s (%s): pruning raised a count %s" % (path, h, g))
    s = pruned["summary"]
    with lock:
        for k in ("events", "accesses", "handler_events", "thread_events",
                  "other_events"):
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


def read_coverage(path):
    """Adds the counts of PATH.coverage, if any, to the totals."""
    global coverage_files
    try:
        with open(path.rstrip("/") + ".coverage") as f:
            lines = [l for l in f if l.startswith("coverage:")]
    except FileNotFoundError:
        return
    coverage_files += 1
    for line in lines:
        for item in line.split()[1:]:
            name, _, count = item.partition("=")
            coverage[name] = coverage.get(name, 0) + int(count)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    min_coverage = None
    paths = []
    for a in args:
        if a.startswith("--min-coverage="):
            min_coverage = int(a.split("=", 1)[1])
        elif a.startswith("--extra="):
            EXTRA.append(a.split("=", 1)[1])
        else:
            paths.append(a)
    for p in paths:
        read_coverage(p)
    work = {"exact": exact, "invariance": invariance, "prune": prune}[mode]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for f in [pool.submit(work, p, h) for p in paths
                  for h in ("nested", "floating")]:
            f.result()
    if decided:
        print("how candidates were decided:", decided)
    if removed:
        print("events removed by pruning:", removed)
    if coverage_files:
        print("generator coverage over %d traces: %s" % (coverage_files, " ".join(
            "%s=%d" % kv for kv in sorted(coverage.items()))))
    if min_coverage is not None:
        check(coverage_files > 0, "no generated trace has a .coverage file")
        for name, n in sorted(coverage.items()):
            check(n >= min_coverage, "generator feature %s hit %d times (< %d)"
                  % (name, n, min_coverage))
    print("%d checks, %d failed" % (checks, failures))
    sys.exit(1 if failures or not checks else 0)


main()
