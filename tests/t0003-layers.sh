# The direction of dependencies (docs/architecture.md): no circle between
# files, and no file using one of a higher layer, by #include lines and by
# the symbols each object file uses (tests/check_layers.py).  Then that
# the check sees a wrong include, a circle of calls and a file in no layer.
. tests/lib.sh
OBJ=${OBJ:-build}
[ -n "${SANITIZED:-}" ] && OBJ=build-san
expect_status 0 python3 tests/check_layers.py "$OBJ"
cat "$TMP/out"

# a copy of the sources to break (objects are read from the real build)
copy() {
    rm -rf "$TMP/tree"; mkdir -p "$TMP/tree/tests"
    cp -r util traces encode prune spider "$TMP/tree/"
    cp tests/check_layers.py "$TMP/tree/tests/"
}
check_copy() { # WANT_TEXT: the check fails on the copy and says WANT_TEXT
    (cd "$TMP/tree" && python3 tests/check_layers.py "$OLDPWD/$OBJ") >"$TMP/out" 2>&1
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
check_copy 'a circle: spider/engine/engine -> spider/engine/engine_pool'
copy
printf '/* new */\n' >"$TMP/tree/spider/newfile.c"
check_copy 'spider/newfile is in no layer'
finish
