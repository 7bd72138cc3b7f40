/*
 * analysis_data.c — data races (SPEC §4): accesses a, b to one variable of
 * a node, at least one a write, in different threads, such that
 * Φ ∧ O(a) = O(b) is satisfiable.  Grouped by the pair {loc(a), loc(b)}.
 */
#include "engine.h"

#include "../traces/alloc.h"
#include "../traces/text.h"

#include <string.h>
#include <uthash.h>

static int by_object(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int32_t oa = t->events[a].object, ob = t->events[b].object;
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return a < b ? -1 : a > b;
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
    for (uint32_t a = 0; a < n_gr; a++)
        for (uint32_t b = a + 1; b < n_gr; b++) {
            const access_group *x = &gr[a], *y = &gr[b];
            if (x->thread == y->thread)
                continue;
            if (sets_meet(ls, x->set, y->set)) { /* counted, not listed */
                uint64_t nx = x->to - x->from, ny = y->to - y->from;
                unsat += x->writes * ny + (nx - x->writes) * y->writes;
                continue;
            }
            for (uint32_t p = x->from; p < x->to; p++)
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

/* Every conflicting pair of kept accesses, one variable at a time. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    uint32_t n;
    uint32_t *acc = engine_accesses(run, by_object, &n);
    uint64_t (*per)[2] = xcalloc(t->n_threads + 1, sizeof *per);
    locksets ls = {0};
    /* --solver=z3 asks Z3 every candidate: nothing is decided here */
    uint32_t *set = engine_options(run)->solver == SOLVER_AUTO
                        ? held_locks(run, &ls)
                        : xcalloc(t->n_events + 1, sizeof *set);
    for (uint32_t i = 0, j; i < n && !engine_stopped(run); i = j) {
        int locked = 0;
        for (j = i; j < n && t->events[acc[j]].object == t->events[acc[i]].object;)
            locked |= set[acc[j++]] != 0;
        if (locked) {
            guarded_pairs(run, acc, i, j, set, &ls);
            continue;
        }
        reserve(run, acc + i, j - i, per);
        for (uint32_t x = i; x < j; x++)
            for (uint32_t y = x + 1; y < j; y++) {
                const event *ex = &t->events[acc[x]], *ey = &t->events[acc[y]];
                if (ex->thread == ey->thread ||
                    (ex->kind != EV_WRITE && ey->kind != EV_WRITE))
                    continue;
                uint32_t ev[2] = {acc[x], acc[y]};
                engine_add(run, RACE_DATA, ev, 0, 1);
            }
    }
    free(set);
    locksets_free(&ls);
    free(per);
    free(acc);
}

static hb_query query(const candidate *c, unsigned k)
{
    (void)k;
    return hb_query_simultaneous(c->ev[0], c->ev[1]);
}

const analysis analysis_data = {
    .kind = RACE_DATA, .title = "Data races", .json_key = "data_races",
    .n_queries = 1, .n_located = 2, .n_shown = 2, .symmetric = 1,
    .enabled = enabled, .generate = generate, .query = query,
};
