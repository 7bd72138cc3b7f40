/*
 * analysis_multivar.c — multi-variable atomicity violations (SPEC §4,
 * `--multi-variable`; Sun's MV2, seeds/sun-multivariable-thesis.txt §3.8,
 * Fig 3.9).
 *
 * For a correlated pair {x, y} of a node (correlation.h): a1 an access to
 * x and a2 an access to y, consecutive among the accesses to x or y of one
 * context (a thread outside handlers, or one handler); bx an access to x
 * and by an access to y of one other thread, bx conflicting with a1 and by
 * with a2 (at least one write in each pair).  The instance holds when both
 * can fall between a1 and a2 — Φ ∧ O(a1) < O(bx) < O(a2) ∧ O(a1) < O(by) <
 * O(a2) — and are not forced to — Φ ∧ ¬(that).  Sun's four patterns are
 * the types of (a1, a2): RW (1), RR (2, both remote accesses writes), WW
 * (3) and WR (4).  Grouped by (loc(a1), loc(a2), loc(bx), loc(by)); ranked
 * by the gap between a1 and a2, like atomicity violations.
 *
 * Candidates are a product (pairs a1, a2 times the remote x accesses times
 * the remote y accesses of a thread): over a billion on Cyclon-100N-100C
 * with --correlated.  So the generator stores almost none (hb_order,
 * engine.h): it leaves out the remote accesses that U alone orders before
 * a1 or after a2 (every instance with one is UNSAT; counted as decided by
 * a shortcut), decides the rest with the shortcuts as it makes them, a
 * group (the locations of bx and by) at a time, records what they decide,
 * and stores only what Z3 must decide.  Unless every instance is wanted, a
 * group that holds at a gap no larger stops asking (its other candidates
 * are counted as unchecked, as Z3's units do).  With --solver=z3 nothing
 * is left out or decided early: every candidate is stored for Z3, which
 * is what make check compares with.
 *
 * Multi-variable races (the second descriptor, at the end) read the same
 * merged accesses of a correlated pair.
 */
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"
#include "analysis_between.h"
#include "correlation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int enabled(const analysis_options *o)
{
    return o->multi_variable;
}

static int conflict(const trace *t, uint32_t a, uint32_t b)
{
    return t->events[a].kind == EV_WRITE || t->events[b].kind == EV_WRITE;
}

/* The accesses of one variable, sorted by context (engine_context_cmp),
 * as a slice of the engine's array. */
typedef struct slice {
    const uint32_t *ev;
    uint32_t n;
} slice;

/* Merges x's and y's accesses by context and program order. */
static uint32_t *merge_by_context(const engine_run *run, slice x, slice y)
{
    uint32_t *out = xmalloc_array((size_t)x.n + y.n + 1, sizeof *out);
    uint32_t i = 0, j = 0, k = 0;
    while (i < x.n || j < y.n) {
        int take_x = j == y.n ||
                     (i < x.n && engine_context_cmp(run, x.ev[i], y.ev[j]) < 0);
        out[k++] = take_x ? x.ev[i++] : y.ev[j++];
    }
    return out;
}

/* The part of s in the thread of event e: s is sorted by context, threads
 * first. */
static slice thread_part(const engine_run *run, slice s, uint32_t e)
{
    const trace *t = engine_trace(run);
    uint32_t th = t->events[e].thread, lo = 0, hi = s.n;
    while (lo < hi) { /* first not before e's thread */
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->events[s.ev[mid]].thread != th &&
            engine_context_cmp(run, s.ev[mid], e) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < s.n && t->events[s.ev[end]].thread == th)
        end++;
    return (slice){s.ev + lo, end - lo};
}

/* Events grouped by location: bucket b is ev[start[b] .. start[b + 1]),
 * in their input order. */
typedef struct buckets {
    uint32_t n;
    uint32_t *start, *ev;    /* scratch, as long as a variable's accesses */
} buckets;

typedef struct generator {
    engine_run *run;
    const trace *t;
    hb_order *order;         /* NULL (--solver=z3): store every candidate */
    uint32_t *bx, *by;       /* scratch, one variable's accesses long */
    buckets gx, gy;
    uint32_t *loc_stamp, *loc_slot, stamp; /* by trace_loc_id */
    shortcut_stats st;
    /* the groups that hold in the node at hand, and their lowest gap:
     * settled per node, so that what is left out does not depend on the
     * order nodes are swept in (which follows the files) */
    uint32_t *settled_node, *settled_gap, settled_cap;
    uint32_t node;               /* string id of the node at hand */
} generator;

static int settled(const generator *g, uint32_t group, uint32_t gap)
{
    return engine_may_skip(g->run) && group < g->settled_cap &&
           g->settled_node[group] == g->node && g->settled_gap[group] <= gap;
}

static void settle(generator *g, uint32_t group, uint32_t gap)
{
    if (group >= g->settled_cap) {
        uint32_t old = g->settled_cap;
        ALLOC_GROW(g->settled_node, (size_t)group + 1, g->settled_cap);
        g->settled_gap = xrealloc_array(g->settled_gap, g->settled_cap,
                                        sizeof *g->settled_gap);
        for (uint32_t i = old; i < g->settled_cap; i++)
            g->settled_node[i] = STR_NONE;
    }
    if (g->settled_node[group] != g->node || g->settled_gap[group] > gap) {
        g->settled_node[group] = g->node;
        g->settled_gap[group] = gap;
    }
}

/* The remote accesses of `part` that conflict with `local` and that U does
 * not order before a1 or after a2; *dropped counts those it does. */
static uint32_t remote_side(const generator *g, slice part, uint32_t local,
                            uint32_t a1, uint32_t a2, uint32_t *out,
                            uint64_t *dropped)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < part.n; i++) {
        uint32_t b = part.ev[i];
        if (!conflict(g->t, local, b))
            continue;
        if (g->order && (hb_order_before(g->order, b, a1) ||
                         hb_order_before(g->order, a2, b)))
            ++*dropped;
        else
            out[n++] = b;
    }
    return n;
}

/* Groups ev[0..n) by location into b, in linear time. */
static void bucket_by_location(generator *g, const uint32_t *ev, uint32_t n,
                               buckets *b)
{
    if (++g->stamp == UINT32_MAX) {
        memset(g->loc_stamp, 0, sizeof *g->loc_stamp *
                                    ((size_t)g->t->n_strings + g->t->n_events));
        g->stamp = 1;
    }
    b->n = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t loc = trace_loc_id(g->t, ev[i]);
        if (g->loc_stamp[loc] != g->stamp) {
            g->loc_stamp[loc] = g->stamp;
            g->loc_slot[loc] = b->n;
            b->start[++b->n] = 0;
        }
        b->start[g->loc_slot[loc] + 1]++;
    }
    b->start[0] = 0;
    for (uint32_t k = 0; k < b->n; k++)
        b->start[k + 1] += b->start[k];
    for (uint32_t i = 0; i < n; i++) { /* start[k] ends as bucket k+1's */
        uint32_t k = g->loc_slot[trace_loc_id(g->t, ev[i])];
        b->ev[b->start[k]++] = ev[i];
    }
    for (uint32_t k = b->n; k > 0; k--)
        b->start[k] = b->start[k - 1];
    b->start[0] = 0;
}

/* Decides one candidate with the shortcuts: recorded, or stored for Z3. */
static void decide_one(generator *g, uint32_t group, const uint32_t *ev,
                       uint32_t gap)
{
    hb_query inside = hb_query_both_between(ev[0], ev[1], ev[2], ev[3]);
    hb_answer a = hb_order_decide(g->order, &inside, &g->st);
    if (a != ANSWER_UNSAT) {
        hb_query outside = hb_query_not_both_between(ev[0], ev[1], ev[2], ev[3]);
        hb_answer b = hb_order_decide(g->order, &outside, &g->st);
        a = b == ANSWER_UNSAT ? b : a == ANSWER_SAT ? b : ANSWER_UNKNOWN;
    }
    if (a == ANSWER_UNKNOWN)
        engine_add(g->run, RACE_MULTIVAR, ev, gap, 1);
    else
        engine_record(g->run, RACE_MULTIVAR, group, ev, gap, a);
    if (a == ANSWER_SAT)
        settle(g, group, gap);
}

/* The candidates of a1, a2 whose remote accesses lie at one location each
 * (one group): decided in order until the group is settled, or the run
 * stops (a group may hold millions). */
static void decide_group(generator *g, const uint32_t *ev_x, uint32_t nx,
                         const uint32_t *ev_y, uint32_t ny, uint32_t a1,
                         uint32_t a2, uint32_t gap)
{
    uint32_t ev[4] = {a1, a2, ev_x[0], ev_y[0]};
    uint32_t group = engine_group(g->run, RACE_MULTIVAR, ev);
    uint64_t left = (uint64_t)nx * ny;
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t j = 0; j < ny; j++, left--) {
            if (!(left & 1023) && engine_stopped(g->run))
                return;
            if (settled(g, group, gap)) {
                engine_record_unchecked(g->run, RACE_MULTIVAR, group, left);
                return;
            }
            ev[2] = ev_x[i];
            ev[3] = ev_y[j];
            decide_one(g, group, ev, gap);
        }
}

/* The candidates of a1, a2 (consecutive in a context) with one remote
 * thread's accesses xs, ys. */
static void remote_thread(generator *g, uint32_t a1, uint32_t a2, slice xs,
                          slice ys)
{
    uint64_t dropped_x = 0, dropped_y = 0;
    uint32_t nx = remote_side(g, xs, a1, a1, a2, g->bx, &dropped_x);
    uint32_t ny = remote_side(g, ys, a2, a1, a2, g->by, &dropped_y);
    uint64_t all_x = nx + dropped_x, all_y = ny + dropped_y;
    /* every instance with a dropped side is UNSAT */
    engine_count_unsat(g->run, RACE_MULTIVAR, all_x * all_y - (uint64_t)nx * ny);
    uint32_t gap = g->t->events[a2].pos - g->t->events[a1].pos - 1;
    if (!g->order) {
        for (uint32_t i = 0; i < nx && !engine_stopped(g->run); i++)
            for (uint32_t j = 0; j < ny; j++) {
                uint32_t ev[4] = {a1, a2, g->bx[i], g->by[j]};
                engine_add(g->run, RACE_MULTIVAR, ev, gap, 1);
            }
        return;
    }
    bucket_by_location(g, g->bx, nx, &g->gx);
    bucket_by_location(g, g->by, ny, &g->gy);
    for (uint32_t p = 0; p < g->gx.n; p++)
        for (uint32_t q = 0; q < g->gy.n; q++)
            decide_group(g, g->gx.ev + g->gx.start[p],
                         g->gx.start[p + 1] - g->gx.start[p],
                         g->gy.ev + g->gy.start[q],
                         g->gy.start[q + 1] - g->gy.start[q], a1, a2, gap);
}

/* Whether a and b (neighbours among a pair's accesses merged by context)
 * are consecutive in one context and on different variables: a1 and a2,
 * or p and c of a multi-variable race. */
static int cross_pair(const trace *t, uint32_t a, uint32_t b)
{
    const event *ea = &t->events[a], *eb = &t->events[b];
    return ea->thread == eb->thread && ea->handler == eb->handler &&
           ea->object != eb->object;
}

/* The candidates of one correlated pair: x's and y's accesses. */
static void pair_candidates(generator *g, slice x, slice y)
{
    const trace *t = g->t;
    uint32_t n = x.n + y.n;
    uint32_t *merged = merge_by_context(g->run, x, y);
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(g->run); i++) {
        uint32_t a1 = merged[i], a2 = merged[i + 1];
        if (!cross_pair(t, a1, a2))
            continue;
        const event *e1 = &t->events[a1];
        int a1_on_x = e1->object == t->events[x.ev[0]].object;
        slice on_a1 = a1_on_x ? x : y, on_a2 = a1_on_x ? y : x;
        for (uint32_t k = 0; k < on_a1.n;) { /* each other thread */
            uint32_t first = on_a1.ev[k];
            slice xs = thread_part(g->run, on_a1, first);
            k = (uint32_t)(xs.ev - on_a1.ev) + xs.n;
            if (t->events[first].thread == e1->thread)
                continue;
            slice ys = thread_part(g->run, on_a2, first);
            if (ys.n)
                remote_thread(g, a1, a2, xs, ys);
        }
    }
    free(merged);
}

/* [first, first + count) of each object's accesses in acc. */
static void object_slices(const trace *t, const uint32_t *acc, uint32_t n,
                          slice *by_object)
{
    for (uint32_t i = 0, j; i < n; i = j) {
        int32_t o = t->events[acc[i]].object;
        for (j = i; j < n && t->events[acc[j]].object == o;)
            j++;
        by_object[o] = (slice){acc + i, j - i};
    }
}

/* The pairs' indexes in the order of U's batches (one sweep per batch),
 * then in their own order (a node's pairs stay together), as keys
 * batch << 32 | index. */
static uint64_t *pairs_by_batch(const hb_order *o, const trace *t,
                                const correlation *c, const slice *by_object)
{
    uint64_t *keys = xmalloc_array(c->n + 1, sizeof *keys);
    for (size_t i = 0; i < c->n; i++) {
        slice x = by_object[c->pairs[i].x];
        uint32_t batch = o && x.n ? hb_order_batch(
                             o, t->events[x.ev[0]].thread) : 0;
        keys[i] = (uint64_t)batch << 32 | i;
    }
    qsort(keys, c->n, sizeof *keys, engine_cmp_u64);
    return keys;
}

static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const analysis_options *o = engine_options(run);
    const correlation *c = o->correlation;
    if (!c || c->n == 0)
        return;
    uint32_t n;
    uint32_t *acc = engine_accesses_by_context(run, &n);
    slice *by_object = xcalloc(t->n_objects + 1, sizeof *by_object);
    object_slices(t, acc, n, by_object);
    size_t locs = (size_t)t->n_strings + t->n_events + 1;
    generator g = {.run = run, .t = t,
                   .bx = xmalloc_array(n + 1, sizeof(uint32_t)),
                   .by = xmalloc_array(n + 1, sizeof(uint32_t)),
                   .gx = {0, xmalloc_array(n + 2, sizeof(uint32_t)),
                          xmalloc_array(n + 1, sizeof(uint32_t))},
                   .gy = {0, xmalloc_array(n + 2, sizeof(uint32_t)),
                          xmalloc_array(n + 1, sizeof(uint32_t))},
                   .loc_stamp = xcalloc(locs, sizeof(uint32_t)),
                   .loc_slot = xmalloc_array(locs, sizeof(uint32_t))};
    if (o->solver == SOLVER_AUTO)
        g.order = hb_order_new(t, engine_model(run), engine_options(run)->jobs,
                               engine_options(run)->batch_chains);
    uint64_t *pairs = pairs_by_batch(g.order, t, c, by_object);
    for (size_t k = 0; k < c->n && !engine_stopped(run); k++) {
        const correlated_pair *p = &c->pairs[(uint32_t)pairs[k]];
        slice x = by_object[p->x], y = by_object[p->y];
        if (!x.n || !y.n)
            continue;
        hb_order *sweeps = g.order;
        if (sweeps && !hb_order_focus(sweeps, hb_order_batch(
                          sweeps, t->events[x.ev[0]].thread)))
            g.order = NULL; /* too many chains to sweep: store them all */
        g.node = t->objects[p->x].node;
        pair_candidates(&g, x, y);
        g.order = sweeps;
    }
    free(pairs);
    hb_order_free(g.order);
    free(g.bx);
    free(g.by);
    free(g.gx.start);
    free(g.gx.ev);
    free(g.gy.start);
    free(g.gy.ev);
    free(g.loc_stamp);
    free(g.loc_slot);
    free(g.settled_node);
    free(g.settled_gap);
    free(by_object);
    free(acc);
}

static hb_query query(const candidate *c, unsigned k)
{
    return k == 0 ? hb_query_both_between(c->ev[0], c->ev[1], c->ev[2], c->ev[3])
                  : hb_query_not_both_between(c->ev[0], c->ev[1], c->ev[2],
                                              c->ev[3]);
}

/* variable_y (a2's) and the pattern "Rx..Wy / Wx,Ry": the types of a1 and
 * a2, then of bx and by (bx first, whatever their order in their thread). */
static void describe(const trace *t, const analysis_options *o,
                     const uint32_t *inst, race_group *g)
{
    (void)o;
    char type[4];
    for (uint32_t i = 0; i < 4; i++)
        type[i] = t->events[inst[i]].kind == EV_WRITE ? 'W' : 'R';
    const shared_object *y = &t->objects[t->events[inst[1]].object];
    g->variable_y = xstrdup(t->strings[y->name]);
    snprintf(g->pattern, sizeof g->pattern, "%cx..%cy / %cx,%cy", type[0],
             type[1], type[2], type[3]);
}

const analysis analysis_multivar = {
    .kind = RACE_MULTIVAR,
    .n_queries = 2, .n_located = 4, .n_shown = 4, .ranked = 1, .symmetric = 0,
    .enabled = enabled, .generate = generate, .query = query,
    .describe = describe,
};

/* ---- multi-variable races ---------------------------------------------------
 *
 * `--multi-variable-races` (MUVI's happens-before_MV, Lu's thesis §5.4.1):
 * p and c consecutive among the accesses to x or y of one context, on
 * different variables (a1 and a2 above); r an access of another thread of
 * the node to p's variable conflicting with p, or to c's conflicting with
 * c.  It holds when r can fall between p and c and is not forced to, the
 * queries of an atomicity violation: the conflicting pair on one variable
 * is then not kept together with its partner's access to the other.
 * Grouped by (loc(p), loc(r), loc(c)), ranked by the gap.  The candidates
 * (consecutive pairs times remote accesses, as atomicity's) are
 * counted over intervals of chains as atomicity's are
 * (analysis_between.h), batch by batch; listed for Z3 with --solver=z3. */

static int races_enabled(const analysis_options *o)
{
    return o->multi_variable_races;
}

/* The candidates (p, r, c) of one remote variable: each access r of `on`
 * in another thread that conflicts with `local` (p or c). */
static void race_side(engine_run *run, uint32_t p, uint32_t c, uint32_t local,
                      slice on)
{
    const trace *t = engine_trace(run);
    uint32_t gap = t->events[c].pos - t->events[p].pos - 1;
    for (uint32_t k = 0; k < on.n; k++) {
        uint32_t r = on.ev[k];
        if (t->events[r].thread == t->events[p].thread || !conflict(t, local, r))
            continue;
        uint32_t ev[3] = {p, r, c};
        engine_add(run, RACE_MVRACE, ev, gap, 1);
    }
}

/* What races_generate leaves to races_batch: the kept accesses by
 * object, the pairs by batch. */
typedef struct race_state {
    uint32_t *acc;
    slice *by_object;
    uint64_t *pairs;                 /* pairs_by_batch() */
    size_t n_pairs;
    between_scratch *on_x, *on_y;    /* one variable's remote accesses each */
} race_state;

static void free_race_state(void *p)
{
    race_state *st = p;
    between_scratch_free(st->on_y); /* borrows on_x's tables */
    between_scratch_free(st->on_x);
    free(st->pairs);
    free(st->by_object);
    free(st->acc);
    free(st);
}

/* The remote types that conflict with `local`: bit 0 a read, bit 1 a
 * write (analysis_between.h). */
static unsigned conflicting(const trace *t, uint32_t local)
{
    return t->events[local].kind == EV_WRITE ? 3u : 2u;
}

/* The candidates of one correlated pair (x's and y's accesses): with o
 * (the focused batch's order) counted over intervals, else listed, as
 * where the order cannot count them (two chains, an order against the
 * input's). */
static void race_pair(engine_run *run, const hb_order *o, race_state *st,
                      slice x, slice y)
{
    const trace *t = engine_trace(run);
    if (o && !(between_build(st->on_x, o, x.ev, x.n) &&
               between_build(st->on_y, o, y.ev, y.n)))
        o = NULL;
    uint32_t n = x.n + y.n;
    uint32_t *merged = merge_by_context(run, x, y);
    uint64_t unsat = 0;
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++) {
        uint32_t p = merged[i], c = merged[i + 1];
        if (!cross_pair(t, p, c))
            continue;
        int p_on_x = t->events[p].object == t->events[x.ev[0]].object;
        if (!o || hb_order_chain(o, p) != hb_order_chain(o, c)) {
            race_side(run, p, c, p, p_on_x ? x : y);
            race_side(run, p, c, c, p_on_x ? y : x);
            continue;
        }
        uint32_t gap = t->events[c].pos - t->events[p].pos - 1;
        between_count(run, RACE_MVRACE, o, p_on_x ? st->on_x : st->on_y, p, c,
                      conflicting(t, p), gap, &unsat);
        between_count(run, RACE_MVRACE, o, p_on_x ? st->on_y : st->on_x, p, c,
                      conflicting(t, c), gap, &unsat);
    }
    free(merged);
    if (unsat)
        engine_count_unsat(run, RACE_MVRACE, unsat);
}

/* Every candidate: with engine_order (--solver=auto) batch by batch in
 * races_batch, counted over intervals; else listed here. */
static void races_generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const correlation *c = engine_options(run)->correlation;
    if (!c || c->n == 0)
        return;
    uint32_t n;
    race_state *st = xcalloc(1, sizeof *st);
    engine_set_state(run, RACE_MVRACE, st, free_race_state);
    st->acc = engine_accesses_by_context(run, &n);
    st->by_object = xcalloc(t->n_objects + 1, sizeof *st->by_object);
    object_slices(t, st->acc, n, st->by_object);
    const hb_order *o = engine_order(run);
    if (o) {
        st->pairs = pairs_by_batch(o, t, c, st->by_object);
        st->n_pairs = c->n;
        st->on_x = between_scratch_new(t, NULL);
        st->on_y = between_scratch_new(t, st->on_x);
        return;
    }
    for (size_t k = 0; k < c->n && !engine_stopped(run); k++) {
        slice x = st->by_object[c->pairs[k].x], y = st->by_object[c->pairs[k].y];
        if (x.n && y.n)
            race_pair(run, NULL, st, x, y);
    }
}

/* The pairs of one batch: their keys are batch << 32 | index, sorted. */
static void races_batch(engine_run *run, uint32_t batch, int focused)
{
    race_state *st = engine_state(run, RACE_MVRACE);
    if (!st || !st->pairs)
        return; /* listed in races_generate */
    const correlation *c = engine_options(run)->correlation;
    const hb_order *o = engine_order(run);
    uint64_t from = (uint64_t)batch << 32;
    size_t k = 0, hi = st->n_pairs;
    while (k < hi) { /* the first key of the batch */
        size_t mid = k + (hi - k) / 2;
        if (st->pairs[mid] < from)
            k = mid + 1;
        else
            hi = mid;
    }
    for (; k < st->n_pairs && st->pairs[k] >> 32 == batch && !engine_stopped(run);
         k++) {
        const correlated_pair *p = &c->pairs[(uint32_t)st->pairs[k]];
        slice x = st->by_object[p->x], y = st->by_object[p->y];
        if (!x.n || !y.n)
            continue;
        race_pair(run, focused ? o : NULL, st, x, y);
    }
}

/* variable_y (c's) and the pattern "Wx..Wy / Rx": the types of p and c,
 * then r's type and variable. */
static void race_describe(const trace *t, const analysis_options *o,
                          const uint32_t *inst, race_group *g)
{
    (void)o;
    const event *p = &t->events[inst[0]], *r = &t->events[inst[1]],
                *c = &t->events[inst[2]];
    g->variable_y = xstrdup(t->strings[t->objects[c->object].name]);
    snprintf(g->pattern, sizeof g->pattern, "%cx..%cy / %c%c",
             p->kind == EV_WRITE ? 'W' : 'R', c->kind == EV_WRITE ? 'W' : 'R',
             r->kind == EV_WRITE ? 'W' : 'R', r->object == p->object ? 'x' : 'y');
}

const analysis analysis_multivar_race = {
    .kind = RACE_MVRACE,
    .n_queries = 2, .n_located = 3, .n_shown = 3, .ranked = 1, .symmetric = 0,
    .enabled = races_enabled, .generate = races_generate,
    .generate_batch = races_batch, .query = between_query,
    .describe = race_describe,
};
