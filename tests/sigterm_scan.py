"""SIGTERM at points spread over a run (issue 15): for each mode, spider
is timed once to the end, then started again and sent SIGTERM after 10%,
30%, 50%, 70% and 90% of that time (20%, 50% and 80% with SANITIZED set:
that build is slower).  Each run must then end within 2 s
with a partial JSON report (exit status 3), or, when the signal came after
the analysis was done, with a whole report (exit 0 or 1).

    sigterm_scan.py TRACE "MODE ARGS" ...     (SPIDER: the binary)

Prints one line per mode (its time and, per point, the exit status and
the milliseconds from the signal to the end) and exits 1 on a failure."""
import json
import os
import signal
import subprocess
import sys
import time

SPIDER = os.environ.get("SPIDER", "./bin/spider").split()
LIMIT_MS = 2000


def start(mode, trace):
    return subprocess.Popen(SPIDER + ["-f", "json", "--no-timings"] + mode + [trace],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def main():
    trace, failures = sys.argv[1], 0
    for arg in sys.argv[2:]:
        mode = arg.split()
        t0 = time.monotonic()
        start(mode, trace).communicate()
        whole = time.monotonic() - t0
        points = []
        for k in (2, 5, 8) if os.environ.get("SANITIZED") else (1, 3, 5, 7, 9):
            p = start(mode, trace)
            time.sleep(whole * k / 10)
            t1 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            out, _ = p.communicate()
            ms = (time.monotonic() - t1) * 1000
            try:
                partial = json.loads(out)["summary"]["partial"]
            except (ValueError, KeyError):
                partial = None
            good = ms <= LIMIT_MS and ((p.returncode == 3 and partial is True) or
                                       (p.returncode in (0, 1) and partial is False))
            if not good:
                failures += 1
                print("not ok: %s after %d%%: exit %d, partial %s, %.0f ms"
                      % (arg or "default", k * 10, p.returncode, partial, ms))
            points.append("%d%%: exit %d in %.0f ms" % (k * 10, p.returncode, ms))
        print("%s (%.2f s): %s" % (arg or "default", whole, ", ".join(points)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
