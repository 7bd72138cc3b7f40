// ReentrantLock and ReentrantReadWriteLock (a read lock is modelled as its
// write lock: readers exclude each other in the trace), unlock in finally.
import java.util.concurrent.locks.*;

//! data Locks.unlocked@u Locks.main@mr
//~ Locks.locked@l Locks.main@ml
//~ Locks.writer@w Locks.main@rr
//~ Locks.tryIt@tl Locks.main@ml
public class Locks {
    static final ReentrantLock lock = new ReentrantLock();
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    static final Lock readLock = rw.readLock(), writeLock = rw.writeLock();
    static int x, y, z;

    static void locked() {
        lock.lock();
        try {
            x++;                // @l
        } finally {
            lock.unlock();
        }
    }

    static void tryIt() {
        while (!lock.tryLock()) Thread.onSpinWait();
        try {
            x++;                // @tl
            throw new RuntimeException("unlock in finally");
        } finally {
            lock.unlock();
        }
    }

    static void writer() {
        writeLock.lock();
        try {
            y = 1;              // @w
        } finally {
            writeLock.unlock();
        }
    }

    static void unlocked() {
        z = 1;                  // @u  (no lock)
    }

    static void worker() {
        locked();
        try { tryIt(); } catch (RuntimeException e) { }
        writer();
        unlocked();
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Locks::worker);
        t.start();
        lock.lock();
        try {
            x++;                // @ml
        } finally {
            lock.unlock();
        }
        readLock.lock();
        try {
            int r = y;          // @rr
            int s = z;          // @mr  (under the read lock, but the writer holds none)
        } finally {
            readLock.unlock();
        }
        t.join();
    }
}
