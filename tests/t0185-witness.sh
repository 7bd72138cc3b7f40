# Witnesses (SPEC §4, issue 12): tests/check_witness.py checks every
# group's witness against Φ as tests/reference.py builds it from the SPEC
# (its own SMT-LIB2, the z3 command): the instance's events are in it, in
# the order of the kind's query, and Φ ∧ query ∧ the witness's order is
# satisfiable — on the bundled and shared traces, the fixtures (and
# tests/witness/: witnesses that once broke Φ), and 75
# random traces with every analysis on (--atomicity, --multi-variable),
# witnesses from R (the default) and from Z3's models (--solver=z3), in
# both handler models (40 random traces each for the last two).  About
# 15 s.
. tests/lib.sh
command -v z3 >/dev/null || { echo "skip: the z3 command is missing (make deps installs it)"; exit 77; }
SEEDS=${SEEDS:-$(sized 75 10)}
[ -n "${SANITIZED:-}" ] && SEEDS=$(sized 15 10)   # the sanitized build is slower
set -- benchmarks/taxdc/*/ tests/prune/*.log tests/fixtures/*.log tests/witness/*/
if [ -n "${QUICK:-}" ]; then
    echo "note: QUICK: the shared traces are not checked"
elif [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/micro-benchmarks/*.log "$SHARED"/misc/*.log \
        "$SHARED"/cyclon/Cyclon_5N_3R.txt "$SHARED"/cyclon/trace_10iter_10peer.log
else
    echo "note: $SHARED is absent, its traces are not checked"
fi
witness() { # witness NAME OPTIONS... -- TRACES...
    name=$1; shift
    python3 tests/check_witness.py -j 2 "$@" >"$TMP/$name.out" 2>&1 && ok \
        || { not_ok "witnesses ($name)"; grep -v '^ok' "$TMP/$name.out" | head -10; }
    echo "$name: $(tail -n 1 "$TMP/$name.out")"
}
witness real "$@"
witness real-z3 --solver=z3 "$@"
witness atomicity --atomicity --atomicity-patterns=all benchmarks/atomicity/*/
witness multivar --multi-variable benchmarks/multivar/*/

seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((12000 + seed)) --nodes $((1 + seed % 4)) \
        --steps $((30 + seed % 70)) -o "$TMP/g$seed" 2>/dev/null
    seed=$((seed + 1))
done
witness random --atomicity --multi-variable "$TMP"/g*
# the other handler model, and witnesses from Z3's models: 40 of them
set --
seed=1
while [ $seed -le 40 ] && [ $seed -le "$SEEDS" ]; do set -- "$@" "$TMP/g$seed"; seed=$((seed + 1)); done
witness random-floating --handlers=floating --atomicity --multi-variable "$@"
witness random-z3 --solver=z3 --atomicity --multi-variable "$@"
# a witness must name the instance's lock context: checked by t0175
finish
