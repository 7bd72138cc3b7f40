package spider.agent;

import static spider.agent.Events.*;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * Monitors, locks and their conditions (Rt.lock, Rt.lockL, Rt.waitO,
 * Rt.condAwait...): the sections each thread holds, the names of locks
 * and conditions, and who may count as woken by a notify or signal.
 */
final class Locking {
    private Locking() {}

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

    static void lockEv(TState s, String var, String loc) {
        simple(s, "LOCK", loc, var);
        held(s, var, 1);
    }

    static void unlockEv(TState s, String var, String loc) {
        simple(s, "UNLOCK", loc, var);
        held(s, var, -1);
    }

    // A read lock and its write lock are one lock in the trace (docs/tracing.md).
    static final Map<Object, String> lockNames = Collections.synchronizedMap(new WeakHashMap<>());

    static String lockName(Object l) {
        String n = lockNames.get(l);
        return n != null ? n : objName(l);
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

    static void notifyEv(String var, boolean all, String loc) {
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

    static void waitAny(Object o, long ms, int ns, String loc) throws InterruptedException {
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
    static final Map<Object, String> condLocks = Collections.synchronizedMap(new WeakHashMap<>());

    static long condWait(Condition c, int kind, long t, TimeUnit u, String loc) throws InterruptedException {
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
}
