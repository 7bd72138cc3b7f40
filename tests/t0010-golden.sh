# Each bundled trace (benchmarks/taxdc/), text and JSON, both handler
# models, against the checked-in expected output (tests/golden/update
# rewrites them).  Also checks the races the thesis names (§5.2, Table 2).
. tests/lib.sh
for d in benchmarks/taxdc/*/; do
    n=$(basename "$d")
    for mode in txt json floating.json; do
        case $mode in
            txt) set -- --color=never ;;
            json) set -- -f json ;;
            floating.json) set -- -f json --handlers=floating ;;
        esac
        $SPIDER --no-timings "$@" "$d" >"$TMP/$n.$mode" 2>"$TMP/$n.err"
        rc=$?
        if [ $rc -ne 1 ]; then not_ok "$n $mode: exit $rc, want 1 (races)"; fi
        if diff -u "tests/golden/$n.$mode" "$TMP/$n.$mode" >"$TMP/$n.diff"; then ok
        else not_ok "$n $mode differs from tests/golden/$n.$mode"; head -30 "$TMP/$n.diff"; fi
    done
done

# The racing instructions the thesis names, by kind of race.
has() { # has NAME KIND LOC1 LOC2
    if groups "tests/golden/$1.json" | grep -q "^$2|$3|$4|"; then ok
    else not_ok "$1: no $2 group $3 / $4"; fi
}
has example1 data_races demos.Example1.main.7 demos.Example1.run.12
has example1 data_races demos.Example1.main.8 demos.Example1.run.12
has h5780 data_races 'taxdc.h5780.RegionServer$ZKConnector.run.84' taxdc.h5780.RegionServer.askToJoin.56
has m3274 handler_races taxdc.m3274.NodeManager.onContainer.60 taxdc.m3274.NodeManager.onKill.65
has m3274 message_races taxdc.m3274.AppMaster.preempt.48 taxdc.m3274.ResourceManager.schedule.48
has m5358 handler_races taxdc.m5358.AppMaster.onSuccess.92 taxdc.m5358.AppMaster.onSuccess.97
has m4157 data_races 'taxdc.m4157.AppMaster$Cleaner.run.86' taxdc.m4157.AppMaster.onKill.70
has m4157 data_races 'taxdc.m4157.AppMaster$Cleaner.run.92' taxdc.m4157.AppMaster.onKill.70
has m5009 handler_races taxdc.m5009.AppMaster.onCommit.55 taxdc.m5009.AppMaster.onCommit.56
finish
