# Lock-heavy and imperfect traces, as real Java servers write them
# (bin/gen-trace --shape=locks: many threads on few locks, nested and
# re-entrant sections, a section an exception left without its UNLOCK in
# the middle of its lock's order, sections open at the end, wait/notify,
# hand-offs between threads, messages between nodes).  Exactness: on LOCK_SEEDS (80; 20 under QUICK, 10 sanitized) such traces,
# in both handler models, the default analysis (shortcuts, runs found by
# scheduling, then Z3) has the race groups of --solver=z3 --no-prune,
# and --all-instances its whole report (tests/differential.py exact);
# then --atomicity on 50 of them (at most), and lazy lock clauses
# (--eager-locks=0) on 30; two traces of one lock past --eager-locks's
# default, lazy and eager.  And the cut section of
# tests/fixtures/lock-cut-mid-order.log no longer sends every SAT answer
# to Z3; a 1,000-event trace of 8 threads on 8 locks leaves under 1% of
# its candidates to Z3 and none undecided.
. tests/lib.sh
SEEDS=${LOCK_SEEDS:-$(sized 80 20)}
[ -n "${SANITIZED:-}" ] && SEEDS=10   # the sanitized build is slower, and the
                                      # release pass has checked the answers
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --shape=locks --seed $((5000 + seed)) \
        --events $((30 + seed % 5 * 15)) --nodes $((1 + seed % 3)) \
        --threads $((2 + seed % 7)) --locks $((1 + seed % 5)) --vars 3 \
        --cut-sections=$((seed % 4 * 25)) --handoffs=$((seed % 3 * 50)) -o "$TMP/l$seed" \
        2>"$TMP/l$seed.coverage" || not_ok "gen-trace --shape=locks seed $seed"
    seed=$((seed + 1))
done
# shellcheck disable=SC2046 # the paths have no spaces
python3 tests/differential.py exact tests/fixtures/lock-cut-mid-order.log \
    tests/fixtures/implied-wait-pigeonhole.log tests/fixtures/implied-wait-feasible.log \
    tests/fixtures/implied-lock-order.log tests/fixtures/waits-greedy-choice.log \
    $(seq -f "$TMP/l%g" 1 "$SEEDS") && ok || not_ok "differential checks (above)"
echo "== with --atomicity"
# shellcheck disable=SC2046
python3 tests/differential.py exact --extra=--atomicity \
    $(seq -f "$TMP/l%g" 1 $((SEEDS < 50 ? SEEDS : 50))) \
    && ok || not_ok "differential checks with --atomicity (above)"

# Z3 given each lock's clauses only when a model breaks them (lazy, the
# default past 1,024 clauses per lock; benchmarks/RESULTS.md): the same
# answers.  These traces' locks have fewer: all lazy here
echo "== with --eager-locks=0"
# shellcheck disable=SC2046
python3 tests/differential.py exact --extra=--eager-locks=0 \
    $(seq -f "$TMP/l%g" 1 $((SEEDS < 30 ? SEEDS : 30))) \
    && ok || not_ok "differential checks with --eager-locks=0 (above)"
# Locks past the default: threads whose sections of one lock follow one
# another (benchmarks/lock_dense.py: 1,200 and 1,600 clauses), a few of
# them writing z, which each thread reads outside them too; lazy by
# default (against the shortcuts in every mode), and Z3 on every
# candidate with every clause at once (--eager-locks=65536): the same
# report
python3 benchmarks/lock_dense.py 3 20 >"$TMP/dense3.log"
python3 benchmarks/lock_dense.py 2 40 >"$TMP/dense2.log"
echo "== locks past the default"
python3 tests/differential.py exact "$TMP/dense3.log" "$TMP/dense2.log" \
    && ok || not_ok "differential checks on locks past the default (above)"
# (the clauses at once are a second of Z3 each: release pass only)
dense="dense3 dense2"
[ -n "${SANITIZED:-}" ] && dense=""
for t in $dense; do
    $SPIDER -f json --no-timings --solver=z3 "$TMP/$t.log" >"$TMP/$t-lazy.json" 2>/dev/null
    $SPIDER -f json --no-timings --solver=z3 --eager-locks=65536 "$TMP/$t.log" \
        >"$TMP/$t-eager.json" 2>/dev/null
    cmp -s "$TMP/$t-lazy.json" "$TMP/$t-eager.json" && ok \
        || not_ok "$t: --solver=z3 with the lock's clauses lazy and eager differ"
done

# summary_of FILE.json: "shortcut_sat z3 undecided candidates"
summary_of() {
    python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["decided"]["shortcut_sat"], s["decided"]["z3"], s["undecided"],
      sum(s["candidates"].values()))' "$1"
}
$SPIDER -f json tests/fixtures/lock-cut-mid-order.log >"$TMP/cut.json" 2>/dev/null
read -r sat z3 undecided cands <<EOF2
$(summary_of "$TMP/cut.json")
EOF2
[ "$sat" -gt 0 ] && [ "$undecided" -eq 0 ] && ok ||
    not_ok "a LOCK never released mid-order: $sat SAT by shortcuts (want > 0), $undecided undecided"

# Edges Φ implies (docs/model.md): a WAIT's order that only counting the
# NOTIFYs gives (two waits, two candidates: both precede the second; one
# wait whose other candidate U places after it), and a lock order a
# message inside both sections forces.  Each trace has one candidate, no
# race, which only Z3 decided before these edges.
for f in implied-wait-pigeonhole implied-wait-feasible implied-lock-order; do
    $SPIDER -f json "tests/fixtures/$f.log" >"$TMP/$f.json" 2>/dev/null
    python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["constraints"]["implied"] > 0, s["constraints"]
assert s["decided"]["shortcut_unsat"] == 1 and s["decided"]["z3"] == 0, s["decided"]
assert s["undecided"] == 0' "$TMP/$f.json" && ok ||
        not_ok "$f: an order Φ implies is decided by shortcuts (above)"
done

# A WAIT that takes, one by one, the latest NOTIFY still free leaves the
# last WAIT of each condition only its own thread's NOTIFY (and the first
# free one, as a scheduler takes it, the other condition's): R was no
# witness and no run was found, so every SAT answer went to Z3.  A
# matching of the WAITs to NOTIFYs before them (encode/encode_waits.c)
# is R's choice now.
$SPIDER -f json tests/fixtures/waits-greedy-choice.log >"$TMP/greedy.json" 2>/dev/null
read -r sat z3 undecided cands <<EOF2
$(summary_of "$TMP/greedy.json")
EOF2
[ "$sat" -eq "$cands" ] && [ "$z3" -eq 0 ] && [ "$undecided" -eq 0 ] && ok ||
    not_ok "WAITs matched to NOTIFYs: $sat of $cands SAT by shortcuts (want all), $z3 to Z3"

# A real trace: a 3-server ZooKeeper ensemble and a client under the
# project's agent (benchmarks/zookeeper/run --ops 1 --no-election; 40,548
# events, every field access, monitor, queue and handler): decided by
# the shortcuts, none to Z3, none undecided, also with --atomicity and
# --multi-variable (whose "outside" queries ask for a thread to enter its
# section of a monitor only after another's, as a client's wait for its
# reply does).  The timeout only stops a run that would never end (the
# partial report then counts undecided candidates).  Its runs found by
# scheduling are many (a run of each query of a few dozen groups), so
# that the second thread runs queries ahead (schedule_ahead.c): -j1 and
# -j2 give the same report, counts included.
mkdir -p "$TMP/zk"
tar xJf tests/fixtures/zookeeper-ops1.tar.xz -C "$TMP/zk" || not_ok "unpacking the ZooKeeper trace"
for mode in "" --atomicity --multi-variable; do
    timeout -s TERM 600 $SPIDER -j2 --no-timings -f json $mode "$TMP/zk/zookeeper" >"$TMP/zk.json" 2>/dev/null
    read -r sat z3 undecided cands <<EOF2
$(summary_of "$TMP/zk.json")
EOF2
    [ "$z3" -eq 0 ] && [ "$undecided" -eq 0 ] && [ "$cands" -gt 10000 ] && ok ||
        not_ok "the ZooKeeper trace ${mode:-(default)}: $z3 of $cands candidates to Z3 (want 0), $undecided undecided"
    timeout -s TERM 600 $SPIDER -j1 --no-timings -f json $mode "$TMP/zk/zookeeper" >"$TMP/zk1.json" 2>/dev/null
    cmp -s "$TMP/zk.json" "$TMP/zk1.json" && ok ||
        not_ok "the ZooKeeper trace ${mode:-(default)}: -j1 and -j2 differ"
done

./bin/gen-trace --shape=locks --seed 5 --events 1000 --merged "$TMP/k1000.log" 2>/dev/null
$SPIDER -f json "$TMP/k1000.log" >"$TMP/k1000.json" 2>/dev/null
read -r sat z3 undecided cands <<EOF2
$(summary_of "$TMP/k1000.json")
EOF2
[ $((z3 * 100)) -lt "$cands" ] && [ "$undecided" -eq 0 ] && ok ||
    not_ok "1,000 lock-heavy events: $z3 of $cands candidates to Z3 (want under 1%), $undecided undecided"
finish
