# bin/cyclon-trace: deterministic for a seed, one file per node, about 16
# events per node per cycle, the shuffle atomicity violation present, and
# spider finds the view data race in Cyclon-10N-10C.
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
finish
