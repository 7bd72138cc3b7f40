#!/usr/bin/env python3
"""Reference implementation of /work/shared/SPEC.md §1-§4, written without
reading spider's C sources, to find spider's bugs by differential testing.

    reference.py report [OPTIONS] TRACE...     # the JSON report of one trace
    reference.py compare [OPTIONS] TRACE...    # each TRACE against spider

OPTIONS: --handlers=nested|floating (report only), --atomicity,
--atomicity-patterns=RWR,WWR,..., --atomic-region=access|lock|handler,
--multi-variable, --multi-variable-races, --correlated=FILE,
--max-distance=D (default 5),
--min-support=N (default 3), -j N (compare: traces checked in parallel),
--z3-only (ask z3 every candidate, even when Φ has no disjunction).
With --multi-variable the report has multi_variable_violations and
summary.correlated_pairs (SPEC §4, §6); with --multi-variable-races
multi_variable_races (docs/model.md).  For `report` the TRACE
arguments together form one run; for `compare` each TRACE (a file or a
directory) is one run.  `compare` runs ${SPIDER:-./bin/spider} -f json
--no-timings in the modes default, --no-prune, --solver=z3 --no-prune (group
sets) and --no-prune --all-instances (exact counts), for both handler models;
with --multi-variable also --list-correlations (the correlated pairs).
Spider's exit status must be 1 when the reference finds a group, else 0.

Φ is written as SMT-LIB2 (QF_IDL) and decided by one `z3 -in` process per
trace and handler model, each query inside (push)/(pop).  Candidates that
the unconditional part of Φ (program order, fork/join, messages with a
single possible send) already orders are decided unsat without asking z3.

This file is the command line (options, `report`, `compare`'s loop over
the traces); the rest lives next to it, each module below those that use
it: reference_load.py (reading a trace), reference_model.py (Trace, and
Φ as SMT-LIB2), reference_correlations.py (correlated variables, SPEC
§4), reference_analysis.py (the candidates, z3's answers, the groups)
and reference_compare.py (spider against the reference, the cache).
`import reference` (tests/check_witness.py, t0175) still gives load,
Trace, Model, v and Inconsistent.

Interpretation choices where SPEC.md is not explicit:
 1. Loading: numeric `variable`, `loc`, channel fields are their JSON text
    (7 -> "7"; true is no string or number: error); `null` is missing.
    Message ids: an integer, or a string of an optional sign and digits, is
    the same id as its integer ("017" == 17).  `socket_type` is TCP only
    when exactly "TCP".  Type names are matched without regard to case
    (docs/trace-format.md); a numeric *string* type is an unknown type.
    An object is cut off (warning, rest of the file ignored) when the text
    from it to the end of the file is a proper prefix of a JSON object;
    a bad object followed by more text is an error, so is a top-level
    value that is not an object; a JSON array with no closing `]` at the
    end of the file is a truncation warning.
 2. A handler is HANDLERBEGIN..its HANDLEREND inclusive; a HANDLEREND with no
    open handler is ignored and belongs to the enclosing context.  A
    handler of no message is still a handler (a context of its own, and a
    handler for --atomic-region=handler); it is never one of the two
    handlers of a handler race, but its accesses count for the message
    handler it is nested in (choice 7).
 3. Floating model: "first/last event of t" for fork/join are the first
    and last in program order, whatever chain they lie in.  A handler of no
    message that is its thread's first event has no extra edge.
 4. "The first CREATE of a thread" is first in input order (files in the
    order given).  Every JOIN of t is after t's last event.
 5. Message ids form one name space across UDP and TCP events that carry
    `message`.  A SND/RCV with `message` is never part of a byte stream.
    In "its send" ordering a missing or non-numeric timestamp sorts before
    every numeric one.  A byte-stream RCV of size 0, or reading past all
    bytes sent, is after only the sends whose bytes it really consumes
    (none: unmatched).
 6. Message races: two RCVs are "both TCP on the same directed channel"
    when both have socket_type TCP (with or without `message`) and both
    have all four channel fields, equal.  A message race group's `node` is
    the node of the receives.
 7. Handler races: handler(m) holds every access between its HANDLERBEGIN
    and HANDLEREND, including those of handlers nested in it, except that
    when one of the two handlers is nested (at any depth) in the other, the
    inner one's events are removed from the outer one's.  (SPEC's "however
    many racing message pairs lead to it" only makes sense this way, and
    docs/model.md says "nested handlers included".)
 8. Atomicity: "another thread" is a thread other than p's (so r may lie in
    any context of that thread); the context is (thread, innermost open
    handler or none).  --atomic-region=lock: some outermost section of any
    lock of the thread (or a never-released LOCK to the thread's end)
    strictly contains both p and c; handler: the context is a handler.
 9. Lock sections of one thread never constrain each other (program order
    does); a never-released LOCK in thread A and a section of the same lock
    in thread B give O(U_B) < O(L_A); two never released give false.
10. Φ with no disjunction at all (no lock pair left undecided by the
    unconditional edges, no wait/notify, no id sent twice) is an acyclic
    graph of strict edges; then a candidate the graph does not order is
    sat without asking z3 (--z3-only asks z3 anyway).
11. compare: a group matches on (kind, locations); its variable, node and
    pattern must be one of those of the reference's satisfiable instances
    of that group (a group may mix nodes or variables).  Inconsistent
    traces must make spider exit 2 in every mode.
Multi-variable atomicity violations and correlated variables (SPEC §4;
choices 12-19 are the lead's, where SPEC is silent):
12. Mining uses the whole trace as loaded (pruning plays no part);
    positions are 0-based positions in the thread's program order, all
    events of the thread counted (input order: the reference has no
    --order=timestamp).  "Accessed by at least two threads": threads of the
    trace with an R or W to that (node, variable).
13. Gaps: for pair {x, y} and each thread, the thread's accesses to x or y
    in program order; every adjacent two of them on different variables
    gives gap = pos(later) - pos(earlier).  All gaps of all threads of the
    node form one list.
14. Median of an even-length list: the mean of the two middle values.
    MAD = median of |g - m| with that m.  Keep g when |g - m| < 2 * 1.4826
    * MAD; when MAD == 0 keep g when g == m.  distance = mean of the kept
    gaps, support = their number.  Correlated when support >= min-support
    and distance <= max-distance.  No gaps: support 0, distance null (never
    correlated).
15. In correlated_pairs, `variables` is [X, Y] with X < Y byte-wise; the
    list is sorted by (node, X, Y) byte-wise.
16. --correlated=FILE: lines `NODE X Y` or `* X Y` (three tokens split on
    blanks), blank lines and lines whose first non-blank character is `#`
    ignored; anything else, or X == Y, is bad input (exit 2, message naming
    FILE:LINE).  `*`: every node.  A given pair is used for a node only
    when both variables have an R or W in that node; its distance/support
    are computed as in 14 (support may be 0, distance null); source
    "given", or "both" when mining also finds it correlated.
17. A violation's x = var(a1), y = var(a2), `variables` = [x, y] (either
    order of the pair occurs).  bx, by: in one thread other than a1's (any
    context of it, both handler models).  `pattern` is "<T(a1)>x..<T(a2)>y
    / <T(bx)>x,<T(by)>y" (T = R or W; bx first), e.g. "Rx..Wy / Wx,Ry".
    The context of a1, a2 is as for atomicity (choice 8): accesses of a
    nested handler are not in the enclosing context and do not separate
    two accesses of it.  The second query is the literal negation
    ¬(a1 < bx < a2 ∧ a1 < by < a2) (with strict Φ the same as its strict
    version).
18. One instance per (a1, a2, bx, by); exact counts compared in
    --no-prune --all-instances mode.
19. --list-correlations -f json prints {"correlated_pairs": [...]} (the
    summary's shape) and exits 0; compare checks it and the summary's
    list: node, variables, support, source exactly, distance to 1e-9.
"""
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from reference_analysis import ALL_PATTERNS, found, public, run_reference
from reference_compare import compare_one
# tests/check_witness.py and t0175 read traces through `import reference`
from reference_load import TraceError, load  # noqa: F401
from reference_model import Inconsistent, Model, Trace, v  # noqa: F401


# ---------------------------------------------------------------- CLI

def parse_opts(args, allow_handlers=True):
    o = dict(handlers="nested", atomicity=False, patterns=None, region="access",
             jobs=os.cpu_count() or 1,
             z3_only=False, multi_variable=False, correlated=None,
             max_distance=None, min_support=None, correlation="sun",
             mv_races=False)
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--handlers=") and allow_handlers:
            o["handlers"] = a.split("=", 1)[1]
            if o["handlers"] not in ("nested", "floating"):
                usage("bad --handlers")
        elif a == "--z3-only":
            o["z3_only"] = True
        elif a == "--atomicity":
            o["atomicity"] = True
        elif a == "--multi-variable":
            o["multi_variable"] = True
        elif a == "--multi-variable-races":
            o["mv_races"] = True
        elif a.startswith("--correlation="):
            o["correlation"] = a.split("=", 1)[1]
            if o["correlation"] not in ("sun", "muvi", "both"):
                usage("bad --correlation")
        elif a.startswith("--correlated="):
            o["correlated"] = a.split("=", 1)[1]
        elif a.startswith("--max-distance="):
            try:
                o["max_distance"] = a.split("=", 1)[1]
                if not float(o["max_distance"]) >= 0:
                    raise ValueError
            except ValueError:
                usage("bad --max-distance")
        elif a.startswith("--min-support="):
            try:
                o["min_support"] = a.split("=", 1)[1]
                if int(o["min_support"]) < 1:
                    raise ValueError
            except ValueError:
                usage("bad --min-support")
        elif a.startswith("--atomicity-patterns="):
            ps = [x.strip().upper() for x in a.split("=", 1)[1].split(",") if x.strip()]
            if not ps or any(p not in ALL_PATTERNS for p in ps):
                usage("bad --atomicity-patterns")
            o["patterns"] = ps
        elif a.startswith("--atomic-region="):
            o["region"] = a.split("=", 1)[1]
            if o["region"] not in ("access", "lock", "handler"):
                usage("bad --atomic-region")
        elif a == "-j":
            i += 1
            o["jobs"] = int(args[i])
        elif a.startswith("-j"):
            o["jobs"] = int(a[2:])
        elif a.startswith("-") and a != "-":
            usage("unknown option " + a)
        else:
            paths.append(a)
        i += 1
    if not paths:
        usage("no trace")
    return o, paths


def usage(msg):
    sys.stderr.write("reference.py: %s\nusage: reference.py report|compare [options] TRACE...\n" % msg)
    sys.exit(2)


def cmd_report(args):
    o, paths = parse_opts(args)
    st, rep = run_reference(paths, o, o["handlers"])
    if st == "error":
        sys.stderr.write("reference.py: %s\n" % rep)
        sys.exit(2)
    if st == "inconsistent":
        sys.stderr.write("reference.py: inconsistent trace: the happens-before model is unsatisfiable\n")
        sys.exit(2)
    json.dump(public(rep), sys.stdout, indent=1)
    sys.stdout.write("\n")
    sys.exit(1 if found(rep) else 0)


def trace_size(path):
    """Bytes of a trace file, or of a directory's files (0 if unreadable)."""
    try:
        if not os.path.isdir(path):
            return os.path.getsize(path)
        return sum(os.path.getsize(os.path.join(path, n)) for n in os.listdir(path)
                   if os.path.isfile(os.path.join(path, n)))
    except OSError:
        return 0


def cmd_compare(args):
    o, paths = parse_opts(args, allow_handlers=False)
    total = failed = 0
    # the largest traces start first (the reference's time grows faster
    # than their size: started last, one would run alone at the end);
    # the results come in the order given
    by_size = sorted(paths, key=lambda p: -trace_size(p))
    with ThreadPoolExecutor(max_workers=max(1, o["jobs"])) as pool:
        started = {p: pool.submit(compare_one, p, o) for p in by_size}
        for checks, lines in (started[p].result() for p in paths):
            total += checks
            failed += len(lines)
            for ln in lines:
                print(ln, flush=True)
    print("%d checks, %d failed" % (total, failed))
    sys.exit(1 if failed else 0)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("report", "compare"):
        usage("no command")
    if sys.argv[1] == "report":
        cmd_report(sys.argv[2:])
    else:
        cmd_compare(sys.argv[2:])


if __name__ == "__main__":
    main()
