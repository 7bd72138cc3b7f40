package spider.agent;

import static spider.agent.Events.*;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Volatile fields (Rt.vw, Rt.vr...).  A volatile write is a NOTIFYALL, a
 * volatile read the WAIT for the last write before it (by another
 * thread), recorded once per write seen (Events.orderNotify(),
 * orderWait()), and not when a thread start orders them already.
 */
final class Volatiles {
    private Volatiles() {}

    private static final ConcurrentHashMap<String, String[]> lastVolatile = new ConcurrentHashMap<>();

    /** Volatile writes and thread starts, in the order they happen. */
    private static final AtomicLong clock = new AtomicLong();
    /** Thread (tid) -> {tid of the thread that started it, clock then}. */
    private static final ConcurrentHashMap<String, Object[]> origin = new ConcurrentHashMap<>();

    /** Thread.start() of the thread child (tid) by the thread parent (tid). */
    static void started(String child, String parent) {
        origin.put(child, new Object[] {parent, clock.incrementAndGet()});
    }

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

    static void volatileWrite(String key, String loc) {
        if (!Rt.volatileOrder) return;
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

    static void volatileRead(String key, String loc) {
        if (!Rt.volatileOrder) return;
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
}
