// A blocking queue of the program's own and traced (its class is one of
// the included ones), built on a ReentrantLock and a Condition as
// ZooKeeper's CircularBlockingQueue is: its callers' put and take are the
// hand-off, and its inside (the lock, the condition, its fields) is not
// traced, as the JDK's queues are not (docs/tracing.md).
import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

//! data OwnQueue.producer@after OwnQueue.main@ra
//~ OwnQueue.producer@before OwnQueue.main@rb
public class OwnQueue {
    static class Item { int before, after; }

    static final OwnQueueRing<Item> q = new OwnQueueRing<>();

    static void producer() {
        Item i = new Item();
        i.before = 1;       // @before
        q.put(i);
        i.after = 1;        // @after
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(OwnQueue::producer);
        t.start();
        Item i = q.take();
        int b = i.before;       // @rb
        int a = i.after;        // @ra
        t.join();
    }
}

class OwnQueueRing<E> extends AbstractQueue<E> implements BlockingQueue<E> {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<E> items = new ArrayDeque<>();
    private int count;

    public Iterator<E> iterator() { return items.iterator(); }
    public int size() { lock.lock(); try { return count; } finally { lock.unlock(); } }
    public boolean offer(E e) {
        lock.lock();
        try {
            items.addLast(e);
            count++;
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }
    public E poll() {
        lock.lock();
        try {
            if (count == 0) return null;
            count--;
            return items.pollFirst();
        } finally {
            lock.unlock();
        }
    }
    public E peek() { lock.lock(); try { return items.peekFirst(); } finally { lock.unlock(); } }
    public void put(E e) { offer(e); }
    public boolean offer(E e, long t, TimeUnit u) { return offer(e); }
    public E take() throws InterruptedException {
        lock.lock();
        try {
            while (count == 0)
                notEmpty.await();
            count--;
            return items.pollFirst();
        } finally {
            lock.unlock();
        }
    }
    public E poll(long t, TimeUnit u) throws InterruptedException {
        lock.lock();
        try {
            if (count == 0)
                notEmpty.await(t, u);
            if (count == 0) return null;
            count--;
            return items.pollFirst();
        } finally {
            lock.unlock();
        }
    }
    public int remainingCapacity() { return Integer.MAX_VALUE; }
    public int drainTo(Collection<? super E> c) { return drainTo(c, Integer.MAX_VALUE); }
    public int drainTo(Collection<? super E> c, int n) {
        int k = 0;
        for (E e; k < n && (e = poll()) != null; k++)
            c.add(e);
        return k;
    }
}
