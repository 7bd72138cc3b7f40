# Helpers for the numbered test scripts.  Each script exits 0 when all its
# checks hold, 77 when it must skip (and says why on its last line), else 1.
set -u
SPIDER=${SPIDER:-./bin/spider}
if [ -n "${VALGRIND:-}" ]; then
    SPIDER="valgrind -q --error-exitcode=99 --leak-check=full $SPIDER"
fi
SHARED=${SHARED:-../shared/traces/spider}
# QUICK=1 (make test): a small sample of each script's random traces and
# none of its scale checks, for a loop of a few minutes; make check runs
# everything.  sized FULL SMALL: SMALL under QUICK, else FULL.
sized() { if [ -n "${QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
TMP=tests/tmp/$(basename "$0" .sh)
rm -rf "$TMP"; mkdir -p "$TMP"
failures=0
checks=0

ok() { checks=$((checks + 1)); }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok: $*"; }

# cpu_limit CPU WALL CMD... : runs CMD with at most CPU seconds of CPU
# time (ulimit -t, all its threads together; past it the kernel kills it)
# and, against one that blocks instead, WALL seconds of wall time.  What
# a blow-up uses up is CPU time, whatever else the machine runs: a busy
# machine makes a run slower, never a failure (WALL is far beyond it).
cpu_limit() {
    cpu=$1 wall=$2; shift 2
    ( ulimit -t "$cpu"; exec timeout -k 5 "$wall" "$@" )
}

# measure OUT CMD... : runs CMD (stdout to OUT, stderr to $TMP/err) under
# cpu_limit 120 1200 and MEM_KB KB of address space (default 8 GB;
# "unlimited" under the sanitizers, whose shadow memory needs more), and
# prints "rc secs kb": its exit status, wall seconds and peak KB
measure() {
    out=$1; shift
    ( ulimit -v ${MEM_KB:-8388608}
      cpu_limit 120 1200 /usr/bin/time -f '%e %M' -o "$TMP/time" \
          "$@" >"$out" 2>"$TMP/err" )
    echo "$? $(tail -n 1 "$TMP/time")"
}

# expect_status WANT CMD... : runs CMD, checks its exit status
expect_status() {
    want=$1; shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else
        not_ok "exit $got (want $want): $*"; sed 's/^/    /' "$TMP/err" | head -5
    fi
}

# groups FILE.json : the race groups as lines "kind|loc1|loc2|variable|node|count"
groups() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("data_races", "message_races", "handler_races"):
    for g in d[k]:
        print(k, *g["locations"], g.get("variable", ""), g["node"], g["count"], sep="|")
' "$1"
}

finish() {
    echo "$checks checks, $failures failed"
    [ "$failures" -eq 0 ] || exit 1
    [ "$checks" -gt 0 ] || { echo "no check ran"; exit 1; }
    exit 0
}
