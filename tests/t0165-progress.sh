# --progress: under a pseudo-terminal (script) one redrawn line on stderr,
# at most 10 times a second, erased before a clean report; without a TTY,
# with -q or --progress=never, nothing; --progress=always draws anyway.
. tests/lib.sh
command -v script >/dev/null || { echo "skip: script (bsdutils) is not installed: run make deps"; exit 77; }
# a run long enough for a few redraws: a simulated Cyclon trace, every
# candidate asked to Z3
bin/cyclon-trace --nodes 20 --cycles 12 -o "$TMP/cyclon" >/dev/null
RUN="$SPIDER -j1 --solver=z3 --no-prune --no-timings --color=never"

# the report without a terminal: what the terminal must show after the line
$RUN "$TMP/cyclon" >"$TMP/plain.out" 2>"$TMP/plain.err"
[ $? -eq 1 ] && ok || not_ok "the run finds races"
grep -q "$(printf '\033')\[K" "$TMP/plain.err" && not_ok "no TTY, yet a progress line" || ok
grep -q 'candidates decided\|loading' "$TMP/plain.err" && not_ok "no TTY: progress text on stderr" || ok

# with pruning on, the solving line says how many events pruning dropped
script -qec "$SPIDER -j1 --solver=z3 --no-timings --progress=always $TMP/cyclon" /dev/null </dev/null >"$TMP/pruned.raw" 2>&1
grep -aq 'spider: [0-9][0-9]* events pruned; ' "$TMP/pruned.raw" && ok || not_ok "no 'events pruned' in the progress line"

# under script: stdout and stderr are the pseudo-terminal (stdin from
# /dev/null: script needs one, and CI may run with none)
start=$(date +%s%N)
script -qec "$RUN $TMP/cyclon" /dev/null </dev/null >"$TMP/tty.raw" 2>&1
secs=$(( ($(date +%s%N) - start) / 1000000 ))e-3
python3 - "$TMP/tty.raw" "$TMP/plain.out" "$secs" <<'PY' && ok || not_ok "progress under a TTY"
import re, sys
raw = open(sys.argv[1], newline="").read()
plain = open(sys.argv[2]).read()
secs = float(sys.argv[3])
erase = "\r\x1b[K"
assert erase in raw, "no progress line"
draws = raw.split(erase)
lines = [d for d in draws[1:-1]]
assert any(re.match(r"spider: loading [0-9.]+ [kM]B of [0-9.]+ [kM]B$", l) for l in lines), lines[:3]
decided = [l for l in lines if "candidates decided" in l]
assert decided, lines
m = re.match(r"spider: (\d+) of (\d+) candidates decided \((\d+)%, (\d+)/s"
             r"(, .* left|, none more for \d+ s)?\)$", decided[-1])
assert m, decided[-1]
assert int(m.group(2)) > 0
assert len(lines) <= 10 * secs + 3, f"{len(lines)} redraws in {secs:.1f} s"
# after the last erase: the report, clean (the terminal turns \n into \r\n)
report = draws[-1].replace("\r\n", "\n")
assert report == plain, "the report under a TTY differs from the plain one"
print(f"{len(lines)} redraws in {secs:.1f} s; last: {decided[-1]}")
PY

# -q, --progress=never: no line even on a terminal (the first one is drawn
# at once, so a short run would show it)
FAST="$SPIDER --no-timings --color=never"
script -qec "$FAST -q $TMP/cyclon" /dev/null </dev/null >"$TMP/q.raw" 2>&1
grep -q 'spider: loading' "$TMP/q.raw" && not_ok "-q draws progress" || ok
script -qec "$FAST --progress=never $TMP/cyclon" /dev/null </dev/null >"$TMP/never.raw" 2>&1
grep -q 'spider: loading' "$TMP/never.raw" && not_ok "--progress=never draws progress" || ok
# (and both did run under script: their reports are there)
grep -q '^Data races' "$TMP/q.raw" && grep -q '^Data races' "$TMP/never.raw" && ok || not_ok "no report under script"
# --progress=always without a terminal: the line on stderr, erased at the end
$FAST --progress=always "$TMP/cyclon" >"$TMP/always.out" 2>"$TMP/always.err"
$FAST "$TMP/cyclon" >"$TMP/fast.out" 2>/dev/null
grep -q 'spider: loading' "$TMP/always.err" && ok || not_ok "--progress=always: no line"
python3 -c 'import sys; e = open(sys.argv[1], newline="").read(); assert e.endswith("\r\x1b[K"), repr(e[-40:])' "$TMP/always.err" && ok || not_ok "--progress=always: the line is not erased at the end"
cmp -s "$TMP/always.out" "$TMP/fast.out" && ok || not_ok "--progress changes the report"

# warnings wait for the line to go: each on a line of its own
printf '%s\n' '{"thread":"a@n","type":"START"}' '{"thread":"a@n","type":"HANDLEREND"}' \
    '{"thread":"a@n","type":"W","variable":"x"}' >"$TMP/warn.log"
$SPIDER --progress=always "$TMP/warn.log" >/dev/null 2>"$TMP/warn.err"
python3 - "$TMP/warn.err" <<'PY' && ok || not_ok "a warning under the progress line"
import sys
e = open(sys.argv[1], newline="").read()
w = e.index("spider: warning:")
assert e[:w].endswith("\r\x1b[K"), repr(e)
PY
expect_status 2 $SPIDER --progress=sometimes "$TMP/warn.log"
grep -q "'sometimes' is not one of: auto always never" "$TMP/err" && ok || not_ok "bad --progress named"
finish
