# An independent check: tests/reference.py implements SPEC.md §1–§4 on its
# own (written from the SPEC, not from spider's code; its z3 runs on
# SMT-LIB2 text it writes itself) and compares, for both handler models,
# spider's default analysis, --no-prune and --solver=z3 --no-prune (the
# same groups) and --no-prune --all-instances (the same counts) with it —
# with and without --atomicity, and with --multi-variable (the groups, the
# correlated pairs of the summary and of --list-correlations, mined and
# given by a --correlated file, the exit status) — on the bundled and
# shared traces, the fixtures, and 40 fresh random traces of bin/gen-trace (10 under the sanitizers;
# 10 for --atomic-region)
# (seeds no other test uses; every SPEC feature on by default, open locks
# included) and 18 lock-heavy ones (8 sanitized; --atomicity with every
# pattern on those of up to 200 events), plus for --multi-variable 24 random traces rich in correlated
# pairs (gen-trace --correlated=60), a Cyclon trace with --correlated and the
# bundled benchmarks/multivar examples.
. tests/lib.sh
command -v z3 >/dev/null || { echo "skip: the z3 command is missing (make deps installs it)"; exit 77; }
# The reference's answers: computed afresh in the plain pass, reused by the
# sanitized one for the same traces (only spider is under test there)
export REFERENCE_CACHE=tests/tmp/reference-cache
[ -z "${SANITIZED:-}" ] && rm -rf "$REFERENCE_CACHE"
SEEDS=${SEEDS:-$(sized 40 6)}
# under the sanitizers 10: the reference's own time does not shrink there
# (make check's 10-minute budget), and t0050 runs 30 random traces more
[ -n "${SANITIZED:-}" ] && SEEDS=$(sized 10 6)
set -- benchmarks/taxdc/*/ benchmarks/atomicity/*/ tests/prune/*.log tests/fixtures/*.log
if [ -n "${QUICK:-}" ]; then
    echo "note: QUICK: the shared traces are not compared"
elif [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/micro-benchmarks/*.log "$SHARED"/misc/*.log \
        "$SHARED"/cyclon/Cyclon_5N_3R.txt
else
    echo "note: $SHARED is absent, its traces are not compared"
fi
few="$*"   # the region modes: these and 10 of the random traces
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((9000 + seed)) --nodes $((1 + seed % 4)) \
        --steps $((30 + seed % 70)) -o "$TMP/g$seed" 2>/dev/null
    set -- "$@" "$TMP/g$seed"
    [ $seed -le 10 ] && few="$few $TMP/g$seed"
    seed=$((seed + 1))
done
# Lock-heavy traces (bin/gen-trace --shape=locks: many threads on few
# locks, nested and re-entrant sections, sections cut by an exception,
# open at the end, wait/notify, hand-offs, messages): races and atomicity
# only.  LOCK_REF_SEEDS=200 reruns the larger sample.
LOCK_REF_SEEDS=${LOCK_REF_SEEDS:-$(sized 18 4)}
[ -n "${SANITIZED:-}" ] && LOCK_REF_SEEDS=$(sized 8 4)
# 30 to 299 events (QUICK: to 119; the reference's time grows with the
# square of the accesses).  Every atomicity pattern only on those of up
# to 200 events: on a few larger ones of two variables (tens of
# thousands of candidates) z3 alone took a minute, half of make check's
# budget for this script; LOCK_REF_SEEDS=200 compares them all.
span=$(sized 270 90)
locks="" atom_locks=""
seed=1
while [ $seed -le "$LOCK_REF_SEEDS" ]; do
    events=$((30 + seed * 37 % span))
    ./bin/gen-trace --shape=locks --seed $((7000 + seed)) \
        --events $events --nodes $((1 + seed % 3)) \
        --threads $((2 + seed % 7)) --locks $((1 + seed % 5)) --vars $((2 + seed % 3)) \
        --cut-sections=$((seed % 4 * 25)) --handoffs=$((seed % 3 * 50)) \
        -o "$TMP/k$seed" 2>/dev/null || not_ok "gen-trace --shape=locks seed $seed"
    locks="$locks $TMP/k$seed"
    if [ $events -le 200 ] || [ "$LOCK_REF_SEEDS" -gt 24 ]; then
        atom_locks="$atom_locks $TMP/k$seed"
    fi
    seed=$((seed + 1))
done
# shellcheck disable=SC2086 # the paths have no spaces
python3 tests/reference.py compare -j 2 "$@" $locks >"$TMP/plain.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (races)"; grep -v '^ok' "$TMP/plain.out" | head -20; }
tail -n 1 "$TMP/plain.out"
# shellcheck disable=SC2086
python3 tests/reference.py compare -j 2 --atomicity --atomicity-patterns=RRR,RRW,RWR,RWW,WRR,WRW,WWR,WWW "$@" $atom_locks >"$TMP/atom.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (--atomicity)"; grep -v '^ok' "$TMP/atom.out" | head -20; }
tail -n 1 "$TMP/atom.out"
# (the region modes choose p and c only: on fewer random traces, and not
# again under the sanitizers)
regions="lock handler"
[ -n "${SANITIZED:-}${QUICK:-}" ] && { regions=""; echo "note: the region modes are compared in make check's release pass only"; }
for region in $regions; do
    # shellcheck disable=SC2086 # the paths have no spaces
    python3 tests/reference.py compare -j 2 --atomicity --atomic-region=$region $few >"$TMP/$region.out" 2>&1 && ok \
        || { not_ok "spider differs from the reference (--atomic-region=$region)"; grep -v '^ok' "$TMP/$region.out" | head -20; }
    tail -n 1 "$TMP/$region.out"
done

# --multi-variable (SPEC §4): the same traces, then traces rich in
# correlated pairs: mined pairs only, a --correlated file (pairs for every
# node and for one node, pairs mining also finds, a pair twice, pairs of
# variables a node lacks), other thresholds, and a bad file.
MV=$(echo benchmarks/multivar/*/)
seed=1
MV_SEEDS=$(sized 16 2)
[ -n "${SANITIZED:-}" ] && MV_SEEDS=$(sized 4 2)   # the sanitized build is slower
while [ $seed -le $MV_SEEDS ]; do
    ./bin/gen-trace --seed $((9500 + seed)) --nodes $((1 + seed % 3)) --steps $((25 + seed % 25)) \
        --correlated=60 --pairs $((1 + seed % 3)) -o "$TMP/c$seed" 2>/dev/null
    MV="$MV $TMP/c$seed"
    seed=$((seed + 1))
done
./bin/cyclon-trace --nodes 3 --cycles 4 --correlated -o "$TMP/cyclon" 2>/dev/null
MV="$MV $TMP/cyclon"
python3 tests/reference.py compare -j 2 --multi-variable "$@" $MV >"$TMP/mv.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (--multi-variable)"; grep -v '^ok' "$TMP/mv.out" | head -20; }
tail -n 1 "$TMP/mv.out"
printf '%s\n' '# pairs the user knows of' '* v0 v1' '10.0.0.1	y1   x1' '* x0 v2.n1' \
    '10.0.0.2 CyclonActive.view CyclonActive.lock' '* CyclonActive.viewSize CyclonActive.view' \
    '   # the same pair again, and one of no variable of the trace' '* v1 v0' '* nosuch other' \
    '10.0.0.10 Stats.queries Table.rows' '10.0.0.10 Binlog.events Server.requests' \
    >"$TMP/pairs"
python3 tests/reference.py compare -j 2 --multi-variable --correlated="$TMP/pairs" $MV >"$TMP/mvc.out" 2>&1 && ok \
    || { not_ok "spider differs from the reference (--multi-variable --correlated)"; grep -v '^ok' "$TMP/mvc.out" | head -20; }
tail -n 1 "$TMP/mvc.out"
if [ -z "${SANITIZED:-}" ]; then # other thresholds: the same code, once
    python3 tests/reference.py compare -j 2 --multi-variable --correlated="$TMP/pairs" --min-support=2 \
        --max-distance=2.5 $MV >"$TMP/mvt.out" 2>&1 && ok \
        || { not_ok "spider differs from the reference (--multi-variable, other thresholds)"; grep -v '^ok' "$TMP/mvt.out" | head -20; }
    tail -n 1 "$TMP/mvt.out"
fi
printf '* v0 v1\n\n10.0.0.1 x0\n' >"$TMP/bad-pairs"
python3 tests/reference.py compare --multi-variable --correlated="$TMP/bad-pairs" "$TMP/c1" "$TMP/c2" >"$TMP/mvb.out" 2>&1 && ok \
    || { not_ok "a bad --correlated file"; grep -v '^ok' "$TMP/mvb.out" | head -5; }
finish
