// A consumer peeks at the head of a queue, then takes a message that only
// its peek lets come, then removes the head.  The peek received the
// head's message; the removal by the same thread is no second receive,
// which would race with the message taken in between (a false message
// race of ZooKeeper's client, benchmarks/zookeeper/README.md).
import java.util.concurrent.LinkedBlockingQueue;

//~ PeekRemove.producer@putx PeekRemove.answer@puty
public class PeekRemove {
    static final LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>();
    static final LinkedBlockingQueue<Integer> ask = new LinkedBlockingQueue<>();
    static final LinkedBlockingQueue<Integer> reply = new LinkedBlockingQueue<>();

    static void producer() {
        q.add(1);                       // @putx
    }

    static void answer() {
        try {
            ask.take();
            reply.put(2);               // @puty
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread p = new Thread(PeekRemove::producer);
        p.start();
        p.join();
        Thread a = new Thread(PeekRemove::answer);
        a.start();
        Integer head = q.peek();        // receives the head's message
        ask.put(head);
        reply.take();
        q.remove(head);                 // the same element: no receive
        a.join();
    }
}
