"""Loading a trace, for tests/reference.py: the event types and their
aliases, Ev (one event), the JSON reader (objects one after another or
in an array, an object cut off at the end) and make_event(), which checks
an object's fields and makes it an Ev (interpretation choice 1 in
reference.py's docstring); load() reads the files of one run.
TraceError: a trace, file or option file that cannot be read."""
import json
import os
import re

CODES = {1: "CREATE", 2: "START", 3: "END", 4: "JOIN", 5: "LOG", 6: "R",
         7: "W", 8: "SND", 9: "RCV", 10: "CLOSE", 11: "CONNECT",
         12: "ACCEPT", 13: "SHUTDOWN", 14: "HANDLERBEGIN", 15: "HANDLEREND",
         16: "LOCK", 17: "UNLOCK", 18: "WAIT", 19: "NOTIFY", 20: "NOTIFYALL"}
NAMES = set(CODES.values())
ALIASES = {"FORK": "CREATE", "READ": "R", "WRITE": "W", "SEND": "SND",
           "RECEIVE": "RCV"}
VAR_TYPES = {"R", "W", "LOCK", "UNLOCK", "WAIT", "NOTIFY", "NOTIFYALL"}
CHANNEL = ("src", "src_port", "dst", "dst_port")


class TraceError(Exception):
    pass


# ---------------------------------------------------------------- loading

class Ev:
    __slots__ = ("gid", "thread", "node", "idx", "type", "var", "loc",
                 "msg", "tcp", "chan", "size", "ts", "child", "file", "line",
                 "ctx", "encl", "handler", "loc_given")

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
    e.loc_given = e.loc is not None
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
