# Hostile and malformed input (tests/bad/, listed with the exit status and
# message expected in tests/bad/expected.txt; make-corpus.py wrote it):
# each gets its exit status, and an error is one line on standard error
# that names the file (and line and column where there is one).
. tests/lib.sh
grep -v '^#' tests/bad/expected.txt | while IFS='	' read -r name status message; do
    f=tests/bad/$name.log
    $SPIDER -q --no-timings "$f" >"$TMP/out" 2>"$TMP/err"
    got=$?
    # -q hides warnings: look for them without it
    if [ "$status" -eq 0 ] && [ -n "$message" ]; then
        $SPIDER --no-timings "$f" >"$TMP/out" 2>"$TMP/err"
    fi
    if [ "$got" -ne "$status" ]; then
        echo "not ok: $name: exit $got, want $status: $(head -c 300 "$TMP/err")"; echo x >>"$TMP/failed"
    elif [ -n "$message" ] && ! grep -qF -- "$message" "$TMP/err"; then
        echo "not ok: $name: stderr lacks '$message': $(head -c 300 "$TMP/err")"; echo x >>"$TMP/failed"
    elif [ "$status" -eq 2 ] && [ "$(grep -c '^spider: ' "$TMP/err")" -ne 1 ]; then
        echo "not ok: $name: want exactly one error line"; echo x >>"$TMP/failed"
    else
        echo "ok $name"
    fi
done
checks=$(grep -vc '^#' tests/bad/expected.txt)
[ -s "$TMP/failed" ] && failures=$(wc -l <"$TMP/failed")
[ "$checks" -ge 40 ] || not_ok "the corpus has fewer than 40 cases"
# --lenient skips every bad event, with a warning each and a count
cat tests/bad/unknown-type-name.log tests/bad/missing-variable-read.log tests/bad/bare-number.log >"$TMP/mixed.log"
expect_status 0 $SPIDER --lenient -f json "$TMP/mixed.log"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["skipped_events"] == 3, s' "$TMP/out" \
    && ok || not_ok "--lenient counts skipped events"
[ "$(grep -c 'warning: .*skipped' "$TMP/err")" -eq 3 ] && ok || not_ok "--lenient warns once per bad event"
finish
