/*
 * engine_pool.h — the solver pool (engine_pool.c): Z3 work on threads.
 *
 * Ownership: the pool borrows the model and the work until solve_all()
 * returns (or for ever, when it leaves a worker running after a stop).
 * A Z3 failure is an error (-1 and its message), never a verdict.
 */
#ifndef SPIDER_ENGINE_POOL_H
#define SPIDER_ENGINE_POOL_H

#include "../spider.h"

/* A candidate's queries as the engine numbers them: n(ctx, c) of them,
 * the k-th, and its index into query_answers. */
typedef struct candidate_queries {
    unsigned (*n)(const void *ctx, uint32_t c);
    hb_query (*get)(const void *ctx, uint32_t c, unsigned k);
    size_t (*id)(const void *ctx, uint32_t c, unsigned k);
    const void *ctx;
} candidate_queries;

/* Work for the pool: candidates cand[order[i]], in units order[unit_start[u]
 * .. unit_start[u+1]).  A candidate holds when each of its queries is SAT;
 * query_answers (by queries.id) holds what the shortcuts proved, and
 * only the others are asked.  With stop_at_sat[u], a unit stops at its
 * first candidate that holds and the rest are ANSWER_NOT_ASKED.  Each unit
 * is answered in order by one worker, so answers never depend on
 * scheduling. */
typedef struct solve_work {
    candidate_queries queries;
    run_progress *progress;          /* or NULL: candidates decided, posted */
    const uint32_t *order;
    const uint32_t *unit_start;
    uint32_t n_units;
    const uint8_t *stop_at_sat;      /* per unit */
    const uint32_t *slices;          /* hb_model_slices(), or NULL */
    int may_leave;                   /* after a stop, workers may be left
                                        running (solve_all returns 1) */
    hb_solver *premade;              /* a solver of m (Φ asserted whole) the
                                        first worker takes, or NULL; solve_all
                                        owns it */
} solve_work;

/* Decides the work with `jobs` worker threads, each with a solver made
 * with so, writing the verdict of each candidate into verdicts; once
 * *so.stop is set, the rest are ANSWER_UNKNOWN.  Returns 0; 1 when stopped and some worker did
 * not heed Z3's interrupt within half a second: it is left running (the
 * candidates not decided stay as they were) and writes or reads nothing of
 * the caller's from then on but m and w->slices, which must never be
 * freed; or -1 with Z3's message in err if a solver could not be set up
 * or failed (never a verdict then). */
int solve_all(const hb_model *m, const solve_work *w, hb_answer *query_answers,
              hb_answer *verdicts, unsigned jobs, hb_solver_options so,
              char *err, size_t err_len);

/* Runs fn(arg) on a thread of its own and waits for it: 0.  Once *stop
 * is set, waits at most half a second more, then leaves it running: 1, and arg
 * and all fn reads must never be freed (analysis_options.abandoned).
 * Without stop (NULL) or a thread, fn runs on the caller's: 0. */
int engine_z3_call(void (*fn)(void *), void *arg,
                   const volatile sig_atomic_t *stop);

#endif
