# A Z3 failure is an error, never a verdict: exit status 2, one line on
# standard error (with Z3's own message where a solver made it), and no
# report — never a race, a non-race or an undecided candidate.  Failures
# are injected with --z3-param (Z3 global parameters):
#   memory_max_size=1                Z3 cannot make a context in 1 MB
#   tactic.default_tactic=nosuch     with --z3-config=default, Z3's default
#                                    solver raises "unknown tactic" on
#                                    every assert and check
. tests/lib.sh

# Whether A.w and B.w race needs Z3 even with the shortcuts and the
# scheduler (auto): T1 holds l1 at A.w and takes l2 after it, T2 holds l2
# at B.w and takes l1 after it, so the two cannot meet (each would wait
# for the other's lock), yet no shortcut says so and no run exists for
# the scheduler to find.  A.w2 and B.r race (the shortcuts say so).
cat >"$TMP/locks.log" <<'EOF'
{"thread":"t1@n","type":"START"}
{"thread":"t1@n","type":"LOCK","variable":"l1"}
{"thread":"t1@n","type":"W","variable":"x","loc":"A.w"}
{"thread":"t1@n","type":"LOCK","variable":"l2"}
{"thread":"t1@n","type":"UNLOCK","variable":"l2"}
{"thread":"t1@n","type":"UNLOCK","variable":"l1"}
{"thread":"t1@n","type":"W","variable":"y","loc":"A.w2"}
{"thread":"t2@n","type":"START"}
{"thread":"t2@n","type":"LOCK","variable":"l2"}
{"thread":"t2@n","type":"W","variable":"x","loc":"B.w"}
{"thread":"t2@n","type":"LOCK","variable":"l1"}
{"thread":"t2@n","type":"UNLOCK","variable":"l1"}
{"thread":"t2@n","type":"UNLOCK","variable":"l2"}
{"thread":"t2@n","type":"R","variable":"y","loc":"B.r"}
EOF
./bin/cyclon-trace --nodes 5 --cycles 10 -o "$TMP/cy" 2>/dev/null

# the error: exit 2, one line "spider: the Z3 solver ..." (the only
# "spider: " line), no report on standard output
solver_error() {
    expect_status 2 "$@"
    if [ -s "$TMP/out" ]; then
        not_ok "a report after a Z3 failure: $*"
    elif [ "$(grep -c '^spider: ' "$TMP/err")" -ne 1 ] || ! grep -q '^spider: the Z3 solver ' "$TMP/err"; then
        not_ok "not one 'spider: the Z3 solver ...' line: $*"; sed 's/^/    /' "$TMP/err" | head -5
    else
        ok
    fi
}

# preconditions: Z3 decides a candidate of locks.log in both modes, and a
# valid parameter changes no verdict
for mode in auto z3; do
    expect_status 1 $SPIDER -f json --no-timings --solver=$mode "$TMP/locks.log"
    cp "$TMP/out" "$TMP/$mode.json"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["decided"]["z3"] >= 1, s["decided"]' "$TMP/out" \
        && ok || not_ok "Z3 decides a candidate of locks.log (--solver=$mode)"
done
expect_status 1 $SPIDER -f json --no-timings --solver=z3 --z3-param=smt.random_seed=7 --z3-param=timeout=60000 "$TMP/locks.log"
cmp -s "$TMP/out" "$TMP/z3.json" && ok || not_ok "a valid --z3-param changes the report"

# no context: every solver fails at its set-up
solver_error $SPIDER -q --solver=z3 --z3-param=memory_max_size=1 "$TMP/locks.log"
solver_error $SPIDER -q -f json --solver=z3 -j4 --z3-param=memory_max_size=1 "$TMP/cy"
solver_error $SPIDER -q --solver=auto --z3-param=memory_max_size=1 "$TMP/locks.log"

# Z3 raises an error while Φ is asserted (the consistency check of
# --solver=z3) ...
solver_error $SPIDER -q --solver=z3 --z3-config=default --z3-param=tactic.default_tactic=nosuch "$TMP/locks.log"
solver_error $SPIDER -q -f json --solver=z3 --z3-config=default -j3 --z3-param=tactic.default_tactic=nosuch "$TMP/cy"
# ... and in the worker pool's queries (auto: the shortcuts proved Φ
# consistent), where it used to become an "undecided" candidate: Z3's
# message is passed on
solver_error $SPIDER -q --solver=auto --z3-config=default --z3-param=tactic.default_tactic=nosuch "$TMP/locks.log"
grep -q 'unknown tactic nosuch' "$TMP/err" && ok || not_ok "Z3's message is in the error: $(cat "$TMP/err")"
# the same parameter leaves the fast set-up (Z3's simple solver) alone
expect_status 1 $SPIDER -f json --no-timings --solver=z3 --z3-param=tactic.default_tactic=nosuch "$TMP/locks.log"
cmp -s "$TMP/out" "$TMP/z3.json" && ok || not_ok "default_tactic changed the fast set-up's report"

# split over ranks (--ranks, threads as ranks): Z3's units are dealt out
# (three nodes of locks.log's pattern: a unit each, one per rank), the
# verdicts are one process's, and a failure on any rank is the run's
for n in 1 2 3; do sed "s/@n\"/@n$n\"/" "$TMP/locks.log"; done >"$TMP/locks3.log"
expect_status 1 $SPIDER -f json --no-timings "$TMP/locks3.log"
cp "$TMP/out" "$TMP/locks3.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["decided"]["z3"] >= 3, s["decided"]' "$TMP/out" \
    && ok || not_ok "Z3 decides three candidates of locks3.log"
expect_status 1 $SPIDER -f json --no-timings --ranks=3 "$TMP/locks3.log"
cmp -s "$TMP/out" "$TMP/locks3.json" && ok || not_ok "--ranks=3: not one process's report"
solver_error $SPIDER -q --ranks=3 --solver=auto --z3-config=default --z3-param=tactic.default_tactic=nosuch "$TMP/locks3.log"
grep -q 'unknown tactic nosuch' "$TMP/err" && ok || not_ok "--ranks: Z3's message is in the error: $(cat "$TMP/err")"
solver_error $SPIDER -q --ranks=2 --solver=z3 --z3-param=memory_max_size=1 "$TMP/locks3.log"

# a bad --z3-param is bad usage
expect_status 2 $SPIDER --z3-param=nosuch=1 "$TMP/locks.log"
grep -q "'nosuch' is not a Z3 parameter" "$TMP/err" && ok || not_ok "unknown Z3 parameter named"
expect_status 2 $SPIDER --z3-param=memory_max_size "$TMP/locks.log"
grep -q "is not NAME=VALUE" "$TMP/err" && ok || not_ok "--z3-param without '='"
expect_status 2 $SPIDER --z3-param=smt.random_seed=soon "$TMP/locks.log"
grep -q "Z3 does not accept smt.random_seed=soon" "$TMP/err" && ok || not_ok "a value Z3 rejects"
finish
