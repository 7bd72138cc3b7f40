// Object.wait/notifyAll, and Condition.await/signal of a ReentrantLock.
// The waiter holds the monitor while it starts the notifier, so it always
// waits before the notifier can enter: the WAIT always follows the NOTIFY.
import java.util.concurrent.locks.*;

//! data WaitNotify.notifier@after WaitNotify.main@ra
//! data WaitNotify.signaller@after2 WaitNotify.main@ra2
//~ WaitNotify.notifier@before WaitNotify.main@rb
//~ WaitNotify.signaller@before2 WaitNotify.main@rb2
public class WaitNotify {
    static final Object M = new Object();
    static final ReentrantLock L = new ReentrantLock();
    static final Condition C = L.newCondition();
    static boolean done, done2;
    static int before, after, before2, after2;

    static void notifier() {
        before = 1;             // @before
        synchronized (M) {
            done = true;
            M.notifyAll();
        }
        after = 1;              // @after
    }

    static void signaller() {
        before2 = 1;            // @before2
        L.lock();
        try {
            done2 = true;
            C.signal();
        } finally {
            L.unlock();
        }
        after2 = 1;             // @after2
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(WaitNotify::notifier);
        synchronized (M) {
            t.start();
            while (!done)
                M.wait();
        }
        int b = before;         // @rb
        int a = after;          // @ra
        Thread u = new Thread(WaitNotify::signaller);
        L.lock();
        try {
            u.start();
            while (!done2)
                C.await();
        } finally {
            L.unlock();
        }
        int b2 = before2;       // @rb2
        int a2 = after2;        // @ra2
        t.join();
        u.join();
    }
}
