# Multi-variable races (--multi-variable-races; docs/model.md, MUVI's
# happens-before_MV): the whole reference (tests/reference.py: Φ and z3,
# every mode, both handler models) on 75 random traces rich in
# correlated pairs, mined by both miners (gen-trace --correlated
# --functions, --correlation=both) and given; the bundled example
# (benchmarks/mvrace): the lookup that only this kind sees, no data race;
# the default engine against --solver=z3 and reversed files on a Cyclon
# trace; the kind's names (--kind, suppressions, baselines); witnesses.
. tests/lib.sh
command -v z3 >/dev/null || { echo "skip: the z3 command is missing (make deps installs it)"; exit 77; }
export REFERENCE_CACHE=tests/tmp/reference-cache-mvrace
[ -z "${SANITIZED:-}" ] && rm -rf "$REFERENCE_CACHE"
n=$(sized 75 16)
[ -n "${SANITIZED:-}" ] && n=16
set --
for s in $(seq 1 "$n"); do
    # small (12 to 35 steps, 1 or 2 nodes): the reference's time grows
    # with the square of the accesses, and make check has 10 minutes
    ./bin/gen-trace --seed $((3100 + s)) --nodes $((1 + s % 2)) --steps $((12 + s % 24)) \
        --functions $((3 + s % 5)) --correlated=$((40 + s % 50)) \
        -o "$TMP/m$s" 2>/dev/null || not_ok "gen-trace seed $s"
    set -- "$@" "$TMP/m$s"
done
# shellcheck disable=SC2086
python3 tests/reference.py compare -j 2 --multi-variable-races --correlation=both "$@" \
    >"$TMP/ref.out" 2>&1 && ok \
    || { not_ok "--multi-variable-races differs from the reference"; grep -v '^ok' "$TMP/ref.out" | head -20; }
tail -n 1 "$TMP/ref.out"
printf '* x0 y1\n* v0 x1\n' >"$TMP/given.pairs"
python3 tests/reference.py compare -j 2 --multi-variable-races --correlated="$TMP/given.pairs" \
    "$TMP/m1" "$TMP/m2" "$TMP/m3" "$TMP/m4" >"$TMP/given.out" 2>&1 && ok \
    || { not_ok "--multi-variable-races with given pairs differs from the reference"; grep -v '^ok' "$TMP/given.out" | head -10; }
# shapes the random generator does not make: lock-heavy runs (many
# threads on few locks, nested and cut sections, wait/notify) with given
# pairs, and the example cut mid-section and mid-object (a run stopped
# while the fill held a lock)
printf '* v0 v1\n* v1 v2\n* v0 v2\n' >"$TMP/locks.pairs"
locks=""
for s in 1 2 3 4 5 6; do
    ./bin/gen-trace --shape=locks --seed $((7300 + s)) --events $((40 + s * 15)) \
        --nodes $((1 + s % 2)) --threads $((2 + s % 5)) --locks $((1 + s % 3)) --vars 3 \
        --cut-sections=$((s % 3 * 30)) -o "$TMP/k$s" 2>/dev/null || not_ok "gen-trace --shape=locks seed $s"
    locks="$locks $TMP/k$s"
done
head -c "$(( $(head -n 27 benchmarks/mvrace/property-cache.log | wc -c) + 20 ))" \
    benchmarks/mvrace/property-cache.log >"$TMP/cut.log"
# shellcheck disable=SC2086 # the paths have no spaces
python3 tests/reference.py compare -j 2 --multi-variable-races --correlated="$TMP/locks.pairs" \
    $locks "$TMP/cut.log" >"$TMP/shapes.out" 2>&1 && ok \
    || { not_ok "--multi-variable-races differs from the reference on lock-heavy and cut traces"; grep -v '^ok' "$TMP/shapes.out" | head -10; }
tail -n 1 "$TMP/shapes.out"
# shellcheck disable=SC2086
SPIDER="$SPIDER" python3 - "$TMP/cut.log" $locks <<'PY' && ok || not_ok "the lock-heavy and cut traces have no multi-variable race to compare"
import json, os, subprocess, sys
found = []
for path in sys.argv[1:]:
    out = subprocess.run(os.environ["SPIDER"].split() + ["-q", "-f", "json", "--no-timings",
                         "--multi-variable-races", "--correlated=" + os.path.dirname(sys.argv[1]) + "/locks.pairs", path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found.append(len(json.loads(out.stdout).get("multi_variable_races", [])))
print("multi-variable race groups: cut example %d, lock-heavy %s" % (found[0], found[1:]))
sys.exit(0 if found[0] and sum(1 for n in found[1:] if n) * 2 >= len(found) - 1 else 1)
PY

# the comparison is not empty: groups of both sides (r on p's variable and
# on c's), in a quarter of the traces at least (57 of the 100, 7 of the
# first 16)
SPIDER="$SPIDER" python3 - "$@" <<'PY' && ok || not_ok "too few multi-variable races to compare"
import json, os, subprocess, sys
with_groups = sides = 0
seen = set()
for path in sys.argv[1:]:
    out = subprocess.run(os.environ["SPIDER"].split() + ["-q", "-f", "json", "--no-timings",
                         "--multi-variable-races", "--correlation=both", path],
                         stdout=subprocess.PIPE, text=True)
    groups = json.loads(out.stdout).get("multi_variable_races", [])
    with_groups += bool(groups)
    seen |= {g["pattern"][-1] for g in groups}
print("%d of %d traces with multi-variable races; r on %s" % (with_groups, len(sys.argv) - 1, sorted(seen)))
sys.exit(0 if with_groups * 4 >= len(sys.argv) - 1 and seen == {"x", "y"} else 1)
PY

# the bundled example: Mozilla's property cache (Lu's thesis, Fig. 5.1)
e=benchmarks/mvrace/property-cache.log
python3 benchmarks/mvrace/generate.py "$TMP/pc.log"
cmp -s "$TMP/pc.log" $e && ok || not_ok "benchmarks/mvrace/generate.py does not write $e"
expect_status 1 $SPIDER --no-timings --color=never --multi-variable-races $e
grep -q "^Data races: none" "$TMP/out" && ok || not_ok "the example has a data race"
grep -q "js_FlushPropertyCache.412  /  js.jsinterp.js_PropertyCacheTest.520  /  js.jsinterp.js_FlushPropertyCache.415" \
    "$TMP/out" && ok || not_ok "the lookup between the flush's two updates is not reported"
grep -q "Wx..Wy / Rx on correlated variables x = JSPropertyCache.table, y = JSPropertyCache.empty" \
    "$TMP/out" && ok || not_ok "the lookup's pattern is not shown"
# --multi-variable needs a second remote access: it misses the lookup
$SPIDER -q -f json --no-timings --multi-variable --all-instances $e >"$TMP/mv.json" 2>/dev/null
grep -q "PropertyCacheTest" "$TMP/mv.json" && not_ok "--multi-variable reports the lookup" || ok
# the kind's names: --kind, suppressions, a baseline
expect_status 1 $SPIDER -q --multi-variable-races --multi-variable --kind=multi-variable-races $e
grep -q "^Multi-variable races:" "$TMP/out" && ok || not_ok "--kind=multi-variable-races does not show the kind"
grep -q "atomicity violations" "$TMP/out" && not_ok "--kind=multi-variable-races shows other kinds" || ok
expect_status 1 $SPIDER -q --multi-variable-races --multi-variable --kind=multi-variable $e
grep -q "^Multi-variable races:" "$TMP/out" && not_ok "--kind=multi-variable shows the races" || ok
printf 'multi-variable-races:*\n' >"$TMP/all.supp"
expect_status 0 $SPIDER -q --multi-variable-races --suppressions="$TMP/all.supp" $e
$SPIDER -q -f json --no-timings --multi-variable-races $e >"$TMP/base.json" 2>/dev/null
expect_status 0 $SPIDER -q -f json --no-timings --multi-variable-races --baseline="$TMP/base.json" $e
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["multi_variable_races"]
sys.exit(0 if g and all(x.get("baseline") == "known" for x in g) else 1)
' "$TMP/out" && ok || not_ok "a baseline of the same run does not mark every group known"
# witnesses: a run of Φ with r between p and c (tests/check_witness.py)
python3 tests/check_witness.py -j 2 --multi-variable-races --correlation=both $e \
    "$TMP/m1" "$TMP/m2" "$TMP/m3" "$TMP/m4" "$TMP/m5" "$TMP/m6" >"$TMP/witness.out" 2>&1 && ok \
    || { not_ok "a multi-variable race's witness is wrong"; grep -v '^ok' "$TMP/witness.out" | head -5; }
python3 tests/check_witness.py --multi-variable-races --handlers=floating $e >>"$TMP/witness.out" 2>&1 && ok \
    || { not_ok "a multi-variable race's witness is wrong (floating)"; tail -3 "$TMP/witness.out"; }
grep -q "^ok $e (" "$TMP/witness.out" && ok || not_ok "the example's witnesses were not checked: $(head -3 "$TMP/witness.out")"

# the default engine against Z3 on every candidate, and reversed files,
# on a Cyclon trace whose nodes keep a view and its size
./bin/cyclon-trace --nodes 4 --cycles 5 --seed 5 --correlated -o "$TMP/cyc" 2>/dev/null
groups() {
    python3 -c '
import json, sys
for g in json.load(open(sys.argv[1]))["multi_variable_races"]:
    print(*g["locations"], g["pattern"], sep="|")
' "$1"
}
for h in nested floating; do
    $SPIDER -f json --no-timings --multi-variable-races --handlers=$h "$TMP/cyc" >"$TMP/auto.json" 2>/dev/null
    $SPIDER -f json --no-timings --multi-variable-races --solver=z3 --handlers=$h "$TMP/cyc" >"$TMP/z3.json" 2>/dev/null
    groups "$TMP/auto.json" >"$TMP/auto.g"
    groups "$TMP/z3.json" >"$TMP/z3.g"
    [ -s "$TMP/z3.g" ] && ok || not_ok "Cyclon ($h): no multi-variable race to compare"
    cmp -s "$TMP/auto.g" "$TMP/z3.g" && ok || not_ok "Cyclon ($h): the default engine and --solver=z3 differ"
    $SPIDER -f json --no-timings --multi-variable-races -j1 --handlers=$h $(ls "$TMP"/cyc/* | sort -r) >"$TMP/rev.json" 2>/dev/null
    cmp -s "$TMP/auto.json" "$TMP/rev.json" && ok || not_ok "Cyclon ($h): reversed files change the report"
done
$SPIDER --help | grep -q -- "--multi-variable-races" && ok || not_ok "--help lacks --multi-variable-races"
finish
