/*
 * engine.c — runs the analyses (engine.h): candidates from each enabled
 * analysis, their verdicts (exact shortcuts, then Z3), and their grouping
 * by location into the report.
 */
#include "engine.h"
#include "engine_pool.h"
#include "engine_schedule.h"
#include "context.h"

#include "../../util/alloc.h"
#include "../../util/clock.h"

#include <assert.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <uthash.h>


/* ---- groups ------------------------------------------------------------------ */

/* A group while instances are counted: location ids, not yet strings. */
typedef struct group_key {
    uint32_t kind, loc[GROUP_EVENTS]; /* symmetric kinds: loc[0] <= loc[1] */
} group_key;

typedef struct group_entry {
    group_key key;
    uint32_t index;
    UT_hash_handle hh;
} group_entry;

typedef struct group_state {
    group_key key;
    uint8_t lo_first;        /* symmetric: location loc[0] sorts first */
    uint8_t has_instance, instance_holds;
    uint64_t count;
    uint64_t unchecked;      /* candidates not asked: the group holds */
    uint64_t undecided;      /* candidates the solver left open */
    uint64_t candidates;     /* of the run (engine_add) */
    uint32_t first;          /* its first candidate */
    uint32_t inst[GROUP_EVENTS];
    uint32_t inst_rank;
} group_state;

enum { GROUP_CACHE = 4096 };

typedef struct grouper {
    const trace *t;
    const analysis *const *analyses; /* by race_kind */
    group_entry *table;
    group_state *g;
    uint32_t n, cap;
    uint32_t *thread_rank;   /* threads ordered by name */
    struct { group_key key; uint32_t index; } cache[GROUP_CACHE];
} grouper;

struct engine_run {
    const trace *t;
    hb_model *m;             /* its waits are made when Z3 is first needed */
    const analysis_options *o;
    report *r;
    grouper *g;
    candidate *c;
    size_t n, cap;
    /* candidates come kind by kind (each analysis adds its own, in kind
     * order): kind k's are [first_cand[k], first_cand[k+1]), its queries
     * from first_query[k] on, n_queries of its kind each */
    size_t first_cand[RACE_KINDS + 1], first_query[RACE_KINDS + 1];
    size_t n_queries;
    hb_order *order;         /* engine_order(): made when first asked for */
    int order_made;
    int kinds_mixed;         /* generate_batch ran: sort by kind */
    int kinds_unsorted;      /* some candidate's kind is below the one's
                                before it (engine_add) */
    size_t n_of_kind[RACE_KINDS]; /* candidates of c[] by kind */
    void *state[RACE_KINDS]; /* each analysis's own, freed by state_free */
    void (*state_free[RACE_KINDS])(void *);
    uint64_t found_unposted; /* candidates not yet in the progress line */
};

static int by_name(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    return strcmp(t->strings[t->threads[*(const uint32_t *)x].name],
                  t->strings[t->threads[*(const uint32_t *)y].name]);
}

static grouper *new_grouper(const trace *t, const analysis *const *analyses)
{
    grouper *g = xcalloc(1, sizeof *g);
    g->t = t;
    g->analyses = analyses;
    for (uint32_t i = 0; i < GROUP_CACHE; i++)
        g->cache[i].key.kind = UINT32_MAX; /* empty */
    uint32_t *order = xmalloc_array(t->n_threads + 1, sizeof *order);
    g->thread_rank = xmalloc_array(t->n_threads + 1, sizeof *g->thread_rank);
    for (uint32_t i = 0; i < t->n_threads; i++)
        order[i] = i;
    qsort_r(order, t->n_threads, sizeof *order, by_name, (void *)t);
    for (uint32_t i = 0; i < t->n_threads; i++)
        g->thread_rank[order[i]] = i;
    free(order);
    return g;
}

static void free_grouper(grouper *g)
{
    group_entry *e, *tmp;
    HASH_ITER(hh, g->table, e, tmp) {
        HASH_DEL(g->table, e);
        free(e);
    }
    free(g->g);
    free(g->thread_rank);
    free(g);
}

/* Orders events by (thread name, position in the thread's input): the same
 * whatever the file layout or the order of files on the command line. */
static int cmp_events(const grouper *g, uint32_t a, uint32_t b)
{
    const event *x = &g->t->events[a], *y = &g->t->events[b];
    if (x->thread != y->thread)
        return g->thread_rank[x->thread] < g->thread_rank[y->thread] ? -1 : 1;
    return x->input_index < y->input_index ? -1
         : x->input_index > y->input_index;
}

static group_key key_of(const trace *t, const analysis *a, const uint32_t *ev)
{
    group_key key = {a->kind, {trace_loc_id(t, ev[0]), trace_loc_id(t, ev[1]),
                               a->n_located > 2 ? trace_loc_id(t, ev[2]) : 0,
                               a->n_located > 3 ? trace_loc_id(t, ev[3]) : 0}};
    if (a->symmetric && key.loc[0] > key.loc[1]) {
        uint32_t x = key.loc[0];
        key.loc[0] = key.loc[1];
        key.loc[1] = x;
    }
    return key;
}

static int same_key(const group_key *x, const group_key *y)
{
    return x->kind == y->kind && x->loc[0] == y->loc[0] &&
           x->loc[1] == y->loc[1] && x->loc[2] == y->loc[2] &&
           x->loc[3] == y->loc[3];
}

/* strcmp of the locations of events a and b, whole ("thread#index" of a
 * long thread name too), allocating only for events without `loc`. */
static int cmp_locations(const trace *t, uint32_t a, uint32_t b)
{
    if (t->events[a].loc != STR_NONE && t->events[b].loc != STR_NONE)
        return strcmp(t->strings[t->events[a].loc], t->strings[t->events[b].loc]);
    char *la = event_location_dup(t, a), *lb = event_location_dup(t, b);
    int c = strcmp(la, lb);
    free(la);
    free(lb);
    return c;
}

/* Memory for race groups ran out: says how many there were, since one
 * group per pair of locations is what grows (issue 15). */
static _Noreturn void groups_fail(const grouper *g, size_t bytes)
{
    char what[96];
    snprintf(what, sizeof what, "race group %u (one per pair of locations)",
             g->n + 1);
    alloc_fail(bytes, what);
}

static uint32_t new_group(grouper *g, const group_key *key, const uint32_t *ev)
{
    if (g->n + 1 > g->cap) {
        size_t cap = alloc_next_cap(g->cap, (size_t)g->n + 1);
        group_state *grown = (uint32_t)cap == cap
                                 ? realloc(g->g, cap * sizeof *grown) : NULL;
        if (!grown)
            groups_fail(g, cap * sizeof *grown);
        g->g = grown;
        g->cap = (uint32_t)cap;
    }
    group_state *gs = &g->g[g->n];
    memset(gs, 0, sizeof *gs);
    gs->key = *key;
    if (g->analyses[key->kind]->symmetric) {
        int a_is_lo = trace_loc_id(g->t, ev[0]) == key->loc[0];
        int c = cmp_locations(g->t, ev[0], ev[1]);
        gs->lo_first = a_is_lo ? c <= 0 : c >= 0;
    }
    group_entry *entry = malloc(sizeof *entry);
    if (!entry)
        groups_fail(g, sizeof *entry);
    entry->key = *key;
    entry->index = g->n;
    HASH_ADD(hh, g->table, key, sizeof *key, entry);
    return g->n++;
}

/* The group of an instance; a small cache in front of the hash table,
 * since instances of one group come in runs. */
static uint32_t group_of(grouper *g, const analysis *a, const uint32_t *ev)
{
    group_key key = key_of(g->t, a, ev);
    uint32_t slot = (key.loc[0] * 2654435761u ^ key.loc[1] * 40503u ^
                     key.loc[2] * 97u ^ key.loc[3] * 7919u ^ key.kind) %
                    GROUP_CACHE;
    if (same_key(&g->cache[slot].key, &key))
        return g->cache[slot].index;
    group_entry *found;
    HASH_FIND(hh, g->table, &key, sizeof key, found);
    uint32_t index = found ? found->index : new_group(g, &key, ev);
    g->cache[slot].key = key;
    g->cache[slot].index = index;
    return index;
}

/* The instance in the group's order: a symmetric pair with the first
 * location first (by event order when both locations are the same). */
static void orient(const grouper *g, const group_state *gs, const analysis *a,
                   const uint32_t *ev, uint32_t *out)
{
    memset(out, 0, sizeof(uint32_t) * GROUP_EVENTS);
    memcpy(out, ev, sizeof(uint32_t) * a->n_shown); /* ev holds n_shown */
    if (!a->symmetric)
        return;
    uint32_t la = trace_loc_id(g->t, ev[0]), lb = trace_loc_id(g->t, ev[1]);
    uint32_t first_loc = gs->lo_first ? gs->key.loc[0] : gs->key.loc[1];
    int swap = la != lb ? la != first_loc : cmp_events(g, ev[0], ev[1]) > 0;
    if (swap) {
        out[0] = ev[1], out[1] = ev[0];
        if (a->n_shown == 4)
            out[2] = ev[3], out[3] = ev[2];
    }
}

/* Offers an instance of group gi to show: one that holds before one left
 * undecided, then the lowest rank, then the least by event order, so the
 * report never depends on the order instances are found in. */
static void offer_instance(grouper *g, uint32_t gi, const uint32_t *ev,
                           uint32_t rank, int holds)
{
    group_state *gs = &g->g[gi];
    if (gs->has_instance && (gs->instance_holds > holds ||
                             (gs->instance_holds == holds && rank > gs->inst_rank)))
        return; /* the usual case, decided before any work */
    const analysis *a = g->analyses[gs->key.kind];
    uint32_t inst[GROUP_EVENTS];
    orient(g, gs, a, ev, inst);
    if (gs->has_instance && gs->instance_holds != holds) {
        if (!holds)
            return;
    } else if (gs->has_instance) {
        int d = rank < gs->inst_rank ? -1 : rank > gs->inst_rank;
        for (uint32_t i = 0; i < a->n_shown && !d; i++)
            d = cmp_events(g, inst[i], gs->inst[i]);
        if (d >= 0)
            return;
    }
    memcpy(gs->inst, inst, sizeof inst);
    gs->inst_rank = rank;
    gs->has_instance = 1;
    gs->instance_holds = (uint8_t)holds;
}

/* ---- the run, for analyses ------------------------------------------------------ */

int engine_context_cmp(const engine_run *run, uint32_t x, uint32_t y)
{
    const event *a = &run->t->events[x], *b = &run->t->events[y];
    if (a->thread != b->thread) {
        const uint32_t *rank = run->g->thread_rank;
        return rank[a->thread] < rank[b->thread] ? -1 : 1;
    }
    if (a->handler != b->handler)
        return a->handler < b->handler ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int by_context(const void *x, const void *y, void *ctx)
{
    const engine_run *run = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (run->t->events[a].object != run->t->events[b].object)
        return run->t->events[a].object < run->t->events[b].object ? -1 : 1;
    return engine_context_cmp(run, a, b);
}

uint32_t *engine_accesses_by_context(const engine_run *run, uint32_t *n)
{
    uint32_t *acc = engine_accesses(run, NULL, n);
    qsort_r(acc, *n, sizeof *acc, by_context, (void *)run);
    return acc;
}

uint32_t engine_thread_rank(const engine_run *run, uint32_t thread)
{
    return run->g->thread_rank[thread];
}

int engine_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Counts n candidates of kind found; the progress line hears of them a
 * few thousand at a time (an atomic add per candidate would cost more
 * than finding it). */
static void found(engine_run *run, race_kind kind, uint64_t n)
{
    run->r->summary.candidates[kind] += n;
    run->found_unposted += n;
    if (run->found_unposted >= 4096 && run->o->progress) {
        atomic_fetch_add_explicit(&run->o->progress->found,
                                  run->found_unposted, memory_order_relaxed);
        run->found_unposted = 0;
    }
}

void engine_count_unsat(engine_run *run, race_kind kind, uint64_t n)
{
    found(run, kind, n);
    run->r->summary.by_shortcut_unsat += n;
}

uint32_t engine_group(engine_run *run, race_kind kind, const uint32_t *ev)
{
    return group_of(run->g, run->g->analyses[kind], ev);
}

/* Unless every instance is wanted, a candidate of a group that already
 * holds at a rank no higher than its own need not be decided (the rule
 * of pick_for_solver). */
static int may_skip(const analysis_options *o)
{
    return o->solver == SOLVER_AUTO && !o->all_instances;
}

int engine_may_skip(const engine_run *run)
{
    return may_skip(run->o);
}

void engine_record(engine_run *run, race_kind kind, uint32_t group,
                   const uint32_t *ev, uint32_t rank, hb_answer verdict)
{
    assert(verdict == ANSWER_SAT || verdict == ANSWER_UNSAT);
    if (verdict == ANSWER_UNSAT)
        engine_count_unsat(run, kind, 1);
    else
        engine_record_sat(run, kind, group, ev, rank, 1);
}

void engine_record_sat(engine_run *run, race_kind kind, uint32_t group,
                       const uint32_t *ev, uint32_t rank, uint64_t n)
{
    report_summary *s = &run->r->summary;
    assert(n > 0);
    found(run, kind, n);
    s->by_shortcut_sat += n;
    s->instances[kind] += n;
    offer_instance(run->g, group, ev, rank, 1);
    run->g->g[group].count += n;
}

void engine_record_unchecked(engine_run *run, race_kind kind, uint32_t group,
                             uint64_t n)
{
    found(run, kind, n);
    run->r->summary.not_asked += n;
    run->g->g[group].unchecked += n;
}

hb_order *engine_order(engine_run *run)
{
    if (!run->order_made && run->o->solver == SOLVER_AUTO)
        run->order = hb_order_new(run->t, run->m, run->o->jobs);
    run->order_made = 1;
    return run->order;
}

const trace *engine_trace(const engine_run *run) { return run->t; }
const hb_model *engine_model(const engine_run *run) { return run->m; }
const analysis_options *engine_options(const engine_run *run) { return run->o; }

int engine_skips(const engine_run *run, uint32_t group, uint32_t rank)
{
    const group_state *gs = &run->g->g[group];
    return may_skip(run->o) && gs->count && gs->instance_holds &&
           gs->inst_rank <= rank;
}

void engine_add(engine_run *run, race_kind kind, const uint32_t *ev,
                uint32_t rank, int dedupable)
{
    const analysis *a = run->g->analyses[kind];
    assert(run->kinds_mixed || run->n == 0 ||
           run->c[run->n - 1].kind <= kind); /* kind by kind */
    if (run->n >= UINT32_MAX / 2) /* candidate and query ids are 32-bit */
        alloc_fail(run->n * sizeof *run->c, "over 2 billion candidates");
    uint32_t group = group_of(run->g, a, ev);
    ALLOC_GROW(run->c, run->n + 1, run->cap);
    candidate *c = &run->c[run->n++];
    memset(c, 0, sizeof *c);
    memcpy(c->ev, ev, sizeof(uint32_t) * a->n_shown);
    c->group = group;
    c->rank = rank;
    c->kind = (uint8_t)kind;
    c->dedupable = (uint8_t)dedupable;
    run->kinds_unsorted |= run->n > 1 && run->c[run->n - 2].kind > kind;
    run->n_of_kind[kind]++;
    if (!run->g->g[group].candidates++)
        run->g->g[group].first = (uint32_t)(run->n - 1);
    found(run, kind, 1);
}

void engine_reserve(engine_run *run, uint64_t extra, const char *what)
{
    uint64_t need = run->n + extra;
    if (need <= run->cap)
        return;
    if (need >= UINT32_MAX / 2) /* candidate and query ids are 32-bit */
        alloc_fail(need > SIZE_MAX / sizeof *run->c ? SIZE_MAX
                                                    : need * sizeof *run->c, what);
    size_t cap = run->cap * 2 > need ? run->cap * 2 : need;
    candidate *c = realloc(run->c, cap * sizeof *c);
    if (!c) /* says what ran out and why, not "a growing array" */
        alloc_fail(cap * sizeof *c, what);
    run->c = c;
    run->cap = cap;
}

uint32_t *engine_accesses(const engine_run *run,
                          int (*cmp)(const void *, const void *, void *),
                          uint32_t *n)
{
    const trace *t = run->t;
    uint32_t *acc = xmalloc_array(t->n_events + 1, sizeof *acc);
    *n = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (run->m->kept[e] && event_is_access(&t->events[e]))
            acc[(*n)++] = e;
    if (cmp)
        qsort_r(acc, *n, sizeof *acc, cmp, (void *)t);
    return acc;
}

void engine_set_state(engine_run *run, race_kind kind, void *state,
                      void (*free_fn)(void *))
{
    run->state[kind] = state;
    run->state_free[kind] = free_fn;
}

void *engine_state(const engine_run *run, race_kind kind)
{
    return run->state[kind];
}

void engine_count(engine_run *run, race_kind kind, const uint32_t *ev,
                  uint64_t n)
{
    uint32_t gi = group_of(run->g, run->g->analyses[kind], ev);
    offer_instance(run->g, gi, ev, 0, 1);
    run->g->g[gi].count += n;
    run->r->summary.instances[kind] += n;
}

int engine_stopped(const engine_run *run)
{
    return run->o->stop && *run->o->stop;
}

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

/* ---- verdicts --------------------------------------------------------------- */

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
        return 2; /* stopped before any answer: no walk (count_undecided) */
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

/* Schedules Φ ∧ q into f's scratch; a run found takes the place of the
 * oldest kept one (a failed attempt leaves the kept runs as they were). */
static int schedule_into(scheduler *s, found_runs *f, const hb_query *q,
                         uint32_t n_events)
{
    if (f->max && !f->scratch)
        f->scratch = xmalloc_array((size_t)n_events + 1, sizeof(uint32_t));
    if (!scheduler_run(s, q, f->scratch))
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
static int schedule_satisfies(const engine_run *run, scheduler *s,
                              found_runs *f, const hb_query *q)
{
    for (uint32_t i = 0; i < q->n_events; i++)
        if (!run->m->kept[q->ev[i]])
            return 0;
    for (uint32_t i = 0; i < f->n; i++)
        if (atoms_hold(q, f->value[i]))
            return 1;
    if (!q->any)
        return schedule_into(s, f, q, run->t->n_events);
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        hb_query one = *q;
        one.n_atoms = 1;
        one.any = 0;
        one.atoms[0] = q->atoms[k];
        if (schedule_into(s, f, &one, run->t->n_events))
            return 1;
    }
    return 0;
}

/* The candidates the shortcuts left, in the order Z3 would take them (by
 * group, lowest rank first), each asked of the scheduler (engine_schedule.c)
 * until it finds runs for all its queries: SAT, exactly, since a run found
 * is a solution of Φ and the query.  A group that holds stops asking at
 * a rank no lower, as for Z3.  Within SCHEDULE_BUDGET_STEPS; UNSAT is
 * still Z3's to say. */
static uint32_t group_of_id(const void *c, const void *ctx)
{
    const engine_run *run = ctx;
    return run->c[*(const uint32_t *)c].group;
}

/* Sorts candidate ids c[0..n) by_group: by group in linear time, then each
 * group's own; the stop is checked between groups (a qsort of millions of
 * candidates by their events took tens of seconds, and a SIGTERM waited
 * for it).  After a stop the order is not used. */
static void sort_by_group(const engine_run *run, uint32_t *c, uint32_t n)
{
    engine_counting_sort(c, n, sizeof *c, run->g->n, group_of_id, run);
    for (uint32_t i = 0, j; i < n && !engine_stopped(run); i = j) {
        for (j = i + 1; j < n && run->c[c[j]].group == run->c[c[i]].group;)
            j++;
        qsort_r(c + i, j - i, sizeof *c, by_group, (void *)run);
    }
}

static void run_schedules(engine_run *run, hb_answer *qa, hb_answer *verdict)
{
    uint32_t *best = xmalloc_array(run->g->n + 1, sizeof *best);
    for (uint32_t i = 0; i < run->g->n; i++)
        best[i] = run->g->g[i].count && run->g->g[i].instance_holds
                      ? run->g->g[i].inst_rank : UINT32_MAX;
    for (size_t i = 0; i < run->n; i++)
        if (verdict[i] == ANSWER_SAT && run->c[i].rank < best[run->c[i].group])
            best[run->c[i].group] = run->c[i].rank;
    int dedup = may_skip(run->o);
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
    scheduler *s = scheduler_new(run->t, run->m);
    found_runs found;
    found_runs_init(&found, run->t->n_events);
    for (uint32_t i = 0; i < n && !engine_stopped(run) &&
                         scheduler_steps(s) < SCHEDULE_BUDGET_STEPS; i++) {
        uint32_t c = order[i];
        const candidate *cd = &run->c[c];
        if (progress)
            atomic_fetch_add_explicit(&progress->done, 1, memory_order_relaxed);
        if (dedup && cd->dedupable &&
            (best[cd->group] <= cd->rank || left[cd->group]))
            continue;
        for (unsigned k = 0; k < engine_n_queries(run, c); k++) {
            size_t id = engine_query_id(run, c, k);
            hb_query q = engine_query(run, c, k);
            if (qa[id] == ANSWER_UNKNOWN && schedule_satisfies(run, s, &found, &q))
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
    scheduler_free(s);
    found_runs_free(&found);
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
    orient(run->g, gs, an, a->ev, ea);
    orient(run->g, gs, an, b->ev, eb);
    for (uint32_t i = 0; i < an->n_shown; i++) {
        int d = cmp_events(run->g, ea[i], eb[i]);
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
static hb_solver_options solver_options(const engine_run *run)
{
    return (hb_solver_options){.tuning = run->o->tuning,
                               .timeout_ms = run->o->timeout_ms,
                               .stop = run->o->stop};
}

/* The stop flag for engine_z3_call: set only when the caller can take
 * Z3 work left running (analysis_options.abandoned). */
static const volatile sig_atomic_t *leave_on(const engine_run *run)
{
    return run->o->abandoned ? run->o->stop : NULL;
}

static void note_abandoned(const engine_run *run)
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
    int dedup = may_skip(o);
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
    int rc = solve_all(run->m, &w, qa, verdict, o->jobs, solver_options(run),
                       err, err_len);
    if (rc == 1) /* workers left in Z3 may read the slices: they stay */
        note_abandoned(run);
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
    *task = (z3_model_task){.t = t, .m = run->m, .so = solver_options(run)};
    uint32_t *events = task->events;
    size_t n = 0;
    int left = engine_z3_call(explain_task, task, leave_on(run));
    if (!left && task->n == 0 && run->m->waits_deferred &&
        solver_model(run) == 0) /* a core needs Z3, and Z3 the waits */
        left = engine_z3_call(explain_task, task, leave_on(run));
    if (left)
        note_abandoned(run); /* the events are not known */
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
    *task = (z3_model_task){.m = run->m, .so = solver_options(run),
                            .keep = kept != NULL};
    task->so.timeout_ms = 0; /* Φ alone: no query to give up on */
    if (engine_z3_call(consistency_task, task, leave_on(run))) {
        note_abandoned(run); /* the task stays: the call may still use it */
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

/* Up to this many events, the pool's first worker takes the consistency
 * check's solver (Φ asserted whole) rather than set up a sliced one:
 * the second Z3 context was a third of --solver=z3's time on small
 * traces, where slicing saves nothing. */
enum { REUSE_SOLVER_MAX_EVENTS = 5000 };

/* Decides every candidate: shortcuts first (unless --solver=z3), then Z3.
 * Returns 0, -1 with err on failure, or 1 when stopped before any
 * verdict (count_undecided(): no walk over the candidates). */
static int decide(engine_run *run, hb_answer *verdict, char *err,
                  size_t err_len)
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

/* ---- the report ------------------------------------------------------------- */

/* The printable group of a counted one.  Its node and variable are those
 * of its first event when that is an access, else the node of its last
 * shown event (a message race: the receiving node). */
static race_group finish_group(const trace *t, const context_finder *cf,
                               const analysis *a, const group_state *gs)
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
        rg.events[i].context = context_find(cf, gs->inst[i]);
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
        a->describe(t, gs->inst, &rg);
    return rg;
}

static int cmp_groups(const void *x, const void *y)
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
            offer_instance(g, i, c->ev, c->rank, 0);
    }
}

static void count_verdicts(engine_run *run, const hb_answer *verdict)
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
                offer_instance(g, c->group, c->ev, c->rank, 0);
        } else if (verdict[i] == ANSWER_NOT_ASKED) {
            s->not_asked++;
            gs->unchecked++;
        } else if (verdict[i] == ANSWER_SAT) {
            s->instances[c->kind]++;
            offer_instance(g, c->group, c->ev, c->rank, 1);
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
                                           solver_options(run), leave_on(run));
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
        note_abandoned(run);
    witness_finder_free(w);
}

static void build_groups(engine_run *run, const hb_answer *verdict)
{
    report *r = run->r;
    grouper *g = run->g;
    count_verdicts(run, verdict);
    r->groups = xcalloc(g->n + 1, sizeof *r->groups);
    r->open = xcalloc(g->n + 1, sizeof *r->open);
    uint32_t *group_of = xmalloc_array(g->n + 1, sizeof *group_of);
    context_finder *cf = context_finder_new(run->t);
    for (uint32_t i = 0; i < g->n; i++) {
        const analysis *a = run->g->analyses[g->g[i].key.kind];
        if (g->g[i].count) {
            group_of[r->n_groups] = i;
            r->groups[r->n_groups++] = finish_group(run->t, cf, a, &g->g[i]);
        } else if (g->g[i].undecided) {
            r->open[r->n_open++] = finish_group(run->t, cf, a, &g->g[i]);
        }
    }
    context_finder_free(cf);
    if (run->o->witness)
        add_witnesses(run, group_of);
    free(group_of);
    qsort(r->groups, r->n_groups, sizeof *r->groups, cmp_groups);
    qsort(r->open, r->n_open, sizeof *r->open, cmp_groups);
    for (size_t i = 0; i < r->n_groups; i++)
        r->n_by_kind[r->groups[i].kind]++;
}

static void fill_summary(report *r, const trace *t, const hb_model *m,
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

void engine_counting_sort(void *base, size_t n, size_t size, uint32_t range,
                          uint32_t (*key)(const void *elem, const void *ctx),
                          const void *ctx)
{
    if (n < 2) /* base may be NULL when empty */
        return;
    size_t *start = xcalloc((size_t)range + 2, sizeof *start);
    char *in = base, *out = xmalloc_array(n + 1, size);
    for (size_t i = 0; i < n; i++)
        start[key(in + i * size, ctx) + 1]++;
    for (uint32_t k = 0; k < range; k++)
        start[k + 1] += start[k];
    for (size_t i = 0; i < n; i++)
        memcpy(out + start[key(in + i * size, ctx)]++ * size, in + i * size, size);
    memcpy(base, out, n * size);
    free(out);
    free(start);
}

static uint32_t kind_key(const void *c, const void *ctx)
{
    (void)ctx;
    return ((const candidate *)c)->kind;
}

/* Every enabled analysis's candidates: `generate`, then batch by batch
 * of the shared hb_order each `generate_batch`. */
static void generate_all(engine_run *run)
{
    const report_summary *s = &run->r->summary;
    int batched = 0;
    for (int k = 0; k < RACE_KINDS; k++) {
        if (s->enabled[k] && run->g->analyses[k]->generate)
            run->g->analyses[k]->generate(run);
        batched |= s->enabled[k] && run->g->analyses[k]->generate_batch;
    }
    hb_order *o = batched ? engine_order(run) : NULL;
    if (o) {
        run->kinds_mixed = 1;
        for (uint32_t b = 0; b < hb_order_n_batches(o) && !engine_stopped(run); b++) {
            int focused = hb_order_focus(o, b);
            for (int k = 0; k < RACE_KINDS; k++)
                if (s->enabled[k] && run->g->analyses[k]->generate_batch)
                    run->g->analyses[k]->generate_batch(run, b, focused);
        }
        /* candidates kind by kind again (number_queries); after a stop
         * nothing is decided and the order does not matter.  With one
         * kind they are already: copying hundreds of millions of them
         * took half a minute and doubled the memory. */
        if (!engine_stopped(run) && run->kinds_unsorted)
            engine_counting_sort(run->c, run->n, sizeof *run->c, RACE_KINDS,
                                 kind_key, NULL);
    }
}

report *engine_analyse(const analysis *const *analyses, const trace *t,
                       hb_model *m, const analysis_options *opts, char *err,
                       size_t err_len)
{
    report *r = xcalloc(1, sizeof *r);
    fill_summary(r, t, m, analyses, opts);
    engine_run run = {.t = t, .m = m, .o = opts, .r = r,
                      .g = new_grouper(t, analyses)};
    generate_all(&run);
    if (opts->progress)
        atomic_store(&opts->progress->total, run.n);
    /* stopped before any verdict: all undecided (count_undecided) */
    hb_answer *verdict = NULL;
    int rc = 0;
    double start = clock_seconds();
    if (!engine_stopped(&run)) {
        verdict = xmalloc_array(run.n + 1, sizeof *verdict);
        rc = decide(&run, verdict, err, err_len);
    }
    if (rc == 1) {
        rc = 0;
        free(verdict);
        verdict = NULL;
    }
    hb_order_free(run.order); /* decide() frees it unless stopped first */
    run.order = NULL;
    r->timings.solve = clock_seconds() - start;
    r->timings.jobs = opts->jobs;
    r->summary.partial = opts->stop && *opts->stop;
    if (rc == 0)
        build_groups(&run, verdict);
    /* a stop during grouping (handler races) leaves the report partial */
    r->summary.partial = opts->stop && *opts->stop;
    free(verdict);
    free(run.c);
    for (int k = 0; k < RACE_KINDS; k++)
        if (run.state_free[k])
            run.state_free[k](run.state[k]);
    free_grouper(run.g);
    if (rc != 0) {
        report_free(r);
        return NULL;
    }
    return r;
}
