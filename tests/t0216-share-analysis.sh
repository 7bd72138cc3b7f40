# The analysis on the ranks' shares of the trace (issue 28;
# spider/cli/share_run.h, spider/engine/engine_share.h): where every
# rank can decide its own nodes from its share — the shortcuts decide
# every candidate, no node needs a choice of lock order or wake-up, no
# thread is forked or joined across ranks, the trace's only derived
# warnings are of unmatched messages — each rank holds its share alone
# and rank 0 merges the parts; the report must be byte for byte one
# process's (tests/ranks_compare.py: stdout and exit status, text, JSON
# and SARIF, in both handler models, the files as they are, reversed
# and in one file).  Each trace here is one the shares decide, and the
# first check says that they did: the report's timings name the ranks
# that held shares (a change that sent them back to the whole trace
# would leave the path below untested).
. tests/lib.sh
SEEDS=$(sized 100 16)
[ -n "${SANITIZED:-}" ] && SEEDS=$(sized 16 8)
started=$(date +%s)
compare() { # NAME ARGS...: tests/ranks_compare.py ARGS, a check named NAME
    name=$1; shift
    python3 tests/ranks_compare.py --spider "$SPIDER" "$@" >"$TMP/out" 2>&1 \
        && ok || { not_ok "$name (below)"; grep -v '^ok' "$TMP/out" | head -20; }
    echo "$name: $(tail -n 1 "$TMP/out") ($(($(date +%s) - started)) s)"; started=$(date +%s)
}
shares() { # TRACE ARGS...: the shares decided it (--ranks=3)
    "$SPIDER" --ranks=3 --batch-chains=1 -f json "$@" 2>/dev/null |
        grep -q '"shares":[[:space:]]*3' && ok || not_ok "the shares did not decide $*"
}

# random traces with every feature a share decides alone: messages by
# id and TCP byte streams (split, merged, lost, from untraced hosts),
# duplicate deliveries, nested handlers and the gaps before them,
# repeated accesses, names shared by nodes, events without loc, odd
# spellings, correlated pairs; no lock (--no-locks writes them as LOGs),
# no wait, no re-sent id (a receive that may follow either of two sends
# is a choice), no thread that never starts
set --
seed=1
while [ $seed -le "$SEEDS" ]; do
    ./bin/gen-trace --seed $((6000 + seed)) --nodes $((2 + seed % 5)) \
        --steps $((30 + seed % 90)) --no-locks --wait-notify=0 --unnotified-waits=0 \
        --open-locks=0 --no-message-handlers=0 --open-handlers=0 \
        --unstarted-threads=0 --stray-ends=0 --dup-sends=0 --layouts=0 \
        -o "$TMP/g$seed" 2>/dev/null || not_ok "gen-trace seed $((6000 + seed))"
    set -- "$@" "$TMP/g$seed"
    seed=$((seed + 1))
done
# Cyclon runs (a gossip protocol: its lock sections are ordered by its
# messages, so no lock order is a choice), with and without the view's
# size as a second variable
for seed in $(seq 1 "$(sized 6 2)"); do
    corr=""; [ $((seed % 2)) -eq 0 ] && corr=--correlated
    # shellcheck disable=SC2086
    ./bin/cyclon-trace --nodes $((10 + seed * 7)) --cycles $((2 + seed % 3)) --seed "$seed" \
        $corr -o "$TMP/c$seed" 2>/dev/null || not_ok "cyclon-trace seed $seed"
    set -- "$@" "$TMP/c$seed"
done
for trace in "$@"; do
    shares "$trace"
    shares "$trace" --handlers=floating
done
echo "the shares decided each of $# traces, in both handler models"

compare "traces the shares decide, JSON" --formats=json --batch-chains=1 --alternate \
    --mode= --mode=--all-instances "$@"
# the default width: several nodes to a batch, a rank's own batches
[ -z "${SANITIZED:-}" ] && compare "the same at the default width" --formats=json --batch-chains=0 \
    --no-variants --alternate --mode= "$@"
[ -z "${SANITIZED:-}" ] && compare "the same, text and SARIF" --formats=text,sarif \
    --batch-chains=1 --no-variants --alternate --mode= "$@"

MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1"
MPIRUN="$MPIRUN --mca odls_base_sigkill_timeout 0"
if [ -n "${SANITIZED:-}" ] || [ -n "${VALGRIND:-}" ]; then
    echo "note: bin/spider-mpi is compared in the release pass only"
elif ! command -v mpirun >/dev/null || [ ! -x bin/spider-mpi ]; then
    echo "note: mpirun or bin/spider-mpi is missing (make deps; make MPI=1): MPI is not compared"
else
    # shellcheck disable=SC2086 # $MPIRUN is words
    $MPIRUN -np 3 bin/spider-mpi -f json "$TMP/c1" 2>/dev/null | grep -q '"shares":[[:space:]]*3' \
        && ok || not_ok "mpirun -np 3: the shares did not decide $TMP/c1"
    compare "mpirun -np 2..4 bin/spider-mpi" --mpirun "$MPIRUN" --ranks= --np=2,3,4 \
        --formats=json --batch-chains=1 --no-variants --alternate --mode= \
        "$TMP/g1" "$TMP/g2" "$TMP/g3" "$TMP/c1" "$TMP/c2"
fi
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
