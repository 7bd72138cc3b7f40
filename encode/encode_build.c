/*
 * encode_build.c — Φ built (hb_model_build()): the constraints the trace
 * states (encode.c), then the edges every solution has although no single
 * constraint states them (docs/model.md): the order of lock sections that
 * edges between them force, closed to a fixpoint, and what must precede
 * enough of a group of WAITs' NOTIFYs (the waits' pigeonhole).
 */
#include "encode_internal.h"

#include "../util/alloc.h"
#include "../util/comm.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

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

/* The sections of one group on one chain: s[lo, hi). */
typedef struct group_run {
    uint32_t group, lo, hi;
} group_run;

typedef struct lock_closure {
    placed_section *s;          /* by chain, group, position */
    group_run *runs;            /* s cut by chain and group, in s's order */
    uint32_t *chain_start;      /* chain -> its first entry in runs */
    implied_edge *added;        /* the edges added, to add each once */
    int32_t *last_to;           /* section (index into s) -> the section
                                   an edge found from it went to, the last
                                   one that no edge found before covered
                                   (follows_from_earlier()), or -1 */
    int32_t *last_from;         /* ... and the section of such an edge to it */
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

/* Whether the edge from section a to section bb (indexes into s, one
 * group) follows from an edge met before: one from a to a section of
 * bb's chain not after bb, or from a section of a's chain not before a
 * to bb; program order carries it over.  Such an edge adds no order and
 * closing it adds none either (close_edge() over its ends gives edges
 * that follow from those of the edge met before), so it is left out.
 * The edge met before may itself have been left out, as following from
 * one met before it. */
static int follows_from_earlier(lock_closure *c, uint32_t a, uint32_t bb)
{
    const placed_section *s = c->s;
    int32_t to = c->last_to[a], from = c->last_from[bb];
    int after_to = to >= 0 && s[to].chain == s[bb].chain && (uint32_t)to <= bb;
    int before_from = from >= 0 && s[from].chain == s[a].chain &&
                      (uint32_t)from >= a;
    if (!after_to)
        c->last_to[a] = (int32_t)bb;
    if (!before_from)
        c->last_from[bb] = (int32_t)a;
    return after_to || before_from;
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
    const group_run *r = c->runs;
    /* the groups both chains use, walked run by run: a chain holds many
     * sections of few locks */
    uint32_t i = c->chain_start[cx], i_end = c->chain_start[cx + 1];
    uint32_t j = c->chain_start[cy], j_end = c->chain_start[cy + 1];
    while (i < i_end && j < j_end) {
        if (r[i].group != r[j].group) {
            if (r[i].group < r[j].group)
                i++;
            else
                j++;
            continue;
        }
        int64_t a = last_acquired_by(s, r[i].lo, r[i].hi, t->events[x].pos);
        uint32_t bb = first_released_from(s, r[j].lo, r[j].hi, t->events[y].pos);
        if (a >= (int64_t)r[i].lo && bb < r[j].hi &&
            t->events[s[a].acquire].thread != t->events[s[bb].acquire].thread &&
            !follows_from_earlier(c, (uint32_t)a, bb))
            add_implied_once(b, c, s[a].release, s[bb].acquire);
        i++;
        j++;
    }
}

/* The lock sections of the model that begin and end on one chain, by
 * chain, group and position, cut into runs of one group on one chain;
 * chain_start indexes the runs. */
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
    assert(n <= INT32_MAX); /* the memos hold indexes into s, or -1 */
    c->last_to = xmalloc_array((size_t)n + 1, sizeof *c->last_to);
    c->last_from = xmalloc_array((size_t)n + 1, sizeof *c->last_from);
    memset(c->last_to, 0xff, sizeof *c->last_to * n);
    memset(c->last_from, 0xff, sizeof *c->last_from * n);
    c->runs = xmalloc_array((size_t)n + 1, sizeof *c->runs);
    c->chain_start = xcalloc((size_t)chains + 2, sizeof *c->chain_start);
    uint32_t n_runs = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || c->s[i].chain != c->s[i - 1].chain ||
            c->s[i].group != c->s[i - 1].group) {
            c->runs[n_runs++] = (group_run){c->s[i].group, i, i};
            c->chain_start[c->s[i].chain + 1]++;
        }
        c->runs[n_runs - 1].hi = i + 1;
    }
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
    free(c->last_to);
    free(c->last_from);
    free(c->runs);
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
    const hb_outside *out;      /* a split run: the other ranks' sync
                                   events, vertices past t's; or NULL */
    uint32_t n_vertices;        /* t's events, and out's */
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
 * they have a cycle (an inconsistent trace: nothing is added).  In a
 * split run the events of other nodes are the skeleton's vertices
 * (w->out->map) and the skeleton's edges come too. */
static int sweep_graph(wait_sweep *w)
{
    const trace *t = w->t;
    const hb_model *m = w->m;
    const hb_outside *o = w->out;
    uint32_t n = t->n_events, nv = w->n_vertices = n + (o ? o->n : 0);
    w->chain = xmalloc_array((size_t)nv + 1, sizeof *w->chain);
    for (uint32_t e = 0; e < n; e++)
        w->chain[e] = hb_chain_of(t, m->handlers, e);
    for (uint32_t v = n; v < nv; v++)
        w->chain[v] = o->chain[v - n];
    if (!o) {
        digraph_build(&w->in, n, m->edges, m->n_edges, DIGRAPH_IN, NULL);
    } else {
        digraph_edge *e = xmalloc_array((size_t)m->n_edges + o->n_edges + 1,
                                        sizeof *e);
        size_t k = 0;
        for (uint32_t i = 0; i < m->n_edges; i++) {
            uint32_t x = o->map[m->edges[i].before], y = o->map[m->edges[i].after];
            /* between two other nodes' events the skeleton says the order
             * (the share's program order among them is its threads', not
             * their chains' in the floating model) */
            if (x != UINT32_MAX && y != UINT32_MAX && (x < n || y < n))
                e[k++] = (digraph_edge){x, y};
        }
        memcpy(e + k, o->edges, o->n_edges * sizeof *e);
        digraph_build(&w->in, nv, e, k + o->n_edges, DIGRAPH_IN, NULL);
        free(e);
    }
    w->source = xcalloc((size_t)nv + 1, 1); /* read again by another chain */
    for (uint32_t e = 0; e < nv; e++)
        for (uint32_t k = w->in.start[e]; k < w->in.start[e + 1]; k++)
            if (w->chain[w->in.adj[k]] != w->chain[e])
                w->source[w->in.adj[k]] = 1;
    w->topo = xmalloc_array((size_t)nv + 1, sizeof *w->topo);
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
    uint32_t n = w->n_vertices, stored = 0;
    uint32_t own_chains = hb_chain_count(t, w->m->handlers);
    w->width = 0;
    for (uint32_t c = 0; c < w->n_chains; c++)
        w->local[c] = c < own_chains &&
                              t->threads[thread_of_chain(t, c)].node == node
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
        if (e < t->n_events && !w->m->kept[e])
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
static int close_waits(builder *b, const uint32_t *order, uint32_t n_order,
                       const hb_outside *out)
{
    const trace *t = b->t;
    uint32_t before = b->m->n_edges;
    wait_sweep w = {.t = t, .m = b->m, .out = out,
                    .n_chains = hb_chain_count(t, b->m->handlers) +
                                (out ? out->n_chains : 0)};
    if (!sweep_graph(&w)) {
        free_sweep_graph(&w);
        return 0;
    }
    w.local = xmalloc_array((size_t)w.n_chains + 1, sizeof *w.local);
    w.slot = xmalloc_array((size_t)w.n_vertices + 1, sizeof *w.slot);
    chain_order o = {t, b->m->handlers};
    for (uint32_t lo = 0, hi; lo < n_order && !stopped(b); lo = hi) {
        /* the groups of one node: order is by object, objects per node */
        str_id node = t->threads[t->events[t->waits[order[lo]].wait].thread].node;
        for (hi = lo; hi < n_order && t->threads[t->events[t->waits[order[hi]].wait]
                                                     .thread].node == node; hi++)
            ;
        memset(w.slot, 0xff, sizeof *w.slot * w.n_vertices);
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

/* A build over the ranks of a split run (hb_model_build_share()). */
typedef struct split_build {
    const trace_share *s;
    comm *c;
    char *err;
    size_t err_len;
} split_build;

/* *v becomes the largest over the ranks (alone: as it is).  0, or -1. */
static int agree_max(const split_build *sp, uint64_t *v)
{
    return sp ? comm_reduce_max(sp->c, v) : 0;
}

/* The other ranks' sync events as the wait rule sweeps them, into *o:
 * the skeleton exchanged now.  0, or -1 with the message. */
static int outside_now(builder *b, const split_build *sp, hb_outside *o)
{
    hb_skeleton k;
    if (hb_skeleton_exchange(sp->s, b->m, sp->c, &k, sp->err, sp->err_len) != 0)
        return -1;
    hb_skeleton_outside(&k, sp->s, b->m->handlers, comm_rank(sp->c), o);
    hb_skeleton_free(&k);
    return 0;
}

/* The edges both rules give, to a fixpoint (a round of each while the
 * other added some, at most IMPLIED_ROUNDS).  In a split run (sp) every
 * rank runs the same rounds: each round's wait rule sweeps the share
 * with the other ranks' sync events as they stand at the round's start
 * (one process sweeps the edges of the round's start too), the lock
 * rule closes the rank's own nodes (it reads edges within a node only),
 * and the ranks decide together whether to go on; the lock closure's
 * bound is the whole trace's.  0, or -1 with sp's message (the ranks
 * lost each other, or the bound ran out over the whole trace). */
enum { IMPLIED_ROUNDS = 4 };

static int implied_edges(builder *b, const split_build *sp)
{
    hb_model *m = b->m;
    uint32_t n_waits, next = 0;
    uint32_t *waits = usable_waits(b, &n_waits);
    /* 4 per kept event: a split run keeps every event of the whole trace */
    uint64_t bound = 4 * (uint64_t)(sp ? sp->s->n_events : m->n_kept) + 1024;
    lock_closure c = {.budget = bound};
    if (m->n_lock_groups)
        place_sections(b, &c);
    uint64_t any_waits = n_waits > 0;
    int rc = agree_max(sp, &any_waits);
    for (int round = 0; round < IMPLIED_ROUNDS && rc == 0; round++) {
        uint64_t halt = stopped(b);
        if ((rc = agree_max(sp, &halt)) != 0 || halt) {
            m->incomplete |= (uint8_t)halt;
            break;
        }
        uint32_t before = m->n_edges;
        if (any_waits) {
            hb_outside o = {0};
            if (sp && (rc = outside_now(b, sp, &o)) != 0)
                break;
            if (n_waits)
                close_waits(b, waits, n_waits, sp ? &o : NULL);
            hb_outside_free(&o);
        }
        if (m->n_lock_groups)
            close_locks(b, &c, &next);
        uint64_t added = m->n_edges > before;
        if ((rc = agree_max(sp, &added)) != 0 || !added ||
            (round > 0 && !any_waits))
            break;
    }
    uint64_t used = bound - c.budget;
    if (sp && rc == 0 && (rc = comm_reduce_sum(sp->c, &used)) == 0 &&
        used > bound) {
        snprintf(sp->err, sp->err_len, "the lock order implied by the "
                 "trace's edges passes its bound of %llu edges over the "
                 "whole trace: a split run cannot find the ones one process "
                 "keeps", (unsigned long long)bound);
        rc = -1;
    } else if (sp && rc != 0 && !*sp->err) {
        snprintf(sp->err, sp->err_len, "the ranks of the job lost each other "
                 "(a collective operation failed)");
    }
    free_lock_closure(&c);
    free(waits);
    return rc;
}

hb_model *hb_model_build(const trace *t, const uint8_t *keep,
                         handler_model handlers)
{
    return hb_model_build_until(t, keep, handlers, NULL);
}

/* An empty model of t's events with keep[e] != 0 (keep NULL: all). */
static hb_model *new_model(const trace *t, const uint8_t *keep,
                           handler_model handlers)
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
    return m;
}

hb_model *hb_model_build_until(const trace *t, const uint8_t *keep,
                               handler_model handlers,
                               const volatile sig_atomic_t *stop)
{
    hb_model *m = new_model(t, keep, handlers);
    builder b = {.m = m, .t = t, .stop = stop};
    build_constraints(&b);
    implied_edges(&b, NULL);
    return m;
}

hb_model *hb_model_build_share(const trace_share *s, handler_model handlers,
                               const volatile sig_atomic_t *stop, comm *c,
                               char *err, size_t err_len)
{
    const trace *t = s->t;
    hb_model *m = new_model(t, NULL, handlers);
    builder b = {.m = m, .t = t, .stop = stop};
    build_constraints(&b);
    *err = 0;
    split_build sp = {s, c, err, err_len};
    if (implied_edges(&b, &sp) != 0) {
        hb_model_free(m);
        return NULL;
    }
    return m;
}
