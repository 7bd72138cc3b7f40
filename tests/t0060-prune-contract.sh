# The pruning contract (docs/pruning.md): on every bundled and shared trace,
# the regression fixtures in tests/prune/, and 300 random traces, in both
# handler models, the race groups with and without pruning are the same
# and no count grows.
. tests/lib.sh
SEEDS=${SEEDS:-300}
set -- benchmarks/taxdc/*/ tests/prune/*.log
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not checked"
fi
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((5000 + seed)) --nodes $((1 + seed % 5)) --steps $((20 + seed % 120)) -o "$TMP/g$seed"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
python3 tests/differential.py prune "$@"
