/*
 * engine.c — the run as the analyses see it while they generate
 * (engine.h): candidates added, instances counted and recorded, the
 * shared hb_order.  Deciding is engine_decide.c's, the report
 * engine_analyse.c's.
 */
#include "engine_internal.h"
#include "engine_log.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <stdatomic.h>
#include <string.h>

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

static uint32_t batch_key(const void *x, const void *ctx)
{
    const hb_order *o = ctx;
    const trace *t = hb_order_trace(o);
    return hb_order_batch(o, t->events[*(const uint32_t *)x].thread);
}

uint32_t *engine_sort_by_batch(const hb_order *o, uint32_t *ev, uint32_t n)
{
    const trace *t = hb_order_trace(o);
    uint32_t n_batches = hb_order_n_batches(o);
    engine_counting_sort(ev, n, sizeof *ev, n_batches, batch_key, o);
    uint32_t *start = xcalloc((size_t)n_batches + 2, sizeof *start);
    for (uint32_t i = 0; i < n; i++)
        start[hb_order_batch(o, t->events[ev[i]].thread) + 1]++;
    for (uint32_t b = 0; b < n_batches; b++)
        start[b + 1] += start[b];
    return start;
}

int engine_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Counts n candidates of kind found; the progress line hears of them a
 * few thousand at a time (an atomic add per candidate would cost more
 * than finding it). */
static void engine_found(engine_run *run, race_kind kind, uint64_t n)
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
    if (run->log) {
        engine_log_unsat(run->log, kind, n);
        return;
    }
    engine_found(run, kind, n);
    run->r->summary.by_shortcut_unsat += n;
}

uint32_t engine_group(engine_run *run, race_kind kind, const uint32_t *ev)
{
    if (run->log)
        return engine_log_group(run->log, kind, ev);
    return grouper_group_of(run->g, run->g->analyses[kind], ev);
}

/* Unless every instance is wanted, a candidate of a group that already
 * holds at a rank no higher than its own need not be decided (the rule
 * of pick_for_solver(), engine_decide.c). */
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
    if (run->log) {
        engine_log_sat(run->log, kind, group, ev, rank, n);
        return;
    }
    engine_found(run, kind, n);
    s->by_shortcut_sat += n;
    s->instances[kind] += n;
    grouper_offer(run->g, group, ev, rank, 1);
    run->g->g[group].count += n;
}

void engine_record_unchecked(engine_run *run, race_kind kind, uint32_t group,
                             uint64_t n)
{
    if (run->log) {
        engine_log_unchecked(run->log, kind, group, n);
        return;
    }
    engine_found(run, kind, n);
    run->r->summary.not_asked += n;
    run->g->g[group].unchecked += n;
}

hb_order *engine_order(engine_run *run)
{
    if (!run->order_made && run->o->solver == SOLVER_AUTO)
        run->order = hb_order_new(run->t, run->m, run->o->jobs,
                                  run->o->batch_chains);
    run->order_made = 1;
    return run->order;
}

const trace *engine_trace(const engine_run *run) { return run->t; }
const hb_model *engine_model(const engine_run *run) { return run->m; }
const analysis_options *engine_options(const engine_run *run) { return run->o; }

int engine_skips(const engine_run *run, uint32_t group, uint32_t rank)
{
    if (run->log)
        return may_skip(run->o) && engine_log_holds(run->log, group, rank);
    const group_state *gs = &run->g->g[group];
    return may_skip(run->o) && gs->count && gs->instance_holds &&
           gs->inst_rank <= rank;
}

void engine_add(engine_run *run, race_kind kind, const uint32_t *ev,
                uint32_t rank, int dedupable)
{
    if (run->log) {
        engine_log_add(run->log, kind, ev, rank, dedupable);
        return;
    }
    const analysis *a = run->g->analyses[kind];
    assert(run->kinds_mixed || run->n == 0 ||
           run->c[run->n - 1].kind <= kind); /* kind by kind */
    if (run->n >= UINT32_MAX / 2) /* candidate and query ids are 32-bit */
        alloc_fail(run->n * sizeof *run->c, "over 2 billion candidates");
    uint32_t group = grouper_group_of(run->g, a, ev);
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
    engine_found(run, kind, 1);
}

void engine_reserve(engine_run *run, uint64_t extra, const char *what)
{
    uint64_t need = run->n + extra;
    if (run->log || need <= run->cap) /* a log grows as it goes */
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
    if (run->log) {
        engine_log_count(run->log, kind, ev, n);
        return;
    }
    uint32_t gi = grouper_group_of(run->g, run->g->analyses[kind], ev);
    grouper_offer(run->g, gi, ev, 0, 1);
    run->g->g[gi].count += n;
    run->r->summary.instances[kind] += n;
}

void engine_note(engine_run *run, race_kind kind, const uint32_t v[3])
{
    if (run->log)
        engine_log_note(run->log, kind, v);
    else
        run->g->analyses[kind]->note(run, v);
}

int engine_stopped(const engine_run *run)
{
    return run->o->stop && *run->o->stop;
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
