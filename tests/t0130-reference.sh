# An independent check: tests/reference.py implements SPEC.md §1–§4 on its
# own (written from the SPEC, not from spider's code; its z3 runs on
# SMT-LIB2 text it writes itself) and compares, for both handler models,
# spider's default analysis, --no-prune and --solver=z3 --no-prune (the
# same groups) and --no-prune --all-instances (the same counts) with it —
# with and without --atomicity — on the bundled and shared traces, the
# fixtures, and 60 fresh random traces of bin/gen-trace (seeds no other
# test uses; every SPEC feature on by default, open locks included).
. tests/lib.sh
command -v z3 >/dev/null || { echo "skip: the z3 command is missing (make deps installs it)"; exit 77; }
SEEDS=${SEEDS:-60}
set -- benchmarks/taxdc/*/ benchmarks/atomicity/*/ tests/prune/*.log tests/fixtures/*.log
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/micro-benchmarks/*.log "$SHARED"/misc/*.log \
        "$SHARED"/cyclon/Cyclon_5N_3R.txt
else
    echo "note: $SHARED is absent, its traces are not compared"
fi
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((9000 + seed)) --nodes $((1 + seed % 4)) \
        --steps $((30 + seed % 70)) -o "$TMP/g$seed" 2>/dev/null
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
python3 tests/reference.py compare -j 2 "$@" >"$TMP/plain.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (races)"; grep -v '^ok' "$TMP/plain.out" | head -20; }
tail -n 1 "$TMP/plain.out"
python3 tests/reference.py compare -j 2 --atomicity --atomicity-patterns=RRR,RRW,RWR,RWW,WRR,WRW,WWR,WWW "$@" >"$TMP/atom.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (--atomicity)"; grep -v '^ok' "$TMP/atom.out" | head -20; }
tail -n 1 "$TMP/atom.out"
for region in lock handler; do
    python3 tests/reference.py compare -j 2 --atomicity --atomic-region=$region "$@" >"$TMP/$region.out" 2>&1 && ok \
        || { not_ok "spider differs from the reference (--atomic-region=$region)"; grep -v '^ok' "$TMP/$region.out" | head -20; }
    tail -n 1 "$TMP/$region.out"
done
finish
