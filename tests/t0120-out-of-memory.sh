# Allocation failure is an error, never a crash or a verdict: with its
# address space limited (ulimit -v), spider on a 100-node Cyclon trace
# ends with exit 2 and one line saying memory ran out, at several limits
# (so the failure lands in different phases: loading, pruning, the
# model, candidates, the shortcuts).
. tests/lib.sh
if [ -n "${SANITIZED:-}" ] || [ -n "${VALGRIND:-}" ]; then
    echo "skip: AddressSanitizer and valgrind reserve more address space than the limits here allow"
    exit 77
fi
./bin/cyclon-trace --nodes 100 --cycles 60 -o "$TMP/cy" 2>/dev/null
for limit in 40000 60000 80000 100000 120000; do
    ( ulimit -v $limit; exec $SPIDER -q -j1 "$TMP/cy" >"$TMP/out" 2>"$TMP/err" )
    rc=$?
    if [ $rc -eq 2 ] && grep -q '^spider: out of memory' "$TMP/err"; then ok
    elif [ $rc -eq 1 ]; then ok  # enough memory at this limit: a full report
    else not_ok "limit $limit KB: exit $rc: $(head -c 200 "$TMP/err")"; fi
done
# at the smallest limit it must fail, and say so
( ulimit -v 40000; exec $SPIDER -q -j1 "$TMP/cy" >"$TMP/out" 2>"$TMP/err" )
[ $? -eq 2 ] && ok || not_ok "40 MB was enough: the test no longer reaches an allocation failure"
[ ! -s "$TMP/out" ] && ok || not_ok "a report was printed after memory ran out"
finish
