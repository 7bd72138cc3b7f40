# --format=shiviz (issue 12; README "ShiViz"): the witnesses as a ShiViz
# log.  The ShiViz web app is not available offline, so the log is read
# here as ShiViz reads it: its NamedRegExp (js/regexp.js) rewrites the
# parser and delimiter regexes given in README — the file's first two
# lines — into a JavaScript RegExp, run here with Python's re (the log
# holds no character where the two differ: CR, U+2028, U+2029, non-ASCII
# hosts), as typed and as ShiViz's upload wraps them (^...$); LogParser
# splits the executions and ModelGraph checks the clocks: every line is
# an event; each clock is JSON and names its host, whose own entry counts
# 1, 2, ...; every entry names an earlier event of the execution, and the
# clock is exactly the merge of those events' clocks (so vc(a) < vc(b)
# implies a comes before b).  Against the JSON report (--witness): one
# execution per group with a witness, labelled by kind and number; each
# event its witness event (host = thread, step, type, index, the racing
# ones marked); the clocks are the witness's (program order and merges
# at waits_for); an event waited on comes before its waiter in
# vector-clock order; the two accesses of a data race and any two events
# of one step are concurrent.  On m3274 (message and handler races),
# h5780 (data races), hbase-region (--atomicity), mysql-binlog
# (--multi-variable), trace_10iter_10peer.log and a trace with hostile
# thread names and locations; the bundled ones with --solver=z3 too.
# Takes about 2 s.
. tests/lib.sh
cat >"$TMP/check.py" <<'PY'
import json, re, sys

readme, log_path, json_path = sys.argv[1:4]
fails = []
def bad(msg):
    if len(fails) < 10:
        print("not ok:", log_path + ":", msg)
    fails.append(msg)

# the two regexes README gives, in order: parser, delimiter
text = open(readme, encoding="utf-8").read()
section = text.split("\n## ShiViz\n", 1)[1].split("\n## ", 1)[0]
documented = [l.strip() for l in section.splitlines()
              if l.startswith("    ") and "(?<" in l]
raw = open(log_path, "rb").read().decode("utf-8")  # strict
lines = raw.split("\n")
if len(documented) != 2 or lines[:2] != documented:
    bad("first lines %r are not README's regexes %r" % (lines[:2], documented))
for c in raw:
    if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029":
        bad("a control or line-separator character %r in the log" % c)
        break

def named_regexp(src):
    """ShiViz's NamedRegExp (js/regexp.js): 'no' without names, 'reg' with
    the named groups as plain ones; Python's (?P<...>) for any left."""
    no = re.sub(r"\(\?<\w+?>(.+?)\)", lambda m: "(?:" + m.group(1) + ")", src)
    reg = re.sub(r"\((?!\?(=|!|<|:))", "(?:", src)
    names = []
    while True:
        m = re.search(r"\(\?<(\w+?)>.+\)", reg)
        if not m:
            break
        names.append(m.group(1))
        reg = re.sub(r"\(\?<\w+?>(.+)\)", lambda m: "(" + m.group(1) + ")", reg, count=1)
    py = lambda s: re.compile(s.replace("(?<", "(?P<"), re.M)
    return py(no), py(reg), names

def parse(parser, delimiter):
    """LogParser and ExecutionParser (js/model/parser.js): [(label, events)]
    with events [(host, clock text, event text)]."""
    log = "\n".join(lines[2:]).strip()
    d_no, d_reg, d_names = named_regexp(delimiter)
    p_no, p_reg, p_names = named_regexp(parser)
    if d_names != ["trace"] or sorted(p_names) != ["clock", "event", "host"]:
        bad("named groups %r %r" % (d_names, p_names))
        return []
    pieces = d_no.split(log)
    labels = [""] + [m.group(1) for m in d_reg.finditer(log)]
    if pieces[0].strip():
        bad("text before the first delimiter: %r" % pieces[0][:80])
    out = []
    for label, piece in zip(labels[1:], pieces[1:]):
        events, at = [], 0
        for m in p_reg.finditer(piece):
            if piece[at:m.start()].strip():
                bad("%s: a line no event matches: %r" % (label, piece[at:m.start()][:80]))
            at = m.end()
            f = dict(zip(p_names, m.groups()))
            events.append((f["host"], f["clock"], f["event"]))
        if piece[at:].strip():
            bad("%s: lines no event matches at the end: %r" % (label, piece[at:][:80]))
        if not events:
            bad("execution %r has no event" % label)
        out.append((label, events))
    return out

executions = parse(documented[0], documented[1]) if len(documented) == 2 else []
if len(documented) == 2 and parse("^" + documented[0] + "$", "^" + documented[1] + "$") != executions:
    bad("the regexes wrapped in ^...$ (ShiViz's upload) read the log otherwise")
labels = [label for label, _ in executions]
if len(set(labels)) != len(labels):
    bad("two executions share a label")
for label in labels:  # ShiViz puts labels into HTML and jQuery selectors
    if not re.fullmatch(r"[ -~]+", label) or set(label) & set("<>&\"'`\\"):
        bad("label %r is not printable ASCII without < > & \" ' ` \\" % label)

def leq(a, b):
    return all(v <= b.get(h, 0) for h, v in a.items())

def check_clocks(label, events):
    """ModelGraph (js/model/modelGraph.js) and more: the clocks of one
    execution, parsed; None when they are not ShiViz's."""
    clocks, own_seen, at = [], {}, {}
    for i, (host, ctext, _) in enumerate(events):
        try:
            c = json.loads(ctext)
        except ValueError as e:
            bad("%s: clock %r is not JSON: %s" % (label, ctext, e))
            return None
        if not isinstance(c, dict) or host not in c or \
                not all(type(v) is int and v >= 1 for v in c.values()):
            bad("%s: clock %r of %s" % (label, ctext, host))
            return None
        if not re.fullmatch(r"[!-~]+", host) or set(host) & set("<>&\"'`\\"):
            bad("%s: host %r is not printable ASCII without < > & \" ' ` \\" % (label, host))
        own_seen[host] = own_seen.get(host, 0) + 1
        if c[host] != own_seen[host]:
            bad("%s: %s's own entry is %d at its event %d" % (label, host, c[host], own_seen[host]))
            return None
        at[(host, c[host])] = i
        want = dict(clocks[at[(host, c[host] - 1)]]) if c[host] > 1 else {}
        for h, v in c.items():
            if h == host:
                continue
            if (h, v) not in at:  # unknown host, or an event not yet seen
                bad("%s: event %d's clock names %s:%d, not an earlier event" % (label, i + 1, h, v))
                return None
            for k, w in clocks[at[(h, v)]].items():
                want[k] = max(want.get(k, 0), w)
        want[host] = c[host]
        if want != c:
            bad("%s: event %d's clock %r is not the merge %r" % (label, i + 1, c, want))
        clocks.append(c)
    for i in range(len(clocks)):  # vc(a) < vc(b) implies a before b
        for j in range(i):
            if leq(clocks[i], clocks[j]) and clocks[i] != clocks[j]:
                bad("%s: event %d happens before the earlier event %d" % (label, i + 1, j + 1))
    return clocks

all_clocks = [check_clocks(label, events) for label, events in executions]

UNSAFE = set("%<>&\"'`\\")  # what ShiViz's HTML and selectors would read
def host_of(thread):
    return "".join(chr(b) if 0x20 < b < 0x7F and chr(b) not in UNSAFE else "%%%02X" % b
                   for b in thread.encode("utf-8"))

nouns = {"data_races": "data race", "message_races": "message race",
         "handler_races": "handler race",
         "atomicity_violations": "atomicity violation",
         "multi_variable_violations": "multi-variable atomicity violation"}
report = json.load(open(json_path))
want = [(key, n, g) for key in nouns for n, g in enumerate(report.get(key, []), 1)
        if g["instance"].get("witness")]
groups = sum(len(report.get(key, [])) for key in nouns)
if len(executions) != len(want):
    bad("%d executions, %d groups with a witness" % (len(executions), len(want)))
pairs = 0
for (label, events), clocks, (key, n, g) in zip(executions, all_clocks, want):
    w = g["instance"]["witness"]
    plain = [l for l in g["locations"] if re.fullmatch(r"[ -~]*", l)]
    if not label.startswith("%s %d: " % (nouns[key], n)) or \
            not all(l in label for l in plain):
        bad("execution %r is not %s %d %r" % (label, nouns[key], n, g["locations"]))
        continue
    if len(events) != len(w):
        bad("%s: %d events, the witness has %d" % (label, len(events), len(w)))
        continue
    for i, ((host, _, text), e) in enumerate(zip(events, w)):
        if host != host_of(e["thread"]) or \
                not text.startswith("%d. %s" % (e["step"], e["type"])) or \
                ", index %d)" % e["index"] not in text:
            bad("%s: event %d %r on %s is not witness event %r" % (label, i + 1, text, host, e))
        marked = re.search(r"  \[(RACE|VIOLATION) \S+( \d)?\]$", text) is not None
        if marked != (e["instance"] is not None):
            bad("%s: event %d %r: racing mark %s, instance %r" % (label, i + 1, text, marked, e["instance"]))
    if clocks is None:
        continue
    vc, last = [], {}  # the clocks the witness gives: program order, waits
    for i, e in enumerate(w):
        h = host_of(e["thread"])
        c = dict(vc[last[h]]) if h in last else {}
        if e["waits_for"] is not None and not 0 <= e["waits_for"] < i:
            bad("%s: witness event %d waits for %d, not an earlier one" % (label, i + 1, e["waits_for"] + 1))
            break
        for k, v in (vc[e["waits_for"]].items() if e["waits_for"] is not None else ()):
            c[k] = max(c.get(k, 0), v)
        c[h] = c.get(h, 0) + 1 if h not in last else vc[last[h]][h] + 1
        last[h] = i
        vc.append(c)
    if vc != clocks:
        bad("%s: the clocks are not those of the witness's order and waits" % label)
    for i, e in enumerate(w):
        p = e["waits_for"]
        if p is not None and not (leq(clocks[p], clocks[i]) and clocks[p] != clocks[i]):
            bad("%s: event %d waits for %d, not after it in clock order" % (label, i + 1, p + 1))
        for j in range(i):
            if w[j]["step"] == e["step"] and events[i][0] != events[j][0]:
                pairs += 1
                if leq(clocks[j], clocks[i]) or leq(clocks[i], clocks[j]):
                    bad("%s: events %d and %d, both step %d, are ordered" % (label, j + 1, i + 1, e["step"]))
    if key == "data_races":
        a = [i for i, e in enumerate(w) if e["instance"] is not None]
        if len(a) != 2 or leq(clocks[a[0]], clocks[a[1]]) or leq(clocks[a[1]], clocks[a[0]]):
            bad("%s: the two accesses are not concurrent" % label)
print("%s: %d executions of %d groups, %d events, %d pairs at one step"
      % (log_path, len(executions), groups, sum(len(e) for _, e in executions), pairs))
if not executions:
    bad("no execution: the report has no witness")
sys.exit(1 if fails else 0)
PY

# shiviz NAME WANT-STATUS ARGS...: the ShiViz log and the JSON report of
# one run, read and compared
shiviz() {
    name=$1 want=$2; shift 2
    $SPIDER -f shiviz "$@" >"$TMP/$name.shiviz" 2>"$TMP/$name.err"
    rc=$?
    [ $rc -eq "$want" ] && ok || not_ok "$name: -f shiviz exit $rc, want $want"
    grep -q 'no witness' "$TMP/$name.err" && not_ok "$name: $(cat "$TMP/$name.err")" || ok
    $SPIDER -f json --witness --no-timings "$@" >"$TMP/$name.json" 2>/dev/null
    rc=$?
    [ $rc -eq "$want" ] && ok || not_ok "$name: -f json --witness exit $rc, want $want"
    python3 "$TMP/check.py" README.md "$TMP/$name.shiviz" "$TMP/$name.json" \
        && ok || not_ok "$name: the ShiViz log (above)"
}
shiviz m3274 1 benchmarks/taxdc/m3274
shiviz h5780 1 benchmarks/taxdc/h5780
shiviz hbase 1 --atomicity benchmarks/atomicity/hbase-region
shiviz mysql 1 --multi-variable benchmarks/multivar/mysql-binlog
if [ -f "$SHARED/cyclon/trace_10iter_10peer.log" ]; then
    shiviz cyclon 1 "$SHARED/cyclon/trace_10iter_10peer.log"
else
    not_ok "$SHARED/cyclon/trace_10iter_10peer.log is missing"
fi
# witnesses from Z3's models (--solver=z3) too
shiviz m3274-z3 1 --solver=z3 benchmarks/taxdc/m3274
shiviz h5780-z3 1 --solver=z3 benchmarks/taxdc/h5780
shiviz hbase-z3 1 --solver=z3 --atomicity benchmarks/atomicity/hbase-region
grep -q '^=== message race 1: .* ===$' "$TMP/m3274.shiviz" && grep -q '^=== handler race 1: ' "$TMP/m3274.shiviz" \
    && ok || not_ok "m3274: no message and handler race executions"

# hostile names: spaces, quotes, '%', ESC, U+2028, <script> in threads,
# invalid UTF-8 and </pre> in locations; two threads never share a host
python3 - "$TMP/hostile.log" <<'PY'
import json, sys
a, b = 'a b"c\\d%\u2028<script>@n 1', 'a%20b\x1b[31m\u0085@n 1'
ev = lambda t, ty, **k: json.dumps(dict(thread=t, type=ty, **k)).encode()
with open(sys.argv[1], "wb") as f:
    f.write(b"\n".join([
        ev("main@n 1", "CREATE", child=a), ev("main@n 1", "CREATE", child=b),
        ev(a, "START"), ev(a, "W", variable="x\u2029", loc="L1\u2028</pre>'"),
        ev(b, "START"),
        ev(b, "W", variable="x\u2029", loc="L2").replace(b'"L2"', b'"L2\xff\xfe"')]) + b"\n")
PY
shiviz hostile 1 "$TMP/hostile.log"
f=$TMP/hostile.shiviz
grep -q '^=== data race 1: L1%E2%80%A8%3C/pre%3E%27 vs L2%FF%FE, variable x%E2%80%A9 on node n 1 ===$' "$f" \
    && grep -q '^[0-9]*\. W x\\u2029 at L1\\u2028</pre>'"'"' (' "$f" \
    && grep -q '^a%20b%22c%5Cd%25%E2%80%A8%3Cscript%3E@n%201 {' "$f" \
    && grep -q '^a%2520b%1B\[31m%C2%85@n%201 {' "$f" \
    && ok || not_ok "hostile names are not escaped as docs/report.md says"

# no race: the two regex lines and nothing else, exit 0
printf '{"thread":"a@n","type":"W","variable":"x"}\n' >"$TMP/none.log"
$SPIDER -f shiviz "$TMP/none.log" >"$TMP/none.shiviz" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/none.shiviz")" -eq 2 ] && ok \
    || not_ok "no race: exit $rc, $(wc -l <"$TMP/none.shiviz") lines"
finish
