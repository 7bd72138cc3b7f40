# Every real trace in ../shared/traces/spider loads and is analysed; the
# results are pinned in tests/compat/expected.txt, with a comment wherever
# they differ from what SPIDER v1.0 printed (spider-v1.0-results.txt).
. tests/lib.sh
if [ ! -d "$SHARED" ]; then
    echo "skipped: $SHARED is absent (the real traces live outside the project)"
    exit 77
fi
grep -v '^#' tests/compat/expected.txt | grep -v '^$' | while read -r files rest; do
    opts=$(echo "$rest" | sed 's/ [0-9].*//')
    want=$(echo "$rest" | sed 's/^[^0-9]* \([0-9]\)/\1/' | tr -s ' ')
    set --
    for f in $(echo "$files" | tr ',' ' '); do set -- "$@" "$SHARED/$f"; done
    got=$($SPIDER -q -f json --no-prune --all-instances $opts "$@" 2>/dev/null | python3 tests/compat/project.py)
    if [ "$got" = "$want" ]; then echo "ok $files $opts"
    else echo "not ok: $files $opts: got '$got', want '$want'"; echo FAIL >>"$TMP/failed"; fi
done
n=$(grep -vc '^#' tests/compat/expected.txt)
[ -s "$TMP/failed" ] && failures=$(wc -l <"$TMP/failed")
checks=$n
# every trace file of the folder is covered
for f in $(cd "$SHARED" && ls */*.log */*.txt); do
    grep -q "$f" tests/compat/expected.txt && ok || not_ok "$f has no pinned result"
done
finish
