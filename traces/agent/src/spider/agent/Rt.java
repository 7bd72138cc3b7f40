package spider.agent;

import static spider.agent.Events.*;

import java.net.DatagramPacket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * What instrumented code calls.  Every entry point is static, takes the
 * location ("pkg.Class.method.line") last where it has one, and records
 * nothing while the current thread is already inside the agent (the
 * agent's own use of the JDK is never traced) or before the agent is set
 * up.  docs/tracing.md says what each Java construct becomes and why.
 *
 * The instrumentation calls these entry points here, by name and
 * descriptor (Transformer.RT).  What they share is in package-private
 * classes: Events (the current thread's state, thread names, message
 * ids, event lines), Volatiles, Locking (monitors, locks, wait/notify,
 * conditions), InFlight (queues), TaskState (tasks, futures, latches)
 * and Net (sockets, datagrams).
 */
public final class Rt {
    private Rt() {}

    static volatile boolean ready;
    static String node;
    static Out out;
    static boolean volatileOrder = true;
    static boolean haveHandlers;

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

    // A volatile write is a NOTIFYALL, a volatile read the WAIT for it:
    // Volatiles.java.

    public static void vw(Object o, String var, String loc) {
        if (o != null) Volatiles.volatileWrite(var + "@" + hex(o), loc);
    }

    public static void vr(Object o, String var, String loc) {
        if (o != null) Volatiles.volatileRead(var + "@" + hex(o), loc);
    }

    public static void vws(String var, String loc) { Volatiles.volatileWrite(var, loc); }

    public static void vrs(String var, String loc) { Volatiles.volatileRead(var, loc); }

    // ---------------------------------------------------------------- monitors and locks

    public static void lock(Object o, String loc) {
        TState s = st();
        if (s != null && o != null) Locking.lockEv(s, objName(o), loc);
    }

    public static void unlock(Object o, String loc) {
        TState s = st();
        if (s != null && o != null) Locking.unlockEv(s, objName(o), loc);
    }

    public static void regRW(Object rw, Object l, String loc) {
        if (rw != null && l != null && ready) Locking.lockNames.put(l, objName(rw));
    }

    public static void lockL(Lock l, String loc) {
        l.lock();
        TState s = st();
        if (s != null) Locking.lockEv(s, Locking.lockName(l), loc);
    }

    public static void lockIL(Lock l, String loc) throws InterruptedException {
        l.lockInterruptibly();
        TState s = st();
        if (s != null) Locking.lockEv(s, Locking.lockName(l), loc);
    }

    public static boolean tryLockL(Lock l, String loc) {
        boolean b = l.tryLock();
        TState s;
        if (b && (s = st()) != null) Locking.lockEv(s, Locking.lockName(l), loc);
        return b;
    }

    public static boolean tryLockTL(Lock l, long t, TimeUnit u, String loc) throws InterruptedException {
        boolean b = l.tryLock(t, u);
        TState s;
        if (b && (s = st()) != null) Locking.lockEv(s, Locking.lockName(l), loc);
        return b;
    }

    public static void unlockL(Lock l, String loc) {
        TState s = st();
        if (s != null) Locking.unlockEv(s, Locking.lockName(l), loc);
        l.unlock();
    }

    // ---------------------------------------------------------------- wait / notify

    public static void notifyO(Object o, String loc) {
        if (o != null) Locking.notifyEv(objName(o), false, loc);
        o.notify();
    }

    public static void notifyAllO(Object o, String loc) {
        if (o != null) Locking.notifyEv(objName(o), true, loc);
        o.notifyAll();
    }

    public static void waitO(Object o, String loc) throws InterruptedException {
        Locking.waitAny(o, -1, 0, loc);
    }

    public static void waitJ(Object o, long ms, String loc) throws InterruptedException {
        Locking.waitAny(o, ms, 0, loc);
    }

    public static void waitJI(Object o, long ms, int ns, String loc) throws InterruptedException {
        Locking.waitAny(o, ms, ns, loc);
    }

    // Conditions of java.util.concurrent locks: await is a wait on the
    // condition that releases its lock, signal a notify.
    public static void regCond(Object l, Object c, String loc) {
        if (l != null && c != null && ready) Locking.condLocks.put(c, Locking.lockName(l));
    }

    public static void condAwait(Condition c, String loc) throws InterruptedException {
        Locking.condWait(c, 0, 0, null, loc);
    }

    public static boolean condAwaitT(Condition c, long t, TimeUnit u, String loc) throws InterruptedException {
        return Locking.condWait(c, 1, t, u, loc) != 0;
    }

    public static long condAwaitNanos(Condition c, long t, String loc) throws InterruptedException {
        return Locking.condWait(c, 2, t, null, loc);
    }

    public static void condAwaitU(Condition c, String loc) {
        try { Locking.condWait(c, 3, 0, null, loc); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    public static void condSignal(Condition c, String loc) {
        Locking.notifyEv(objName(c), false, loc);
        c.signal();
    }

    public static void condSignalAll(Condition c, String loc) {
        Locking.notifyEv(objName(c), true, loc);
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
            Volatiles.started(n, s.tid);
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

    // ---------------------------------------------------------------- queues

    // The messages in flight through queues: InFlight.java.

    /** Before put/offer/add...(e): SND, the message remembered by (q, e). */
    public static void qsnd(Object q, Object e, String loc) {
        if (e == null || !InFlight.concurrentQueue(q)) return;
        TState s = st();
        if (s == null) return;
        s.busy = true;
        try {
            String qn = q.getClass().getName();
            boolean fifo = !(qn.contains("Priority") || qn.contains("Delay"));
            String id = newMsg();
            String[] m = {id, s.thread, "q:" + objName(q), fifo ? "T" : "Q"};
            InFlight.add(q, e, m);
            send(s, loc, m[1], m[2], id, fifo);
        } finally { s.busy = false; }
    }

    /** After take/poll/remove... of q returned e: RCV of the message that brought e. */
    public static void qrcv(Object q, Object e, String loc) {
        if (e == null || q == null) return;
        TState s = st();
        if (s == null) return;
        String[] m = InFlight.message(q, e, true);
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
        String[] m = InFlight.message(q, e, false);
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

    // Tasks (TaskState.Wrap), futures and latches: TaskState.java.

    public static Runnable wrapR(Runnable r, String loc) {
        Object w = TaskState.wrap(r, null, loc);
        return (Runnable) w;
    }

    @SuppressWarnings("unchecked")
    public static Callable<Object> wrapC(Callable<Object> c, String loc) {
        Object w = TaskState.wrap(c, null, loc);
        return (Callable<Object>) w;
    }

    /** After submit(...): the Future is the task's. */
    public static void bindF(Object f, String loc) {
        TState s = st();
        if (s == null || f == null || s.lastWrap == null) return;
        TaskState.futures.put(f, s.lastWrap);
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
        CompletableFuture<Object> f = CompletableFuture.supplyAsync((Supplier<Object>) TaskState.wrap(p, null, loc));
        bindF(f, loc);
        return f;
    }

    @SuppressWarnings("unchecked")
    public static CompletableFuture<Object> supplyAsyncE(Supplier<Object> p, Executor e, String loc) {
        CompletableFuture<Object> f = CompletableFuture.supplyAsync((Supplier<Object>) TaskState.wrap(p, e, loc), e);
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
            TaskState.futures.put(f, id);
            orderNotify(s, loc, id);
        } finally { s.busy = false; }
    }

    /** After get()/join() returned: WAIT for the task's end (or complete()). */
    public static void fget(Object f, String loc) {
        TState s = st();
        if (s == null || f == null) return;
        Object b = TaskState.futures.get(f);
        String id;
        if (b instanceof TaskState.Wrap) {
            TaskState.Wrap w = (TaskState.Wrap) b;
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

    /** Before countDown(): a NOTIFYALL every await() after it waits for. */
    public static void cdown(Object l, String loc) {
        TState s = st();
        if (s == null || l == null) return;
        s.busy = true;
        try {
            String id = newMsg();
            synchronized (TaskState.latches) {
                TaskState.latches.computeIfAbsent(l, k -> new ArrayList<>()).add(id);
            }
            orderNotify(s, loc, id);
        } finally { s.busy = false; }
    }

    /** After await() returned: a WAIT for every countDown() so far. */
    public static void cawait(Object l, String loc) {
        TState s = st();
        if (s == null || l == null) return;
        List<String> ids;
        synchronized (TaskState.latches) {
            List<String> x = TaskState.latches.get(l);
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

    // A connection's ends and the SND/RCV lines: Net.java.

    /** Socket output stream write(b, off, len) / write(int), on entry. */
    public static void sockW(Socket so, int n) { Net.sockEv(so, "SND", n); }

    /** Socket input stream read: n bytes read (the return value). */
    public static void sockR(Socket so, int n) { Net.sockEv(so, "RCV", n); }

    public static void sockR1(Socket so, int b) { if (b >= 0) Net.sockEv(so, "RCV", 1); }

    public static void sockConnect(Socket so) { Net.sockEv(so, "CONNECT", -1); }

    public static void sockAccept(Object so) { if (so != null) Net.sockEv(so, "ACCEPT", -1); }

    public static void chW(Object ch, int n) { Net.sockEv(ch, "SND", n); }

    public static void chR(Object ch, int n) { Net.sockEv(ch, "RCV", n); }

    public static void chWL(Object ch, long n) { Net.sockEv(ch, "SND", n); }

    public static void chRL(Object ch, long n) { Net.sockEv(ch, "RCV", n); }

    public static void chConnect(Object ch, boolean done) { if (done) Net.sockEv(ch, "CONNECT", -1); }

    // ---------------------------------------------------------------- datagrams
    // Datagram ids, lines and the sends and receives in progress: Net.java.

    /** DatagramChannelImpl.send(buf, target), on entry. */
    public static void udpSendPre(ByteBuffer b, SocketAddress target) { Net.udpSendPre(b, target); }

    /** DatagramChannelImpl.send, on exit with the bytes sent. */
    public static void udpSendPost(Object ch, int n) { Net.udpSendPost(ch, n); }

    /** DatagramChannelImpl.receive(buf), on entry. */
    public static void udpRecvPre(ByteBuffer b) { Net.udpRecvPre(b); }

    /** DatagramChannelImpl.receive(buf), on exit with the sender. */
    public static void udpRecvPost(SocketAddress from, Object ch, ByteBuffer b) { Net.udpRecvPost(from, ch, b); }

    /** DatagramSocket (the adaptor): send(p) on entry, receive(p) on exit. */
    public static void udpPacket(Object sock, DatagramPacket p, boolean send) { Net.udpPacket(sock, p, send); }
}
