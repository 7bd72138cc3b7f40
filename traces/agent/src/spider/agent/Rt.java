package spider.agent;

import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * What instrumented code calls.  Every entry point is static, takes the
 * location ("pkg.Class.method.line") last where it has one, and records
 * nothing while the current thread is already inside the agent (the
 * agent's own use of the JDK is never traced) or before the agent is set
 * up.  docs/tracing.md says what each Java construct becomes and why.
 */
public final class Rt {
    private Rt() {}

    static volatile boolean ready;
    static String node;
    static Out out;
    static boolean volatileOrder = true;
    static boolean haveHandlers;

    static final class TState {
        String tid;             // "name#N", the thread part of "thread"
        String thread;          // JSON-escaped "tid@node"
        boolean busy;
        int handlerDepth;
        boolean pendingReal;    // a RCV waits for its handler
        final HashMap<String, int[]> held = new HashMap<>();
        final HashMap<String, String> seenVolatile = new HashMap<>();
        final StringBuilder sb = new StringBuilder(256);
        Wrap lastWrap;
        String lastPeek;
        final ArrayDeque<Boolean> handlers = new ArrayDeque<>(); // recorded or not, per open handler
        // datagram send/receive in progress
        long udpCrc; int udpLen; int udpPos; SocketAddress udpTarget;
    }

    private static final ThreadLocal<TState> TL = new ThreadLocal<>();
    private static final AtomicLong threadIds = new AtomicLong();
    private static final AtomicLong msgIds = new AtomicLong();
    private static final Map<Thread, String> names =
        Collections.synchronizedMap(new WeakHashMap<>());

    /** The current thread's state, or null when nothing must be recorded. */
    static TState st() {
        if (!ready)
            return null;
        TState s = TL.get();
        if (s == null) {
            s = new TState();
            s.busy = true;
            TL.set(s);
            Thread t = Thread.currentThread();
            String n = names.get(t);
            if (n == null) {
                n = newName(t);
                names.put(t, n);
            }
            s.tid = n;
            s.thread = Json.esc(n + "@" + node);
            begin(s, "START", null);
            end(s);
            s.busy = false;
        }
        return s.busy ? null : s;
    }

    static String newName(Thread t) {
        return t.getName().replace('@', '_') + "#" + threadIds.incrementAndGet();
    }

    /** Starts an event line in s.sb; end() writes it. */
    private static StringBuilder begin(TState s, String type, String loc) {
        StringBuilder b = s.sb;
        b.setLength(0);
        b.append("{\"type\":\"").append(type).append("\",\"thread\":\"").append(s.thread).append('"');
        if (loc != null)
            b.append(",\"loc\":\"").append(loc).append('"');
        return b;
    }

    private static void end(TState s) {
        s.sb.append('}');
        out.line(s.sb);
    }

    private static void simple(TState s, String type, String loc, String var) {
        s.busy = true;
        try {
            begin(s, type, loc).append(",\"variable\":\"").append(var).append('"');
            end(s);
        } finally {
            s.busy = false;
        }
    }

    static String hex(Object o) {
        return Integer.toHexString(System.identityHashCode(o));
    }

    /** The name of an object in variables and locks: "Class@hash". */
    static String objName(Object o) {
        if (o instanceof Class)
            return "class:" + ((Class<?>) o).getName();
        return Json.esc(o.getClass().getName()) + "@" + hex(o);
    }

    static String newMsg() {
        return Json.esc(node) + ":" + msgIds.incrementAndGet();
    }

    // ---------------------------------------------------------------- fields

    public static void r(Object o, String var, String loc) {
        TState s = st();
        if (s == null || o == null) return;
        s.busy = true;
        try {
            begin(s, "R", loc).append(",\"variable\":\"").append(var).append('@').append(hex(o)).append('"');
            end(s);
        } finally { s.busy = false; }
    }

    public static void w(Object o, String var, String loc) {
        TState s = st();
        if (s == null || o == null) return;
        s.busy = true;
        try {
            begin(s, "W", loc).append(",\"variable\":\"").append(var).append('@').append(hex(o)).append('"');
            end(s);
        } finally { s.busy = false; }
    }

    public static void rs(String var, String loc) {
        TState s = st();
        if (s != null) simple(s, "R", loc, var);
    }

    public static void ws(String var, String loc) {
        TState s = st();
        if (s != null) simple(s, "W", loc, var);
    }

    // A volatile write is a NOTIFYALL, a volatile read the WAIT for the
    // last write before it (by another thread), recorded once per write
    // seen (orderNotify(), orderWait()).
    private static final ConcurrentHashMap<String, String[]> lastVolatile = new ConcurrentHashMap<>();

    public static void vw(Object o, String var, String loc) {
        if (o != null) volatileWrite(var + "@" + hex(o), loc);
    }

    public static void vr(Object o, String var, String loc) {
        if (o != null) volatileRead(var + "@" + hex(o), loc);
    }

    public static void vws(String var, String loc) { volatileWrite(var, loc); }

    public static void vrs(String var, String loc) { volatileRead(var, loc); }

    /** Volatile writes and thread starts, in the order they happen. */
    private static final AtomicLong clock = new AtomicLong();
    /** Thread (tid) -> {tid of the thread that started it, clock then}. */
    private static final ConcurrentHashMap<String, Object[]> origin = new ConcurrentHashMap<>();

    /**
     * Whether the write (by thread writer at clock w) is already ordered
     * before everything the thread reader does: the writer started the
     * reader (or an ancestor of it) after the write.
     */
    private static boolean startedAfter(String writer, long w, String reader) {
        String cur = reader;
        for (int depth = 0; depth < 32; depth++) {
            Object[] o = origin.get(cur);
            if (o == null) return false;
            if (o[0].equals(writer)) return w < (Long) o[1];
            cur = (String) o[0];
        }
        return false;
    }

    private static void volatileWrite(String key, String loc) {
        if (!volatileOrder) return;
        TState s = st();
        if (s == null) return;
        s.busy = true;
        try {
            String id = newMsg();
            String[] m = {id, s.tid, Long.toString(clock.incrementAndGet())};
            lastVolatile.put(key, m);
            s.seenVolatile.put(key, id);
            orderNotify(s, loc, id);
        } finally { s.busy = false; }
    }

    private static void volatileRead(String key, String loc) {
        if (!volatileOrder) return;
        TState s = st();
        if (s == null) return;
        String[] m = lastVolatile.get(key);
        if (m == null || m[1] == s.tid) return;
        s.busy = true;
        try {
            if (m[0].equals(s.seenVolatile.put(key, m[0]))) return;
            // ordered already by a thread start: a receive would add no
            // order, only a message race with the thread's other receives
            if (startedAfter(m[1], Long.parseLong(m[2]), s.tid)) return;
            orderWait(s, loc, m[0]);
        } finally { s.busy = false; }
    }

    // ---------------------------------------------------------------- orderings

    /**
     * What only orders (a volatile write and the reads of it, a task's end
     * or complete() and get(), countDown() and await()) is a NOTIFYALL and
     * the WAITs of a condition of its own, "sync:" and an id: Φ places
     * each WAIT after the one NOTIFYALL of another thread (a WAIT of the
     * same thread's is unconstrained).  Not a message: a receive would
     * race with the thread's other receives (a message race of no
     * message) and a handler could open for it.
     */
    private static void orderNotify(TState s, String loc, String id) {
        ordering(s, "NOTIFYALL", loc, id);
    }

    /** The WAIT of orderNotify()'s condition id, written after what it orders. */
    private static void orderWait(TState s, String loc, String id) {
        ordering(s, "WAIT", loc, id);
    }

    private static void ordering(TState s, String type, String loc, String id) {
        begin(s, type, loc).append(",\"variable\":\"sync:").append(id).append('"');
        end(s);
    }

    /** SND of an in-process hand-off: TCP on the channel (src, obj). */
    private static void send(TState s, String loc, String src, String obj, String id, boolean tcp) {
        begin(s, "SND", loc).append(",\"socket_type\":\"").append(tcp ? "TCP" : "QUEUE")
            .append("\",\"src\":\"").append(src).append("\",\"src_port\":0,\"dst\":\"").append(obj)
            .append("\",\"dst_port\":0,\"message\":\"").append(id).append("\",\"size\":1");
        end(s);
    }

    private static String recvLine(TState s, String loc, String src, String obj, String id, boolean tcp) {
        begin(s, "RCV", loc).append(",\"socket_type\":\"").append(tcp ? "TCP" : "QUEUE")
            .append("\",\"src\":\"").append(src).append("\",\"src_port\":0,\"dst\":\"").append(obj)
            .append("\",\"dst_port\":0,\"message\":\"").append(id).append("\",\"size\":1}");
        return s.sb.toString();
    }

    /** A receive a handler may be for (socket, queue, task). */
    private static void realRecvStart(TState s) {
        s.pendingReal = true;
    }

    // ---------------------------------------------------------------- monitors and locks

    private static void held(TState s, String var, int d) {
        int[] h = s.held.get(var);
        if (h == null) {
            if (d < 0) return;
            s.held.put(var, h = new int[1]);
        }
        h[0] += d;
        if (h[0] <= 0) s.held.remove(var);
    }

    private static int depth(TState s, String var) {
        int[] h = s.held.get(var);
        return h == null ? 0 : h[0];
    }

    private static void lockEv(TState s, String var, String loc) {
        simple(s, "LOCK", loc, var);
        held(s, var, 1);
    }

    private static void unlockEv(TState s, String var, String loc) {
        simple(s, "UNLOCK", loc, var);
        held(s, var, -1);
    }

    public static void lock(Object o, String loc) {
        TState s = st();
        if (s != null && o != null) lockEv(s, objName(o), loc);
    }

    public static void unlock(Object o, String loc) {
        TState s = st();
        if (s != null && o != null) unlockEv(s, objName(o), loc);
    }

    // A read lock and its write lock are one lock in the trace (docs/tracing.md).
    private static final Map<Object, String> lockNames = Collections.synchronizedMap(new WeakHashMap<>());

    private static String lockName(Object l) {
        String n = lockNames.get(l);
        return n != null ? n : objName(l);
    }

    public static void regRW(Object rw, Object l, String loc) {
        if (rw != null && l != null && ready) lockNames.put(l, objName(rw));
    }

    public static void lockL(Lock l, String loc) {
        l.lock();
        TState s = st();
        if (s != null) lockEv(s, lockName(l), loc);
    }

    public static void lockIL(Lock l, String loc) throws InterruptedException {
        l.lockInterruptibly();
        TState s = st();
        if (s != null) lockEv(s, lockName(l), loc);
    }

    public static boolean tryLockL(Lock l, String loc) {
        boolean b = l.tryLock();
        TState s;
        if (b && (s = st()) != null) lockEv(s, lockName(l), loc);
        return b;
    }

    public static boolean tryLockTL(Lock l, long t, TimeUnit u, String loc) throws InterruptedException {
        boolean b = l.tryLock(t, u);
        TState s;
        if (b && (s = st()) != null) lockEv(s, lockName(l), loc);
        return b;
    }

    public static void unlockL(Lock l, String loc) {
        TState s = st();
        if (s != null) unlockEv(s, lockName(l), loc);
        l.unlock();
    }

    // ---------------------------------------------------------------- wait / notify

    /**
     * Who may count as woken, per monitor or condition.  Every change is
     * made holding that monitor or lock (wait, notify and their Rt code
     * all run under it), so the counts are exact: a notify gives one token
     * if a traced thread waits, a notifyAll a new generation; a thread
     * back from wait() records WAIT only if a notifyAll came while it
     * waited or it takes a token.  So each NOTIFY has at most one WAIT
     * after it, and a wait that timed out or woke spuriously has none.
     */
    static final class Waiters {
        long gen;
        int waiting, tokens;
    }

    private static final ConcurrentHashMap<String, Waiters> waiters = new ConcurrentHashMap<>();

    private static void notifyEv(String var, boolean all, String loc) {
        TState s = st();
        if (s == null) return;
        Waiters w = waiters.computeIfAbsent(var, k -> new Waiters());
        synchronized (w) {
            if (all) { w.gen++; w.tokens = 0; }
            else if (w.tokens < w.waiting) w.tokens++;
        }
        simple(s, all ? "NOTIFYALL" : "NOTIFY", loc, var);
    }

    /** Before a wait: the generation to compare with afterwards. */
    private static long waitStart(Waiters w) {
        synchronized (w) { w.waiting++; return w.gen; }
    }

    /** After a wait: whether a notify woke this thread. */
    private static boolean waitEnd(Waiters w, long gen, boolean returned) {
        synchronized (w) {
            w.waiting--;
            if (!returned) return false;
            if (w.gen != gen) return true;
            if (w.tokens > 0) { w.tokens--; return true; }
            return false;
        }
    }

    public static void notifyO(Object o, String loc) {
        if (o != null) notifyEv(objName(o), false, loc);
        o.notify();
    }

    public static void notifyAllO(Object o, String loc) {
        if (o != null) notifyEv(objName(o), true, loc);
        o.notifyAll();
    }

    /** Before a wait: the monitor's sections end (all re-entries); returns the depth. */
    private static int release(TState s, String lockVar, String loc) {
        int d = depth(s, lockVar);
        for (int i = 0; i < d; i++) unlockEv(s, lockVar, loc);
        return d;
    }

    /**
     * After a wait: WAIT when the thread was woken by a notify (an untimed
     * wait, or a timed one during which some notify came), then the
     * sections start again.
     */
    private static void reacquire(TState s, String lockVar, String waitVar, int d, boolean woken, String loc) {
        if (woken) simple(s, "WAIT", loc, waitVar);
        for (int i = 0; i < d; i++) lockEv(s, lockVar, loc);
    }

    public static void waitO(Object o, String loc) throws InterruptedException {
        waitAny(o, -1, 0, loc);
    }

    public static void waitJ(Object o, long ms, String loc) throws InterruptedException {
        waitAny(o, ms, 0, loc);
    }

    public static void waitJI(Object o, long ms, int ns, String loc) throws InterruptedException {
        waitAny(o, ms, ns, loc);
    }

    private static void waitAny(Object o, long ms, int ns, String loc) throws InterruptedException {
        TState s = o == null ? null : st();
        if (s == null) {
            if (ms < 0) o.wait(); else o.wait(ms, ns);
            return;
        }
        String var = objName(o);
        int d = release(s, var, loc);
        Waiters w = waiters.computeIfAbsent(var, k -> new Waiters());
        long gen = waitStart(w);
        boolean ok = false;
        try {
            if (ms < 0 || (ms == 0 && ns == 0)) o.wait(); else o.wait(ms, ns);
            ok = true;
        } finally {
            reacquire(s, var, var, d, waitEnd(w, gen, ok), loc);
        }
    }

    // Conditions of java.util.concurrent locks: await is a wait on the
    // condition that releases its lock, signal a notify.
    private static final Map<Object, String> condLocks = Collections.synchronizedMap(new WeakHashMap<>());

    public static void regCond(Object l, Object c, String loc) {
        if (l != null && c != null && ready) condLocks.put(c, lockName(l));
    }

    private static long condWait(Condition c, int kind, long t, TimeUnit u, String loc) throws InterruptedException {
        TState s = st();
        String lv = s == null ? null : condLocks.get(c);
        String cv = s == null ? null : objName(c);
        int d = lv == null ? 0 : release(s, lv, loc);
        Waiters w = cv == null ? null : waiters.computeIfAbsent(cv, k -> new Waiters());
        long gen = w == null ? 0 : waitStart(w);
        boolean ok = false;
        long r = 0;
        try {
            switch (kind) {
            case 0: c.await(); break;
            case 1: r = c.await(t, u) ? 1 : 0; break;
            case 2: r = c.awaitNanos(t); break;
            default: c.awaitUninterruptibly(); break;
            }
            ok = true;
        } finally {
            if (s != null)
                reacquire(s, lv == null ? cv : lv, cv, lv == null ? 0 : d, waitEnd(w, gen, ok), loc);
        }
        return r;
    }

    public static void condAwait(Condition c, String loc) throws InterruptedException {
        condWait(c, 0, 0, null, loc);
    }

    public static boolean condAwaitT(Condition c, long t, TimeUnit u, String loc) throws InterruptedException {
        return condWait(c, 1, t, u, loc) != 0;
    }

    public static long condAwaitNanos(Condition c, long t, String loc) throws InterruptedException {
        return condWait(c, 2, t, null, loc);
    }

    public static void condAwaitU(Condition c, String loc) {
        try { condWait(c, 3, 0, null, loc); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    public static void condSignal(Condition c, String loc) {
        notifyEv(objName(c), false, loc);
        c.signal();
    }

    public static void condSignalAll(Condition c, String loc) {
        notifyEv(objName(c), true, loc);
        c.signalAll();
    }

    // ---------------------------------------------------------------- threads

    /** Thread.start(), before the thread starts: CREATE in the starter. */
    public static void tstart(Thread t) {
        TState s = st();
        if (s == null || t == null || t.getName().startsWith("spider-agent-")) return;
        s.busy = true;
        try {
            String n = names.get(t);
            if (n == null) {
                n = newName(t);
                names.put(t, n);
            }
            origin.put(n, new Object[] {s.tid, clock.incrementAndGet()});
            begin(s, "CREATE", callerLoc()).append(",\"child\":\"").append(Json.esc(n + "@" + node)).append('"');
            end(s);
        } finally { s.busy = false; }
    }

    /** Thread.exit(), as the thread ends. */
    public static void texit() {
        if (!ready) return;
        TState s = TL.get();
        if (s == null || s.busy) return;
        s.busy = true;
        try {
            begin(s, "END", null);
            end(s);
        } finally { s.busy = false; }
    }

    public static void joined(Object t, String loc) {
        TState s = st();
        if (s == null || !(t instanceof Thread) || ((Thread) t).isAlive()) return;
        String n = names.get(t);
        if (n == null) return;
        s.busy = true;
        try {
            begin(s, "JOIN", loc).append(",\"child\":\"").append(Json.esc(n + "@" + node)).append('"');
            end(s);
        } finally { s.busy = false; }
    }

    public static void joinJ(Thread t, long ms, String loc) throws InterruptedException {
        t.join(ms);
        joined(t, loc);
    }

    /** The first caller outside the JDK and the agent, as a location. */
    static String callerLoc() {
        return StackWalker.getInstance().walk(f -> f
            .filter(x -> {
                String c = x.getClassName();
                return !(c.startsWith("java.") || c.startsWith("sun.") || c.startsWith("jdk.")
                         || c.startsWith("spider.agent."));
            })
            .findFirst()
            .map(x -> Json.esc(x.getClassName() + "." + x.getMethodName() + "." + x.getLineNumber()))
            .orElse(null));
    }

    // ---------------------------------------------------------------- queues

    /**
     * Messages in flight through queues: by queue, then by element
     * (identity), first in first out.  The queue matters: one object may
     * travel through two queues at once (ZooKeeper's leader hands a
     * request to its commit and its sync processors).
     */
    private static final Map<Object, IdentityHashMap<Object, ArrayDeque<String[]>>> inflight = new WeakHashMap<>();

    /** A queue that threads share by contract: java.util.concurrent's, or a
     *  BlockingQueue of the program's own (ZooKeeper's CircularBlockingQueue);
     *  not an ArrayDeque or LinkedList a thread keeps to itself. */
    private static boolean concurrentQueue(Object q) {
        return q != null && (q.getClass().getName().startsWith("java.util.concurrent.") ||
                             q instanceof java.util.concurrent.BlockingQueue);
    }

    /** Before put/offer/add...(e): SND, the message remembered by (q, e). */
    public static void qsnd(Object q, Object e, String loc) {
        if (e == null || !concurrentQueue(q)) return;
        TState s = st();
        if (s == null) return;
        s.busy = true;
        try {
            String qn = q.getClass().getName();
            boolean fifo = !(qn.contains("Priority") || qn.contains("Delay"));
            String id = newMsg();
            String[] m = {id, s.thread, "q:" + objName(q), fifo ? "T" : "Q"};
            synchronized (inflight) {
                inflight.computeIfAbsent(q, k -> new IdentityHashMap<>())
                        .computeIfAbsent(e, k -> new ArrayDeque<>()).addLast(m);
            }
            send(s, loc, m[1], m[2], id, fifo);
        } finally { s.busy = false; }
    }

    /** The message that brought e into q: removed (a take) or not (a peek). */
    private static String[] inflight(Object q, Object e, boolean remove) {
        synchronized (inflight) {
            IdentityHashMap<Object, ArrayDeque<String[]>> byElem = inflight.get(q);
            if (byElem == null) return null;
            ArrayDeque<String[]> d = byElem.get(e);
            if (d == null) return null;
            if (!remove) return d.peekFirst();
            String[] m = d.pollFirst();
            if (d.isEmpty()) byElem.remove(e);
            return m;
        }
    }

    /** After take/poll/remove... of q returned e: RCV of the message that brought e. */
    public static void qrcv(Object q, Object e, String loc) {
        if (e == null || q == null) return;
        TState s = st();
        if (s == null) return;
        String[] m = inflight(q, e, true);
        // a thread's hand-off to itself is ordered by its program order, and
        // an element this thread peeked at was received then: a receive
        // would add nothing but message races with its real ones
        if (m == null || m[1].equals(s.thread) || m[0].equals(s.lastPeek)) return;
        s.busy = true;
        try {
            realRecvStart(s);
            out.line(recvLine(s, loc, m[1], m[2], m[0], m[3].equals("T")));
        } finally { s.busy = false; }
    }

    /** After getFirst/peek/element... of q returned e: RCV of e's message, which stays in flight. */
    public static void qpeek(Object q, Object e, String loc) {
        if (e == null || q == null) return;
        TState s = st();
        if (s == null) return;
        String[] m = inflight(q, e, false);
        if (m == null || m[0].equals(s.lastPeek) || m[1].equals(s.thread)) return;
        s.busy = true;
        try {
            s.lastPeek = m[0];
            realRecvStart(s);
            out.line(recvLine(s, loc, m[1], m[2], m[0], m[3].equals("T")));
        } finally { s.busy = false; }
    }

    /** remove(e): a take of e when it was there. */
    public static boolean qremove(java.util.Collection<Object> q, Object e, String loc) {
        boolean r = q.remove(e);
        if (r) qrcv(q, e, loc);
        return r;
    }

    public static boolean qremoveFO(java.util.Deque<Object> q, Object e, String loc) {
        boolean r = q.removeFirstOccurrence(e);
        if (r) qrcv(q, e, loc);
        return r;
    }

    public static Object qpollT(BlockingQueue<Object> q, long t, TimeUnit u, String loc) throws InterruptedException {
        Object e = q.poll(t, u);
        qrcv(q, e, loc);
        return e;
    }

    public static Object qpollFirstT(java.util.concurrent.BlockingDeque<Object> q, long t, TimeUnit u, String loc)
            throws InterruptedException {
        Object e = q.pollFirst(t, u);
        qrcv(q, e, loc);
        return e;
    }

    public static Object qpollLastT(java.util.concurrent.BlockingDeque<Object> q, long t, TimeUnit u, String loc)
            throws InterruptedException {
        Object e = q.pollLast(t, u);
        qrcv(q, e, loc);
        return e;
    }

    public static boolean qofferT(BlockingQueue<Object> q, Object e, long t, TimeUnit u, String loc) throws InterruptedException {
        qsnd(q, e, loc);
        return q.offer(e, t, u);
    }

    public static int drain(BlockingQueue<Object> q, Collection<Object> c, String loc) {
        List<Object> tmp = new ArrayList<>();
        int n = q.drainTo(tmp);
        c.addAll(tmp);
        for (Object e : tmp) qrcv(q, e, loc);
        return n;
    }

    public static int drainN(BlockingQueue<Object> q, Collection<Object> c, int max, String loc) {
        List<Object> tmp = new ArrayList<>();
        int n = q.drainTo(tmp, max);
        c.addAll(tmp);
        for (Object e : tmp) qrcv(q, e, loc);
        return n;
    }

    // ---------------------------------------------------------------- tasks, futures, latches

    /** A task handed to an executor: its submission is a SND, its start the RCV. */
    static final class Wrap implements Runnable, Callable<Object>, Supplier<Object> {
        final Object task;
        final String id, src, chan, loc;
        final String done;   // NOTIFYALL at the end: what a Future.get() waits for
        volatile String doneSrc;

        Wrap(Object task, String id, String src, String chan, String loc) {
            this.task = task; this.id = id; this.src = src; this.chan = chan; this.loc = loc;
            this.done = id + "d";
        }

        private void start() {
            TState s = st();
            if (s == null || src.equals(s.thread)) return;   // run by its submitter
            s.busy = true;
            try {
                realRecvStart(s);
                out.line(recvLine(s, loc, src, chan, id, true));
            } finally { s.busy = false; }
        }

        private void finish() {
            TState s = st();
            if (s == null) return;
            s.busy = true;
            try {
                doneSrc = s.thread;
                orderNotify(s, loc, done);
            } finally { s.busy = false; }
        }

        @Override public void run() {
            start();
            try { ((Runnable) task).run(); } finally { finish(); }
        }

        @Override public Object call() throws Exception {
            start();
            try { return ((Callable<?>) task).call(); } finally { finish(); }
        }

        @Override public Object get() {
            start();
            try { return ((Supplier<?>) task).get(); } finally { finish(); }
        }
    }

    private static final Map<Object, Object> futures = Collections.synchronizedMap(new WeakHashMap<>());

    private static Object wrap(Object task, Object executor, String loc) {
        if (task == null || task instanceof Wrap) return task;
        TState s = st();
        if (s == null) return task;
        s.busy = true;
        try {
            String id = newMsg();
            String chan = "x:" + (executor == null ? "common" : objName(executor));
            Wrap w = new Wrap(task, id, s.thread, chan, loc);
            send(s, loc, s.thread, chan, id, true);
            s.lastWrap = w;
            return w;
        } finally { s.busy = false; }
    }

    public static Runnable wrapR(Runnable r, String loc) {
        Object w = wrap(r, null, loc);
        return (Runnable) w;
    }

    @SuppressWarnings("unchecked")
    public static Callable<Object> wrapC(Callable<Object> c, String loc) {
        Object w = wrap(c, null, loc);
        return (Callable<Object>) w;
    }

    /** After submit(...): the Future is the task's. */
    public static void bindF(Object f, String loc) {
        TState s = st();
        if (s == null || f == null || s.lastWrap == null) return;
        futures.put(f, s.lastWrap);
        s.lastWrap = null;
    }

    public static ScheduledFuture<?> schedR(ScheduledExecutorService e, Runnable r, long d, TimeUnit u, String loc) {
        ScheduledFuture<?> f = e.schedule(wrapR(r, loc), d, u);
        bindF(f, loc);
        return f;
    }

    public static ScheduledFuture<?> schedC(ScheduledExecutorService e, Callable<Object> c, long d, TimeUnit u, String loc) {
        ScheduledFuture<?> f = e.schedule(wrapC(c, loc), d, u);
        bindF(f, loc);
        return f;
    }

    public static ScheduledFuture<?> schedRate(ScheduledExecutorService e, Runnable r, long a, long b, TimeUnit u, String loc) {
        return e.scheduleAtFixedRate(wrapR(r, loc), a, b, u);
    }

    public static ScheduledFuture<?> schedDelay(ScheduledExecutorService e, Runnable r, long a, long b, TimeUnit u, String loc) {
        return e.scheduleWithFixedDelay(wrapR(r, loc), a, b, u);
    }

    public static CompletableFuture<Void> runAsync(Runnable r, String loc) {
        CompletableFuture<Void> f = CompletableFuture.runAsync(wrapR(r, loc));
        bindF(f, loc);
        return f;
    }

    public static CompletableFuture<Void> runAsyncE(Runnable r, Executor e, String loc) {
        CompletableFuture<Void> f = CompletableFuture.runAsync(wrapR(r, loc), e);
        bindF(f, loc);
        return f;
    }

    @SuppressWarnings("unchecked")
    public static CompletableFuture<Object> supplyAsync(Supplier<Object> p, String loc) {
        CompletableFuture<Object> f = CompletableFuture.supplyAsync((Supplier<Object>) wrap(p, null, loc));
        bindF(f, loc);
        return f;
    }

    @SuppressWarnings("unchecked")
    public static CompletableFuture<Object> supplyAsyncE(Supplier<Object> p, Executor e, String loc) {
        CompletableFuture<Object> f = CompletableFuture.supplyAsync((Supplier<Object>) wrap(p, e, loc), e);
        bindF(f, loc);
        return f;
    }

    /** Before CompletableFuture.complete(v): a NOTIFYALL the future's get() waits for. */
    public static void fcomplete(Object f, String loc) {
        TState s = st();
        if (s == null || f == null) return;
        s.busy = true;
        try {
            String id = newMsg();
            futures.put(f, id);
            orderNotify(s, loc, id);
        } finally { s.busy = false; }
    }

    /** After get()/join() returned: WAIT for the task's end (or complete()). */
    public static void fget(Object f, String loc) {
        TState s = st();
        if (s == null || f == null) return;
        Object b = futures.get(f);
        String id;
        if (b instanceof Wrap) {
            Wrap w = (Wrap) b;
            if (w.doneSrc == null) return;
            id = w.done;
        } else if (b instanceof String) {
            id = (String) b;
        } else {
            return;
        }
        s.busy = true;
        try { orderWait(s, loc, id); } finally { s.busy = false; }
    }

    public static Object fgetT(Future<?> f, long t, TimeUnit u, String loc)
            throws InterruptedException, ExecutionException, TimeoutException {
        Object r = f.get(t, u);
        fget(f, loc);
        return r;
    }

    private static final Map<Object, List<String>> latches = Collections.synchronizedMap(new WeakHashMap<>());

    /** Before countDown(): a NOTIFYALL every await() after it waits for. */
    public static void cdown(Object l, String loc) {
        TState s = st();
        if (s == null || l == null) return;
        s.busy = true;
        try {
            String id = newMsg();
            synchronized (latches) {
                latches.computeIfAbsent(l, k -> new ArrayList<>()).add(id);
            }
            orderNotify(s, loc, id);
        } finally { s.busy = false; }
    }

    /** After await() returned: a WAIT for every countDown() so far. */
    public static void cawait(Object l, String loc) {
        TState s = st();
        if (s == null || l == null) return;
        List<String> ids;
        synchronized (latches) {
            List<String> x = latches.get(l);
            if (x == null) return;
            ids = new ArrayList<>(x);
        }
        s.busy = true;
        try {
            for (String id : ids) orderWait(s, loc, id);
        } finally { s.busy = false; }
    }

    public static boolean cawaitT(CountDownLatch l, long t, TimeUnit u, String loc) throws InterruptedException {
        boolean b = l.await(t, u);
        if (b) cawait(l, loc);
        return b;
    }

    // ---------------------------------------------------------------- handlers

    /**
     * A handler starts.  spider opens it for the thread's latest receive
     * that has no handler yet; when nothing was received since the last
     * handler began (one socket read brought several messages, or the
     * handler runs for no message), that would be an older, unrelated
     * receive: such a handler is not recorded (its events stay in the
     * enclosing context), rather than opened for the wrong message.
     */
    public static void hbegin(String loc) {
        TState s = st();
        if (s == null) return;
        s.busy = true;
        try {
            if (!s.pendingReal) {
                s.handlers.push(Boolean.FALSE);
                return;
            }
            s.handlers.push(Boolean.TRUE);
            s.handlerDepth++;
            begin(s, "HANDLERBEGIN", loc);
            end(s);
            s.pendingReal = false;
        } finally { s.busy = false; }
    }

    public static void hend(String loc) {
        TState s = st();
        if (s == null || s.handlers.isEmpty()) return;
        s.busy = true;
        try {
            if (!s.handlers.pop()) return;
            s.handlerDepth--;
            begin(s, "HANDLEREND", loc);
            end(s);
        } finally { s.busy = false; }
    }

    // ---------------------------------------------------------------- sockets

    private static final Map<Object, String[]> channels = Collections.synchronizedMap(new WeakHashMap<>());

    private static String[] ends(Object sock) {
        String[] c = channels.get(sock);
        if (c != null) return c;
        InetSocketAddress l = null, r = null;
        try {
            if (sock instanceof Socket) {
                Socket so = (Socket) sock;
                if (so.getInetAddress() == null) return null;
                l = new InetSocketAddress(so.getLocalAddress(), so.getLocalPort());
                r = new InetSocketAddress(so.getInetAddress(), so.getPort());
            } else if (sock instanceof SocketChannel) {
                l = (InetSocketAddress) ((SocketChannel) sock).getLocalAddress();
                r = (InetSocketAddress) ((SocketChannel) sock).getRemoteAddress();
            }
        } catch (Exception e) {
            return null;
        }
        if (l == null || r == null) return null;
        c = new String[] {l.getAddress().getHostAddress(), Integer.toString(l.getPort()),
                          r.getAddress().getHostAddress(), Integer.toString(r.getPort())};
        channels.put(sock, c);
        return c;
    }

    private static void sockEv(Object sock, String type, long n) {
        TState s = st();
        if (s == null || n <= 0 && (type.equals("SND") || type.equals("RCV"))) return;
        s.busy = true;
        try {
            String[] c = ends(sock);
            if (c == null) return;
            boolean in = type.equals("RCV") || type.equals("ACCEPT");
            if (type.equals("RCV")) realRecvStart(s);
            StringBuilder b = begin(s, type, callerLoc());
            b.append(",\"socket_type\":\"TCP\",\"src\":\"").append(in ? c[2] : c[0])
             .append("\",\"src_port\":").append(in ? c[3] : c[1])
             .append(",\"dst\":\"").append(in ? c[0] : c[2])
             .append("\",\"dst_port\":").append(in ? c[1] : c[3]);
            if (n >= 0) b.append(",\"size\":").append(n);
            end(s);
        } finally { s.busy = false; }
    }

    /** Socket output stream write(b, off, len) / write(int), on entry. */
    public static void sockW(Socket so, int n) { sockEv(so, "SND", n); }

    /** Socket input stream read: n bytes read (the return value). */
    public static void sockR(Socket so, int n) { sockEv(so, "RCV", n); }

    public static void sockR1(Socket so, int b) { if (b >= 0) sockEv(so, "RCV", 1); }

    public static void sockConnect(Socket so) { sockEv(so, "CONNECT", -1); }

    public static void sockAccept(Object so) { if (so != null) sockEv(so, "ACCEPT", -1); }

    public static void chW(Object ch, int n) { sockEv(ch, "SND", n); }

    public static void chR(Object ch, int n) { sockEv(ch, "RCV", n); }

    public static void chWL(Object ch, long n) { sockEv(ch, "SND", n); }

    public static void chRL(Object ch, long n) { sockEv(ch, "RCV", n); }

    public static void chConnect(Object ch, boolean done) { if (done) sockEv(ch, "CONNECT", -1); }

    // ---------------------------------------------------------------- datagrams
    // A datagram's id is made of its ports, length and CRC-32, which both
    // ends compute alike (an id sent twice is a disjunction for spider).

    private static int port(SocketAddress a) {
        return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getPort() : 0;
    }

    private static String host(SocketAddress a) {
        return a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null
            ? ((InetSocketAddress) a).getAddress().getHostAddress() : "?";
    }

    private static long crc(ByteBuffer b, int from, int to) {
        CRC32 c = new CRC32();
        ByteBuffer d = b.duplicate();
        d.limit(to).position(from);
        c.update(d);
        return c.getValue();
    }

    private static void udp(TState s, String type, SocketAddress from, SocketAddress to, long crc, int len) {
        String id = "udp:" + port(from) + ">" + port(to) + ":" + len + ":" + Long.toHexString(crc);
        begin(s, type, callerLoc()).append(",\"socket_type\":\"UDP\",\"src\":\"").append(host(from))
            .append("\",\"src_port\":").append(port(from)).append(",\"dst\":\"").append(host(to))
            .append("\",\"dst_port\":").append(port(to)).append(",\"message\":\"").append(id)
            .append("\",\"size\":").append(len);
        end(s);
    }

    /** DatagramChannelImpl.send(buf, target), on entry. */
    public static void udpSendPre(ByteBuffer b, SocketAddress target) {
        TState s = st();
        if (s == null || b == null) return;
        s.busy = true;
        try {
            s.udpCrc = crc(b, b.position(), b.limit());
            s.udpLen = b.remaining();
            s.udpTarget = target;
        } finally { s.busy = false; }
    }

    /** DatagramChannelImpl.send, on exit with the bytes sent. */
    public static void udpSendPost(Object ch, int n) {
        TState s = st();
        if (s == null || n <= 0 || s.udpTarget == null) return;
        s.busy = true;
        try {
            SocketAddress local = null;
            try { local = ((DatagramChannel) ch).getLocalAddress(); } catch (Exception e) { }
            udp(s, "SND", local, s.udpTarget, s.udpCrc, s.udpLen);
            s.udpTarget = null;
        } finally { s.busy = false; }
    }

    /** DatagramChannelImpl.receive(buf), on entry. */
    public static void udpRecvPre(ByteBuffer b) {
        TState s = st();
        if (s != null && b != null) s.udpPos = b.position();
    }

    /** DatagramChannelImpl.receive(buf), on exit with the sender. */
    public static void udpRecvPost(SocketAddress from, Object ch, ByteBuffer b) {
        TState s = st();
        if (s == null || from == null || b == null) return;
        s.busy = true;
        try {
            SocketAddress local = null;
            try { local = ((DatagramChannel) ch).getLocalAddress(); } catch (Exception e) { }
            realRecvStart(s);
            udp(s, "RCV", from, local, crc(b, s.udpPos, b.position()), b.position() - s.udpPos);
        } finally { s.busy = false; }
    }

    /** DatagramSocket (the adaptor): send(p) on entry, receive(p) on exit. */
    public static void udpPacket(Object sock, DatagramPacket p, boolean send) {
        TState s = st();
        if (s == null || p == null) return;
        s.busy = true;
        try {
            SocketAddress local = ((java.net.DatagramSocket) sock).getLocalSocketAddress();
            ByteBuffer b = ByteBuffer.wrap(p.getData(), p.getOffset(), p.getLength());
            long c = crc(b, b.position(), b.limit());
            if (send) {
                udp(s, "SND", local, p.getSocketAddress(), c, p.getLength());
            } else {
                realRecvStart(s);
                udp(s, "RCV", p.getSocketAddress(), local, c, p.getLength());
            }
        } finally { s.busy = false; }
    }
}
