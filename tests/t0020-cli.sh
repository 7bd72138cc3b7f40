# The command line: options, exit statuses, error messages, --emit-smt2.
. tests/lib.sh
T=benchmarks/taxdc

expect_status 0 $SPIDER --help
grep -q -- '--handlers=nested|floating' "$TMP/out" && ok || not_ok "--help lists --handlers"
expect_status 0 $SPIDER --version
grep -q '^spider [0-9]' "$TMP/out" && ok || not_ok "--version prints the version"

expect_status 2 $SPIDER
grep -q 'no trace given' "$TMP/err" && ok || not_ok "no trace: says so"
expect_status 2 $SPIDER --format=xml $T/h5780
grep -q "'xml' is not one of" "$TMP/err" && ok || not_ok "bad --format named"
expect_status 2 $SPIDER --jobs=0 $T/h5780
expect_status 2 $SPIDER --eager-locks=4000000000 $T/h5780
grep -q "'4000000000' is not a number from 0 to 1000000000" "$TMP/err" && ok ||
    not_ok "a count out of range: the range named"
expect_status 2 $SPIDER --bogus $T/h5780
expect_status 2 $SPIDER $TMP/missing.log
grep -q "missing.log: cannot open" "$TMP/err" && ok || not_ok "missing file named"

printf '{"thread":"a@n","type":"START"}\n{"thread":"a@n","type":"JUMP"}\n' >"$TMP/bad.log"
expect_status 2 $SPIDER "$TMP/bad.log"
grep -q 'bad.log:2:1: unknown event type "JUMP"' "$TMP/err" && ok || not_ok "bad event: file:line:col"
expect_status 0 $SPIDER --lenient "$TMP/bad.log"
grep -q 'warning: .*bad.log:2:1: unknown event type' "$TMP/err" && ok || not_ok "--lenient warns"

# no race: exit 0; races: exit 1
printf '{"thread":"a@n","type":"W","variable":"x"}\n{"thread":"a@n","type":"R","variable":"x"}\n' >"$TMP/none.log"
expect_status 0 $SPIDER "$TMP/none.log"
expect_status 1 $SPIDER $T/example1
expect_status 1 $SPIDER -q $T/example1
grep -q 'events' "$TMP/out" && not_ok "-q prints no header" || ok
grep -q 'demos.Example1.main.7  vs  demos.Example1.run.12' "$TMP/out" && ok || not_ok "-q lists the races"

# JSON is valid and carries the keys of SPEC §6
expect_status 1 $SPIDER -f json $T/m3274
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["events"] == 25 and 0 < d["summary"]["events_analyzed"] < 25
for k in ("data_races", "message_races", "handler_races"):
    assert isinstance(d[k], list)
g = d["handler_races"][0]
assert g["locations"] == sorted(g["locations"]) and g["count"] == 1
assert g["variable"] == "NodeManager.container" and g["node"] == "10.0.0.1"
assert "timings" in d
' "$TMP/out" && ok || not_ok "JSON keys"

# --emit-smt2: z3 answers sat on the model of an observed run
for d in $T/*/ ../shared/traces/spider/cyclon/Cyclon_5N_3R.txt; do
    [ -e "$d" ] || continue
    for h in nested floating; do
        expect_status 1 $SPIDER -q --handlers=$h --emit-smt2 "$TMP/phi.smt2" "$d"
        grep -q '(set-logic QF_IDL)' "$TMP/phi.smt2" && ok || not_ok "QF_IDL logic"
        [ "$(z3 -smt2 "$TMP/phi.smt2")" = sat ] && ok || not_ok "z3 says sat on $d ($h)"
    done
done

# an inconsistent trace: a receive before its own send in one thread
printf '%s\n' '{"thread":"a@n","type":"RCV","message":1}' \
    '{"thread":"a@n","type":"SND","message":1}' >"$TMP/cycle.log"
expect_status 2 $SPIDER "$TMP/cycle.log"
grep -q 'inconsistent trace' "$TMP/err" && ok || not_ok "inconsistent trace named"
finish
