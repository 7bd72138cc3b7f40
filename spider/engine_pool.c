/*
 * engine_pool.c — the worker pool: N pthreads, each with its own Z3
 * context and Φ asserted once, taking units of work from a shared counter.
 * Answers land by index and each unit is answered in order by one worker,
 * so the result never depends on scheduling.
 */
#include "engine.h"

#include "../traces/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

typedef struct pool {
    const hb_model *model;
    const solve_work *work;
    hb_answer *query_answers, *verdicts;
    atomic_uint next_unit;
    atomic_int failed;
    pthread_mutex_t error_lock;
    char error[256];         /* the first failure, for the caller */
    solver_tuning tuning;
    unsigned timeout_ms;
} pool;

static void fail(pool *p, const char *what)
{
    pthread_mutex_lock(&p->error_lock);
    if (!atomic_load(&p->failed))
        snprintf(p->error, sizeof p->error, "%s", what);
    atomic_store(&p->failed, 1);
    pthread_mutex_unlock(&p->error_lock);
}

/* The verdict of candidate c: each query the shortcuts did not prove is
 * asked in turn, until one is UNSAT.  -1 when the solver failed. */
static int decide_candidate(pool *p, hb_solver *s, uint32_t c,
                            hb_answer *verdict)
{
    const engine_run *run = p->work->run;
    hb_answer v = ANSWER_SAT;
    for (unsigned k = 0; k < engine_n_queries(run, c) && v != ANSWER_UNSAT; k++) {
        hb_answer *qa = &p->query_answers[engine_query_id(run, c, k)];
        if (*qa != ANSWER_SAT) {
            hb_query q = engine_query(run, c, k);
            *qa = hb_solver_check(s, &q);
        }
        if (*qa == ANSWER_ERROR) {
            fail(p, hb_solver_error(s));
            return -1;
        }
        if (*qa != ANSWER_SAT)
            v = *qa == ANSWER_UNSAT ? ANSWER_UNSAT : ANSWER_UNKNOWN;
    }
    *verdict = v;
    return 0;
}

static void answer_unit(pool *p, hb_solver *s, uint32_t u)
{
    const solve_work *w = p->work;
    int stop = w->stop_at_sat && w->stop_at_sat[u], done = 0;
    run_progress *progress = engine_options(w->run)->progress;
    for (uint32_t i = w->unit_start[u]; i < w->unit_start[u + 1]; i++) {
        uint32_t c = w->order[i];
        if (done) {
            p->verdicts[c] = ANSWER_NOT_ASKED;
            continue;
        }
        if (w->stop && *w->stop) {
            p->verdicts[c] = ANSWER_UNKNOWN;
            continue;
        }
        if (decide_candidate(p, s, c, &p->verdicts[c]) != 0)
            return;
        done = stop && p->verdicts[c] == ANSWER_SAT;
        if (progress && !done) /* the rest of the unit is counted below */
            atomic_fetch_add(&progress->done, 1);
        else if (progress)
            atomic_fetch_add(&progress->done, w->unit_start[u + 1] - i);
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
        fail(p, "a Z3 solver could not be set up");
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

int solve_all(const hb_model *m, const solve_work *w, hb_answer *query_answers,
              hb_answer *verdicts, unsigned jobs, solver_tuning tuning,
              unsigned timeout_ms, char *err, size_t err_len)
{
    if (w->n_units == 0)
        return 0;
    if (jobs < 1)
        jobs = 1;
    uint32_t n = w->unit_start[w->n_units];
    if (jobs > n / 16 + 1)
        jobs = n / 16 + 1; /* setting up a context costs more than a few queries */
    pool p = {.model = m, .work = w, .query_answers = query_answers,
              .verdicts = verdicts, .tuning = tuning, .timeout_ms = timeout_ms};
    atomic_init(&p.next_unit, 0);
    atomic_init(&p.failed, 0);
    pthread_mutex_init(&p.error_lock, NULL);
    pthread_t *threads = xmalloc_array(jobs, sizeof *threads);
    unsigned started = 0;
    for (unsigned i = 0; i < jobs; i++)
        if (pthread_create(&threads[started], NULL, worker, &p) == 0)
            started++;
    if (started == 0)
        worker(&p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    pthread_mutex_destroy(&p.error_lock);
    if (atomic_load(&p.failed)) {
        snprintf(err, err_len, "the Z3 solver failed: %s", p.error);
        return -1;
    }
    return 0;
}
