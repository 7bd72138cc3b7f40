/*
 * analysis_between.c — candidates (p, r, c) whose queries are "r between
 * p and c" and "r outside them" (analysis_between.h), counted over
 * intervals of chains: atomicity violations and multi-variable races.
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
 * The counts, verdicts and instances shown are those of listing them.
 */
#include "analysis_between.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static int is_write(const trace *t, uint32_t e)
{
    return t->events[e].kind == EV_WRITE;
}

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

struct between_scratch {
    atom_item *item;
    uint32_t n_items, cap_items;
    atom_run *runs;
    uint32_t n_runs, cap_runs;
    uint32_t *at;            /* place in the accesses -> item */
    uint32_t cap_at;
    uint32_t *writes;        /* the runs' prefix counts */
    uint32_t cap_writes;
    uint32_t *pool, n_pool, cap_pool;   /* locksets */
    uint32_t *loc_stamp, *loc_slot; /* by trace_loc_id: the owner's */
    uint32_t *stamp;                /* the owner's */
    int owns_locs;
    uint32_t n_classes;
    uint64_t *count;         /* per class: SAT instances of the pair */
    uint32_t *least;         /* per class: the least such r */
    uint32_t *touched, n_touched, cap_classes;
    uint32_t *both;          /* the locks holding p and c */
    uint32_t cap_both;
};

void between_scratch_free(between_scratch *s)
{
    if (!s)
        return;
    free(s->item);
    free(s->runs);
    free(s->at);
    free(s->writes);
    free(s->pool);
    if (s->owns_locs) {
        free(s->loc_stamp);
        free(s->loc_slot);
        free(s->stamp);
    }
    free(s->count);
    free(s->least);
    free(s->touched);
    free(s->both);
    free(s);
}

static int by_place(const void *x, const void *y)
{
    const atom_item *a = x, *b = y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The class of access e among the variable's: its location and type. */
static uint32_t class_of(const trace *t, between_scratch *s, uint32_t e)
{
    uint32_t loc = trace_loc_id(t, e);
    if (s->loc_stamp[loc] != *s->stamp) {
        s->loc_stamp[loc] = *s->stamp;
        s->loc_slot[loc] = s->n_classes;
        s->n_classes += 2;
    }
    return s->loc_slot[loc] + (uint32_t)is_write(t, e);
}

/* The items of one variable (acc[0..n)) by chain, their runs, classes and
 * locksets.  0 when a chain's order runs against the input order
 * (--order=timestamp): the least instance of a window is then not its
 * first, so the variable is listed. */
int between_build(between_scratch *s, const hb_order *o, const uint32_t *acc,
                  uint32_t n)
{
    const trace *t = hb_order_trace(o);
    ALLOC_GROW(s->item, n, s->cap_items);
    s->n_items = n;
    ++*s->stamp;
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
static uint32_t items_upto(const between_scratch *s, const atom_run *B,
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
static uint32_t first_reached(const hb_order *o, const between_scratch *s,
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

static ends ends_of(const hb_order *o, const between_scratch *s,
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
    between_scratch *s;
    const atom_item *p, *c;
    race_kind kind;
    unsigned types;          /* bit 0: r may be a read, bit 1: a write */
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
    between_scratch *s = x->s;
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
            engine_add(x->run, x->kind, ev, x->gap, 1);
        } else if (s->count[it->cls]++ == 0) {
            s->least[it->cls] = it->ev;
            s->touched[s->n_touched++] = it->cls;
        }
    }
    /* the least of a class is its first: items are in input order */
    for (uint32_t k = 0; k < s->n_touched; k++) {
        uint32_t cls = s->touched[k];
        uint32_t ev[3] = {x->p->ev, s->least[cls], x->c->ev};
        uint32_t group = engine_group(x->run, x->kind, ev);
        engine_record_sat(x->run, x->kind, group, ev, x->gap,
                          s->count[cls]);
        s->count[cls] = 0;
    }
    s->n_touched = 0;
}


between_scratch *between_scratch_new(const trace *t, between_scratch *share)
{
    between_scratch *s = xcalloc(1, sizeof *s);
    if (share) {
        s->loc_stamp = share->loc_stamp;
        s->loc_slot = share->loc_slot;
        s->stamp = share->stamp;
        return s;
    }
    size_t locs = (size_t)t->n_strings + t->n_events + 1;
    s->loc_stamp = xcalloc(locs, sizeof(uint32_t));
    s->loc_slot = xmalloc_array(locs, sizeof(uint32_t));
    s->stamp = xcalloc(1, sizeof *s->stamp);
    s->owns_locs = 1;
    return s;
}

void between_count(engine_run *run, race_kind kind, const hb_order *o,
                   between_scratch *s, uint32_t p, uint32_t c, unsigned types,
                   uint32_t gap, uint64_t *unsat)
{
    const trace *t = engine_trace(run);
    atom_item ip = {p, hb_order_chain(o, p), hb_order_pos(o, p), 0, 0, 0, 0};
    atom_item ic = {c, hb_order_chain(o, c), hb_order_pos(o, c), 0, 0, 0, 0};
    assert(ip.chain == ic.chain && ip.pos < ic.pos);
    ALLOC_GROW(s->both, hb_order_max_locks(o, p) + 1, s->cap_both);
    pair_ctx x = {.run = run, .o = o, .s = s, .p = &ip, .c = &ic,
                  .kind = kind, .types = types, .both = s->both,
                  .n_both = hb_order_locks_both(o, p, c, s->both),
                  .gap = gap};
    for (uint32_t b = 0; b < s->n_runs && types; b++)
        if (s->runs[b].thread != t->events[p].thread)
            pair_run(&x, &s->runs[b]);
    *unsat += x.unsat;
}

hb_query between_query(const candidate *c, unsigned k)
{
    return k == 0 ? hb_query_between(c->ev[0], c->ev[1], c->ev[2])
                  : hb_query_outside(c->ev[0], c->ev[1], c->ev[2]);
}
