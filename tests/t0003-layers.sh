# The direction of dependencies (docs/architecture.md): no circle between
# files, and no file using one of a higher layer, by #include lines and by
# the symbols each object file uses (tests/check_layers.py).  Then that
# the check sees a wrong include, a circle of files and one of folders, a
# file in no layer, a call made without an include, and an object older
# than its source, and an analysis that includes an engine header other
# than the analysis API.
. tests/lib.sh
OBJ=${OBJ:-build}
[ -n "${SANITIZED:-}" ] && OBJ=build-san
expect_status 0 python3 tests/check_layers.py "$OBJ"
cat "$TMP/out"

# a copy of the sources to break, reading the build's objects (a copy of
# them where a case adds one)
copy() {
    rm -rf "$TMP/tree"; mkdir -p "$TMP/tree/tests"
    cp -rp util traces encode prune spider "$TMP/tree/"
    cp tests/check_layers.py "$TMP/tree/tests/"
    ln -s "$PWD/$OBJ" "$TMP/tree/obj"
}
check_copy() { # WANT_TEXT: the check fails on the copy and says WANT_TEXT
    (cd "$TMP/tree" && python3 tests/check_layers.py obj) >"$TMP/out" 2>&1
    if [ $? -eq 1 ] && grep -q "$1" "$TMP/out"; then ok; else
        not_ok "the check missed: $1"; cat "$TMP/out"
    fi
}
copy
sed -i '1i #include "../spider/engine/engine.h"' "$TMP/tree/util/graph.c"
check_copy 'util/graph (util) uses spider/engine/engine (engine, a higher layer): #include "../spider/engine/engine.h"'
copy
sed -i '1i #include "engine.h"' "$TMP/tree/spider/engine/engine_pool.h"
sed -i '1i #include "engine_pool.h"' "$TMP/tree/spider/engine/engine.h"
check_copy 'a circle: .*spider/engine/engine -> spider/engine/engine_pool'
copy
printf '/* new */\n' >"$TMP/tree/spider/newfile.c"
check_copy 'spider/newfile is in no layer'
# two folders that use each other, though no two files do
copy
sed -i '1i #include "../cli/filter.h"' "$TMP/tree/spider/report/kinds.c"
check_copy 'a circle of folders: .*spider/report -> spider/cli: spider/report/kinds -> spider/cli/filter'
# an analysis that reaches past the analysis API into the engine
copy
sed -i '1i #include "../engine/engine_pool.h"' "$TMP/tree/spider/analysis/analysis_data.c"
check_copy 'spider/analysis/analysis_data (an analysis) uses spider/engine/engine_pool, not the analysis API'
copy
sed -i '1i #include "../engine/engine_internal.h"' "$TMP/tree/spider/analysis/analysis_message.c"
check_copy 'spider/analysis/analysis_message (an analysis) uses spider/engine/engine, not the analysis API.*engine_internal.h'
# a call with no #include (a declaration of its own): seen in the object
copy
printf 'void *engine_order(void *run);\nvoid *util_peek(void) { return engine_order(0); }\n' \
    >"$TMP/tree/util/peek.c"
rm "$TMP/tree/obj" && cp -rp "$OBJ" "$TMP/tree/obj"
cc -c -o "$TMP/tree/obj/util/peek.o" "$TMP/tree/util/peek.c"
check_copy 'util/peek (util) uses spider/engine/engine (engine, a higher layer): engine_order'
# a source changed after its object was made: its calls would go unseen
copy
touch -d '+1 minute' "$TMP/tree/encode/encode.c"
check_copy 'encode/encode.c has no object under obj/ as new as itself'
finish
