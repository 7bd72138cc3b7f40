// Source for tests/t0150-ci.sh (--source-root=tests/ci/src): the
// locations of tests/ci/ traces are lines of this file.
package demo;

public class Store {
    static class Cache {
    }

    int size;
    Object cache;









    void put() {
        size = size + 1;
    }










    int get() {
        int n = size;

        Object c = cache;
        return n;
    }








    // Cache.evict:
    void evict() { cache = null; }
}
