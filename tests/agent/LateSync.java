// A thread that has run a message handler takes a message that no
// handler follows, then reads a volatile flag: the read still orders it
// after the writer.  The agent used to hold such ordering receives back
// until the next handler (so that the handler opens for its message),
// and when none came they were never written; an ordering is now a
// NOTIFYALL and a WAIT, not a message, so it races with no receive
// either (docs/tracing.md).
import java.util.concurrent.LinkedBlockingQueue;

//~ LateSync.writer@data LateSync.consumer@read
//~ LateSync.main@put LateSync.writer@ready
public class LateSync {
    static final LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
    static volatile boolean ready;
    static int data;

    static void handle(Integer m) {     // the configured handler
        int x = m;
    }

    static void consumer() {
        try {
            handle(q.take());           // a message and its handler
            q.take();                   // a message no handler follows
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        while (!ready)
            Thread.onSpinWait();
        int d = data;                   // @read
    }

    static void writer() {
        data = 1;                       // @data
        ready = true;                   // @ready
    }

    public static void main(String[] args) throws Exception {
        Thread c = new Thread(LateSync::consumer);
        c.start();
        q.put(1); q.put(2);             // @put
        Thread w = new Thread(LateSync::writer);
        w.start();
        w.join();
        c.join();
    }
}
