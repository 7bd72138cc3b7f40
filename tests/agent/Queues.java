// Hand-offs through blocking queues and deques: put/offer/add -> take/poll.
import java.util.concurrent.*;

// Two queues: main may take from either first (a message race); one
// queue keeps the order of one producer's items.
//! message Queues.producer@put Queues.producer@offer
//! message Queues.producer@put2 Queues.producer@offer
//! message Queues.producer@put Queues.producer@add2
//! message Queues.producer@put2 Queues.producer@add2
//! message Queues.producer@offer Queues.producer@add2
//! data Queues.producer@after Queues.main@ra
//! data Queues.producer@after2 Queues.main@ra2
//~ Queues.producer@before Queues.main@rb
//~ Queues.producer@put Queues.producer@put2
//~ Queues.producer@before3 Queues.main@rb3
//~ Queues.producer@before2 Queues.main@rb2
public class Queues {
    static class Item { int before, after; }

    static final BlockingQueue<Item> q = new LinkedBlockingQueue<>();
    static final BlockingDeque<Item> d = new LinkedBlockingDeque<>();
    static final BlockingQueue<Item> q1 = new ArrayBlockingQueue<>(4), q2 = new ArrayBlockingQueue<>(4);

    static void producer() {
        try {
            Item i = new Item();
            i.before = 1;       // @before
            q.put(i);           // @put
            i.after = 1;        // @after
            q.put(new Item());  // @put2
            Item j = new Item();
            j.before = 2;       // @before2
            d.offerLast(j);     // @offer
            j.after = 2;        // @after2
            Item k = new Item();
            q1.add(k);          // k travels through two queues: each take
            k.before = 3;       // @before3  receives its own queue's message
            q2.add(k);          // @add2
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Queues::producer);
        t.start();
        Item i = q.take();
        int b = i.before;       // @rb
        int a = i.after;        // @ra
        q.take();               // the second item: after the first (one producer, one queue)
        Item j;
        while ((j = d.pollFirst(1, TimeUnit.SECONDS)) == null) { }
        int b2 = j.before;      // @rb2
        int a2 = j.after;       // @ra2
        Item k = q2.take();
        int b3 = k.before;      // @rb3
        t.join();
    }
}
