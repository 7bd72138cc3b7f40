package spider.agent;

import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every part of the runtime (Rt) shares: the current thread's
 * state, thread names and message ids, and the event lines written to
 * the trace (Rt.out), those common to several kinds of event included.
 */
final class Events {
    private Events() {}

    static final class TState {
        String tid;             // "name#N", the thread part of "thread"
        String thread;          // JSON-escaped "tid@node"
        boolean busy;
        int handlerDepth;
        boolean pendingReal;    // a RCV waits for its handler
        final HashMap<String, int[]> held = new HashMap<>();
        final HashMap<String, String> seenVolatile = new HashMap<>();
        final StringBuilder sb = new StringBuilder(256);
        TaskState.Wrap lastWrap;
        String lastPeek;
        final ArrayDeque<Boolean> handlers = new ArrayDeque<>(); // recorded or not, per open handler
        // datagram send/receive in progress
        long udpCrc; int udpLen; int udpPos; SocketAddress udpTarget;
    }

    static final ThreadLocal<TState> TL = new ThreadLocal<>();
    private static final AtomicLong threadIds = new AtomicLong();
    private static final AtomicLong msgIds = new AtomicLong();
    static final Map<Thread, String> names =
        Collections.synchronizedMap(new WeakHashMap<>());

    /** The current thread's state, or null when nothing must be recorded. */
    static TState st() {
        if (!Rt.ready)
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
            s.thread = Json.esc(n + "@" + Rt.node);
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
    static StringBuilder begin(TState s, String type, String loc) {
        StringBuilder b = s.sb;
        b.setLength(0);
        b.append("{\"type\":\"").append(type).append("\",\"thread\":\"").append(s.thread).append('"');
        if (loc != null)
            b.append(",\"loc\":\"").append(loc).append('"');
        return b;
    }

    static void end(TState s) {
        s.sb.append('}');
        Rt.out.line(s.sb);
    }

    static void simple(TState s, String type, String loc, String var) {
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
        return Json.esc(Rt.node) + ":" + msgIds.incrementAndGet();
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
    static void orderNotify(TState s, String loc, String id) {
        ordering(s, "NOTIFYALL", loc, id);
    }

    /** The WAIT of orderNotify()'s condition id, written after what it orders. */
    static void orderWait(TState s, String loc, String id) {
        ordering(s, "WAIT", loc, id);
    }

    private static void ordering(TState s, String type, String loc, String id) {
        begin(s, type, loc).append(",\"variable\":\"sync:").append(id).append('"');
        end(s);
    }

    /** SND of an in-process hand-off: TCP on the channel (src, obj). */
    static void send(TState s, String loc, String src, String obj, String id, boolean tcp) {
        begin(s, "SND", loc).append(",\"socket_type\":\"").append(tcp ? "TCP" : "QUEUE")
            .append("\",\"src\":\"").append(src).append("\",\"src_port\":0,\"dst\":\"").append(obj)
            .append("\",\"dst_port\":0,\"message\":\"").append(id).append("\",\"size\":1");
        end(s);
    }

    static String recvLine(TState s, String loc, String src, String obj, String id, boolean tcp) {
        begin(s, "RCV", loc).append(",\"socket_type\":\"").append(tcp ? "TCP" : "QUEUE")
            .append("\",\"src\":\"").append(src).append("\",\"src_port\":0,\"dst\":\"").append(obj)
            .append("\",\"dst_port\":0,\"message\":\"").append(id).append("\",\"size\":1}");
        return s.sb.toString();
    }

    /** A receive a handler may be for (socket, queue, task). */
    static void realRecvStart(TState s) {
        s.pendingReal = true;
    }
}
