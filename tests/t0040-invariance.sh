# On random traces from tests/gen_trace.c (simulated runs), in both handler
# models: -j1 and -j2 give byte-identical reports, and one file per node
# and one merged file give identical race groups (differential.py); on a
# sample, the Z3 API agrees with Z3's default set-up and with the z3
# command run on --emit-smt2 output plus the query, and the exact
# shortcuts agree with them wherever they answer, on queries of every
# shape (bin/check-smt2).
. tests/lib.sh
SEEDS=${SEEDS:-$(sized 60 8)}
set --
seed=1
while [ $seed -le "$SEEDS" ]; do
    mkdir -p "$TMP/s$seed"
    args="--seed $seed --nodes $((2 + seed % 3)) --steps $((40 + seed % 50))"
    ./bin/gen-trace $args -o "$TMP/s$seed/d"
    ./bin/gen-trace $args --merged "$TMP/s$seed/m.log"
    set -- "$@" "$TMP/s$seed"
    if [ $((seed % 4)) -eq 0 ]; then
        for flag in "" --floating; do
            ./bin/check-smt2 $flag --queries 150 --seed $seed "$TMP/s$seed/d" >"$TMP/smt2.out" 2>&1 \
                && ok || { not_ok "seed $seed $flag: solver set-ups disagree"; head -5 "$TMP/smt2.out"; }
        done
    fi
    seed=$((seed + 1))
done
# the shortcuts on a node of many chains swept in batches of 64 (events
# outside the swept batch): 100 Cyclon nodes, both handler models
# (1,500 queries each; 300 under QUICK)
./bin/cyclon-trace --nodes 100 --cycles 2 -o "$TMP/cy" 2>/dev/null
for flag in "" --floating; do
    ./bin/check-smt2 $flag --queries "$(sized 1500 300)" --seed 7 "$TMP/cy" >"$TMP/smt2.out" 2>&1 \
        && ok || { not_ok "cyclon $flag: shortcuts or solver set-ups disagree"; head -5 "$TMP/smt2.out"; }
done
# the report of a trace of several batches (100 Cyclon nodes of 2 threads:
# batches hold up to 128 chains, so 2 batches nested and more floating,
# where handlers are chains) is the same byte for byte with the files
# reversed (nodes numbered, hence batched, the other way) and -j2 as in
# order with -j1, for every kind that skips or counts batch by batch
# (differential.py's traces fit in one batch)
./bin/cyclon-trace --nodes 100 --cycles 3 --seed 4 --correlated -o "$TMP/mb" 2>/dev/null
for h in nested floating; do
    for m in "" --atomicity --multi-variable --multi-variable-races \
             "--atomicity --multi-variable --multi-variable-races --all-instances"; do
        # shellcheck disable=SC2086 # $m: several options or none
        $SPIDER -q -f json --no-timings --handlers=$h -j1 $m "$TMP/mb" >"$TMP/mb.fwd" 2>/dev/null
        # shellcheck disable=SC2086
        $SPIDER -q -f json --no-timings --handlers=$h -j2 $m $(ls "$TMP"/mb/* | sort -r) \
            >"$TMP/mb.rev" 2>/dev/null
        [ -s "$TMP/mb.fwd" ] && cmp -s "$TMP/mb.fwd" "$TMP/mb.rev" && ok \
            || not_ok "100 Cyclon nodes ($h${m:+, $m}): reversed files and -j2 change the report"
    done
done
python3 tests/differential.py invariance "$@" || not_ok "differential checks (above)"
# the random traces exercise every kind of race
for s in "$TMP"/s*/; do ./bin/spider -q -f json "$s/d"; done 2>/dev/null >"$TMP/all.json"
for k in data_races message_races handler_races; do
    grep -q "\"$k\":	\[{" "$TMP/all.json" && ok || not_ok "no random trace had $k"
done
finish
