# The pruning contract (docs/pruning.md): on every bundled and shared trace,
# the regression fixtures in tests/prune/, and 150 random traces
# (bin/gen-trace, every feature of the trace format and model on), in both
# handler models, the race groups with and without pruning are the same
# and no count grows.  Each generator feature must be hit at least 20
# times in all.
. tests/lib.sh
SEEDS=${SEEDS:-$(sized 150 30)}
set -- benchmarks/taxdc/*/ tests/prune/*.log
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not checked"
fi
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((5000 + seed)) --nodes $((1 + seed % 5)) --steps $((20 + seed % 120)) \
        -o "$TMP/g$seed" 2>"$TMP/g$seed.coverage" || not_ok "gen-trace seed $((5000 + seed))"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
python3 tests/differential.py prune --min-coverage=20 "$@" && ok || not_ok "differential checks (above)"
# the contract with --atomicity (every pattern; rule 3 holds back more)
echo "== with --atomicity --atomicity-patterns=all"
python3 tests/differential.py prune --extra=--atomicity --extra=--atomicity-patterns=all \
    benchmarks/atomicity/*/ "$@" && ok || not_ok "differential checks with --atomicity (above)"
# and with --multi-variable (correlated pairs are mined before pruning)
echo "== with --multi-variable"
python3 tests/differential.py prune --extra=--multi-variable \
    benchmarks/multivar/*/ "$@" && ok || not_ok "differential checks with --multi-variable (above)"
finish
