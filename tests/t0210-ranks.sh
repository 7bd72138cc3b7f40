# The analysis split over ranks (issue 28; engine_ranks.h) reports byte
# for byte what one process does: stdout and exit status, in text, JSON
# and SARIF, in both handler models, by default and with --atomicity
# --multi-variable --multi-variable-races, --all-instances and
# --solver=z3 (tests/ranks_compare.py).  The split is --ranks=N of
# bin/spider (ranks as threads) and, where MPI is installed, mpirun -np N
# bin/spider-mpi.  With --batch-chains=1 every node is a batch of its
# own, so that even a small trace is dealt out over the ranks; a Cyclon
# run of 100 nodes has several batches at the default width too.
# Directories run as they are, with their files reversed and as one
# file holding every node.  RANKS_FULL=1 compares every trace in every
# mode, format and way (make check: a part of them, as said below).
. tests/lib.sh
SEEDS=$(sized 100 12)
[ -n "${SANITIZED:-}" ] && SEEDS=$(sized 16 8)
started=$(date +%s)
full=${RANKS_FULL:+--formats=json,text,sarif --batch-chains=1,0}

# the bundled, shared and fixture traces: JSON in every mode and way
# (each trace in one handler model, nested and floating in turn);
# text and SARIF by default and with the atomicity kinds, each trace in
# one handler model, in turn (not under the sanitizers)
set -- benchmarks/taxdc/*/ benchmarks/atomicity/*/ benchmarks/multivar/*/ \
    benchmarks/mvrace/*.log benchmarks/inconsistent/*.log benchmarks/learning/apache-log/*.log \
    tests/fixtures/*.log tests/prune/*.log
if [ -d "$SHARED" ]; then
    [ -z "${QUICK:-}" ] && set -- "$@" "$SHARED"/*/*.log "$SHARED"/*/*.txt
else
    echo "note: $SHARED is absent, its traces are not compared"
fi
BUNDLED="$*"
compare() { # NAME ARGS...: tests/ranks_compare.py ARGS, a check named NAME
    name=$1; shift
    python3 tests/ranks_compare.py --spider "$SPIDER" "$@" >"$TMP/out" 2>&1 \
        && ok || { not_ok "$name (below)"; grep -v '^ok' "$TMP/out" | head -20; }
    echo "$name: $(tail -n 1 "$TMP/out") ($(($(date +%s) - started)) s)"; started=$(date +%s)
}
# shellcheck disable=SC2086 # $full is words
if [ -n "$full" ]; then
    compare "bundled, shared and fixture traces, JSON" $full "$@"
else
    compare "bundled, shared and fixture traces, JSON" --formats=json --batch-chains=1 \
        --alternate --mode= --mode="--atomicity --multi-variable --multi-variable-races" \
        --mode=--all-instances --mode=--solver=z3 "$@"
fi
[ -z "$full" ] && [ -z "${SANITIZED:-}" ] && compare "the same, text and SARIF" \
    --formats=text,sarif --batch-chains=1 --no-variants --alternate \
    --mode= --mode="--atomicity --multi-variable --multi-variable-races" "$@"

# random traces (bin/gen-trace; every third with correlated pairs) and
# lock-heavy ones, JSON: each in the four modes, in one handler model,
# nested and floating in turn
set --
seed=1
while [ $seed -le "$SEEDS" ]; do
    corr=""; [ $((seed % 3)) -eq 0 ] && corr="--correlated=40"
    # shellcheck disable=SC2086
    ./bin/gen-trace --seed $((3000 + seed)) --nodes $((2 + seed % 4)) --steps $((30 + seed % 90)) \
        $corr -o "$TMP/g$seed" 2>/dev/null || not_ok "gen-trace seed $((3000 + seed))"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
for seed in $(seq 1 "$(sized 6 2)"); do
    ./bin/gen-trace --shape=locks --seed $((7300 + seed)) --events $((150 + seed * 60)) \
        --nodes $((1 + seed % 3)) --threads $((2 + seed % 5)) --locks $((1 + seed % 4)) \
        --cut-sections=$((seed % 4 * 25)) --handoffs=$((seed % 3 * 50)) \
        -o "$TMP/k$seed" 2>/dev/null || not_ok "gen-trace --shape=locks seed $seed"
    set -- "$@" "$TMP/k$seed"
done
# shellcheck disable=SC2086
if [ -n "$full" ]; then
    compare "random and lock-heavy traces" $full "$@"
else
    compare "random and lock-heavy traces" --formats=json --batch-chains=1 --no-variants \
        --alternate --mode= --mode="--atomicity --multi-variable --multi-variable-races" \
        --mode=--all-instances --mode=--solver=z3 "$@"
fi

# a Cyclon run of 100 nodes: several batches at the default width too
# (Z3 alone would take minutes there: not --solver=z3)
./bin/cyclon-trace --nodes 100 --cycles 4 --correlated -o "$TMP/cyclon" 2>/dev/null
[ -z "${SANITIZED:-}" ] && compare "a Cyclon run of 100 nodes" --formats=json --batch-chains=1,0 --alternate \
    --mode= --mode="--atomicity --multi-variable --multi-variable-races" --mode=--all-instances \
    "$TMP/cyclon"

# a real trace: ZooKeeper under the Java agent (40,548 events, three
# nodes, open locks); not --solver=z3 nor --multi-variable (minutes).
# Under the sanitizers JSON as it is (its text and its files reversed or
# in one file take the paths the bundled traces took above, at three
# times the release pass's cost)
mkdir -p "$TMP/zk" && tar xJf tests/fixtures/zookeeper-ops1.tar.xz -C "$TMP/zk"
zk_ways="--formats=json,text"
[ -n "${SANITIZED:-}" ] && zk_ways="--formats=json --no-variants"
# shellcheck disable=SC2086 # $zk_ways is words
compare "the agent's ZooKeeper trace" $zk_ways --batch-chains=1,0 --alternate \
    --mode= --mode=--atomicity --mode=--all-instances "$TMP/zk/zookeeper"

# loading: each rank reads the files dealt to it (by size) and sends
# their events to every rank, so that the trace, the warnings and the
# errors are one process's, in its order: a directory whose files a
# helper rank owns, one cut off (a warning) and one with a bad event
# (--lenient: a warning, else exit 2); an entry that is no file; a file
# named twice; a path that cannot be read after the files.  Standard
# error too is compared (under mpirun: what comes before its banner).
mkdir -p "$TMP/load/dir/sub"
./bin/gen-trace --seed 3105 --nodes 3 --steps 80 -o "$TMP/load/dir" 2>/dev/null
printf '{"thread":"main@10.0.0.9","type":"R","variable":"x","loc":"cut' >>"$TMP/load/dir/node1.log"
printf '{"thread":"t1@10.0.0.8","type":"NOPE","timestamp":7}\n' >>"$TMP/load/dir/node2.log"
ln -sf /nonexistent "$TMP/load/dir/dangling.log"
load_same() { # NAME ARGS...: --ranks=2,3 (and mpirun -np 2,3) as one process
    name=$1; shift
    "$SPIDER" --no-timings -f json "$@" >"$TMP/load/want.out" 2>"$TMP/load/want.err"
    want=$?
    for r in 2 3; do
        "$SPIDER" --no-timings -f json --ranks=$r "$@" >"$TMP/load/got.out" 2>"$TMP/load/got.err"
        got=$?
        [ $got -eq $want ] && cmp -s "$TMP/load/want.out" "$TMP/load/got.out" &&
            cmp -s "$TMP/load/want.err" "$TMP/load/got.err" && ok ||
            { not_ok "loading, $name, --ranks=$r: status $got for $want, or output"; \
              diff "$TMP/load/want.err" "$TMP/load/got.err" | head -5; }
        [ -n "$LOAD_MPIRUN" ] || continue
        $LOAD_MPIRUN -np $r bin/spider-mpi --no-timings -f json "$@" >"$TMP/load/got.out" 2>"$TMP/load/got.err"
        got=$?
        head -c "$(wc -c <"$TMP/load/want.err")" "$TMP/load/got.err" >"$TMP/load/got.head"
        [ $got -eq $want ] && cmp -s "$TMP/load/want.out" "$TMP/load/got.out" &&
            cmp -s "$TMP/load/want.err" "$TMP/load/got.head" && ok ||
            { not_ok "loading, $name, mpirun -np $r: status $got for $want, or output"; \
              diff "$TMP/load/want.err" "$TMP/load/got.head" | head -5; }
    done
}

# a stop while ranks (threads) generate, in every phase: the partial
# report within 2 s of the process's own time (tests/sigterm_scan.py)
SPIDER="$SPIDER" python3 tests/sigterm_scan.py "$TMP/cyclon" "--ranks=3 --batch-chains=1" \
    "--ranks=2 --atomicity --multi-variable" && ok || not_ok "SIGTERM in a run split over threads"

# bin/spider-mpi under mpirun, N = 1..4 in turn (oversubscribed): a
# sample, since each run starts MPI (on one machine, over shared memory:
# without the first two --mca it probes networks for a third of a
# second; without the third, a job whose status is not 0 waits a second
# before it is killed)
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1"
MPIRUN="$MPIRUN --mca odls_base_sigkill_timeout 0"
LOAD_MPIRUN=$MPIRUN
{ [ -n "${SANITIZED:-}" ] || [ -n "${VALGRIND:-}" ] || ! command -v mpirun >/dev/null ||
  [ ! -x bin/spider-mpi ]; } && LOAD_MPIRUN=
load_same "--lenient" --lenient "$TMP/load/dir"
# --ranks reads standard input as one process does (mpirun refuses it)
"$SPIDER" --no-timings -f json - <benchmarks/mvrace/property-cache.log >"$TMP/load/want.out" 2>&1
"$SPIDER" --no-timings -f json --ranks=2 - <benchmarks/mvrace/property-cache.log >"$TMP/load/got.out" 2>&1
cmp -s "$TMP/load/want.out" "$TMP/load/got.out" && ok || not_ok "--ranks=2 on standard input"
load_same "a bad event" "$TMP/load/dir"
load_same "a file twice, then a path that is none" --lenient \
    "$TMP/load/dir/node3.log" "$TMP/load/dir" "$TMP/load/dir/node3.log" "$TMP/load/none.log"
if [ -n "${SANITIZED:-}" ] || [ -n "${VALGRIND:-}" ]; then
    echo "note: bin/spider-mpi is compared in the release pass only"
elif ! command -v mpirun >/dev/null || [ ! -x bin/spider-mpi ]; then
    echo "note: mpirun or bin/spider-mpi is missing (make deps; make MPI=1): MPI is not compared"
else
    compare "mpirun -np 1..4 bin/spider-mpi" --mpirun "$MPIRUN" --ranks= --formats=json \
        --batch-chains=1 --no-variants --alternate --mode= \
        --mode="--atomicity --multi-variable --multi-variable-races" \
        benchmarks/taxdc/m5009/ benchmarks/mvrace/*.log "$TMP/g3" "$TMP/k1"
    compare "mpirun -np 1..4 on the agent's ZooKeeper trace" --mpirun "$MPIRUN" --ranks= \
        --all-ranks --formats=json --batch-chains=1 --no-variants --mode=--atomicity "$TMP/zk/zookeeper"
    if [ -n "$full" ]; then # every trace, JSON, every mode
        # shellcheck disable=SC2086,SC2046
        compare "mpirun, the bundled traces in every way" --mpirun "$MPIRUN" --ranks= \
            --formats=json --batch-chains=1 $BUNDLED
        # shellcheck disable=SC2046
        compare "mpirun, the random and lock-heavy traces" --mpirun "$MPIRUN" --ranks= \
            --formats=json --batch-chains=1 --no-variants \
            $(find "$TMP" -maxdepth 1 -name 'g[0-9]*' -type d | sort -V) $(find "$TMP" -maxdepth 1 -name 'k[0-9]*' | sort -V)
    fi
    # Z3 on every candidate; an inconsistent trace and a bad file (exit 2)
    set -- "$TMP/g3" tests/prune/open-lock-inconsistent.log
    [ -d "$SHARED" ] && set -- "$@" "$SHARED/zookeeper/zktrace_full.log"
    compare "mpirun: Z3 alone, exit 2" --mpirun "$MPIRUN" --ranks= --np=2,3,4 --formats=json \
        --batch-chains=1 --no-variants --mode=--solver=z3 "$@"
    # what one rank cannot do alone is exit 2 with one message, and no
    # rank waits for ever: standard input (rank 0's alone), ranks that
    # read different traces, a file only one rank cannot read
    $MPIRUN -np 2 bin/spider-mpi - <benchmarks/mvrace/property-cache.log >/dev/null 2>"$TMP/err"
    [ $? -eq 2 ] && [ "$(grep -c '^spider: mpirun gives standard input to rank 0 alone' "$TMP/err")" -eq 1 ] \
        && ok || { not_ok "mpirun with standard input: exit 2, one message"; cat "$TMP/err"; }
    # shellcheck disable=SC2016 # the rank is the child's to expand
    $MPIRUN -np 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 0 ] && exec bin/spider-mpi benchmarks/taxdc/m5009/;
                         exec bin/spider-mpi benchmarks/taxdc/m3274/' >/dev/null 2>"$TMP/err"
    [ $? -eq 2 ] && grep -q '^spider: the ranks of the job read different traces' "$TMP/err" \
        && ok || { not_ok "mpirun, ranks on different traces: exit 2"; cat "$TMP/err"; }
    # shellcheck disable=SC2016
    $MPIRUN -np 3 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 2 ] && exec bin/spider-mpi /nonexistent.log;
                         exec bin/spider-mpi benchmarks/taxdc/m5009/' >/dev/null 2>"$TMP/err"
    [ $? -eq 2 ] && [ "$(grep -c '^spider: rank 2: /nonexistent.log: cannot open' "$TMP/err")" -eq 1 ] \
        && ok || { not_ok "mpirun, one rank cannot read a file: exit 2 naming it once"; cat "$TMP/err"; }
    $MPIRUN -np 2 bin/spider-mpi --ranks=2 benchmarks/mvrace/property-cache.log >/dev/null 2>"$TMP/err"
    [ $? -eq 2 ] && [ "$(grep -c '^spider: --ranks is bin/spider' "$TMP/err")" -eq 1 ] \
        && ok || { not_ok "bin/spider-mpi --ranks: exit 2, one message"; cat "$TMP/err"; }
    # a stop: SIGUSR1 to mpirun, which forwards it (on SIGTERM mpirun
    # kills the job, the report with it), gives the partial report and
    # exit 3.  Here Z3 is deciding what the shortcuts left, which it
    # cannot within minutes; the signal goes once rank 0's progress line
    # shows that the ranks run (its handler is set before it loads).
    ./bin/gen-trace --shape=locks --seed 5 --events 10000 -o "$TMP/l10k" 2>/dev/null
    python3 - "$MPIRUN" "$TMP/l10k" <<'PY' && ok || not_ok "SIGUSR1 to mpirun: a partial report, exit 3"
import json, os, signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1].split() + ["-np", "3", "bin/spider-mpi", "--no-timings",
                     "--progress=always", "-f", "json", "--atomicity", sys.argv[2]],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.read(p.stderr.fileno(), 1)     # rank 0's progress line has begun
time.sleep(1)
p.send_signal(signal.SIGUSR1)
out, _ = p.communicate(timeout=600)
report = json.loads(out)
print("SIGUSR1 to mpirun: exit %d, partial %s, %d undecided"
      % (p.returncode, report["summary"]["partial"], report["summary"]["undecided"]))
sys.exit(0 if p.returncode == 3 and report["summary"]["partial"] else 1)
PY
    compare "mpirun -np 1..4 on the Cyclon run" --mpirun "$MPIRUN" --ranks= --all-ranks \
        --formats=json --batch-chains=0 --no-variants --mode=--atomicity "$TMP/cyclon"
fi
finish
