# Every shortcut is exact: on every bundled and shared trace and on 200
# random traces, in both handler models, the default engine (exact
# shortcuts, then Z3) and --solver=z3 (Z3 asked about every candidate)
# agree.  With --all-instances the reports are identical but for how the
# candidates were decided; without it, the race groups are identical.
. tests/lib.sh
SEEDS=${SEEDS:-200}
set -- benchmarks/taxdc/*/
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not compared"
fi
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((1000 + seed)) --nodes $((2 + seed % 4)) --steps $((30 + seed % 90)) -o "$TMP/g$seed"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
python3 tests/differential.py exact "$@"
