# The files of a directory are loaded by worker threads and merged in name
# order (issue 14).  The result must be that of reading them one by one:
# `spider DIR` against `spider DIR/a DIR/b ...` (file arguments are read
# one by one), the same report and the same messages in the same order,
# with warnings in several files (--lenient), a file read twice (a hard
# link), a truncated array, and errors in two files (the first is named).
. tests/lib.sh
same_as_files() { # same_as_files NAME DIR OPTIONS... : dir vs its files
    name=$1 dir=$2; shift 2
    # shellcheck disable=SC2046 # the names have no spaces
    $SPIDER --no-timings "$@" $(ls "$dir" | sed "s|^|$dir/|") >"$TMP/$name.files.out" 2>"$TMP/$name.files.err"
    rf=$?
    $SPIDER --no-timings "$@" "$dir" >"$TMP/$name.dir.out" 2>"$TMP/$name.dir.err"
    rd=$?
    if [ $rf -eq $rd ] && cmp -s "$TMP/$name.files.out" "$TMP/$name.dir.out" &&
       cmp -s "$TMP/$name.files.err" "$TMP/$name.dir.err"; then ok
    else not_ok "$name: the directory read in parallel differs from its files read one by one (exit $rd vs $rf)"
        diff "$TMP/$name.files.err" "$TMP/$name.dir.err" | head -10
    fi
}

./bin/cyclon-trace --nodes 30 --cycles 30 -o "$TMP/cyclon" 2>/dev/null
same_as_files cyclon "$TMP/cyclon" -f json --all-instances

# warnings in several files, a hard link to a file, a truncated array
mkdir -p "$TMP/messy"
./bin/gen-trace --seed 5 --nodes 4 --steps 300 -o "$TMP/gen" 2>/dev/null
for f in "$TMP"/gen/*; do cp "$f" "$TMP/messy/"; done
printf '{"thread": "t@n", "type": "W"}\nnot json at all\n' >>"$TMP/messy/node0.log"
printf '{"thread": "t2@n", "type": "BOGUS", "variable": "x"}\n' >>"$TMP/messy/node2.log"
ln "$TMP/messy/node1.log" "$TMP/messy/node1-again.log"
printf '[{"thread": "u@m", "type": "W", "variable": "v", "loc": "L"},\n {"thread": "u@m", "type": "R"' >"$TMP/messy/zz-truncated.log"
same_as_files lenient "$TMP/messy" --lenient -f json
grep -q 'node0.log:.*missing field "variable"' "$TMP/lenient.dir.err" && ok \
    || not_ok "no warning for node0.log: $(head -3 "$TMP/lenient.dir.err")"
grep -q 'read already' "$TMP/lenient.dir.err" && ok || not_ok "the hard link was read twice"

# without --lenient: the first bad file (by name) is the one named
same_as_files strict "$TMP/messy" -f json
grep -q 'node0.log:' "$TMP/strict.dir.err" && ! grep -q 'node2.log' "$TMP/strict.dir.err" \
    && ok || not_ok "not the first bad file named: $(cat "$TMP/strict.dir.err")"
finish
