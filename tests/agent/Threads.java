// Thread start (CREATE), end and join (JOIN).
//! data Threads.child@cr Threads.main@mw
//~ Threads.main@before Threads.child@cb
//~ Threads.child@cw Threads.main@after
public class Threads {
    static int input, output, racy;

    static void child() {
        int i = input;          // @cb  (written before start)
        output = i + 1;         // @cw  (read after join)
        int r = racy;           // @cr
    }

    public static void main(String[] args) throws Exception {
        input = 41;             // @before
        Thread t = new Thread(Threads::child);
        t.start();
        racy = 1;               // @mw  (after start, before join)
        t.join();
        int o = output;         // @after
        if (o != 42) throw new AssertionError();
    }
}
