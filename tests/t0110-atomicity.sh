# Atomicity violations (--atomicity, SPEC §4): the bundled example in each
# region mode and with every pattern, against tests/golden/atomicity/
# (tests/golden/atomicity/update rewrites them); the Cyclon shuffle bug on
# the shared trace and on a bin/cyclon-trace trace; bad options.
. tests/lib.sh
d=benchmarks/atomicity/hbase-region
g=tests/golden/atomicity
golden() { # golden NAME ARGS...
    name=$1; shift
    $SPIDER --no-timings "$@" $d >"$TMP/$name" 2>"$TMP/$name.err"
    rc=$?
    [ $rc -eq 1 ] && ok || not_ok "$name: exit $rc, want 1"
    if diff -u "$g/$name" "$TMP/$name" >"$TMP/$name.diff"; then ok
    else not_ok "$name differs from $g/$name"; head -20 "$TMP/$name.diff"; fi
}
golden access.txt --color=never --atomicity
golden access.json -f json --atomicity
golden access.floating.json -f json --atomicity --handlers=floating
golden lock.txt --color=never --atomicity --atomic-region=lock
golden handler.txt --color=never --atomicity --atomic-region=handler
golden all-patterns.txt --color=never --atomicity --atomicity-patterns=all

# atomicity groups as "p|r|c|pattern|variable|count"
atomicity() {
    python3 -c '
import json, sys
for g in json.load(open(sys.argv[1]))["atomicity_violations"]:
    print(*g["locations"], g["pattern"], g["variable"], g["count"], sep="|")
' "$1"
}
has() { # has FILE.json WHAT P R C PATTERN
    if atomicity "$1" | grep -q "^$3|$4|$5|$6|"; then ok; else not_ok "$2: no $6 $3 / $4 / $5"; fi
}
lacks() { # lacks FILE.json WHAT VARIABLE
    if atomicity "$1" | grep -q "|$3|"; then not_ok "$2: $3 reported"; else ok; fi
}
H=hbase.HRegionServer
$SPIDER -f json --atomicity $d >"$TMP/a.json" 2>/dev/null
has "$TMP/a.json" access $H.openRegion.112 hbase.MemStoreFlusher.run.70 $H.openRegion.118 RWW
has "$TMP/a.json" access $H.updateStats.141 hbase.MemStoreFlusher.run.74 $H.updateStats.142 RWW
has "$TMP/a.json" access $H.get.160 hbase.MemStoreFlusher.run.79 $H.get.161 RWW
lacks "$TMP/a.json" "the lock protects flushCount" Region.flushCount
lacks "$TMP/a.json" "fork/join force Region.closed" Region.closed
lacks "$TMP/a.json" "WWW is not a default pattern" Region.location
$SPIDER -f json --atomicity --atomicity-patterns=WWW $d >"$TMP/w.json" 2>/dev/null
has "$TMP/w.json" WWW $H.openRegion.120 hbase.MemStoreFlusher.run.72 $H.openRegion.124 WWW
[ "$(atomicity "$TMP/w.json" | wc -l)" -eq 1 ] && ok || not_ok "WWW alone gives other patterns"
# the text report ranks by gap: readRequests (gap 2) comes last
grep '^  [0-9]*\. ' "$g/access.txt" | tail -n 1 | grep -q 'gap 2' && ok || not_ok "text not ranked by gap"

# the Cyclon shuffle bug: an insert into the view falls between two
# accesses of selectPeersToShuffle to it
S=../shared/traces/spider/cyclon/Cyclon_5N_3R.txt
if [ -f "$S" ]; then
    $SPIDER -f json --atomicity "$S" >"$TMP/c.json" 2>/dev/null
    atomicity "$TMP/c.json" | grep -q '^cyclonlite.CyclonActive.selectPeersToShuffle.249|cyclonlite.CyclonActive.insertReceivedToView.198|cyclonlite.CyclonActive.selectPeersToShuffle.249|' \
        && ok || not_ok "Cyclon_5N_3R: no shuffle atomicity violation"
else
    echo "note: $S is absent, the shared Cyclon trace is not checked"
fi
./bin/cyclon-trace --nodes 10 --cycles 10 -o "$TMP/cy" 2>/dev/null
$SPIDER -f json --atomicity "$TMP/cy" >"$TMP/cy.json" 2>/dev/null
atomicity "$TMP/cy.json" | grep -q '^cyclon.CyclonActive.selectPeersToShuffle.249|cyclon.CyclonActive.insertReceivedToView.198|cyclon.CyclonActive.selectPeersToShuffle.249|RWR|CyclonActive.view|' \
    && ok || not_ok "Cyclon-10N-10C: no shuffle atomicity violation"

# without --atomicity nothing changes: no atomicity key at all
$SPIDER -f json $d >"$TMP/n.json" 2>/dev/null
grep -q atomicity_violations "$TMP/n.json" && not_ok "atomicity reported without --atomicity" || ok
expect_status 2 $SPIDER --atomicity-patterns=RWX $d
grep -q "RWX" "$TMP/err" && ok || not_ok "bad pattern not named"
expect_status 2 $SPIDER --atomic-region=block $d
finish
