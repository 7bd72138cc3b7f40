/*
 * solve.c — the worker pool: N pthreads, each with its own Z3 context and
 * Φ asserted once, pulling chunks of queries from a shared counter.
 * Answers land by index, so the result never depends on scheduling.
 */
#include "spider.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { CHUNK = 32 };

typedef struct pool {
    const hb_model *model;
    const hb_query *queries;
    hb_answer *answers;
    size_t n;
    atomic_size_t next;
    atomic_int failed;
    solver_tuning tuning;
    unsigned timeout_ms;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    hb_solver *s = hb_solver_new(p->model, p->tuning, p->timeout_ms);
    if (!s) {
        atomic_store(&p->failed, 1);
        return NULL;
    }
    for (;;) {
        size_t start = atomic_fetch_add(&p->next, CHUNK);
        if (start >= p->n || atomic_load(&p->failed))
            break;
        size_t end = start + CHUNK < p->n ? start + CHUNK : p->n;
        for (size_t i = start; i < end; i++)
            p->answers[i] = hb_solver_check(s, &p->queries[i]);
    }
    hb_solver_free(s);
    return NULL;
}

int solve_all(const hb_model *m, const hb_query *queries, size_t n,
              hb_answer *answers, unsigned jobs, solver_tuning tuning,
              unsigned timeout_ms)
{
    if (n == 0)
        return 0;
    if (jobs < 1)
        jobs = 1;
    if (jobs > n / CHUNK + 1)
        jobs = (unsigned)(n / CHUNK + 1); /* a context costs more than a chunk */
    pool p = {.model = m, .queries = queries, .answers = answers, .n = n,
              .tuning = tuning, .timeout_ms = timeout_ms};
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, 0);
    pthread_t *threads = malloc(sizeof(pthread_t) * jobs);
    unsigned started = 0;
    for (unsigned i = 0; i < jobs; i++)
        if (pthread_create(&threads[started], NULL, worker, &p) == 0)
            started++;
    if (started == 0)
        worker(&p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    return atomic_load(&p.failed) ? -1 : 0;
}
