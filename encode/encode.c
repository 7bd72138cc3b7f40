/*
 * encode.c — building Φ as plain data (docs/model.md §3).
 */
#include "encode.h"

#include <assert.h>

#include "../util/alloc.h"
#include "../util/text.h"

#include <uthash.h>

#include <stdlib.h>
#include <string.h>

typedef struct builder {
    hb_model *m;
    const trace *t;
    const volatile sig_atomic_t *stop;  /* or NULL */
    uint32_t edges_cap, clauses_cap, lits_cap;
    uint32_t edge_origin_cap, clause_origin_cap;
    uint32_t lock_sections_cap, lock_groups_cap;
} builder;

/* One more constraint of this origin in the counts. */
static void count_origin(hb_counts *c, hb_origin origin)
{
    uint64_t *field[] = {&c->program_order, &c->thread_sync, &c->messages,
                         &c->locks, &c->wait_notify, &c->implied};
    (*field[origin])++;
}

static void add_edge(builder *b, hb_origin origin, uint32_t before,
                     uint32_t after)
{
    hb_model *m = b->m;
    assert(m->kept[before] && m->kept[after]); /* pruned events order nothing */
    ALLOC_GROW(m->edges, m->n_edges + 1, b->edges_cap);
    ALLOC_GROW(m->edge_origin, m->n_edges + 1, b->edge_origin_cap);
    m->edge_origin[m->n_edges] = (uint8_t)origin;
    m->edges[m->n_edges++] = (hb_edge){before, after};
    count_origin(&m->counts, origin);
}

static void add_clause(builder *b, hb_origin origin, const hb_lit *lits,
                       uint32_t n)
{
    hb_model *m = b->m;
    ALLOC_GROW(m->lits, m->n_lits + n, b->lits_cap);
    memcpy(m->lits + m->n_lits, lits, n * sizeof(hb_lit));
    ALLOC_GROW(m->clauses, m->n_clauses + 1, b->clauses_cap);
    ALLOC_GROW(m->clause_origin, m->n_clauses + 1, b->clause_origin_cap);
    m->clause_origin[m->n_clauses] = (uint8_t)origin;
    m->clauses[m->n_clauses++] = (hb_clause){m->n_lits, n};
    m->n_lits += n;
    count_origin(&m->counts, origin);
}

/* Grows a clause array to hold need elements; on failure, ends the run
 * saying `what`. */
static void *grow_for(void *arr, uint32_t *cap, uint64_t need, size_t size,
                      const char *what)
{
    if (need <= *cap)
        return arr;
    uint64_t c = (uint64_t)*cap * 2 > need ? (uint64_t)*cap * 2 : need;
    void *p = c < UINT32_MAX && c <= SIZE_MAX / size ? realloc(arr, c * size)
                                                    : NULL;
    if (!p)
        alloc_fail(c <= SIZE_MAX / size ? c * size : SIZE_MAX, what);
    *cap = (uint32_t)c;
    return p;
}

/* Makes room for `clauses` more clauses of `lits` literals in all, so
 * that running out of memory names them (issue 15: "N lock clauses for
 * lock L of node n"), not "a growing array".  name: a shared object. */
static void reserve_clauses(builder *b, uint64_t clauses, uint64_t lits,
                            const char *kind, uint32_t object)
{
    hb_model *m = b->m;
    const trace *t = b->t;
    uint64_t nc = m->n_clauses + clauses, nl = m->n_lits + lits;
    if (nc <= b->clauses_cap && nl <= b->lits_cap &&
        nc <= b->clause_origin_cap)
        return;
    text_pool tp = {0};
    char *what = NULL;
    if (asprintf(&what, "%llu %s clauses for %s of node %s",
                 (unsigned long long)clauses, kind,
                 text_safe(&tp, t->strings[t->objects[object].name]),
                 text_safe(&tp, t->strings[t->objects[object].node])) < 0)
        alloc_fail(0, kind);
    text_pool_free(&tp);
    m->clauses = grow_for(m->clauses, &b->clauses_cap, nc, sizeof *m->clauses, what);
    m->clause_origin = grow_for(m->clause_origin, &b->clause_origin_cap, nc,
                                1, what);
    m->lits = grow_for(m->lits, &b->lits_cap, nl, sizeof *m->lits, what);
    free(what);
}

void hb_edge_list_add(hb_edge_list *l, uint32_t before, uint32_t after)
{
    ALLOC_GROW(l->v, l->n + 1, l->cap);
    l->v[l->n++] = (hb_edge){before, after};
}

static hb_lit less(uint32_t a, uint32_t b)
{
    return (hb_lit){LIT_LESS, a, b};
}

/* ---- program order ------------------------------------------------------ */

static void nested_order(builder *b, const thread_info *th)
{
    int64_t prev = NONE;
    for (uint32_t k = 0; k < th->n_events; k++) {
        uint32_t e = th->events[k];
        if (!b->m->kept[e])
            continue;
        if (prev != NONE)
            add_edge(b, ORIGIN_PROGRAM_ORDER, (uint32_t)prev, e);
        prev = e;
    }
}

/* The thesis's model: the thread outside handlers is one chain, each
 * handler another, started by its RCV (or by the thread's previous event
 * for a handler of no message). */
static void floating_order(builder *b, const thread_info *th, int64_t *last)
{
    const trace *t = b->t;
    int64_t prev = NONE; /* the thread's previous kept event, any context */
    for (uint32_t k = 0; k < th->n_events; k++) {
        uint32_t e = th->events[k];
        if (!b->m->kept[e])
            continue;
        int32_t h = t->events[e].handler;
        int64_t *chain = &last[h + 1];
        hb_origin count = ORIGIN_PROGRAM_ORDER;
        if (*chain != NONE)
            add_edge(b, count, (uint32_t)*chain, e);
        else if (h != NONE && t->handlers[h].rcv != NONE &&
                 b->m->kept[t->handlers[h].rcv])
            add_edge(b, count, (uint32_t)t->handlers[h].rcv, e);
        else if (h != NONE && prev != NONE)
            add_edge(b, count, (uint32_t)prev, e);
        *chain = e;
        prev = e;
    }
}

static void program_order(builder *b, handler_model handlers)
{
    const trace *t = b->t;
    int64_t *last = xmalloc(sizeof(int64_t) * (t->n_handlers + 1));
    for (uint32_t i = 0; i < t->n_threads; i++) {
        if (handlers == HANDLERS_NESTED) {
            nested_order(b, &t->threads[i]);
            continue;
        }
        for (uint32_t h = 0; h <= t->n_handlers; h++)
            last[h] = NONE;
        floating_order(b, &t->threads[i], last);
    }
    free(last);
}

/* ---- threads, messages, locks, wait/notify ------------------------------- */

static int64_t first_kept(const builder *b, const thread_info *th)
{
    for (uint32_t k = 0; k < th->n_events; k++)
        if (b->m->kept[th->events[k]])
            return th->events[k];
    return NONE;
}

static int64_t last_kept(const builder *b, const thread_info *th)
{
    for (uint32_t k = th->n_events; k-- > 0;)
        if (b->m->kept[th->events[k]])
            return th->events[k];
    return NONE;
}

static void thread_sync(builder *b)
{
    const trace *t = b->t;
    hb_origin count = ORIGIN_THREAD_SYNC;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if ((ev->kind != EV_CREATE && ev->kind != EV_JOIN) || !b->m->kept[e])
            continue;
        const thread_info *child = &t->threads[ev->object];
        if (ev->kind == EV_CREATE) {
            if (child->create != (int32_t)e)
                continue; /* only the first CREATE of a thread forks it */
            int64_t first = first_kept(b, child);
            if (first != NONE)
                add_edge(b, count, e, (uint32_t)first);
        } else {
            int64_t last = last_kept(b, child);
            if (last != NONE)
                add_edge(b, count, (uint32_t)last, e);
        }
    }
}

static void messages(builder *b)
{
    const trace *t = b->t;
    hb_origin count = ORIGIN_MESSAGES;
    hb_lit *lits = NULL;
    uint32_t lits_cap = 0;
    for (uint32_t i = 0; i < t->n_matches; i++) {
        const rcv_match *mt = &t->matches[i];
        if (!b->m->kept[mt->rcv])
            continue;
        uint32_t n = 0;
        ALLOC_GROW(lits, mt->n_sends, lits_cap);
        for (uint32_t k = 0; k < mt->n_sends; k++) {
            if (!b->m->kept[mt->sends[k]])
                continue;
            if (mt->all)
                add_edge(b, count, mt->sends[k], mt->rcv);
            else
                lits[n++] = less(mt->sends[k], mt->rcv);
        }
        if (n == 1)
            add_edge(b, count, lits[0].a, lits[0].b);
        else if (n > 1)
            add_clause(b, count, lits, n);
    }
    free(lits);
}

static int cmp_sections(const void *x, const void *y)
{
    const lock_section *a = x, *b = y;
    if (a->lock != b->lock)
        return a->lock < b->lock ? -1 : 1;
    return a->acquire < b->acquire ? -1 : a->acquire > b->acquire;
}

/* Two sections of one lock in different threads never overlap; here one
 * of them is never released (two released ones are a lock group's
 * clause, add_lock_group).  A
 * constraint is added exactly when every event it names is kept: pruning
 * (prune.h) drops only events that no constraint names, so a pruned Φ
 * keeps every constraint of the unpruned one.  (Asking for the whole
 * section to be kept instead loses "U1 < L2" of an open section L2 when
 * L1, which that constraint does not name, was dropped.) */
static void exclude(builder *b, const lock_section *x, const lock_section *y)
{
    hb_origin count = ORIGIN_LOCKS;
    const uint8_t *kept = b->m->kept;
    if (x->release == NONE && y->release == NONE) {
        /* both hold to the end: impossible, and Φ must say so */
        if (kept[x->acquire] && kept[y->acquire]) {
            add_edge(b, count, x->acquire, y->acquire);
            add_edge(b, count, y->acquire, x->acquire);
        }
    } else if (x->release == NONE) {
        if (kept[y->release] && kept[x->acquire])
            add_edge(b, count, (uint32_t)y->release, x->acquire);
    } else {
        assert(y->release == NONE);
        if (kept[x->release] && kept[y->acquire])
            add_edge(b, count, (uint32_t)x->release, y->acquire);
    }
}

/* Whether a stop signal came: the model is then left incomplete. */
static int stopped(builder *b)
{
    if (b->stop && *b->stop)
        b->m->incomplete = 1;
    return b->m->incomplete;
}

/* Whether a section's both events are in the model and it was released:
 * it then takes part in its lock's group (hb_lock_group). */
static int closed_and_kept(const builder *b, const lock_section *x)
{
    return x->release != NONE && b->m->kept[x->acquire] &&
           b->m->kept[x->release];
}

/* The sections s[0..n) of one lock that take part in clauses, as a group
 * of the model when they span two threads.  per_thread: zeroed counters,
 * left zeroed. */
static void add_lock_group(builder *b, const lock_section *s, uint32_t n,
                           uint64_t *per_thread)
{
    hb_model *m = b->m;
    uint32_t first = m->n_lock_sections, k = 0;
    uint64_t same = 0; /* pairs of one thread: no clause */
    for (uint32_t i = 0; i < n; i++)
        if (closed_and_kept(b, &s[i])) {
            ALLOC_GROW(m->lock_sections, first + k + 1, b->lock_sections_cap);
            m->lock_sections[first + k++] = s[i];
            same += per_thread[s[i].thread]++;
        }
    for (uint32_t i = 0; i < k; i++)
        per_thread[m->lock_sections[first + i].thread] = 0;
    uint64_t pairs = (uint64_t)k * (k - (k > 0)) / 2 - same;
    if (pairs == 0) /* one thread (or none): nothing to exclude */
        return;
    ALLOC_GROW(m->lock_groups, m->n_lock_groups + 1, b->lock_groups_cap);
    m->lock_groups[m->n_lock_groups++] = (hb_lock_group){first, k, pairs};
    m->n_lock_sections += k;
    m->n_lock_clauses += pairs;
    m->counts.locks += pairs;
}

/* Sections that are never released, against the others of their lock:
 * edges, in the order of the pairs (x, y > x) one of which is open. */
static void exclude_open(builder *b, const lock_section *s, uint32_t n)
{
    uint32_t *open = xmalloc_array((size_t)n + 1, sizeof *open), n_open = 0;
    for (uint32_t i = 0; i < n; i++)
        if (s[i].release == NONE)
            open[n_open++] = i;
    for (uint32_t x = 0, o = 0; x < n && n_open && !stopped(b); x++) {
        while (o < n_open && open[o] <= x)
            o++;
        if (s[x].release == NONE) {
            for (uint32_t y = x + 1; y < n; y++)
                if (s[x].thread != s[y].thread)
                    exclude(b, &s[x], &s[y]);
        } else {
            for (uint32_t k = o; k < n_open; k++)
                if (s[x].thread != s[open[k]].thread)
                    exclude(b, &s[x], &s[open[k]]);
        }
    }
    free(open);
}

static void locks(builder *b)
{
    const trace *t = b->t;
    lock_section *s = xmalloc(sizeof(lock_section) * (t->n_sections + 1));
    uint32_t n = t->n_sections;
    if (n)
        memcpy(s, t->sections, sizeof(lock_section) * n);
    qsort(s, n, sizeof *s, cmp_sections);
    uint64_t *per_thread = xcalloc(t->n_threads + 1, sizeof *per_thread);
    b->m->lock_clauses_at = b->m->n_clauses;
    for (uint32_t i = 0, end; i < n && !stopped(b); i = end) {
        for (end = i; end < n && s[end].lock == s[i].lock; end++)
            ;
        exclude_open(b, s + i, end - i);
        add_lock_group(b, s + i, end - i, per_thread);
    }
    free(per_thread);
    free(s);
}

void hb_lock_clause(const lock_section *x, const lock_section *y,
                    hb_lit lits[2])
{
    lits[0] = less((uint32_t)x->release, y->acquire);
    lits[1] = less((uint32_t)y->release, x->acquire);
}

int hb_lock_pairs_next(const hb_model *m, hb_lock_pairs *it, hb_lit lits[2])
{
    for (; it->group < m->n_lock_groups; it->group++, it->x = 0, it->y = 0) {
        const hb_lock_group *g = &m->lock_groups[it->group];
        const lock_section *s = m->lock_sections + g->first;
        for (; it->x < g->n; it->x++, it->y = 0) {
            if (it->y <= it->x)
                it->y = it->x + 1;
            for (; it->y < g->n; it->y++)
                if (s[it->x].thread != s[it->y].thread) {
                    hb_lock_clause(&s[it->x], &s[it->y++], lits);
                    return 1;
                }
        }
    }
    return 0;
}

/* A choice of a NOTIFY by a WAIT: wait i, its p-th candidate, and the
 * other wait j (with its q-th candidate) that may choose it too. */
typedef struct shared_notify {
    uint32_t i, j, p, q;
} shared_notify;

/* Up to this many waits per NOTIFY, "at most one" is said pairwise
 * (k(k-1)/2 clauses: fewer than a ladder's 3k-4); past it, by a ladder. */
enum { PAIRWISE_MAX = 5 };

/* Sinz's sequential counter for the booleans x[0..k) of one NOTIFY: aux
 * s_i ("one of x[0..i] holds"), x_i -> s_i, s_{i-1} -> s_i, and not both
 * x_i and s_{i-1}: 3k-4 clauses and k-1 booleans instead of k(k-1)/2
 * clauses.  Its solutions, without the aux booleans, are exactly those of
 * the pairwise clauses: at most one x holds (if x_i and x_j, i < j, held,
 * s_i .. s_(j-1) would hold and "not both x_j and s_(j-1)" fail), and any
 * such choice extends with s_i = x_0 or ... or x_i. */
static void ladder(builder *b, uint32_t notify, const uint32_t *x, uint32_t k,
                   uint32_t *choices_cap)
{
    hb_model *m = b->m;
    uint32_t s0 = m->n_bools;
    ALLOC_GROW(m->choices, m->n_bools + k, *choices_cap);
    for (uint32_t i = 0; i + 1 < k; i++)
        m->choices[m->n_bools++] = (hb_choice){notify, HB_LADDER};
    for (uint32_t i = 0; i < k; i++) {
        if (i + 1 < k) {
            hb_lit to_s[2] = {{LIT_NOT_BOOL, x[i], 0}, {LIT_BOOL, s0 + i, 0}};
            add_clause(b, ORIGIN_WAIT_NOTIFY, to_s, 2);
        }
        if (i > 0 && i + 1 < k) {
            hb_lit carry[2] = {{LIT_NOT_BOOL, s0 + i - 1, 0},
                               {LIT_BOOL, s0 + i, 0}};
            add_clause(b, ORIGIN_WAIT_NOTIFY, carry, 2);
        }
        if (i > 0) {
            hb_lit not_both[2] = {{LIT_NOT_BOOL, x[i], 0},
                                  {LIT_NOT_BOOL, s0 + i - 1, 0}};
            add_clause(b, ORIGIN_WAIT_NOTIFY, not_both, 2);
        }
    }
}

/* Clauses of the at-most-one over k booleans: pairwise or a ladder. */
static uint64_t at_most_one_clauses(uint64_t k)
{
    return k <= PAIRWISE_MAX ? k * (k - (k > 0)) / 2 : 3 * k - 4;
}

/* A NOTIFY wakes at most one WAIT: for a NOTIFY that at most PAIRWISE_MAX
 * kept waits may choose, "not both" for every two of them, in the order
 * (wait i, wait j, i's candidate) that the model has always had; for the
 * others, a ladder each (after those).  The waits of each NOTIFY are
 * listed first, so the time is the number of clauses, not waits^2 x
 * notifies^2. */
static void at_most_one_wait(builder *b, const uint32_t *bool_of,
                             uint32_t *choices_cap)
{
    const trace *t = b->t;
    const hb_model *m = b->m;
    uint32_t *start = xcalloc(t->n_events + 2, sizeof *start);
    for (uint32_t i = 0; i < t->n_waits; i++)
        if (m->kept[t->waits[i].wait])
            for (uint32_t p = 0; p < t->waits[i].n_notifies; p++)
                start[t->waits[i].notifies[p] + 2]++;
    for (uint32_t e = 0; e < t->n_events; e++)
        start[e + 2] += start[e + 1];
    uint32_t total = start[t->n_events + 1];
    uint32_t (*by_notify)[2] = xmalloc_array(total + 1, sizeof *by_notify);
    for (uint32_t i = 0; i < t->n_waits; i++) /* in wait order */
        if (m->kept[t->waits[i].wait])
            for (uint32_t p = 0; p < t->waits[i].n_notifies; p++) {
                uint32_t k = start[t->waits[i].notifies[p] + 1]++;
                by_notify[k][0] = i;
                by_notify[k][1] = p;
            }
    uint64_t n_pairs = 0, most = 0;
    uint32_t most_object = 0;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (t->events[e].kind == EV_NOTIFY) {
            uint64_t k = start[e + 1] - start[e];
            uint64_t c = at_most_one_clauses(k);
            n_pairs += c;
            if (c > most)
                most = c, most_object = (uint32_t)t->events[e].object;
        }
    if (n_pairs)
        reserve_clauses(b, n_pairs, 2 * n_pairs, "wait/notify", most_object);
    /* rank of wait i in each of its notifies' lists, to find the later
     * waits of that notify */
    uint32_t *count = xcalloc(t->n_waits + 1, sizeof *count);
    shared_notify *pairs = NULL, *sorted = NULL;
    size_t cap = 0, sorted_cap = 0;
    for (uint32_t i = 0; i < t->n_waits && !stopped(b); i++) {
        const wait_info *w = &t->waits[i];
        if (!m->kept[w->wait])
            continue;
        size_t n = 0;
        for (uint32_t p = 0; p < w->n_notifies; p++) {
            uint32_t e = w->notifies[p];
            if (t->events[e].kind != EV_NOTIFY ||
                start[e + 1] - start[e] > PAIRWISE_MAX)
                continue;
            uint32_t x = start[e];
            while (by_notify[x][0] != i) /* i's place in e's list */
                x++;
            for (uint32_t y = x + 1; y < start[e + 1]; y++) {
                ALLOC_GROW(pairs, n + 1, cap);
                pairs[n++] = (shared_notify){i, by_notify[y][0], p,
                                             by_notify[y][1]};
                count[by_notify[y][0]]++;
            }
        }
        /* stable counting sort by j: the order (j, p) */
        ALLOC_GROW(sorted, n + 1, sorted_cap);
        uint32_t sum = 0;
        for (uint32_t j = i + 1; j < t->n_waits; j++) {
            uint32_t c = count[j];
            count[j] = sum;
            sum += c;
        }
        for (size_t k = 0; k < n; k++)
            sorted[count[pairs[k].j]++] = pairs[k];
        for (uint32_t j = i + 1; j < t->n_waits; j++)
            count[j] = 0;
        for (size_t k = 0; k < n; k++) {
            hb_lit one[2] = {
                {LIT_NOT_BOOL, bool_of[sorted[k].i] + sorted[k].p, 0},
                {LIT_NOT_BOOL, bool_of[sorted[k].j] + sorted[k].q, 0}};
            add_clause(b, ORIGIN_WAIT_NOTIFY, one, 2);
        }
    }
    uint32_t *x = NULL, x_cap = 0;
    for (uint32_t e = 0; e < t->n_events && !stopped(b); e++) {
        uint32_t k = start[e + 1] - start[e];
        if (t->events[e].kind != EV_NOTIFY || k <= PAIRWISE_MAX)
            continue;
        ALLOC_GROW(x, k, x_cap);
        for (uint32_t y = 0; y < k; y++)
            x[y] = bool_of[by_notify[start[e] + y][0]] + by_notify[start[e] + y][1];
        ladder(b, e, x, k, choices_cap);
    }
    free(x);
    free(count);
    free(sorted);
    free(pairs);
    free(by_notify);
    free(start);
}

/* One boolean per (notify, wait): the wait follows a notify it chose, and a
 * NOTIFY is chosen by at most one wait. */
static void wait_notify(builder *b)
{
    const trace *t = b->t;
    hb_model *m = b->m;
    hb_origin count = ORIGIN_WAIT_NOTIFY;
    uint32_t *bool_of = xmalloc(sizeof(uint32_t) * (t->n_waits + 1));
    hb_lit *lits = NULL;
    uint32_t lits_cap = 0, choices_cap = 0;
    uint32_t i = 0; /* a stop is heeded every 256 WAITs (quadratic work) */
    for (; i < t->n_waits && !((i & 255) == 0 && stopped(b)); i++) {
        const wait_info *w = &t->waits[i];
        bool_of[i] = m->n_bools;
        if (!hb_wait_constrained(m, w))
            continue;
        ALLOC_GROW(lits, w->n_notifies, lits_cap);
        ALLOC_GROW(m->choices, m->n_bools + w->n_notifies, choices_cap);
        for (uint32_t k = 0; k < w->n_notifies; k++) {
            uint32_t v = m->n_bools + k;
            m->choices[v] = (hb_choice){w->notifies[k], w->wait};
            lits[k] = (hb_lit){LIT_BOOL, v, 0};
            hb_lit implies[2] = {{LIT_NOT_BOOL, v, 0},
                                 less(w->notifies[k], w->wait)};
            add_clause(b, count, implies, 2);
        }
        add_clause(b, count, lits, w->n_notifies);
        m->n_bools += w->n_notifies;
    }
    if (i == t->n_waits) /* else stopped: the model is incomplete anyway */
        at_most_one_wait(b, bool_of, &choices_cap);
    free(lits);
    free(bool_of);
}

/* What wait_notify() will add, counted: each constrained WAIT's
 * implications and its "one of", each NOTIFY's at-most-one. */
static void count_waits(builder *b)
{
    const trace *t = b->t;
    hb_model *m = b->m;
    uint32_t *waits_of = xcalloc((size_t)t->n_events + 1, sizeof *waits_of);
    uint64_t n = 0;
    uint32_t i = 0; /* a stop is heeded every 256 WAITs (quadratic work) */
    for (; i < t->n_waits && !((i & 255) == 0 && stopped(b)); i++) {
        const wait_info *w = &t->waits[i];
        if (!hb_wait_constrained(m, w))
            continue;
        n += w->n_notifies + 1;
        for (uint32_t k = 0; k < w->n_notifies; k++)
            waits_of[w->notifies[k]]++;
    }
    for (uint32_t e = 0; e < t->n_events; e++)
        if (t->events[e].kind == EV_NOTIFY)
            n += at_most_one_clauses(waits_of[e]);
    free(waits_of);
    m->n_wait_clauses = n;
    m->counts.wait_notify += n;
    m->waits_deferred = 1;
}

void hb_model_add_waits(hb_model *m, const trace *t,
                        const volatile sig_atomic_t *stop)
{
    if (!m->waits_deferred)
        return;
    builder b = {.m = m, .t = t, .stop = stop,
                 .edges_cap = m->n_edges, .edge_origin_cap = m->n_edges,
                 .clauses_cap = m->n_clauses, .lits_cap = m->n_lits,
                 .clause_origin_cap = m->n_clauses};
    hb_counts counted = m->counts; /* these clauses are in it already */
    wait_notify(&b);
    uint64_t made = m->counts.wait_notify - counted.wait_notify;
    assert(m->incomplete || made == m->n_wait_clauses);
    m->counts = counted;
    /* after a stop, those made: the counts agree with the clauses */
    m->counts.wait_notify -= m->n_wait_clauses - made;
    m->n_wait_clauses = made;
    m->waits_deferred = 0;
}

/* ---- edges the clauses imply ------------------------------------------ */

/* Events by chain (hb_chain_of()), then position: the order U has. */
typedef struct chain_order {
    const trace *t;
    handler_model handlers;
} chain_order;

static int by_chain_pos(const void *x, const void *y, void *ctx)
{
    const chain_order *o = ctx;
    uint32_t ex = *(const uint32_t *)x, ey = *(const uint32_t *)y;
    uint32_t ca = hb_chain_of(o->t, o->handlers, ex);
    uint32_t cb = hb_chain_of(o->t, o->handlers, ey);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    uint32_t pa = o->t->events[ex].pos, pb = o->t->events[ey].pos;
    return pa < pb ? -1 : pa > pb;
}

/* Waits (indexes into t->waits) by node, object, then chain and position. */
static int by_node_object_chain_pos(const void *x, const void *y, void *ctx)
{
    const chain_order *o = ctx;
    uint32_t ex = o->t->waits[*(const uint32_t *)x].wait;
    uint32_t ey = o->t->waits[*(const uint32_t *)y].wait;
    str_id na = o->t->threads[o->t->events[ex].thread].node;
    str_id nb = o->t->threads[o->t->events[ey].thread].node;
    if (na != nb)
        return na < nb ? -1 : 1;
    int32_t oa = o->t->events[ex].object, ob = o->t->events[ey].object;
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return by_chain_pos(&ex, &ey, ctx);
}

/* A lock section of the model, by where it runs: its chain, its group,
 * its acquire's and release's positions.  Sections of one lock on one
 * chain do not overlap, so by acquire they are also by release. */
typedef struct placed_section {
    uint32_t chain, group, acquire, release, acquire_pos, release_pos;
} placed_section;

static int by_chain_group_pos(const void *x, const void *y)
{
    const placed_section *a = x, *b = y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return a->acquire_pos < b->acquire_pos ? -1 : a->acquire_pos > b->acquire_pos;
}

typedef struct implied_edge {
    uint64_t key;               /* before << 32 | after */
    UT_hash_handle hh;
} implied_edge;

typedef struct lock_closure {
    placed_section *s;          /* by chain, group, position */
    uint32_t *chain_start;      /* chain -> its first entry in s */
    implied_edge *added;        /* the edges added, to add each once */
    uint64_t budget;            /* edges still allowed */
} lock_closure;

/* In s[lo, hi), the sections of one group on one chain: the last whose
 * acquire is at or before pos, or -1. */
static int64_t last_acquired_by(const placed_section *s, uint32_t lo, uint32_t hi,
                                uint32_t pos)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].acquire_pos <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)lo - 1;
}

/* ... the first whose release is at or after pos, or hi. */
static uint32_t first_released_from(const placed_section *s, uint32_t lo,
                                    uint32_t hi, uint32_t pos)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].release_pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void add_implied_once(builder *b, lock_closure *c, uint32_t before,
                             uint32_t after)
{
    uint64_t key = (uint64_t)before << 32 | after;
    implied_edge *e;
    HASH_FIND(hh, c->added, &key, sizeof key, e);
    if (e || c->budget == 0)
        return;
    e = xmalloc(sizeof *e);
    e->key = key;
    HASH_ADD(hh, c->added, key, sizeof e->key, e);
    c->budget--;
    add_edge(b, ORIGIN_IMPLIED, before, after);
}

/* Edge x -> y between two chains: for each lock both use, section A of
 * x's chain acquired at or before x and section B of y's chain released
 * at or after y (the last and the first such) are in different threads
 * and A's acquire precedes B's release, so B cannot run wholly before A:
 * A's release precedes B's acquire in every solution of Φ. */
static void close_edge(builder *b, lock_closure *c, uint32_t x, uint32_t y)
{
    const trace *t = b->t;
    handler_model hm = b->m->handlers;
    uint32_t cx = hb_chain_of(t, hm, x), cy = hb_chain_of(t, hm, y);
    const placed_section *s = c->s;
    uint32_t i = c->chain_start[cx], i_end = c->chain_start[cx + 1];
    uint32_t j = c->chain_start[cy], j_end = c->chain_start[cy + 1];
    while (i < i_end && j < j_end) {
        if (s[i].group != s[j].group) {
            if (s[i].group < s[j].group)
                i++;
            else
                j++;
            continue;
        }
        uint32_t g = s[i].group, i_hi = i, j_hi = j;
        while (i_hi < i_end && s[i_hi].group == g)
            i_hi++;
        while (j_hi < j_end && s[j_hi].group == g)
            j_hi++;
        int64_t a = last_acquired_by(s, i, i_hi, t->events[x].pos);
        uint32_t bb = first_released_from(s, j, j_hi, t->events[y].pos);
        if (a >= (int64_t)i && bb < j_hi &&
            t->events[s[a].acquire].thread != t->events[s[bb].acquire].thread)
            add_implied_once(b, c, s[a].release, s[bb].acquire);
        i = i_hi;
        j = j_hi;
    }
}

/* The lock sections of the model that begin and end on one chain, by
 * chain, group and position; chain_start indexes them. */
static void place_sections(const builder *b, lock_closure *c)
{
    const trace *t = b->t;
    const hb_model *m = b->m;
    uint32_t chains = hb_chain_count(t, m->handlers), n = 0;
    c->s = xmalloc_array((size_t)m->n_lock_sections + 1, sizeof *c->s);
    for (uint32_t g = 0; g < m->n_lock_groups; g++)
        for (uint32_t k = 0; k < m->lock_groups[g].n; k++) {
            const lock_section *x = &m->lock_sections[m->lock_groups[g].first + k];
            uint32_t ca = hb_chain_of(t, m->handlers, x->acquire);
            if (ca != hb_chain_of(t, m->handlers, (uint32_t)x->release))
                continue;
            c->s[n++] = (placed_section){ca, g, x->acquire, (uint32_t)x->release,
                                         t->events[x->acquire].pos,
                                         t->events[x->release].pos};
        }
    qsort(c->s, n, sizeof *c->s, by_chain_group_pos);
    c->chain_start = xcalloc((size_t)chains + 2, sizeof *c->chain_start);
    for (uint32_t i = 0; i < n; i++)
        c->chain_start[c->s[i].chain + 1]++;
    for (uint32_t k = 0; k < chains; k++)
        c->chain_start[k + 1] += c->chain_start[k];
}

/* The model's edges from *next on between two chains of one node, those
 * added here included (the edge list is the work list), closed by
 * close_edge(): the lock order that messages, forks and the waits' edges
 * force.  *next is left at the end of the list. */
static void close_locks(builder *b, lock_closure *c, uint32_t *next)
{
    const trace *t = b->t;
    hb_model *m = b->m;
    for (; *next < m->n_edges && !((*next & 4095) == 0 && stopped(b)); ++*next) {
        uint32_t x = m->edges[*next].before, y = m->edges[*next].after;
        if (m->edge_origin[*next] == ORIGIN_PROGRAM_ORDER ||
            t->threads[t->events[x].thread].node != t->threads[t->events[y].thread].node ||
            hb_chain_of(t, m->handlers, x) == hb_chain_of(t, m->handlers, y))
            continue;
        close_edge(b, c, x, y);
    }
}

static void free_lock_closure(lock_closure *c)
{
    implied_edge *e, *tmp;
    HASH_ITER(hh, c->added, e, tmp) {
        HASH_DEL(c->added, e);
        free(e);
    }
    free(c->s);
    free(c->chain_start);
}

/* ---- waits: what precedes enough of their NOTIFYs ------------------------- */

/* A sweep of U's edges in a topological order with vector clocks over the
 * chains of one node: for an event, the last position on each of those
 * chains of an event that reaches it (or is it), -1 if none.  Paths
 * through other nodes count.  Only the current clock of each chain is
 * kept (a chain's events come in program order), and the clocks of the
 * events that slot[] names: those with an edge to another chain, which
 * the sweep reads again, and those the rule asks about. */
typedef struct wait_sweep {
    const trace *t;
    const hb_model *m;
    uint32_t n_chains;
    uint32_t *chain;            /* event -> hb_chain_of() */
    digraph in;                 /* the model's edges, by target */
    uint32_t *topo;
    uint8_t *source;            /* event -> it has an edge to another chain */
    int32_t *local;             /* chain -> its index in the node, or -1 */
    uint32_t width;             /* chains of the node */
    uint32_t *slot;             /* event -> its stored clock, or NONE */
    int32_t *pool;              /* stored clocks, width each */
    int32_t *cur;               /* chain -> its current clock */
} wait_sweep;

static uint32_t thread_of_chain(const trace *t, uint32_t chain)
{
    return chain < t->n_threads ? chain : t->handlers[chain - t->n_threads].thread;
}

/* The model's edges by target and a topological order of them; 0 when
 * they have a cycle (an inconsistent trace: nothing is added). */
static int sweep_graph(wait_sweep *w)
{
    const trace *t = w->t;
    const hb_model *m = w->m;
    uint32_t n = t->n_events;
    w->chain = xmalloc_array((size_t)n + 1, sizeof *w->chain);
    for (uint32_t e = 0; e < n; e++)
        w->chain[e] = hb_chain_of(t, m->handlers, e);
    digraph_build(&w->in, n, m->edges, m->n_edges, DIGRAPH_IN, NULL);
    w->source = xcalloc((size_t)n + 1, 1); /* read again by another chain */
    for (uint32_t e = 0; e < n; e++)
        for (uint32_t k = w->in.start[e]; k < w->in.start[e + 1]; k++)
            if (w->chain[w->in.adj[k]] != w->chain[e])
                w->source[w->in.adj[k]] = 1;
    w->topo = xmalloc_array((size_t)n + 1, sizeof *w->topo);
    return digraph_topological_order(&w->in, w->topo);
}

static void free_sweep_graph(wait_sweep *w)
{
    free(w->chain);
    digraph_free(&w->in);
    free(w->source);
    free(w->topo);
}

/* Clocks over the chains of node `node` for the events marked in slot[]
 * (any value but NONE), which get their place in pool (freed by the
 * caller, with cur).  0, and nothing allocated, when the node has too
 * many chains for the current clocks. */
enum { SWEEP_MAX_CELLS = 1 << 26 }; /* current or stored clocks: 256 MB each */

static int sweep_node(wait_sweep *w, str_id node)
{
    const trace *t = w->t;
    uint32_t n = t->n_events, stored = 0;
    w->width = 0;
    for (uint32_t c = 0; c < w->n_chains; c++)
        w->local[c] = t->threads[thread_of_chain(t, c)].node == node
                          ? (int32_t)w->width++ : -1;
    if ((uint64_t)w->n_chains * w->width > SWEEP_MAX_CELLS)
        return 0; /* many handler chains (floating model): the rule is skipped */
    for (uint32_t e = 0; e < n; e++)
        if (w->slot[e] != (uint32_t)NONE || w->source[e])
            w->slot[e] = stored++;
    if ((uint64_t)stored * w->width > SWEEP_MAX_CELLS)
        return 0; /* many sends and receives on many chains: skipped too */
    w->pool = xmalloc_array((size_t)stored * w->width + 1, sizeof *w->pool);
    w->cur = xmalloc_array((size_t)w->n_chains * w->width + 1, sizeof *w->cur);
    memset(w->cur, 0xff, sizeof *w->cur * w->n_chains * w->width);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e = w->topo[i], c = w->chain[e];
        if (!w->m->kept[e])
            continue;
        int32_t *row = w->cur + (size_t)c * w->width;
        for (uint32_t k = w->in.start[e]; k < w->in.start[e + 1]; k++) {
            uint32_t src = w->in.adj[k];
            if (w->chain[src] == c)
                continue;
            const int32_t *from = w->pool + (size_t)w->slot[src] * w->width;
            for (uint32_t j = 0; j < w->width; j++)
                if (from[j] > row[j])
                    row[j] = from[j];
        }
        if (w->local[c] >= 0)
            row[w->local[c]] = (int32_t)t->events[e].pos;
        if (w->slot[e] != (uint32_t)NONE)
            memcpy(w->pool + (size_t)w->slot[e] * w->width, row,
                   sizeof *row * w->width);
    }
    return 1;
}

static int by_descending(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a > b ? -1 : a < b;
}

enum { WAIT_RULE_MAX_CANDIDATES = 256 }; /* beyond: a sort per wait and chain */

/* The waits of one chain on one object, waits[0 .. n) in program order,
 * share their candidates (every NOTIFY/NOTIFYALL on the object of another
 * thread).  The k-th of them and the k-1 before it each follow a
 * candidate, a different one since a NOTIFY wakes at most one WAIT (k is
 * 1 when a NOTIFYALL is among them), and each of those precedes the k-th
 * wait, so none is a candidate that U places after it: at least k of the
 * k-th wait's `feasible` candidates (those it does not reach) precede it.
 * An event X that reaches (or is) at least feasible - k + 1 of them
 * therefore reaches one of those: X precedes the k-th wait in every
 * solution of Φ.  On each chain C of the node the latest such X is at the
 * (feasible - k + 1)-th largest of those candidates' clock entries for C;
 * an edge from it unless U has one already.  (Chains, not threads: in the
 * floating model a thread's handlers are unordered.)  A solver finds such
 * an order only by case splits (the pigeonhole principle), the shortcuts
 * and the scheduler not at all.  With one feasible candidate left, the
 * edge is that NOTIFY's own: a wait that U places before every other
 * NOTIFY it might follow. */
static void wait_group_edges(builder *b, wait_sweep *w, const uint32_t *waits,
                             uint32_t n)
{
    const trace *t = b->t;
    const wait_info *first = &t->waits[waits[0]];
    uint32_t all = first->n_notifies, nth = 0;
    uint32_t *feasible = xmalloc_array((size_t)all + 1, sizeof *feasible);
    int32_t *vals = xmalloc_array((size_t)all + 1, sizeof *vals);
    /* per chain of the node: the last position an edge of this group
     * already comes from (an edge to an earlier wait of the chain holds
     * for the later ones) */
    int32_t *added = xmalloc_array((size_t)w->width + 1, sizeof *added);
    for (uint32_t c = 0; c < w->width; c++)
        added[c] = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t wait = t->waits[waits[i]].wait, n_feasible = 0;
        if (!b->m->kept[wait])
            continue;
        nth++;
        const int32_t *own = w->pool + (size_t)w->slot[wait] * w->width;
        uint32_t lw = (uint32_t)w->local[w->chain[wait]];
        int any_all = 0;
        for (uint32_t j = 0; j < all; j++) {
            uint32_t nt = first->notifies[j];
            if (w->pool[(size_t)w->slot[nt] * w->width + lw] <
                (int32_t)t->events[wait].pos) {
                feasible[n_feasible++] = nt;
                any_all |= t->events[nt].kind == EV_NOTIFYALL;
            }
        }
        uint32_t k = any_all ? 1 : nth;
        if (k > n_feasible)
            break; /* more waits than NOTIFYs: Φ says so already */
        for (uint32_t c = 0; c < w->n_chains; c++) {
            int32_t lc = w->local[c];
            if (lc < 0)
                continue;
            for (uint32_t j = 0; j < n_feasible; j++)
                vals[j] = w->pool[(size_t)w->slot[feasible[j]] * w->width +
                                  (uint32_t)lc];
            qsort(vals, n_feasible, sizeof *vals, by_descending);
            int32_t at = vals[n_feasible - k];
            if (at > own[lc] && at > added[lc]) {
                uint32_t x = t->threads[thread_of_chain(t, c)].events[at];
                add_edge(b, ORIGIN_IMPLIED, x, wait);
                added[lc] = at;
            }
        }
    }
    free(added);
    free(vals);
    free(feasible);
}

/* Whether the rule can speak of the group: every candidate kept (a pruned
 * one is unknown to the model) and not too many. */
static int wait_group_usable(const builder *b, const wait_info *w)
{
    if (w->n_notifies > WAIT_RULE_MAX_CANDIDATES)
        return 0;
    for (uint32_t i = 0; i < w->n_notifies; i++)
        if (!b->m->kept[w->notifies[i]])
            return 0;
    return 1;
}

/* One round of the wait rule over every node with waits; returns whether
 * an edge was added. */
static int close_waits(builder *b, const uint32_t *order, uint32_t n_order)
{
    const trace *t = b->t;
    uint32_t before = b->m->n_edges;
    wait_sweep w = {.t = t, .m = b->m,
                    .n_chains = hb_chain_count(t, b->m->handlers)};
    if (!sweep_graph(&w)) {
        free_sweep_graph(&w);
        return 0;
    }
    w.local = xmalloc_array((size_t)w.n_chains + 1, sizeof *w.local);
    w.slot = xmalloc_array((size_t)t->n_events + 1, sizeof *w.slot);
    chain_order o = {t, b->m->handlers};
    for (uint32_t lo = 0, hi; lo < n_order && !stopped(b); lo = hi) {
        /* the groups of one node: order is by object, objects per node */
        str_id node = t->threads[t->events[t->waits[order[lo]].wait].thread].node;
        for (hi = lo; hi < n_order && t->threads[t->events[t->waits[order[hi]].wait]
                                                     .thread].node == node; hi++)
            ;
        memset(w.slot, 0xff, sizeof *w.slot * t->n_events);
        for (uint32_t i = lo; i < hi; i++) {
            const wait_info *wi = &t->waits[order[i]];
            w.slot[wi->wait] = 0;
            for (uint32_t j = 0; j < wi->n_notifies; j++)
                w.slot[wi->notifies[j]] = 0;
        }
        if (!sweep_node(&w, node))
            continue; /* nothing allocated */
        for (uint32_t g = lo, g_end; g < hi; g = g_end) {
            uint32_t x0 = t->waits[order[g]].wait;
            for (g_end = g; g_end < hi; g_end++) {
                uint32_t x = t->waits[order[g_end]].wait;
                if (t->events[x].object != t->events[x0].object ||
                    hb_chain_of(t, o.handlers, x) != hb_chain_of(t, o.handlers, x0))
                    break;
            }
            wait_group_edges(b, &w, order + g, g_end - g);
        }
        free(w.pool);
        free(w.cur);
    }
    free(w.local);
    free(w.slot);
    free_sweep_graph(&w);
    return b->m->n_edges > before;
}

/* Waits with candidates the rule can use, by node, object, chain and
 * position (a node's objects are its own). */
static uint32_t *usable_waits(const builder *b, uint32_t *n_out)
{
    const trace *t = b->t;
    uint32_t *order = xmalloc_array((size_t)t->n_waits + 1, sizeof *order), n = 0;
    for (uint32_t i = 0; i < t->n_waits; i++)
        if (t->waits[i].n_notifies && wait_group_usable(b, &t->waits[i]))
            order[n++] = i;
    chain_order o = {t, b->m->handlers};
    qsort_r(order, n, sizeof *order, by_node_object_chain_pos, &o);
    *n_out = n;
    return order;
}

/* The edges both rules give, to a fixpoint (a round of each while the
 * other added some, at most IMPLIED_ROUNDS). */
enum { IMPLIED_ROUNDS = 4 };

static void implied_edges(builder *b)
{
    hb_model *m = b->m;
    uint32_t n_waits, next = 0;
    uint32_t *waits = usable_waits(b, &n_waits);
    lock_closure c = {.budget = 4 * (uint64_t)m->n_kept + 1024};
    if (m->n_lock_groups)
        place_sections(b, &c);
    for (int round = 0; round < IMPLIED_ROUNDS && !stopped(b); round++) {
        uint32_t before = m->n_edges;
        if (n_waits)
            close_waits(b, waits, n_waits);
        if (m->n_lock_groups)
            close_locks(b, &c, &next);
        if (m->n_edges == before || (round > 0 && !n_waits))
            break;
    }
    free_lock_closure(&c);
    free(waits);
}

hb_model *hb_model_build(const trace *t, const uint8_t *keep,
                         handler_model handlers)
{
    return hb_model_build_until(t, keep, handlers, NULL);
}

hb_model *hb_model_build_until(const trace *t, const uint8_t *keep,
                               handler_model handlers,
                               const volatile sig_atomic_t *stop)
{
    hb_model *m = xcalloc(1, sizeof *m);
    m->n_events = t->n_events;
    m->handlers = handlers;
    m->kept = xmalloc(t->n_events + 1);
    for (uint32_t e = 0; e < t->n_events; e++) {
        m->kept[e] = keep ? keep[e] != 0 : 1;
        m->n_kept += m->kept[e];
    }
    m->lock_eager_max = HB_LOCK_EAGER_MAX;
    builder b = {.m = m, .t = t, .stop = stop};
    program_order(&b, handlers);
    thread_sync(&b);
    messages(&b);
    locks(&b);
    count_waits(&b);
    implied_edges(&b);
    return m;
}

/* Whether constraint events a, b survive keep (both, or neither). */
static int survives(const hb_model *m, const uint8_t *keep, uint32_t e)
{
    return m->kept[e] && keep[e];
}

/* Whether projecting m onto keep loses a constraint that program order
 * does not imply: the pruning invariant (prune.h). */
static int projection_loses(const hb_model *m, const trace *t, const uint8_t *keep)
{
    for (uint32_t i = 0; i < m->n_edges; i++) {
        const hb_edge *e = &m->edges[i];
        if (m->edge_origin[i] == ORIGIN_PROGRAM_ORDER ||
            (survives(m, keep, e->before) && survives(m, keep, e->after)))
            continue;
        /* a thread dropped whole loses its fork and join; an edge along
         * one chain (a thread's SND right before its own RCV) is program
         * order already */
        int along_chain = hb_chain_of(t, m->handlers, e->before) ==
                              hb_chain_of(t, m->handlers, e->after) &&
                          t->events[e->before].pos < t->events[e->after].pos;
        if (m->edge_origin[i] != ORIGIN_THREAD_SYNC && !along_chain)
            return 1;
    }
    for (uint32_t i = 0; i < m->n_clauses; i++) {
        const hb_clause *c = &m->clauses[i];
        for (uint32_t k = 0; k < c->n; k++) {
            const hb_lit *l = &m->lits[c->first + k];
            if (l->kind == LIT_LESS &&
                (!survives(m, keep, l->a) || !survives(m, keep, l->b)))
                return 1;
        }
    }
    /* the deferred wait/notify clauses name each constrained WAIT and
     * its candidates */
    for (uint32_t i = 0; m->waits_deferred && i < t->n_waits; i++) {
        const wait_info *w = &t->waits[i];
        if (!hb_wait_constrained(m, w))
            continue;
        if (!survives(m, keep, w->wait))
            return 1;
        for (uint32_t k = 0; k < w->n_notifies; k++)
            if (!survives(m, keep, w->notifies[k]))
                return 1;
    }
    /* every section of a group is in a clause */
    for (uint32_t i = 0; i < m->n_lock_sections; i++) {
        const lock_section *x = &m->lock_sections[i];
        if (!survives(m, keep, x->acquire) ||
            !survives(m, keep, (uint32_t)x->release))
            return 1;
    }
    return 0;
}

int hb_model_project(hb_model *m, const trace *t, const uint8_t *keep)
{
    if (projection_loses(m, t, keep))
        return -1;
    hb_model old = *m;
    m->n_kept = 0;
    m->kept = xmalloc(t->n_events + 1);
    for (uint32_t e = 0; e < t->n_events; e++) {
        m->kept[e] = old.kept[e] && keep[e];
        m->n_kept += m->kept[e];
    }
    m->edges = NULL, m->edge_origin = NULL, m->n_edges = 0;
    m->clauses = NULL, m->clause_origin = NULL, m->n_clauses = 0;
    m->lits = NULL, m->n_lits = 0;
    memset(&m->counts, 0, sizeof m->counts);
    builder b = {.m = m, .t = t};
    program_order(&b, m->handlers);
    for (uint32_t i = 0; i < old.n_edges; i++) {
        const hb_edge *e = &old.edges[i];
        if (old.edge_origin[i] != ORIGIN_PROGRAM_ORDER &&
            m->kept[e->before] && m->kept[e->after])
            add_edge(&b, (hb_origin)old.edge_origin[i], e->before, e->after);
    }
    /* every clause stays, in its order: the arrays move over as they are
     * (copying them doubled the peak memory of a model of 62 M wait/notify
     * clauses) */
    m->clauses = old.clauses, m->clause_origin = old.clause_origin;
    m->n_clauses = old.n_clauses;
    m->lits = old.lits, m->n_lits = old.n_lits;
    for (uint32_t i = 0; i < old.n_clauses; i++)
        count_origin(&m->counts, (hb_origin)old.clause_origin[i]);
    m->counts.locks += m->n_lock_clauses; /* the groups stay as they are */
    if (m->waits_deferred) /* as they were: every event they name stays */
        m->counts.wait_notify += m->n_wait_clauses;
    free(old.kept);
    free(old.edges);
    free(old.edge_origin);
    return 0;
}

void hb_model_free(hb_model *m)
{
    if (!m)
        return;
    free(m->kept);
    free(m->edges);
    free(m->edge_origin);
    free(m->clauses);
    free(m->clause_origin);
    free(m->lits);
    free(m->choices);
    free(m->lock_sections);
    free(m->lock_groups);
    free(m);
}
