/*
 * engine_analyse.c — runs the analyses (engine_analyse.h) and builds the
 * report from the groups that hold.
 */
#include "engine_analyse.h"
#include "engine_decide.h"
#include "engine_ranks.h"
#include "context.h"

#include "../../util/alloc.h"
#include "../../util/clock.h"

#include <stdatomic.h>
#include <string.h>

/* ---- the report ------------------------------------------------------------- */

/* The printable group of a counted one.  Its node and variable are those
 * of its first event when that is an access, else the node of its last
 * shown event (a message race: the receiving node). */
race_group engine_finish_group(const trace *t, const analysis_options *o,
                               const context_finder *cf, const analysis *a,
                               const group_state *gs)
{
    race_group rg;
    memset(&rg, 0, sizeof rg);
    rg.kind = (race_kind)gs->key.kind;
    rg.count = gs->count;
    rg.unchecked = gs->unchecked;
    rg.undecided = gs->undecided;
    rg.ranked = a->ranked;
    rg.gap = gs->inst_rank;
    rg.n_events = a->n_shown;
    for (uint32_t i = 0; i < a->n_shown; i++) {
        rg.events[i] = event_ref_of(t, gs->inst[i]);
        rg.events[i].context = cf ? context_find(cf, gs->inst[i]) : NULL;
    }
    rg.n_locations = a->n_located;
    for (uint32_t i = 0; i < a->n_located; i++)
        rg.locations[i] = xstrdup(rg.events[i].location);
    const event *first = &t->events[gs->inst[0]];
    if (event_is_access(first)) {
        const shared_object *o = &t->objects[first->object];
        rg.node = xstrdup(t->strings[o->node]);
        rg.variable = xstrdup(t->strings[o->name]);
    } else {
        const event *last = &t->events[gs->inst[a->n_shown - 1]];
        rg.node = xstrdup(t->strings[t->threads[last->thread].node]);
    }
    if (a->describe)
        a->describe(t, o, gs->inst, &rg);
    return rg;
}

int engine_cmp_groups(const void *x, const void *y)
{
    const race_group *a = x, *b = y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    for (uint32_t i = 0; i < a->n_locations; i++) {
        int c = strcmp(a->locations[i], b->locations[i]);
        if (c)
            return c;
    }
    return 0;
}

/* A run stopped before deciding: every candidate is undecided, and an
 * open group shows its first.  Walking hundreds of millions of them, and
 * a verdict for each, took seconds after the signal. */
static void count_undecided(engine_run *run)
{
    grouper *g = run->g;
    run->r->summary.undecided = run->n;
    for (uint32_t i = 0; i < g->n; i++) {
        group_state *gs = &g->g[i];
        const candidate *c = &run->c[gs->first];
        gs->undecided = gs->candidates;
        if (gs->candidates)
            grouper_offer(g, i, c->ev, c->rank, 0);
    }
}

void engine_count_verdicts(engine_run *run, const hb_answer *verdict)
{
    if (!verdict) {
        count_undecided(run);
        return;
    }
    report_summary *s = &run->r->summary;
    grouper *g = run->g;
    /* After a stop, an open group shows the first instance found, not the
     * least: comparing instances for each of hundreds of millions of
     * undecided candidates took half a minute after the signal. */
    int stopped = engine_stopped(run);
    for (size_t i = 0; i < run->n; i++) {
        const candidate *c = &run->c[i];
        group_state *gs = &g->g[c->group];
        if (verdict[i] == ANSWER_UNKNOWN) {
            s->undecided++;
            gs->undecided++;
            if (!stopped || !gs->has_instance)
                grouper_offer(g, c->group, c->ev, c->rank, 0);
        } else if (verdict[i] == ANSWER_NOT_ASKED) {
            s->not_asked++;
            gs->unchecked++;
        } else if (verdict[i] == ANSWER_SAT) {
            s->instances[c->kind]++;
            grouper_offer(g, c->group, c->ev, c->rank, 1);
            gs->count++;
            if (run->g->analyses[c->kind]->proven)
                run->g->analyses[c->kind]->proven(run, c);
        }
    }
    for (int k = 0; k < RACE_KINDS; k++)
        if (run->r->summary.enabled[k] && run->g->analyses[k]->proven_all)
            run->g->analyses[k]->proven_all(run);
}

/* --witness: a witness for each group that holds (not for open ones:
 * their instance is undecided).  A solver failure ends the search, not
 * the run: the report stands, witness_failure says why some groups have
 * none. */
static void add_witnesses(engine_run *run, const uint32_t *group_of)
{
    report *r = run->r;
    witness_finder *w = witness_finder_new(run->t, run->m,
                                           run->o->solver == SOLVER_Z3,
                                           engine_solver_options(run), engine_leave_on(run));
    int rc = 0;
    enum { MAX_ALTERNATIVES = 16 };
    witness_query alts[MAX_ALTERNATIVES];
    for (size_t i = 0; i < r->n_groups && rc >= 0 && !engine_stopped(run); i++) {
        const group_state *gs = &run->g->g[group_of[i]];
        const analysis *a = run->g->analyses[gs->key.kind];
        size_t n_alts = 1;
        if (a->witness_queries) {
            n_alts = a->witness_queries(run->t, run->m, gs->inst, alts,
                                        MAX_ALTERNATIVES);
        } else {
            candidate c = {.kind = (uint8_t)gs->key.kind};
            memcpy(c.ev, gs->inst, sizeof c.ev);
            alts[0] = (witness_query){.query = a->query(&c, 0)};
        }
        rc = witness_find(w, gs->inst, a->n_shown, alts, n_alts,
                          &r->groups[i], r->witness_failure,
                          sizeof r->witness_failure);
    }
    if (witness_finder_abandoned(w))
        engine_note_abandoned(run);
    witness_finder_free(w);
}

static void build_groups(engine_run *run, const hb_answer *verdict)
{
    report *r = run->r;
    grouper *g = run->g;
    engine_count_verdicts(run, verdict);
    r->groups = xcalloc(g->n + 1, sizeof *r->groups);
    r->open = xcalloc(g->n + 1, sizeof *r->open);
    uint32_t *group_of = xmalloc_array(g->n + 1, sizeof *group_of);
    context_finder *cf = context_finder_new(run->t);
    for (uint32_t i = 0; i < g->n; i++) {
        const analysis *a = run->g->analyses[g->g[i].key.kind];
        if (g->g[i].count) {
            group_of[r->n_groups] = i;
            r->groups[r->n_groups++] = engine_finish_group(run->t, run->o, cf, a,
                                                    &g->g[i]);
        } else if (g->g[i].undecided) {
            r->open[r->n_open++] = engine_finish_group(run->t, run->o, cf, a,
                                                &g->g[i]);
        }
    }
    context_finder_free(cf);
    if (run->o->witness)
        add_witnesses(run, group_of);
    free(group_of);
    qsort(r->groups, r->n_groups, sizeof *r->groups, engine_cmp_groups);
    qsort(r->open, r->n_open, sizeof *r->open, engine_cmp_groups);
    for (size_t i = 0; i < r->n_groups; i++)
        r->n_by_kind[r->groups[i].kind]++;
}

void engine_fill_summary(report *r, const trace *t, const hb_model *m,
                         const analysis *const *analyses,
                         const analysis_options *opts)
{
    report_summary *s = &r->summary;
    s->files = t->n_files;
    s->nodes = t->n_nodes;
    s->threads = t->n_threads;
    s->events = t->n_events;
    s->events_analyzed = m->n_kept;
    memcpy(s->by_kind, t->stats.by_kind, sizeof s->by_kind);
    s->trace = t->stats;
    s->handlers = t->n_handlers;
    s->lock_sections = t->n_sections;
    s->constraints_by_origin = m->counts;
    s->constraints = hb_model_size(m);
    s->handlers_model = m->handlers; /* the model says which it is */
    s->solver_all = opts->solver == SOLVER_Z3;
    for (int k = 0; k < RACE_KINDS; k++)
        s->enabled[k] = (uint8_t)analyses[k]->enabled(opts);
}

static uint32_t kind_key(const void *c, const void *ctx)
{
    (void)ctx;
    return ((const candidate *)c)->kind;
}

void engine_sort_by_kind(engine_run *run)
{
    if (run->kinds_unsorted)
        engine_counting_sort(run->c, run->n, sizeof *run->c, RACE_KINDS,
                             kind_key, NULL);
}

/* Every enabled analysis's candidates: `generate`, then batch by batch
 * of the shared hb_order each `generate_batch`, on this rank's batches
 * when c splits the run (engine_ranks.h; rank 0 then has them all).
 * Returns 0, or -1 when a collective operation failed. */
static int generate_all(engine_run *run, comm *c)
{
    const report_summary *s = &run->r->summary;
    int batched = 0;
    for (int k = 0; k < RACE_KINDS; k++) {
        const analysis *a = run->g->analyses[k];
        /* a rank but 0 needs only what generate_batch starts from: a
         * kind's groups are its own, so no other kind's bear on it */
        if (s->enabled[k] && a->generate && (comm_rank(c) == 0 || a->generate_batch))
            a->generate(run);
        batched |= s->enabled[k] && a->generate_batch;
    }
    if (!batched || !engine_order(run))
        return 0;
    run->kinds_mixed = 1;
    if (engine_ranks_generate(run, c) != 0)
        return -1;
    /* after a stop nothing is decided and the order does not matter */
    if (comm_rank(c) == 0 && !engine_stopped(run))
        engine_sort_by_kind(run);
    return 0;
}

void engine_run_free(engine_run *run)
{
    hb_order_free(run->order);
    run->order = NULL;
    free(run->c);
    for (int k = 0; k < RACE_KINDS; k++)
        if (run->state_free[k])
            run->state_free[k](run->state[k]);
    grouper_free(run->g);
}

/* Rank 0's part after generating: decides and groups the run into
 * run->r.  0, or -1 with err. */
static int decide_and_group(engine_run *run, char *err, size_t err_len)
{
    const analysis_options *opts = run->o;
    report *r = run->r;
    if (opts->progress)
        atomic_store(&opts->progress->total, run->n);
    /* stopped before any verdict: all undecided (count_undecided) */
    hb_answer *verdict = NULL;
    int rc = 0;
    double start = clock_seconds();
    if (!engine_stopped(run)) {
        verdict = xmalloc_array(run->n + 1, sizeof *verdict);
        rc = engine_decide(run, verdict, err, err_len);
    }
    if (rc == 1) {
        rc = 0;
        free(verdict);
        verdict = NULL;
    }
    hb_order_free(run->order); /* engine_decide() frees it unless stopped first */
    run->order = NULL;
    r->timings.solve = clock_seconds() - start;
    r->timings.jobs = opts->jobs;
    r->summary.partial = opts->stop && *opts->stop;
    if (rc == 0)
        build_groups(run, verdict);
    /* a stop during grouping (handler races) leaves the report partial */
    r->summary.partial = opts->stop && *opts->stop;
    free(verdict);
    return rc;
}

/* The run on one rank of c (or alone, c NULL): every rank generates
 * its share; rank 0 decides and groups, the others decide the Z3 work
 * it deals them (engine_ranks.h).  0, or -1 with err (rank 0's). */
static int analyse_on(engine_run *run, comm *c, char *err, size_t err_len)
{
    run->comm = comm_size(c) > 1 ? c : NULL;
    int rc = generate_all(run, c);
    if (comm_rank(c) != 0) { /* a failure is rank 0's to say */
        if (engine_ranks_serve(run, engine_solver_options(run)) == 1)
            engine_note_abandoned(run);
        return 0;
    }
    if (rc != 0)
        snprintf(err, err_len, "internal: the ranks' shares of the analysis "
                 "did not reach rank 0 (a collective operation failed)");
    else
        rc = decide_and_group(run, err, err_len);
    engine_ranks_release(run); /* when Z3 had nothing for them */
    return rc;
}

/* --ranks=N: ranks as threads (comm_threads.c), each with a run of its
 * own over the shared trace and model; rank 0's is the caller's. */
typedef struct thread_ranks {
    engine_run *root;
    const analysis *const *analyses;
    int rc;
    char *err;
    size_t err_len;
} thread_ranks;

static void thread_rank(comm *c, void *arg)
{
    thread_ranks *tr = arg;
    const engine_run *root = tr->root;
    if (c->rank == 0) {
        tr->rc = analyse_on(tr->root, c, tr->err, tr->err_len);
        return;
    }
    analysis_options o = *root->o;
    o.progress = NULL; /* rank 0's line counts what it replays */
    report r;
    memset(&r, 0, sizeof r);
    engine_fill_summary(&r, root->t, root->m, tr->analyses, &o);
    engine_run run = {.t = root->t, .m = root->m, .o = &o, .r = &r,
                      .g = grouper_new(root->t, tr->analyses)};
    char err[8];
    analyse_on(&run, c, err, sizeof err);
    engine_run_free(&run);
}

report *engine_analyse(const analysis *const *analyses, const trace *t,
                       hb_model *m, const analysis_options *opts, char *err,
                       size_t err_len)
{
    report *r = xcalloc(1, sizeof *r);
    engine_fill_summary(r, t, m, analyses, opts);
    engine_run run = {.t = t, .m = m, .o = opts, .r = r,
                      .g = grouper_new(t, analyses)};
    int rc;
    if (!opts->comm && opts->ranks > 1) {
        thread_ranks tr = {&run, analyses, 0, err, err_len};
        comm_threads_run(opts->ranks, thread_rank, &tr);
        rc = tr.rc;
    } else {
        rc = analyse_on(&run, opts->comm, err, err_len);
    }
    engine_run_free(&run);
    if (rc != 0) {
        report_free(r);
        return NULL;
    }
    return r; /* a rank but 0's is empty: rank 0 reports */
}
