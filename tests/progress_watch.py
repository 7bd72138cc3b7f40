"""Whether spider's progress line moves while it works (issue 31): the
line, read from a pseudo-terminal, must change at least once a second in
every phase, so that a user tells a long run from a hung one.

A second of what?  On a busy machine spider gets a fraction of a CPU, and
a wall-clock second then holds little of its work; counting wall time
would fail at random.  So the clock here is the CPU time of each of
spider's threads (/proc/PID/task/TID/stat): the line must change before
any one thread has run for more than a second (plus slack for the 100 ms
between redraws and /proc's 10 ms ticks) since the last change.  The
rate ("1234/s") is left out of the comparison: it changes with time
alone, also when nothing is done.

As a module:  watch(argv, timeout) -> (draws, stalls)
As a command: progress_watch.py TIMEOUT -- COMMAND...
              prints each stall and exits 1 if there is one."""
import os
import pty
import re
import subprocess
import sys
import threading
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


def _read_lines(fd, state):
    """Keeps state["text"] at what follows the last erase (the line being
    shown), counting the draws, until the terminal closes."""
    buf = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        buf += chunk
        if ERASE in buf:
            state["draws"] += buf.count(ERASE)
            buf = buf.rsplit(ERASE, 1)[1]
        state["text"] = buf.decode(errors="replace")


def watch(argv, timeout):
    """Runs argv with standard error on a pseudo-terminal until it ends or
    `timeout` seconds have passed (then kills it).  Returns (draws,
    stalls): stalls lists (line, CPU seconds) for each line that stood
    while one thread ran longer than STILL_CPU_S + SLACK_S."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    state = {"text": None, "draws": 0}
    reader = threading.Thread(target=_read_lines, args=(master, state))
    reader.start()
    start = time.monotonic()
    shown, since, stalls = None, {}, {}
    while p.poll() is None:
        if time.monotonic() - start > timeout:
            p.kill()
            break
        cpu = _cpu_by_thread(p.pid)  # before the text: a line drawn in
        text = state["text"]         # between counts as drawn sooner
        norm = None if text is None else re.sub(r"\d+/s\b", "", text).strip()
        if norm != shown:
            shown, since = norm, dict(cpu)
        elif norm:
            for tid, c in cpu.items():
                ran = c - since.setdefault(tid, c)
                if ran > STILL_CPU_S + SLACK_S:
                    stalls[norm] = max(stalls.get(norm, 0), ran)
        time.sleep(0.02)
    p.wait()
    reader.join()
    os.close(master)
    return state["draws"], sorted(stalls.items())


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
