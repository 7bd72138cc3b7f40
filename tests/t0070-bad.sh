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
# a cut object in the middle of a file (a node restarted after a crash,
# appending): --lenient skips it and analyses every complete event after
# it — the W after the cut races with another thread's W
printf '%s\n' '{"thread":"t2@n1","type":"W","variable":"x","loc":"a.b.2"}' >"$TMP/other.log"
for f in cut-object-mid-file cut-object-glued; do
    expect_status 2 $SPIDER -q "tests/bad/$f.log" "$TMP/other.log"
done
expect_status 1 $SPIDER --lenient -f json --no-timings tests/bad/cut-object-mid-file.log "$TMP/other.log"
python3 - "$TMP/out" <<'PY' && ok || not_ok "--lenient analyses the complete events after a cut object"
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
assert s["events"] == 3 and s["events_by_kind"] == {"START": 1, "W": 2}, s
assert s["skipped_events"] == 1 and s["truncated_files"] == 0, s
assert [g["locations"] for g in d["data_races"]] == [["a.b.1", "a.b.2"]], d["data_races"]
PY
grep -qF 'cut-object-mid-file.log:2:1: malformed object: it is cut off before the next object (line 3, column 1); skipped' "$TMP/err" \
    && ok || not_ok "--lenient warns about the cut object, naming its line"
expect_status 0 $SPIDER --lenient -f json tests/bad/cut-object-glued.log
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert s["events_by_kind"] == {"START": 1, "END": 1} and s["skipped_events"] == 1, s' "$TMP/out" \
    && ok || not_ok "--lenient reads the event glued onto a cut object"
finish
