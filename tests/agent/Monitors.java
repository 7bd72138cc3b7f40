// synchronized blocks and methods, exits by exception included.
// "counter" is guarded by the class's monitor (synchronized static
// methods and a synchronized (Monitors.class) block), "other" by A except
// in incOther, which takes B.
//! data Monitors.incOther@ro Monitors.incA@ra
//~ Monitors.failing@fe Monitors.incM@rm
//~ Monitors.worker@wb Monitors.incM@rm
//~ Monitors.blockFail@be Monitors.incA@ra
public class Monitors {
    static final Object A = new Object(), B = new Object();
    static int counter, other;

    static void incA() {
        synchronized (A) {
            other++;            // @ra
        }
    }

    static synchronized void incM() {
        counter++;              // @rm
    }

    static void incOther() {
        synchronized (B) {      // another lock: no exclusion with incA
            other++;            // @ro
        }
    }

    static synchronized void failing() {
        counter++;              // @fe
        throw new IllegalStateException("leaves the monitor by an exception");
    }

    static void blockFail() {
        synchronized (A) {
            other++;            // @be
            if (other > 0) throw new IllegalStateException("leaves the block by an exception");
        }
    }

    static void worker() {
        try { failing(); } catch (IllegalStateException e) { }
        try { blockFail(); } catch (IllegalStateException e) { }
        synchronized (Monitors.class) {
            counter++;          // @wb
        }
        incOther();
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Monitors::worker);
        t.start();
        incA();
        incM();
        t.join();
    }
}
