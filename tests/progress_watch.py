"""Whether spider's progress line moves while it works (issue 31): the
line, read from a pseudo-terminal, must change at least once a second in
every phase, so that a user tells a long run from a hung one.  A line
changes when its count moves or, where the count stands still (building
the model, a long Z3 call), when the time it has stood still goes up:
so this checks that every phase's line says one or the other, and that
it is redrawn.

A second of what?  On a busy machine spider gets a fraction of a CPU, and
a wall-clock second then holds little of its work; counting wall time
would fail at random.  So the clock here is the CPU time of each of
spider's threads (/proc/PID/task/TID/stat): the line must change before
any one thread has run for more than a second (plus slack for the 100 ms
between redraws and /proc's 10 ms ticks) since the last change.  The
rate ("1234/s") is left out of the comparison: it changes with time
alone, also when nothing is done.  Each step reads the CPU times first
and then everything the terminal holds, so the line compared is never
older than the times.

As a module:  watch(argv, timeout) -> (draws, stalls)
As a command: progress_watch.py TIMEOUT -- COMMAND...
              prints each stall and exits 1 if there is one."""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

STILL_CPU_S = 1.0
SLACK_S = 0.35
ERASE = b"\r\x1b[K"


def _cpu_by_thread(pid):
    """{tid: CPU seconds} of pid's threads ({} once it has gone)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[tid] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return out


class _Terminal:
    """The line being shown: what follows the last erase so far."""

    def __init__(self, fd):
        self.fd, self.buf, self.draws, self.open = fd, b"", 0, True

    def drain(self, wait):
        """Reads what the terminal holds (waiting up to `wait` s for the
        first bytes); returns the line shown, or None before any."""
        while self.open and select.select([self.fd], [], [], wait)[0]:
            wait = 0
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                chunk = b""
            if not chunk:
                self.open = False
                break
            self.buf += chunk
            if ERASE in self.buf:
                self.draws += self.buf.count(ERASE)
                self.buf = self.buf.rsplit(ERASE, 1)[1]
        return self.buf.decode(errors="replace") if self.draws else None


def watch(argv, timeout):
    """Runs argv with standard error on a pseudo-terminal until it ends or
    `timeout` seconds have passed (then kills its process group).
    Returns (draws, stalls): stalls lists (line, CPU seconds) for each
    line that stood while one thread ran longer than STILL_CPU_S +
    SLACK_S."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave,
                             start_new_session=True)
    finally:
        os.close(slave)
    term = _Terminal(master)
    shown, since, stalls = None, {}, {}
    start = time.monotonic()
    try:
        while p.poll() is None:
            if time.monotonic() - start > timeout:
                break
            cpu = _cpu_by_thread(p.pid)
            text = term.drain(0.02)
            norm = None if text is None else re.sub(r"\d+/s\b", "", text).strip()
            if norm != shown:
                shown, since = norm, dict(cpu)
            elif norm:
                for tid, c in cpu.items():
                    ran = c - since.setdefault(tid, c)
                    if ran > STILL_CPU_S + SLACK_S:
                        stalls[norm] = max(stalls.get(norm, 0), ran)
            if not term.open:
                time.sleep(0.02)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        term.drain(0)
        os.close(master)
    return term.draws, sorted(stalls.items())


def main():
    timeout = float(sys.argv[1])
    assert sys.argv[2] == "--", __doc__
    draws, stalls = watch(sys.argv[3:], timeout)
    for line, ran in stalls:
        print("not ok: the progress line stood at %r while a thread ran "
              "%.2f s" % (line, ran))
    print("%d draws, %d stalls" % (draws, len(stalls)))
    sys.exit(1 if stalls or not draws else 0)


if __name__ == "__main__":
    main()
