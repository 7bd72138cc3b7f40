// Tasks handed to executors, their futures, CountDownLatch and
// CompletableFuture.
import java.util.concurrent.*;

//! data Tasks.task@tr Tasks.main@mr
//! data Tasks.latched@la Tasks.main@lr
//! data Tasks.async@ar Tasks.main@am
//~ Tasks.main@before Tasks.task@tb
//~ Tasks.task@tw Tasks.main@got
//~ Tasks.latched@lb Tasks.main@lg
//~ Tasks.async@aw Tasks.main@joined
//~ Tasks.callable@cw Tasks.main@cg
public class Tasks {
    static int in, out, racy, lin, lracy, ain, aracy, cin;

    static void task() {
        int i = in;             // @tb  (written before submit)
        out = i;                // @tw  (read after get)
        int r = racy;           // @tr
    }

    static void latched(CountDownLatch l) {
        lin = 1;                // @lb
        l.countDown();
        lracy = 1;              // @la
    }

    static Integer async() {
        ain = 1;                // @aw
        int r = aracy;          // @ar
        return r;
    }

    static Integer callable() {
        cin = 5;                // @cw
        return 5;
    }

    public static void main(String[] args) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(2);
        in = 7;                 // @before
        Future<?> f = ex.submit(Tasks::task);
        racy = 1;               // @mr
        f.get();
        int o = out;            // @got
        Future<Integer> g = ex.submit(() -> callable());
        g.get();
        int c = cin;            // @cg
        CountDownLatch l = new CountDownLatch(1);
        ex.execute(() -> latched(l));
        l.await();
        int x = lin;            // @lg
        int y = lracy;          // @lr
        CompletableFuture<Integer> cf = CompletableFuture.supplyAsync(Tasks::async, ex);
        aracy = 1;              // @am
        cf.join();
        int a = ain;            // @joined
        ex.shutdown();
    }
}
