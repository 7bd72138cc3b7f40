# Every shortcut is exact and pruning hides no race: on every bundled and
# shared trace and on 150 random traces (bin/gen-trace, every feature of
# the trace format and model on), in both handler models, the default
# analysis (pruning, exact shortcuts, then Z3) reports the race groups of
# --solver=z3 --no-prune (Z3 asked about every candidate of every event);
# --all-instances --no-prune gives the whole report of --solver=z3
# --no-prune, and --all-instances that of --solver=z3, counts too (counts
# are compared only between runs that both prune or both do not: pruning
# may lower them).  Each generator feature must be hit at least 20 times
# in all (differential.py sums the coverage lines of gen-trace).  Then the
# same with --atomicity, every pattern, on 150 of the random traces.
. tests/lib.sh
SEEDS=${SEEDS:-$(sized 150 30)}
# under the sanitizers 24: the fewest whose coverage still passes 20
[ -n "${SANITIZED:-}" ] && SEEDS=24
set -- benchmarks/taxdc/*/
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not compared"
fi
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((1000 + seed)) --nodes $((2 + seed % 4)) --steps $((30 + seed % 90)) \
        -o "$TMP/g$seed" 2>"$TMP/g$seed.coverage" || not_ok "gen-trace seed $((1000 + seed))"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
python3 tests/differential.py exact --min-coverage=20 "$@" && ok || not_ok "differential checks (above)"

# --atomicity (every pattern): the same comparisons, atomicity groups and
# counts included, on the bundled and shared traces and 200 of the random
# ones.
# random_traces N: the first N of the random traces above (at most SEEDS)
random_traces() {
    i=1
    while [ $i -le "$SEEDS" ] && [ $i -le "$1" ]; do
        printf '%s\n' "$TMP/g$i"
        i=$((i + 1))
    done
}
ATOMICITY_SEEDS=${ATOMICITY_SEEDS:-150}
set -- benchmarks/taxdc/*/ benchmarks/atomicity/*/
# (QUICK: the shared traces in the first comparison only)
[ -d "$SHARED" ] && [ -z "${QUICK:-}" ] && set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
# shellcheck disable=SC2046 # the paths have no spaces
set -- "$@" $(random_traces "$ATOMICITY_SEEDS")
echo "== with --atomicity --atomicity-patterns=all"
python3 tests/differential.py exact --extra=--atomicity --extra=--atomicity-patterns=all "$@" \
    && ok || not_ok "differential checks with --atomicity (above)"

# --multi-variable: the same comparisons on the bundled example, the
# shared traces, the pruning and reference fixtures (open locks, cut
# objects, odd SPEC corners) and 50 of the random traces (20 under the
# sanitizers; gen-trace's --correlated knob puts correlated pairs in them;
# t0130 and t0170 compare more).  The default engine decides while it
# generates (hb_order); --solver=z3 asks Z3 about every candidate.
MULTIVAR_SEEDS=${MULTIVAR_SEEDS:-$(sized 40 10)}
[ -n "${SANITIZED:-}" ] && MULTIVAR_SEEDS=$(sized 20 10)   # the sanitized build is slower
set -- benchmarks/multivar/*/ tests/prune/*.log tests/fixtures/*.log
[ -d "$SHARED" ] && [ -z "${QUICK:-}" ] && set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
# shellcheck disable=SC2046
set -- "$@" $(random_traces "$MULTIVAR_SEEDS")
echo "== with --multi-variable"
python3 tests/differential.py exact --extra=--multi-variable "$@" \
    && ok || not_ok "differential checks with --multi-variable (above)"
finish
