"""SIGTERM at points spread over a run (issue 15): for each mode, spider
is timed once to the end, then started again and sent SIGTERM after 10%,
30%, 50%, 70% and 90% of that time (20%, 50% and 80% with SANITIZED set,
that build is slower, and for a run cut at the cap).  Each run must then end within 2 s
with a partial JSON report (exit status 3), or, when the signal came after
the analysis was done, with a whole report (exit 0 or 1).

    sigterm_scan.py TRACE "MODE ARGS" ...     (SPIDER: the binary)

A run longer than SIGTERM_SCAN_CAP seconds (default 60) is cut there,
and the points are spread over the cap instead.

Prints one line per mode (its time and, per point, the exit status and
the milliseconds from the signal to the end) and exits 1 on a failure.
The 2 s are the process's own (tests/stopwatch.py): the time its main
thread waited for a CPU on a busy machine does not count.

The whole run has its standard error on a pseudo-terminal, and its
progress line must change at least once per second of any one thread's
CPU time, in every phase (tests/progress_watch.py)."""
import json
import os
import sys
import tempfile
import time

import progress_watch
import stopwatch

SPIDER = os.environ.get("SPIDER", "./bin/spider").split()
LIMIT_MS = 2000


def argv(mode, trace):
    return SPIDER + ["-f", "json", "--no-timings"] + mode + [trace]


def main():
    trace, failures = sys.argv[1], 0
    for arg in sys.argv[2:]:
        mode = arg.split()
        cap = float(os.environ.get("SIGTERM_SCAN_CAP", "60"))
        t0 = time.monotonic()
        # the whole run, its progress line on a pseudo-terminal (killed at
        # the cap: the scan covers its first `cap` seconds)
        draws, stalls = progress_watch.watch(argv(mode, trace), cap)
        whole = min(time.monotonic() - t0, cap)
        for line, ran in stalls:
            failures += 1
            print("not ok: %s: the progress line stood at %r while a thread "
                  "ran %.2f s" % (arg or "default", line, ran))
        if not draws:
            failures += 1
            print("not ok: %s: no progress line on a terminal" % (arg or "default"))
        points = []
        # three points where the run was cut at the cap (the whole run
        # there already took the cap) or the build is slower
        few = os.environ.get("SANITIZED") or whole >= cap
        for k in (2, 5, 8) if few else (1, 3, 5, 7, 9):
            with tempfile.TemporaryFile() as out:
                rc, wall, ms = stopwatch.stop(argv(mode, trace), whole * k / 10,
                                              stdout=out)
                out.seek(0)
                try:
                    partial = json.load(out)["summary"]["partial"]
                except (ValueError, KeyError):
                    partial = None
            good = ms <= LIMIT_MS and ((rc == 3 and partial is True) or
                                       (rc in (0, 1) and partial is False))
            if not good:
                failures += 1
                print("not ok: %s after %d%%: exit %d, partial %s, %.0f ms "
                      "(%.0f ms of wall time)"
                      % (arg or "default", k * 10, rc, partial, ms, wall))
            points.append("%d%%: exit %d in %.0f ms" % (k * 10, rc, ms))
        print("%s (%.2f s): %s" % (arg or "default", whole, ", ".join(points)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
