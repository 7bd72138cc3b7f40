# Multi-variable atomicity violations (--multi-variable, SPEC §4): the
# bundled MySQL binlog example against tests/golden/multivar/
# (tests/golden/multivar/update rewrites them) — the pair found by mining,
# the bug found, the atomic pair not reported; --correlated files, good
# and bad; the options' errors; the default engine against --solver=z3 on
# a Cyclon trace with correlated variables (groups and counts), and
# the report the same whatever the order of files.
# (Random traces: t0050, t0060 and the independent reference, t0130.)
. tests/lib.sh
d=benchmarks/multivar/mysql-binlog
g=tests/golden/multivar
golden() { # golden NAME WANT-STATUS ARGS...
    name=$1 want=$2; shift 2
    $SPIDER "$@" >"$TMP/$name" 2>"$TMP/$name.err"
    rc=$?
    [ $rc -eq "$want" ] && ok || not_ok "$name: exit $rc, want $want"
    if diff -u "$g/$name" "$TMP/$name" >"$TMP/$name.diff"; then ok
    else not_ok "$name differs from $g/$name"; head -20 "$TMP/$name.diff"; fi
}
golden mysql.txt 1 --no-timings --color=never --multi-variable $d
golden mysql.json 1 --no-timings -f json --multi-variable $d
golden mysql.floating.json 1 --no-timings -f json --multi-variable --all-instances --handlers=floating $d
golden list.txt 0 --list-correlations $d
golden list.json 0 --list-correlations -f json $d
golden given.txt 0 --list-correlations --correlated=$g/given.pairs $d
if diff -u $g/given.err "$TMP/given.txt.err" >/dev/null; then ok
else not_ok "--correlated warning differs from $g/given.err"; cat "$TMP/given.txt.err"; fi

# what the example must show, whatever the golden files say
mvgroups() { # the groups as "a1|a2|bx|by|x|y|pattern|count"
    python3 -c '
import json, sys
for g in json.load(open(sys.argv[1]))["multi_variable_violations"]:
    print(*g["locations"], *g["variables"], g["pattern"], g["count"], sep="|")
' "$1"
}
$SPIDER -f json --multi-variable --all-instances $d >"$TMP/all.json" 2>/dev/null
mvgroups "$TMP/all.json" >"$TMP/all.groups"
grep -q '^mysql.Table.delete_rows.2205|mysql.MYSQL_LOG.write.1520|mysql.Table.write_row.1846|mysql.MYSQL_LOG.write.1520|Table.rows|Binlog.events|Wx..Wy / Wx,Wy|' "$TMP/all.groups" \
    && ok || not_ok "the binlog bug (delete, then insert in between) is not reported"
grep -q 'Stats' "$TMP/all.groups" && not_ok "the counters updated in one critical section are reported" || ok
python3 -c '
import json, sys
pairs = json.load(open(sys.argv[1]))["summary"]["correlated_pairs"]
want = {"node": "10.0.0.10", "variables": ["Binlog.events", "Table.rows"], "distance": 3, "support": 6, "source": "mined"}
sys.exit(0 if want in pairs and all(p["source"] == "mined" for p in pairs) else 1)
' "$TMP/all.json" && ok || not_ok "the table/binlog pair is not mined as distance 3, support 6"
# without --multi-variable nothing of it shows
$SPIDER -f json $d >"$TMP/plain.json" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(1 if "multi_variable_violations" in d or "correlated_pairs" in d["summary"] else 0)
' "$TMP/plain.json" && ok || not_ok "multi-variable keys without --multi-variable"
# a stricter threshold finds no pair, hence no violation (exit 0)
expect_status 0 $SPIDER --multi-variable --max-distance=2 --min-support=7 $d
grep -q "correlated 0 pairs" "$TMP/out" && ok || not_ok "--max-distance=2 --min-support=7 still lists pairs"
# a given pair is used even when mining would not find it
printf '* Stats.queries Table.rows\n' >"$TMP/one.pairs"
$SPIDER -f json --multi-variable --max-distance=0 --correlated="$TMP/one.pairs" $d >"$TMP/given.json" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["summary"]["correlated_pairs"]
sys.exit(0 if len(p) == 1 and p[0]["source"] == "given" and p[0]["variables"] == ["Stats.queries", "Table.rows"] else 1)
' "$TMP/given.json" && ok || not_ok "a --correlated pair is not the one used"

# bad input: exit 2 naming the file and line
printf '# fine\n10.0.0.10 x\n' >"$TMP/bad.pairs"
expect_status 2 $SPIDER --multi-variable --correlated="$TMP/bad.pairs" $d
grep -q "bad.pairs:2: expected 'NODE X Y'" "$TMP/err" && ok || not_ok "bad --correlated line not named: $(cat "$TMP/err")"
printf '* x x\n' >"$TMP/same.pairs"
expect_status 2 $SPIDER --multi-variable --correlated="$TMP/same.pairs" $d
grep -q "same.pairs:1:" "$TMP/err" && ok || not_ok "a pair of one variable not refused"
expect_status 2 $SPIDER --multi-variable --correlated="$TMP/none.pairs" $d
grep -q "none.pairs: cannot read" "$TMP/err" && ok || not_ok "a missing --correlated file not named"
expect_status 2 $SPIDER --multi-variable --max-distance=-1 $d
expect_status 2 $SPIDER --multi-variable --max-distance=x $d
expect_status 2 $SPIDER --multi-variable --min-support=0 $d
$SPIDER --help | grep -q -- "--multi-variable" && ok || not_ok "--help lacks --multi-variable"

# the default engine (decides while it generates) against Z3 on every
# candidate, on a Cyclon trace where every node keeps a view and its size
./bin/cyclon-trace --nodes 4 --cycles 6 --seed 3 --correlated -o "$TMP/cyc" 2>/dev/null
for h in nested floating; do
    $SPIDER -f json --no-timings --multi-variable --all-instances --handlers=$h "$TMP/cyc" >"$TMP/auto.json" 2>/dev/null
    $SPIDER -f json --no-timings --multi-variable --solver=z3 --handlers=$h "$TMP/cyc" >"$TMP/z3.json" 2>/dev/null
    mvgroups "$TMP/auto.json" >"$TMP/auto.groups"
    mvgroups "$TMP/z3.json" >"$TMP/z3.groups"
    [ -s "$TMP/z3.groups" ] && ok || not_ok "Cyclon ($h): no multi-variable violation to compare"
    cmp -s "$TMP/auto.groups" "$TMP/z3.groups" && ok \
        || { not_ok "Cyclon ($h): --all-instances and --solver=z3 differ"; diff "$TMP/auto.groups" "$TMP/z3.groups" | head -5; }
    $SPIDER -f json --no-timings --multi-variable --handlers=$h "$TMP/cyc" >"$TMP/dedup.json" 2>/dev/null
    mvgroups "$TMP/dedup.json" | cut -d'|' -f1-7 >"$TMP/dedup.groups"
    cut -d'|' -f1-7 "$TMP/z3.groups" | cmp -s - "$TMP/dedup.groups" && ok \
        || not_ok "Cyclon ($h): the default analysis's groups differ from --solver=z3"
done
# what the default analysis leaves out of a group (it decides while it
# generates) never depends on the order of files nor on the workers
for h in nested floating; do
    $SPIDER -f json --no-timings --multi-variable -j1 --handlers=$h "$TMP/cyc" >"$TMP/fwd.json" 2>/dev/null
    $SPIDER -f json --no-timings --multi-variable -j2 --handlers=$h $(ls "$TMP"/cyc/* | sort -r) >"$TMP/rev.json" 2>/dev/null
    cmp -s "$TMP/fwd.json" "$TMP/rev.json" && ok || not_ok "Cyclon ($h): reversed file order changes the --multi-variable report"
done
# mining stays near linear when threads touch many variables: two
# threads writing 20,000 variables once each (every gap of every pair
# would be 4 x 10^8 gaps)
python3 -c '
for th in ("a@n", "b@n"):
    for i in range(20000):
        print("{\"thread\": \"%s\", \"type\": \"W\", \"variable\": \"v%d\", \"loc\": \"L%d\"}" % (th, i, i))
' >"$TMP/many.log"
# (30 s of CPU time at most: a quadratic miner takes more, whatever the
# machine's load)
expect_status 0 cpu_limit 30 600 $SPIDER --list-correlations --min-support=1 "$TMP/many.log"
# v_i and v_i+k (k <= 5) are neighbours among their own accesses, gap k,
# once per thread: 5 x 20,000 - 15 pairs of support 2, and a header
[ "$(wc -l <"$TMP/out")" -eq 99986 ] && ok || not_ok "2 x 20,000 variables: want 99,985 pairs and a header, got $(wc -l <"$TMP/out") lines"
finish
