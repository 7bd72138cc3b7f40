# MUVI's miner (--correlation=muvi|both; docs/model.md, "MUVI's access
# rules"): the pairs, their strongest rules, support and confidence of
# --list-correlations against tests/reference_correlations.py (written
# from the definition) on random traces whose accesses lie in a few
# functions (gen-trace --functions), with both miners and with given
# pairs; the multi-variable analysis on MUVI's pairs against the whole
# reference (Φ and z3) on a few small ones; inconsistent updates
# (--inconsistent-updates) against the reference on the same random
# traces and on the bundled example; the options' errors.
. tests/lib.sh
n=$(sized 75 20)
mkdir -p "$TMP/rand"
set --
for s in $(seq 1 "$n"); do
    bin/gen-trace --seed "$s" --nodes $(( s % 3 + 1 )) --steps $(( 40 + s % 60 )) \
        --functions $(( 3 + s % 7 )) --correlated=$(( 20 + s % 50 )) \
        -o "$TMP/rand/f$s" 2>/dev/null
    set -- "$@" "$TMP/rand/f$s"
done
printf '* x0 v1\n* y1 x0\n' >"$TMP/given.pairs"
compare() { # compare MINER [ARGS...]: every trace's list against the reference
    miner=$1; shift
    SPIDER="$SPIDER" python3 - "$miner" "$TMP/given.pairs" "$@" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "tests")
from reference_compare import pair_diffs
from reference_correlations import correlations, parse_correlated
from reference_load import load
from reference_model import Trace
miner, given_file, args = sys.argv[1], sys.argv[2], sys.argv[3:]
given = parse_correlated(given_file) if "--given" in args else []
paths = [a for a in args if a != "--given"]
miners = {"muvi": ("muvi",), "both": ("sun", "muvi")}[miner]
bad = rules = 0
for path in paths:
    ref = correlations(Trace(load([path])), given, 5.0, 3, miners)
    rules += sum(1 for p in ref if "rule" in p)
    cmd = os.environ["SPIDER"].split() + ["-q", "-f", "json", "--list-correlations",
                                          "--correlation=" + miner]
    cmd += ["--correlated=" + given_file] if given else []
    out = subprocess.run(cmd + [path], stdout=subprocess.PIPE, text=True)
    diffs = pair_diffs(ref, json.loads(out.stdout)["correlated_pairs"], path) \
        if out.returncode == 0 else ["%s: exit %d" % (path, out.returncode)]
    for d in diffs[:3]:
        print("not ok:", d)
    bad += bool(diffs)
print("%s: %d of %d traces differ; %d pairs with a rule" % (miner, bad, len(paths), rules))
sys.exit(1 if bad or not rules else 0)
PY
}
compare muvi "$@" && ok || not_ok "MUVI's pairs differ from the reference"
compare both "$@" && ok || not_ok "both miners' pairs differ from the reference"
compare both --given "$@" && ok || not_ok "both miners and given pairs differ from the reference"

# inconsistent updates against the reference, on the same traces
SPIDER="$SPIDER" python3 - "$@" <<'PY' && ok || not_ok "inconsistent updates differ from the reference"
import json, os, subprocess, sys
sys.path.insert(0, "tests")
import reference_correlations
from reference_correlations import inconsistent_updates
from reference_load import load
reference_correlations.MUVI_MIN_CONFIDENCE = 0.5   # violations are rarer at 0.8
from reference_model import Trace
bad = found = 0
for path in sys.argv[1:]:
    ref = inconsistent_updates(Trace(load([path])))
    want = sorted(([w, s], dict(variables=[g["w"].var[1], g["s"].var[1]], node=g["w"].node,
                                count=g["count"], rule=g["rule"],
                                shown=[(g["w"].thread, g["w"].idx), (g["s"].thread, g["s"].idx)]))
                  for (w, s), g in ref.items())
    out = subprocess.run(os.environ["SPIDER"].split() + ["-q", "-f", "json", "--no-timings",
                         "--inconsistent-updates", "--muvi-min-confidence=0.5",
                         "--kind=inconsistent", path],
                         stdout=subprocess.PIPE, text=True)
    got = sorted((g["locations"], dict(variables=g["variables"], node=g["node"], count=g["count"],
                                       rule=(g["rule"]["text"], g["rule"]["support"],
                                             g["rule"]["confidence"]),
                                       shown=[(a["thread"], a["index"])
                                              for a in g["instance"]["accesses"]]))
                 for g in json.loads(out.stdout)["inconsistent_updates"])
    want_status = 1 if want else 0
    found += len(want)
    if got != want or out.returncode != want_status:
        bad += 1
        if bad <= 3:
            print("not ok: %s: spider %s (exit %d), reference %s" % (path, got[:2], out.returncode, want[:2]))
print("inconsistent updates: %d of %d traces differ; %d groups" % (bad, len(sys.argv) - 1, found))
sys.exit(1 if bad or not found else 0)
PY

# the bundled example: the velocity driver's forgotten rx_bytes
python3 benchmarks/inconsistent/generate.py "$TMP/net-stats.log"
cmp -s "$TMP/net-stats.log" benchmarks/inconsistent/net-stats.log && ok \
    || not_ok "benchmarks/inconsistent/generate.py does not write net-stats.log"
expect_status 1 $SPIDER -q --inconsistent-updates benchmarks/inconsistent/net-stats.log
grep -q "^  1. drv.velocity.velocity_receive_frame.1560  vs  drv.rhine.rhine_rx.811" "$TMP/out" \
    && ok || not_ok "the velocity driver's update is not reported: $(head -3 "$TMP/out")"
grep -q "W(x) => W(y) holds for x = net_device_stats.rx_packets, y = net_device_stats.rx_bytes (support 4, confidence 0.80)" \
    "$TMP/out" && ok || not_ok "the rule is not shown"
[ "$(grep -c '^  [0-9]' "$TMP/out")" -eq 1 ] && ok || not_ok "more than one group on the example"
printf 'inconsistent:*velocity*\n' >"$TMP/inc.supp"
expect_status 0 $SPIDER -q --inconsistent-updates --suppressions="$TMP/inc.supp" \
    benchmarks/inconsistent/net-stats.log
expect_status 0 $SPIDER -q --inconsistent-updates --muvi-min-confidence=0.9 \
    benchmarks/inconsistent/net-stats.log
$SPIDER --help | grep -q -- "--inconsistent-updates" && ok || not_ok "--help lacks --inconsistent-updates"

# the multi-variable analysis on MUVI's pairs, every mode, both models
small=""
for s in 1 2 $(sized "3 4" ""); do
    bin/gen-trace --seed "$s" --nodes 2 --steps 70 --functions 3 --correlated=60 \
        --pairs 1 -o "$TMP/small$s" 2>/dev/null
    small="$small $TMP/small$s"
done
# shellcheck disable=SC2086
if SPIDER="$SPIDER" python3 tests/reference.py compare -j 2 --multi-variable \
       --correlation=muvi $small >"$TMP/ref.log" 2>&1; then ok
else not_ok "--multi-variable --correlation=muvi differs from the reference"; tail -5 "$TMP/ref.log"; fi
# shellcheck disable=SC2086
$SPIDER -q -f json --multi-variable --correlation=muvi "$TMP/small2" 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["multi_variable_violations"] else 1)' \
    && ok || not_ok "no multi-variable violation on MUVI's pairs: the comparison is empty"

# the bundled example has one function: no rule there
expect_status 0 $SPIDER --list-correlations --correlation=muvi benchmarks/multivar/mysql-binlog
[ "$(wc -l <"$TMP/out")" -eq 1 ] && ok || not_ok "rules mined from one function"
expect_status 2 $SPIDER --correlation=gap --list-correlations benchmarks/multivar/mysql-binlog
expect_status 2 $SPIDER --muvi-min-confidence=1.5 --list-correlations benchmarks/multivar/mysql-binlog
expect_status 2 $SPIDER --muvi-min-support=0 --list-correlations benchmarks/multivar/mysql-binlog
expect_status 2 $SPIDER --muvi-popular=x --list-correlations benchmarks/multivar/mysql-binlog
$SPIDER --help | grep -q -- "--correlation=sun|muvi|both" && ok || not_ok "--help lacks --correlation"

[ $failures -eq 0 ] || { echo "$failures of $checks checks failed"; exit 1; }
echo "$checks checks passed"
