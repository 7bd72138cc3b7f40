# The unit tests (cmocka): the loader's input variants and errors
# (test_trace), each pruning rule (test_prune), the matching of WAITs to
# NOTIFYs (test_waits), runs found by scheduling (test_schedule), the
# graph helper (test_graph), the lock clauses, the shortcuts and the
# Z3 pool (test_decide), and what the ranks of a split run share: the
# deal by size, the threads back end, packed bytes (test_comm).
. tests/lib.sh
bins="tests/bin/test_trace tests/bin/test_prune tests/bin/test_waits tests/bin/test_schedule tests/bin/test_graph tests/bin/test_decide tests/bin/test_comm"
# test_trace reads t0140's corpus of hostile inputs too, a window at a time
# against whole (windows_read_as_whole)
python3 tests/hostile/make-hostile.py "$TMP/hostile" >/dev/null || not_ok "the corpus generator failed"
export TEST_WINDOW_DIRS="$TMP/hostile"
[ -n "${SANITIZED:-}" ] && bins="bin-san/test_trace bin-san/test_prune bin-san/test_waits bin-san/test_schedule bin-san/test_graph bin-san/test_decide bin-san/test_comm"
for t in $bins; do
    if [ -n "${VALGRIND:-}" ]; then
        expect_status 0 valgrind -q --error-exitcode=99 --leak-check=full $t
    else
        expect_status 0 $t
    fi
    cat "$TMP/out" "$TMP/err" | tail -3
done
finish
