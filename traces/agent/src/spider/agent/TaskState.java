package spider.agent;

import static spider.agent.Events.*;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Tasks, futures and latches (Rt.wrapR, Rt.bindF, Rt.fget, Rt.cdown...):
 * the wrapper of a task handed to an executor, and what a Future or a
 * CountDownLatch waits for.
 */
final class TaskState {
    private TaskState() {}

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
                Rt.out.line(recvLine(s, loc, src, chan, id, true));
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

    /** Future -> its task's Wrap, or the id of the complete() before its get(). */
    static final Map<Object, Object> futures = Collections.synchronizedMap(new WeakHashMap<>());

    /** CountDownLatch -> the ids of its countDown()s so far. */
    static final Map<Object, List<String>> latches = Collections.synchronizedMap(new WeakHashMap<>());

    static Object wrap(Object task, Object executor, String loc) {
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
}
