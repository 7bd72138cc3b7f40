/*
 * share_run.c — the analysis of a split run on the ranks' shares of the
 * trace (share_run.h).
 */
#include "share_run.h"

#include "../../util/alloc.h"
#include "../../util/clock.h"

#include <stdio.h>
#include <stdlib.h>

int share_run_fits(const cli *c)
{
    return c->solver == SOLVER_AUTO && !c->witness && !c->html &&
           c->format != FORMAT_SHIVIZ && !c->emit_smt2 && !c->atomicity &&
           !c->multi_variable && !c->multi_variable_races &&
           !c->inconsistent_updates && !c->list_correlations && !c->learn;
}

typedef struct rank_job {
    const cli *c;
    const char *const *paths;
    size_t n_paths;
    const trace_options *topts;
    const analysis_options *aopts;
    progress *prog;                  /* rank 0's line, or NULL */
    share_result *out;
    int rc;                          /* rank 0's */
} rank_job;

/* How a step went on every rank: failed on one (or the ranks lost each
 * other), else stopped on one (SIGINT, SIGTERM), else well.  A vote of
 * all, so that no rank waits for one that went another way. */
typedef enum { STEP_WELL, STEP_STOPPED, STEP_FAILED } step_state;

static step_state vote(comm *c, int failed, const volatile sig_atomic_t *stop)
{
    uint64_t v = failed ? STEP_FAILED : stop && *stop ? STEP_STOPPED : STEP_WELL;
    return comm_reduce_max(c, &v) == 0 ? (step_state)v : STEP_FAILED;
}

/* Φ of the share, pruned (its stats over own events), and its outside
 * through the skeleton into *mp and out; as every rank voted.  Stopped,
 * *mp is Φ as far as it was built (or NULL), for the summary. */
static step_state model_of(const cli *c, const trace_share *s, comm *ranks,
                           const analysis_options *ao, progress *prog,
                           prune_stats *pruning, hb_outside *out,
                           share_result *res, hb_model **mp)
{
    char err[4096];
    progress_phase_set(prog, PHASE_MODEL, s->t->n_events);
    hb_model *m = hb_model_build_share(s, c->handlers, ao->stop, ranks, err,
                                       sizeof err);
    *mp = m;
    step_state st = vote(ranks, !m, ao->stop);
    if (st != STEP_WELL)
        return st;
    m->lock_eager_max = c->eager_locks;
    res->encoded = clock_seconds();
    int lost = 0;
    progress_phase_set(prog, PHASE_PRUNE, s->t->n_events);
    if (!c->no_prune) {
        prune_options po = {.stop = ao->stop, .uncounted = s->foreign};
        uint8_t *keep = prune_trace(s->t, m, &po, pruning);
        lost = hb_model_project(m, s->t, keep) != 0;
        free(keep);
    }
    res->pruned = clock_seconds();
    if ((st = vote(ranks, lost, NULL)) != STEP_WELL)
        return st;
    hb_skeleton k = {0};
    st = vote(ranks, hb_skeleton_exchange(s, m, ranks, &k, err, sizeof err),
              NULL);
    if (st == STEP_WELL)
        hb_skeleton_outside(&k, s, m->handlers, comm_rank(ranks), out);
    hb_skeleton_free(&k); /* the outside has what the order needs */
    return st;
}

/* One rank's part; rank 0's result into j.  0, or 1 (whole trace). */
static int run_rank(comm *ranks, rank_job *j)
{
    int root = comm_rank(ranks) == 0;
    trace_options o = *j->topts;
    char *warned = NULL;
    size_t warned_len = 0;
    o.warnings = root && j->topts->warnings
                     ? open_memstream(&warned, &warned_len) : NULL;
    if (!root)
        o.bytes_read = NULL;
    char err[4096];
    trace_share s;
    int rc = trace_load_share(j->paths, j->n_paths, &o, ranks, &s, err,
                              sizeof err);
    int derived = rc == TRACE_OK ? trace_share_warn_unmatched(&s, ranks, &o)
                                 : 0; /* after the reading's, as ever */
    if (o.warnings)
        fclose(o.warnings);
    const volatile sig_atomic_t *stop = j->aopts->stop;
    step_state st = vote(ranks, rc != TRACE_OK || derived < 0, stop);
    if (st == STEP_FAILED) {
        if (rc == TRACE_OK)
            trace_share_free(&s);
        free(warned);
        return 1;
    }
    share_result res = {.loaded = clock_seconds()};
    res.encoded = res.pruned = res.loaded;
    prune_stats pruning = {0};
    hb_outside out = {0};
    hb_model *m = NULL;
    if (st == STEP_WELL)
        st = model_of(j->c, &s, ranks, j->aopts, root ? j->prog : NULL,
                      &pruning, &out, &res, &m);
    if (st == STEP_STOPPED && !m) /* what was read, for the summary */
        m = hb_model_build_until(s.t, NULL, j->c->handlers, stop);
    int status = 1;
    if (st != STEP_FAILED) {
        analysis_options ao = *j->aopts;
        ao.comm = NULL; /* the share's collectives are analyse_share()'s */
        ao.ranks = 1;
        if (!root)
            ao.progress = NULL;
        if (root && m)
            progress_phase_set(j->prog, PHASE_SOLVE,
                               s.t->n_events - m->n_kept);
        /* stopped: no outside, nothing analysed (the summary of what was
         * read, as one process stopped then gives) */
        status = analyse_share(&s, m, st == STEP_WELL ? &out : NULL,
                               &pruning, &ao, ranks, &res.r, err,
                               sizeof err) == 0 ? 0 : 1;
    }
    hb_outside_free(&out);
    hb_model_free(m);
    trace_share_free(&s);
    if (root && status == 0) {
        res.r->timings.solve = clock_seconds() - res.pruned;
        res.r->summary.trace.warnings += (uint32_t)derived;
        if (warned_len)
            fwrite(warned, 1, warned_len, j->topts->warnings);
        *j->out = res;
    }
    free(warned);
    return status;
}

static void thread_rank(comm *c, void *arg)
{
    rank_job *j = arg;
    int rc = run_rank(c, j);
    if (c->rank == 0)
        j->rc = rc;
}

int share_run(const cli *c, const char *const *paths, size_t n_paths,
              const trace_options *topts, comm *ranks, unsigned ranks_n,
              const analysis_options *aopts, progress *prog,
              share_result *out)
{
    rank_job j = {c, paths, n_paths, topts, aopts, prog, out, 1};
    out->r = NULL;
    if (ranks)
        return run_rank(ranks, &j);
    comm_threads_run(ranks_n, thread_rank, &j);
    return j.rc;
}
