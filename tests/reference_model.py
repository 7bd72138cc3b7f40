"""The model of a trace, for tests/reference.py (SPEC §1-§2): Trace binds
handlers to their receives, matches messages to their sends and finds
the lock sections (choices 2, 4, 5 and 9 in reference.py's docstring);
Model is Φ in one handler model (choice 3) as SMT-LIB2, decided by one
`z3 -in` process, with its unconditional part as a DAG for cheap unsat
answers (choice 10).  Inconsistent: Φ itself is unsatisfiable."""
import subprocess


class Inconsistent(Exception):
    pass


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
