package spider.agent;

import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Messages in flight through queues (Rt.qsnd, Rt.qrcv, Rt.qpeek...): by
 * queue, then by element (identity), first in first out.  The queue
 * matters: one object may travel through two queues at once (ZooKeeper's
 * leader hands a request to its commit and its sync processors).  A
 * message is {id, sending thread, channel, "T" (FIFO) or "Q"}.
 */
final class InFlight {
    private InFlight() {}

    private static final Map<Object, IdentityHashMap<Object, ArrayDeque<String[]>>> inflight = new WeakHashMap<>();

    /** A queue that threads share by contract: java.util.concurrent's, or a
     *  BlockingQueue of the program's own (ZooKeeper's CircularBlockingQueue);
     *  not an ArrayDeque or LinkedList a thread keeps to itself. */
    static boolean concurrentQueue(Object q) {
        return q != null && (q.getClass().getName().startsWith("java.util.concurrent.") ||
                             q instanceof java.util.concurrent.BlockingQueue);
    }

    /** The message m brings e into q. */
    static void add(Object q, Object e, String[] m) {
        synchronized (inflight) {
            inflight.computeIfAbsent(q, k -> new IdentityHashMap<>())
                    .computeIfAbsent(e, k -> new ArrayDeque<>()).addLast(m);
        }
    }

    /** The message that brought e into q: removed (a take) or not (a peek). */
    static String[] message(Object q, Object e, boolean remove) {
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
}
