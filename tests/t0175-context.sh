# Why it races (issue 12): the context of each access — locks held,
# handler, message and its sender, the CREATE of its thread — in the
# text, JSON and SARIF reports, checked against the trace as
# tests/reference.py reads it (its own lock sections, handlers and
# message matching, not spider's); hostile names in contexts; and, once
# --witness finds witnesses, how the three reports print them.  A few
# seconds (the SARIF Multitool, about 1 s, not under the sanitizers).
. tests/lib.sh
CYCLON=$SHARED/cyclon/trace_10iter_10peer.log
MULTITOOL=.deps/node_modules/.bin/sarif-multitool

# ---- the issue's acceptance line ---------------------------------------
# the first data-race group of trace_10iter_10peer.log: the reader at line
# 219 holds lock 992366115, the writer holds none
if [ -e "$CYCLON" ]; then
    $SPIDER --no-timings --color=never --kind=data "$CYCLON" >"$TMP/cyclon.txt" 2>/dev/null
    python3 - "$TMP/cyclon.txt" <<'PY' && ok || not_ok "cyclon: the first data race's reader holds lock 992366115, the writer none"
import re, sys
text = open(sys.argv[1]).read()
block = text.split("\nData races:")[1].split("\n  2. ")[0]
lines = block.split("\n")
ev = [i for i, l in enumerate(lines) if re.match(r"       [RW] ", l)]
assert len(ev) == 2, block
reader = [i for i in ev if lines[i].split()[0] == "R"][0]
writer = [i for i in ev if lines[i].split()[0] == "W"][0]
assert lines[reader].endswith(":219"), lines[reader]
assert lines[reader + 1].strip() == "holds lock 992366115", lines[reader + 1]
assert lines[writer + 1].strip() == "holds no lock", lines[writer + 1]
print(lines[reader], lines[reader + 1], lines[writer], lines[writer + 1], sep="\n")
PY
    $SPIDER --no-timings -f sarif --kind=data "$CYCLON" >"$TMP/cyclon.sarif" 2>/dev/null
    python3 - "$TMP/cyclon.sarif" <<'PY' && ok || not_ok "cyclon SARIF: the context in relatedLocations"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
msgs = [l["message"]["text"] for l in r["relatedLocations"]]
assert any(m.startswith("R ") and "; holds lock 992366115" in m for m in msgs), msgs
assert any(m.startswith("W ") and "; holds no lock" in m for m in msgs), msgs
PY
else
    echo "note: $CYCLON absent: the acceptance line is not checked"
fi

# ---- JSON: every context, against the reference's reading of the trace --
# (the reports and the traces they came from; one python for all)
runs=""
report() { # report NAME ARGS... : $TMP/NAME.json, listed with its traces
    name=$1; shift
    $SPIDER --no-timings -f json "$@" >"$TMP/$name.json" 2>/dev/null
    rc=$?
    [ $rc -le 1 ] && ok || not_ok "$name: exit $rc"
    runs="$runs $name"
    for a in "$@"; do case "$a" in -*) ;; *) echo "$a" ;; esac; done >"$TMP/$name.paths"
}
for d in benchmarks/taxdc/*/; do report "$(basename "$d")" "${d%/}"; done
report hbase --atomicity benchmarks/atomicity/hbase-region
report mysql --multi-variable benchmarks/multivar/mysql-binlog
for f in "$CYCLON" "$SHARED/cyclon/Cyclon_5N_3R.txt" \
         "$SHARED/misc/exampleDistributed_5S_old.log" "$SHARED/misc/minhaTRACER_lock.log"; do
    [ -e "$f" ] && report "$(basename "$f" | tr . _)" --atomicity "$f"
done
python3 - "$TMP" $runs <<'PY' && ok || not_ok "JSON contexts agree with the trace"
import json, os, sys
sys.path.insert(0, "tests")
import reference as ref

EVENT = ["type", "thread", "node", "location", "file", "line", "index", "object"]
CONTEXT = ["locks", "handler", "message", "sender", "created"]

def check_event(tr, x, what):
    assert list(x)[:len(EVENT)] == EVENT, (what, list(x))
    e = tr.threads[x["thread"]][x["index"]]
    assert (e.type, e.file, e.line, e.loc, e.node) == \
        (x["type"], x["file"], x["line"], x["location"], x["node"]), (what, e, x)
    return e

def ref_of(e):
    return None if e is None else (e.thread, e.idx)

def ev_of(x):
    return None if x is None else (x["thread"], x["index"])

tmp, total = sys.argv[1], 0
seen = {"locks": 0, "handler": 0, "sender": 0, "created": 0}
for name in sys.argv[2:]:
    d = json.load(open(os.path.join(tmp, name + ".json")))
    paths = open(os.path.join(tmp, name + ".paths")).read().split()
    tr = ref.Trace(ref.load(paths))
    creates = {}
    for e in tr.events:
        if e.type == "CREATE":
            creates.setdefault(e.child, e)
    for k, groups in d.items():
        if not isinstance(groups, list) or k == "undecided":
            continue
        for g in groups:
            inst = g["instance"]
            evs = inst.get("accesses") or inst["sends"] + inst["receives"]
            for x in evs:
                what = (name, k, g["locations"], x["thread"], x["index"])
                e = check_event(tr, x, what)
                c = x["context"]
                assert list(c) == CONTEXT, (what, list(c))
                for sub in ("handler", "sender", "created"):
                    if c[sub] is not None:
                        check_event(tr, c[sub], what + (sub,))
                held = sorted((L.idx, v[1]) for th, v, L, U in tr.sections
                              if th == e.thread and L.idx < e.idx and
                              (U is None or e.idx < U.idx))
                assert c["locks"] == [v for _, v in held], (what, c["locks"], held)
                h = e.ctx
                assert ev_of(c["handler"]) == (ref_of(h.begin) if h else None), what
                rcv = h.rcv if h else None
                assert c["message"] == (rcv.msg if rcv else None), (what, c["message"])
                snd = tr.its_send.get(rcv) if rcv else None
                assert ev_of(c["sender"]) == ref_of(snd), (what, c["sender"], snd)
                assert ev_of(c["created"]) == ref_of(creates.get(e.thread)), what
                total += 1
                for s in seen:
                    seen[s] += bool(c[s])
print("contexts checked:", total, "with", seen)
assert total > 0
assert all(seen.values()), "some part of a context never shown: %s" % seen
PY

# ---- handlers, messages and CREATE by name ------------------------------
python3 - "$TMP/m3274.json" "$TMP/example1.json" <<'PY' && ok || not_ok "m3274 handler context, example1 CREATE"
import json, sys
d = json.load(open(sys.argv[1]))
w, r = d["handler_races"][0]["instance"]["accesses"]
c = w["context"]
assert (c["handler"]["type"], c["handler"]["file"], c["handler"]["line"]) == \
    ("HANDLERBEGIN", "benchmarks/taxdc/m3274/c-nm.log", 8), c
assert c["message"] == "m3274-contnr", c
assert (c["sender"]["type"], c["sender"]["thread"], c["sender"]["line"],
        c["sender"]["location"]) == \
    ("SND", "main@10.0.0.2", 2, "taxdc.m3274.ResourceManager.schedule.48"), c
assert r["context"]["message"] == "m3274-kill" and c["locks"] == [] and c["created"] is None
s = d["message_races"][0]["instance"]["sends"][0]["context"]
assert s == {"locks": [], "handler": None, "message": None, "sender": None,
             "created": None}, s
d = json.load(open(sys.argv[2]))
acc = d["data_races"][0]["instance"]["accesses"]
t1 = [a for a in acc if a["thread"] == "Thread-1@10.0.0.1"][0]["context"]["created"]
assert (t1["type"], t1["thread"], t1["object"], t1["line"], t1["index"]) == \
    ("CREATE", "main@10.0.0.1", "Thread-1@10.0.0.1", 2, 1), t1
PY
$SPIDER --no-timings --color=never benchmarks/taxdc/m3274 >"$TMP/m3274.txt"
grep -q '^            in the handler of message m3274-contnr (begins at line 8), sent by main@10.0.0.2 at benchmarks/taxdc/m3274/b-rm.log:2$' "$TMP/m3274.txt" &&
    ok || not_ok "m3274 text: the handler, its message and sender"
$SPIDER --no-timings --color=never benchmarks/taxdc/example1 >"$TMP/example1.txt"
grep -q '^            thread created by main@10.0.0.1 at line 2$' "$TMP/example1.txt" && ok || not_ok "example1 text: the CREATE"

# ---- locks: nested, re-entrant, never released ---------------------------
python3 - "$TMP/locks.log" <<'PY'
import json, sys
ev = lambda **k: json.dumps(k)
lines = [
    ev(thread="a@n", type="LOCK", variable="outer", loc="A.lockOuter"),     # 0
    ev(thread="a@n", type="LOCK", variable="inner", loc="A.lockInner"),     # 1
    ev(thread="a@n", type="LOCK", variable="outer", loc="A.again"),         # 2 re-entrant
    ev(thread="a@n", type="W", variable="x", loc="A.w"),                    # 3
    ev(thread="a@n", type="UNLOCK", variable="outer", loc="A.unAgain"),     # 4
    ev(thread="a@n", type="UNLOCK", variable="inner", loc="A.unInner"),     # 5
    ev(thread="a@n", type="W", variable="y", loc="A.y"),                    # 6
    ev(thread="a@n", type="UNLOCK", variable="outer", loc="A.unOuter"),     # 7
    ev(thread="b@n", type="W", variable="x", loc="B.w"),
    ev(thread="b@n", type="W", variable="y", loc="B.y"),
    ev(thread="b@n", type="LOCK", variable="inner", loc="B.lock"),
    ev(thread="b@n", type="R", variable="z", loc="B.z"),
    ev(thread="a@n", type="W", variable="z", loc="A.z"),
]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
$SPIDER --no-timings -f json "$TMP/locks.log" >"$TMP/locks.json" 2>/dev/null
python3 - "$TMP/locks.json" <<'PY' && ok || not_ok "locks held: outermost first, nested, re-entrant, never released"
import json, sys
d = json.load(open(sys.argv[1]))
held = {}
for g in d["data_races"]:
    for a in g["instance"]["accesses"]:
        held[a["location"]] = a["context"]["locks"]
want = {"A.w": ["outer", "inner"], "B.w": [], "A.y": ["outer"], "B.y": [],
        "B.z": ["inner"], "A.z": []}
assert held == want, held
PY

# ---- hostile names reach no output raw -----------------------------------
python3 - "$TMP/hostile.log" <<'PY'
import json, sys
lock = "Q\x1b[31m\x07\u0085"
lines = [
    json.dumps({"thread": "ma\x1b]0;x\x07in@n", "type": "CREATE", "child": "k\x0d@n"}),
    json.dumps({"thread": "s@m", "type": "SND", "message": "m\x1b[2J", "loc": "S"}),
    json.dumps({"thread": "k\x0d@n", "type": "RCV", "message": "m\x1b[2J"}),
    json.dumps({"thread": "k\x0d@n", "type": "HANDLERBEGIN"}),
    json.dumps({"thread": "k\x0d@n", "type": "LOCK", "variable": lock}),
    json.dumps({"thread": "k\x0d@n", "type": "W", "variable": "v", "loc": "K.w"}),
    json.dumps({"thread": "k\x0d@n", "type": "UNLOCK", "variable": lock}),
    json.dumps({"thread": "k\x0d@n", "type": "HANDLEREND"}),
    json.dumps({"thread": "ma\x1b]0;x\x07in@n", "type": "R", "variable": "v", "loc": "M.r"}),
]
data = "\n".join(lines).encode() + b"\n"
data = data.replace(b'"Q', b'"Q\xff\xfe')  # invalid UTF-8 in the lock name
open(sys.argv[1], "wb").write(data)
PY
for f in text json sarif; do
    $SPIDER --no-timings --color=never -f $f "$TMP/hostile.log" >"$TMP/hostile.$f" 2>"$TMP/hostile.$f.err"
    rc=$?
    [ $rc -eq 1 ] && ok || not_ok "hostile $f: exit $rc"
done
python3 - "$TMP" <<'PY' && ok || not_ok "hostile names in contexts: escaped in text, strict JSON and SARIF"
import json, re, sys
t = sys.argv[1]
text = open(t + "/hostile.text", "rb").read()
assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", text), "raw control"
text.decode("utf-8")  # no invalid UTF-8 either
s = text.decode()
assert "holds lock Q\\xFF\\xFE\\x1B[31m\\x07\\xC2\\x85" in s, s
assert "in the handler of message m\\x1B[2J (begins at line 4), sent by s@m at line 2" in s, s
assert "thread created by ma\\x1B]0;x\\x07in@n at line 1" in s, s
for f in ("json", "sarif"):
    raw = open(t + "/hostile." + f, "rb").read()
    raw.decode("utf-8")
    assert b"\x1b" not in raw and b"\x07" not in raw
    json.loads(raw, strict=True)
d = json.load(open(t + "/hostile.json"))
c = d["data_races"][0]["instance"]["accesses"]
c = [a["context"] for a in c if a["location"] == "K.w"][0]
assert c["locks"] == ["Q\ufffd\ufffd\x1b[31m\x07\x85"], c["locks"]
assert c["message"] == "m\x1b[2J" and c["created"]["thread"] == "ma\x1b]0;x\x07in@n"
PY

# ---- the witness, as the three reports print it --------------------------
# (tests/check_witness.py checks that witnesses are right; here, that the
# printers show what the JSON says) — every kind: data races (example1),
# message and handler races (m5358), atomicity, multi-variable
witness_runs=""
witness() { # witness NAME ARGS... : $TMP/w-NAME.{json,text,sarif}
    name=$1; shift
    for f in json text sarif; do
        $SPIDER --no-timings --color=never -f $f --witness "$@" >"$TMP/w-$name.$f" 2>/dev/null
        rc=$?
        [ $rc -eq 1 ] && ok || not_ok "--witness -f $f $*: exit $rc"
    done
    witness_runs="$witness_runs $name"
}
witness example1 benchmarks/taxdc/example1
witness m5358 benchmarks/taxdc/m5358
witness hbase --atomicity benchmarks/atomicity/hbase-region
witness mysql --multi-variable benchmarks/multivar/mysql-binlog
python3 - "$TMP" $witness_runs <<'PY' && ok || not_ok "witness: JSON keys, text timeline and SARIF codeFlows agree"
import json, re, sys
t = sys.argv[1]
shown = {}
for name in sys.argv[2:]:
    d = json.load(open("%s/w-%s.json" % (t, name)))
    s = json.load(open("%s/w-%s.sarif" % (t, name)))["runs"][0]["results"]
    text = open("%s/w-%s.text" % (t, name)).read()
    kinds = [k for k in d if isinstance(d[k], list) and k != "undecided"]
    groups = [g for k in kinds for g in d[k]]
    assert len(s) == len(groups)
    for k in kinds:
        shown[k] = shown.get(k, 0) + sum(1 for g in d[k] if g["instance"].get("witness"))
    wits = [g["instance"]["witness"] for g in groups if g["instance"].get("witness")]
    assert text.count("     witness, a run that shows it (>> the instance") == len(wits)
    for g, r in zip(groups, s):
        w = g["instance"].get("witness")
        if not w:
            assert "codeFlows" not in r
            continue
        for x in w:
            assert list(x) == ["type", "thread", "node", "location", "file", "line",
                               "index", "object", "step", "instance", "waits_for"], list(x)
            assert x["waits_for"] is None or 0 <= x["waits_for"] < len(w)
        inst = g["instance"]
        n_inst = len(inst.get("accesses") or inst["sends"] + inst["receives"])
        assert sorted(x["instance"] for x in w if x["instance"] is not None) == \
            list(range(n_inst)), [x["instance"] for x in w]
        # SARIF: a threadFlow per thread, executionOrder the steps
        flows = r["codeFlows"][0]["threadFlows"]
        got = sorted((f["id"], l["executionOrder"], l["importance"])
                     for f in flows for l in f["locations"])
        want = sorted((x["thread"], x["step"],
                       "essential" if x["instance"] is not None else "important") for x in w)
        assert got == want, (got, want)
        assert len({f["id"] for f in flows}) == len(flows)
        for f in flows:
            orders = [l["executionOrder"] for l in f["locations"]]
            assert orders == sorted(orders), orders
    # text: a row per step (marker, step, node, thread, type); the text
    # ranks atomicity groups by gap, so the rows are compared as a whole
    rows = re.findall(r"^       (>>|  ) +(\d+)  (\S+) +(\S+) +(\S+) ", text, re.M)
    want = [(">>" if x["instance"] is not None else "  ", str(x["step"]), x["node"],
             x["thread"], x["type"]) for w in wits for x in w]
    assert sorted(rows) == sorted(want), (name, rows, want)
    waits = sum(1 for w in wits for x in w if x["waits_for"] is not None)
    assert text.count("  waits for step ") == waits
print("witnesses shown:", shown)
assert all(shown.values()) and len(shown) == 5, shown
PY
if [ -z "${SANITIZED:-}" ] && [ -x "$MULTITOOL" ]; then
    # one log of all the runs: the validator takes about 0.5 s a file
    python3 -c '
import json, sys
d = json.load(open(sys.argv[2]))
for f in sys.argv[3:]:
    d["runs"] += json.load(open(f))["runs"]
json.dump(d, open(sys.argv[1], "w"), indent=1)' "$TMP/witnesses.sarif" "$TMP"/w-*.sarif
    rm -f "$TMP/w-validation.sarif"
    $MULTITOOL validate "$TMP/witnesses.sarif" -o "$TMP/w-validation.sarif" >"$TMP/w-validate.log" 2>&1
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
errors = [r for run in d["runs"] for r in run.get("results", []) if r.get("level", "warning") == "error"]
for r in errors: print(r["ruleId"], r["message"])
print("SARIF Multitool on the witnesses: %d errors" % len(errors))
assert not errors' "$TMP/w-validation.sarif" && ok || not_ok "SARIF Multitool: errors in the witness SARIF"
fi
finish
