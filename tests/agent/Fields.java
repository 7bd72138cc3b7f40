// Fields: static and per-object fields, final and volatile ones.
// Planted races (//! lines) and non-races (//~ lines: both locations are
// in the trace, never reported together); @name is the line marked "// @name".
//! data Fields.writer@sw Fields.main@sm
//! data Fields.writer@fw Fields.main@fm
//~ Fields.writer@ow Fields.main@om
//~ Fields.writer@pw Fields.main@pr
//~ Fields.writer@vw Fields.main@vr
public class Fields {
    static int shared;          // static: one variable
    int f;                      // per object
    final int k;                // final: never recorded
    int payload;                // published through the volatile flag
    volatile boolean ready;

    Fields(int k) { this.k = k; }

    static Fields a = new Fields(1), b = new Fields(2);

    static void writer() {
        shared = 1;             // @sw
        a.f = 1;                // @fw
        b.payload = 0;          // @ow
        a.payload = 42;         // @pw
        a.ready = true;         // @vw
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Fields::writer);
        t.start();
        shared = 2;             // @sm
        a.f = 2;                // @fm
        Fields other = new Fields(3);
        other.payload = 1;      // @om (another object than b: no race)
        while (!a.ready)        // @vr
            Thread.onSpinWait();
        int p = a.payload;      // @pr (after the volatile read that saw the write)
        if (p != 42 || a.k != 1) throw new AssertionError();
        t.join();
    }
}
