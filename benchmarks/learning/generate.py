#!/usr/bin/env python3
"""Writes the bundled learning example (README.md beside this file):
20 passing runs and one failing run of one program, after Apache's
log-buffer bug (AVIO's Apache#25520): two worker threads append to a
shared log buffer without a lock, and poll a `running` flag that the
main thread clears to stop them.

    benchmarks/learning/generate.py [DIR]   (default: apache-log/ here)

The runs differ in how the scheduler interleaved the workers (a seeded
random choice, so the files are the same on every machine).  In a
passing run an append (read Log.used, write Log.buf, write Log.used) is
never cut by the other worker's; in the failing run one is: the lost
update.  The flag is cleared between two polls of each worker in every
run, as a flag is meant to be.
"""
import json
import os
import random
import sys

NODE = "10.0.0.1"
PASSING = 20


def ev(thread, kind, loc=None, **fields):
    e = {"thread": f"{thread}@{NODE}"}
    if loc:
        e["loc"] = loc
    e["type"] = kind
    e.update(fields)
    return e


def poll(w):
    return [ev(w, "R", "httpd.Worker.loop.40", variable="Server.running")]


def append(w):
    return [ev(w, "R", "httpd.Log.append.210", variable="Log.used"),
            ev(w, "W", "httpd.Log.append.212", variable="Log.buf"),
            ev(w, "W", "httpd.Log.append.214", variable="Log.used")]


def worker_blocks(w, appends):
    """A worker's run as blocks the scheduler does not cut: a poll and an
    append per round, then the poll that sees the flag cleared."""
    blocks = [[ev(w, "START")]]
    for _ in range(appends):
        blocks += [poll(w), append(w)]
    blocks += [poll(w), [ev(w, "END")]]
    return blocks


def run(rng, failing):
    main = "main"
    out = [ev(main, "START"),
           ev(main, "W", "httpd.Server.start.20", variable="Server.running"),
           ev(main, "CREATE", "httpd.Server.start.24", child=f"worker1@{NODE}"),
           ev(main, "CREATE", "httpd.Server.start.25", child=f"worker2@{NODE}")]
    queues = {w: worker_blocks(w, rng.randint(3, 5)) for w in ("worker1", "worker2")}
    stop = [ev(main, "W", "httpd.Server.stop.80", variable="Server.running")]
    stopped, turn, cut = False, rng.choice(["worker1", "worker2"]), failing
    # the workers take turns of one or two blocks; the flag is cleared
    # when both have done their rounds, before their last polls
    while any(queues.values()):
        if not stopped and all(len(q) <= 2 for q in queues.values()):
            out += stop[0:1]
            stopped = True
        if not queues[turn] or (not stopped and len(queues[turn]) <= 2):
            turn = "worker2" if turn == "worker1" else "worker1"
            continue
        for _ in range(rng.randint(1, 2)):
            if not queues[turn] or (not stopped and len(queues[turn]) <= 2):
                break
            block = queues[turn].pop(0)
            other = "worker2" if turn == "worker1" else "worker1"
            if cut and turn == "worker1" and len(block) == 3 and \
                    len(queues[other]) >= 4 and len(queues[other][1]) == 3:
                # the failing run: worker2's whole append lands between
                # worker1's read of Log.used and its writes
                out.append(block[0])
                out += queues[other].pop(0) + queues[other].pop(0)
                out += block[1:]
                cut = False
            else:
                out += block
        turn = "worker2" if turn == "worker1" else "worker1"
    assert stopped and not cut
    out += [ev(main, "JOIN", "httpd.Server.stop.84", child=f"worker1@{NODE}"),
            ev(main, "JOIN", "httpd.Server.stop.85", child=f"worker2@{NODE}"),
            ev(main, "END")]
    for i, e in enumerate(out):
        e["timestamp"] = 1000 + i
    return out


def write(path, events):
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "apache-log")
    os.makedirs(os.path.join(top, "passing"), exist_ok=True)
    rng = random.Random(25520)
    for i in range(1, PASSING + 1):
        write(os.path.join(top, "passing", f"run-{i:02d}.log"), run(rng, False))
    write(os.path.join(top, "failing.log"), run(rng, True))


if __name__ == "__main__":
    main()
