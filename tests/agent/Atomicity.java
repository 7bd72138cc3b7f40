// An atomicity violation (run with --atomicity): two reads of x in two
// critical sections, between which the writer's section can fall (RWR);
// the two reads of y share one section: no violation, and no data race.
//! atomicity Atomicity.main@p Atomicity.writer@w Atomicity.main@c
//~ Atomicity.main@y1 Atomicity.main@y2
public class Atomicity {
    static final Object L = new Object();
    static int x, y;

    static void writer() {
        synchronized (L) {
            x = 1;                              // @w
            y = 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Atomicity::writer);
        t.start();
        int a, b, c, d;
        synchronized (L) {
            a = y;                              // @y1
            b = y;                              // @y2
        }
        synchronized (L) {
            c = x;                              // @p
        }
        synchronized (L) {
            d = x;                              // @c
        }
        t.join();
    }
}
