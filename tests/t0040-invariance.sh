# On many random traces from tests/gen_trace.c (simulated runs), in both
# handler models: -j1 and -j2 give identical reports; one file per node and
# one merged file give identical race groups; Z3's default set-up agrees
# with the fast one; and on a sample, the Z3 API agrees with the z3
# command run on --emit-smt2 output plus the query (bin/check-smt2).
. tests/lib.sh
SEEDS=${SEEDS:-60}
seed=1
while [ $seed -le "$SEEDS" ]; do
    nodes=$((2 + seed % 3))
    ./bin/gen-trace --seed $seed --nodes $nodes --steps $((40 + seed % 50)) -o "$TMP/d$seed"
    ./bin/gen-trace --seed $seed --nodes $nodes --steps $((40 + seed % 50)) --merged "$TMP/m$seed.log"
    for h in nested floating; do
        base="$TMP/r$seed-$h"
        $SPIDER -f json --no-timings --handlers=$h -j1 "$TMP/d$seed" >"$base.j1.json" 2>/dev/null
        rc=$?
        [ $rc -le 1 ] && ok || not_ok "seed $seed $h: exit $rc"
        $SPIDER -f json --no-timings --handlers=$h -j2 "$TMP/d$seed" >"$base.j2.json" 2>/dev/null
        cmp -s "$base.j1.json" "$base.j2.json" && ok || not_ok "seed $seed $h: -j1 and -j2 differ"
        $SPIDER -f json --no-timings --handlers=$h "$TMP/m$seed.log" >"$base.m.json" 2>/dev/null
        groups "$base.j1.json" >"$base.j1.groups"
        groups "$base.m.json" >"$base.m.groups"
        if cmp -s "$base.j1.groups" "$base.m.groups"; then ok
        else not_ok "seed $seed $h: per-node files and merged file differ"; diff "$base.j1.groups" "$base.m.groups" | head -5; fi
        if [ $((seed % 3)) -eq 0 ]; then
            $SPIDER -f json --no-timings --handlers=$h --z3-config=default "$TMP/d$seed" >"$base.z3d.json" 2>/dev/null
            cmp -s "$base.j1.json" "$base.z3d.json" && ok || not_ok "seed $seed $h: --z3-config=default differs"
        fi
        if [ $((seed % 4)) -eq 0 ]; then
            flag=; [ $h = floating ] && flag=--floating
            ./bin/check-smt2 $flag --queries 25 --seed $seed "$TMP/d$seed" >"$base.smt2.out" 2>&1 \
                && ok || { not_ok "seed $seed $h: solver set-ups disagree"; head -5 "$base.smt2.out"; }
        fi
    done
    seed=$((seed + 1))
done
# the races found are not all trivial: some traces must have each kind
cat "$TMP"/*.j1.groups | cut -d'|' -f1 | sort | uniq -c
for k in data_races message_races handler_races; do
    cat "$TMP"/*.j1.groups | grep -q "^$k|" && ok || not_ok "no random trace had $k"
done
finish
