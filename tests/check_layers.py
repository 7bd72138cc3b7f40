#!/usr/bin/env python3
"""The direction of spider's dependencies (docs/architecture.md).

A unit is a source file with the header of the same name (engine.c and
engine.h) and its X_internal.h if any; a header without a source
(spider.h) is a unit of its own.
Unit A uses unit B when A includes B's header, or when A's object file
calls or reads a symbol that B's object file defines (nm).  The check
fails, naming the files and the symbols or headers, when

  - units use each other in a circle, or folders do (spider/'s
    subfolders each count as one; spider.h is spider/'s own), or
  - a unit uses one of a higher layer than its own (LAYERS below), or
  - a unit is in no layer (a new file: give it one here), or
  - an analysis uses an engine unit beside the analysis API (ANALYSIS_API:
    engine.h and what it includes).

Usage: tests/check_layers.py [OBJ_DIR]   (default build/, after make)
"""
import fnmatch
import os
import re
import subprocess
import sys

# What an analysis may use of the engine: the analysis API (engine.h,
# with the descriptor of analysis.h and the order of hb_order.h) and
# nothing else of it, so that the engine's insides can change under the
# analyses.
ANALYSES = ["spider/analysis/analysis_*", "spider/analysis/correlation",
            "spider/analysis/correlation_muvi",
            "spider/analysis/invariants"]
ANALYSIS_API = ["spider/engine/engine", "spider/engine/analysis", "spider/engine/hb_order"]

# Lowest first; a unit may use its own layer (without a circle) and those
# below it.  Patterns name units: a path without .c/.h.
LAYERS = [
    ("util", ["util/*"]),
    ("traces", ["traces/*"]),
    ("encode", ["encode/*"]),
    ("prune", ["prune/*"]),
    ("report model", ["spider/spider", "spider/report/report", "spider/report/kinds"]),
    ("engine", ["spider/engine/*"]),
    ("analyses", ANALYSES),
    ("the list of analyses", ["spider/analysis/analyses"]),
    ("printers and selection", ["spider/report/report_*", "spider/report/baseline",
                                "spider/cli/filter", "spider/cli/suppress",
                                "spider/cli/select", "spider/cli/progress"]),
    ("the command", ["spider/cli/main", "spider/cli/options", "spider/cli/share_run",
                     "spider/cli/learn"]),
    ("the programs", ["spider/cli/spider", "spider/cli/spider_mpi"]),
]
FOLDERS = ["util", "traces", "encode", "prune", "spider"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(unit):
    for i, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(unit, p) for p in patterns):
            return i
    return None


def sources():
    out = []
    for folder in FOLDERS:
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            out += [os.path.join(root, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    return out


def unit_of(path, units):
    """A file's unit: X.c and X.h are X; X_internal.h, the header two
    files of a module share, is X's too when X.c exists."""
    unit = path[:-2] if path.endswith((".c", ".h")) else path
    if unit.endswith("_internal") and unit[:-len("_internal")] in units:
        return unit[:-len("_internal")]
    return unit


def include_uses(files, units):
    """{unit: {used unit: why}} from #include lines."""
    uses = {}
    for f in files:
        unit = unit_of(f, units)
        with open(f, encoding="utf-8") as fh:
            for inc in INCLUDE.findall(fh.read()):
                target = unit_of(os.path.normpath(os.path.join(os.path.dirname(f), inc)), units)
                if target in units and target != unit:
                    uses.setdefault(unit, {}).setdefault(target, set()).add('#include "%s"' % inc)
    return uses


# Sources only a build with MPI compiles (make MPI=1, bin/spider-mpi): a
# build without it has no object of them, and their #include lines are
# then all that is checked.
WITH_MPI = ["util/comm_mpi.c", "spider/cli/spider_mpi.c"]


def stale_objects(obj_dir, files):
    """The sources whose object is missing or older: their calls would go
    unseen."""
    out = []
    for f in files:
        if f.endswith(".c"):
            obj = os.path.join(obj_dir, f[:-2] + ".o")
            if f in WITH_MPI and not os.path.exists(obj):
                continue
            if not os.path.exists(obj) or os.path.getmtime(obj) < os.path.getmtime(f):
                out.append(f)
    return out


def symbol_uses(obj_dir, units, uses):
    """Adds {unit: {used unit: symbols}} from the objects' symbol tables."""
    defined, undefined = {}, {}
    unit_of_obj = {os.path.join(obj_dir, u + ".o"): u for u in units}
    objs = [o for o in unit_of_obj if os.path.exists(o)]
    if not objs:
        return 0
    # one nm for all: "OBJ: NAME TYPE ..." a line
    p = subprocess.run(["nm", "-A", "-P"] + objs, stdout=subprocess.PIPE, text=True, check=True)
    for line in p.stdout.splitlines():
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if obj not in unit_of_obj or len(parts) < 2:
            continue
        unit = unit_of_obj[obj]
        if parts[1] == "U":
            undefined.setdefault(unit, set()).add(parts[0])
        elif parts[1] in "TDRBCVW":
            defined.setdefault(parts[0], unit)
    for unit, names in undefined.items():
        for n in names:
            owner = defined.get(n)
            if owner and owner != unit:
                uses.setdefault(unit, {}).setdefault(owner, set()).add(n)
    return len(defined)


def circles(units, uses):
    """Strongly connected components of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(uses.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(units):
        if v not in index:
            visit(v)
    return out


def folder_of(unit):
    parts = unit.split("/")
    return "/".join(parts[:2]) if parts[0] == "spider" and len(parts) > 2 else parts[0]


def folder_uses(uses):
    """{folder: {used folder: {"unit -> unit"}}} between different folders."""
    out = {}
    for u, used in uses.items():
        for v in used:
            a, b = folder_of(u), folder_of(v)
            if a != b:
                out.setdefault(a, {}).setdefault(b, set()).add("%s -> %s" % (u, v))
    return out


def beside_the_api(units, uses):
    """An analysis that uses an engine unit outside the analysis API."""
    out = []
    for u in units:
        if not any(fnmatch.fnmatchcase(u, p) for p in ANALYSES):
            continue
        for v, why in sorted(uses.get(u, {}).items()):
            # engine_internal.h is the engine unit's, yet not the API's
            inside = [w for w in why if w.endswith('_internal.h"')]
            if v.startswith("spider/engine/") and (v not in ANALYSIS_API or inside):
                out.append("%s (an analysis) uses %s, not the analysis API (engine.h): %s"
                           % (u, v, ", ".join(sorted(why))))
    return out


def main():
    obj_dir = sys.argv[1] if len(sys.argv) > 1 else "build"
    files = sources()
    stems = {f[:-2] for f in files if f.endswith(".c")}
    units = sorted({unit_of(f, stems) for f in files})
    uses = include_uses(files, set(units))
    if symbol_uses(obj_dir, units, uses) == 0:
        print("not ok: no object files under %s/ (run make first)" % obj_dir)
        return 1
    problems = ["%s has no object under %s/ as new as itself (run make): its calls are unseen"
                % (f, obj_dir) for f in stale_objects(obj_dir, files)]
    for u in units:
        if layer_of(u) is None:
            problems.append("%s is in no layer (add it to LAYERS in %s)" % (u, sys.argv[0]))
    for u in units:
        lu = layer_of(u)
        for v, why in sorted(uses.get(u, {}).items()):
            lv = layer_of(v)
            if lu is not None and lv is not None and lv > lu:
                problems.append("%s (%s) uses %s (%s, a higher layer): %s"
                                % (u, LAYERS[lu][0], v, LAYERS[lv][0], ", ".join(sorted(why))))
    problems += beside_the_api(units, uses)
    for comp in circles(units, uses):
        ties = ["%s -> %s: %s" % (u, v, ", ".join(sorted(uses[u][v])))
                for u in comp for v in sorted(uses.get(u, {})) if v in comp]
        problems.append("a circle: " + "; ".join(ties))
    by_folder = folder_uses(uses)
    for comp in circles(sorted({folder_of(u) for u in units}), by_folder):
        ties = ["%s -> %s: %s" % (a, b, ", ".join(sorted(by_folder[a][b])))
                for a in comp for b in sorted(by_folder.get(a, {})) if b in comp]
        problems.append("a circle of folders: " + "; ".join(ties))
    for p in problems:
        print("not ok: " + p)
    n_uses = sum(len(v) for v in uses.values())
    print("%d units, %d uses, %d layers: %s" % (len(units), n_uses, len(LAYERS),
                                                 "ok" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
