# The files of a directory, or files given one after another, are loaded
# by worker threads and merged in order (issue 14).  The result must be
# that of reading them one by one: `spider -j1 DIR/a DIR/b ...` (one
# thread) against `spider -j2 DIR` and `spider -j2 DIR/a DIR/b ...`, the
# same report and the same messages in the same order, with warnings in
# several files (--lenient), a file read twice (a hard link), a truncated
# array, and errors in two files (the first is named).
. tests/lib.sh
# same_run NAME WHAT A B: the runs A and B (files NAME.A.*, NAME.B.*) agree
same_run() {
    if [ "$(cat "$TMP/$1.$3.rc")" = "$(cat "$TMP/$1.$4.rc")" ] &&
       cmp -s "$TMP/$1.$3.out" "$TMP/$1.$4.out" && cmp -s "$TMP/$1.$3.err" "$TMP/$1.$4.err"; then ok
    else not_ok "$1: $2 differs from the files read one by one (exit $(cat "$TMP/$1.$4.rc") vs $(cat "$TMP/$1.$3.rc"))"
        diff "$TMP/$1.$3.err" "$TMP/$1.$4.err" | head -10
    fi
}
# spider_to NAME RUN ARGS...: runs spider, keeping out, err and exit status
spider_to() {
    name=$1 run=$2; shift 2
    $SPIDER --no-timings "$@" >"$TMP/$name.$run.out" 2>"$TMP/$name.$run.err"
    echo $? >"$TMP/$name.$run.rc"
}
same_as_files() { # same_as_files NAME DIR OPTIONS... : dir vs its files
    name=$1 dir=$2; shift 2
    files=$(ls "$dir" | sed "s|^|$dir/|")
    # shellcheck disable=SC2086 # the names have no spaces
    spider_to "$name" serial -j1 "$@" $files
    spider_to "$name" dir -j2 "$@" "$dir"
    # shellcheck disable=SC2086
    spider_to "$name" files -j2 "$@" $files
    same_run "$name" "the directory read in parallel" serial dir
    same_run "$name" "its files given and read in parallel" serial files
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

# files around standard input and a directory, and a missing file among
# them: read in the order given, the missing one named after the others
g=$TMP/gen
for j in 1 2; do
    spider_to mixed "j$j" -j$j -f json "$g/node1.log" "$g/node2.log" - "$g/node3.log" \
        "$TMP/cyclon" "$g/node4.log" <"$TMP/cyclon/$(ls "$TMP/cyclon" | head -1)"
    spider_to missing "j$j" -j$j -f json "$g/node1.log" "$g/node2.log" "$g/no-such.log" "$g/node3.log"
done
same_run mixed "files around standard input and a directory" j1 j2
same_run missing "a missing file among files" j1 j2
grep -q 'no-such.log: cannot open' "$TMP/missing.j2.err" && ok \
    || not_ok "the missing file is not named: $(cat "$TMP/missing.j2.err")"
finish
