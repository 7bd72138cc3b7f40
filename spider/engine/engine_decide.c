/*
 * engine_decide.c — the verdicts of a run's candidates (engine_decide.h).
 */
#include "engine_decide.h"
#include "engine_pool.h"
#include "engine_ranks.h"
#include "engine_schedule.h"
#include "schedule_ahead.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <string.h>

/* ---- verdicts --------------------------------------------------------------- */

/* A candidate's queries (the pool's candidate_queries). */
static unsigned engine_n_queries(const engine_run *run, uint32_t c)
{
    return run->g->analyses[run->c[c].kind]->n_queries;
}

static hb_query engine_query(const engine_run *run, uint32_t c, unsigned k)
{
    return run->g->analyses[run->c[c].kind]->query(&run->c[c], k);
}

static size_t engine_query_id(const engine_run *run, uint32_t c, unsigned k)
{
    race_kind kind = (race_kind)run->c[c].kind;
    size_t per = run->g->analyses[kind]->n_queries;
    return run->first_query[kind] + (c - run->first_cand[kind]) * per + k;
}

static unsigned pool_n_queries(const void *run, uint32_t c)
{
    return engine_n_queries(run, c);
}

static hb_query pool_query(const void *run, uint32_t c, unsigned k)
{
    return engine_query(run, c, k);
}

static size_t pool_query_id(const void *run, uint32_t c, unsigned k)
{
    return engine_query_id(run, c, k);
}

/* Query ids: kind by kind, each candidate's n_queries in a row. */
static void number_queries(engine_run *run)
{
    size_t c = 0, q = 0;
    for (int k = 0; k < RACE_KINDS; k++) { /* c[] is in kind order */
        run->first_cand[k] = c;
        run->first_query[k] = q;
        c += run->n_of_kind[k];
        q += run->n_of_kind[k] * run->g->analyses[k]->n_queries;
    }
    assert(c == run->n);
    run->first_cand[RACE_KINDS] = c;
    run->first_query[RACE_KINDS] = q;
    run->n_queries = q;
}

/* The candidate a query id belongs to. */
static uint32_t candidate_of_query(const engine_run *run, size_t i, unsigned *k)
{
    int kind = 0;
    while (i >= run->first_query[kind + 1])
        kind++;
    size_t per = run->g->analyses[kind]->n_queries;
    size_t off = i - run->first_query[kind];
    *k = (unsigned)(off % per);
    return (uint32_t)(run->first_cand[kind] + off / per);
}

static hb_query query_by_id(const void *ctx, size_t i)
{
    unsigned k;
    uint32_t c = candidate_of_query(ctx, i, &k);
    return engine_query(ctx, c, k);
}

/* A candidate holds when all its queries are SAT; it does not when one is
 * UNSAT. */
static hb_answer verdict_of(const engine_run *run, uint32_t c,
                            const hb_answer *qa)
{
    hb_answer v = ANSWER_SAT;
    for (unsigned k = 0; k < engine_n_queries(run, c); k++) {
        hb_answer a = qa[engine_query_id(run, c, k)];
        if (a == ANSWER_UNSAT)
            return ANSWER_UNSAT;
        if (a != ANSWER_SAT)
            v = ANSWER_UNKNOWN;
    }
    return v;
}

/* The shortcuts' answers into verdict: 1 if Φ is satisfiable, 0 if not,
 * -1 if unknown, 2 if stopped before any answer (verdict untouched). */
static int run_shortcuts(engine_run *run, hb_answer *qa, hb_answer *verdict)
{
    query_list ql = {query_by_id, run, run->n_queries, run->o->stop,
                     run->o->progress};
    shortcut_stats st = {0};
    /* the generators' hb_order, when they made one, has the graphs */
    int consistent = run->order ? hb_order_decide_all(run->order, &ql, qa, &st)
                                : shortcut_decide(run->t, run->m, &ql, qa, &st);
    if (engine_stopped(run) && !st.unsat_ordered && !st.unsat_locks && !st.sat_witness)
        return 2; /* stopped before any answer: no walk (count_undecided(),
                     engine_analyse.c) */
    report_summary *s = &run->r->summary;
    for (uint32_t c = 0; c < run->n && consistent != 0; c++) {
        verdict[c] = verdict_of(run, c, qa);
        s->by_shortcut_unsat += verdict[c] == ANSWER_UNSAT;
        s->by_shortcut_sat += verdict[c] == ANSWER_SAT;
    }
    return consistent;
}

static int by_group(const void *x, const void *y, void *ctx);

/* What the schedules of one run may cost in all: events played, a few
 * seconds of work on a trace that needs them all. */
enum { SCHEDULE_BUDGET_STEPS = 400000000 };

/* The runs found so far, newest kept: each is a solution of Φ, so a later
 * query whose atoms hold in one of them is SAT without scheduling again
 * (most candidates of a group fall to a handful of runs).  At most
 * FOUND_RUNS of them, and 256 MB of steps. */
enum { FOUND_RUNS = 8 };
typedef struct found_runs {
    uint32_t *value[FOUND_RUNS];     /* steps by event, or NULL */
    uint32_t *scratch;               /* the run being tried */
    uint32_t n, next, max;
} found_runs;

static void found_runs_init(found_runs *f, uint32_t n_events)
{
    memset(f, 0, sizeof *f);
    uint64_t fit = ((uint64_t)256 << 20) / ((uint64_t)n_events * 4 + 4);
    f->max = fit < FOUND_RUNS ? (uint32_t)fit : FOUND_RUNS;
}

static void found_runs_free(found_runs *f)
{
    for (uint32_t i = 0; i < FOUND_RUNS; i++)
        free(f->value[i]);
    free(f->scratch);
}

/* Whether the atoms of q hold in the steps v (all of them, or one for a
 * disjunction). */
static int atoms_hold(const hb_query *q, const uint32_t *v)
{
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        uint32_t a = v[q->ev[q->atoms[k].i]], b = v[q->ev[q->atoms[k].j]];
        int holds = q->atoms[k].kind == ATOM_LESS ? a < b
                    : q->atoms[k].kind == ATOM_LESS_EQ ? a <= b : a == b;
        if (holds == q->any)
            return holds;
    }
    return !q->any;
}

/* Atom k of disjunction q as a query of its own (the scheduler takes a
 * disjunction atom by atom). */
static hb_query atom_query(const hb_query *q, uint32_t k)
{
    hb_query one = *q;
    one.n_atoms = 1;
    one.any = 0;
    one.atoms[0] = q->atoms[k];
    return one;
}

/* Whether a run found before satisfies q, or q names a pruned event
 * (then no run is looked for). */
static int found_before(const engine_run *run, const found_runs *f,
                        const hb_query *q, int *pruned)
{
    *pruned = 0;
    for (uint32_t i = 0; i < q->n_events; i++)
        if (!run->m->kept[q->ev[i]])
            return *pruned = 1, 0;
    for (uint32_t i = 0; i < f->n; i++)
        if (atoms_hold(q, f->value[i]))
            return 1;
    return 0;
}

/* Where run_schedules() is: a candidate (its index in `order`), one of
 * its queries, and an atom of a disjunction (-1: the whole query). */
typedef struct replay_pos {
    uint32_t at, k;
    int atom;
} replay_pos;

/* Whether the loop comes to a before b. */
static int pos_before(replay_pos a, replay_pos b)
{
    return a.at != b.at ? a.at < b.at : a.k != b.k ? a.k < b.k : a.atom < b.atom;
}

/* run_schedules()'s state. */
typedef struct replay {
    engine_run *run;
    const hb_answer *qa;
    scheduler *s;
    found_runs found;
    const uint32_t *order;           /* the candidates left, in Z3's order */
    uint32_t n;
    const uint32_t *best;            /* group -> least rank that holds */
    const uint8_t *left;             /* group -> a candidate left to Z3 */
    int dedup;                       /* engine_may_skip() */
    replay_pos pos;                  /* the query being asked */
    schedule_ahead *ahead;           /* or NULL: alone */
    replay_pos ahead_pos;            /* what it runs, if it has a run */
    uint64_t spent_ahead;            /* steps of the runs taken from it */
} replay;

/* How far ahead a run is looked for: the candidates a scan may pass,
 * so that a scan (each time the loop itself runs the scheduler) costs
 * little beside a run, while a few groups of candidates that one run
 * answers are passed over.  And the largest trace a second thread runs
 * ahead on: its run state (a twin's, about 34 bytes per event, and the
 * steps of a run) in 256 MB, as the runs found are. */
enum { LOOK_AHEAD_CANDIDATES = 256, AHEAD_MAX_EVENTS = 7 << 20 };

/* A position as schedule_ahead's tag (k < 256: analysis.n_queries). */
static uint64_t tag_of(replay_pos p)
{
    return (uint64_t)p.at << 16 | (uint64_t)p.k << 8 | (uint64_t)(p.atom + 1);
}

/* Whether the loop will pass candidate c without asking it (as far as
 * is known now). */
static int skipped(const replay *rp, uint32_t c)
{
    const candidate *cd = &rp->run->c[c];
    return rp->dedup && cd->dedupable &&
           (rp->best[cd->group] <= cd->rank || rp->left[cd->group]);
}

/* The first query after rp->pos that the runs found so far do not
 * answer (for a disjunction, its first atom), within
 * LOOK_AHEAD_CANDIDATES; 0 when none.  Not one of the group being
 * asked: once its candidate is decided, the loop skips the rest of the
 * group (SAT: the group holds; not: Z3 takes it on). */
static int next_unanswered(const replay *rp, replay_pos *next, hb_query *q)
{
    uint32_t end = rp->pos.at + LOOK_AHEAD_CANDIDATES < rp->n
                       ? rp->pos.at + LOOK_AHEAD_CANDIDATES : rp->n;
    uint32_t group = rp->run->c[rp->order[rp->pos.at]].group;
    for (uint32_t at = rp->pos.at; at < end; at++) {
        uint32_t c = rp->order[at];
        if (at > rp->pos.at &&
            (skipped(rp, c) || (rp->dedup && rp->run->c[c].dedupable &&
                                rp->run->c[c].group == group)))
            continue;
        unsigned k = at == rp->pos.at ? rp->pos.k + 1 : 0;
        for (; k < engine_n_queries(rp->run, c); k++) {
            int pruned;
            *q = engine_query(rp->run, c, k);
            if (rp->qa[engine_query_id(rp->run, c, k)] != ANSWER_UNKNOWN ||
                found_before(rp->run, &rp->found, q, &pruned) || pruned)
                continue;
            *next = (replay_pos){at, k, q->any ? 0 : -1};
            if (q->any)
                *q = atom_query(q, 0);
            return 1;
        }
    }
    return 0;
}

/* Before rp runs the scheduler itself: a run ahead that the loop has
 * passed is dropped, and an idle thread gets the next query. */
static void look_ahead(replay *rp)
{
    if (schedule_ahead_has(rp->ahead, tag_of(rp->ahead_pos)) &&
        pos_before(rp->ahead_pos, rp->pos))
        schedule_ahead_drop(rp->ahead);
    hb_query q;
    if (schedule_ahead_idle(rp->ahead) && next_unanswered(rp, &rp->ahead_pos, &q))
        schedule_ahead_start(rp->ahead, &q, tag_of(rp->ahead_pos));
}

/* Schedules Φ ∧ q (at rp->pos) into the scratch run, or takes the run
 * ahead of it; a run found takes the place of the oldest kept one (a
 * failed attempt leaves the kept runs as they were). */
static int schedule_into(replay *rp, const hb_query *q)
{
    found_runs *f = &rp->found;
    if (f->max && !f->scratch)
        f->scratch = xmalloc_array((size_t)rp->run->t->n_events + 1, sizeof(uint32_t));
    int ok;
    if (rp->ahead && schedule_ahead_has(rp->ahead, tag_of(rp->pos))) {
        ok = schedule_ahead_take(rp->ahead, &f->scratch, &rp->spent_ahead);
    } else {
        if (rp->ahead)
            look_ahead(rp);
        ok = scheduler_run(rp->s, q, f->scratch);
    }
    if (!ok)
        return 0;
    if (f->max) {
        uint32_t *evicted = f->value[f->next];
        f->value[f->next] = f->scratch;
        f->scratch = evicted;
        f->next = (f->next + 1) % f->max;
        f->n += f->n < f->max;
    }
    return 1;
}

/* Whether some run satisfies Φ ∧ q: one found before, or a new one (a
 * conjunction whole, a disjunction atom by atom). */
static int schedule_satisfies(replay *rp, const hb_query *q)
{
    int pruned;
    if (found_before(rp->run, &rp->found, q, &pruned))
        return 1;
    if (pruned)
        return 0;
    rp->pos.atom = -1;
    if (!q->any)
        return schedule_into(rp, q);
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        hb_query one = atom_query(q, k);
        rp->pos.atom = (int)k;
        if (schedule_into(rp, &one))
            return 1;
    }
    return 0;
}

/* Steps the scheduler runs cost so far, those taken from ahead too: what
 * the loop alone would have spent. */
static uint64_t replay_spent(const replay *rp)
{
    return scheduler_steps(rp->s) + rp->spent_ahead;
}

static uint32_t group_of_id(const void *c, const void *ctx)
{
    return ((const engine_run *)ctx)->c[*(const uint32_t *)c].group;
}

/* Sorts candidate ids c[0..n) by_group: by group in linear time, then each
 * group's own; the stop is checked between groups (a SIGTERM must not
 * wait for a sort of millions of candidates by their events).  After a
 * stop the order is not used. */
static void sort_by_group(const engine_run *run, uint32_t *c, uint32_t n)
{
    engine_counting_sort(c, n, sizeof *c, run->g->n, group_of_id, run);
    for (uint32_t i = 0, j; i < n && !engine_stopped(run); i = j) {
        for (j = i + 1; j < n && run->c[c[j]].group == run->c[c[i]].group;)
            j++;
        qsort_r(c + i, j - i, sizeof *c, by_group, (void *)run);
    }
}

/* The candidates the shortcuts left, in the order Z3 would take them (by
 * group, lowest rank first), each asked of the scheduler (engine_schedule.c)
 * until it finds runs for all its queries: SAT, exactly, since a run found
 * is a solution of Φ and the query.  A group that holds stops asking at
 * a rank no lower, as for Z3.  Within SCHEDULE_BUDGET_STEPS; UNSAT is
 * still Z3's to say.  With more than one job, a thread runs the next
 * query ahead (schedule_ahead.h): the same answers, sooner. */
static void run_schedules(engine_run *run, hb_answer *qa, hb_answer *verdict)
{
    uint32_t *best = xmalloc_array(run->g->n + 1, sizeof *best);
    for (uint32_t i = 0; i < run->g->n; i++)
        best[i] = run->g->g[i].count && run->g->g[i].instance_holds
                      ? run->g->g[i].inst_rank : UINT32_MAX;
    for (size_t i = 0; i < run->n; i++)
        if (verdict[i] == ANSWER_SAT && run->c[i].rank < best[run->c[i].group])
            best[run->c[i].group] = run->c[i].rank;
    int dedup = engine_may_skip(run);
    uint32_t *order = xmalloc_array(run->n + 1, sizeof *order), n = 0;
    for (uint32_t i = 0; i < run->n; i++) /* not those Z3 would not ask */
        if (verdict[i] == ANSWER_UNKNOWN &&
            !(dedup && run->c[i].dedupable && best[run->c[i].group] <= run->c[i].rank))
            order[n++] = i;
    if (n == 0) { /* the shortcuts decided everything */
        free(order);
        free(best);
        return;
    }
    if (dedup)
        sort_by_group(run, order, n);
    run_progress *progress = run->o->progress;
    if (progress) /* what the shortcuts decided, and what Z3 would skip */
        atomic_store(&progress->done, run->n - n);
    /* groups where a candidate was left to Z3: their later ones are too,
     * so that Z3 meets them in its order and the group's first instance
     * that holds is the one it would have found (the one shown) */
    uint8_t *left = xcalloc(run->g->n + 1, 1);
    replay rp = {.run = run, .qa = qa, .order = order, .n = n, .best = best,
                 .left = left, .dedup = dedup};
    rp.s = scheduler_new(run->t, run->m);
    found_runs_init(&rp.found, run->t->n_events);
    if (run->o->jobs > 1 && rp.found.max && run->t->n_events <= AHEAD_MAX_EVENTS)
        rp.ahead = schedule_ahead_new(rp.s, run->t->n_events);
    for (uint32_t i = 0; i < n && !engine_stopped(run) &&
                         replay_spent(&rp) < SCHEDULE_BUDGET_STEPS; i++) {
        uint32_t c = order[i];
        const candidate *cd = &run->c[c];
        if (progress)
            atomic_fetch_add_explicit(&progress->done, 1, memory_order_relaxed);
        if (skipped(&rp, c))
            continue;
        for (unsigned k = 0; k < engine_n_queries(run, c); k++) {
            size_t id = engine_query_id(run, c, k);
            hb_query q = engine_query(run, c, k);
            rp.pos = (replay_pos){i, k, -1};
            if (qa[id] == ANSWER_UNKNOWN && schedule_satisfies(&rp, &q))
                qa[id] = ANSWER_SAT;
        }
        verdict[c] = verdict_of(run, c, qa);
        if (verdict[c] == ANSWER_SAT) {
            run->r->summary.by_shortcut_sat++;
            if (cd->rank < best[cd->group])
                best[cd->group] = cd->rank;
        } else { /* Z3 takes the group on from here, in its order */
            left[cd->group] = 1;
        }
    }
    schedule_ahead_free(rp.ahead);
    scheduler_free(rp.s);
    found_runs_free(&rp.found);
    free(left);
    free(best);
    free(order);
}

/* The prefix of Φ a candidate's queries need (encode_slice.c). */
static uint32_t candidate_unit(const engine_run *run, const uint32_t *unit,
                               uint32_t c)
{
    uint32_t u = 0;
    for (unsigned k = 0; k < engine_n_queries(run, c); k++) {
        hb_query q = engine_query(run, c, k);
        for (uint32_t i = 0; i < q.n_events; i++)
            if (unit[q.ev[i]] > u)
                u = unit[q.ev[i]];
    }
    return u;
}

/* Sorts candidates c[0..n) by the prefix of Φ they need, then by id: each
 * key (unit << 32 | id) is computed once, not at every comparison. */
static void sort_by_slice(const engine_run *run, const uint32_t *unit,
                          uint32_t *c, uint32_t n)
{
    uint64_t *key = xmalloc_array(n + 1, sizeof *key);
    for (uint32_t i = 0; i < n; i++)
        key[i] = (uint64_t)candidate_unit(run, unit, c[i]) << 32 | c[i];
    qsort(key, n, sizeof *key, engine_cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        c[i] = (uint32_t)key[i];
    free(key);
}

/* Within a group: lowest rank first, then by the instance's events in the
 * group's order (thread name, position in the thread's input), so which
 * candidate Z3 asks first never depends on the order of files or of
 * events in them (tests/t0040-invariance.sh). */
static int by_group(const void *x, const void *y, void *ctx)
{
    const engine_run *run = ctx;
    const candidate *a = &run->c[*(const uint32_t *)x];
    const candidate *b = &run->c[*(const uint32_t *)y];
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    const group_state *gs = &run->g->g[a->group];
    const analysis *an = run->g->analyses[a->kind];
    uint32_t ea[GROUP_EVENTS], eb[GROUP_EVENTS];
    grouper_orient(run->g, gs, an, a->ev, ea);
    grouper_orient(run->g, gs, an, b->ev, eb);
    for (uint32_t i = 0; i < an->n_shown; i++) {
        int d = grouper_cmp_events(run->g, ea[i], eb[i]);
        if (d)
            return d;
    }
    return a < b ? -1 : a > b;
}

/* Which candidates Z3 must decide.  Unless every instance is wanted, a
 * candidate of a group that already holds at a rank no higher than its own
 * is not asked (so a group's lowest rank stays exact). */
static uint32_t *pick_for_solver(const engine_run *run, hb_answer *verdict,
                                 int dedup, uint32_t *n_out)
{
    uint32_t n_groups = run->g->n;
    uint32_t *best = xmalloc_array(n_groups + 1, sizeof *best);
    for (uint32_t i = 0; i < n_groups; i++)
        best[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n_groups; i++) /* recorded by an analysis */
        if (run->g->g[i].count && run->g->g[i].instance_holds)
            best[i] = run->g->g[i].inst_rank;
    for (size_t i = 0; i < run->n; i++)
        if (verdict[i] == ANSWER_SAT && run->c[i].rank < best[run->c[i].group])
            best[run->c[i].group] = run->c[i].rank;
    uint32_t *order = xmalloc_array(run->n + 1, sizeof *order), n = 0;
    for (size_t i = 0; i < run->n; i++) {
        const candidate *c = &run->c[i];
        if (verdict[i] != ANSWER_UNKNOWN)
            continue;
        if (dedup && c->dedupable && best[c->group] != UINT32_MAX &&
            c->rank >= best[c->group])
            verdict[i] = ANSWER_NOT_ASKED;
        else
            order[n++] = (uint32_t)i;
    }
    free(best);
    *n_out = n;
    return order;
}

/* How the run's solvers work. */
hb_solver_options engine_solver_options(const engine_run *run)
{
    return (hb_solver_options){.tuning = run->o->tuning,
                               .timeout_ms = run->o->timeout_ms,
                               .stop = run->o->stop};
}

/* The stop flag for engine_z3_call: set only when the caller can take
 * Z3 work left running (analysis_options.abandoned). */
const volatile sig_atomic_t *engine_leave_on(const engine_run *run)
{
    return run->o->abandoned ? run->o->stop : NULL;
}

void engine_note_abandoned(const engine_run *run)
{
    *run->o->abandoned = 1;
}

/* Sends what the shortcuts left undecided to Z3: with dedup, dedupable
 * candidates in units per group that stop at their first hold; the rest
 * one by one, in the order of the prefix of Φ they need. */
/* Makes the wait/notify part of Φ that the model defers (encode.h), on
 * this thread, before Z3 reads it.  -1 when stopped meanwhile (the model
 * is then incomplete: nothing more is asked). */
static int solver_model(const engine_run *run)
{
    hb_model_add_waits(run->m, run->t, run->o->stop);
    return run->m->incomplete ? -1 : 0;
}

static int ask_solver(engine_run *run, hb_answer *qa, hb_answer *verdict,
                      hb_solver *premade, char *err, size_t err_len)
{
    const analysis_options *o = run->o;
    if (engine_stopped(run)) { /* what is left stays undecided: sorting it
                                  for Z3 took seconds on Cyclon */
        hb_solver_free(premade);
        return 0;
    }
    int dedup = engine_may_skip(run);
    uint32_t n, n_grouped = 0;
    uint32_t *order = pick_for_solver(run, verdict, dedup, &n);
    if (o->progress) /* the shortcuts decided the others */
        atomic_store(&o->progress->done, run->n - n);
    if (n == 0) { /* the shortcuts decided everything */
        hb_solver_free(premade);
        free(order);
        return 0;
    }
    if (dedup) { /* dedupable ones first, by group */
        uint32_t *sorted = xmalloc_array(n + 1, sizeof *sorted), k = 0;
        for (uint32_t i = 0; i < n; i++)
            if (run->c[order[i]].dedupable)
                sorted[k++] = order[i];
        n_grouped = k;
        for (uint32_t i = 0; i < n; i++)
            if (!run->c[order[i]].dedupable)
                sorted[k++] = order[i];
        free(order);
        order = sorted;
        sort_by_group(run, order, n_grouped);
    }
    if (solver_model(run) != 0) { /* stopped: the rest stays undecided */
        hb_solver_free(premade);
        free(order);
        return 0;
    }
    uint32_t *slices = hb_model_slices(run->m);
    sort_by_slice(run, slices, order + n_grouped, n - n_grouped);
    uint32_t *unit_start = xmalloc_array(n + 2, sizeof *unit_start);
    uint8_t *stop = xmalloc(n + 1);
    uint32_t units = 0;
    for (uint32_t i = 0; i < n; i++) {
        int same = i > 0 && i < n_grouped &&
                   run->c[order[i]].group == run->c[order[i - 1]].group;
        if (!same) {
            stop[units] = i < n_grouped;
            unit_start[units++] = i;
        }
    }
    unit_start[units] = n;
    solve_work w = {.queries = {pool_n_queries, pool_query, pool_query_id, run},
                    .progress = o->progress, .order = order, .unit_start = unit_start,
                    .n_units = units, .stop_at_sat = stop, .slices = slices,
                    .may_leave = o->abandoned != NULL, .premade = premade};
    int rc = engine_ranks_solve(run, &w, qa, verdict, engine_solver_options(run),
                                err, err_len);
    if (rc == 1) /* workers left in Z3 may read the slices: they stay */
        engine_note_abandoned(run);
    for (uint32_t i = 0; i < n && rc == 0; i++)
        run->r->summary.by_z3 += verdict[order[i]] != ANSWER_NOT_ASKED;
    free(order);
    free(unit_start);
    free(stop);
    if (rc != 1)
        free(slices);
    return rc == 1 ? 0 : rc;
}

/* Z3 work on a thread of its own (engine_z3_call): what it reads and
 * writes, left behind if the call is. */
typedef struct z3_model_task {
    const trace *t;
    const hb_model *m;
    hb_solver_options so;
    hb_answer answer;        /* consistency */
    int keep;                /* keep a satisfiable Φ's solver in `solver` */
    hb_solver *solver;
    char error[256];
    uint32_t events[8];      /* explanation */
    size_t n;
} z3_model_task;

static void explain_task(void *arg)
{
    z3_model_task *task = arg;
    task->n = hb_model_explain(task->t, task->m, task->events, 8,
                               task->so.stop);
}

/* "inconsistent trace: ..." naming the events of a contradiction. */
static void explain_inconsistent(const engine_run *run, char *err,
                                 size_t err_len)
{
    const trace *t = run->t;
    z3_model_task *task = xcalloc(1, sizeof *task);
    *task = (z3_model_task){.t = t, .m = run->m, .so = engine_solver_options(run)};
    uint32_t *events = task->events;
    size_t n = 0;
    int left = engine_z3_call(explain_task, task, engine_leave_on(run));
    if (!left && task->n == 0 && run->m->waits_deferred &&
        solver_model(run) == 0) /* a core needs Z3, and Z3 the waits */
        left = engine_z3_call(explain_task, task, engine_leave_on(run));
    if (left)
        engine_note_abandoned(run); /* the events are not known */
    else
        n = task->n;
    int w = snprintf(err, err_len, "inconsistent trace: no run can order "
                     "these events as the trace says (its happens-before "
                     "model is unsatisfiable):");
    for (size_t i = 0; i < n && w > 0 && (size_t)w < err_len; i++) {
        const event *e = &t->events[events[i]];
        char *loc = event_location_dup(t, events[i]);
        w += snprintf(err + w, err_len - (size_t)w, "%s %s:%u %s %s",
                      i ? (n > 1 && i + 1 == n && n == 8 ? " ..." : ",") : "",
                      t->files[e->file], e->line, event_kind_name(e->kind),
                      loc);
        free(loc);
    }
    if (!left) /* else the call may still use it */
        free(task);
}

static void consistency_task(void *arg)
{
    z3_model_task *task = arg;
    hb_solver *s = hb_solver_new(task->m, &task->so);
    if (!s) {
        task->answer = ANSWER_ERROR;
        snprintf(task->error, sizeof task->error, "could not be set up");
        return;
    }
    task->answer = hb_solver_check_model(s);
    snprintf(task->error, sizeof task->error, "%s", hb_solver_error(s));
    if (task->keep && task->answer == ANSWER_SAT)
        task->solver = s;
    else
        hb_solver_free(s);
}

/* 1 when Φ is satisfiable (or stopped before Z3 said), 0 with a message
 * when it is not or Z3 fails.  With kept, a satisfiable Φ's solver is
 * given there (else NULL) for the pool: a Z3 context costs more to set
 * up than all the queries of a small trace. */
static int model_consistent(const engine_run *run, hb_solver **kept,
                            char *err, size_t err_len)
{
    if (solver_model(run) != 0)
        return 1; /* stopped */
    z3_model_task *task = xcalloc(1, sizeof *task);
    *task = (z3_model_task){.m = run->m, .so = engine_solver_options(run),
                            .keep = kept != NULL};
    task->so.timeout_ms = 0; /* Φ alone: no query to give up on */
    if (engine_z3_call(consistency_task, task, engine_leave_on(run))) {
        engine_note_abandoned(run); /* the task stays: the call may still use it */
        return 1;            /* nothing more is asked: the run stopped */
    }
    if (kept)
        *kept = task->solver;
    hb_answer a = task->answer;
    if (a == ANSWER_ERROR)
        snprintf(err, err_len, "the Z3 solver failed: %s", task->error);
    free(task);
    if (a == ANSWER_UNSAT)
        explain_inconsistent(run, err, err_len);
    return a == ANSWER_SAT || a == ANSWER_UNKNOWN;
}

/* Every verdict unknown, the queries numbered, and their answers (the
 * caller frees them), unknown too. */
static hb_answer *unknown_answers(engine_run *run, hb_answer *verdict)
{
    for (size_t i = 0; i < run->n; i++) { /* seconds on 200 M */
        if (!(i & 0xfffff))
            run_progress_step(run->o->progress, "setting up verdicts", i, run->n);
        verdict[i] = ANSWER_UNKNOWN;
    }
    number_queries(run);
    hb_answer *qa = xmalloc_array(run->n_queries + 1, sizeof *qa);
    for (size_t i = 0; i < run->n_queries; i++) {
        if (!(i & 0xfffff))
            run_progress_step(run->o->progress, "setting up queries", i, run->n_queries);
        qa[i] = ANSWER_UNKNOWN;
    }
    return qa;
}

int engine_decide_shortcuts(engine_run *run, hb_answer *verdict)
{
    hb_answer *qa = unknown_answers(run, verdict);
    int all = !engine_stopped(run) && run_shortcuts(run, qa, verdict) == 1;
    run_progress_step(run->o->progress, NULL, 0, 0);
    for (size_t i = 0; all && i < run->n; i++)
        all = verdict[i] != ANSWER_UNKNOWN;
    free(qa);
    return all && !engine_stopped(run);
}

/* Up to this many events, the pool's first worker takes the consistency
 * check's solver (Φ asserted whole) rather than set up a sliced one:
 * the second Z3 context was a third of --solver=z3's time on small
 * traces, where slicing saves nothing. */
enum { REUSE_SOLVER_MAX_EVENTS = 5000 };

/* Decides every candidate: shortcuts first (unless --solver=z3), then Z3.
 * Returns 0, -1 with err on failure, or 1 when stopped before any
 * verdict (count_undecided(), engine_analyse.c: no walk over the
 * candidates). */
int engine_decide(engine_run *run, hb_answer *verdict, char *err,
                  size_t err_len)
{
    hb_answer *qa = unknown_answers(run, verdict);
    if (engine_stopped(run)) {
        free(qa);
        return 1;
    }
    int consistent = -1, rc = -1;
    if (run->o->solver == SOLVER_AUTO)
        consistent = run_shortcuts(run, qa, verdict);
    run_progress_step(run->o->progress, NULL, 0, 0);
    if (consistent == 2) {
        free(qa);
        return 1;
    }
    if (consistent == 1)
        run_schedules(run, qa, verdict);
    hb_order_free(run->order); /* not held while Z3 runs */
    run->order = NULL;
    hb_solver *kept = NULL; /* the consistency check's, for the pool */
    int reuse = run->m->n_events <= REUSE_SOLVER_MAX_EVENTS;
    if (consistent == 0)
        explain_inconsistent(run, err, err_len);
    else if (consistent == 1 ||
             model_consistent(run, reuse ? &kept : NULL, err, err_len))
        rc = ask_solver(run, qa, verdict, kept, err, err_len);
    free(qa);
    return rc;
}
