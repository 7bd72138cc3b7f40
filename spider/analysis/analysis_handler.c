/*
 * analysis_handler.c — handler races (analysis_handler.h, SPEC §4).
 *
 * A handler's events include those of handlers nested in it, but when one
 * of the two handlers is nested in the other, the outer one's exclude the
 * inner one's; never an event with itself.  Per thread, handlers are
 * numbered in begin order, so that a handler and those nested in it are
 * an interval [lo, hi).  Let cell (x, y) hold the pairs of accesses whose
 * innermost handlers are x and y.
 *
 * Threads without nested handlers (the usual case): a racing pair covers
 * exactly its own cell, and racing pairs are distinct (a receive has one
 * handler at most), so no cell is covered twice.  A run of handlers
 * lo .. hi-1 racing with q covers [lo, hi) x {q}, and its handler races
 * are counted per pair of classes (variable, location, write) at once:
 * the accesses of class A in [lo, hi) times those of class B in q, from
 * running sums.  A class pair's least instance pairs the first access of
 * each (the handlers' events follow their numbers and the input order),
 * whichever way the group orients it.  O(runs x class pairs + accesses).
 *
 * Threads with nested handlers: a racing pair (h, h') covers the cells
 * [lo(h), hi(h)) x [lo(h'), hi(h')) minus, when one is nested in the
 * other, the inner one's interval on the outer one's side.  A sweep over
 * x with a segment tree counting how often each y is covered visits each
 * covered cell once, and a cell pairs the accesses of x and y class by
 * class: O(R log n + cells + class pairs) for R racing handler pairs.
 */
#include "analysis_handler.h"

#include "../../util/alloc.h"

#include <string.h>

/* Handlers lo .. hi-1 of q's thread race with q. */
typedef struct racing_run {
    uint32_t q, lo, hi;
} racing_run;

struct handler_races {
    const trace *t;
    uint32_t *th_start;              /* per thread: its handlers in order[] */
    uint32_t *order;                 /* handlers by thread, then begin */
    uint32_t *local;                 /* per handler: its number in its thread */
    uint32_t *hi;                    /* by order[] index: end of its interval */
    uint8_t *nested;                 /* per thread: a handler holds another */
    racing_run *runs;
    size_t n_runs, runs_cap;
};

static int by_begin(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = t->events[t->handlers[*(const uint32_t *)x].begin].pos;
    uint32_t b = t->events[t->handlers[*(const uint32_t *)y].begin].pos;
    return a < b ? -1 : a > b;
}

handler_races *handler_races_new(const trace *t)
{
    handler_races *hr = xcalloc(1, sizeof *hr);
    hr->t = t;
    hr->th_start = xcalloc((size_t)t->n_threads + 2, sizeof *hr->th_start);
    hr->order = xmalloc_array((size_t)t->n_handlers + 1, sizeof *hr->order);
    hr->local = xmalloc_array((size_t)t->n_handlers + 1, sizeof *hr->local);
    hr->hi = xmalloc_array((size_t)t->n_handlers + 1, sizeof *hr->hi);
    hr->nested = xcalloc((size_t)t->n_threads + 1, 1);
    for (uint32_t h = 0; h < t->n_handlers; h++)
        hr->th_start[t->handlers[h].thread + 1]++;
    for (uint32_t th = 0; th < t->n_threads; th++)
        hr->th_start[th + 1] += hr->th_start[th];
    uint32_t *fill = xmalloc_array((size_t)t->n_threads + 1, sizeof *fill);
    memcpy(fill, hr->th_start, t->n_threads * sizeof *fill);
    for (uint32_t h = 0; h < t->n_handlers; h++)
        hr->order[fill[t->handlers[h].thread]++] = h;
    free(fill);
    uint32_t *stack = xmalloc_array((size_t)t->n_handlers + 1, sizeof *stack);
    for (uint32_t th = 0; th < t->n_threads; th++) {
        uint32_t *o = hr->order + hr->th_start[th], *hi = hr->hi + hr->th_start[th];
        uint32_t n = hr->th_start[th + 1] - hr->th_start[th], depth = 0;
        qsort_r(o, n, sizeof *o, by_begin, (void *)t);
        for (uint32_t i = 0; i < n; i++) {
            hr->local[o[i]] = i;
            uint32_t begin = t->events[t->handlers[o[i]].begin].pos;
            while (depth && t->events[t->handlers[o[stack[depth - 1]]].last].pos < begin)
                hi[stack[--depth]] = i;
            stack[depth++] = i;
        }
        while (depth)
            hi[stack[--depth]] = n;
        for (uint32_t i = 0; i < n; i++)
            hr->nested[th] |= hi[i] != i + 1;
    }
    free(stack);
    return hr;
}

void handler_races_free(handler_races *hr)
{
    if (!hr)
        return;
    free(hr->th_start);
    free(hr->order);
    free(hr->local);
    free(hr->hi);
    free(hr->nested);
    free(hr->runs);
    free(hr);
}

uint32_t handler_races_local(const handler_races *hr, uint32_t h)
{
    return hr->local[h];
}

int handler_races_is_leaf(const handler_races *hr, uint32_t h)
{
    uint32_t th = hr->t->handlers[h].thread;
    return hr->hi[hr->th_start[th] + hr->local[h]] == hr->local[h] + 1;
}

void handler_races_add_run(handler_races *hr, uint32_t q, uint32_t lo,
                           uint32_t hi)
{
    ALLOC_GROW(hr->runs, hr->n_runs + 1, hr->runs_cap);
    hr->runs[hr->n_runs++] = (racing_run){q, lo, hi};
}

void handler_races_add(handler_races *hr, uint32_t h1, uint32_t h2)
{
    handler_races_add_run(hr, h2, hr->local[h1], hr->local[h1] + 1);
}

/* ---- threads with nested handlers: the covered cells, swept ------------------ */

typedef struct rect {
    uint32_t x1, x2, y1, y2;         /* [x1, x2) × [y1, y2) */
} rect;

/* The handlers of one thread, in begin order, and their accesses. */
typedef struct handler_grid {
    uint32_t n;                      /* handlers of the thread */
    const uint32_t *hi;              /* by local number: end of its interval */
    uint32_t *acc_start;             /* n + 1: accesses of cell x */
    uint32_t *acc;                   /* by cell, then variable, then id */
    rect *r;
    uint32_t n_rects, rects_cap;
    int32_t *cover;                  /* segment tree: cover counts */
    uint8_t *any;                    /* some y below the node is covered */
} handler_grid;

static void add_rect(handler_grid *g, uint32_t x1, uint32_t x2, uint32_t y1,
                     uint32_t y2)
{
    if (x1 >= x2 || y1 >= y2)
        return;
    ALLOC_GROW(g->r, g->n_rects + 2, g->rects_cap);
    g->r[g->n_rects++] = (rect){x1, x2, y1, y2};
    g->r[g->n_rects++] = (rect){y1, y2, x1, x2}; /* the pair is unordered */
}

/* The cells a racing pair of handlers (local numbers p, q) covers. */
static void cover_pair(handler_grid *g, uint32_t p, uint32_t q)
{
    uint32_t plo = p, phi = g->hi[p], qlo = q, qhi = g->hi[q];
    if (qlo > plo && qhi <= phi) {          /* q nested in p */
        add_rect(g, plo, qlo, qlo, qhi);
        add_rect(g, qhi, phi, qlo, qhi);
    } else if (plo > qlo && phi <= qhi) {   /* p nested in q */
        add_rect(g, plo, phi, qlo, plo);
        add_rect(g, plo, phi, phi, qhi);
    } else {
        add_rect(g, plo, phi, qlo, qhi);
    }
}

static void tree_add(handler_grid *g, uint32_t node, uint32_t l, uint32_t r,
                     uint32_t ql, uint32_t qr, int32_t d)
{
    if (qr <= l || r <= ql)
        return;
    if (ql <= l && r <= qr) {
        g->cover[node] += d;
    } else {
        uint32_t m = l + (r - l) / 2;
        tree_add(g, 2 * node, l, m, ql, qr, d);
        tree_add(g, 2 * node + 1, m, r, ql, qr, d);
    }
    g->any[node] = g->cover[node] > 0 ||
                   (r - l > 1 && (g->any[2 * node] || g->any[2 * node + 1]));
}

/* The end of the class (location, write) that starts at acc[i], within
 * acc[i..end). */
static uint32_t class_end(const trace *t, const uint32_t *acc, uint32_t i,
                          uint32_t end)
{
    const event *e = &t->events[acc[i]];
    uint32_t k = i + 1;
    while (k < end && trace_loc_id(t, acc[k]) == trace_loc_id(t, acc[i]) &&
           t->events[acc[k]].kind == e->kind)
        k++;
    return k;
}

/* Counts the handler races of cell (x, y): accesses paired by variable,
 * class by class (location, write) at once.  A class pair's least
 * instance pairs the first of each (events of one thread, by input order:
 * build_grid), whichever way the group orients it. */
static void pair_cell(engine_run *run, const handler_grid *g, uint32_t x,
                      uint32_t y)
{
    const trace *t = engine_trace(run);
    uint32_t i = g->acc_start[x], ie = g->acc_start[x + 1];
    uint32_t j = g->acc_start[y], je = g->acc_start[y + 1];
    while (i < ie && j < je) {
        int32_t oi = t->events[g->acc[i]].object, oj = t->events[g->acc[j]].object;
        if (oi != oj) {
            if (oi < oj)
                i++;
            else
                j++;
            continue;
        }
        uint32_t i1 = i, j1 = j;
        while (i1 < ie && t->events[g->acc[i1]].object == oi)
            i1++;
        while (j1 < je && t->events[g->acc[j1]].object == oi)
            j1++;
        for (uint32_t a = i, a_end; a < i1; a = a_end) {
            a_end = class_end(t, g->acc, a, i1);
            int a_write = t->events[g->acc[a]].kind == EV_WRITE;
            for (uint32_t b = j, b_end; b < j1; b = b_end) {
                b_end = class_end(t, g->acc, b, j1);
                if (!a_write && t->events[g->acc[b]].kind != EV_WRITE)
                    continue;
                uint32_t ev[2] = {g->acc[a], g->acc[b]};
                engine_count(run, RACE_HANDLER, ev,
                             (uint64_t)(a_end - a) * (b_end - b));
            }
        }
        i = i1;
        j = j1;
    }
}

/* Every covered cell (x, y > x) once, under the tree's node [l, r). */
static void visit_row(engine_run *run, const handler_grid *g, uint32_t x,
                      uint32_t node, uint32_t l, uint32_t r)
{
    if (!g->any[node] || r <= x + 1)
        return;
    if (g->cover[node] > 0) {
        for (uint32_t y = l > x + 1 ? l : x + 1; y < r; y++)
            if (g->acc_start[y] < g->acc_start[y + 1])
                pair_cell(run, g, x, y);
        return;
    }
    uint32_t m = l + (r - l) / 2;
    visit_row(run, g, x, 2 * node, l, m);
    visit_row(run, g, x, 2 * node + 1, m, r);
}

/* The rectangles by x1 (by_end 0) or x2, keys in [0, n]: a counting sort,
 * linear (8 M pairs of racing messages took a qsort seconds, and a SIGTERM
 * waited for it).  Scattering tens of millions of rectangles still takes
 * seconds, so the stop is checked every 2^20 of them.  Returns a new array
 * the caller frees, or NULL when the run was stopped. */
static rect *sorted_rects(engine_run *run, const rect *r, uint32_t n_rects,
                          uint32_t n, int by_end)
{
    uint32_t *start = xcalloc((size_t)n + 2, sizeof *start);
    rect *out = xmalloc_array((size_t)n_rects + 1, sizeof *out);
    for (uint32_t i = 0; i < n_rects; i++)
        start[(by_end ? r[i].x2 : r[i].x1) + 1]++;
    for (uint32_t k = 0; k <= n; k++)
        start[k + 1] += start[k];
    for (uint32_t i = 0; i < n_rects; i++) {
        if (!(i & 0xfffff) && engine_stopped(run)) {
            free(out);
            out = NULL;
            break;
        }
        out[start[by_end ? r[i].x2 : r[i].x1]++] = r[i];
    }
    free(start);
    return out;
}

/* Sweeps x over the grid; stops early when the run is stopped. */
static void sweep(engine_run *run, handler_grid *g)
{
    rect *ends = sorted_rects(run, g->r, g->n_rects, g->n, 1);
    rect *starts = ends ? sorted_rects(run, g->r, g->n_rects, g->n, 0) : NULL;
    if (!starts) {
        free(ends);
        return;
    }
    free(g->r);
    g->r = starts;
    g->cover = xcalloc(4 * (size_t)g->n + 4, sizeof *g->cover);
    g->any = xcalloc(4 * (size_t)g->n + 4, 1);
    uint32_t s = 0, e = 0;
    for (uint32_t x = 0; x < g->n && !engine_stopped(run); x++) {
        for (; e < g->n_rects && ends[e].x2 <= x; e++)
            tree_add(g, 1, 0, g->n, ends[e].y1, ends[e].y2, -1);
        for (; s < g->n_rects && g->r[s].x1 <= x; s++)
            tree_add(g, 1, 0, g->n, g->r[s].y1, g->r[s].y2, +1);
        if (g->acc_start[x] < g->acc_start[x + 1])
            visit_row(run, g, x, 1, 0, g->n);
    }
    free(ends);
}

/* Accesses of one thread by object, class (location, write), then input
 * order. */
static int by_object_class(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    const event *ea = &t->events[a], *eb = &t->events[b];
    if (ea->object != eb->object)
        return ea->object < eb->object ? -1 : 1;
    uint32_t la = trace_loc_id(t, a), lb = trace_loc_id(t, b);
    if (la != lb)
        return la < lb ? -1 : 1;
    if (ea->kind != eb->kind)
        return ea->kind < eb->kind ? -1 : 1;
    return ea->input_index < eb->input_index ? -1
         : ea->input_index > eb->input_index;
}


/* The grid of thread `tid`: its handlers' intervals and the kept accesses
 * of each, by class. */
static void build_grid(const engine_run *run, const handler_races *hr,
                       uint32_t tid, handler_grid *g)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    const thread_info *th = &t->threads[tid];
    g->n = hr->th_start[tid + 1] - hr->th_start[tid];
    g->hi = hr->hi + hr->th_start[tid];
    g->acc_start = xcalloc(g->n + 2, sizeof *g->acc_start);
    uint32_t n_acc = 0;
    for (uint32_t k = 0; k < th->n_events; k++) {
        const event *e = &t->events[th->events[k]];
        if (e->handler != NONE && m->kept[th->events[k]] && event_is_access(e)) {
            g->acc_start[hr->local[e->handler] + 2]++;
            n_acc++;
        }
    }
    for (uint32_t i = 0; i < g->n; i++)
        g->acc_start[i + 2] += g->acc_start[i + 1];
    g->acc = xmalloc_array(n_acc + 1, sizeof *g->acc);
    for (uint32_t k = 0; k < th->n_events; k++) {
        const event *e = &t->events[th->events[k]];
        if (e->handler != NONE && m->kept[th->events[k]] && event_is_access(e))
            g->acc[g->acc_start[hr->local[e->handler] + 1]++] = th->events[k];
    }
    for (uint32_t i = 0; i < g->n; i++)
        qsort_r(g->acc + g->acc_start[i], g->acc_start[i + 1] - g->acc_start[i],
                sizeof *g->acc, by_object_class, (void *)t);
}

static void free_grid(handler_grid *g)
{
    free(g->acc_start);
    free(g->acc);
    free(g->r);
    free(g->cover);
    free(g->any);
}

static uint32_t low_word(const void *k, const void *ctx)
{
    (void)ctx;
    return (uint32_t)*(const uint64_t *)k;
}

static uint32_t high_word(const void *k, const void *ctx)
{
    (void)ctx;
    return (uint32_t)(*(const uint64_t *)k >> 32);
}

/* The cells the racing pairs[0..n) (local numbers) of one thread cover.  As (p, q),
 * p < q local numbers, sorted by q then p: a run of leaf handlers p, p+1,
 * ... racing with one q covers [p1, p2) x [q, hi(q)) at once (cover_pair
 * of a leaf p < q: neither is nested in the other). */
static void cover_racing(engine_run *run, handler_grid *g,
                         const uint32_t (*pairs)[2], uint32_t n)
{
    uint64_t *key = xmalloc_array((size_t)n + 1, sizeof *key);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = pairs[k][0], q = pairs[k][1];
        key[k] = p < q ? (uint64_t)q << 32 | p : (uint64_t)p << 32 | q;
    }
    /* each sort of millions of pairs takes a noticeable part of a second:
     * the stop is checked between them */
    if (!engine_stopped(run))
        engine_counting_sort(key, n, sizeof *key, g->n, low_word, NULL);
    if (!engine_stopped(run))
        engine_counting_sort(key, n, sizeof *key, g->n, high_word, NULL);
    uint32_t tick = 0; /* the stop is checked every 4096 pairs */
    for (uint32_t k = 0; k < n && ((++tick & 4095) || !engine_stopped(run));) {
        uint32_t q = (uint32_t)(key[k] >> 32), p = (uint32_t)key[k++];
        if (g->hi[p] != p + 1) {
            cover_pair(g, p, q);
            continue;
        }
        uint32_t end = p + 1;
        while (k < n && (uint32_t)(key[k] >> 32) == q && (uint32_t)key[k] == end &&
               g->hi[end] == end + 1) {
            end++;
            k++;
        }
        add_rect(g, p, end, q, g->hi[q]);
    }
    free(key);
}


/* The handler races of thread tid's racing runs[0..n), by the sweep. */
static void sweep_thread(engine_run *run, const handler_races *hr,
                         uint32_t tid, const racing_run *runs, size_t n)
{
    size_t n_pairs = 0;
    for (size_t k = 0; k < n; k++)
        n_pairs += runs[k].hi - runs[k].lo;
    uint32_t (*pairs)[2] = xmalloc_array(n_pairs + 1, sizeof *pairs);
    uint32_t m = 0;
    for (size_t k = 0; k < n; k++)
        for (uint32_t p = runs[k].lo; p < runs[k].hi; p++) {
            pairs[m][0] = p;
            pairs[m++][1] = hr->local[runs[k].q];
        }
    handler_grid g = {0};
    build_grid(run, hr, tid, &g);
    if (!engine_stopped(run))
        cover_racing(run, &g, (const uint32_t (*)[2])pairs, m);
    sweep(run, &g);
    free_grid(&g);
    free(pairs);
}

/* ---- threads without nested handlers: runs counted at once ------------------- */

/* One class (variable, location, write) of accesses in one handler. */
typedef struct class_entry {
    uint32_t cls, local;             /* its class; the handler's number */
    uint32_t count, first;           /* accesses; the first in input order */
} class_entry;

typedef struct access_class {
    uint32_t from, to;               /* its entries, by handler */
    uint32_t var_from, var_to;       /* the classes of its variable */
    uint8_t write;
} access_class;

typedef struct thread_classes {
    class_entry *entry;              /* by class, then handler */
    uint64_t *sum;                   /* running counts: sum[i] of entry[0..i) */
    uint32_t *handler_start;         /* per handler: its entries in by_handler */
    uint32_t *by_handler;            /* entry indices by handler */
    access_class *cls;
    uint32_t n_entries, n_cls;
} thread_classes;

typedef struct access_key {
    uint32_t ev, local;
} access_key;

static int same_class(const trace *t, uint32_t a, uint32_t b)
{
    const event *x = &t->events[a], *y = &t->events[b];
    return x->object == y->object && x->kind == y->kind &&
           trace_loc_id(t, a) == trace_loc_id(t, b);
}

/* By class (by_object_class without its input order), then handler,
 * then input order. */
static int by_class_key(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    const access_key *a = x, *b = y;
    if (!same_class(t, a->ev, b->ev))
        return by_object_class(&a->ev, &b->ev, ctx);
    if (a->local != b->local)
        return a->local < b->local ? -1 : 1;
    int c = by_object_class(&a->ev, &b->ev, ctx);
    if (c)
        return c;
    return 0;
}

/* Whether thread tid's events follow the input order (not so with
 * --order=timestamp): then a handler's first access is the least. */
static int in_input_order(const trace *t, uint32_t tid)
{
    const thread_info *th = &t->threads[tid];
    for (uint32_t k = 1; k < th->n_events; k++)
        if (t->events[th->events[k]].input_index <=
            t->events[th->events[k - 1]].input_index)
            return 0;
    return 1;
}

static void build_classes(const engine_run *run, const handler_races *hr,
                          uint32_t tid, thread_classes *tc)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    const thread_info *th = &t->threads[tid];
    uint32_t n_handlers = hr->th_start[tid + 1] - hr->th_start[tid], n = 0;
    access_key *acc = xmalloc_array((size_t)th->n_events + 1, sizeof *acc);
    for (uint32_t k = 0; k < th->n_events; k++) {
        const event *e = &t->events[th->events[k]];
        if (e->handler != NONE && m->kept[th->events[k]] && event_is_access(e))
            acc[n++] = (access_key){th->events[k], hr->local[e->handler]};
    }
    qsort_r(acc, n, sizeof *acc, by_class_key, (void *)t);
    tc->entry = xmalloc_array((size_t)n + 1, sizeof *tc->entry);
    tc->cls = xmalloc_array((size_t)n + 1, sizeof *tc->cls);
    tc->n_entries = tc->n_cls = 0;
    for (uint32_t i = 0; i < n; i++) { /* classes, and entries by class */
        int new_cls = !i || !same_class(t, acc[i - 1].ev, acc[i].ev);
        if (new_cls) {
            int new_var = !i || t->events[acc[i - 1].ev].object != t->events[acc[i].ev].object;
            uint32_t var_from = new_var ? tc->n_cls : tc->cls[tc->n_cls - 1].var_from;
            tc->cls[tc->n_cls++] = (access_class){tc->n_entries, tc->n_entries,
                                                  var_from, 0,
                                                  t->events[acc[i].ev].kind == EV_WRITE};
        }
        if (new_cls || acc[i - 1].local != acc[i].local)
            tc->entry[tc->n_entries++] = (class_entry){tc->n_cls - 1, acc[i].local, 0,
                                                       acc[i].ev};
        tc->entry[tc->n_entries - 1].count++;
        tc->cls[tc->n_cls - 1].to = tc->n_entries;
    }
    for (uint32_t c = tc->n_cls; c-- > 0;) /* each class's variable's end */
        tc->cls[c].var_to = c + 1 < tc->n_cls && tc->cls[c + 1].var_from == tc->cls[c].var_from
                                ? tc->cls[c + 1].var_to : c + 1;
    free(acc);
    /* entries come by class, then handler: running counts along them */
    tc->sum = xmalloc_array((size_t)tc->n_entries + 1, sizeof *tc->sum);
    tc->sum[0] = 0;
    for (uint32_t i = 0; i < tc->n_entries; i++)
        tc->sum[i + 1] = tc->sum[i] + tc->entry[i].count;
    /* per handler: its entries (a counting sort of the indices) */
    tc->handler_start = xcalloc((size_t)n_handlers + 2, sizeof *tc->handler_start);
    for (uint32_t i = 0; i < tc->n_entries; i++)
        tc->handler_start[tc->entry[i].local + 2]++;
    for (uint32_t h = 0; h < n_handlers; h++)
        tc->handler_start[h + 2] += tc->handler_start[h + 1];
    tc->by_handler = xmalloc_array((size_t)tc->n_entries + 1, sizeof *tc->by_handler);
    for (uint32_t i = 0; i < tc->n_entries; i++)
        tc->by_handler[tc->handler_start[tc->entry[i].local + 1]++] = i;
}

static void free_classes(thread_classes *tc)
{
    free(tc->entry);
    free(tc->handler_start);
    free(tc->by_handler);
    free(tc->sum);
    free(tc->cls);
}

/* The first entry of class c at handler lo or later. */
static uint32_t first_entry(const thread_classes *tc, const access_class *c,
                            uint32_t lo)
{
    uint32_t a = c->from, b = c->to;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (tc->entry[mid].local < lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

/* The handler races of handlers lo .. hi-1 with q entry by entry: for a
 * short run whose variables have many classes (events without a location
 * are a class each), cheaper than class by class. */
static void count_entries(engine_run *run, const thread_classes *tc,
                          uint32_t lo, uint32_t hi, uint32_t q)
{
    for (uint32_t k = tc->handler_start[q]; k < tc->handler_start[q + 1]; k++) {
        const class_entry *b = &tc->entry[tc->by_handler[k]];
        const access_class *cb = &tc->cls[b->cls];
        for (uint32_t i = tc->handler_start[lo]; i < tc->handler_start[hi]; i++) {
            const class_entry *a = &tc->entry[tc->by_handler[i]];
            const access_class *ca = &tc->cls[a->cls];
            if (ca->var_from != cb->var_from || (!ca->write && !cb->write))
                continue;
            uint32_t ev[2] = {a->first, b->first};
            engine_count(run, RACE_HANDLER, ev, (uint64_t)a->count * b->count);
        }
    }
}

/* The handler races of one run: handlers lo .. hi-1 with q. */
static void count_run(engine_run *run, const thread_classes *tc,
                      uint32_t lo, uint32_t hi, uint32_t q)
{
    uint64_t by_class = 0;
    for (uint32_t k = tc->handler_start[q]; k < tc->handler_start[q + 1]; k++) {
        const access_class *cb = &tc->cls[tc->entry[tc->by_handler[k]].cls];
        by_class += cb->var_to - cb->var_from;
    }
    uint64_t by_entry = (uint64_t)(tc->handler_start[q + 1] - tc->handler_start[q]) *
                        (tc->handler_start[hi] - tc->handler_start[lo]);
    if (by_entry < by_class) {
        count_entries(run, tc, lo, hi, q);
        return;
    }
    for (uint32_t k = tc->handler_start[q]; k < tc->handler_start[q + 1]; k++) {
        const class_entry *b = &tc->entry[tc->by_handler[k]];
        const access_class *cb = &tc->cls[b->cls];
        for (uint32_t a = cb->var_from; a < cb->var_to; a++) {
            const access_class *ca = &tc->cls[a];
            if (!ca->write && !cb->write)
                continue;
            uint32_t e1 = first_entry(tc, ca, lo), e2 = first_entry(tc, ca, hi);
            if (e1 == e2)
                continue;
            uint32_t ev[2] = {tc->entry[e1].first, b->first};
            engine_count(run, RACE_HANDLER, ev,
                         (tc->sum[e2] - tc->sum[e1]) * b->count);
        }
    }
}

static void count_thread(engine_run *run, const handler_races *hr,
                         uint32_t tid, const racing_run *runs, size_t n)
{
    thread_classes tc;
    build_classes(run, hr, tid, &tc);
    for (size_t k = 0; k < n && !engine_stopped(run); k++)
        count_run(run, &tc, runs[k].lo, runs[k].hi, hr->local[runs[k].q]);
    free_classes(&tc);
}

/* ---- all threads ----------------------------------------------------------- */

static uint32_t run_thread(const void *r, const void *ctx)
{
    const trace *t = ctx;
    return t->handlers[((const racing_run *)r)->q].thread;
}

void handler_races_count(engine_run *run, handler_races *hr)
{
    const trace *t = hr->t;
    if (!hr->n_runs)
        return;
    racing_run *sorted = hr->runs; /* sorted in place, by thread */
    engine_counting_sort(sorted, hr->n_runs, sizeof *sorted, t->n_threads,
                         run_thread, t);
    for (size_t i = 0, j; i < hr->n_runs && !engine_stopped(run); i = j) {
        uint32_t tid = t->handlers[sorted[i].q].thread;
        for (j = i; j < hr->n_runs && t->handlers[sorted[j].q].thread == tid;)
            j++;
        if (!hr->nested[tid] && in_input_order(t, tid))
            count_thread(run, hr, tid, sorted + i, j - i);
        else
            sweep_thread(run, hr, tid, sorted + i, j - i);
    }
}
