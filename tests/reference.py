#!/usr/bin/env python3
"""Reference implementation of /work/shared/SPEC.md §1-§4, written without
reading spider's C sources, to find spider's bugs by differential testing.

    reference.py report [OPTIONS] TRACE...     # the JSON report of one trace
    reference.py compare [OPTIONS] TRACE...    # each TRACE against spider

OPTIONS: --handlers=nested|floating (report only), --atomicity,
--atomicity-patterns=RWR,WWR,..., --atomic-region=access|lock|handler,
--multi-variable, --correlated=FILE, --max-distance=D (default 5),
--min-support=N (default 3), -j N (compare: traces checked in parallel),
--z3-only (ask z3 every candidate, even when Φ has no disjunction).
With --multi-variable the report has multi_variable_violations and
summary.correlated_pairs (SPEC §4, §6).  For `report` the TRACE
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
import hashlib
import json
import os
import pickle
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

CODES = {1: "CREATE", 2: "START", 3: "END", 4: "JOIN", 5: "LOG", 6: "R",
         7: "W", 8: "SND", 9: "RCV", 10: "CLOSE", 11: "CONNECT",
         12: "ACCEPT", 13: "SHUTDOWN", 14: "HANDLERBEGIN", 15: "HANDLEREND",
         16: "LOCK", 17: "UNLOCK", 18: "WAIT", 19: "NOTIFY", 20: "NOTIFYALL"}
NAMES = set(CODES.values())
ALIASES = {"FORK": "CREATE", "READ": "R", "WRITE": "W", "SEND": "SND",
           "RECEIVE": "RCV"}
VAR_TYPES = {"R", "W", "LOCK", "UNLOCK", "WAIT", "NOTIFY", "NOTIFYALL"}
ALL_PATTERNS = [a + b + c for a in "RW" for b in "RW" for c in "RW"]
DEFAULT_PATTERNS = ["RWR", "WWR", "WRW", "RWW"]
CHANNEL = ("src", "src_port", "dst", "dst_port")


class TraceError(Exception):
    pass


class Inconsistent(Exception):
    pass


# ---------------------------------------------------------------- loading

class Ev:
    __slots__ = ("gid", "thread", "node", "idx", "type", "var", "loc",
                 "msg", "tcp", "chan", "size", "ts", "child", "file", "line",
                 "ctx", "encl", "handler")

    def __repr__(self):
        return "%s#%d:%s" % (self.thread, self.idx, self.type)


def text_of(v):
    """The text of a string-or-number field."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return None


NUMERIC = re.compile(r"[+-]?[0-9]+\Z")


def message_id(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(v, str):
        return str(int(v)) if NUMERIC.match(v) else v
    return None


def line_col(text, pos):
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def cut_off(text, ex):
    """Is the JSON error ex the end of a text cut off mid-object (the
    text from the object on is a proper prefix of valid JSON)?"""
    rest = text[ex.pos:].rstrip()
    if ex.pos >= len(text.rstrip()):
        return True
    if ex.msg.startswith("Unterminated string") or ex.msg.startswith("Invalid \\uXXXX"):
        return "\n" not in rest
    return any(w.startswith(rest) for w in ("true", "false", "null", "-"))


WS = re.compile(r"[ \t\r\n]*")


def parse_file(path, warnings):
    """[(object, line)] of one file."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        raise TraceError("%s: NUL byte: not a trace" % path)
    text = data.decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = text[1:]
    dec = json.JSONDecoder()
    out = []
    n = len(text)

    def ws(i):
        return WS.match(text, i).end()

    def err(i, what):
        line, col = line_col(text, i)
        raise TraceError("%s:%d:%d: %s" % (path, line, col, what))

    i = ws(0)
    in_array = i < n and text[i] == "["
    if in_array:
        i = ws(i + 1)
        if i < n and text[i] == "]":
            i = ws(i + 1)
            if i < n:
                err(i, "text after the array")
            return out
    while i < n:
        if text[i] != "{":
            err(i, "expected an event object")
        try:
            obj, j = dec.raw_decode(text, i)
        except json.JSONDecodeError as ex:
            if cut_off(text, ex):
                warnings.append("%s:%d: last object cut off" % (path, line_col(text, i)[0]))
                return out
            err(ex.pos, "invalid JSON: " + ex.msg)
        out.append((obj, line_col(text, i)[0]))
        i = ws(j)
        if in_array:
            if i >= n:
                warnings.append("%s: array not closed" % path)
                return out
            if text[i] == ",":
                i = ws(i + 1)
                if i >= n:
                    warnings.append("%s: array not closed" % path)
                    return out
                continue
            if text[i] == "]":
                i = ws(i + 1)
                if i < n:
                    err(i, "text after the array")
                return out
            err(i, "expected , or ]")
    if in_array:
        warnings.append("%s: array not closed" % path)
    return out


def trace_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            bp = os.fsencode(p)
            for name in sorted(os.listdir(bp)):
                f = os.path.join(bp, name)
                if os.path.isfile(f):
                    files.append(os.fsdecode(f))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise TraceError("%s: no such file" % p)
    return files


def make_event(obj, path, line):
    def bad(field, what="missing or invalid"):
        raise TraceError("%s:%d: field %s: %s" % (path, line, field, what))

    if not isinstance(obj, dict):
        bad("-", "not an object")
    obj = {k: v for k, v in obj.items() if v is not None}
    t = obj.get("type")
    name = None
    if isinstance(t, int) and not isinstance(t, bool):
        name = CODES.get(t)
    elif isinstance(t, str):
        u = t.upper()
        name = u if u in NAMES else ALIASES.get(u)
    if name is None:
        bad("type", "unknown or missing type %r" % (t,))
    th = obj.get("thread")
    if not isinstance(th, str):
        bad("thread")
    e = Ev()
    e.type = name
    e.thread = th
    e.node = th.split("@", 1)[1] if "@" in th else th
    e.file, e.line = path, line
    e.loc = None
    if "loc" in obj:
        e.loc = text_of(obj["loc"])
        if e.loc is None:
            bad("loc", "not a string or a number")
    e.var = e.msg = e.chan = e.size = e.child = None
    e.tcp = False
    ts = obj.get("timestamp")
    if isinstance(ts, str) and NUMERIC.match(ts):
        ts = int(ts)
    e.ts = (1, ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else (0, 0)
    if name in VAR_TYPES:
        v = text_of(obj.get("variable"))
        if v is None:
            bad("variable")
        e.var = (e.node, v)
    if name in ("CREATE", "JOIN"):
        c = obj.get("child")
        if not isinstance(c, str):
            bad("child")
        e.child = c
    if name in ("SND", "RCV"):
        e.tcp = obj.get("socket_type") == "TCP"
        ch = tuple(text_of(obj.get(k)) for k in CHANNEL)
        e.chan = ch if None not in ch else None
        if "message" in obj:
            e.msg = message_id(obj["message"])
            if e.msg is None:
                bad("message")
        elif e.tcp:
            if e.chan is None:
                bad("src/src_port/dst/dst_port")
            s = obj.get("size")
            if not isinstance(s, int) or isinstance(s, bool) or s < 0:
                bad("size")
            e.size = s
        else:
            bad("message")
    return e


def load(paths, warnings=None):
    if warnings is None:
        warnings = []
    events = []
    for f in trace_files(paths):
        for obj, line in parse_file(f, warnings):
            events.append(make_event(obj, f, line))
    if not events:
        raise TraceError("no event in the trace")
    return events


# ---------------------------------------------------------------- the model

class Handler:
    __slots__ = ("rcv", "begin", "thread", "events", "depth", "hid")


class Trace:
    """Everything that does not depend on the handler model."""

    def __init__(self, events):
        self.events = events
        self.threads = {}
        for g, e in enumerate(events):
            e.gid = g
            lst = self.threads.setdefault(e.thread, [])
            e.idx = len(lst)
            lst.append(e)
        for e in events:
            if e.loc is None:
                e.loc = "%s#%d" % (e.thread, e.idx)
        self.bind_handlers()
        self.match_messages()
        self.lock_sections()

    def bind_handlers(self):
        self.handlers = []
        for th, evs in self.threads.items():
            stack, unhandled = [], []
            for e in evs:
                e.handler = None
                if e.type == "HANDLERBEGIN":
                    h = Handler()
                    h.rcv = unhandled.pop() if unhandled else None
                    if h.rcv is not None:
                        h.rcv.handler = h
                    h.begin, h.thread, h.events = e, th, []
                    h.depth = len(stack)
                    h.hid = len(self.handlers)
                    self.handlers.append(h)
                    stack.append(h)
                    e.encl = tuple(stack)
                elif e.type == "HANDLEREND" and stack:
                    e.encl = tuple(stack)
                    stack.pop()
                else:
                    e.encl = tuple(stack)
                e.ctx = e.encl[-1] if e.encl else None
                for h in e.encl:
                    h.events.append(e)
                if e.type == "RCV":
                    unhandled.append(e)

    def match_messages(self):
        """self.msg_edges: (sends, rcv, conj): all sends before rcv (conj) or
        one of them; self.its_send[rcv]: the send that names rcv's message."""
        by_id = {}
        chans = {}
        for e in self.events:
            if e.type == "SND" and e.msg is not None:
                by_id.setdefault(e.msg, []).append(e)
        self.msg_edges = []      # (sends, rcv, conj): conj: all sends before rcv; else one of
        self.its_send = {}
        for e in self.events:
            if e.type not in ("SND", "RCV") or e.msg is not None:
                continue
            c = chans.setdefault(e.chan, ([], []))
            c[0 if e.type == "SND" else 1].append(e)
        for e in self.events:
            if e.type == "RCV" and e.msg is not None and e.msg in by_id:
                ss = by_id[e.msg]
                self.msg_edges.append((ss, e, len(ss) == 1))
                self.its_send[e] = min(ss, key=lambda s: (s.ts, s.thread, s.idx))
        for snds, rcvs in chans.values():
            spans, off = [], 0
            for s in snds:
                spans.append((off, off + s.size, s))
                off += s.size
            off = 0
            for r in rcvs:
                a, b = off, off + r.size
                off = b
                ss = [s for (x, y, s) in spans if x < b and a < y]
                if ss:
                    self.msg_edges.append((ss, r, True))
                    self.its_send[r] = ss[0]

    def lock_sections(self):
        self.sections = []  # (thread, lock, L, U or None)
        for th, evs in self.threads.items():
            depth, open_ = {}, {}
            for e in evs:
                if e.type == "LOCK":
                    d = depth.get(e.var, 0)
                    if d == 0:
                        open_[e.var] = e
                    depth[e.var] = d + 1
                elif e.type == "UNLOCK":
                    d = depth.get(e.var, 0)
                    if d == 0:
                        continue
                    depth[e.var] = d - 1
                    if d == 1:
                        self.sections.append((th, e.var, open_.pop(e.var), e))
            for v, L in open_.items():
                self.sections.append((th, v, L, None))


class Model:
    """Φ of a trace in one handler model, as SMT-LIB2, with its unconditional
    part as a DAG for cheap unsat answers."""

    def __init__(self, tr, handlers):
        self.tr = tr
        n = len(tr.events)
        self.hard = []        # definite edges (a, b): O(a) < O(b)
        self.asserts = []
        self.preds = [[] for _ in range(n)]
        ev = tr.events
        for th, evs in tr.threads.items():
            if handlers == "nested":
                for a, b in zip(evs, evs[1:]):
                    self.edge(a, b)
            else:
                last = {}
                for i, e in enumerate(evs):
                    key = e.ctx.hid if e.ctx is not None else None
                    if key in last:
                        self.edge(last[key], e)
                    elif e.ctx is not None:  # first event of a handler
                        h = e.ctx
                        if h.rcv is not None:
                            self.edge(h.rcv, e)
                        elif i > 0:
                            self.edge(evs[i - 1], e)
                    last[key] = e
        forked = set()
        for e in ev:
            if e.type == "CREATE" and e.child not in forked:
                forked.add(e.child)
                if e.child in tr.threads:
                    self.edge(e, tr.threads[e.child][0])
            if e.type == "JOIN" and e.child in tr.threads:
                self.edge(tr.threads[e.child][-1], e)
        for ss, r, conj in tr.msg_edges:
            if conj:
                for s in ss:
                    self.edge(s, r)
            else:
                self.asserts.append("(or %s)" % " ".join("(< %s %s)" % (v(s), v(r)) for s in ss))
        self.closure()
        bylock = {}
        for sec in tr.sections:
            bylock.setdefault(sec[1], []).append(sec)
        for secs in bylock.values():
            for i in range(len(secs)):
                for j in range(i + 1, len(secs)):
                    t1, _, L1, U1 = secs[i]
                    t2, _, L2, U2 = secs[j]
                    if t1 == t2:
                        continue
                    alts = []
                    if U1 is not None:
                        if self.before(U1, L2):
                            continue
                        alts.append((U1, L2))
                    if U2 is not None:
                        if self.before(U2, L1):
                            continue
                        alts.append((U2, L1))
                    atoms = ["(< %s %s)" % (v(a), v(b)) for a, b in alts]
                    self.asserts.append("false" if not atoms else atoms[0] if len(atoms) == 1
                                        else "(or %s)" % " ".join(atoms))
        notifies = {}
        for e in ev:
            if e.type in ("NOTIFY", "NOTIFYALL"):
                notifies.setdefault(e.var, []).append(e)
        self.bools = []
        woken = {}
        for w in ev:
            if w.type != "WAIT":
                continue
            cands = [n_ for n_ in notifies.get(w.var, []) if n_.thread != w.thread]
            if not cands:
                continue
            names = []
            for n_ in cands:
                b = "b%d_%d" % (n_.gid, w.gid)
                self.bools.append(b)
                names.append(b)
                self.asserts.append("(=> %s (< %s %s))" % (b, v(n_), v(w)))
                if n_.type == "NOTIFY":
                    woken.setdefault(n_.gid, []).append(b)
            self.asserts.append("(or %s)" % " ".join(names) if len(names) > 1 else names[0])
        for bs in woken.values():
            for i in range(len(bs)):
                for j in range(i + 1, len(bs)):
                    self.asserts.append("(not (and %s %s))" % (bs[i], bs[j]))

    def edge(self, a, b):
        self.hard.append((a, b))
        self.preds[b.gid].append(a.gid)

    def closure(self):
        """self.reach[g]: bitset of the events surely before event g
        (None when the hard edges have a cycle)."""
        n = len(self.tr.events)
        indeg = [0] * n
        succ = [[] for _ in range(n)]
        for b in range(n):
            for a in self.preds[b]:
                succ[a].append(b)
                indeg[b] += 1
        order = [g for g in range(n) if indeg[g] == 0]
        k = 0
        while k < len(order):
            g = order[k]
            k += 1
            for b in succ[g]:
                indeg[b] -= 1
                if indeg[b] == 0:
                    order.append(b)
        if len(order) < n:
            self.reach = None
            return
        reach = [0] * n
        for g in order:
            r = 0
            for a in self.preds[g]:
                r |= reach[a] | (1 << a)
            reach[g] = r
        self.reach = reach

    def before(self, a, b):
        """True when Φ surely orders a before b."""
        return self.reach is not None and (self.reach[b.gid] >> a.gid) & 1 == 1

    def script(self, queries):
        out = ["(set-logic QF_IDL)"]
        for e in self.tr.events:
            out.append("(declare-fun %s () Int)" % v(e))
        for b in self.bools:
            out.append("(declare-fun %s () Bool)" % b)
        for a, b in self.hard:
            out.append("(assert (< %s %s))" % (v(a), v(b)))
        for f in self.asserts:
            out.append("(assert %s)" % f)
        out.append("(check-sat)")
        for q in queries:
            out.append("(push 1)(assert %s)(check-sat)(pop 1)" % q)
        return "\n".join(out) + "\n(exit)\n"

    def solve(self, queries):
        """[bool] for the queries, or raise Inconsistent."""
        p = subprocess.run(["z3", "-in", "-smt2"], input=self.script(queries),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = [x.strip() for x in p.stdout.splitlines() if x.strip()]
        if len(lines) != len(queries) + 1 or any(x not in ("sat", "unsat") for x in lines):
            raise RuntimeError("z3: unexpected output: %s %s" % (p.stdout[-500:], p.stderr[-500:]))
        if lines[0] == "unsat":
            raise Inconsistent()
        return [x == "sat" for x in lines[1:]]


def v(e):
    return "e%d" % e.gid


# ---------------------------------------------------------------- correlations

MAD_SCALE = 1.4826
BLANK = re.compile(r"[ \t\r\n\v\f]+")


def bkey(x):
    """Byte-wise (strcmp) order of a name."""
    return x.encode("utf-8", "surrogateescape")


def parse_correlated(path):
    """[(node or None for *, x, y)] of a --correlated file, or raise
    TraceError naming FILE:LINE."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as ex:
        raise TraceError("%s: cannot read: %s" % (path, ex.strerror))
    out = []
    for n, line in enumerate(data.decode("utf-8", "surrogateescape").split("\n"), 1):
        toks = [t for t in BLANK.split(line) if t]
        if not toks or toks[0].startswith("#"):
            continue
        if len(toks) != 3:
            raise TraceError("%s:%d: want NODE X Y or * X Y" % (path, n))
        if toks[1] == toks[2]:
            raise TraceError("%s:%d: a variable is not correlated with itself" % (path, n))
        out.append((None if toks[0] == "*" else toks[0], toks[1], toks[2]))
    return out


def median(xs):
    xs = sorted(xs)
    k = len(xs)
    return xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) / 2


def gap_stats(gaps):
    """(distance or None, support) of a list of gaps (choice 14)."""
    if not gaps:
        return None, 0
    m = median(gaps)
    mad = median([abs(g - m) for g in gaps])
    if mad == 0:
        kept = [g for g in gaps if g == m]
    else:
        kept = [g for g in gaps if abs(g - m) < 2 * MAD_SCALE * mad]
    if not kept:
        return None, 0
    return sum(kept) / len(kept), len(kept)


def correlations(tr, given, max_distance, min_support):
    """The correlated pairs of a trace: a list of dicts node, variables
    [X, Y] (X < Y byte-wise), distance, support, source; sorted."""
    threads_of = {}      # (node, var) -> set of threads
    names = {}           # node -> set of variable names accessed
    gaps = {}            # (node, X, Y) -> [gap]
    for th, evs in tr.threads.items():
        last = {}        # var name -> position of the thread's last access
        for e in evs:
            if e.type not in ("R", "W"):
                continue
            node, y = e.var
            threads_of.setdefault(e.var, set()).add(th)
            names.setdefault(node, set()).add(y)
            ly = last.get(y, -1)
            for x, lx in last.items():
                if x != y and lx > ly:      # x is the previous access to x or y
                    key = (node,) + ((x, y) if bkey(x) < bkey(y) else (y, x))
                    gaps.setdefault(key, []).append(e.idx - lx)
            last[y] = e.idx
    pairs = {}
    for key, gs in gaps.items():
        node, x, y = key
        if len(threads_of[(node, x)]) < 2 or len(threads_of[(node, y)]) < 2:
            continue
        d, sup = gap_stats(gs)
        if d is not None and sup >= min_support and d <= max_distance:
            pairs[key] = dict(node=node, variables=[x, y], distance=d, support=sup,
                              source="mined")
    for gnode, x, y in given:
        if bkey(y) < bkey(x):
            x, y = y, x
        for node in ([gnode] if gnode is not None else list(names)):
            if node not in names or x not in names[node] or y not in names[node]:
                continue
            key = (node, x, y)
            if key in pairs:
                if pairs[key]["source"] == "mined":
                    pairs[key]["source"] = "both"
                continue
            d, sup = gap_stats(gaps.get(key, []))
            pairs[key] = dict(node=node, variables=[x, y], distance=d, support=sup,
                              source="given")
    return [pairs[k] for k in sorted(pairs, key=lambda k: tuple(bkey(x) for x in k))]


# ---------------------------------------------------------------- analysis

def analyse(events, handlers="nested", atomicity=False, patterns=None, region="access",
            z3_only=False, multi_variable=False, given=(), max_distance=5.0,
            min_support=3):
    """The report as a dict of lists of groups; each group: locations,
    variable, node, count, pattern, and `alts`: the set of (variable, node,
    pattern) of its instances (for multi-variable groups the variable is the
    pair (x, y)).  With multi_variable, also "correlated_pairs"."""
    tr = Trace(events)
    m = Model(tr, handlers)
    queries = []      # SMT formulas
    cands = []        # (kind, payload, query index or None (unsat) )

    # Φ without disjunctions and acyclic: a candidate that the DAG does not
    # order is satisfiable (give each event its longest-path depth, then
    # merge or reorder the two events: no cycle); ask z3 nothing.
    pure = m.reach is not None and not m.asserts and not z3_only

    def ask(q):
        if pure:
            return -1
        queries.append(q)
        return len(queries) - 1

    # data races
    acc = {}
    for e in tr.events:
        if e.type in ("R", "W"):
            acc.setdefault(e.var, []).append(e)
    for var, lst in acc.items():
        for i in range(len(lst)):
            a = lst[i]
            for j in range(i + 1, len(lst)):
                b = lst[j]
                if a.thread == b.thread or (a.type == "R" and b.type == "R"):
                    continue
                if m.before(a, b) or m.before(b, a):
                    continue
                cands.append(("data", (a, b), ask("(= %s %s)" % (v(a), v(b)))))
    # message races
    for th, evs in tr.threads.items():
        rcvs = [e for e in evs if e.type == "RCV" and e in tr.its_send]
        for i in range(len(rcvs)):
            r1 = rcvs[i]
            s1 = tr.its_send[r1]
            for j in range(i + 1, len(rcvs)):
                r2 = rcvs[j]
                s2 = tr.its_send[r2]
                if s1 is s2:
                    continue
                if r1.tcp and r2.tcp and r1.chan is not None and r1.chan == r2.chan:
                    continue
                if m.before(r1, s2) or r1 is s2:
                    continue
                cands.append(("message", (r1, r2), ask("(< %s %s)" % (v(s2), v(r1)))))
    # atomicity
    if atomicity:
        pats = set(patterns or DEFAULT_PATTERNS)
        sections = {}
        for th, lock, L, U in tr.sections:
            sections.setdefault(th, []).append((L.idx, U.idx if U is not None else float("inf")))
        for var, lst in acc.items():
            ctxs = {}
            for e in lst:
                ctxs.setdefault((e.thread, e.ctx.hid if e.ctx is not None else None), []).append(e)
            for (th, hid), cl in ctxs.items():
                if region == "handler" and hid is None:
                    continue
                for p, c in zip(cl, cl[1:]):
                    if region == "lock" and not any(L < p.idx and c.idx < U for L, U in sections.get(th, [])):
                        continue
                    for r in lst:
                        if r.thread == th:
                            continue
                        pat = p.type + r.type + c.type
                        if pat not in pats:
                            continue
                        if m.before(r, p) or m.before(c, r):
                            continue
                        if m.before(p, r) and m.before(r, c):
                            continue
                        q1 = ask("(and (< %s %s) (< %s %s))" % (v(p), v(r), v(r), v(c)))
                        q2 = ask("(or (< %s %s) (< %s %s))" % (v(r), v(p), v(c), v(r)))
                        cands.append(("atomicity", (p, r, c, pat), (q1, q2)))
    # multi-variable atomicity violations
    pairs = []
    if multi_variable:
        pairs = correlations(tr, given, max_distance, min_support)
        by_thread = {}   # (thread, (node, var)) -> accesses in program order
        for e in tr.events:
            if e.type in ("R", "W"):
                by_thread.setdefault((e.thread, e.var), []).append(e)
        for pr in pairs:
            node = pr["node"]
            vx, vy = (node, pr["variables"][0]), (node, pr["variables"][1])
            both = sorted(acc.get(vx, []) + acc.get(vy, []), key=lambda e: e.gid)
            ctxs = {}
            for e in both:
                ctxs.setdefault((e.thread, e.ctx.hid if e.ctx is not None else None), []).append(e)
            others = sorted({e.thread for e in both})
            for (th, hid), cl in ctxs.items():
                for a1, a2 in zip(cl, cl[1:]):
                    if a1.var == a2.var:
                        continue
                    for t2 in others:
                        if t2 == th:
                            continue
                        for bx in by_thread.get((t2, a1.var), []):
                            if a1.type == "R" and bx.type == "R":
                                continue
                            for by in by_thread.get((t2, a2.var), []):
                                if a2.type == "R" and by.type == "R":
                                    continue
                                if (m.before(bx, a1) or m.before(a2, bx)
                                        or m.before(by, a1) or m.before(a2, by)):
                                    continue
                                if (m.before(a1, bx) and m.before(bx, a2)
                                        and m.before(a1, by) and m.before(by, a2)):
                                    continue
                                conj = "(and (< %s %s) (< %s %s) (< %s %s) (< %s %s))" % (
                                    v(a1), v(bx), v(bx), v(a2), v(a1), v(by), v(by), v(a2))
                                q1 = ask(conj)
                                q2 = ask("(not %s)" % conj)
                                pat = "%sx..%sy / %sx,%sy" % (a1.type, a2.type, bx.type, by.type)
                                cands.append(("mv", (a1, a2, bx, by, pat), (q1, q2)))
    ans = m.solve(queries) + [True]   # ans[-1]: decided sat without z3

    groups = {"data_races": {}, "message_races": {}, "handler_races": {},
              "atomicity_violations": {}}
    if multi_variable:
        groups["multi_variable_violations"] = {}

    def add(kind, locs, inst, alt, extra):
        g = groups[kind].get(locs)
        if g is None:
            g = groups[kind][locs] = dict(locations=list(locs), count=0, instances=set(), alts=set(), **extra)
        if inst not in g["instances"]:
            g["instances"].add(inst)
            g["count"] += 1
            g["alts"].add(alt)

    for kind, pl, qi in cands:
        if kind == "data":
            if not ans[qi]:
                continue
            a, b = pl
            locs = tuple(sorted((a.loc, b.loc)))
            add("data_races", locs, (a.gid, b.gid), (a.var[1], a.node, None),
                dict(variable=a.var[1], node=a.node))
        elif kind == "message":
            if not ans[qi]:
                continue
            r1, r2 = pl
            s1, s2 = tr.its_send[r1], tr.its_send[r2]
            locs = tuple(sorted((s1.loc, s2.loc)))
            add("message_races", locs, (r1.gid, r2.gid), (None, r1.node, None), dict(node=r1.node))
            h1, h2 = r1.handler, r2.handler
            if h1 is None or h2 is None:
                continue
            e1, e2 = h1.events, h2.events
            set1, set2 = set(e1), set(e2)
            if h2.begin in set1:      # h2 nested in h1
                e1 = [e for e in e1 if e not in set2]
            elif h1.begin in set2:
                e2 = [e for e in e2 if e not in set1]
            a1 = [e for e in e1 if e.type in ("R", "W")]
            a2 = [e for e in e2 if e.type in ("R", "W")]
            for a in a1:
                for b in a2:
                    if a is b or a.var != b.var or (a.type == "R" and b.type == "R"):
                        continue
                    locs = tuple(sorted((a.loc, b.loc)))
                    add("handler_races", locs, (min(a.gid, b.gid), max(a.gid, b.gid)),
                        (a.var[1], a.node, None), dict(variable=a.var[1], node=a.node))
        elif kind == "mv":
            q1, q2 = qi
            if not (ans[q1] and ans[q2]):
                continue
            a1, a2, bx, by, pat = pl
            xy = (a1.var[1], a2.var[1])
            add("multi_variable_violations", (a1.loc, a2.loc, bx.loc, by.loc),
                (a1.gid, a2.gid, bx.gid, by.gid), (xy, a1.node, pat),
                dict(variables=list(xy), node=a1.node, pattern=pat))
        else:
            q1, q2 = qi
            if not (ans[q1] and ans[q2]):
                continue
            p, r, c, pat = pl
            locs = (p.loc, r.loc, c.loc)
            add("atomicity_violations", locs, (p.gid, r.gid, c.gid), (p.var[1], p.node, pat),
                dict(pattern=pat, variable=p.var[1], node=p.node))
    out = {}
    for kind, d in groups.items():
        lst = []
        for locs in sorted(d):
            g = d[locs]
            del g["instances"]
            lst.append(g)
        out[kind] = lst
    if multi_variable:
        out["correlated_pairs"] = pairs
    return out


def public(report):
    out = {}
    for k, lst in report.items():
        if k == "correlated_pairs":
            out["summary"] = {"correlated_pairs": lst}
        else:
            out[k] = [{x: y for x, y in g.items() if x != "alts"} for g in lst]
    return out


def found(report):
    return any(lst for k, lst in report.items() if k != "correlated_pairs")


# ---------------------------------------------------------------- CLI

def parse_opts(args, allow_handlers=True):
    o = dict(handlers="nested", atomicity=False, patterns=None, region="access",
             jobs=os.cpu_count() or 1,
             z3_only=False, multi_variable=False, correlated=None,
             max_distance=None, min_support=None)
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


def run_reference(paths, o, handlers):
    """('ok', report) | ('inconsistent', None) | ('error', message)"""
    try:
        given = parse_correlated(o["correlated"]) if o["correlated"] else []
        ev = load(paths)
        return "ok", analyse(ev, handlers, o["atomicity"], o["patterns"], o["region"],
                               o["z3_only"], o["multi_variable"], given,
                               float(o["max_distance"] or 5), int(o["min_support"] or 3))
    except TraceError as ex:
        return "error", str(ex)
    except Inconsistent:
        return "inconsistent", None


def trace_bytes(path):
    """The bytes a trace path stands for: a file's, or a directory's
    regular files' with their names, in name order."""
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            return f.read()
    out = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out += [os.fsencode(name), b"\0", f.read(), b"\0"]
    return b"".join(out)


with open(__file__, "rb") as _script:  # cached_reference's keys start here
    SCRIPT_HASH = hashlib.sha256(_script.read())


def cached_reference(path, o, handlers):
    """run_reference([path], o, handlers), kept under REFERENCE_CACHE (a
    directory) by the hash of this script, the options and the trace's
    bytes: make check's sanitized pass compares spider with the answers
    the plain pass computed for the same traces (only spider is under
    test there)."""
    cache = os.environ.get("REFERENCE_CACHE")
    if not cache:
        return run_reference([path], o, handlers)
    h = SCRIPT_HASH.copy()
    h.update(repr((sorted(o.items()), handlers)).encode())
    try:
        if o.get("correlated"):
            h.update(trace_bytes(o["correlated"]))
        h.update(trace_bytes(path))
    except OSError:  # unreadable: the reference says so, uncached
        return run_reference([path], o, handlers)
    key = os.path.join(cache, h.hexdigest())
    if os.path.exists(key):
        with open(key, "rb") as f:
            return pickle.load(f)
    result = run_reference([path], o, handlers)
    os.makedirs(cache, exist_ok=True)
    tmp = "%s.%d.%d" % (key, os.getpid(), threading.get_ident())
    with open(tmp, "wb") as f:
        pickle.dump(result, f)
    os.replace(tmp, key)
    return result


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


MODES = [("default", []), ("no-prune", ["--no-prune"]),
         # Z3 on every candidate, every lock's clauses given only as
         # its models break them (encode_z3.c): the reference lists them all
         ("z3", ["--solver=z3", "--no-prune", "--eager-locks=0"]),
         ("exact", ["--no-prune", "--all-instances"])]


def spider_flags(o):
    f = []
    if o["atomicity"]:
        f.append("--atomicity")
        if o["patterns"]:
            f.append("--atomicity-patterns=" + ",".join(o["patterns"]))
        if o["region"] != "access":
            f.append("--atomic-region=" + o["region"])
    if o["multi_variable"]:
        f.append("--multi-variable")
    f += correlation_flags(o)
    return f


def correlation_flags(o):
    f = []
    if o["correlated"]:
        f.append("--correlated=" + o["correlated"])
    if o["max_distance"] is not None:
        f.append("--max-distance=" + o["max_distance"])
    if o["min_support"] is not None:
        f.append("--min-support=" + o["min_support"])
    return f


def pair_diffs(ref, sp, where):
    """Differences between the reference's correlated pairs and spider's
    list (node, variables, support, source exact; distance to 1e-9)."""
    if not isinstance(sp, list):
        return ["%s: no correlated_pairs list" % where]
    out = []
    key = lambda p: (norm(p.get("node")), tuple(norm(x) for x in p.get("variables", [])))
    sk = [key(p) for p in sp]
    if sk != sorted(sk, key=lambda k: (bkey(k[0] or ""),) + tuple(bkey(x or "") for x in k[1])):
        out.append("%s: not sorted by (node, X, Y)" % where)
    rd = {key(p): p for p in ref}
    sd = {}
    for p in sp:
        if key(p) in sd:
            out.append("%s: pair %s twice" % (where, key(p)))
        sd[key(p)] = p
    for k in sorted(set(rd) - set(sd), key=str):
        out.append("%s: pair %s %s missing in spider (support %d, distance %s)"
                   % (where, k, rd[k]["source"], rd[k]["support"], rd[k]["distance"]))
    for k in sorted(set(sd) - set(rd), key=str):
        out.append("%s: pair %s listed by spider only (%s)" % (where, k, json.dumps(sd[k])))
    for k in sorted(set(rd) & set(sd), key=str):
        r, s_ = rd[k], sd[k]
        bad = []
        if s_.get("support") != r["support"]:
            bad.append("support %s, reference %d" % (s_.get("support"), r["support"]))
        if s_.get("source") != r["source"]:
            bad.append("source %s, reference %s" % (s_.get("source"), r["source"]))
        d = s_.get("distance")
        if r["distance"] is None:
            if d is not None:
                bad.append("distance %s, reference null" % d)
        elif not isinstance(d, (int, float)) or isinstance(d, bool) or abs(d - r["distance"]) > 1e-9:
            bad.append("distance %s, reference %r" % (d, r["distance"]))
        if bad:
            out.append("%s: pair %s: %s" % (where, k, "; ".join(bad)))
    return out


def norm(x):
    return x if isinstance(x, str) or x is None else text_of(x)


def compare_one(path, o):
    """[(checks, [failure lines])]"""
    spider = os.environ.get("SPIDER", "./bin/spider")
    lines, checks = [], 0
    kinds = ["data_races", "message_races", "handler_races"]
    if o["atomicity"]:
        kinds.append("atomicity_violations")
    if o["multi_variable"]:
        kinds.append("multi_variable_violations")
        checks += 1
        tag = "not ok: %s --list-correlations: " % path
        try:
            given = parse_correlated(o["correlated"]) if o["correlated"] else []
            st, ref = "ok", correlations(Trace(load([path])), given,
                                         float(o["max_distance"] or 5), int(o["min_support"] or 3))
        except TraceError as ex:
            st, ref = "error", str(ex)
        p = subprocess.run([spider, "-f", "json", "--no-timings", "-q", "--list-correlations"]
                           + correlation_flags(o) + [path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if st == "error":
            if p.returncode != 2:
                lines.append(tag + "reference: %s, spider exit %d" % (ref, p.returncode))
            elif o["correlated"] and ref.startswith(o["correlated"] + ":") \
                    and ref[:ref.index(":", len(o["correlated"]) + 1)] not in p.stderr:
                lines.append(tag + "spider's message does not name the line: %s" % p.stderr.strip()[:200])
        else:
            try:
                sp = json.loads(p.stdout)
            except ValueError:
                sp = None
            if p.returncode != 0:
                lines.append(tag + "spider exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
            elif not isinstance(sp, dict):
                lines.append(tag + "spider output is not a JSON object")
            else:
                d = pair_diffs(ref, sp.get("correlated_pairs"), "list")
                if d:
                    lines.append(tag + "; ".join(d))
    for model in ("nested", "floating"):
        st, ref = cached_reference(path, o, model)
        for mode, flags in MODES:
            checks += 1
            tag = "not ok: %s %s %s: " % (path, model, mode)
            try:
                p = subprocess.run([spider, "-f", "json", "--no-timings", "-q", "--handlers=" + model]
                                   + flags + spider_flags(o) + [path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            except OSError as ex:
                lines.append(tag + "cannot run %s: %s" % (spider, ex))
                continue
            if st != "ok":
                if p.returncode != 2:
                    lines.append(tag + "reference: %s, spider exit %d" % (st if st == "inconsistent" else ref, p.returncode))
                continue
            if p.returncode not in (0, 1):
                lines.append(tag + "spider exit %d: %s" % (p.returncode, " | ".join(p.stderr.strip().splitlines()[:2])[:300]))
                continue
            try:
                sp = json.loads(p.stdout)
            except ValueError:
                lines.append(tag + "spider output is not JSON")
                continue
            diffs = []
            for k in kinds:
                rg = {tuple(g["locations"]): g for g in ref[k]}
                sg = {}
                for g in sp.get(k, []):
                    sg[tuple(norm(x) for x in g["locations"])] = g
                for locs in sorted(set(rg) - set(sg)):
                    diffs.append("%s %s missing in spider (count %d)" % (k, list(locs), rg[locs]["count"]))
                for locs in sorted(set(sg) - set(rg)):
                    diffs.append("%s %s reported by spider only" % (k, list(locs)))
                for locs in sorted(set(rg) & set(sg)):
                    r, s = rg[locs], sg[locs]
                    if k == "multi_variable_violations":
                        var = tuple(norm(x) for x in s.get("variables", []))
                    else:
                        var = norm(s.get("variable")) if k != "message_races" else None
                    pat = s.get("pattern") if k in ("atomicity_violations", "multi_variable_violations") else None
                    alt = (var, norm(s.get("node")), pat)
                    if alt not in r["alts"]:
                        diffs.append("%s %s: spider shows %s, reference has %s"
                                     % (k, list(locs), alt, sorted(r["alts"], key=str)))
                    if mode == "exact" and s.get("count") != r["count"]:
                        diffs.append("%s %s: count %s, reference %d" % (k, list(locs), s.get("count"), r["count"]))
            if sp.get("undecided"):
                diffs.append("undecided groups")
            if o["multi_variable"]:
                diffs += pair_diffs(ref["correlated_pairs"],
                                    (sp.get("summary") or {}).get("correlated_pairs"), "summary")
            want = 1 if found(ref) else 0
            if p.returncode != want:
                diffs.append("exit %d, reference %d" % (p.returncode, want))
            if diffs:
                lines.append(tag + "; ".join(diffs))
    return checks, lines


def cmd_compare(args):
    o, paths = parse_opts(args, allow_handlers=False)
    total = failed = 0
    with ThreadPoolExecutor(max_workers=max(1, o["jobs"])) as pool:
        for checks, lines in pool.map(lambda p: compare_one(p, o), paths):
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
