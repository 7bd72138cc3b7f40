/*
 * solve.c — the worker pool: N pthreads, each with its own Z3 context and
 * Φ asserted once, taking units of work from a shared counter.  Answers
 * land by index and each unit is answered in order by one worker, so the
 * result never depends on scheduling.
 */
#include "spider.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct pool {
    const hb_model *model;
    const solve_work *work;
    hb_answer *answers;
    atomic_uint next_unit;
    atomic_int failed;
    solver_tuning tuning;
    unsigned timeout_ms;
} pool;

static void answer_unit(pool *p, hb_solver *s, uint32_t u)
{
    const solve_work *w = p->work;
    int stop = w->stop_at_sat && w->stop_at_sat[u], done = 0;
    for (uint32_t i = w->unit_start[u]; i < w->unit_start[u + 1]; i++) {
        uint32_t q = w->order[i];
        if (done) {
            p->answers[q] = ANSWER_NOT_ASKED;
            continue;
        }
        if (w->stop && *w->stop) {
            p->answers[q] = ANSWER_UNKNOWN;
            continue;
        }
        p->answers[q] = hb_solver_check(s, &w->queries[q]);
        done = stop && p->answers[q] == ANSWER_SAT;
    }
}

static void *worker(void *arg)
{
    pool *p = arg;
    hb_solver *s = p->work->slices
                       ? hb_solver_new_sliced(p->model, p->work->slices,
                                              p->tuning, p->timeout_ms)
                       : hb_solver_new(p->model, p->tuning, p->timeout_ms);
    if (!s) {
        atomic_store(&p->failed, 1);
        return NULL;
    }
    for (;;) {
        uint32_t u = atomic_fetch_add(&p->next_unit, 1);
        if (u >= p->work->n_units || atomic_load(&p->failed))
            break;
        answer_unit(p, s, u);
    }
    hb_solver_free(s);
    return NULL;
}

int solve_all(const hb_model *m, const solve_work *w, hb_answer *answers,
              unsigned jobs, solver_tuning tuning, unsigned timeout_ms)
{
    if (w->n_units == 0)
        return 0;
    if (jobs < 1)
        jobs = 1;
    uint32_t n = w->unit_start[w->n_units];
    if (jobs > n / 16 + 1)
        jobs = n / 16 + 1; /* setting up a context costs more than a few queries */
    pool p = {.model = m, .work = w, .answers = answers, .tuning = tuning,
              .timeout_ms = timeout_ms};
    atomic_init(&p.next_unit, 0);
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
