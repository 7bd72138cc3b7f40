package spider.agent;

/** A class the transformer instruments once at start-up (Transformer.warmUp). */
final class Sample {
    int f;
    volatile int v;
    static long s;

    synchronized void m(java.util.concurrent.BlockingQueue<Object> q, java.util.concurrent.locks.Lock l)
            throws InterruptedException {
        synchronized (this) {
            f++;
            v = f;
            s += v;
        }
        l.lock();
        try {
            q.put(this);
            q.take();
        } finally {
            l.unlock();
        }
        wait(1);
        notifyAll();
    }
}
