#!/usr/bin/env python3
"""Writes the hostile-input corpus of tests/t0140-hostile.sh into DIR.

Usage: make-hostile.py [--small] DIR

--small (make test) writes the three cases whose reports run to tens of
megabytes (handlers-unclosed, nested-handlers-150, messages-600) at a
third of their size: the same shapes, a report checked in a second
rather than in fifteen.

Inputs an attacker or an unlucky operator could give spider (issue 15):
JSON oddities, semantics at the edges, file-system surprises and scale,
each under 1 MB.  DIR/manifest.tsv lists one case a line:

    name  args  stdin  want_status  want_stderr  want_events

args are separated by "|": paths relative to DIR (or absolute, or "-",
or an option); stdin is a path to feed
on standard input ("~" = /dev/null); want_status is an exit status, or
"ok" for any verdict (0, 1 or 3); want_stderr a text the standard error
must hold ("~" = none asked); want_events the events the JSON summary must
count ("~" = not checked; "~" stands for an empty field, which a shell's
read would skip): a valid event is kept, or the run is exit 2
naming its line.
"""
import json
import os
import sys

SMALL = sys.argv[1:2] == ["--small"]
D = sys.argv[-1]
# the size of the cases whose report grows with its square
SCALE = 3 if SMALL else 1
os.makedirs(D, exist_ok=True)
rows = []


def path(name):
    return os.path.join(D, name)


def raw(name, data, status="ok", msg="", events="", args=None, stdin=""):
    with open(path(name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    rows.append((name, args if args is not None else name, stdin, str(status),
                 msg, str(events)))


def lines(name, objs, **kw):
    raw(name, "".join((o if isinstance(o, str) else json.dumps(o)) + "\n"
                      for o in objs), **kw)


def ev(thread, type_, **kw):
    d = {"thread": thread, "type": type_}
    d.update(kw)
    return d


W = lambda t, v, loc, **kw: ev(t, "W", variable=v, loc=loc, **kw)
R = lambda t, v, loc, **kw: ev(t, "R", variable=v, loc=loc, **kw)

# ---- JSON oddities ---------------------------------------------------------
base = [W("a@n", "x", "l1"), W("b@n", "x", "l2")]
lines("plain", base, status=1, events=2)
raw("nul-first", b"\0" * 100, status=2, msg=":1:1: NUL byte")
raw("nul-middle", b'{"thread":"a@n","type":"W","variable":"x"}\n{"th\0', status=2,
    msg=":2:")
raw("all-ff", b"\xff" * 1000, status=2, msg=":1:1:")
raw("random-bytes", bytes((i * 7919 + 13) % 256 for i in range(5000)), status=2)
raw("utf16-bom", "\ufeff".encode("utf-16") + json.dumps(base[0]).encode("utf-16-le"),
    status=2)
for field in ("loc", "variable", "thread", "type"):
    o = W("a@n", "x", "l1")
    o[field] = o[field] + "\u0000junk"
    lines("nul-escape-" + field, [o, base[1]], status=2, msg=":1:1: a string holds")
lines("nul-escape-extra-field", [dict(W("a@n", "x", "l1"), data="a\u0000b"), base[1]],
      status=2, msg=":1:1:")
lines("escaped-backslash-u0000", ['{"thread":"a@n","type":"W","variable":"x\\\\u0000","loc":"l"}',
                                  base[1]], status=0, events=2)
for ctl, nm in (("\x1b[31m", "esc"), ("\r", "cr"), ("\n", "lf"), ("\x07", "bel"),
                ("\x7f", "del"), ("\u009b", "c1"), ("\x08", "bs")):
    for field in ("loc", "variable", "thread"):
        a = W("a@n", "x", "l1")
        b = W("b@n", "x", "l2")
        a[field] = a[field] + ctl + "spider: forged"
        b[field] = b[field] + ctl + "spider: forged"
        lines("ctl-%s-%s" % (nm, field), [a, b], events=2)
lines("ctl-type", [ev("a@n", "W\x1b[2J")], status=2, msg="unknown event type")
raw("ctl-raw-in-string", b'{"thread":"a\x1b[2J@n","type":"W","variable":"x\rspider: x","loc":"l\x01"}\n'
    b'{"thread":"b@n","type":"W","variable":"x\rspider: x","loc":"m"}\n', events=2)
raw("invalid-utf8-loc", b'{"thread":"a@n","type":"W","variable":"x","loc":"\xc3\x28\xff"}\n'
    b'{"thread":"b@n","type":"W","variable":"x","loc":"\xed\xa0\x80"}\n', status=1, events=2)
raw("invalid-utf8-thread", b'{"thread":"a\xff@n","type":"W","variable":"x","loc":"l"}\n'
    b'{"thread":"b\xc0\xaf@n","type":"W","variable":"x","loc":"m"}\n', status=1, events=2)
raw("overlong-utf8-var", b'{"thread":"a@n","type":"W","variable":"\xc0\x80","loc":"l"}\n',
    status=0, events=1)
# cJSON refuses a lone surrogate: an error naming the place, not a crash
lines("lone-surrogate", ['{"thread":"a@n","type":"W","variable":"\\ud800","loc":"l"}',
                         '{"thread":"b@n","type":"W","variable":"\\udfff","loc":"m"}'],
      status=2, msg=":1:40: invalid JSON")
for k in ("type", "thread", "variable", "loc", "message", "timestamp"):
    lines("dup-key-" + k, ['{"thread":"a@n","type":"W","variable":"x","loc":"l","message":1,'
                           '"timestamp":1,"%s":"again"}' % k], status=2,
          msg='key "%s" is written twice' % k)
lines("dup-key-lenient", ['{"thread":"a@n","type":"W","variable":"x","variable":"y"}'],
      status=2, msg=":1:1:")
raw("deep-nesting-field", '{"thread":"a@n","type":"W","variable":"x","data":' + "[" * 5000
    + "]" * 5000 + "}\n", status=2)
raw("deep-nesting-200", '{"thread":"a@n","type":"W","variable":"x","data":' + "[" * 200
    + "]" * 200 + "}\n", status=0, events=1)
raw("many-keys", "{" + ",".join('"k%d":%d' % (i, i) for i in range(20000))
    + ',"thread":"a@n","type":"W","variable":"x"}\n', status=0, events=1)
raw("long-string", json.dumps(W("a@n", "x", "L" * 500000)) + "\n", status=0, events=1)
raw("long-thread", json.dumps(W("T" * 5000 + "1@n", "x", None)) + "\n"
    + json.dumps(W("T" * 5000 + "2@n", "x", None)) + "\n", status=1, events=2)
for nm, num in (("big", "1e400"), ("neg-big", "-1e400"), ("tiny", "1e-400"),
                ("huge-exp", "1e99999999999999999999"), ("many-digits", "1" * 5000)):
    raw("number-" + nm, '{"thread":"a@n","type":"W","variable":%s,"loc":%s,"id":%s}\n'
        % (num, num, num), status=0, events=1)
raw("cr-only", '{"thread":"a@n","type":"W","variable":"x"}\r{"thread":"a@n","type":"W"}\r',
    status=2, msg=":2:1:")
raw("crlf", '{"thread":"a@n","type":"W","variable":"x"}\r\n{"thread":"a@n","type":"W"}\r\n',
    status=2, msg=":2:1:")
raw("mixed-line-ends", '{"thread":"a@n","type":"W","variable":"x"}\r\n\r\r\n{"thread":"b@n",'
    '"type":"W","variable":"x"}\n\r{"type":"W"}', status=2, msg=":6:1:")
raw("formfeed-vtab", '{"thread":"a@n","type":"W","variable":"x"}\f\v{"thread":"b@n","type":"W",'
    '"variable":"x"}\n', status=1, events=2)
raw("glued", "".join(json.dumps(o) for o in base), status=1, events=2)
raw("array-trailing-comma", "[" + json.dumps(base[0]) + "," + json.dumps(base[1]) + ",]",
    status=2)
raw("array-of-arrays", "[[" + json.dumps(base[0]) + "]]", status=2)
raw("top-string", '"hello"', status=2)
raw("top-number", "42", status=2)
raw("bad-escape", '{"thread":"a@n","type":"W","variable":"x\\q"}\n', status=2)
raw("backslash-eof", '{"thread":"a@n","type":"W","variable":"x\\', status=2,
    msg="no events in the trace")
raw("bom-middle", json.dumps(base[0]) + "\n\ufeff" + json.dumps(base[1]) + "\n", status=2)
# cJSON reads 01 as 1 (in an ignored field here)
raw("leading-zero-number", '{"thread":"a@n","type":"W","variable":"x","id":01}\n', status=0,
    events=1)
for nm, num in (("minus", "-"), ("e", "1e"), ("plus", "+1"),
                ("dot", ".5"), ("nan", "NaN"), ("inf", "Infinity")):
    raw("badnum-" + nm, '{"thread":"a@n","type":"W","variable":"x","id":%s}\n' % num,
        status=2)
raw("whitespace-1mb", " " * 900000 + json.dumps(base[0]) + "\n", status=0, events=1)
raw("empty-object", "{}\n", status=2, msg="missing field")
raw("null-fields", '{"thread":"a@n","type":"W","variable":"x","loc":null,"timestamp":null}\n',
    status=0, events=1)
raw("bool-type", '{"thread":"a@n","type":true}\n', status=2)

# ---- semantics at the edges --------------------------------------------------
def msgs(name, a, b, status, **kw):
    lines(name, [ev("s1@n1", "SND", message=a, loc="s1"), ev("s2@n1", "SND", message=b, loc="s2"),
                 ev("r@n2", "RCV", message=a, loc="r1"), ev("r@n2", "RCV", message=b, loc="r2")],
          status=status, events=4, **kw)


msgs("id-20-digits", "12345678901234567890", "12345678901234567891", 1)
msgs("id-2pow53", 9007199254740993, 9007199254740992, 1)
raw("id-2pow53-string", '{"thread":"s1@n1","type":"SND","message":9007199254740993,"loc":"s1"}\n'
    '{"thread":"s2@n1","type":"SND","message":"9007199254740992","loc":"s2"}\n'
    '{"thread":"r@n2","type":"RCV","message":"9007199254740993","loc":"r1"}\n'
    '{"thread":"r@n2","type":"RCV","message":9007199254740992,"loc":"r2"}\n', status=1, events=4)
msgs("id-hex-vs-dec", "0x10", "16", 1)
msgs("id-nan", "NaN", "nan", 1)
raw("id-1e400", '{"thread":"s1@n1","type":"SND","message":1e400,"loc":"s1"}\n'
    '{"thread":"s2@n1","type":"SND","message":2e400,"loc":"s2"}\n'
    '{"thread":"r@n2","type":"RCV","message":1e400,"loc":"r1"}\n'
    '{"thread":"r@n2","type":"RCV","message":2e400,"loc":"r2"}\n', status=1, events=4)
msgs("id-leading-zero-string", "016", "16", 1)
# the same id written two ways is one message: no race between them
raw("id-same-value", '{"thread":"s1@n1","type":"SND","message":100,"loc":"s1"}\n'
    '{"thread":"r@n2","type":"RCV","message":1e2,"loc":"r1"}\n'
    '{"thread":"r@n2","type":"RCV","message":"100.0","loc":"r2"}\n', status=0, events=3,
    msg="")
for nm, v in (("max", "9223372036854775807"), ("min", "-9223372036854775808")):
    raw("timestamp-int64-" + nm, '{"thread":"a@n","type":"W","variable":"x","timestamp":%s}\n'
        '{"thread":"b@n","type":"W","variable":"x","timestamp":"%s"}\n' % (v, v),
        status=1, events=2)
raw("timestamp-over", '{"thread":"a@n","type":"W","variable":"x","timestamp":9223372036854775808}\n',
    status=2, msg='"timestamp" must be an integer')
raw("timestamp-1e19", '{"thread":"a@n","type":"W","variable":"x","timestamp":1e19}\n', status=2)
raw("timestamp-order", '{"thread":"a@n","type":"W","variable":"x","timestamp":9223372036854775807}\n'
    '{"thread":"a@n","type":"W","variable":"y","timestamp":-9223372036854775808}\n', status=0,
    events=2, args="--order=timestamp|timestamp-order")
tcp = dict(socket_type="TCP", src="h1", src_port=1, dst="h2", dst_port=2)
lines("size-overflow", [ev("s@n1", "SND", size=9000000000000000000, **tcp),
                        ev("s@n1", "SND", size=9000000000000000000, **tcp),
                        ev("r@n2", "RCV", size=9000000000000000000, **tcp),
                        ev("r@n2", "RCV", size=9000000000000000000, **tcp)], events=4)
lines("size-int64-max", [ev("s@n1", "SND", size=9223372036854775807, **tcp),
                         ev("s@n1", "SND", size=1, **tcp),
                         ev("r@n2", "RCV", size=9223372036854775807, **tcp),
                         ev("r@n2", "RCV", size=9223372036854775807, **tcp)], events=4)
lines("size-zero", [ev("s@n1", "SND", size=0, **tcp), ev("r@n2", "RCV", size=0, **tcp)], events=2)
lines("join-unknown", [ev("main@n", "JOIN", child="ghost@n"), W("main@n", "x", "l")], status=0,
      events=2, msg="JOIN of thread ghost@n, which has no event")
lines("join-self", [ev("a@n", "JOIN", child="a@n"), W("a@n", "x", "l")], status=2,
      msg="inconsistent trace")
lines("create-cycle", [ev("a@n", "CREATE", child="b@n"), ev("b@n", "CREATE", child="a@n")],
      status=2, msg="inconsistent trace")
lines("thread-at-only", [W("@", "x", "l"), W("@@", "x", "m"), W("t@", "x", "n")], events=3)
lines("unlock-twice", [ev("a@n", "LOCK", variable="L"), ev("a@n", "UNLOCK", variable="L"),
                       ev("a@n", "UNLOCK", variable="L")], events=3, msg="UNLOCK")
lines("reentrant-deep", [ev("a@n", "LOCK", variable="L")] * 3000 + [W("a@n", "x", "l")]
      + [ev("a@n", "UNLOCK", variable="L")] * 3000 + [W("b@n", "x", "m")], status=1,
      events=6002)
# two sections that hold to the end cannot both be: inconsistent
lines("locks-never-released", [ev("t%d@n" % i, "LOCK", variable="L") for i in range(50)],
      status=2, msg="inconsistent trace")
lines("lock-never-released-one", [ev("a@n", "LOCK", variable="L"), W("a@n", "x", "l"),
                                  ev("b@n", "LOCK", variable="L"), W("b@n", "x", "m"),
                                  ev("b@n", "UNLOCK", variable="L")], status=0, events=5,
      msg="LOCK never released")
lines("handler-end-first", [ev("a@n", "HANDLEREND"), ev("a@n", "HANDLERBEGIN")], events=2)
N_UNCLOSED = 300 // SCALE
lines("handlers-unclosed", [ev("s@m", "SND", message=i) for i in range(N_UNCLOSED)]
      + sum(([ev("r@n", "RCV", message=i), ev("r@n", "HANDLERBEGIN"), W("r@n", "x", "h%d" % i)]
             for i in range(N_UNCLOSED)), []), events=4 * N_UNCLOSED)
lines("wait-alone", [ev("a@n", "WAIT", variable="c")], events=1)
lines("notifyall-same-thread", [ev("a@n", "NOTIFYALL", variable="c"), ev("a@n", "WAIT", variable="c")],
      events=2)
lines("type-codes", [ev("a@n", 0), ], status=2, msg="unknown event type code")
lines("type-code-21", [ev("a@n", 21)], status=2)
lines("type-code-neg", [ev("a@n", -7)], status=2)
lines("type-lowercase", [ev("a@n", "write", variable="x"), ev("b@n", "w", variable="x")], status=1,
      events=2)
lines("rcv-before-snd", [ev("r@n2", "RCV", message=1), ev("s@n1", "SND", message=1)], events=2)
lines("id-sent-100-times", [ev("s%d@n1" % i, "SND", message=7) for i in range(100)]
      + [ev("r@n2", "RCV", message=7)], events=101)

# ---- scale, each under 1 MB --------------------------------------------------
def nested(name, n, same_loc=False):
    evs = [ev("s@a", "SND", message=i, loc="S" if same_loc else "S%d" % i) for i in range(n)]
    for i in range(n):
        evs += [ev("r@b", "RCV", message=i, loc="R"), ev("r@b", "HANDLERBEGIN"),
                W("r@b", "x", "X" if same_loc else "X%d" % i)]
    evs += [ev("r@b", "HANDLEREND")] * n
    lines(name, evs, status=1, events=5 * n)


nested("nested-handlers-150", 150 // SCALE)
lines("wait-notify-60", sum(([ev("n%d@n" % i, "NOTIFY", variable="c"),
                              ev("w%d@n" % i, "WAIT", variable="c")] for i in range(60)), []),
      events=120)
lines("lock-300-writes", sum(([ev("t%d@n" % t, "LOCK", variable="L")]
                               + [W("t%d@n" % t, "x", "X%d" % t)] * 300
                               + [ev("t%d@n" % t, "UNLOCK", variable="L")] for t in range(2)), []),
      status=0, events=604)
lines("threads-500", [W("t%d@n" % i, "x", "L") for i in range(500)], status=1, events=500)
lines("nodes-5000", [W("t@n%d" % i, "x", "L") for i in range(5000)], status=0, events=5000)
N_MESSAGES = 600 // SCALE
lines("messages-600", [ev("s@a", "SND", message=i) for i in range(N_MESSAGES)]
      + [ev("r%d@b" % (i % 3), "RCV", message=i) for i in range(N_MESSAGES)],
      events=2 * N_MESSAGES)

# ---- file system -------------------------------------------------------------
def tree(name, files):
    os.makedirs(path(name), exist_ok=True)
    for f, data in files.items():
        with open(os.path.join(path(name), f), "w") as fh:
            fh.write(data)


one = json.dumps(base[0]) + "\n"
two = json.dumps(base[1]) + "\n"
tree("dir-dangling", {"a.log": one, "b.log": two})
os.symlink("nowhere.log", os.path.join(path("dir-dangling"), "c.log"))
rows.append(("dir-dangling", "dir-dangling", "", "1", "c.log: skipped", "2"))
tree("dir-loop", {"a.log": one, "b.log": two})
os.symlink("d.log", os.path.join(path("dir-loop"), "e.log"))
os.symlink("e.log", os.path.join(path("dir-loop"), "d.log"))
rows.append(("dir-loop", "dir-loop", "", "1", "skipped", "2"))
tree("dir-fifo", {"a.log": one, "b.log": two})
os.mkfifo(os.path.join(path("dir-fifo"), "pipe.log"))
rows.append(("dir-fifo", "dir-fifo", "", "1", "pipe.log: skipped: not a regular file", "2"))
os.mkfifo(path("fifo"))
rows.append(("fifo-by-name", "fifo", "", "2", "not a regular file", ""))
rows.append(("dev-zero-by-name", "/dev/zero", "", "2", "not a regular file", ""))
rows.append(("dev-zero-stdin", "-", "/dev/zero", "2", "-:1:1: NUL byte", ""))
rows.append(("dev-urandom-stdin", "-", "/dev/urandom", "2", "NUL byte", ""))
raw("stdin-trace", one + two, status=1, events=2, args="-", stdin="stdin-trace")
raw("stdin-plus-file", two, status=1, events=2, args="-|stdin-plus-file", stdin="plain-one")
raw("plain-one", one, status=0, events=1)
rows.append(("same-file-twice", "plain|plain", "", "1", "read already", "2"))
tree("dir-and-its-file", {"a.log": one, "b.log": two})
rows.append(("dir-and-its-file", "dir-and-its-file|dir-and-its-file/a.log", "", "1",
             "read already", "2"))
tree("dir-empty", {})
rows.append(("dir-empty", "dir-empty", "", "2", "holds no trace file", ""))
tree("dir-subdir-only", {})
os.makedirs(os.path.join(path("dir-subdir-only"), "sub"), exist_ok=True)
rows.append(("dir-subdir-only", "dir-subdir-only", "", "2", "holds no trace file", ""))
tree("dir-ctl-names", {"a\x1b[31m.log": one, "b\nspider: forged.log": two})
rows.append(("dir-ctl-names", "dir-ctl-names", "", "1", "", "2"))
raw("name\x1b]0;x\x07\rspider: forged.log", '{"type":"W"}\n', status=2, msg="missing field")
long_rel = "L" * 200 + "/" + "M" * 200 + "/" + "N" * 150
long_dir = path(long_rel)
os.makedirs(long_dir, exist_ok=True)
with open(os.path.join(long_dir, "bad.log"), "w") as fh:
    fh.write(one + '{"thread":"a@n","type":"XYZ"}\n')
rows.append(("long-path", long_rel + "/bad.log", "", "2",
             ':2:1: unknown event type "XYZ"', ""))
rows.append(("missing-path", "no-such-file.log", "", "2", "cannot open", ""))
os.symlink("dir-and-its-file", path("dir-symlink"))
rows.append(("dir-symlink", "dir-symlink", "", "1", "", "2"))

with open(path("manifest.tsv"), "w") as f:
    for r in rows:
        f.write("\t".join(x or "~" for x in r) + "\n")
print(len(rows))
