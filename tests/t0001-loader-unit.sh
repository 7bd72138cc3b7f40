# The loader's unit tests (cmocka): every input variant and every error.
. tests/lib.sh
if [ -n "${VALGRIND:-}" ]; then
    expect_status 0 valgrind -q --error-exitcode=99 --leak-check=full tests/bin/test_trace
else
    expect_status 0 tests/bin/test_trace
fi
cat "$TMP/out" "$TMP/err" | tail -3
finish
