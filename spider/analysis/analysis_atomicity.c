/*
 * analysis_atomicity.c — single-variable atomicity violations (SPEC §4,
 * `--atomicity`; AVIO, seeds/lu-avio-muvi-thesis.txt ch. 4).
 *
 * p and c are consecutive accesses to x in one context (a thread outside
 * handlers, or one handler: nothing in that context touches x between
 * them), r an access to x in another thread of the node, and the types
 * (p, r, c) one of the chosen patterns (default AVIO's unserializable
 * RWR, WWR, WRW, RWW).  The instance holds when r can fall between p and
 * c — Φ ∧ O(p) < O(r) < O(c) — and is not forced to — Φ ∧ (O(r) < O(p) ∨
 * O(c) < O(r)): an interleaving that synchronisation always imposes is
 * intended.  --atomic-region narrows p and c to one critical section of
 * their thread (lock) or to one message handler (handler).  Grouped by
 * (loc(p), loc(r), loc(c)); the rank of an instance is CTrigger's local
 * gap (ch. 7.4): the events of the thread between p and c.
 */
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <string.h>


/* section_end[e] for every event: the largest end (position of the
 * UNLOCK, or UINT32_MAX for a lock never released) of the sections of its
 * thread that started before it.  p and c (p first) lie in one section
 * exactly when section_end[p] > pos(c). */
static uint32_t *section_ends(const trace *t)
{
    int32_t *section_at = xmalloc_array(t->n_events + 1, sizeof *section_at);
    uint32_t *end = xmalloc_array(t->n_events + 1, sizeof *end);
    for (uint32_t e = 0; e < t->n_events; e++)
        section_at[e] = NONE;
    for (uint32_t s = 0; s < t->n_sections; s++)
        section_at[t->sections[s].acquire] = (int32_t)s;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        uint32_t reach = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            end[e] = reach;
            if (section_at[e] == NONE)
                continue;
            int32_t rel = t->sections[section_at[e]].release;
            uint32_t stop = rel == NONE ? UINT32_MAX : t->events[rel].pos;
            if (stop > reach)
                reach = stop;
        }
    }
    free(section_at);
    return end;
}

static int enabled(const analysis_options *o)
{
    return o->atomicity;
}

static int is_write(const trace *t, uint32_t e)
{
    return t->events[e].kind == EV_WRITE;
}

/* Whether p and c (consecutive in one context) may form an instance. */
static int region_holds(const trace *t, const analysis_options *o,
                        const uint32_t *section_end, uint32_t p, uint32_t c)
{
    switch (o->region) {
    case REGION_LOCK:
        return section_end[p] > t->events[c].pos;
    case REGION_HANDLER:
        return t->events[p].handler != NONE;
    default:
        return 1;
    }
}

/* The types a remote access r must have for (p, r, c) to be one of the
 * chosen patterns: bit 0 a read, bit 1 a write. */
static unsigned remote_types(const trace *t, const analysis_options *o,
                             uint32_t p, uint32_t c)
{
    unsigned pw = is_write(t, p), cw = is_write(t, c), types = 0;
    for (unsigned rw = 0; rw < 2; rw++)
        if (o->patterns & PATTERN_BIT(pw, rw, cw))
            types |= 1u << rw;
    return types;
}

/* Whether p and c (acc[i], acc[i + 1]) are consecutive in one context
 * and may form an instance. */
static int pair_holds(const trace *t, const analysis_options *o,
                      const uint32_t *section_end, uint32_t p, uint32_t c)
{
    const event *ep = &t->events[p], *ec = &t->events[c];
    return ep->thread == ec->thread && ep->handler == ec->handler &&
           region_holds(t, o, section_end, p, c);
}

static uint32_t gap_of(const trace *t, uint32_t p, uint32_t c)
{
    return t->events[c].pos - t->events[p].pos - 1;
}

/* Every candidate of the pair (p, c): each remote access of acc[0..n). */
static void list_pair(engine_run *run, const uint32_t *acc, uint32_t n,
                      uint32_t p, uint32_t c)
{
    const trace *t = engine_trace(run);
    unsigned types = remote_types(t, engine_options(run), p, c);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = acc[k];
        if (t->events[r].thread == t->events[p].thread ||
            !(types & (1u << is_write(t, r))))
            continue;
        uint32_t ev[3] = {p, r, c};
        engine_add(run, RACE_ATOMICITY, ev, gap_of(t, p, c), 1);
    }
}

/* The candidates of one variable, listed: acc[0..n) sorted by context. */
static void list_variable(engine_run *run, const uint32_t *acc, uint32_t n,
                          const uint32_t *section_end)
{
    const trace *t = engine_trace(run);
    const analysis_options *o = engine_options(run);
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++)
        if (pair_holds(t, o, section_end, acc[i], acc[i + 1]))
            list_pair(run, acc, n, acc[i], acc[i + 1]);
}

/* ---- counting over intervals ------------------------------------------------
 *
 * On the clocks of engine_order() a pair (p, c) need not be paired with
 * each remote access r one by one.  Along a chain B of another thread the
 * accesses that reach p are a prefix, those c reaches a suffix (program
 * order is in U and R): every r there makes "p < r < c" UNSAT, and what
 * lies between is the window where the shortcuts' verdicts
 * (decide_triple(), engine_shortcut.c) are read off four more ends — the
 * accesses p reaches and those that reach c, in U and in R — and the
 * locks of the section holding p and c.  So each r of the window costs a
 * few comparisons, the rest are counted, SAT instances are counted per
 * class of r (location, write) with the least of each offered to its
 * group, and only what the shortcuts cannot decide is listed, for Z3.
 * The counts, verdicts and instances shown are those of listing them. */

typedef struct atom_item {
    uint32_t ev, chain, pos;
    uint32_t k;              /* its place in the variable's accesses */
    uint32_t cls;            /* class of the variable: (location, write) */
    uint32_t locks, n_locks; /* its locks (hb_order_locks) in the pool */
} atom_item;

typedef struct atom_run {    /* a variable's accesses on one chain */
    uint32_t from, to;       /* items */
    uint32_t chain, thread;
    uint32_t *writes;        /* writes[k]: writes among its first k items */
} atom_run;

typedef struct atom_scratch {
    atom_item *item;
    uint32_t n_items, cap_items;
    atom_run *runs;
    uint32_t n_runs, cap_runs;
    uint32_t *at;            /* place in the accesses -> item */
    uint32_t cap_at;
    uint32_t *writes;        /* the runs' prefix counts */
    uint32_t cap_writes;
    uint32_t *pool, n_pool, cap_pool;   /* locksets */
    uint32_t *loc_stamp, *loc_slot, stamp; /* by trace_loc_id */
    uint32_t n_classes;
    uint64_t *count;         /* per class: SAT instances of the pair */
    uint32_t *least;         /* per class: the least such r */
    uint32_t *touched, n_touched, cap_classes;
    uint32_t *both;          /* the locks holding p and c */
    uint32_t cap_both;
} atom_scratch;

static void scratch_free(atom_scratch *s)
{
    free(s->item);
    free(s->runs);
    free(s->at);
    free(s->writes);
    free(s->pool);
    free(s->loc_stamp);
    free(s->loc_slot);
    free(s->count);
    free(s->least);
    free(s->touched);
    free(s->both);
    memset(s, 0, sizeof *s);
}

static int by_place(const void *x, const void *y)
{
    const atom_item *a = x, *b = y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The class of access e among the variable's: its location and type. */
static uint32_t class_of(const trace *t, atom_scratch *s, uint32_t e)
{
    uint32_t loc = trace_loc_id(t, e);
    if (s->loc_stamp[loc] != s->stamp) {
        s->loc_stamp[loc] = s->stamp;
        s->loc_slot[loc] = s->n_classes;
        s->n_classes += 2;
    }
    return s->loc_slot[loc] + (uint32_t)is_write(t, e);
}

/* The items of one variable (acc[0..n)) by chain, their runs, classes and
 * locksets.  0 when a chain's order runs against the input order
 * (--order=timestamp): the least instance of a window is then not its
 * first, so the variable is listed. */
static int build_items(const trace *t, const hb_order *o, const uint32_t *acc,
                       uint32_t n, atom_scratch *s)
{
    ALLOC_GROW(s->item, n, s->cap_items);
    s->n_items = n;
    s->stamp++;
    s->n_classes = 0;
    s->n_pool = 0;
    for (uint32_t k = 0; k < n; k++)
        s->item[k] = (atom_item){acc[k], hb_order_chain(o, acc[k]),
                                 hb_order_pos(o, acc[k]), k,
                                 class_of(t, s, acc[k]), 0, 0};
    qsort(s->item, n, sizeof *s->item, by_place);
    s->n_runs = 0;
    ALLOC_GROW(s->writes, n + n + 2, s->cap_writes);
    uint32_t *w = s->writes;
    for (uint32_t k = 0; k < n; k++) {
        atom_item *it = &s->item[k];
        if (k == 0 || it->chain != s->item[k - 1].chain) {
            ALLOC_GROW(s->runs, s->n_runs + 1, s->cap_runs);
            s->runs[s->n_runs++] = (atom_run){k, k, it->chain,
                                              t->events[it->ev].thread, w};
            *w++ = 0;
        } else if (t->events[it->ev].input_index <
                       t->events[s->item[k - 1].ev].input_index ||
                   t->events[it->ev].thread != s->runs[s->n_runs - 1].thread) {
            return 0;
        }
        atom_run *r = &s->runs[s->n_runs - 1];
        r->to = k + 1;
        *w = w[-1] + (uint32_t)is_write(t, it->ev);
        w++;
        uint32_t most = hb_order_max_locks(o, it->ev);
        ALLOC_GROW(s->pool, s->n_pool + most + 1, s->cap_pool);
        it->locks = s->n_pool;
        it->n_locks = hb_order_locks(o, it->ev, s->pool + s->n_pool);
        s->n_pool += it->n_locks;
    }
    ALLOC_GROW(s->at, s->n_items + 1, s->cap_at);
    for (uint32_t k = 0; k < n; k++)
        s->at[s->item[k].k] = k;
    if (s->n_classes > s->cap_classes) {
        s->cap_classes = s->n_classes;
        s->count = xrealloc_array(s->count, s->cap_classes, sizeof *s->count);
        s->least = xrealloc_array(s->least, s->cap_classes, sizeof *s->least);
        s->touched = xrealloc_array(s->touched, s->cap_classes,
                                    sizeof *s->touched);
        memset(s->count, 0, s->cap_classes * sizeof *s->count);
    }
    return 1;
}

/* How many of run B's items lie at positions up to pos. */
static uint32_t items_upto(const atom_scratch *s, const atom_run *B,
                           int32_t pos)
{
    uint32_t lo = 0, hi = B->to - B->from;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((int32_t)s->item[B->from + mid].pos <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of B's items that x (at position px of chain a) reaches. */
static uint32_t first_reached(const hb_order *o, const atom_scratch *s,
                              const atom_run *B, uint32_t a, uint32_t px,
                              int resolved)
{
    uint32_t lo = 0, hi = B->to - B->from;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (hb_order_last_reaching(o, resolved, s->item[B->from + mid].ev, a) >=
            (int32_t)px)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The ends of B's windows for the pair (p, c) in one graph: items
 * [0, reach_p) reach p, [from_c, n) are reached by c, [from_p, n) are
 * reached by p, [0, reach_c) reach c. */
typedef struct ends {
    uint32_t reach_p, from_c, from_p, reach_c;
} ends;

static ends ends_of(const hb_order *o, const atom_scratch *s,
                    const atom_run *B, const atom_item *p, const atom_item *c,
                    int resolved)
{
    return (ends){
        items_upto(s, B, hb_order_last_reaching(o, resolved, p->ev, B->chain)),
        first_reached(o, s, B, p->chain, c->pos, resolved),
        first_reached(o, s, B, p->chain, p->pos, resolved),
        items_upto(s, B, hb_order_last_reaching(o, resolved, c->ev, B->chain))};
}

static int locks_meet(const uint32_t *a, uint32_t na, const uint32_t *b,
                      uint32_t nb)
{
    for (uint32_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i] == b[j])
            return 1;
        if (a[i] < b[j])
            i++;
        else
            j++;
    }
    return 0;
}

/* The pair's verdict on item j of B, as decide_triple() gives it for
 * "p < r < c" and "r < p ∨ c < r" together. */
static hb_answer verdict_at(uint32_t j, const ends *u, const ends *r,
                            int witness, int excluded)
{
    /* j lies in U's window [reach_p, from_c): "between" is not ordered
     * away; the lock rule comes next, then R */
    hb_answer between = excluded ? ANSWER_UNSAT
                        : witness && j >= r->reach_p && j < r->from_c
                            ? ANSWER_SAT : ANSWER_UNKNOWN;
    hb_answer outside = witness && (j < r->from_p || j >= r->reach_c)
                            ? ANSWER_SAT
                        : j >= u->from_p && j < u->reach_c ? ANSWER_UNSAT
                                                           : ANSWER_UNKNOWN;
    if (between == ANSWER_UNSAT || outside == ANSWER_UNSAT)
        return ANSWER_UNSAT;
    return between == ANSWER_SAT && outside == ANSWER_SAT ? ANSWER_SAT
                                                          : ANSWER_UNKNOWN;
}

/* The counts of one pair (p, c) and a run B of another thread. */
typedef struct pair_ctx {
    engine_run *run;
    const hb_order *o;
    atom_scratch *s;
    const atom_item *p, *c;
    unsigned types;          /* remote_types() */
    const uint32_t *both;    /* hb_order_locks_both(p, c) */
    uint32_t n_both;
    uint32_t gap;
    uint64_t unsat;
} pair_ctx;

/* Items [from, to) of B of an allowed type. */
static uint64_t allowed(const pair_ctx *x, const atom_run *B, uint32_t from,
                        uint32_t to)
{
    if (from >= to)
        return 0;
    uint64_t w = B->writes[to] - B->writes[from];
    return (x->types & 2 ? w : 0) + (x->types & 1 ? (to - from) - w : 0);
}

static void pair_run(pair_ctx *x, const atom_run *B)
{
    const trace *t = engine_trace(x->run);
    atom_scratch *s = x->s;
    int witness = hb_order_witness(x->o);
    uint32_t nb = B->to - B->from;
    ends u = ends_of(x->o, s, B, x->p, x->c, 0);
    ends r = witness && !hb_order_r_is_u(x->o)
                 ? ends_of(x->o, s, B, x->p, x->c, 1) : u;
    assert(u.reach_p <= u.from_c); /* U is acyclic */
    x->unsat += allowed(x, B, 0, u.reach_p) + allowed(x, B, u.from_c, nb);
    for (uint32_t j = u.reach_p; j < u.from_c; j++) {
        const atom_item *it = &s->item[B->from + j];
        if (!(x->types & (1u << is_write(t, it->ev))))
            continue;
        int excluded = x->n_both && locks_meet(x->both, x->n_both,
                                               s->pool + it->locks,
                                               it->n_locks);
        hb_answer v = verdict_at(j, &u, &r, witness, excluded);
        if (v == ANSWER_UNSAT) {
            x->unsat++;
        } else if (v == ANSWER_UNKNOWN) {
            uint32_t ev[3] = {x->p->ev, it->ev, x->c->ev};
            engine_add(x->run, RACE_ATOMICITY, ev, x->gap, 1);
        } else if (s->count[it->cls]++ == 0) {
            s->least[it->cls] = it->ev;
            s->touched[s->n_touched++] = it->cls;
        }
    }
    /* the least of a class is its first: items are in input order */
    for (uint32_t k = 0; k < s->n_touched; k++) {
        uint32_t cls = s->touched[k];
        uint32_t ev[3] = {x->p->ev, s->least[cls], x->c->ev};
        uint32_t group = engine_group(x->run, RACE_ATOMICITY, ev);
        engine_record_sat(x->run, RACE_ATOMICITY, group, ev, x->gap,
                          s->count[cls]);
        s->count[cls] = 0;
    }
    s->n_touched = 0;
}

/* The candidates of one variable (acc[0..n) by context, a node of the
 * focused batch), counted over intervals.  0 when they must be listed. */
static int count_variable(engine_run *run, const hb_order *o,
                          const uint32_t *acc, uint32_t n,
                          const uint32_t *section_end, atom_scratch *s)
{
    const trace *t = engine_trace(run);
    const analysis_options *opt = engine_options(run);
    if (!build_items(t, o, acc, n, s))
        return 0;
    pair_ctx x = {.run = run, .o = o, .s = s};
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++) {
        uint32_t p = acc[i], c = acc[i + 1];
        if (!pair_holds(t, opt, section_end, p, c))
            continue;
        const atom_item *ip = &s->item[s->at[i]], *ic = &s->item[s->at[i + 1]];
        if (ip->chain != ic->chain) { /* not one chain: as the plain loop */
            list_pair(run, acc, n, p, c);
            continue;
        }
        x.p = ip;
        x.c = ic;
        x.types = remote_types(t, opt, p, c);
        x.gap = gap_of(t, p, c);
        ALLOC_GROW(s->both, hb_order_max_locks(o, p) + 1, s->cap_both);
        x.both = s->both;
        x.n_both = hb_order_locks_both(o, p, c, s->both);
        for (uint32_t b = 0; b < s->n_runs && x.types; b++)
            if (s->runs[b].thread != t->events[p].thread)
                pair_run(&x, &s->runs[b]);
    }
    if (x.unsat)
        engine_count_unsat(run, RACE_ATOMICITY, x.unsat);
    return 1;
}

/* What `generate` leaves to generate_batch: the kept accesses by batch,
 * then variable and context. */
typedef struct atom_state {
    uint32_t *acc, n;
    uint32_t *batch_start;           /* per batch: its first in acc */
    uint32_t *section_end;
    atom_scratch scratch;
} atom_state;

static void free_state(void *p)
{
    atom_state *st = p;
    free(st->acc);
    free(st->batch_start);
    free(st->section_end);
    scratch_free(&st->scratch);
    free(st);
}

/* The variables of acc[from..to), counted over intervals when o is the
 * focused order, else listed. */
static void variables(engine_run *run, atom_state *st, uint32_t from,
                      uint32_t to, const hb_order *o)
{
    const trace *t = engine_trace(run);
    const uint32_t *acc = st->acc;
    for (uint32_t i = from, j; i < to && !engine_stopped(run); i = j) {
        for (j = i; j < to && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        if (!o || !count_variable(run, o, acc + i, j - i, st->section_end,
                                  &st->scratch))
            list_variable(run, acc + i, j - i, st->section_end);
    }
}

/* Every candidate: with engine_order (--solver=auto) batch by batch in
 * generate_batch, counted over intervals; else listed here. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const hb_order *o = engine_order(run);
    atom_state *st = xcalloc(1, sizeof *st);
    engine_set_state(run, RACE_ATOMICITY, st, free_state);
    st->acc = engine_accesses_by_context(run, &st->n);
    st->section_end = section_ends(t);
    if (!o) {
        variables(run, st, 0, st->n, NULL);
        return;
    }
    size_t locs = (size_t)t->n_strings + t->n_events + 1;
    st->scratch.loc_stamp = xcalloc(locs, sizeof(uint32_t));
    st->scratch.loc_slot = xmalloc_array(locs, sizeof(uint32_t));
    /* stable: each batch keeps the order by variable and context */
    st->batch_start = engine_sort_by_batch(o, st->acc, st->n);
}

static void generate_batch(engine_run *run, uint32_t batch, int focused)
{
    atom_state *st = engine_state(run, RACE_ATOMICITY);
    if (!st->batch_start)
        return; /* listed in generate */
    variables(run, st, st->batch_start[batch], st->batch_start[batch + 1],
              focused ? engine_order(run) : NULL);
}

static hb_query query(const candidate *c, unsigned k)
{
    return k == 0 ? hb_query_between(c->ev[0], c->ev[1], c->ev[2])
                  : hb_query_outside(c->ev[0], c->ev[1], c->ev[2]);
}

/* The pattern: the types of p, r and c. */
static void describe(const trace *t, const analysis_options *o,
                     const uint32_t *inst, race_group *g)
{
    (void)o;
    for (uint32_t i = 0; i < 3; i++)
        g->pattern[i] = t->events[inst[i]].kind == EV_WRITE ? 'W' : 'R';
    g->pattern[3] = '\0';
}

const analysis analysis_atomicity = {
    .kind = RACE_ATOMICITY,
    .n_queries = 2, .n_located = 3, .n_shown = 3, .ranked = 1, .symmetric = 0,
    .enabled = enabled, .generate = generate,
    .generate_batch = generate_batch, .query = query,
    .describe = describe,
};
