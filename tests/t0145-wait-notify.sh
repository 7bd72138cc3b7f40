# A NOTIFY that many WAITs may choose (issue 15, defect 2): "it wakes at
# most one" is a ladder of 3k-4 clauses (Sinz's sequential counter) past
# 5 waits, not k(k-1)/2 pairs (encode.c).  Traces where every NOTIFY has
# 4 to 9 candidate WAITs (locks, accesses before and after) are compared
# with the independent reference (its own pairwise encoding, z3) in both
# handler models and every mode, the default engine with Z3 on every
# candidate, the pruning contract, and the witnesses; then 500 and 3,000
# NOTIFY + WAIT on one condition (62 M and 13.5 G pairwise clauses) run in
# bounded time and memory.  About 10 s.
. tests/lib.sh
command -v z3 >/dev/null || { echo "skip: the z3 command is missing (make deps installs it)"; exit 77; }
python3 - "$TMP" <<'PY'
import json, random, sys
d = sys.argv[1]
for seed in range(12):
    r = random.Random(seed)
    n = r.randint(6, 9); m = r.randint(4, n)
    threads = []
    for i in range(n):
        threads.append([{"thread": "n%d@a" % i, "type": "W", "variable": "x", "loc": "N%d" % (i % 3)},
                        {"thread": "n%d@a" % i, "type": "NOTIFY", "variable": "c", "loc": "NN"},
                        {"thread": "n%d@a" % i, "type": "R", "variable": "y", "loc": "NR"}])
    for i in range(m):
        t = [{"thread": "w%d@a" % i, "type": "W", "variable": "y", "loc": "WY%d" % (i % 2)}]
        locked = r.random() < 0.5
        if locked:
            t.append({"thread": "w%d@a" % i, "type": "LOCK", "variable": "L"})
        t += [{"thread": "w%d@a" % i, "type": "WAIT", "variable": "c", "loc": "WW"},
              {"thread": "w%d@a" % i, "type": "R", "variable": "x", "loc": "WX%d" % (i % 2)}]
        if locked:
            t.append({"thread": "w%d@a" % i, "type": "UNLOCK", "variable": "L"})
        threads.append(t)
    events, at = [], [0] * len(threads)
    while any(at[k] < len(threads[k]) for k in range(len(threads))):
        k = r.choice([k for k in range(len(threads)) if at[k] < len(threads[k])])
        events.append(threads[k][at[k]])
        at[k] += 1
    with open("%s/wn%d.log" % (d, seed), "w") as f:
        f.writelines(json.dumps(e) + "\n" for e in events)
for n in (500, 3000):
    with open("%s/many%d.log" % (d, n), "w") as f:
        for i in range(n):
            f.write(json.dumps({"thread": "n%d@n" % i, "type": "NOTIFY", "variable": "c"}) + "\n")
            f.write(json.dumps({"thread": "w%d@n" % i, "type": "WAIT", "variable": "c"}) + "\n")
PY
set -- "$TMP"/wn*.log
# the ladder is in these models: some NOTIFY has more than 5 waits
$SPIDER -q -f json --no-timings "$TMP/wn0.log" >"$TMP/wn0.json" 2>/dev/null
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["summary"]["constraints"]["wait_notify"]; assert c == 223, c' "$TMP/wn0.json" \
    && ok || not_ok "wn0: not the ladder's 223 wait/notify constraints (7 waits x 9 notifies)"
for extra in "" --atomicity; do
    python3 tests/reference.py compare -j 2 $extra "$@" >"$TMP/ref$extra.out" 2>&1 && ok \
        || { not_ok "spider differs from the reference ($extra)"; grep -v '^ok' "$TMP/ref$extra.out" | head -10; }
    tail -n 1 "$TMP/ref$extra.out"
done
python3 tests/differential.py exact --extra=--atomicity "$@" >"$TMP/exact.out" 2>&1 && ok \
    || { not_ok "the default engine differs from --solver=z3"; grep '^not ok' "$TMP/exact.out" | head -10; }
python3 tests/differential.py prune "$@" >"$TMP/prune.out" 2>&1 && ok \
    || { not_ok "the pruning contract"; grep '^not ok' "$TMP/prune.out" | head -10; }
python3 tests/check_witness.py -j 2 --atomicity "$@" >"$TMP/witness.out" 2>&1 && ok \
    || { not_ok "witnesses"; grep -v '^ok' "$TMP/witness.out" | head -10; }
# 500 and 3,000 NOTIFY + WAIT: in bounded time and memory (8 GB, 120 s of CPU time;
# under the sanitizers, whose shadow memory the limit would not allow,
# 500 only)
sizes="500 3000"; limit=8388608
[ -n "${SANITIZED:-}" ] && { sizes=500; limit=unlimited; }
[ -n "${QUICK:-}" ] && sizes=500
for n in $sizes; do
    set -- $(MEM_KB=$limit measure "$TMP/out" $SPIDER -q "$TMP/many$n.log")
    echo "$n NOTIFY + $n WAIT: exit $1, $2 s, $3 KB"
    [ "$1" -eq 0 ] && ok || not_ok "$n NOTIFY + $n WAIT: exit $1: $(head -c 300 "$TMP/err")"
done
finish
