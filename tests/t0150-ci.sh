# spider in CI: SARIF (validated by the SARIF Multitool), --baseline,
# --suppressions, the filters and the totals line, and the CI recipe of
# README.md end to end on tests/ci/ (before/: one race, after/: one more).
. tests/lib.sh
CI=tests/ci
MULTITOOL=.deps/node_modules/.bin/sarif-multitool
SHARED_TRACE=$SHARED/cyclon/trace_10iter_10peer.log
has_multivar=0
$SPIDER --help | grep -q -- '--multi-variable' && has_multivar=1

# ---- SARIF --------------------------------------------------------------
# every bundled trace, the CI traces and (when present) the shared Cyclon
# trace; each with its JSON report, to compare
n=0
sarif_of() { # sarif_of NAME ARGS... : $TMP/sarif/NAME.sarif and .json
    mkdir -p "$TMP/sarif"
    $SPIDER --no-timings -f sarif "$@" >"$TMP/sarif/$name.sarif" 2>/dev/null
    s1=$?
    $SPIDER --no-timings -f json "$@" >"$TMP/sarif/$name.json" 2>/dev/null
    s2=$?
    [ $s1 -eq $s2 ] && [ $s1 -le 1 ] && ok || not_ok "$name: sarif exit $s1, json exit $s2"
    n=$((n + 1))
}
for d in benchmarks/taxdc/*/; do name=$(basename "$d"); sarif_of "$d"; done
name=atomicity; sarif_of --atomicity benchmarks/atomicity/hbase-region
if [ $has_multivar = 1 ]; then
    name=multivar; sarif_of --multi-variable benchmarks/multivar/mysql-binlog
fi
if $SPIDER --help | grep -q -- '--invariants'; then # marks of passing runs
    $SPIDER --learn="$TMP/learnt.inv" benchmarks/learning/apache-log/passing/*.log >/dev/null
    name=learning; sarif_of --atomicity --multi-variable --invariants="$TMP/learnt.inv" \
        benchmarks/learning/apache-log/failing.log
fi
if $SPIDER --help | grep -q -- '--inconsistent-updates'; then
    name=inconsistent; sarif_of --inconsistent-updates benchmarks/inconsistent/net-stats.log
fi
if $SPIDER --help | grep -q -- '--multi-variable-races'; then
    name=mvrace; sarif_of --multi-variable-races --witness benchmarks/mvrace/property-cache.log
fi
name=ci-after; sarif_of --source-root=$CI/src $CI/after
if [ -e "$SHARED_TRACE" ]; then
    name=trace_10iter_10peer; sarif_of "$SHARED_TRACE"
else
    echo "note: $SHARED_TRACE absent: its SARIF is not validated"
fi

# the SARIF says what the JSON report says: a rule per kind that ran, a
# result per group, fingerprints unique; locations as spider names them
for f in "$TMP"/sarif/*.sarif; do
    python3 - "$f" "${f%.sarif}.json" <<'PY' && ok || not_ok "SARIF content of $f"
import json, sys
s = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
assert s["version"] == "2.1.0" and len(s["runs"]) == 1
run = s["runs"][0]
assert run["tool"]["driver"]["name"] == "spider"
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
kinds = [k for k in j if isinstance(j[k], list) and k != "undecided"]
assert rules == [k.replace("_", "-") for k in kinds], (rules, kinds)
groups = [(k.replace("_", "-"), g) for k in kinds for g in j[k]]
res = run["results"]
assert len(res) == len(groups), (len(res), len(groups))
fps = set()
for (rule, g), r in zip(groups, res):
    assert r["ruleId"] == rule and rules[r["ruleIndex"]] == rule
    assert r["kind"] == "fail"
    assert len(r["locations"]) == len(g["locations"])
    for loc, l in zip(g["locations"], r["locations"]):
        fq = l["logicalLocations"][0]["fullyQualifiedName"]
        assert loc == fq or loc.startswith(fq + "."), (loc, fq)
        assert l["physicalLocation"]["region"]["startLine"] >= 1
    ev = g["instance"].get("accesses") or g["instance"]["sends"] + g["instance"]["receives"]
    rel = [(x["physicalLocation"]["artifactLocation"]["uri"],
            x["physicalLocation"]["region"]["startLine"]) for x in r["relatedLocations"]]
    assert [l for _, l in rel] == [e["line"] for e in ev], (rel, ev)
    assert all(u.endswith(e["file"].split("/")[-1]) for (u, _), e in zip(rel, ev))
    fps.add(r["partialFingerprints"]["spiderGroup/v1"])
assert len(fps) == len(res), "fingerprints are not unique"
PY
done
echo "SARIF of $n runs"

# fingerprints are stable across runs (-j1 and -j2, another directory)
$SPIDER -j1 -f sarif $CI/after >"$TMP/fp1.sarif"
(cd $CI && ../../$SPIDER -j2 -f sarif after) >"$TMP/fp2.sarif" 2>/dev/null ||
    $SPIDER -j2 -f sarif $CI/after >"$TMP/fp2.sarif"
fp() { python3 -c 'import json,sys
print(sorted(r["partialFingerprints"]["spiderGroup/v1"] for r in json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$1"; }
[ "$(fp "$TMP/fp1.sarif")" = "$(fp "$TMP/fp2.sarif")" ] && ok || not_ok "fingerprints differ between runs"

# --source-root: a.b.C.m.12 -> a/b/C.java line 12 where that file exists
python3 - "$TMP/sarif/ci-after.sarif" <<'PY' && ok || not_ok "--source-root physical locations"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/tests/ci/src/")
phys = sorted((l["physicalLocation"]["artifactLocation"]["uri"],
               l["physicalLocation"]["artifactLocation"]["uriBaseId"],
               l["physicalLocation"]["region"]["startLine"])
              for r in run["results"] for l in r["locations"])
assert phys == [("demo/Store.java", "SRCROOT", n) for n in (21, 34, 36, 48)], phys
PY

# an interrupted run: executionSuccessful false, undecided groups as "open"
./bin/cyclon-trace --nodes 10 --cycles 60 -o "$TMP/cy" >/dev/null 2>&1
mkdir -p "$TMP/extra"
$SPIDER -f sarif --solver=z3 -j2 "$TMP/cy" >"$TMP/extra/interrupted.sarif" 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
python3 - "$TMP/extra/interrupted.sarif" $rc <<'PY' && ok || not_ok "SARIF of an interrupted run"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]; rc = int(sys.argv[2])
ok = run["invocations"][0]["executionSuccessful"]
kinds = {r["kind"] for r in run["results"]}
if rc == 3:
    assert not ok and kinds <= {"fail", "open"}
    assert all(r["level"] == "none" for r in run["results"] if r["kind"] == "open")
else:  # the machine finished first
    assert rc == 1 and ok and kinds == {"fail"}
print("interrupted SARIF: exit", rc, sorted(kinds))
PY

expect_status 2 $SPIDER -f sarif --source-root="$TMP/no-such-dir" $CI/after
grep -q "spider: --source-root: $TMP/no-such-dir is not a directory" "$TMP/err" && ok || not_ok "bad --source-root named"

# the SARIF Multitool's validator: zero errors on every file (in the
# release pass: the sanitized build writes the same bytes, and the
# validator is a .NET program's time, not spider's)
if [ -x "$MULTITOOL" ] && [ -z "${SANITIZED:-}" ]; then
    rm -f "$TMP/validation.sarif"
    $MULTITOOL validate "$TMP"/sarif/*.sarif "$TMP/extra/interrupted.sarif" -o "$TMP/validation.sarif" \
        >"$TMP/validate.log" 2>&1
    python3 - "$TMP/validation.sarif" $n <<'PY' && ok || { not_ok "SARIF Multitool: errors"; cat "$TMP/validate.log" | head -20; }
import json, sys
d = json.load(open(sys.argv[1]))
res = [r for run in d["runs"] for r in run.get("results", [])]
errors = [r for r in res if r.get("level", "warning") == "error"]
for r in errors:
    print(r["ruleId"], r["message"].get("text") or r["message"].get("arguments"))
print(f"SARIF Multitool: {len(errors)} errors, {len(res) - len(errors)} warnings")
assert not errors
PY
    grep -h 'files scanned' "$TMP/validate.log"
    # the validator does see errors: a result without a message
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["runs"][0]["results"][0]["message"]
json.dump(d, open(sys.argv[2], "w"))' "$TMP/sarif/ci-after.sarif" "$TMP/broken.sarif"
    rm -f "$TMP/broken-validation.sarif"
    $MULTITOOL validate "$TMP/broken.sarif" -o "$TMP/broken-validation.sarif" >/dev/null 2>&1
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert any(r.get("level") == "error" for run in d["runs"] for r in run.get("results", []))
' "$TMP/broken-validation.sarif" && ok || not_ok "the validator found no error in a broken SARIF"
elif [ -n "${QUICK:-}" ]; then # make test installs nothing
    echo "note: QUICK: SARIF not validated: $MULTITOOL is missing (make deps installs it)"
else
    not_ok "$MULTITOOL is missing: run 'make deps' (installs it with npm into .deps/)"
fi

# ---- the CI recipe (README.md), end to end -------------------------------
# 1. on the main branch: the report of record
expect_status 1 $SPIDER -f json $CI/before
cp "$TMP/out" "$TMP/baseline.json"
# 2. on a change that adds a race: exit 1, and only the new group is new
expect_status 1 $SPIDER --baseline="$TMP/baseline.json" -f sarif $CI/after
python3 - "$TMP/out" <<'PY' && ok || not_ok "SARIF baselineState: one new result, the added race"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
states = sorted((r["baselineState"], r["message"]["text"]) for r in res)
assert [s for s, _ in states] == ["new", "unchanged"], states
assert "demo.Store$Cache.evict.48" in states[0][1]
PY
expect_status 1 $SPIDER --baseline="$TMP/baseline.json" --no-timings --color=never $CI/after
[ "$(grep -c '\[new\]' "$TMP/out")" = 1 ] && grep -q 'demo.Store\$Cache.evict.48 .*\[new\]' "$TMP/out" && ok || not_ok "text: the new group marked [new]"
grep -q 'demo.Store.get.34  vs  demo.Store.put.21 .*\[known\]' "$TMP/out" && ok || not_ok "text: the old group marked [known]"
head -n 1 "$TMP/out" | grep -qx '2 data races, 0 message races, 0 handler races in 2 groups (1 new, 1 known); 0 undecided' && ok || not_ok "totals line with the baseline: $(head -n 1 "$TMP/out")"
expect_status 1 $SPIDER --baseline="$TMP/baseline.json" -f json $CI/after
python3 - "$TMP/out" <<'PY' && ok || not_ok "JSON: baseline per group and in selection"
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(g["baseline"] for g in d["data_races"]) == ["known", "new"]
assert d["selection"]["baseline"]["new"] == 1 and d["selection"]["baseline"]["known"] == 1
PY
# 3. the same run on the main branch again: nothing new, exit 0
expect_status 0 $SPIDER --baseline="$TMP/baseline.json" $CI/before
# 4. a suppression silences the new race: exit 0, and says what it did
printf '# reviewed: the cache is rebuilt on a miss\ndata:demo.Store$Cache.*\nnode:10.9.9.9\n' >"$TMP/ci.supp"
expect_status 0 $SPIDER --baseline="$TMP/baseline.json" --suppressions="$TMP/ci.supp" --no-timings $CI/after
grep -q 'line 2 .*data:demo.Store\$Cache.\* .*1 group$' "$TMP/out" && ok || not_ok "suppression counted"
grep -q 'line 3 .*node:10.9.9.9 .*matched nothing' "$TMP/out" && ok || not_ok "unused suppression listed"
head -n 1 "$TMP/out" | grep -q '1 data race, .* in 1 group (0 new, 1 known); 0 undecided; 1 suppressed' && ok || not_ok "totals line with a suppression"

# ---- --baseline errors: exit 2 with a message --------------------------
expect_status 2 $SPIDER --baseline="$TMP/none.json" $CI/after
grep -q "spider: --baseline: $TMP/none.json: cannot read" "$TMP/err" && ok || not_ok "missing baseline named"
echo '{"summary": ' >"$TMP/bad.json"
expect_status 2 $SPIDER --baseline="$TMP/bad.json" $CI/after
grep -q "bad.json: the baseline is not JSON" "$TMP/err" && ok || not_ok "bad baseline: not JSON"
sed 's/"format_version":.*"1\.[0-9]*"/"format_version": "2.0"/' "$TMP/baseline.json" >"$TMP/v2.json"
expect_status 2 $SPIDER --baseline="$TMP/v2.json" $CI/after
grep -q "v2.json: the baseline's report format is 2.0" "$TMP/err" && ok || not_ok "baseline of another format version"
grep -v '"format_version"' "$TMP/baseline.json" >"$TMP/old.json"
expect_status 2 $SPIDER --baseline="$TMP/old.json" $CI/after
grep -q "old.json: the baseline's report format is older" "$TMP/err" && ok || not_ok "baseline of an older spider"
echo '[1, 2]' >"$TMP/array.json"
expect_status 2 $SPIDER --baseline="$TMP/array.json" $CI/after
grep -q "not a spider JSON report" "$TMP/err" && ok || not_ok "baseline that is not a report"

# ---- suppressions ---------------------------------------------------------
M=benchmarks/taxdc/m3274
cat >"$TMP/all.supp" <<'S'
# every keyword; counted on the first line that matches (as TSan)
message:*AppMaster.preempt*
handler_races:taxdc.m3274.NodeManager.onKill.*
variable:NodeManager.*
data:nothing.matches.this
S
expect_status 0 $SPIDER --suppressions="$TMP/all.supp" -f json $M
python3 - "$TMP/out" <<'PY' && ok || not_ok "suppressions in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["message_races"] == [] and d["handler_races"] == []
rules = [(r["line"], r["groups"]) for r in d["selection"]["suppressions"]["rules"]]
assert rules == [(2, 1), (3, 1), (4, 0), (5, 0)], rules
assert d["selection"]["suppressed"] == {"message_races": 1, "handler_races": 1}
assert d["summary"]["instances"]["message"] == 1  # decided as before
PY
printf 'variable:NodeManager.*\n' >"$TMP/var.supp"
expect_status 1 $SPIDER --suppressions="$TMP/var.supp" -q $M
grep -q 'Handler races' "$TMP/out" && not_ok "variable: suppresses the handler race" || ok
printf 'data:x\n\nbogus:foo\n' >"$TMP/bad.supp"
expect_status 2 $SPIDER --suppressions="$TMP/bad.supp" $M
grep -q "spider: --suppressions: $TMP/bad.supp:3: 'bogus:foo' is not KIND:PATTERN" "$TMP/err" && ok || not_ok "bad suppression line named: $(cat "$TMP/err")"
printf 'data:\n' >"$TMP/empty.supp"
expect_status 2 $SPIDER --suppressions="$TMP/empty.supp" $M
grep -q "empty.supp:1: 'data:' has no pattern" "$TMP/err" && ok || not_ok "empty pattern named"
expect_status 2 $SPIDER --suppressions="$TMP/missing.supp" $M
if [ $has_multivar = 1 ]; then # the kind key's stem is a keyword too
    printf 'multi-variable:mysql.Table.delete_rows.*\n' >"$TMP/mv.supp"
    $SPIDER --multi-variable --suppressions="$TMP/mv.supp" -f json benchmarks/multivar/mysql-binlog >"$TMP/mv.json"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = d["selection"]["suppressions"]["rules"][0]["groups"]
assert n > 0 and d["selection"]["suppressed"]["multi_variable_violations"] == n
assert all("mysql.Table.delete_rows" not in g["locations"][0] for g in d["multi_variable_violations"])
' "$TMP/mv.json" && ok || not_ok "multi-variable: suppressions"
    # a kind added to the analysis table gets its names without an edit
    # here: --kind, the totals line, the SARIF rule
    $SPIDER --multi-variable --no-timings -f json benchmarks/multivar/mysql-binlog >"$TMP/mv-all.json"
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["multi_variable_violations"]))' "$TMP/mv-all.json")
    $SPIDER --multi-variable --kind=multi-variable --no-timings benchmarks/multivar/mysql-binlog >"$TMP/mv.txt"
    [ "$n" -gt 0 ] && head -n 1 "$TMP/mv.txt" | grep -qx "$n multi-variable atomicity violations\? in $n groups\?; 0 undecided" &&
        ok || not_ok "multi-variable: --kind and the totals line: $(head -n 1 "$TMP/mv.txt")"
    grep -q '"id":[[:space:]]*"multi-variable-violations"' "$TMP/sarif/multivar.sarif" && ok || not_ok "multi-variable: SARIF rule"
fi

# ---- filters, totals, --limit -------------------------------------------
T=${SHARED_TRACE}
[ -e "$T" ] || T=benchmarks/taxdc/m5358
$SPIDER --no-timings -f json "$T" >"$TMP/all.json" 2>/dev/null
$SPIDER --no-timings --color=never "$T" >"$TMP/all.txt" 2>/dev/null
want=$(python3 - "$TMP/all.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = [len(d[k]) for k in ("data_races", "message_races", "handler_races")]
def noun(c, s): return f"{c} {s}" + ("" if c == 1 else "s")
u = d["summary"]["undecided"]
print(", ".join(noun(c, s) for c, s in zip(n, ("data race", "message race", "handler race")))
      + f" in {sum(n)} group" + ("" if sum(n) == 1 else "s") + f"; {u} undecided")
PY
)
[ "$(head -n 1 "$TMP/all.txt")" = "$want" ] && ok || not_ok "totals line: '$(head -n 1 "$TMP/all.txt")', want '$want'"
echo "totals: $want"
# --kind: only those kinds, in every format; the decisions are the same
expect_status 1 $SPIDER --no-timings --kind=message -f json "$T"
python3 - "$TMP/out" "$TMP/all.json" <<'PY' && ok || not_ok "--kind=message"
import json, sys
d = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
assert d["message_races"] == a["message_races"] and d["data_races"] == [] and d["handler_races"] == []
assert d["summary"] == a["summary"]
assert d["selection"]["hidden"].get("data_races", 0) == len(a["data_races"])
PY
expect_status 1 $SPIDER --no-timings --color=never --kind=message_races,handler "$T"
grep -q '^Data races' "$TMP/out" && not_ok "--kind: Data races shown" || ok
head -n 1 "$TMP/out" | grep -q '^[0-9]* message races\?, [0-9]* handler races\? in' && ok || not_ok "--kind: totals line of the kinds shown"
expect_status 2 $SPIDER --kind=data,bogus "$T"
grep -q "spider: --kind: 'bogus' is not a kind of race (one of: data, message, handler, atomicity" "$TMP/err" && ok || not_ok "--kind: bad kind named"
# --node and --match
expect_status 1 $SPIDER --no-timings -f json --node=10.0.0.1 --match='*NodeManager*' $M
python3 - "$TMP/out" <<'PY' && ok || not_ok "--node, --match"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["message_races"] == [] and len(d["handler_races"]) == 1
PY
expect_status 0 $SPIDER --node='10.0.0.9' $M
expect_status 1 $SPIDER -f json --match='NodeManager.container' $M
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["handler_races"]) == 1 and d["message_races"] == []' "$TMP/out" && ok || not_ok "--match on a variable"
# --limit: N groups per kind, the rest counted
expect_status 1 $SPIDER --no-timings --color=never --limit=1 "$T"
python3 - "$TMP/out" "$TMP/all.json" <<'PY' && ok || not_ok "--limit=1"
import json, re, sys
out = open(sys.argv[1]).read(); a = json.load(open(sys.argv[2]))
more = [int(m) for m in re.findall(r"\u2026 and (\d+) more \(--limit=1\)", out)]
want = [len(a[k]) - 1 for k in ("data_races", "message_races", "handler_races") if len(a[k]) > 1]
assert more == want, (more, want)
assert not re.search(r"^  2\. ", out, re.M)
PY
expect_status 2 $SPIDER --limit=0 "$T"

# ---- --emit-smt2=- with a machine format is refused ---------------------
expect_status 2 $SPIDER -f json --emit-smt2=- $M
grep -q "spider: --emit-smt2=- would mix SMT-LIB2 into the JSON report" "$TMP/err" && ok || not_ok "json + --emit-smt2=- refused"
[ -s "$TMP/out" ] && not_ok "refused, yet wrote to stdout" || ok
expect_status 2 $SPIDER -f sarif --emit-smt2=- $M
expect_status 1 $SPIDER -f json --emit-smt2="$TMP/phi.smt2" $M
finish
