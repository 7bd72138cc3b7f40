"""How long a process takes to stop after SIGTERM, measured so that a busy
machine does not change the figure (issue 31).

spider promises a partial report within 2 s of SIGTERM.  On a machine
whose CPUs are all taken by other jobs, the process waits for a CPU for
most of every second, and a wall-clock limit then fails at random.  What
spider controls is everything else: the work its stop path does and the
time it sleeps.  So the stop time here is the wall time from the signal
to the exit minus the time the main thread (the one that writes the
report) spent runnable but waiting for a CPU, which Linux counts in
/proc/PID/schedstat (second field, nanoseconds).  The zombie is read
before it is reaped.  A sleep or a wait for another thread still counts.

As a module:  stop(argv, after, stdout=...) -> (status, wall_ms, own_ms)
As a command: stopwatch.py AFTER OUT -- COMMAND...
              prints "STATUS WALL_MS OWN_MS"; COMMAND's standard output
              goes to OUT, its standard error to OUT.err."""
import os
import signal
import subprocess
import sys
import time


def _runq_ns(pid):
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0  # no schedstat (an old or restricted kernel): wall time only


def _catches_sigterm(pid):
    """Whether pid has a handler for SIGTERM (SigCgt in /proc/PID/status),
    or need not wait for one: it has exited (a zombie, not reaped here),
    or /proc cannot tell."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("State:") and line.split()[1] in ("Z", "X"):
                    return True
                if line.startswith("SigCgt:"):
                    return int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1
    except (OSError, ValueError, IndexError):
        pass
    return True


def stop(argv, after, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
         stdin=None, at_start=None):
    """Starts argv, sends SIGTERM after `after` seconds (at once if it has
    ended by then; not before it catches SIGTERM) and waits for the exit.  at_start(p) runs right after
    the start (e.g. a thread feeding standard input).  Returns (exit
    status, wall ms from the signal to the exit, that minus the main
    thread's wait for a CPU)."""
    p = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=stdin)
    if at_start:
        at_start(p)
    time.sleep(after)
    # A signal before spider has set its handler (the loader still mapping
    # libz3: a few ms, many more on a busy machine) kills it by default:
    # no test of its stop, so the signal waits for the handler.
    deadline = time.monotonic() + 30
    while not _catches_sigterm(p.pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    runq0 = _runq_ns(p.pid)
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGTERM)  # not p.send_signal: it reaps an exited
                                    # child, whose schedstat is then gone
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    wall = (time.monotonic() - t0) * 1000
    waited = max(0, _runq_ns(p.pid) - runq0) / 1e6
    status = p.wait()
    return status, wall, max(0.0, wall - waited)


def main():
    after, out = float(sys.argv[1]), sys.argv[2]
    assert sys.argv[3] == "--", __doc__
    with open(out, "wb") as o, open(out + ".err", "wb") as e:
        status, wall, own = stop(sys.argv[4:], after, stdout=o, stderr=e)
    print("%d %.0f %.0f" % (status, wall, own))


if __name__ == "__main__":
    main()
