"""The split run against one process (tests/t0210-ranks.sh): stdout and
exit status of spider over ranks must be byte for byte those of one
spider process.

    ranks_compare.py [options] DIR-OR-FILE...

For each trace, each mode (--mode=ARGS, repeatable; default the eight
below) and each format (--formats=json,text,sarif), spider runs once as
one process and once split: --ranks=N of bin/spider (the threads back
end), N taking 2, 3, 4 in turn (--ranks=LIST), and, with --mpirun=CMD,
also CMD -np N bin/spider-mpi for N = 1..4 in turn (--np=LIST).  Both
sides run with --no-timings, and with --batch-chains=B for each B of
--batch-chains=LIST (default 1,0: one node per batch, so that every
trace is split, and the default width; 0 means the option is left out).
A directory is also run with its files in reversed order and as one
file holding every node (the files concatenated), unless --no-variants.

With --alternate, each trace runs in one handler model, the traces
nested and floating in turn (for modes that name none).

Runs go --jobs=J at a time (default 2; mpirun runs one at a time).
Prints a line per difference and a closing "N checks, N failed"; exits
1 on any difference.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

MODES = [m + h for m in ("", " --atomicity --multi-variable --multi-variable-races",
                         " --all-instances", " --solver=z3")
         for h in ("", " --handlers=floating")]
FORMATS = {"json": ["-f", "json"], "text": ["--color=never"], "sarif": ["-f", "sarif"]}


def variants(path, tmp):
    """The ways to give a trace: as is, and for a directory its files
    reversed and all in one file."""
    if not os.path.isdir(path):
        return [("", [path])]
    files = sorted(os.path.join(path, f) for f in os.listdir(path)
                   if os.path.isfile(os.path.join(path, f)))
    one = os.path.join(tmp, "%d.log" % abs(hash(path)))
    with open(one, "wb") as out:
        for f in files:
            with open(f, "rb") as part:
                data = part.read()
            out.write(data if data.endswith(b"\n") or not data else data + b"\n")
    return [("", [path]), (" (reversed)", files[::-1]), (" (one file)", [one])]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spider", default=os.environ.get("SPIDER", "./bin/spider"))
    ap.add_argument("--mpirun", default="")
    ap.add_argument("--mpi-spider", default="./bin/spider-mpi")
    ap.add_argument("--mode", action="append")
    ap.add_argument("--formats", default="json,text,sarif")
    ap.add_argument("--ranks", default="2,3,4")
    ap.add_argument("--np", default="1,2,3,4")
    ap.add_argument("--batch-chains", default="1,0")
    ap.add_argument("--all-ranks", action="store_true",
                    help="every rank count for every run, not one in turn")
    ap.add_argument("--alternate", action="store_true",
                    help="each trace in one handler model, nested and floating "
                         "in turn (with modes that name none)")
    ap.add_argument("--no-variants", action="store_true",
                    help="a directory only as it is")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    modes = a.mode or MODES
    ranks = [int(x) for x in a.ranks.split(",") if x]
    nps = [int(x) for x in a.np.split(",") if x]
    widths = [int(x) for x in a.batch_chains.split(",")]
    tmp = tempfile.mkdtemp(prefix="ranks-")
    jobs = []    # (what, one-process command, split command, is mpi)
    turn = 0
    for index, path in enumerate(a.traces):
        for label, files in (variants(path, tmp) if not a.no_variants
                             else [("", [path])]):
            trace_modes = modes
            if a.alternate:
                trace_modes = [m + (" --handlers=floating" if index % 2 else "")
                               for m in modes]
            for mode in trace_modes:
                for fmt in a.formats.split(","):
                    for b in widths:
                        args = ["--no-timings"] + FORMATS[fmt] + mode.split() + \
                               (["--batch-chains=%d" % b] if b else [])
                        one = [a.spider] + args + files
                        what = "%s%s '%s' %s%s" % (path, label, mode.strip(), fmt,
                                                   " --batch-chains=%d" % b if b else "")
                        rs = ranks if a.all_ranks or not ranks else [ranks[turn % len(ranks)]]
                        for n in rs:
                            jobs.append((what + " --ranks=%d" % n, one,
                                         [a.spider, "--ranks=%d" % n] + args + files, 0))
                        if a.mpirun:
                            ns = nps if a.all_ranks or not nps else [nps[turn % len(nps)]]
                            for n in ns:
                                jobs.append((what + " mpirun -np %d" % n, one,
                                             a.mpirun.split() + ["-np", str(n), a.mpi_spider]
                                             + args + files, 1))
                        turn += 1
    # the one-process runs first (many split runs share one), then the
    # split ones, each compared as it ends (their output is not kept)
    singles = {}
    with ThreadPoolExecutor(a.jobs) as ex:
        for key, res in zip(sorted({tuple(j[1]) for j in jobs}),
                            ex.map(run, sorted({tuple(j[1]) for j in jobs}))):
            singles[key] = res

        def check(job):
            what, one, split, _ = job
            want, got = singles[tuple(one)], run(split)
            if want[0] not in (0, 1, 2, 3):
                return ("not ok: %s: one process ended with %d: %s" %
                        (what, want[0], want[2].decode(errors="replace")[-300:]))
            if got[0] != want[0] or got[1] != want[1]:
                return ("not ok: %s: exit %d and %d bytes, want exit %d and %d bytes%s" %
                        (what, got[0], len(got[1]), want[0], len(want[1]),
                         ": " + got[2].decode(errors="replace")[-300:] if got[2] else ""))
            return None
        verdicts = list(ex.map(check, [j for j in jobs if not j[3]]))
    verdicts += [check(j) for j in jobs if j[3]]
    checks, failures = len(verdicts), 0
    for v in verdicts:
        if v:
            failures += 1
            print(v)
    print("%d checks, %d failed" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
