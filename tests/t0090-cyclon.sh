# bin/cyclon-trace: deterministic for a seed, one file per node, about 16
# events per node per cycle, the shuffle atomicity violation present, and
# spider finds the view data race in Cyclon-10N-10C.  Then the engine that
# counts over intervals (issue 14) against the pairwise engine it replaced:
# tests/golden/cyclon/ holds what that engine (commit ffe3ae9, Z3 asked
# nothing the shortcuts decide, every pair listed) reported with
# --all-instances on Cyclon 10N-10C, 30N-30C and 100N-100C, both handler
# models: the same groups, counts and summary, byte for byte.
. tests/lib.sh
G=./bin/cyclon-trace
$G --nodes 10 --cycles 10 -o "$TMP/a" 2>"$TMP/a.err"
$G --nodes 10 --cycles 10 -o "$TMP/b" 2>/dev/null
$G --nodes 10 --cycles 10 --seed 2 -o "$TMP/c" 2>/dev/null
diff -r "$TMP/a" "$TMP/b" >/dev/null && ok || not_ok "the same seed gives different bytes"
diff -r "$TMP/a" "$TMP/c" >/dev/null && not_ok "another seed gives the same bytes" || ok
[ "$(ls "$TMP/a" | wc -l)" -eq 10 ] && ok || not_ok "one file per node"
grep -q 'shuffles had the view updated by another shuffle while in flight' "$TMP/a.err" \
    && ! grep -q '; 0 shuffles' "$TMP/a.err" && ok || not_ok "no shuffle atomicity violation: $(cat "$TMP/a.err")"
$G --nodes 100 --cycles 100 -o "$TMP/big" 2>/dev/null
n=$(cat "$TMP"/big/*.log | wc -l)
[ "$n" -ge 140000 ] && [ "$n" -le 180000 ] && ok || not_ok "100 nodes x 100 cycles gave $n events"
[ "$(ls "$TMP/big" | wc -l)" -eq 100 ] && ok || not_ok "100 files"
expect_status 1 $SPIDER -f json "$TMP/a"
groups "$TMP/out" | grep -q '^data_races|cyclon.CyclonActive.insertReceivedToView.198|cyclon.CyclonActive.selectPeersToShuffle.249|CyclonActive.view|' \
    && ok || not_ok "the view data race is not found in Cyclon-10N-10C"
expect_status 2 $G --nodes 1 --cycles 5 -o "$TMP/bad"

for n in 10 30 100; do
    $G --nodes $n --cycles $n -o "$TMP/cyclon-${n}x$n" 2>/dev/null
    for h in nested floating; do
        # the report names the files: as from inside $TMP
        $SPIDER --no-timings -f json --all-instances --handlers=$h \
            "$TMP/cyclon-${n}x$n" | sed "s|$TMP/||g" >"$TMP/cyclon-${n}x$n.$h.json"
        if cmp -s "tests/golden/cyclon/${n}x$n.$h.json" "$TMP/cyclon-${n}x$n.$h.json"; then ok
        else not_ok "Cyclon-${n}N-${n}C --handlers=$h differs from the pairwise engine's report"
            diff "tests/golden/cyclon/${n}x$n.$h.json" "$TMP/cyclon-${n}x$n.$h.json" | head -20
        fi
    done
done
finish
