// A blocking queue of the program's own, not the JDK's, called through
// its own type (as ZooKeeper calls its CircularBlockingQueue): its put
// and take are a hand-off all the same (docs/tracing.md).
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

//! data CustomQueue.producer@after CustomQueue.main@ra
//~ CustomQueue.producer@before CustomQueue.main@rb
public class CustomQueue {
    static class Item { int before, after; }

    static final RingQueue<Item> q = new RingQueue<>();

    static void producer() {
        try {
            Item i = new Item();
            i.before = 1;       // @before
            q.put(i);
            i.after = 1;        // @after
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(CustomQueue::producer);
        t.start();
        Item i = q.take();
        int b = i.before;       // @rb
        int a = i.after;        // @ra
        t.join();
    }
}

// Outside the traced classes (include=CustomQueue names CustomQueue*):
// only its callers' put and take are seen.
class RingQueue<E> extends AbstractQueue<E> implements BlockingQueue<E> {
    private final LinkedBlockingQueue<E> items = new LinkedBlockingQueue<>();

    public Iterator<E> iterator() { return items.iterator(); }
    public int size() { return items.size(); }
    public boolean offer(E e) { return items.offer(e); }
    public E poll() { return items.poll(); }
    public E peek() { return items.peek(); }
    public void put(E e) throws InterruptedException { items.put(e); }
    public boolean offer(E e, long t, TimeUnit u) throws InterruptedException { return items.offer(e, t, u); }
    public E take() throws InterruptedException { return items.take(); }
    public E poll(long t, TimeUnit u) throws InterruptedException { return items.poll(t, u); }
    public int remainingCapacity() { return items.remainingCapacity(); }
    public int drainTo(Collection<? super E> c) { return items.drainTo(c); }
    public int drainTo(Collection<? super E> c, int n) { return items.drainTo(c, n); }
}
