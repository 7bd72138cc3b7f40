/*
 * engine_pool.c — Z3 work on threads of its own.
 *
 * The worker pool: N pthreads, each with its own Z3 context and Φ
 * asserted once, taking units of work from a shared counter.  Answers land
 * by index and each unit is answered in order by one worker, so the result
 * never depends on scheduling.
 *
 * Waiting with a deadline: a stop (SIGINT/SIGTERM) interrupts Z3
 * (encode.h), but Z3 does not heed an interrupt everywhere — asserting
 * and propagating a long chain of difference constraints (Z3 4.8's
 * push and first check) runs for minutes and never looks.  So the caller
 * waits for Z3 work on another thread, and once stopped it waits at most
 * STOP_GRACE_MS before it leaves that work running ("abandoned") and goes
 * on to report.  An abandoned thread writes nothing shared: it parks at
 * its next result.  What it reads must then outlive it, so the process
 * ends without freeing (analysis_options.abandoned).
 */
#include "engine_pool.h"

#include "../../util/alloc.h"
#include "../../util/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* RAMP_MS: the pool starts one worker, and the others only when work is
 * left after this long: a Z3 context costs about 10 ms of CPU to set up,
 * more than all the queries of a small trace. */
enum { STOP_GRACE_MS = 500, WAIT_STEP_MS = 20, RAMP_MS = 15 };

/* ---- waiting for threads, with a deadline once stopped --------------------- */

typedef struct z3_wait {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned running;        /* threads not yet done */
    int abandoned;           /* the waiter left: write nothing shared */
} z3_wait;

static void z3_wait_init(z3_wait *w, unsigned running)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    w->running = running;
    w->abandoned = 0;
}

static void z3_wait_destroy(z3_wait *w)
{
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
}

/* A thread of the wait is done. */
static void z3_wait_leave(z3_wait *w)
{
    pthread_mutex_lock(&w->lock);
    w->running--;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

/* Waits until every thread is done (0); or, once *stop has been set for
 * STOP_GRACE_MS while some still run, marks the wait abandoned (1). */
static int z3_wait_done(z3_wait *w, const volatile sig_atomic_t *stop)
{
    double stopped_at = -1;
    pthread_mutex_lock(&w->lock);
    while (w->running && !w->abandoned) {
        if (stop && *stop && stopped_at < 0)
            stopped_at = clock_seconds();
        if (stopped_at >= 0 &&
            clock_seconds() - stopped_at >= STOP_GRACE_MS / 1e3) {
            w->abandoned = 1;
            break;
        }
        struct timespec until = clock_after_ms(CLOCK_REALTIME, WAIT_STEP_MS);
        pthread_cond_timedwait(&w->changed, &w->lock, &until);
    }
    int abandoned = w->abandoned;
    pthread_mutex_unlock(&w->lock);
    return abandoned;
}

/* An abandoned thread stays here until the process ends. */
static _Noreturn void park(void)
{
    for (;;)
        pause();
}

/* Before a thread writes a result: takes the lock, or parks when the
 * waiter has left.  z3_wait_release() after the write. */
static void z3_wait_claim(z3_wait *w)
{
    pthread_mutex_lock(&w->lock);
    if (w->abandoned) {
        pthread_mutex_unlock(&w->lock);
        park();
    }
}

static void z3_wait_release(z3_wait *w)
{
    pthread_mutex_unlock(&w->lock);
}

/* ---- one call --------------------------------------------------------------- */

typedef struct z3_task {
    z3_wait wait;
    void (*fn)(void *);
    void *arg;
} z3_task;

static void *run_task(void *p)
{
    z3_task *t = p;
    t->fn(t->arg);
    z3_wait_leave(&t->wait);
    return NULL;
}

int engine_z3_call(void (*fn)(void *), void *arg,
                   const volatile sig_atomic_t *stop)
{
    z3_task *t = xmalloc(sizeof *t);
    *t = (z3_task){.fn = fn, .arg = arg};
    z3_wait_init(&t->wait, 1);
    pthread_t thread;
    if (!stop || pthread_create(&thread, NULL, run_task, t) != 0) {
        fn(arg); /* no thread: the call cannot be left, only interrupted */
        z3_wait_destroy(&t->wait);
        free(t);
        return 0;
    }
    if (z3_wait_done(&t->wait, stop)) {
        pthread_detach(thread); /* t and arg stay: it may still use them */
        return 1;
    }
    pthread_join(thread, NULL);
    z3_wait_destroy(&t->wait);
    free(t);
    return 0;
}

/* ---- the pool --------------------------------------------------------------- */

/* A worker holds wait.lock whenever it is not inside Z3: it reads the
 * caller's memory (the run, the answers, the progress counters) only
 * then, and the caller can leave (abandon) only while no worker holds it.
 * Inside Z3 a worker reads only its solver, the model and the slices,
 * which the caller keeps when it leaves. */
typedef struct pool {
    const hb_model *model;
    const uint32_t *slices;  /* hb_model_slices(), or NULL */
    const solve_work *work;
    hb_answer *query_answers, *verdicts;
    uint32_t next_unit;
    int failed;
    z3_wait wait;
    char error[256];         /* the first failure, for the caller */
    hb_solver_options solver;
    hb_solver *premade;      /* solve_work.premade until a worker takes it */
} pool;

/* Records the first failure (the wait's lock held). */
static void fail(pool *p, const char *what)
{
    if (!p->failed)
        snprintf(p->error, sizeof p->error, "%s", what);
    p->failed = 1;
}

/* One Z3 check, the lock let go around it (parks if the caller left). */
static hb_answer ask(pool *p, hb_solver *s, const hb_query *q)
{
    z3_wait_release(&p->wait);
    hb_answer a = hb_solver_check(s, q);
    z3_wait_claim(&p->wait);
    return a;
}

/* The verdict of candidate c: each query the shortcuts did not prove is
 * asked in turn, until one is UNSAT.  -1 when the solver failed. */
static int decide_candidate(pool *p, hb_solver *s, uint32_t c)
{
    const candidate_queries *cq = &p->work->queries;
    hb_answer v = ANSWER_SAT;
    for (unsigned k = 0; k < cq->n(cq->ctx, c) && v != ANSWER_UNSAT; k++) {
        hb_answer *qa = &p->query_answers[cq->id(cq->ctx, c, k)];
        if (*qa != ANSWER_SAT) {
            hb_query q = cq->get(cq->ctx, c, k);
            *qa = ask(p, s, &q);
        }
        if (*qa == ANSWER_ERROR) {
            fail(p, hb_solver_error(s));
            return -1;
        }
        if (*qa != ANSWER_SAT)
            v = *qa == ANSWER_UNSAT ? ANSWER_UNSAT : ANSWER_UNKNOWN;
    }
    p->verdicts[c] = v;
    return 0;
}

static void answer_unit(pool *p, hb_solver *s, uint32_t u)
{
    const solve_work *w = p->work;
    int stop = w->stop_at_sat && w->stop_at_sat[u], done = 0;
    run_progress *progress = w->progress;
    for (uint32_t i = w->unit_start[u]; i < w->unit_start[u + 1]; i++) {
        uint32_t c = w->order[i];
        if (done || (p->solver.stop && *p->solver.stop)) {
            p->verdicts[c] = done ? ANSWER_NOT_ASKED : ANSWER_UNKNOWN;
            continue;
        }
        if (decide_candidate(p, s, c) != 0)
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
    pthread_mutex_lock(&p->wait.lock);
    hb_solver *s = p->premade;
    p->premade = NULL;
    pthread_mutex_unlock(&p->wait.lock);
    if (!s)
        s = p->slices ? hb_solver_new_sliced(p->model, p->slices, &p->solver)
                      : hb_solver_new(p->model, &p->solver);
    z3_wait_claim(&p->wait);
    if (!s)
        fail(p, "a Z3 solver could not be set up");
    while (s && !p->failed && p->next_unit < p->work->n_units)
        answer_unit(p, s, p->next_unit++);
    z3_wait_release(&p->wait);
    hb_solver_free(s); /* its own: the caller may have left by now */
    z3_wait_leave(&p->wait);
    return NULL;
}

/* Starts workers until `to` run (threads[from..to)); returns how many
 * run. */
static unsigned start_workers(pool *p, pthread_t *threads, unsigned from,
                              unsigned to)
{
    unsigned started = from;
    pthread_mutex_lock(&p->wait.lock);
    p->wait.running += to - from; /* before any of them can leave */
    pthread_mutex_unlock(&p->wait.lock);
    for (unsigned i = from; i < to; i++) {
        if (pthread_create(&threads[started], NULL, worker, p) == 0)
            started++;
        else
            z3_wait_leave(&p->wait);
    }
    return started;
}

/* Whether units are still waiting for a worker after ms milliseconds (or
 * once the workers are done or failed, which is sooner). */
static int work_left_after(pool *p, unsigned ms)
{
    struct timespec until = clock_after_ms(CLOCK_REALTIME, ms);
    pthread_mutex_lock(&p->wait.lock);
    while (p->wait.running && !p->failed && p->next_unit < p->work->n_units &&
           pthread_cond_timedwait(&p->wait.changed, &p->wait.lock, &until) == 0)
        continue;
    int left = !p->failed && p->next_unit < p->work->n_units &&
               !(p->solver.stop && *p->solver.stop);
    pthread_mutex_unlock(&p->wait.lock);
    return left;
}

int solve_all(const hb_model *m, const solve_work *w, hb_answer *query_answers,
              hb_answer *verdicts, unsigned jobs, hb_solver_options so,
              char *err, size_t err_len)
{
    hb_solver *premade = w->premade;
    if (premade && hb_solver_set_timeout(premade, so.timeout_ms) != 0) {
        hb_solver_free(premade); /* a worker makes its own */
        premade = NULL;
    }
    if (w->n_units == 0) {
        hb_solver_free(premade);
        return 0;
    }
    if (jobs < 1)
        jobs = 1;
    uint32_t n = w->unit_start[w->n_units];
    if (jobs > n / 16 + 1)
        jobs = n / 16 + 1; /* setting up a context costs more than a few queries */
    /* on the heap: abandoned workers may still read it */
    pool *p = xcalloc(1, sizeof *p);
    *p = (pool){.model = m, .slices = w->slices, .work = w,
                .query_answers = query_answers, .verdicts = verdicts,
                .solver = so, .premade = premade};
    z3_wait_init(&p->wait, 0);
    pthread_t *threads = xmalloc_array(jobs, sizeof *threads);
    unsigned started = start_workers(p, threads, 0, 1);
    if (started && jobs > 1 && work_left_after(p, RAMP_MS))
        started = start_workers(p, threads, started, jobs);
    if (started == 0) {
        p->wait.running = 1;
        worker(p); /* no thread: it cannot be left, only interrupted */
    }
    if (z3_wait_done(&p->wait, w->may_leave ? so.stop : NULL)) {
        for (unsigned i = 0; i < started; i++)
            pthread_detach(threads[i]);
        free(threads);
        return 1;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    int rc = 0;
    if (p->failed) {
        snprintf(err, err_len, "the Z3 solver failed: %s", p->error);
        rc = -1;
    }
    z3_wait_destroy(&p->wait);
    free(p);
    return rc;
}
