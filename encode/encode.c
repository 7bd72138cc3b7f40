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

#include "encode_internal.h"

void hb_counts_add(hb_counts *c, hb_origin origin, int64_t n)
{
    uint64_t *field[] = {&c->program_order, &c->thread_sync, &c->messages,
                         &c->locks, &c->wait_notify, &c->implied};
    *field[origin] += (uint64_t)n;
}

/* One more constraint of this origin in the counts. */
static void count_origin(hb_counts *c, hb_origin origin)
{
    hb_counts_add(c, origin, 1);
}

void add_edge(builder *b, hb_origin origin, uint32_t before, uint32_t after)
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

void build_constraints(builder *b)
{
    program_order(b, b->m->handlers);
    thread_sync(b);
    messages(b);
    locks(b);
    count_waits(b);
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

void hb_model_drop_edges(hb_model *m)
{
    free(m->edges);
    free(m->edge_origin);
    m->edges = NULL;
    m->edge_origin = NULL;
    m->n_edges = 0;
    m->edges_dropped = 1;
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
