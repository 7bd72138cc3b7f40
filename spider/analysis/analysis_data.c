/*
 * analysis_data.c — data races (SPEC §4): accesses a, b to one variable of
 * a node, at least one a write, in different threads, such that
 * Φ ∧ O(a) = O(b) is satisfiable.  Grouped by the pair {loc(a), loc(b)}.
 */
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"
#include "../../util/text.h"

#include <assert.h>
#include <string.h>
#include <uthash.h>

/* Keys of engine_counting_sort (stable): an access's variable, and the
 * batch of its node (engine_order's). */
static uint32_t object_key(const void *x, const void *ctx)
{
    const trace *t = ctx;
    int32_t object = t->events[*(const uint32_t *)x].object;
    assert(object >= 0); /* an access names its variable */
    return (uint32_t)object;
}

static int enabled(const analysis_options *o)
{
    (void)o;
    return 1;
}

/* How many candidates the accesses acc[0..n) of one variable make:
 * conflicting pairs minus those of one thread (per[thread] counts). */
static uint64_t pairs_of_variable(const trace *t, const uint32_t *acc,
                                  uint32_t n, uint64_t (*per)[2])
{
    uint64_t w = 0, r = 0, same = 0;
    for (uint32_t k = 0; k < n; k++) {
        const event *e = &t->events[acc[k]];
        per[e->thread][e->kind == EV_WRITE]++;
        *(e->kind == EV_WRITE ? &w : &r) += 1;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint64_t *c = per[t->events[acc[k]].thread];
        same += c[1] * (c[1] - (c[1] > 0)) / 2 + c[1] * c[0];
        c[0] = c[1] = 0; /* counted once; ready for the next variable */
    }
    return w * (w - (w > 0)) / 2 + w * r - same;
}

/* Reserves a variable's candidates at once, so that running out of memory
 * names the variable rather than "a growing array". */
static void reserve_pairs(engine_run *run, uint32_t access, uint64_t pairs)
{
    const trace *t = engine_trace(run);
    const shared_object *o = &t->objects[t->events[access].object];
    text_pool tp = {0};
    char *what = NULL;
    if (asprintf(&what, "%llu candidates on variable %s of node %s",
                 (unsigned long long)pairs, text_safe(&tp, t->strings[o->name]),
                 text_safe(&tp, t->strings[o->node])) < 0)
        alloc_fail(0, "a message");
    text_pool_free(&tp);
    engine_reserve(run, pairs, what);
    free(what);
}

static void reserve(engine_run *run, const uint32_t *acc, uint32_t n,
                    uint64_t (*per)[2])
{
    reserve_pairs(run, acc[0], pairs_of_variable(engine_trace(run), acc, n, per));
}

/* ---- pairs a lock orders ----------------------------------------------------
 *
 * Two accesses of different threads that each lie inside a critical
 * section of the same lock (between its LOCK and UNLOCK, in one chain of
 * program order, the section's constraint in Φ) can never happen at once:
 * Φ puts one section before the other (SPEC §3.4; a section never released
 * holds to the end).  Such pairs are counted as decided unsatisfiable
 * (as the lock-exclusion shortcut would; not with --solver=z3), not
 * enumerated: 5,000 writes per thread under one lock were 25 M
 * candidates, 200,000 ran out of memory.  The other pairs are added in
 * the order the plain loop adds them. */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct lockset_entry {
    uint32_t id, n;
    uint32_t *locks;                 /* sorted */
    UT_hash_handle hh;
} lockset_entry;

typedef struct locksets {
    lockset_entry *table;
    lockset_entry **by_id;           /* id 0: no lock */
    uint32_t n, cap;
} locksets;

static uint32_t lockset_id(locksets *ls, uint32_t *locks, uint32_t n)
{
    if (n == 0)
        return 0;
    qsort(locks, n, sizeof *locks, cmp_u32);
    uint32_t k = 1;
    for (uint32_t i = 1; i < n; i++)
        if (locks[i] != locks[k - 1])
            locks[k++] = locks[i];
    lockset_entry *e;
    HASH_FIND(hh, ls->table, locks, k * sizeof *locks, e);
    if (e)
        return e->id;
    e = xmalloc(sizeof *e);
    e->locks = xmalloc_array(k, sizeof *locks);
    memcpy(e->locks, locks, k * sizeof *locks);
    e->n = k;
    ALLOC_GROW(ls->by_id, ls->n + 2, ls->cap);
    e->id = ++ls->n;
    ls->by_id[e->id] = e;
    HASH_ADD_KEYPTR(hh, ls->table, e->locks, k * sizeof *locks, e);
    return e->id;
}

static void locksets_free(locksets *ls)
{
    lockset_entry *e, *tmp;
    HASH_ITER(hh, ls->table, e, tmp) {
        HASH_DEL(ls->table, e);
        free(e->locks);
        free(e);
    }
    free(ls->by_id);
}

static int sets_meet(const locksets *ls, uint32_t a, uint32_t b)
{
    if (!a || !b)
        return 0;
    const lockset_entry *x = ls->by_id[a], *y = ls->by_id[b];
    for (uint32_t i = 0, j = 0; i < x->n && j < y->n;)
        if (x->locks[i] == y->locks[j])
            return 1;
        else if (x->locks[i] < y->locks[j])
            i++;
        else
            j++;
    return 0;
}

/* Whether section s of thread th orders event e (at position pos): its
 * constraint is in Φ and e lies inside it on its chain. */
static int guards(const engine_run *run, const lock_section *s, uint32_t e)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    uint32_t pos = t->events[e].pos, chain = hb_chain_of(t, m->handlers, e);
    if (!m->kept[s->acquire] || t->events[s->acquire].pos >= pos ||
        hb_chain_of(t, m->handlers, s->acquire) != chain)
        return 0;
    if (s->release == NONE)
        return 1;
    return m->kept[s->release] && t->events[s->release].pos > pos &&
           hb_chain_of(t, m->handlers, (uint32_t)s->release) == chain;
}

static int by_acquire(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = t->events[t->sections[*(const uint32_t *)x].acquire].pos;
    uint32_t b = t->events[t->sections[*(const uint32_t *)y].acquire].pos;
    return a < b ? -1 : a > b;
}

/* set[e]: the lockset of each kept access e (0: none). */
static uint32_t *held_locks(const engine_run *run, locksets *ls)
{
    const trace *t = engine_trace(run);
    uint32_t *set = xcalloc(t->n_events + 1, sizeof *set);
    uint32_t **of = xcalloc(t->n_threads + 1, sizeof *of), *n_of;
    n_of = xcalloc(t->n_threads + 1, sizeof *n_of);
    for (uint32_t i = 0; i < t->n_sections; i++)
        n_of[t->sections[i].thread]++;
    for (uint32_t th = 0; th < t->n_threads; th++)
        of[th] = xmalloc_array(n_of[th] + 1, sizeof **of), n_of[th] = 0;
    for (uint32_t i = 0; i < t->n_sections; i++)
        of[t->sections[i].thread][n_of[t->sections[i].thread]++] = i;
    uint32_t *locks = NULL, cap = 0, *open = NULL, open_cap = 0;
    for (uint32_t th = 0; th < t->n_threads; th++) {
        if (!n_of[th])
            continue;
        qsort_r(of[th], n_of[th], sizeof **of, by_acquire, (void *)t);
        const thread_info *ti = &t->threads[th];
        uint32_t next = 0, n_open = 0;
        for (uint32_t k = 0; k < ti->n_events; k++) {
            uint32_t e = ti->events[k], n = 0, kept = 0;
            /* the sections open at k: acquired before, not yet released */
            for (; next < n_of[th] &&
                   t->events[t->sections[of[th][next]].acquire].pos < k; next++) {
                ALLOC_GROW(open, n_open + 1, open_cap);
                open[n_open++] = of[th][next];
            }
            for (uint32_t q = 0; q < n_open; q++) {
                int32_t rel = t->sections[open[q]].release;
                if (rel == NONE || t->events[rel].pos > k)
                    open[kept++] = open[q];
            }
            n_open = kept;
            if (!event_is_access(&t->events[e]) || !engine_model(run)->kept[e])
                continue;
            for (uint32_t q = 0; q < n_open; q++) {
                const lock_section *sec = &t->sections[open[q]];
                if (guards(run, sec, e)) {
                    ALLOC_GROW(locks, n + 1, cap);
                    locks[n++] = sec->lock;
                }
            }
            set[e] = lockset_id(ls, locks, n);
        }
    }
    free(open);
    for (uint32_t th = 0; th < t->n_threads; th++)
        free(of[th]);
    free(of);
    free(n_of);
    free(locks);
    return set;
}

typedef struct guarded {
    const trace *t;
    const uint32_t *acc, *set;
} guarded;

/* Accesses by thread, then lockset, then place. */
static int by_guard(const void *x, const void *y, void *ctx)
{
    const guarded *g = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t ea = g->acc[a], eb = g->acc[b];
    uint32_t ta = g->t->events[ea].thread, tb = g->t->events[eb].thread;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (g->set[ea] != g->set[eb])
        return g->set[ea] < g->set[eb] ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void add_pair(engine_run *run, const uint32_t *acc, uint32_t x, uint32_t y)
{
    uint32_t ev[2] = {acc[x], acc[y]};
    engine_add(run, RACE_DATA, ev, 0, 1);
}

static int conflict(const trace *t, uint32_t a, uint32_t b)
{
    const event *ea = &t->events[a], *eb = &t->events[b];
    return ea->thread != eb->thread &&
           (ea->kind == EV_WRITE || eb->kind == EV_WRITE);
}

typedef struct access_group {
    uint32_t from, to;               /* in idx */
    uint32_t thread, set;
    uint64_t writes;
} access_group;

/* The pairs of acc[i..j) (one variable, some access under a lock): the
 * accesses grouped by (thread, lockset); two groups of different threads
 * whose locksets meet are counted unsatisfiable whole, the others paired. */
static void guarded_pairs(engine_run *run, const uint32_t *acc, uint32_t i,
                          uint32_t j, const uint32_t *set, const locksets *ls)
{
    const trace *t = engine_trace(run);
    uint32_t n = j - i, *idx = xmalloc_array(n + 1, sizeof *idx);
    for (uint32_t k = 0; k < n; k++)
        idx[k] = i + k;
    guarded g = {t, acc, set};
    qsort_r(idx, n, sizeof *idx, by_guard, &g);
    access_group *gr = xmalloc_array(n + 1, sizeof *gr);
    uint32_t n_gr = 0;
    for (uint32_t k = 0; k < n; k++) {
        const event *e = &t->events[acc[idx[k]]];
        if (!n_gr || gr[n_gr - 1].thread != e->thread ||
            gr[n_gr - 1].set != set[acc[idx[k]]])
            gr[n_gr++] = (access_group){k, k, e->thread, set[acc[idx[k]]], 0};
        gr[n_gr - 1].to = k + 1;
        gr[n_gr - 1].writes += e->kind == EV_WRITE;
    }
    uint64_t *pairs = NULL, unsat = 0;
    size_t n_pairs = 0, cap = 0;
    for (uint32_t a = 0; a < n_gr && !engine_stopped(run); a++)
        for (uint32_t b = a + 1; b < n_gr; b++) {
            const access_group *x = &gr[a], *y = &gr[b];
            if (x->thread == y->thread)
                continue;
            if (sets_meet(ls, x->set, y->set)) { /* counted, not listed */
                uint64_t nx = x->to - x->from, ny = y->to - y->from;
                unsat += x->writes * ny + (nx - x->writes) * y->writes;
                continue;
            }
            for (uint32_t p = x->from; p < x->to && !engine_stopped(run); p++)
                for (uint32_t q = y->from; q < y->to; q++) {
                    if (!conflict(t, acc[idx[p]], acc[idx[q]]))
                        continue;
                    uint32_t lo = idx[p] < idx[q] ? idx[p] : idx[q];
                    uint32_t hi = idx[p] ^ idx[q] ^ lo;
                    ALLOC_GROW(pairs, n_pairs + 1, cap);
                    pairs[n_pairs++] = (uint64_t)lo << 32 | hi;
                }
        }
    if (unsat)
        engine_count_unsat(run, RACE_DATA, unsat);
    if (n_pairs) /* pairs is NULL when there are none */
        qsort(pairs, n_pairs, sizeof *pairs, engine_cmp_u64);
    reserve_pairs(run, acc[i], n_pairs);
    for (size_t k = 0; k < n_pairs; k++)
        add_pair(run, acc, (uint32_t)(pairs[k] >> 32), (uint32_t)pairs[k]);
    free(pairs);
    free(gr);
    free(idx);
}

/* ---- counting over intervals (issue 14) -------------------------------------
 *
 * With the shortcuts' clocks (hb_order) a variable's pairs need not be
 * listed.  Take the accesses a of one chain A and b of a chain B of
 * another thread.  Along B, the b that reach a in U are a prefix (program
 * order is in U) and those a reaches are a suffix; both ends only move
 * forward as a moves along A.  So for each a, the pairs U orders are
 * counted (UNSAT), and between them lies the window of pairs U leaves
 * unordered; inside it, R's window (R holds U) of pairs that can happen at
 * once (SAT, R a witness), unless their locks meet (UNSAT): the verdicts
 * the shortcuts give pair by pair (decide_pair), counted per group of b
 * holding one lockset (UNSAT whole when it meets a's), then per class
 * (location, write), the least instance of each count offered to its
 * group.  Only the pairs in U's window but not R's are listed, for
 * Z3.  A variable whose chain order runs against the input order
 * (--order=timestamp) is paired as before: a window's first access must
 * be its least. */

typedef struct access_item {
    uint64_t place;          /* chain << 32 | position in the chain */
    uint32_t ev, set;        /* the access; locks it holds (lockset id) */
} access_item;

typedef struct access_class {
    uint32_t from, to;       /* members: member[from..to), ascending */
    uint8_t write;
} access_class;

/* The accesses of a run that hold one lockset: all of them and the
 * writes, and their classes.  Whether a's locks meet them is asked once
 * per group (200,000 writes under one lock, each at its own location,
 * are one group of 200,000 classes). */
typedef struct lock_group {
    uint32_t set;
    uint32_t all_from, all_to;       /* positions in the run: group_pos[] */
    uint32_t w_from, w_to;           /* the writes' positions: group_pos[] */
    uint32_t cls_from, cls_to;
} lock_group;

typedef struct chain_run {   /* a variable's accesses on one chain */
    uint32_t from, to;       /* items */
    uint32_t chain, thread;
    uint32_t grp_from, grp_to;
} chain_run;

typedef struct interval_scratch {
    access_item *item;
    uint32_t *member;        /* per class: positions of items in the run */
    uint32_t *group_pos;     /* per group: positions, all then writes */
    int32_t *last_u, *last_r; /* per item of B: A's last access reaching it */
    access_class *cls;
    lock_group *grp;
    chain_run *runs;
    uint32_t *locks;
    uint32_t cap, cls_cap, grp_cap, runs_cap, locks_cap;
    locksets ls;             /* by hb_order_locks: what lock exclusion reads */
} interval_scratch;

static void scratch_free(interval_scratch *s)
{
    free(s->item);
    free(s->member);
    free(s->group_pos);
    free(s->last_u);
    free(s->last_r);
    free(s->cls);
    free(s->grp);
    free(s->runs);
    free(s->locks);
    locksets_free(&s->ls);
}

static void scratch_grow(interval_scratch *s, uint32_t n)
{
    if (n <= s->cap)
        return;
    uint32_t cap = n > 2 * s->cap ? n : 2 * s->cap;
    s->item = xrealloc_array(s->item, cap, sizeof *s->item);
    s->member = xrealloc_array(s->member, cap, sizeof *s->member);
    s->group_pos = xrealloc_array(s->group_pos, 2 * (size_t)cap, sizeof *s->group_pos);
    s->last_u = xrealloc_array(s->last_u, cap, sizeof *s->last_u);
    s->last_r = xrealloc_array(s->last_r, cap, sizeof *s->last_r);
    s->cap = cap;
}

static int by_place(const void *x, const void *y)
{
    uint64_t a = ((const access_item *)x)->place;
    uint64_t b = ((const access_item *)y)->place;
    return a < b ? -1 : a > b;
}

typedef struct class_ctx {
    const trace *t;
    const access_item *item;
} class_ctx;

/* Items (by index) by lockset, then class (location, write), then place. */
static int by_class(const void *x, const void *y, void *ctx)
{
    const class_ctx *c = ctx;
    const access_item *a = &c->item[*(const uint32_t *)x];
    const access_item *b = &c->item[*(const uint32_t *)y];
    if (a->set != b->set)
        return a->set < b->set ? -1 : 1;
    uint32_t la = trace_loc_id(c->t, a->ev), lb = trace_loc_id(c->t, b->ev);
    if (la != lb)
        return la < lb ? -1 : 1;
    int wa = c->t->events[a->ev].kind == EV_WRITE;
    int wb = c->t->events[b->ev].kind == EV_WRITE;
    if (wa != wb)
        return wa < wb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The lock groups and classes of run r: its items' indices sorted by
 * class, then cut. */
static void build_classes(const trace *t, interval_scratch *s, chain_run *r,
                          uint32_t *n_cls, uint32_t *n_grp)
{
    uint32_t n = r->to - r->from;
    for (uint32_t k = 0; k < n; k++)
        s->member[r->from + k] = r->from + k;
    class_ctx ctx = {t, s->item};
    qsort_r(s->member + r->from, n, sizeof *s->member, by_class, &ctx);
    r->grp_from = *n_grp;
    for (uint32_t k = r->from; k < r->to; k++) {
        const access_item *it = &s->item[s->member[k]];
        int write = t->events[it->ev].kind == EV_WRITE;
        if (*n_grp == r->grp_from || s->grp[*n_grp - 1].set != it->set) {
            ALLOC_GROW(s->grp, *n_grp + 1, s->grp_cap);
            s->grp[(*n_grp)++] = (lock_group){.set = it->set,
                                              .cls_from = *n_cls,
                                              .cls_to = *n_cls};
        }
        lock_group *g = &s->grp[*n_grp - 1];
        access_class *last = *n_cls > g->cls_from ? &s->cls[*n_cls - 1] : NULL;
        if (!last || trace_loc_id(t, s->item[s->member[last->from]].ev) !=
                         trace_loc_id(t, it->ev) ||
            last->write != write) {
            ALLOC_GROW(s->cls, *n_cls + 1, s->cls_cap);
            s->cls[(*n_cls)++] = (access_class){k, k, (uint8_t)write};
            last = &s->cls[*n_cls - 1];
        }
        last->to = k + 1;
        g->cls_to = *n_cls;
    }
    r->grp_to = *n_grp;
    /* members as positions in the run's items, ascending in each class */
    for (uint32_t k = r->from; k < r->to; k++)
        s->member[k] -= r->from;
    /* each group's positions, all then the writes, ascending */
    uint32_t at = 2 * r->from;
    for (uint32_t g = r->grp_from; g < r->grp_to; g++) {
        lock_group *gr = &s->grp[g];
        uint32_t first = s->cls[gr->cls_from].from, last = s->cls[gr->cls_to - 1].to;
        gr->all_from = at;
        memcpy(s->group_pos + at, s->member + first, (last - first) * sizeof *s->member);
        gr->all_to = at + (last - first);
        qsort(s->group_pos + gr->all_from, last - first, sizeof *s->group_pos, cmp_u32);
        gr->w_from = gr->w_to = gr->all_to;
        for (uint32_t k = gr->all_from; k < gr->all_to; k++)
            if (t->events[s->item[r->from + s->group_pos[k]].ev].kind == EV_WRITE)
                s->group_pos[gr->w_to++] = s->group_pos[k];
        at = gr->w_to;
    }
}

/* The variable's items by chain and position, with their locksets, cut
 * into runs, each with its classes.  0 when some chain's order runs
 * against the input order. */
static int build_runs(const trace *t, const hb_order *o, const uint32_t *acc,
                      uint32_t n, interval_scratch *s, uint32_t *n_runs)
{
    scratch_grow(s, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t set = 0;
        if (t->n_sections) {
            uint32_t max = hb_order_max_locks(o, acc[i]);
            ALLOC_GROW(s->locks, max + 1, s->locks_cap);
            set = lockset_id(&s->ls, s->locks, hb_order_locks(o, acc[i], s->locks));
        }
        s->item[i] = (access_item){(uint64_t)hb_order_chain(o, acc[i]) << 32 |
                                       hb_order_pos(o, acc[i]),
                                   acc[i], set};
    }
    qsort(s->item, n, sizeof *s->item, by_place);
    uint32_t runs = 0, n_cls = 0, n_grp = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t chain = (uint32_t)(s->item[i].place >> 32);
        const event *e = &t->events[s->item[i].ev];
        if (!runs || s->runs[runs - 1].chain != chain) {
            ALLOC_GROW(s->runs, runs + 1, s->runs_cap);
            s->runs[runs++] = (chain_run){i, i, chain, e->thread, 0, 0};
        } else if (t->events[s->item[i - 1].ev].input_index >= e->input_index) {
            return 0;
        }
        s->runs[runs - 1].to = i + 1;
    }
    for (uint32_t r = 0; r < runs; r++)
        build_classes(t, s, &s->runs[r], &n_cls, &n_grp);
    *n_runs = runs;
    return 1;
}

typedef struct window {
    uint32_t lo_u, hi_u;     /* U leaves b_lo_u .. b_hi_u-1 unordered */
    uint32_t lo_r, hi_r;     /* within it, R (SAT unless locks meet) */
} window;

typedef struct pair_ctx {
    engine_run *run;
    const interval_scratch *s;
    const chain_run *b;
    uint32_t a;              /* the access of A */
    int a_write;
    uint32_t a_set;
    uint64_t unsat;
} pair_ctx;

/* A pair in U's window and not in R's, off the locks: no shortcut can
 * decide it, so once its group holds it is counted unchecked (as Z3
 * would never ask it) rather than stored. */
static void add_unknown(engine_run *run, uint32_t a, uint32_t b)
{
    uint32_t ev[2] = {a < b ? a : b, a < b ? b : a};
    uint32_t group = engine_group(run, RACE_DATA, ev);
    if (engine_skips(run, group, 0))
        engine_record_unchecked(run, RACE_DATA, group, 1);
    else
        engine_add(run, RACE_DATA, ev, 0, 1);
}

/* The pairs of a with group g's accesses in U's window, one by one (a
 * short window): positions pos[lo..hi). */
static void pair_window(pair_ctx *p, const window *w, const uint32_t *pos,
                        uint32_t lo, uint32_t hi)
{
    for (uint32_t k = lo; k < hi; k++) {
        uint32_t j = pos[k], b = p->s->item[p->b->from + j].ev;
        if (j >= w->lo_r && j < w->hi_r) {
            uint32_t ev[2] = {p->a, b};
            engine_record_sat(p->run, RACE_DATA,
                              engine_group(p->run, RACE_DATA, ev), ev, 0, 1);
        } else {
            add_unknown(p->run, p->a, b);
        }
    }
}

/* The same, class by class of group g: counts and one instance per
 * class. */
static void pair_classes(pair_ctx *p, const window *w, const lock_group *g)
{
    const interval_scratch *s = p->s;
    for (uint32_t c = g->cls_from; c < g->cls_to; c++) {
        const access_class *k = &s->cls[c];
        if (!p->a_write && !k->write)
            continue;
        uint32_t ulo = engine_lower_bound(s->member, k->from, k->to, w->lo_u);
        uint32_t uhi = engine_lower_bound(s->member, ulo, k->to, w->hi_u);
        uint32_t rlo = engine_lower_bound(s->member, ulo, uhi, w->lo_r);
        uint32_t rhi = engine_lower_bound(s->member, rlo, uhi, w->hi_r);
        if (rlo < rhi) { /* the least instance: the window's first */
            uint32_t ev[2] = {p->a, s->item[p->b->from + s->member[rlo]].ev};
            engine_record_sat(p->run, RACE_DATA,
                              engine_group(p->run, RACE_DATA, ev), ev, 0,
                              rhi - rlo);
        }
        if (ulo == rlo && rhi == uhi)
            continue;
        uint32_t ev[2] = {p->a, s->item[p->b->from + s->member[ulo < rlo ? ulo : rhi]].ev};
        uint32_t group = engine_group(p->run, RACE_DATA, ev);
        if (engine_skips(p->run, group, 0)) { /* one group: never asked */
            engine_record_unchecked(p->run, RACE_DATA, group,
                                    (rlo - ulo) + (uhi - rhi));
            continue;
        }
        for (uint32_t m = ulo; m < rlo; m++) /* U's window, not R's */
            add_unknown(p->run, p->a, s->item[p->b->from + s->member[m]].ev);
        for (uint32_t m = rhi; m < uhi; m++)
            add_unknown(p->run, p->a, s->item[p->b->from + s->member[m]].ev);
    }
}

/* The pairs of a with B's accesses, lock group by lock group: those U
 * orders and, when the locks meet, all the window's are UNSAT at once. */
static void pair_groups(pair_ctx *p, const window *w)
{
    const interval_scratch *s = p->s;
    for (uint32_t gi = p->b->grp_from; gi < p->b->grp_to; gi++) {
        const lock_group *g = &s->grp[gi];
        /* the conflicting ones: all when a writes, else the writes */
        uint32_t from = p->a_write ? g->all_from : g->w_from;
        uint32_t to = p->a_write ? g->all_to : g->w_to;
        uint32_t ulo = engine_lower_bound(s->group_pos, from, to, w->lo_u);
        uint32_t uhi = engine_lower_bound(s->group_pos, ulo, to, w->hi_u);
        p->unsat += (to - from) - (uhi - ulo);
        if (ulo == uhi)
            continue;
        if (sets_meet(&s->ls, p->a_set, g->set))
            p->unsat += uhi - ulo;
        else if (uhi - ulo <= g->cls_to - g->cls_from)
            pair_window(p, w, s->group_pos, ulo, uhi);
        else
            pair_classes(p, w, g);
    }
}

/* The first of B's items from index `from` on that a (at position pa of
 * its chain) does not reach in U (resolved 0) or R, by bisection: A's
 * last access reaching an item of B only grows along B. */
static uint32_t first_unreached(const hb_order *o, const interval_scratch *s,
                                const chain_run *A, const chain_run *B,
                                uint32_t from, int32_t pa, int resolved)
{
    uint32_t lo = from, hi = B->to - B->from;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (hb_order_last_reaching(o, resolved, s->item[B->from + mid].ev,
                                   A->chain) >= pa)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* What pair_runs(A, B) costs, in hb_order_last_reaching questions and
 * windows, roughly: each of B's items asked once and each of A's once
 * with its window, or (by bisection) each of A's once with its window
 * and 2 log |B| times more (twice that when R is swept apart from U). */
static uint64_t cost_of(uint32_t na, uint32_t nb, int bisect, int own_r)
{
    uint64_t log = engine_floor_log2(nb) + 1;
    return bisect ? na * (2 + 2 * log * (own_r ? 2 : 1))
                  : (uint64_t)nb + 2 * (uint64_t)na;
}

/* Moves the window [*lo, *hi) of B to access a (at position pa of A's
 * chain): past B's items up to `before`, the last that reaches a, and up
 * to the first that a does not reach, by last[] (A's last access reaching
 * each item of B) or, when last is NULL, by bisection. */
static void advance_window(const hb_order *o, const interval_scratch *s,
                           const chain_run *A, const chain_run *B,
                           int32_t before, int32_t pa, const int32_t *last,
                           int resolved, uint32_t *lo, uint32_t *hi)
{
    uint32_t nb = B->to - B->from;
    while (*lo < nb && (int32_t)(uint32_t)s->item[B->from + *lo].place <= before)
        (*lo)++;
    if (!last)
        *hi = first_unreached(o, s, A, B, *hi, pa, resolved);
    else
        while (*hi < nb && last[*hi] < pa)
            (*hi)++;
}

/* Every pair of an access of run A with one of run B: for each a, the
 * window of B's items unordered with it.  Its upper end is found by
 * bisection (bisect) or by asking every item of B once beforehand.
 * own_r: R has clocks of its own (else R's window is U's). */
static void pair_runs(engine_run *run, const hb_order *o, interval_scratch *s,
                      const chain_run *A, const chain_run *B, int bisect,
                      int own_r)
{
    const trace *t = engine_trace(run);
    int witness = hb_order_witness(o);
    uint32_t nb = B->to - B->from;
    for (uint32_t j = 0; j < nb && !bisect; j++) {
        uint32_t b = s->item[B->from + j].ev;
        hb_order_last_reaching_both(o, b, A->chain, &s->last_u[j],
                                    &s->last_r[j]);
    }
    const int32_t *last_u = bisect ? NULL : s->last_u;
    const int32_t *last_r = bisect ? NULL : s->last_r;
    window w = {0, 0, 0, 0};
    pair_ctx p = {.run = run, .s = s, .b = B};
    for (uint32_t i = A->from; i < A->to; i++) {
        const access_item *a = &s->item[i];
        int32_t pa = (int32_t)(uint32_t)a->place;
        /* B's accesses up to the last reaching a; from the first a reaches */
        int32_t before_u, before_r;
        hb_order_last_reaching_both(o, a->ev, B->chain, &before_u, &before_r);
        advance_window(o, s, A, B, before_u, pa, last_u, 0, &w.lo_u, &w.hi_u);
        if (own_r)
            advance_window(o, s, A, B, before_r, pa, last_r, 1, &w.lo_r,
                           &w.hi_r);
        else if (witness)
            w.lo_r = w.lo_u, w.hi_r = w.hi_u;
        assert(w.lo_u <= w.hi_u); /* U is acyclic */
        window here = w;
        if (!witness || here.lo_r < here.lo_u || here.hi_r > here.hi_u ||
            here.lo_r >= here.hi_r)
            here.lo_r = here.hi_r = here.lo_u; /* nothing SAT by R */
        p.a = a->ev;
        p.a_write = t->events[a->ev].kind == EV_WRITE;
        p.a_set = a->set;
        pair_groups(&p, &here);
    }
    if (p.unsat)
        engine_count_unsat(run, RACE_DATA, p.unsat);
}

/* The pairs of one variable (acc[0..n), a node of the focused batch),
 * counted over intervals.  0 when it must be paired one by one. */
static int count_variable(engine_run *run, const hb_order *o,
                          const uint32_t *acc, uint32_t n, interval_scratch *s)
{
    uint32_t n_runs;
    if (!build_runs(engine_trace(run), o, acc, n, s, &n_runs))
        return 0;
    int own_r = hb_order_witness(o) && !hb_order_r_is_u(o);
    for (uint32_t x = 0; x < n_runs && !engine_stopped(run); x++)
        for (uint32_t y = x + 1; y < n_runs; y++) {
            const chain_run *A = &s->runs[x], *B = &s->runs[y];
            if (A->thread == B->thread)
                continue;
            /* the cheapest of three: a pair's instances and groups do not
             * depend on which run is A (grouper_offer(),
             * engine_group.c) */
            uint32_t na = A->to - A->from, nb = B->to - B->from;
            uint64_t plain = cost_of(na, nb, 0, own_r);
            uint64_t ab = cost_of(na, nb, 1, own_r);
            uint64_t ba = cost_of(nb, na, 1, own_r);
            if (ba < plain && ba < ab)
                pair_runs(run, o, s, B, A, 1, own_r);
            else
                pair_runs(run, o, s, A, B, ab < plain, own_r);
        }
    return 1;
}

/* What `generate` leaves to generate_batch: the kept accesses by batch,
 * then variable, and the scratch of both ways of pairing. */
typedef struct data_state {
    uint32_t *acc, n;
    uint32_t *batch_start;           /* per batch: its first in acc */
    uint32_t *set;                   /* static locksets (held_locks), or NULL */
    locksets ls;
    uint64_t (*per)[2];
    interval_scratch scratch;
} data_state;

static void free_state(void *p)
{
    data_state *st = p;
    free(st->acc);
    free(st->batch_start);
    free(st->set);
    locksets_free(&st->ls);
    free(st->per);
    scratch_free(&st->scratch);
    free(st);
}

/* The plain loop: every conflicting pair of one variable, acc[i..j). */
static void pair_variable(engine_run *run, data_state *st, uint32_t i,
                          uint32_t j)
{
    const trace *t = engine_trace(run);
    const uint32_t *acc = st->acc;
    if (!st->set) /* --solver=z3 asks Z3 every candidate: nothing decided */
        st->set = engine_options(run)->solver == SOLVER_AUTO
                      ? held_locks(run, &st->ls)
                      : xcalloc(t->n_events + 1, sizeof *st->set);
    int locked = 0;
    for (uint32_t k = i; k < j; k++)
        locked |= st->set[acc[k]] != 0;
    if (locked) {
        guarded_pairs(run, acc, i, j, st->set, &st->ls);
        return;
    }
    reserve(run, acc + i, j - i, st->per);
    for (uint32_t x = i; x < j && !engine_stopped(run); x++)
        for (uint32_t y = x + 1; y < j; y++) {
            const event *ex = &t->events[acc[x]], *ey = &t->events[acc[y]];
            if (ex->thread == ey->thread ||
                (ex->kind != EV_WRITE && ey->kind != EV_WRITE))
                continue;
            uint32_t ev[2] = {acc[x], acc[y]};
            engine_add(run, RACE_DATA, ev, 0, 1);
        }
}

/* The variables of acc[from..to), counted over intervals when the batch
 * is focused, else listed. */
static void variables(engine_run *run, data_state *st, uint32_t from,
                      uint32_t to, const hb_order *o)
{
    const trace *t = engine_trace(run);
    const uint32_t *acc = st->acc;
    for (uint32_t i = from, j; i < to && !engine_stopped(run); i = j) {
        for (j = i; j < to && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        if (!o || !count_variable(run, o, acc + i, j - i, &st->scratch))
            pair_variable(run, st, i, j);
    }
}

/* Every conflicting pair of kept accesses, one variable at a time: with
 * engine_order (--solver=auto) batch by batch in generate_batch, else
 * here. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const hb_order *o = engine_order(run);
    data_state *st = xcalloc(1, sizeof *st);
    engine_set_state(run, RACE_DATA, st, free_state);
    st->per = xcalloc(t->n_threads + 1, sizeof *st->per);
    /* by variable, then event (the accesses come in event order and the
     * sorts are stable; a qsort took a second at 16 M events) */
    st->acc = engine_accesses(run, NULL, &st->n);
    engine_counting_sort(st->acc, st->n, sizeof *st->acc, t->n_objects,
                         object_key, t);
    if (!o) {
        variables(run, st, 0, st->n, NULL);
        return;
    }
    /* batch by batch (engine_order's), then as above */
    st->batch_start = engine_sort_by_batch(o, st->acc, st->n);
}

static void generate_batch(engine_run *run, uint32_t batch, int focused)
{
    data_state *st = engine_state(run, RACE_DATA);
    variables(run, st, st->batch_start[batch], st->batch_start[batch + 1],
              focused ? engine_order(run) : NULL);
}

static hb_query query(const candidate *c, unsigned k)
{
    (void)k;
    return hb_query_simultaneous(c->ev[0], c->ev[1]);
}

const analysis analysis_data = {
    .kind = RACE_DATA,
    .n_queries = 1, .n_located = 2, .n_shown = 2, .symmetric = 1,
    .enabled = enabled, .generate = generate,
    .generate_batch = generate_batch, .query = query,
};
