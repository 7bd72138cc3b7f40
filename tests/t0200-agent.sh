# The Java agent (traces/agent/, docs/tracing.md): the small programs of
# tests/agent/ each plant known races and non-races for one mechanism —
# fields (static, per object, final, volatile), monitors (exits by
# exception too), ReentrantLock and read/write locks, wait/notify and
# Condition, thread start/join, executors/futures/latches/
# CompletableFuture, blocking queues and deques (the JDK's and a
# program's own, called through its own type, its inside not traced; a
# peek and the same thread's removal of that element, one receive),
# datagrams, a two-process
# TCP exchange with message handlers (message and handler races), a
# socket read that brings two messages to a handler, a volatile read
# after a message no handler follows, and an atomicity
# violation — and run under the agent; spider's groups must be
# exactly the planted ones (tests/agent/check.py reads them from the
# program's comments), every receive matched, no anomaly.  A bad option
# is refused naming it; a JVM killed with SIGKILL leaves a trace spider
# reads; the multi-variable kinds on the Fields and Monitors traces agree
# with tests/reference.py.  About 15 s.
. tests/lib.sh
if [ -n "${SANITIZED:-}" ]; then
    echo "skip: the agent is Java, checked in the release pass; the sanitized spider reads traces in t0010-t0190"
    exit 77
fi
command -v javac >/dev/null 2>&1 || { echo "skip: javac is missing (make deps installs default-jdk-headless)"; exit 77; }
[ -f /usr/share/java/asm.jar ] || { echo "skip: /usr/share/java/asm.jar is missing (make deps installs libasm-java)"; exit 77; }
make -s agent >"$TMP/make.log" 2>&1 || { not_ok "make agent"; cat "$TMP/make.log"; finish; }
mkdir -p "$TMP/classes"
javac -nowarn -d "$TMP/classes" tests/agent/*.java 2>"$TMP/javac.log" \
    || { not_ok "javac tests/agent"; cat "$TMP/javac.log"; finish; }
JOPTS="-XX:TieredStopAtLevel=1 -Xshare:auto -XX:+UseSerialGC -Xmx64m"
AGENT=bin/spider-agent.jar

# trace NAME NODE [AGENT-OPTIONS] -- ARGS: runs NAME under the agent into $TMP/NAME/
trace() {
    name=$1 node=$2 opts=$3; shift 4
    mkdir -p "$TMP/$name"
    cpu_limit 120 600 java $JOPTS "-javaagent:$AGENT=include=$name,node=$node,out=$TMP/$name/$opts" \
        -cp "$TMP/classes" "$name" "$@" >>"$TMP/$name.log" 2>&1
}

# analyse NAME [SPIDER-OPTIONS]: spider's report on NAME's traces, checked
analyse() {
    name=$1; shift
    $SPIDER -q -f json --no-timings "$@" "$TMP/$name" >"$TMP/$name.json" 2>"$TMP/$name.err"
    rc=$?
    [ $rc -le 1 ] || { not_ok "$name: spider exit $rc: $(head -c 300 "$TMP/$name.err")"; return; }
    python3 tests/agent/check.py "tests/agent/$name.java" "$TMP/$name.json" "$TMP/$name" >"$TMP/$name.check"
    while read -r verdict rest; do
        case "$verdict" in
        ok) ok ;;
        *) not_ok "${rest#ok }" ;;
        esac
    done <"$TMP/$name.check"
}

for p in Fields Monitors Locks WaitNotify Threads Tasks Queues CustomQueue OwnQueue PeekRemove Datagrams Atomicity; do
    if trace $p $p "" --; then
        ok
        if [ $p = Atomicity ]; then analyse $p --atomicity; else analyse $p; fi
    else
        not_ok "$p: the program failed under the agent: $(tail -n 3 "$TMP/$p.log")"
    fi
done

# real traces of the agent against the reference for the multi-variable
# kinds: Fields and Monitors update pairs of fields together (mined
# pairs, multi-variable races and violations found there)
agent_mv=""
for p in Fields Monitors; do [ -d "$TMP/$p" ] && agent_mv="$agent_mv $TMP/$p"; done
if [ -n "$agent_mv" ] && command -v z3 >/dev/null; then
    # shellcheck disable=SC2086 # the paths have no spaces
    REFERENCE_CACHE="$TMP/refcache" python3 tests/reference.py compare -j 2 --multi-variable-races \
        --multi-variable --correlation=both $agent_mv >"$TMP/mv.ref" 2>&1 && ok \
        || { not_ok "the agent's traces: the multi-variable kinds differ from the reference"; grep -v '^ok' "$TMP/mv.ref" | head -5; }
    # shellcheck disable=SC2086
    n=$(for d in $agent_mv; do $SPIDER -q -f json --no-timings --multi-variable-races \
            --correlation=both "$d" 2>/dev/null; done | grep -c '"pattern":')
    [ "$n" -gt 0 ] && ok || not_ok "the agent's Fields and Monitors traces show no multi-variable race"
fi

# a traced queue of the program's own: its callers' put and take are the
# hand-off, its lock, condition and fields are not traced
if [ -d "$TMP/OwnQueue" ]; then
    grep -q '"loc":"OwnQueueRing\.' "$TMP"/OwnQueue/*.json &&
        not_ok "OwnQueue: the inside of the program's own queue was traced" || ok
fi

# one socket read that brings two messages: the second handler call is not recorded
if trace Buffered Buffered ,handlers=Buffered.handleA --; then ok; analyse Buffered; else
    not_ok "Buffered: the program failed under the agent: $(tail -n 3 "$TMP/Buffered.log")"
fi

# a volatile read (an ordering) after a queue message that no handler follows
if trace LateSync LateSync ,handlers=LateSync.handle --; then ok; analyse LateSync; else
    not_ok "LateSync: the program failed under the agent: $(tail -n 3 "$TMP/LateSync.log")"
fi

# two processes: the server's port goes through a file
H=,handlers=Sockets.handleA:Sockets.handleB
rm -f "$TMP/port"
trace Sockets srv "$H" -- server "$TMP/port" & srv=$!
trace Sockets cli "$H" -- client "$TMP/port"; crc=$?
wait $srv; src=$?
if [ $crc -eq 0 ] && [ $src -eq 0 ]; then ok; analyse Sockets; else
    not_ok "Sockets: the server (exit $src) or the client (exit $crc) failed: $(tail -n 3 "$TMP/Sockets.log")"
fi
[ "$(ls "$TMP/Sockets" | wc -l)" -eq 2 ] && ok || not_ok "Sockets: not one trace file per process"

# a JVM killed with SIGKILL leaves what it had written out, which spider
# reads (a last line cut by the kill is a warning, not an error)
mkdir -p "$TMP/Killed"
java $JOPTS "-javaagent:$AGENT=include=Killed,node=k,flush=50,out=$TMP/Killed/" \
    -cp "$TMP/classes" Killed >"$TMP/Killed.log" 2>&1 & kpid=$!
for _ in $(seq 200); do [ -s "$TMP/Killed/k.json" ] && break; sleep 0.05; done
sleep 0.3
kill -KILL $kpid; wait $kpid 2>/dev/null
$SPIDER -q -f json --no-timings --timeout-ms=2000 "$TMP/Killed" >"$TMP/Killed.json" 2>"$TMP/Killed.err"
rc=$?
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["events"])' "$TMP/Killed.json" 2>/dev/null)
[ $rc -le 1 ] && [ "${n:-0}" -gt 0 ] && ok \
    || not_ok "the trace of a killed JVM: spider exit $rc, ${n:-no} events: $(head -c 300 "$TMP/Killed.err")"

# a bad option names itself and stops the JVM
java -javaagent:$AGENT=inclde=x -cp "$TMP/classes" Threads >"$TMP/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "unknown option 'inclde'" "$TMP/bad.out" && ok \
    || not_ok "a bad agent option: exit $rc, $(head -n 1 "$TMP/bad.out")"
finish
