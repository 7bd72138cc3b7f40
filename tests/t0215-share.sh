# A rank's share of the trace (trace_load_share(), issue 28): each rank
# of a split run holds the events of its own nodes and the other nodes'
# message endpoints that may match them.  bin/check-share loads a trace
# whole and as the shares of N ranks (threads acting as ranks) and
# checks, event by event, that the shares' own events are the whole
# trace's, each once and a node's all on one rank, with the whole
# trace's fields, program order, handlers, matches and wait candidates;
# that every endpoint an own event matches is in the share; that the
# files' warnings are trace_load()'s, in order; and that a load that
# fails fails with trace_load()'s message.
# With --skeleton it also checks Φ of each share (hb_model_build_share()),
# reachability through the skeleton, and the shortcuts' order over a
# share (hb_order_new_share()) against the whole trace's.
. tests/lib.sh
SEEDS=$(sized 100 12)
# under the sanitizers, their build of the check (make san-bins)
CHECK=./bin/check-share
[ -n "${SANITIZED:-}" ] && CHECK=./bin-san/check-share
share() { # NAME ARGS...: bin/check-share ARGS, a check named NAME
    name=$1; shift
    $CHECK "$@" >"$TMP/out" 2>&1 && ok ||
        { not_ok "$name: check-share $*"; grep -v '^rank' "$TMP/out" | head -8; }
}

# the bundled, shared and fixture traces, at 1 to 4 ranks
set -- benchmarks/taxdc/*/ benchmarks/atomicity/*/ benchmarks/multivar/*/ \
    benchmarks/mvrace/*.log benchmarks/inconsistent/*.log benchmarks/learning/apache-log/*.log \
    tests/fixtures/*.log tests/prune/*.log
if [ -d "$SHARED" ]; then
    set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not checked"
fi
model=0
for path in "$@"; do
    model=$((1 - model)); skel=--skeleton; [ $model -eq 0 ] && skel=--skeleton=floating
    for r in 1 2 3 4; do
        share "$path" --ranks=$r --lenient $skel "$path"
    done
done
echo "bundled, shared and fixture traces: $# at 1 to 4 ranks"

# random traces (a file per node; every third with correlated pairs, every
# fourth in timestamp order) at 2 to 4 ranks, as they are, with their
# files reversed and as one file holding every node
seed=1
while [ $seed -le "$SEEDS" ]; do
    corr=""; [ $((seed % 3)) -eq 0 ] && corr="--correlated=40"
    order=""; [ $((seed % 4)) -eq 0 ] && order="--timestamps"
    d=$TMP/g$seed
    # shellcheck disable=SC2086
    ./bin/gen-trace --seed $((3000 + seed)) --nodes $((2 + seed % 4)) --steps $((30 + seed % 90)) \
        $corr -o "$d" 2>/dev/null || not_ok "gen-trace seed $((3000 + seed))"
    r=$((2 + seed % 3))
    skel=--skeleton; [ $((seed % 2)) -eq 0 ] && skel=--skeleton=floating
    # shellcheck disable=SC2086
    share "random trace $seed" --ranks=$r $order $skel "$d"
    if [ $((seed % 5)) -eq 0 ]; then
        cat "$d"/*.log >"$TMP/one$seed.log"
        # shellcheck disable=SC2046 # the file names are the generator's
        share "random trace $seed, reversed" --ranks=$r $(ls -r "$d"/*.log)
        share "random trace $seed, one file" --ranks=$r "$TMP/one$seed.log"
    fi
    seed=$((seed + 1))
done
echo "random traces: $SEEDS"

# lock-heavy traces (wait/notify, sections cut off)
for seed in 1 2 3 4 5 6; do
    ./bin/gen-trace --shape=locks --seed $((7300 + seed)) --events $((150 + seed * 60)) \
        --nodes $((1 + seed % 3)) --threads $((2 + seed % 5)) --locks $((1 + seed % 4)) \
        --cut-sections=$((seed % 4 * 25)) --handoffs=$((seed % 3 * 50)) \
        -o "$TMP/k$seed" 2>/dev/null || not_ok "gen-trace --shape=locks seed $seed"
    skel=--skeleton; [ $((seed % 2)) -eq 0 ] && skel=--skeleton=floating
    share "lock-heavy trace $seed" --ranks=$((2 + seed % 3)) $skel "$TMP/k$seed"
done

# the agent's ZooKeeper trace (three nodes, one file each), a Cyclon run
# of 100 nodes, and Falcon's ZooKeeper files together (TCP byte streams
# between nodes)
mkdir -p "$TMP/zk" && tar xJf tests/fixtures/zookeeper-ops1.tar.xz -C "$TMP/zk"
for r in 2 3 4; do
    share "the agent's ZooKeeper trace" --ranks=$r --skeleton "$TMP/zk/zookeeper"
done
share "the agent's ZooKeeper trace, floating" --ranks=3 --skeleton=floating "$TMP/zk/zookeeper"
./bin/cyclon-trace --nodes 100 --cycles 4 -o "$TMP/cyclon" 2>/dev/null
share "Cyclon, 100 nodes" --ranks=4 --skeleton "$TMP/cyclon"
if [ -d "$SHARED" ]; then
    for r in 2 3; do
        share "Falcon's ZooKeeper files together" --ranks=$r --skeleton \
            "$SHARED"/zookeeper/falcon_tracer.zk*.log
    done
fi

# loading that warns or fails: a file cut off, a bad event (a warning
# under --lenient, else the error), an entry that is no file, a file
# named twice, a path that cannot be read after the files
mkdir -p "$TMP/load/dir/sub"
./bin/gen-trace --seed 3105 --nodes 3 --steps 80 -o "$TMP/load/dir" 2>/dev/null
printf '{"thread":"main@10.0.0.9","type":"R","variable":"x","loc":"cut' >>"$TMP/load/dir/node1.log"
printf '{"thread":"t1@10.0.0.8","type":"NOPE","timestamp":7}\n' >>"$TMP/load/dir/node2.log"
ln -sf /nonexistent "$TMP/load/dir/dangling.log"
for r in 1 2 3; do
    share "a bad event" --ranks=$r "$TMP/load/dir"
    share "a bad event, --lenient" --ranks=$r --lenient "$TMP/load/dir"
    share "a file twice, a path missing" --ranks=$r --lenient "$TMP/load/dir" \
        "$TMP/load/dir/node3.log" "$TMP/load/missing"
done
grep -q "both fail: .*missing: cannot open" "$TMP/out" && ok ||
    not_ok "a path that cannot be read fails the shares"

# under mpirun (bin/check-share-mpi, where MPI is installed): each rank
# checks its own share against the whole trace
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1"
if [ -n "${SANITIZED:-}" ]; then
    echo "note: bin/check-share-mpi is run in the release pass only"
elif command -v mpirun >/dev/null && [ -x bin/check-share-mpi ]; then
    for r in 1 2 3 4; do
        $MPIRUN -np $r bin/check-share-mpi "$TMP/zk/zookeeper" >"$TMP/out" 2>&1 && ok ||
            { not_ok "mpirun -np $r check-share-mpi, ZooKeeper"; tail -5 "$TMP/out"; }
        $MPIRUN -np $r bin/check-share-mpi --lenient "$TMP/g5" "$TMP/load/dir" \
            "$TMP/load/missing" >"$TMP/out" 2>&1 && ok ||
            { not_ok "mpirun -np $r check-share-mpi, a path missing"; tail -5 "$TMP/out"; }
    done
    # the skeleton over MPI: every rank has the one the threads found
    want=$(./bin/check-share --ranks=3 --skeleton "$TMP/zk/zookeeper" | sed -n 's/.*skeleton of \([0-9]*\) sync.*/\1/p' | sort -u)
    got=$($MPIRUN -np 3 bin/check-share-mpi --measure --skeleton "$TMP/zk/zookeeper" 2>&1 |
          sed -n 's/.*skeleton of \([0-9]*\) sync.*/\1/p' | sort | uniq -c | tr -s ' ')
    [ -n "$want" ] && [ "$got" = " 3 $want" ] && ok ||
        not_ok "mpirun -np 3: the skeleton of the ZooKeeper trace is '$got', want 3 x $want"
    [ -d "$SHARED" ] && { $MPIRUN -np 3 bin/check-share-mpi "$SHARED"/zookeeper/falcon_tracer.zk*.log \
        >"$TMP/out" 2>&1 && ok || { not_ok "mpirun -np 3, Falcon's ZooKeeper files"; tail -5 "$TMP/out"; }; }
else
    echo "note: no mpirun or bin/check-share-mpi: shares under MPI are not checked"
fi

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
