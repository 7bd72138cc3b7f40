# Learning from passing runs (--learn, --invariants; AVIO): on the bundled
# example (benchmarks/learning/apache-log: 20 passing runs and a failing
# one) the lost update violates an invariant and the flag's polls are
# seen in passing runs; 20 runs in one call or in two give the same
# file, and 10 runs the same marks; --only-invariant-violations; every
# printer shows the marks; bad files are exit status 2 naming the line;
# and spider's file equals tests/reference_invariants.py's (learning as
# docs/model.md defines it) byte for byte on random, lock-heavy, bundled,
# fixture and shared traces.
. tests/lib.sh
d=benchmarks/learning/apache-log
runs=$(ls $d/passing/*.log)
first10=$(ls $d/passing/*.log | head -n 10)
last10=$(ls $d/passing/*.log | tail -n 10)

# ---- the example ---------------------------------------------------------
# the committed runs are what the generator writes
python3 benchmarks/learning/generate.py "$TMP/gen"
if diff -r "$TMP/gen" $d >/dev/null; then ok
else not_ok "benchmarks/learning/generate.py does not write $d"; fi

expect_status 0 $SPIDER --learn="$TMP/all.inv" $runs
grep -q "^learnt 20 passing runs into $TMP/all.inv (20 in all)" "$TMP/out" \
    && ok || not_ok "--learn's summary line: $(cat "$TMP/out")"
expect_status 0 $SPIDER --learn="$TMP/two.inv" $first10
expect_status 0 $SPIDER --learn="$TMP/two.inv" $last10
grep -q "(20 in all)" "$TMP/out" && ok || not_ok "a second call does not add to the file"
cmp -s "$TMP/all.inv" "$TMP/two.inv" && ok \
    || not_ok "20 runs in one call and in two calls give different files"
# batches learnt apart merge into the file of all of them
expect_status 0 $SPIDER --learn="$TMP/first.inv" $first10
expect_status 0 $SPIDER --learn="$TMP/last.inv" $last10
expect_status 0 $SPIDER --learn="$TMP/merged.inv" "$TMP/first.inv" "$TMP/last.inv"
cmp -s "$TMP/all.inv" "$TMP/merged.inv" && ok \
    || not_ok "two files of 10 runs merge otherwise than 20 runs learnt at once"
# a directory is one run: the ten files of a directory are ten runs only
# when given one by one
mkdir -p "$TMP/onerun" && cp $d/passing/run-01.log "$TMP/onerun/"
expect_status 0 $SPIDER --learn="$TMP/dir.inv" "$TMP/onerun"
grep -q '^runs 1$' "$TMP/dir.inv" && ok || not_ok "a directory is not one run"
expect_status 0 $SPIDER --learn="$TMP/ten.inv" $first10

# the groups of the failing run as "kind|locations|invariant|executed|interleaved"
marks() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("atomicity_violations", "multi_variable_violations"):
    for g in d.get(k, []):
        p = g.get("passing_runs", {})
        print(k, "/".join(g["locations"]), p.get("invariant"), p.get("executed"),
              p.get("interleaved"), sep="|")
' "$1"
}
for n in all ten; do
    $SPIDER -f json --no-timings --atomicity --multi-variable \
        --invariants="$TMP/$n.inv" $d/failing.log >"$TMP/$n.json" 2>"$TMP/err"
    [ $? -eq 1 ] && ok || not_ok "--invariants=$n.inv: exit status not 1"
    marks "$TMP/$n.json" >"$TMP/$n.marks"
done
lost='atomicity_violations|httpd.Log.append.210/httpd.Log.append.214/httpd.Log.append.214|holds|20|0'
grep -qxF "$lost" "$TMP/all.marks" && ok \
    || not_ok "the lost update does not violate an invariant of 20 runs"
grep -qxF 'atomicity_violations|httpd.Worker.loop.40/httpd.Server.stop.80/httpd.Worker.loop.40|seen|20|20' \
    "$TMP/all.marks" && ok || not_ok "the flag's polls are not seen in passing runs"
grep -q '^multi_variable_violations|httpd.Log.append.210/httpd.Log.append.212/.*|holds|20|0$' \
    "$TMP/all.marks" && ok || not_ok "the multi-variable lost update does not violate an invariant"
grep -q '|None|' "$TMP/all.marks" && not_ok "a group without passing_runs" || ok
cut -d'|' -f1-3 "$TMP/all.marks" >"$TMP/all.states"
cut -d'|' -f1-3 "$TMP/ten.marks" >"$TMP/ten.states"
cmp -s "$TMP/all.states" "$TMP/ten.states" && ok \
    || not_ok "10 runs mark the groups otherwise than 20"
# the rule: a higher threshold makes the polls an invariant; more runs
# than were learnt make nothing one
$SPIDER -f json --atomicity --invariants="$TMP/all.inv" --invariant-threshold=20 \
    $d/failing.log >"$TMP/t20.json" 2>/dev/null
marks "$TMP/t20.json" | grep -q '|seen|' && not_ok "--invariant-threshold=20 still marks a group seen" || ok
$SPIDER -f json --atomicity --invariants="$TMP/all.inv" --invariant-min-runs=21 \
    $d/failing.log >"$TMP/m21.json" 2>/dev/null
marks "$TMP/m21.json" | grep -q '|holds|' && not_ok "--invariant-min-runs=21 keeps an invariant of 20 runs" || ok
marks "$TMP/m21.json" | grep -qF 'append.214|unlearnt|20|0' && ok || not_ok "--invariant-min-runs=21: not 'unlearnt'"

# --only-invariant-violations drops the others, counted in the selection
$SPIDER -f json --atomicity --multi-variable --invariants="$TMP/all.inv" \
    --only-invariant-violations $d/failing.log >"$TMP/only.json" 2>/dev/null
[ $? -eq 1 ] && ok || not_ok "--only-invariant-violations: exit status not 1"
python3 - "$TMP/only.json" "$TMP/all.json" <<'PY' && ok || not_ok "--only-invariant-violations dropped the wrong groups"
import json, sys
only, full = (json.load(open(p)) for p in sys.argv[1:])
keys = ("atomicity_violations", "multi_variable_violations")
kept = [g for k in keys for g in only[k]]
want = [g for k in keys for g in full[k] if g["passing_runs"]["invariant"] == "holds"]
assert [g["locations"] for g in kept] == [g["locations"] for g in want] and kept
inv = only["selection"]["invariants"]
dropped = sum(inv["not_shown"].values())
assert dropped == sum(len(full[k]) for k in keys) - len(want), inv
assert inv["runs"] == 20 and inv["only_violations"] is True and inv["holds"] == len(want)
assert full["data_races"] == only["data_races"]   # other kinds untouched
PY
# every printer says it
$SPIDER --no-timings --color=never --atomicity --invariants="$TMP/all.inv" \
    $d/failing.log >"$TMP/text" 2>/dev/null
grep -q "violating invariants, 3 seen in passing runs, 0 not learnt" "$TMP/text" && ok \
    || not_ok "the totals line lacks the invariants: $(head -1 "$TMP/text")"
grep -q "     seen in passing runs: interleaved in 20 of the 20 that executed it" "$TMP/text" \
    && ok || not_ok "text: no 'seen in passing runs' line"
grep -q "violates an invariant: executed in 20 passing runs, interleaved in 0" "$TMP/text" \
    && ok || not_ok "text: no 'violates an invariant' line"
grep -q "^Invariants ($TMP/all.inv): learnt from 20 passing runs" "$TMP/text" \
    && ok || not_ok "text: no Invariants section"
$SPIDER -f sarif --atomicity --invariants="$TMP/all.inv" $d/failing.log \
    >"$TMP/sarif" 2>/dev/null
python3 - "$TMP/sarif" <<'PY' && ok || not_ok "SARIF: results lack passingRuns"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
atom = [r for r in res if r["ruleId"] == "atomicity-violations"]
assert atom and all(r["properties"]["passingRuns"]["invariant"] in ("holds", "seen") for r in atom)
assert any("seen in passing runs" in r["message"]["text"] for r in atom)
PY
$SPIDER --atomicity --invariants="$TMP/all.inv" --html="$TMP/page.html" \
    $d/failing.log >/dev/null 2>&1
[ "$(grep -c '<p class="note">Passing runs: seen in passing runs' "$TMP/page.html")" -eq 3 ] \
    && ok || not_ok "HTML: not three groups seen in passing runs"
grep -q '<p class="note inv">Passing runs: violates an invariant' "$TMP/page.html" \
    && ok || not_ok "HTML: no group violating an invariant"
# without --invariants nothing of it shows
$SPIDER -f json --atomicity $d/failing.log >"$TMP/plain.json" 2>/dev/null
grep -q passing_runs "$TMP/plain.json" && not_ok "passing_runs without --invariants" || ok

# ---- bad usage and bad files ---------------------------------------------
bad_file() { # bad_file NAME LINE-NO MESSAGE-PART TEXT
    printf "$4" >"$TMP/$1"
    expect_status 2 $SPIDER --atomicity --invariants="$TMP/$1" $d/failing.log
    grep -F "$TMP/$1:$2: " "$TMP/err" | grep -qF "$3" && ok || not_ok "$1: $(cat "$TMP/err")"
    # and learning into it leaves it as it was
    cp "$TMP/$1" "$TMP/$1.before"
    expect_status 2 $SPIDER --learn="$TMP/$1" $d/passing/run-01.log
    cmp -s "$TMP/$1" "$TMP/$1.before" && ok || not_ok "--learn changed the bad $1"
}
hdr='spider-invariants 1\nruns 2\n'
bad_file kind.inv 4 "the kind is neither" "$hdr"'atomicity\t1\t0\ta\tb\nrace\t1\t0\ta\tb\n'
bad_file fields.inv 3 "expected KIND<tab>EXECUTED" "$hdr"'atomicity 1 0 a b\n'
bad_file counts.inv 3 "interleaved <= executed <= runs" "$hdr"'atomicity\t3\t0\ta\tb\n'
bad_file over.inv 3 "interleaved <= executed <= runs" "$hdr"'atomicity\t1\t2\ta\tb\n'
bad_file twice.inv 5 "given twice" "$hdr"'atomicity\t1\t0\ta\tb\n# ok\natomicity\t2\t0\ta\tb\n'
bad_file escape.inv 3 "a backslash" "$hdr"'atomicity\t1\t0\ta\\x\tb\n'
bad_file version.inv 2 "another version" '# comment\nspider-invariants 2\nruns 1\n'
bad_file header.inv 1 "not an invariants file" 'runs 1\n'
bad_file runs.inv 2 "expected 'runs N'" 'spider-invariants 1\natomicity\t1\t0\ta\tb\n'
printf '# nothing\n' >"$TMP/empty.inv"
expect_status 2 $SPIDER --atomicity --invariants="$TMP/empty.inv" $d/failing.log
grep -qF "empty.inv: not an invariants file" "$TMP/err" && ok || not_ok "an empty file: $(cat "$TMP/err")"
expect_status 2 $SPIDER --atomicity --invariants="$TMP/missing.inv" $d/failing.log
grep -qF "missing.inv: cannot read the invariants" "$TMP/err" && ok || not_ok "a missing file not named"
# an escaped location reads back as itself
printf "$hdr"'atomicity\t1\t0\ta\\\\b\\tc\td\n' >"$TMP/esc.inv"
expect_status 0 $SPIDER --learn="$TMP/esc.inv" $d/passing/run-01.log
grep -qF "$(printf 'atomicity\t1\t0\ta\\\\b\\tc\td')" "$TMP/esc.inv" && ok || not_ok "an escaped location is not kept"
expect_status 2 $SPIDER --learn="$TMP/x.inv" --invariants="$TMP/all.inv" $d/failing.log
expect_status 2 $SPIDER --atomicity --invariant-threshold=x $d/failing.log
expect_status 2 $SPIDER --atomicity --invariant-min-runs=0 $d/failing.log
expect_status 2 $SPIDER --learn="$TMP/bad-run.inv" tests/bad/unknown-type-name.log
[ -e "$TMP/bad-run.inv" ] && not_ok "--learn wrote a file from a bad run" || ok
expect_status 1 $SPIDER --invariants="$TMP/all.inv" $d/passing/run-01.log
grep -q "does nothing without --atomicity" "$TMP/err" && ok || not_ok "no warning for --invariants alone"
$SPIDER --help | grep -q -- "--learn=FILE" && ok || not_ok "--help lacks --learn"

# ---- against the reference -----------------------------------------------
# each trace alone, and all of them in one file
n=$(sized 40 10)
mkdir -p "$TMP/rand"
set --
for s in $(seq 1 "$n"); do
    nodes=$(( s % 3 + 1 ))
    bin/gen-trace --seed "$s" --nodes $nodes --steps $(( 20 + s % 40 )) \
        -o "$TMP/rand/g$s" 2>/dev/null
    set -- "$@" "$TMP/rand/g$s"
done
for s in $(seq 1 $(sized 10 3)); do
    bin/gen-trace --seed "$s" --shape=locks --events $(( 200 + 50 * s )) \
        --nodes $(( s % 2 + 1 )) --merged "$TMP/rand/l$s.log" 2>/dev/null
    set -- "$@" "$TMP/rand/l$s.log"
done
set -- "$@" $d/failing.log benchmarks/taxdc/* benchmarks/atomicity/hbase-region \
    benchmarks/multivar/mysql-binlog tests/fixtures/*.log
for f in micro-benchmarks/h5780.log cyclon/trace_10iter_10peer.log \
         misc/minhaTRACER_lock.log zookeeper/falcon_tracer.zk1.log; do
    [ -e "$SHARED/$f" ] && set -- "$@" "$SHARED/$f"
done
failed=0
for run in "$@"; do
    $SPIDER -q --learn="$TMP/one.inv" "$run" >/dev/null 2>&1 &&
    python3 tests/reference_invariants.py "$TMP/one.ref" "$run" &&
    cmp -s "$TMP/one.inv" "$TMP/one.ref" || { failed=$((failed + 1)); echo "differs: $run"; }
    rm -f "$TMP/one.inv"
done
[ $failed -eq 0 ] && ok || not_ok "$failed of $# runs learnt otherwise than the reference"
$SPIDER -q --learn="$TMP/many.inv" "$@" >/dev/null 2>&1
python3 tests/reference_invariants.py "$TMP/many.ref" "$@"
cmp -s "$TMP/many.inv" "$TMP/many.ref" && ok || not_ok "$# runs together learnt otherwise than the reference"
# with given pairs and other mining thresholds
printf '* x0 y1\n* x1 x0\n' >"$TMP/given.pairs"
$SPIDER -q --learn="$TMP/given.inv" --correlated="$TMP/given.pairs" --max-distance=2 \
    --min-support=2 "$@" >/dev/null 2>&1
python3 tests/reference_invariants.py --correlated="$TMP/given.pairs" --max-distance=2 \
    --min-support=2 "$TMP/given.ref" "$@"
cmp -s "$TMP/given.inv" "$TMP/given.ref" && ok || not_ok "--correlated runs learnt otherwise than the reference"
echo "learning compared with the reference on $# runs"

[ $failures -eq 0 ] || { echo "$failures of $checks checks failed"; exit 1; }
echo "$checks checks passed"
