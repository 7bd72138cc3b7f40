/*
 * engine_shortcut.c — exact answers without a solver (docs/model.md, "How
 * a candidate is decided").
 *
 * Two graphs over the kept events:
 *   U, the unconditional edges of Φ (program order, fork/join, messages
 *     with one possible send);
 *   R, U plus one literal of every clause, chosen as the run was observed
 *     (the lock order of a node's input, the first of several sends, the
 *     NOTIFY that came last before a WAIT).
 * If R is acyclic, every topological order of R satisfies Φ.  A query's
 * atoms are difference constraints over its events (O(a) < O(b) weighs -1,
 * <= and = weigh 0); over the few events of a query, "a reaches b" in a
 * graph is a -1 edge a → b.  Then, for a conjunction:
 *   - UNSAT when U and the atoms have a cycle through a strict edge (U is
 *     part of Φ), or when the atoms (with U) put an event of a critical
 *     section of one thread between two events of one section of the same
 *     lock in another thread (i ≤ j ≤ k with i, k inside S, j inside S':
 *     the sections cannot overlap; i = k is the old "a = b in excluded
 *     sections");
 *   - SAT when R acyclic and R with the atoms has no such cycle: a
 *     solution of R and the atoms satisfies Φ;
 *   - anything else is left to Z3 (ANSWER_UNKNOWN).
 * A disjunction is UNSAT when each atom alone is, SAT when one atom alone
 * is.  Both rules are exact with respect to the graphs: a negative cycle
 * among difference constraints passes through the query's events.
 * Reachability is computed with vector clocks restricted to one node's
 * chains (every query asks about events of one node); nodes are swept in
 * batches of up to BATCH_CHAINS chains, so that a sweep's fixed cost per
 * event is shared.  A sweep visits only the sync events (graph); an
 * hb_order sweeps the next batches ahead on a second thread while the
 * analyses count over the focused one (struct hb_order).
 */
#include "engine_shortcut.h"
#include "engine_schedule.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH_CHAINS = 128 };

/* A graph as the sweeps read it, built once and shared by every batch.
 * Only its sync events matter to a clock: those with an edge from or to
 * another chain.  Between two sync events a chain's clock stays the same,
 * since its other in-edges come from its own chain (program order), so a
 * sweep visits the sync events alone, in a topological order, and any
 * other event reads the clock of the last sync event of its chain at or
 * before it (sync_at).  In a gossip run a quarter of the events are sync
 * events, so a batch's pass costs a quarter of a pass over the trace. */
enum { NO_SYNC = UINT32_MAX };

/* An edge from another chain, with its source's chain and position at
 * hand: a sweep reads them for every edge, and reading them from the
 * source's own entry missed the cache. */
typedef struct in_edge {
    uint32_t src;        /* sync id */
    uint32_t chain, pos; /* the source's */
} in_edge;

typedef struct graph {
    uint32_t n_sync;
    uint32_t *sync_chain; /* per sync event, in topological order */
    uint32_t *in_start;  /* edges from other chains into sync event i ... */
    struct in_edge *in; /* ... in[in_start[i]..in_start[i+1]) */
    uint8_t *feeds;      /* sync event i has an edge to another chain */
    uint32_t *readers;   /* how many edges of `in` come from sync event i */
    uint32_t *sync_at;   /* dense event -> the last sync event of its chain
                            at or before it, or NO_SYNC */
    int acyclic;
} graph;

typedef struct engine {
    const trace *t;
    const hb_model *m;
    uint32_t n;          /* kept events */
    uint32_t *dense;     /* event id -> dense index (UINT32_MAX if not kept) */
    uint32_t *chain;     /* dense -> chain id */
    uint32_t *pos;       /* dense -> position in its chain */
    uint32_t n_chains;
    uint32_t *chain_node, *chain_local;
    uint32_t *node_chains; /* number of chains per node */
    uint32_t n_nodes;
    uint32_t *node_batch, *chain_batch;
    uint32_t *batch_chains; /* number of chains per batch */
    uint32_t n_batches;
    uint32_t *thread_node; /* thread -> dense node */
    graph u, r;
    unsigned threads;    /* 2: U's and R's sweeps side by side */
    int r_is_u;          /* R has U's edges: R's clocks are U's */
    int waits_unmatched; /* the WAITs cannot all be matched: Φ has no
                            run (hb_wait_matching()) */
    int32_t *held_first; /* dense access -> first index into held, or -1 */
    uint32_t *held;      /* section ids, each run ended by UINT32_MAX */
} engine;

/* ---- chains ------------------------------------------------------------------ */

static void number_nodes(engine *e)
{
    const trace *t = e->t;
    uint32_t *node_of_str = xmalloc(sizeof(uint32_t) * (t->n_strings + 1));
    for (uint32_t i = 0; i < t->n_strings; i++)
        node_of_str[i] = UINT32_MAX;
    e->thread_node = xmalloc(sizeof(uint32_t) * (t->n_threads + 1));
    for (uint32_t i = 0; i < t->n_threads; i++) {
        str_id s = t->threads[i].node;
        if (node_of_str[s] == UINT32_MAX)
            node_of_str[s] = e->n_nodes++;
        e->thread_node[i] = node_of_str[s];
    }
    free(node_of_str);
}

/* Chains: a thread (nested model), or a thread's outer context and each
 * handler (floating model); positions follow program order. */
static void build_chains(engine *e, handler_model hm)
{
    const trace *t = e->t;
    e->n_chains = hb_chain_count(t, hm);
    uint32_t *next_pos = xcalloc(e->n_chains + 1, sizeof(uint32_t));
    e->chain_node = xmalloc(sizeof(uint32_t) * (e->n_chains + 1));
    for (uint32_t i = 0; i < t->n_threads; i++)
        e->chain_node[i] = e->thread_node[i];
    for (uint32_t h = 0; t->n_threads + h < e->n_chains; h++)
        e->chain_node[t->n_threads + h] = e->thread_node[t->handlers[h].thread];
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t d = e->dense[th->events[k]];
            if (d == UINT32_MAX)
                continue;
            uint32_t c = hb_chain_of(t, hm, th->events[k]);
            e->chain[d] = c;
            e->pos[d] = next_pos[c]++;
        }
    }
    free(next_pos);
    e->node_chains = xcalloc(e->n_nodes + 1, sizeof(uint32_t));
    for (uint32_t c = 0; c < e->n_chains; c++)
        e->node_chains[e->chain_node[c]]++;
    /* batches of whole nodes, narrower (not below 64 chains) where the
     * clocks of 128-chain batches would pass SHORTCUT_MAX_CELLS.  (Wider
     * batches, up to 4096 chains, made the floating model slower: rows
     * of many kilobytes left the cache.) */
    uint32_t width = BATCH_CHAINS;
    while (width > 64 && (size_t)e->n_chains * width > SHORTCUT_MAX_CELLS)
        width /= 2;
    e->node_batch = xmalloc(sizeof(uint32_t) * (e->n_nodes + 1));
    e->batch_chains = xcalloc(e->n_nodes + 1, sizeof(uint32_t));
    for (uint32_t v = 0; v < e->n_nodes; v++) {
        uint32_t b = e->n_batches ? e->n_batches - 1 : 0;
        if (!e->n_batches ||
            e->batch_chains[b] + e->node_chains[v] > width)
            b = e->n_batches++;
        e->node_batch[v] = b;
        e->batch_chains[b] += e->node_chains[v];
    }
    uint32_t *used = xcalloc(e->n_batches + 1, sizeof(uint32_t));
    e->chain_local = xmalloc(sizeof(uint32_t) * (e->n_chains + 1));
    e->chain_batch = xmalloc(sizeof(uint32_t) * (e->n_chains + 1));
    for (uint32_t c = 0; c < e->n_chains; c++) {
        e->chain_batch[c] = e->node_batch[e->chain_node[c]];
        e->chain_local[c] = used[e->chain_batch[c]]++;
    }
    free(used);
}

/* ---- graphs ------------------------------------------------------------------ */



/* The sync events of an acyclic graph, from its in-edge lists and a
 * topological order. */
static void build_sync(const engine *e, graph *g, const digraph *in,
                       const uint32_t *topo)
{
    const uint32_t *start = in->start, *src = in->adj;
    uint32_t n = e->n;
    uint8_t *is_sync = xcalloc((size_t)n + 1, 1); /* bit 1: fed, bit 2: feeds */
    for (uint32_t d = 0; d < n; d++)
        for (uint32_t s = start[d]; s < start[d + 1]; s++)
            if (e->chain[src[s]] != e->chain[d]) {
                is_sync[d] |= 1;
                is_sync[src[s]] |= 2;
            }
    uint32_t *sync_id = xmalloc_array((size_t)n + 1, sizeof(uint32_t));
    uint32_t n_in = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = topo[i];
        sync_id[d] = is_sync[d] ? g->n_sync++ : NO_SYNC;
        if (is_sync[d] & 1)
            n_in += start[d + 1] - start[d];
    }
    g->sync_chain = xmalloc_array((size_t)g->n_sync + 1, sizeof(uint32_t));
    g->in_start = xmalloc_array((size_t)g->n_sync + 1, sizeof(uint32_t));
    g->in = xmalloc_array((size_t)n_in + 1, sizeof *g->in);
    g->feeds = xmalloc((size_t)g->n_sync + 1);
    g->readers = xcalloc((size_t)g->n_sync + 1, sizeof(uint32_t));
    g->sync_at = xmalloc_array((size_t)n + 1, sizeof(uint32_t));
    uint32_t *last = xmalloc_array((size_t)e->n_chains + 1, sizeof(uint32_t));
    uint32_t *last_pos = xmalloc_array((size_t)e->n_chains + 1, sizeof(uint32_t));
    for (uint32_t c = 0; c < e->n_chains; c++)
        last[c] = NO_SYNC;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = topo[i], ch = e->chain[d], id = sync_id[d];
        if (id != NO_SYNC) {
            g->sync_chain[id] = ch;
            g->feeds[id] = (is_sync[d] & 2) != 0;
            g->in_start[id] = k;
            for (uint32_t s = start[d]; s < start[d + 1]; s++)
                if (e->chain[src[s]] != ch) {
                    g->in[k++] = (in_edge){sync_id[src[s]], e->chain[src[s]],
                                           e->pos[src[s]]};
                    g->readers[sync_id[src[s]]]++;
                }
            /* program order lies in the graph: a chain's events come in
             * position order */
            assert(last[ch] == NO_SYNC || e->pos[d] > last_pos[ch]);
            last_pos[ch] = e->pos[d];
            last[ch] = id;
        }
        g->sync_at[d] = last[ch];
    }
    g->in_start[g->n_sync] = k;
    free(last);
    free(last_pos);
    free(sync_id);
    free(is_sync);
}

/* In-edge lists, a topological order (Kahn) and, when acyclic, the sync
 * events the sweeps visit. */
static void build_graph(engine *e, graph *g, const hb_edge *edges, uint32_t n_edges)
{
    digraph in;
    digraph_build(&in, e->n, edges, n_edges, DIGRAPH_IN, e->dense);
    uint32_t *topo = xmalloc_array((size_t)e->n + 1, sizeof(uint32_t));
    g->acyclic = digraph_topological_order(&in, topo);
    if (g->acyclic)
        build_sync(e, g, &in, topo);
    digraph_free(&in);
    free(topo);
}

static int observed_before(const engine *e, uint32_t a, uint32_t b)
{
    const trace *t = e->t;
    return e->thread_node[t->events[a].thread] ==
               e->thread_node[t->events[b].thread] && a < b;
}

/* Where the matching is too large to make (hb_wait_matching() -1): each
 * WAIT takes the latest NOTIFY before it that no WAIT took, into
 * match[wait].  0 if that leaves one without. */
static int match_greedily(const engine *e, uint32_t *match)
{
    const trace *t = e->t;
    uint8_t *used = xcalloc(t->n_events + 1, 1);
    int ok = 1;
    for (uint32_t i = 0; i < t->n_waits && ok; i++) {
        const wait_info *wi = &t->waits[i];
        if (!hb_wait_constrained(e->m, wi))
            continue;
        uint32_t w = wi->wait, best = UINT32_MAX;
        for (uint32_t k = 0; k < wi->n_notifies; k++) {
            uint32_t nt = wi->notifies[k];
            if (t->events[nt].kind != EV_NOTIFYALL && used[nt])
                continue;
            if (best == UINT32_MAX ||
                (observed_before(e, nt, w) &&
                 (!observed_before(e, best, w) || nt > best)))
                best = nt;
        }
        ok = best != UINT32_MAX;
        if (ok) {
            match[w] = best;
            used[best] = 1;
        }
    }
    free(used);
    return ok;
}

/* Picks the wait/notify booleans as observed: a matching of the WAITs to
 * NOTIFYs before them (hb_wait_matching(); a NOTIFY wakes one WAIT at
 * most), an edge from each chosen NOTIFY to its WAIT into chosen, and
 * value[] for the booleans where Φ has them made (hb_model_add_waits()).
 * Taking, WAIT by WAIT, the latest NOTIFY still free may leave a
 * later WAIT only NOTIFYs of its own thread where a matching exists: then
 * R was no witness, on traces of 10^5 events with no imperfection at all.
 * 0 if impossible; when no matching exists, e->waits_unmatched is set:
 * no choice of any run can do better. */
static int choose_bools(engine *e, uint8_t *value, hb_edge_list *chosen)
{
    const hb_model *m = e->m;
    const trace *t = e->t;
    uint32_t *match = xmalloc_array((size_t)t->n_events + 1, sizeof *match);
    size_t n_proof;
    int rc = hb_wait_matching(t, m, match, NULL, 0, &n_proof, NULL), ok = rc == 1;
    e->waits_unmatched = rc == 0;
    if (rc == -1)
        ok = match_greedily(e, match);
    for (uint32_t i = 0; ok && i < t->n_waits; i++)
        if (hb_wait_constrained(m, &t->waits[i]))
            hb_edge_list_add(chosen, match[t->waits[i].wait], t->waits[i].wait);
    for (uint32_t b = 0; ok && b < m->n_bools && m->choices[b].wait != HB_LADDER; b++)
        value[b] = match[m->choices[b].wait] == m->choices[b].notify;
    free(match);
    /* a ladder's booleans (after every WAIT's): s_i = x_i or s_(i-1), in
     * the order of its clauses x -> s */
    for (uint32_t c = 0; c < m->n_clauses && ok; c++) {
        const hb_lit *l = &m->lits[m->clauses[c].first];
        if (m->clauses[c].n == 2 && l[0].kind == LIT_NOT_BOOL &&
            l[1].kind == LIT_BOOL && m->choices[l[1].a].wait == HB_LADDER &&
            value[l[0].a])
            value[l[1].a] = 1;
    }
    return ok;
}

/* A section's place in R's lock chain. */
typedef struct chain_key {
    uint32_t key, thread, pos, index;
} chain_key;

static int by_thread_pos(const void *x, const void *y)
{
    const chain_key *a = x, *b = y;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int by_chain_key(const void *x, const void *y)
{
    const chain_key *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return by_thread_pos(x, y);
}

/* The chain's order of a group's sections s[0..n) (sorted by acquire id,
 * the observed order) into order[]: that order, except that no section
 * comes before an earlier one of its thread — program order by
 * --order=timestamp may run against the ids, and a chain against it is a
 * cycle in R (every shortcut lost).  A section's key is the largest
 * acquire id among its thread's sections up to it. */
static void chain_order(const trace *t, const lock_section *s, uint32_t n,
                        chain_key *keys, uint32_t *order)
{
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (chain_key){s[i].acquire, s[i].thread,
                              t->events[s[i].acquire].pos, i};
    qsort(keys, n, sizeof *keys, by_thread_pos);
    for (uint32_t i = 1; i < n; i++)
        if (keys[i].thread == keys[i - 1].thread && keys[i].key < keys[i - 1].key)
            keys[i].key = keys[i - 1].key;
    qsort(keys, n, sizeof *keys, by_chain_key);
    for (uint32_t i = 0; i < n; i++)
        order[i] = keys[i].index;
}

/* Whether the id order of s[0..n) keeps each thread's program order
 * (last_pos: per thread, all UINT32_MAX; left so). */
static int ids_keep_program_order(const trace *t, const lock_section *s,
                                  uint32_t n, uint32_t *last_pos)
{
    int kept = 1;
    for (uint32_t i = 0; i < n && kept; i++) {
        uint32_t pos = t->events[s[i].acquire].pos;
        kept = last_pos[s[i].thread] == UINT32_MAX ||
               last_pos[s[i].thread] < pos;
        last_pos[s[i].thread] = pos;
    }
    for (uint32_t i = 0; i < n; i++)
        last_pos[s[i].thread] = UINT32_MAX;
    return kept;
}

/* R's edges for the lock groups (encode.h).  Pairwise, R would take each
 * clause's literal in observed order: the section acquired first (a group
 * is sorted by acquire, events of one node) is released before the other
 * is acquired.  A chain of consecutive sections, each released before the
 * next is acquired, has the same closure: program order runs from each
 * section's acquire to its release.  Where it does not (the two are on
 * different chains, or consecutive sections of one thread are: the
 * floating model), the chain adds an edge Φ does not have, in observed
 * order: R stays a witness of Φ when acyclic, and only some shortcut may
 * be lost.  The chain follows chain_order() where the ids run against
 * program order. */
static int by_value(const void *x, const void *y, void *ctx)
{
    const uint32_t *value = ((const uint32_t *const *)ctx)[0];
    const lock_section *s = ((const lock_section *const *)ctx)[1];
    uint32_t a = value[s[*(const uint32_t *)x].acquire];
    uint32_t b = value[s[*(const uint32_t *)y].acquire];
    return a < b ? -1 : a > b;
}

/* The order of a group's sections s[0..n) in a run found by scheduling:
 * by the step of their acquires (the run keeps program order). */
static void value_order(const uint32_t *value, const lock_section *s,
                        uint32_t n, uint32_t *order)
{
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    const void *ctx[2] = {value, s};
    qsort_r(order, n, sizeof *order, by_value, ctx);
}

static void lock_group_edges(const engine *e, hb_edge_list *l,
                             const uint32_t *value)
{
    const hb_model *m = e->m;
    const trace *t = e->t;
    uint32_t *last_pos = xmalloc_array((size_t)t->n_threads + 1, sizeof *last_pos);
    for (uint32_t i = 0; i < t->n_threads; i++)
        last_pos[i] = UINT32_MAX;
    uint32_t *order = NULL, cap = 0;
    chain_key *keys = NULL;
    uint32_t keys_cap = 0;
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        const hb_lock_group *gr = &m->lock_groups[g];
        const lock_section *s = m->lock_sections + gr->first;
        ALLOC_GROW(order, gr->n, cap);
        if (value) {
            value_order(value, s, gr->n, order);
        } else if (ids_keep_program_order(t, s, gr->n, last_pos)) {
            for (uint32_t i = 0; i < gr->n; i++)
                order[i] = i;
        } else {
            ALLOC_GROW(keys, gr->n, keys_cap);
            chain_order(t, s, gr->n, keys, order);
        }
        for (uint32_t k = 0; k < gr->n; k++) {
            const lock_section *x = &s[order[k]];
            if (hb_chain_of(t, m->handlers, x->acquire) !=
                hb_chain_of(t, m->handlers, (uint32_t)x->release))
                hb_edge_list_add(l, x->acquire, (uint32_t)x->release);
            if (k + 1 < gr->n)
                hb_edge_list_add(l, (uint32_t)x->release,
                                 s[order[k + 1]].acquire);
        }
    }
    free(order);
    free(keys);
    free(last_pos);
}

/* U's edges into l, then one literal per clause that is not a lock's.  0
 * when some clause has no literal to choose (then R is no witness). */
static int choice_edges(engine *e, hb_edge_list *l_out)
{
    const hb_model *m = e->m;
    hb_edge_list l = *l_out;
    for (uint32_t i = 0; i < m->n_edges; i++)
        hb_edge_list_add(&l, m->edges[i].before, m->edges[i].after);
    uint8_t *value = xcalloc(m->n_bools + 1, 1);
    int ok = choose_bools(e, value, &l);
    for (uint32_t c = 0; c < m->n_clauses && ok; c++) {
        const hb_clause *cl = &m->clauses[c];
        int satisfied = 0;
        int64_t pick = -1;
        for (uint32_t k = 0; k < cl->n; k++) {
            const hb_lit *lt = &m->lits[cl->first + k];
            if ((lt->kind == LIT_BOOL && value[lt->a]) ||
                (lt->kind == LIT_NOT_BOOL && !value[lt->a]))
                satisfied = 1;
            else if (lt->kind == LIT_LESS &&
                     (pick < 0 || (observed_before(e, lt->a, lt->b) &&
                                   !observed_before(e, m->lits[pick].a,
                                                    m->lits[pick].b))))
                pick = cl->first + k;
        }
        if (satisfied)
            continue;
        if (pick < 0)
            ok = 0;
        else
            hb_edge_list_add(&l, m->lits[pick].a, m->lits[pick].b);
    }
    free(value);
    *l_out = l;
    return ok;
}

static void free_graph(graph *g);

/* R's graph g was built from l (U, the choices, then the lock chains in
 * observed order, from l->v[first]) and has a cycle: the observed order
 * is no run of Φ (a section never released in the middle of its lock's
 * order, say).  Where the scheduler (engine_schedule.c) finds a run, R
 * becomes U, the literals that run took, and the lock chains in its
 * order: a witness again, since the run orders every edge of it. */
static int reschedule(engine *e, hb_edge_list *l, uint32_t first, graph *g)
{
    scheduler *s = scheduler_new(e->t, e->m);
    uint32_t *value = xmalloc_array((size_t)e->t->n_events + 1, sizeof *value);
    int found = 0;
    if (scheduler_run(s, NULL, value)) {
        free_graph(g);
        memset(g, 0, sizeof *g);
        l->n = first;
        for (uint32_t i = 0; i < e->m->n_edges; i++)
            hb_edge_list_add(l, e->m->edges[i].before, e->m->edges[i].after);
        scheduler_choices(s, l);
        lock_group_edges(e, l, value);
        build_graph(e, g, l->v + first, l->n - first);
        assert(g->acyclic);
        found = 1;
    }
    free(value);
    scheduler_free(s);
    return found;
}

/* R's edges into l (after what it holds): U's, one literal per clause,
 * and each lock group's sections as a chain in the observed order; with
 * g, R's graph, rescheduled when the observed order is no run (a cycle, or
 * a clause with no literal to choose).  Returns whether R is a witness
 * (without g: whether every clause had a literal). */
static int resolved_edges(engine *e, hb_edge_list *l, graph *g)
{
    uint32_t first = l->n;
    int ok = choice_edges(e, l);
    lock_group_edges(e, l, NULL);
    if (!g || (ok && l->n - first == e->m->n_edges))
        return ok;
    build_graph(e, g, l->v + first, l->n - first);
    if (ok && g->acyclic)
        return 1;
    return reschedule(e, l, first, g);
}

/* R (U plus one literal per clause): its edges and graph, acyclic 0 when
 * it is no witness.  When no clause needed a literal (no two threads
 * of a node share a lock, no WAIT), R is U: its graph is not built and
 * its clocks are U's (r_is_u), so each batch is swept once, not twice;
 * R's acyclic is then U's (resolved_is_unconditional(), once U is
 * built). */
static void build_resolved(engine *e)
{
    hb_edge_list l = {0};
    int ok = resolved_edges(e, &l, &e->r);
    if (ok && l.n == e->m->n_edges)
        e->r_is_u = 1;
    else if (!ok) /* no witness, whatever cycles its graph has */
        e->r.acyclic = 0;
    free(l.v);
}

static void resolved_is_unconditional(engine *e)
{
    if (e->r_is_u)
        e->r.acyclic = e->u.acyclic;
}

/* ---- critical sections ------------------------------------------------------- */

/* For each kept access, the sections of its thread it lies in (by program
 * order; reachability is checked when used, for the floating model). */
static void find_held_sections(engine *e)
{
    const trace *t = e->t;
    int32_t *section_of = xmalloc(sizeof(int32_t) * (t->n_events + 1));
    for (uint32_t i = 0; i < t->n_events; i++)
        section_of[i] = NONE;
    for (uint32_t s = 0; s < t->n_sections; s++) {
        const lock_section *ls = &t->sections[s];
        int kept = e->dense[ls->acquire] != UINT32_MAX &&
                   (ls->release == NONE || e->dense[ls->release] != UINT32_MAX);
        if (kept)
            section_of[ls->acquire] = (int32_t)s;
    }
    e->held_first = xmalloc(sizeof(int32_t) * (e->n + 1));
    uint32_t cap = 0, n_held = 0, *open = NULL, n_open = 0, open_cap = 0;
    e->held = NULL;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        n_open = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t ev = th->events[k], d = e->dense[ev];
            if (d == UINT32_MAX)
                continue;
            e->held_first[d] = -1;
            if (section_of[ev] != NONE) {
                ALLOC_GROW(open, (size_t)n_open + 1, open_cap);
                open[n_open++] = (uint32_t)section_of[ev];
            }
            for (uint32_t o = 0; o < n_open; o++)
                if (t->sections[open[o]].release == (int32_t)ev)
                    open[o--] = open[--n_open];
            if (!event_is_access(&t->events[ev]) || !n_open)
                continue;
            if ((size_t)n_held + n_open + 1 > INT32_MAX)
                alloc_fail(((size_t)n_held + n_open + 1) * sizeof *e->held,
                           "the lock sections that hold each access (over 2^31)");
            ALLOC_GROW(e->held, (size_t)n_held + n_open + 1, cap);
            e->held_first[d] = (int32_t)n_held;
            memcpy(e->held + n_held, open, n_open * sizeof *open);
            n_held += n_open;
            e->held[n_held++] = UINT32_MAX;
        }
    }
    free(open);
    free(section_of);
}

/* ---- per-node sweeps ------------------------------------------------------- */

/* Vector clocks of one batch, restricted to its chains: the clock of d
 * gives, per chain, the last position of an event that reaches d or is d
 * (-1: none; d's own chain's entry may be older than d, readers use d's
 * position there).  Only the current clock of each chain is kept as the
 * sweep goes over the sync events (graph); a clock is stored for the sync
 * events that other chains read and for those whose chain holds an event
 * the batch's queries ask about, once per change of the chain's clock.
 * Work per batch: one step per sync event, plus a clock-sized merge per
 * edge between chains into a chain that has a clock already, and a copy
 * per clock stored.  (The floating model has many short handler chains
 * that each get one clock and pass it on: they share the stored row, and
 * copy nothing.) */
enum { NO_ROW = UINT32_MAX, EMPTY_ROW = UINT32_MAX - 1, NO_FIX = UINT32_MAX };
enum { CLOCK_NONE, CLOCK_SHARED, CLOCK_OWN };
enum { CLOCK_LANES = 8 }; /* rows are padded to a multiple (with -1), so
                             that merges run whole vectors */

/* row = the greater of row and from, cell by cell, over k cells (a
 * multiple of CLOCK_LANES); nonzero when a cell of row grew.  The merge
 * is most of a sweep's work, and GCC at -O2 leaves the plain loop scalar:
 * so whole vectors, 4 cells (SSE2, every x86-64) or 8 (AVX2, picked at
 * run time; GCC splits 8-cell vectors into single cells without it). */
typedef int (*merge_row_fn)(int32_t *row, const int32_t *from, uint32_t k);

#define MERGE_ROW_BODY(LANES)                                                \
    do {                                                                     \
        LANES grew = {0};                                                    \
        for (uint32_t c = 0; c < k; c += sizeof(LANES) / sizeof(int32_t)) { \
            LANES f, r;                                                      \
            memcpy(&f, from + c, sizeof f);                                  \
            memcpy(&r, row + c, sizeof r);                                   \
            LANES later = f > r; /* -1 where f is later */                   \
            r = (f & later) | (r & ~later);                                  \
            grew |= later;                                                   \
            memcpy(row + c, &r, sizeof r);                                   \
        }                                                                    \
        int any = 0;                                                         \
        for (size_t c = 0; c < sizeof(LANES) / sizeof(int32_t); c++)         \
            any |= grew[c] != 0;                                             \
        return any;                                                          \
    } while (0)

#if defined(__x86_64__) && defined(__GNUC__)
typedef int32_t lanes4 __attribute__((vector_size(16)));
typedef int32_t lanes8 __attribute__((vector_size(32)));

static int merge_row_sse2(int32_t *row, const int32_t *from, uint32_t k)
{
    MERGE_ROW_BODY(lanes4);
}

__attribute__((target("avx2")))
static int merge_row_avx2(int32_t *row, const int32_t *from, uint32_t k)
{
    MERGE_ROW_BODY(lanes8);
}

static merge_row_fn pick_merge_row(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? merge_row_avx2 : merge_row_sse2;
}
#else
static int merge_row_plain(int32_t *row, const int32_t *from, uint32_t k)
{
    int grew = 0;
    for (uint32_t c = 0; c < k; c++)
        if (from[c] > row[c]) {
            row[c] = from[c];
            grew = 1;
        }
    return grew;
}

static merge_row_fn pick_merge_row(void)
{
    return merge_row_plain;
}
#endif

/* The events the batch's queries ask about, each listed once. */
typedef struct needed_set {
    uint8_t *is;         /* per dense event */
    uint32_t *list, n, cap;
} needed_set;

typedef struct clocks {
    const graph *g;
    merge_row_fn merge_row;
    uint32_t k;          /* a row's cells: the batch's chains, padded */
    uint32_t batch;      /* the batch swept */
    int32_t *cur;        /* per chain (all chains): its current clock,
                            when CLOCK_OWN */
    uint8_t *cur_set;    /* per chain: CLOCK_NONE, CLOCK_SHARED, CLOCK_OWN */
    /* CLOCK_SHARED: the clock is stored row base[ch], with entry
     * fix_at[ch] raised to fix_pos[ch] (unless fix_at is NO_FIX): most
     * chains get one clock from one other chain's event and pass it on
     * unchanged, so copying it (k cells, each chain, each batch) is
     * deferred until a second clock must be merged in */
    uint32_t *base, *fix_at;
    int32_t *fix_pos;
    int32_t *rows;       /* stored clocks */
    uint32_t n_rows;
    size_t rows_cells, cur_cells; /* allocated, kept from batch to batch:
                                     a fresh allocation per batch cost more
                                     in page faults than the sweep */
    /* A row is freed for reuse once nothing can read it any more: refs
     * counts the sync events' readers still to come, the chains whose
     * clock it is (base, chain_row), and 1 for good when a needed event
     * reads it after the sweep.  So the rows alive are about the messages
     * in flight, not every message of the trace (16 M events: 2 GB of
     * rows in each batch before). */
    uint32_t *refs, refs_cap;
    uint32_t *free_rows, n_free, free_cap;
    uint32_t *sync_row;  /* sync event -> stored clock, NO_ROW, EMPTY_ROW */
    uint8_t *wanted;     /* sync event -> a needed event reads its clock */
    uint32_t empty_row;  /* a row of -1: batch chains before their first
                            sync event */
    uint32_t *chain_row; /* per chain: a stored row equal to its current
                            clock but in its own entry, or NO_ROW */
    const needed_set *needed; /* what the batch's queries ask about */
} clocks;

static void need(needed_set *s, uint32_t d)
{
    if (s->is[d])
        return;
    s->is[d] = 1;
    ALLOC_GROW(s->list, (size_t)s->n + 1, s->cap);
    s->list[s->n++] = d;
}

static void need_nothing(needed_set *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        s->is[s->list[i]] = 0;
    s->n = 0;
}

/* A new row, its cells left for the caller to fill, no reference yet. */
static int32_t *new_row(clocks *vc, uint32_t *id)
{
    if (vc->n_free) {
        *id = vc->free_rows[--vc->n_free];
        return vc->rows + (size_t)*id * vc->k;
    }
    size_t need_cells = ((size_t)vc->n_rows + 1) * vc->k;
    if (need_cells > vc->rows_cells) {
        size_t cells = 2 * vc->rows_cells;
        if (cells < (size_t)1024 * vc->k)
            cells = (size_t)1024 * vc->k;
        vc->rows = xrealloc_array(vc->rows, cells, sizeof(int32_t));
        vc->rows_cells = cells;
    }
    if (vc->n_rows >= EMPTY_ROW - 1) /* row ids must stay below the marks */
        alloc_fail(need_cells * sizeof(int32_t), "the stored vector clocks");
    ALLOC_GROW(vc->refs, (size_t)vc->n_rows + 1, vc->refs_cap);
    vc->refs[vc->n_rows] = 0;
    *id = vc->n_rows++;
    return vc->rows + (size_t)*id * vc->k;
}

static void hold_row(clocks *vc, uint32_t id, uint32_t n)
{
    vc->refs[id] += n;
}

static void release_row(clocks *vc, uint32_t id)
{
    assert(vc->refs[id] > 0);
    if (--vc->refs[id] == 0) {
        ALLOC_GROW(vc->free_rows, (size_t)vc->n_free + 1, vc->free_cap);
        vc->free_rows[vc->n_free++] = id;
    }
}

static uint32_t store_row(clocks *vc, const int32_t *row)
{
    uint32_t id;
    memcpy(new_row(vc, &id), row, vc->k * sizeof *row);
    return id;
}

/* Copies chain ch's shared clock into its own buffer. */
static void own_clock(clocks *vc, uint32_t ch)
{
    int32_t *row = vc->cur + (size_t)ch * vc->k;
    memcpy(row, vc->rows + (size_t)vc->base[ch] * vc->k, vc->k * sizeof *row);
    if (vc->fix_at[ch] != NO_FIX && vc->fix_pos[ch] > row[vc->fix_at[ch]])
        row[vc->fix_at[ch]] = vc->fix_pos[ch];
    vc->cur_set[ch] = CLOCK_OWN;
    release_row(vc, vc->base[ch]);
}

/* Takes the clock of the source of edge ie (another chain's sync event,
 * its stored row `from`) into chain ch's clock; 1 when it grew.  The row
 * may be older than the source in the source's own entry (rows are
 * shared, sweep()): that entry is the source's position. */
static int merge_clock(const engine *e, clocks *vc, const in_edge *ie,
                       uint32_t from, uint32_t ch)
{
    uint32_t k = vc->k, cp = ie->chain;
    int32_t pos = (int32_t)ie->pos;
    uint32_t at = e->chain_batch[cp] == vc->batch ? e->chain_local[cp] : NO_FIX;
    if (vc->cur_set[ch] == CLOCK_NONE) {
        vc->cur_set[ch] = CLOCK_SHARED;
        vc->base[ch] = from;
        hold_row(vc, vc->base[ch], 1);
        vc->fix_at[ch] = at;
        vc->fix_pos[ch] = pos;
        return 1;
    }
    if (vc->cur_set[ch] == CLOCK_SHARED)
        own_clock(vc, ch);
    int32_t *row = vc->cur + (size_t)ch * vc->k;
    int any = vc->merge_row(row, vc->rows + (size_t)from * vc->k, k);
    if (at != NO_FIX && pos > row[at]) {
        row[at] = pos;
        any = 1;
    }
    return any;
}

/* The stored row of chain ch's current clock (set): shared, kept, or
 * stored now. */
static uint32_t clock_row(clocks *vc, uint32_t ch)
{
    if (vc->cur_set[ch] == CLOCK_SHARED &&
        (vc->fix_at[ch] == NO_FIX ||
         vc->rows[(size_t)vc->base[ch] * vc->k + vc->fix_at[ch]] >=
             vc->fix_pos[ch]))
        return vc->base[ch]; /* the fix adds nothing */
    if (vc->cur_set[ch] == CLOCK_SHARED)
        own_clock(vc, ch);
    if (vc->chain_row[ch] == NO_ROW) {
        vc->chain_row[ch] = store_row(vc, vc->cur + (size_t)ch * vc->k);
        hold_row(vc, vc->chain_row[ch], 1);
    }
    return vc->chain_row[ch];
}

/* Marks (set 1) or unmarks (0) the sync events whose clocks the needed
 * events read. */
static void want_rows(clocks *vc, uint8_t set)
{
    const needed_set *s = vc->needed;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t at = vc->g->sync_at[s->list[i]];
        if (at != NO_SYNC)
            vc->wanted[at] = set;
    }
}

/* One pass over the sync events in topological order.  Each that other
 * chains read, or whose chain's needed events read, gets a stored row;
 * the events of a chain share one row while the chain's clock changes
 * only in its own entry (the entry of an event's own chain is then older
 * than the event: readers use the position instead, reaches()).  Edges
 * within a chain bring nothing: the chain's clock already holds the
 * earlier event's.  Once stop is set (it may be NULL) the pass ends
 * early, its clocks unfinished: the caller reads no answer from them. */
static void sweep(const engine *e, uint32_t batch, clocks *vc,
                  const volatile sig_atomic_t *stop)
{
    const graph *g = vc->g;
    uint32_t k = vc->k;
    memset(vc->cur_set, CLOCK_NONE, e->n_chains);
    for (uint32_t c = 0; c < e->n_chains; c++)
        vc->chain_row[c] = NO_ROW;
    vc->n_rows = 0;
    vc->n_free = 0;
    int32_t *empty = new_row(vc, &vc->empty_row);
    for (uint32_t c = 0; c < k; c++)
        empty[c] = -1;
    hold_row(vc, vc->empty_row, 1);
    want_rows(vc, 1);
    for (uint32_t i = 0; i < g->n_sync; i++) {
        if (!(i & 4095) && stop && *stop)
            break; /* the clocks are left unfinished: no answer is read */
        uint32_t ch = g->sync_chain[i];
        int grew = 0;
        for (uint32_t s = g->in_start[i]; s < g->in_start[i + 1]; s++) {
            const in_edge *ie = &g->in[s];
            uint32_t r = vc->sync_row[ie->src];
            if (r != EMPTY_ROW && r != NO_ROW) {
                grew |= merge_clock(e, vc, ie, r, ch);
                release_row(vc, r); /* read */
            }
        }
        if (e->chain_batch[ch] == batch && vc->cur_set[ch] == CLOCK_NONE) {
            int32_t *row = vc->cur + (size_t)ch * k;
            for (uint32_t c = 0; c < k; c++)
                row[c] = -1; /* its own entry: the position, by readers */
            vc->cur_set[ch] = CLOCK_OWN;
            grew = 1;
        }
        if (grew && vc->chain_row[ch] != NO_ROW) {
            release_row(vc, vc->chain_row[ch]);
            vc->chain_row[ch] = NO_ROW;
        }
        if (!g->feeds[i] && !vc->wanted[i]) {
            vc->sync_row[i] = NO_ROW;
        } else if (vc->cur_set[ch] == CLOCK_NONE) {
            vc->sync_row[i] = EMPTY_ROW;
        } else {
            vc->sync_row[i] = clock_row(vc, ch);
            hold_row(vc, vc->sync_row[i], g->readers[i] + vc->wanted[i]);
        }
    }
    want_rows(vc, 0);
}

/* The stored clock of dense event d, which the batch's queries ask about
 * (or EMPTY_ROW). */
static uint32_t row_at(const engine *e, const clocks *vc, uint32_t d)
{
    uint32_t at = vc->g->sync_at[d];
    assert(vc->needed->is[d]);
    if (at != NO_SYNC)
        return vc->sync_row[at];
    return e->chain_batch[e->chain[d]] == vc->batch ? vc->empty_row : EMPTY_ROW;
}

/* Does x reach y (x ≠ y) in the swept graph?  x must be in the batch and
 * y an event the batch's queries ask about.  On one chain, by position
 * (y's row is shared and its own entry may be older than y). */
static int reaches(const engine *e, const clocks *vc, uint32_t x, uint32_t y)
{
    uint32_t dx = e->dense[x], dy = e->dense[y], r = row_at(e, vc, dy);
    if (r == EMPTY_ROW || r == NO_ROW)
        return 0;
    if (e->chain[dx] == e->chain[dy])
        return e->pos[dx] <= e->pos[dy];
    return vc->rows[(size_t)r * vc->k + e->chain_local[e->chain[dx]]] >=
           (int32_t)e->pos[dx];
}

static int inside(const engine *e, const clocks *u, const lock_section *s,
                  uint32_t a)
{
    return reaches(e, u, s->acquire, a) &&
           (s->release == NONE || reaches(e, u, a, (uint32_t)s->release));
}

/* A section of a's thread holding a and k, and one of the same lock of
 * another thread holding b. */
static int excluded(const engine *e, const clocks *u, uint32_t a, uint32_t b,
                    uint32_t k)
{
    const trace *t = e->t;
    uint32_t batch = u->batch;
    if (e->chain_batch[e->chain[e->dense[a]]] != batch ||
        e->chain_batch[e->chain[e->dense[b]]] != batch ||
        e->chain_batch[e->chain[e->dense[k]]] != batch)
        return 0; /* reachability is known from the swept batch's events only */
    int32_t fa = e->held_first[e->dense[a]], fb = e->held_first[e->dense[b]];
    int32_t fk = e->held_first[e->dense[k]];
    if (fa < 0 || fb < 0 || fk < 0)
        return 0;
    for (const uint32_t *x = e->held + fa; *x != UINT32_MAX; x++) {
        const lock_section *sx = &t->sections[*x];
        if (!inside(e, u, sx, a) || (k != a && !inside(e, u, sx, k)))
            continue;
        for (const uint32_t *y = e->held + fb; *y != UINT32_MAX; y++) {
            const lock_section *sy = &t->sections[*y];
            if (sx->lock == sy->lock && sx->thread != sy->thread &&
                inside(e, u, sy, b))
                return 1;
        }
    }
    return 0;
}

/* ---- one query --------------------------------------------------------------- */

/* Shortest-path signs over a query's events: NO_PATH, 0 (a path of <= and
 * = only) or -1 (a path through a strict edge). */
enum { NO_PATH = 1 };
typedef int8_t dist[HB_QUERY_EVENTS][HB_QUERY_EVENTS];

static void relax(dist d, uint32_t i, uint32_t j, int8_t w)
{
    if (w < d[i][j])
        d[i][j] = w;
}

/* The query's events with the reachability of graph vc (U when under = 1:
 * an unknown path counts as none; R: as one) and the atoms in `use`. */
static void graph_of(const engine *e, const clocks *vc, int under,
                     const hb_query *q, uint32_t use, dist d)
{
    uint32_t batch = vc->batch, n = q->n_events;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t a = q->ev[i], b = q->ev[j];
            d[i][j] = NO_PATH;
            if (i == j || a == b)
                d[i][j] = 0;
            else if (e->chain_batch[e->chain[e->dense[a]]] != batch)
                d[i][j] = under ? NO_PATH : -1;
            else if (reaches(e, vc, a, b))
                d[i][j] = -1;
        }
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        if (!(use & (1u << k)))
            continue;
        const hb_atom *at = &q->atoms[k];
        relax(d, at->i, at->j, at->kind == ATOM_LESS ? -1 : 0);
        if (at->kind == ATOM_EQUAL)
            relax(d, at->j, at->i, 0);
    }
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                if (d[i][k] != NO_PATH && d[k][j] != NO_PATH)
                    relax(d, i, j, d[i][k] + d[k][j] < 0 ? -1 : 0);
}

static int strict_cycle(const hb_query *q, dist d)
{
    for (uint32_t i = 0; i < q->n_events; i++)
        if (d[i][i] < 0)
            return 1;
    return 0;
}

/* Some event j lies between two events i, k of one section (i <= j <= k
 * by d) while it holds a section of the same lock in another thread. */
static int sections_overlap(const engine *e, const clocks *u,
                            const hb_query *q, dist d)
{
    for (uint32_t j = 0; j < q->n_events; j++)
        for (uint32_t i = 0; i < q->n_events; i++)
            for (uint32_t k = 0; k < q->n_events; k++) {
                if (i == j || k == j || d[i][j] > 0 || d[j][k] > 0)
                    continue;
                const event *ei = &e->t->events[q->ev[i]];
                const event *ek = &e->t->events[q->ev[k]];
                if (ei->thread == ek->thread &&
                    e->t->events[q->ev[j]].thread != ei->thread &&
                    excluded(e, u, q->ev[i], q->ev[j], q->ev[k]))
                    return 1;
            }
    return 0;
}

typedef enum verdict_of_atoms { ATOMS_UNSAT_ORDER, ATOMS_UNSAT_LOCKS,
                                ATOMS_SAT, ATOMS_UNKNOWN } verdict_of_atoms;

/* The atoms in `use`, all at once. */
static verdict_of_atoms decide_atoms(const engine *e, const clocks *u,
                                     const clocks *r, const hb_query *q,
                                     uint32_t use)
{
    dist d;
    graph_of(e, u, 1, q, use, d);
    if (strict_cycle(q, d))
        return ATOMS_UNSAT_ORDER;
    if (sections_overlap(e, u, q, d))
        return ATOMS_UNSAT_LOCKS;
    if (!e->r.acyclic)
        return ATOMS_UNKNOWN;
    graph_of(e, r, 0, q, use, d);
    return strict_cycle(q, d) ? ATOMS_UNKNOWN : ATOMS_SAT;
}

/* The two shapes most queries have, without the general machinery (the
 * same answers: one atom between two events of the batch). */
static verdict_of_atoms decide_pair(const engine *e, const clocks *u,
                                    const clocks *r, const hb_query *q)
{
    uint32_t a = q->ev[q->atoms[0].i], b = q->ev[q->atoms[0].j];
    if (q->atoms[0].kind == ATOM_EQUAL) {
        if (reaches(e, u, a, b) || reaches(e, u, b, a))
            return ATOMS_UNSAT_ORDER;
        if (excluded(e, u, a, b, a))
            return ATOMS_UNSAT_LOCKS;
        return e->r.acyclic && !reaches(e, r, a, b) && !reaches(e, r, b, a)
                   ? ATOMS_SAT : ATOMS_UNKNOWN;
    }
    /* a < b: only a path b → a contradicts it (b is the home event) */
    if (a == b || reaches(e, u, b, a))
        return ATOMS_UNSAT_ORDER;
    return e->r.acyclic && !reaches(e, r, b, a) ? ATOMS_SAT : ATOMS_UNKNOWN;
}

static int is_simple_pair(const engine *e, const hb_query *q, uint32_t batch)
{
    if (q->n_events != 2 || q->n_atoms != 1 || q->atoms[0].kind == ATOM_LESS_EQ)
        return 0;
    uint32_t a = q->ev[q->atoms[0].i], b = q->ev[q->atoms[0].j];
    if (a == b && q->atoms[0].kind == ATOM_EQUAL)
        return 0; /* O(a) = O(a): the general rules know it is Φ itself */
    uint32_t later = q->atoms[0].kind == ATOM_LESS ? b : a;
    return e->chain_batch[e->chain[e->dense[later]]] == batch &&
           (q->atoms[0].kind == ATOM_LESS ||
            e->chain_batch[e->chain[e->dense[b]]] == batch);
}

/* Atomicity's two shapes over p, r, c of one node, directly: "between"
 * p < r < c (a cycle needs a path r → p, c → r or c → p; r inside p's and
 * c's section of a lock r's thread holds too is the lock rule) and
 * "outside" r < p ∨ c < r (each atom alone).  The same answers as the
 * general rules. */
static int is_triple(const engine *e, const hb_query *q, uint32_t batch)
{
    if (q->n_events != 3 || q->n_atoms != 2)
        return 0;
    static const hb_atom between[2] = {{ATOM_LESS, 0, 1}, {ATOM_LESS, 1, 2}};
    static const hb_atom outside[2] = {{ATOM_LESS, 1, 0}, {ATOM_LESS, 2, 1}};
    const hb_atom *want = q->any ? outside : between;
    for (uint32_t k = 0; k < 2; k++)
        if (q->atoms[k].kind != want[k].kind || q->atoms[k].i != want[k].i ||
            q->atoms[k].j != want[k].j)
            return 0;
    for (uint32_t i = 0; i < 3; i++)
        if (e->chain_batch[e->chain[e->dense[q->ev[i]]]] != batch)
            return 0;
    return q->ev[0] != q->ev[1] && q->ev[1] != q->ev[2] && q->ev[0] != q->ev[2];
}

static verdict_of_atoms decide_triple(const engine *e, const clocks *u,
                                      const clocks *r, const hb_query *q)
{
    uint32_t p = q->ev[0], x = q->ev[1], c = q->ev[2];
    int rc = e->r.acyclic;
    if (!q->any) {
        if (reaches(e, u, x, p) || reaches(e, u, c, x) || reaches(e, u, c, p))
            return ATOMS_UNSAT_ORDER;
        if (e->t->events[p].thread == e->t->events[c].thread &&
            e->t->events[x].thread != e->t->events[p].thread &&
            excluded(e, u, p, x, c))
            return ATOMS_UNSAT_LOCKS;
        return rc && !reaches(e, r, x, p) && !reaches(e, r, c, x) &&
                       !reaches(e, r, c, p) ? ATOMS_SAT : ATOMS_UNKNOWN;
    }
    if (rc && (!reaches(e, r, p, x) || !reaches(e, r, x, c)))
        return ATOMS_SAT;
    return reaches(e, u, p, x) && reaches(e, u, x, c) ? ATOMS_UNSAT_ORDER
                                                      : ATOMS_UNKNOWN;
}

static hb_answer decide(const engine *e, const clocks *u, const clocks *r,
                        const hb_query *q, shortcut_stats *st)
{
    verdict_of_atoms v;
    if (e->r_is_u)
        r = u;
    if (is_simple_pair(e, q, u->batch)) {
        v = decide_pair(e, u, r, q);
    } else if (is_triple(e, q, u->batch)) {
        v = decide_triple(e, u, r, q);
    } else if (!q->any) {
        v = decide_atoms(e, u, r, q, (1u << q->n_atoms) - 1);
    } else { /* SAT if one atom is; UNSAT if every atom is */
        int unsat = 1, locks = 0;
        v = ATOMS_UNKNOWN;
        for (uint32_t k = 0; k < q->n_atoms && v != ATOMS_SAT; k++) {
            verdict_of_atoms one = decide_atoms(e, u, r, q, 1u << k);
            if (one == ATOMS_SAT)
                v = ATOMS_SAT;
            unsat &= one == ATOMS_UNSAT_ORDER || one == ATOMS_UNSAT_LOCKS;
            locks |= one == ATOMS_UNSAT_LOCKS;
        }
        if (v != ATOMS_SAT && unsat)
            v = locks ? ATOMS_UNSAT_LOCKS : ATOMS_UNSAT_ORDER;
    }
    switch (v) {
    case ATOMS_UNSAT_ORDER:
        st->unsat_ordered++;
        return ANSWER_UNSAT;
    case ATOMS_UNSAT_LOCKS:
        st->unsat_locks++;
        return ANSWER_UNSAT;
    case ATOMS_SAT:
        st->sat_witness++;
        return ANSWER_SAT;
    default:
        st->undecided++;
        return ANSWER_UNKNOWN;
    }
}

/* The batch of the node a query is about: its last event's. */
static uint32_t home_batch(const engine *e, const hb_query *q)
{
    uint32_t ev = q->ev[q->n_events - 1];
    return e->node_batch[e->thread_node[e->t->events[ev].thread]];
}

/* Marks what the queries of one batch ask about: every event of each
 * query, and the sections that hold its accesses (lock exclusion). */
static void mark_needed(const engine *e, const query_list *ql, const uint32_t *order,
                        uint32_t from, uint32_t to, needed_set *needed)
{
    const trace *t = e->t;
    for (uint32_t i = from; i < to; i++) {
        if (!((i - from) & 0xffff))
            run_progress_step(ql->progress, "finding what queries need", i - from,
                             to - from);
        hb_query x = ql->get(ql->ctx, order[i]);
        for (uint32_t j = 0; j < x.n_events; j++) {
            uint32_t d = e->dense[x.ev[j]];
            need(needed, d);
            if (e->held_first[d] < 0)
                continue;
            for (const uint32_t *h = e->held + e->held_first[d]; *h != UINT32_MAX; h++) {
                need(needed, e->dense[t->sections[*h].acquire]);
                if (t->sections[*h].release != NONE)
                    need(needed, e->dense[t->sections[*h].release]);
            }
        }
    }
}

static void needed_init(needed_set *s, const engine *e)
{
    memset(s, 0, sizeof *s);
    s->is = xcalloc((size_t)e->n + 1, 1);
}

static void needed_free(needed_set *s)
{
    free(s->is);
    free(s->list);
}

/* Clocks of graph g (acyclic, or never swept). */
static void clocks_init(clocks *c, const engine *e, const graph *g,
                        const needed_set *needed)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->merge_row = pick_merge_row();
    c->needed = needed;
    c->sync_row = xmalloc_array((size_t)g->n_sync + 1, sizeof(uint32_t));
    c->wanted = xcalloc((size_t)g->n_sync + 1, 1);
    c->cur_set = xmalloc(e->n_chains + 1);
    c->chain_row = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->base = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->fix_at = xmalloc_array(e->n_chains + 1, sizeof(uint32_t));
    c->fix_pos = xmalloc_array(e->n_chains + 1, sizeof(int32_t));
}

static void clocks_free(clocks *c)
{
    free(c->sync_row);
    free(c->wanted);
    free(c->cur_set);
    free(c->chain_row);
    free(c->base);
    free(c->fix_at);
    free(c->fix_pos);
    free(c->cur);
    free(c->rows);
    free(c->refs);
    free(c->free_rows);
}

/* Whether a batch's clocks fit in SHORTCUT_MAX_CELLS (else Z3 decides its
 * queries). */
static int fits(const engine *e, uint32_t batch)
{
    return (size_t)e->n_chains * e->batch_chains[batch] <= SHORTCUT_MAX_CELLS;
}

/* One sweep on a thread of its own: the two read the engine, the graphs
 * and the needed set, and each writes only its own clocks. */
typedef struct sweep_job {
    const engine *e;
    uint32_t batch;
    clocks *vc;
    const volatile sig_atomic_t *stop;
} sweep_job;

static void *sweep_worker(void *arg)
{
    const sweep_job *job = arg;
    sweep(job->e, job->batch, job->vc, job->stop);
    return NULL;
}

/* Sweeps U into u and, when it is a witness other than U, R into r for
 * one batch (its needed events marked), the two side by side on two
 * threads when asked; the batch's clocks are n_chains x k cells.  A
 * stop leaves them unfinished (sweep()). */
static void sweep_batch(const engine *e, uint32_t batch, clocks *u, clocks *r,
                        int side_by_side, const volatile sig_atomic_t *stop)
{
    uint32_t k = (e->batch_chains[batch] + CLOCK_LANES - 1) & ~(uint32_t)(CLOCK_LANES - 1);
    size_t cells = (size_t)e->n_chains * k;
    clocks *both[2] = {u, r};
    int with_r = e->r.acyclic && !e->r_is_u; /* R is a witness, not U */
    for (int i = 0; i < 1 + with_r; i++) {
        clocks *c = both[i];
        c->k = k;
        c->batch = batch;
        if (cells + 1 > c->cur_cells) {
            c->cur = xrealloc_array(c->cur, cells + 1, sizeof(int32_t));
            c->cur_cells = cells + 1;
        }
        c->n_rows = 0; /* rows are k wide: the cells are reused */
    }
    if (!with_r) {
        sweep(e, batch, u, stop);
        return;
    }
    sweep_job job = {e, batch, r, stop};
    pthread_t other;
    if (side_by_side && pthread_create(&other, NULL, sweep_worker, &job) == 0) {
        sweep(e, batch, u, stop);
        pthread_join(other, NULL);
        return;
    }
    sweep(e, batch, u, stop); /* one thread, or none could be made: in turn */
    sweep(e, batch, r, stop);
}

/* Decides ql batch by batch with clocks u and r (of e's graphs) and the
 * set needed (empty, and left empty). */
static void decide_by_batch(const engine *e, const query_list *ql,
                            hb_answer *answers, shortcut_stats *st,
                            clocks *u, clocks *r, needed_set *needed)
{
    size_t n = ql->n;
    uint32_t *start = xcalloc(e->n_batches + 2, sizeof(uint32_t));
    uint32_t *order = xmalloc_array(n + 1, sizeof(uint32_t));
    uint32_t *home = xmalloc_array(n + 1, sizeof(uint32_t));
    int stopped = 0; /* checked every 2^16 queries: one batch may hold
                        hundreds of millions (a node's data races) */
    for (size_t i = 0; i < n; i++)
        answers[i] = ANSWER_UNKNOWN; /* until its batch is swept */
    for (size_t i = 0; i < n && !stopped; i++) {
        stopped = !(i & 0xffff) && ql->stop && *ql->stop;
        if (!(i & 0xffff))
            run_progress_step(ql->progress, "placing queries by node", i, n);
        hb_query q = ql->get(ql->ctx, i);
        home[i] = home_batch(e, &q);
        start[home[i] + 2]++;
    }
    if (stopped)
        n = 0; /* all stay undecided */
    for (uint32_t v = 0; v < e->n_batches; v++)
        start[v + 2] += start[v + 1];
    for (size_t i = 0; i < n; i++) {
        if (!(i & 0xffff))
            run_progress_step(ql->progress, "ordering queries by node", i, n);
        order[start[home[i] + 1]++] = (uint32_t)i;
    }
    free(home);
    stopped |= ql->stop && *ql->stop;
    for (uint32_t v = 0; v < e->n_batches && !stopped; v++) {
        if (start[v] == start[v + 1])
            continue;
        if (!fits(e, v)) { /* too many chains: Z3 decides */
            for (uint32_t i = start[v]; i < start[v + 1]; i++)
                answers[order[i]] = ANSWER_UNKNOWN;
            st->undecided += start[v + 1] - start[v];
            st->nodes_skipped++;
            continue;
        }
        mark_needed(e, ql, order, start[v], start[v + 1], needed);
        run_progress_step(ql->progress, "exact shortcuts", start[v], n);
        sweep_batch(e, v, u, r, e->threads >= 2, ql->stop);
        stopped |= ql->stop && *ql->stop; /* a stopped sweep is unfinished */
        for (uint32_t i = start[v]; i < start[v + 1] && !stopped; i++) {
            hb_query q = ql->get(ql->ctx, order[i]);
            answers[order[i]] = decide(e, u, r, &q, st);
            if (!((i + 1) & 0xffff)) {
                stopped = ql->stop && *ql->stop;
                run_progress_step(ql->progress, "exact shortcuts", i + 1, n);
            }
        }
        need_nothing(needed);
        stopped |= ql->stop && *ql->stop;
    }
    free(start);
    free(order);
}

static void free_graph(graph *g)
{
    free(g->sync_chain);
    free(g->in_start);
    free(g->in);
    free(g->feeds);
    free(g->readers);
    free(g->sync_at);
}

/* The chains of t's kept events (U: build_unconditional). */
static void setup(engine *e, const trace *t, const hb_model *m)
{
    memset(e, 0, sizeof *e);
    e->t = t;
    e->m = m;
    e->dense = xmalloc(sizeof(uint32_t) * (t->n_events + 1));
    for (uint32_t i = 0; i < t->n_events; i++)
        e->dense[i] = m->kept[i] ? e->n++ : UINT32_MAX;
    e->chain = xmalloc(sizeof(uint32_t) * (e->n + 1));
    e->pos = xmalloc(sizeof(uint32_t) * (e->n + 1));
    number_nodes(e);
    build_chains(e, m->handlers);
}

static void build_unconditional(engine *e)
{
    build_graph(e, &e->u, e->m->edges, e->m->n_edges);
}

/* Frees what setup() made, and R and the held sections when they were
 * built (setup() zeroes them). */
static void teardown(engine *e)
{
    free_graph(&e->u);
    free_graph(&e->r);
    free(e->held_first);
    free(e->held);
    free(e->dense);
    free(e->chain);
    free(e->pos);
    free(e->thread_node);
    free(e->chain_node);
    free(e->chain_local);
    free(e->node_chains);
    free(e->node_batch);
    free(e->chain_batch);
    free(e->batch_chains);
}

int shortcut_resolved_edges(const trace *t, const hb_model *m,
                            hb_edge_list *out)
{
    engine e;
    setup(&e, t, m);
    uint32_t first = out->n;
    int ok = resolved_edges(&e, out, &e.r);
    if (ok && out->n - first == m->n_edges) /* R is U: no graph made */
        build_graph(&e, &e.r, out->v + first, out->n - first);
    ok = ok && e.r.acyclic; /* the same test of a cycle as the shortcuts' */
    teardown(&e);
    return ok;
}

int shortcut_decide(const trace *t, const hb_model *m, const query_list *q,
                    hb_answer *answers, shortcut_stats *st)
{
    engine e;
    setup(&e, t, m);
    build_unconditional(&e);
    int consistent = -1; /* unknown */
    if (!e.u.acyclic) {
        consistent = 0;  /* unconditional edges alone form a cycle */
    } else {
        build_resolved(&e);
        resolved_is_unconditional(&e);
        if (e.r.acyclic)
            consistent = 1;
        if (e.waits_unmatched) {
            teardown(&e);
            return 0;
        }
        find_held_sections(&e);
        needed_set needed;
        needed_init(&needed, &e);
        clocks u, r;
        clocks_init(&u, &e, &e.u, &needed);
        clocks_init(&r, &e, &e.r, &needed);
        decide_by_batch(&e, q, answers, st, &u, &r, &needed);
        clocks_free(&u);
        clocks_free(&r);
        needed_free(&needed);
    }
    teardown(&e);
    return consistent;
}

/* ---- deciding while generating ------------------------------------------- */

/* One batch's clocks of U and R, and what its queries ask about. */
typedef struct batch_clocks {
    needed_set needed;
    clocks u, r;
} batch_clocks;

/* Sweeping ahead.  While the analyses read one batch's clocks (now),
 * the next batches are swept into the other slots, by a worker thread
 * and by the analyses' own thread whenever it would otherwise wait: so
 * both cores sweep, and count, all the time.  Batches are claimed in
 * order, at most SLOTS - 1 ahead of the one focused. */
enum { SLOTS = 3 };
enum { SLOT_FREE, SLOT_SWEEPING, SLOT_READY, SLOT_FOCUSED };

struct hb_order {
    engine e;
    batch_clocks slot[SLOTS];
    batch_clocks *now;   /* the focused batch's */
    uint32_t *batch_start; /* what each batch's queries may ask about: */
    uint32_t *batch_events; /* batch_events[batch_start[b]..batch_start[b+1]) */
    uint32_t focused;    /* the batch swept, or UINT32_MAX */
    /* under mu: */
    pthread_mutex_t mu;
    pthread_cond_t changed;   /* a slot became ready or free, or quit */
    uint8_t state[SLOTS];     /* SLOT_* */
    uint32_t holds[SLOTS];    /* the batch a slot holds or sweeps */
    uint32_t target;          /* the batch focused or waited for */
    uint32_t next_claim;      /* the next batch to sweep ahead */
    int quit;
    int worker_made, worker_failed;
    pthread_t worker;
};

static void list_batch_events(hb_order *o);

static void *unconditional_worker(void *e)
{
    build_unconditional(e);
    return NULL;
}

hb_order *hb_order_new(const trace *t, const hb_model *m, unsigned threads)
{
    hb_order *o = xcalloc(1, sizeof *o);
    setup(&o->e, t, m);
    o->e.threads = threads;
    /* U on a thread of its own while R is made here: the two graphs do
     * not depend on each other */
    pthread_t other;
    int side_by_side = threads >= 2 &&
        pthread_create(&other, NULL, unconditional_worker, &o->e) == 0;
    if (!side_by_side)
        build_unconditional(&o->e);
    build_resolved(&o->e);
    find_held_sections(&o->e);
    if (side_by_side)
        pthread_join(other, NULL);
    resolved_is_unconditional(&o->e);
    if (!o->e.u.acyclic || o->e.waits_unmatched) {
        hb_order_free(o);
        return NULL;
    }
    for (int i = 0; i < SLOTS; i++) {
        batch_clocks *s = &o->slot[i];
        needed_init(&s->needed, &o->e);
        clocks_init(&s->u, &o->e, &o->e.u, &s->needed);
        clocks_init(&s->r, &o->e, &o->e.r, &s->needed);
    }
    o->now = &o->slot[0];
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->changed, NULL);
    list_batch_events(o);
    o->focused = UINT32_MAX;
    return o;
}

const trace *hb_order_trace(const hb_order *o)
{
    return o->e.t;
}

uint32_t hb_order_n_batches(const hb_order *o)
{
    return o->e.n_batches;
}

uint32_t hb_order_batch(const hb_order *o, uint32_t thread)
{
    return o->e.node_batch[o->e.thread_node[thread]];
}

/* Calls f(o, batch, dense event) for what a batch's queries may ask
 * about: its accesses, the ends of its lock sections (lock exclusion),
 * and the sends its receives match (message races). */
static void each_batch_event(hb_order *o,
                             void (*f)(hb_order *, uint32_t, uint32_t))
{
    const engine *e = &o->e;
    const trace *t = e->t;
    for (uint32_t ev = 0; ev < t->n_events; ev++)
        if (e->dense[ev] != UINT32_MAX && event_is_access(&t->events[ev]))
            f(o, hb_order_batch(o, t->events[ev].thread), e->dense[ev]);
    for (uint32_t i = 0; i < t->n_matches; i++) {
        const rcv_match *mt = &t->matches[i];
        if (mt->n_sends && e->dense[mt->sends[0]] != UINT32_MAX)
            f(o, hb_order_batch(o, t->events[mt->rcv].thread),
              e->dense[mt->sends[0]]);
    }
    for (uint32_t s = 0; s < t->n_sections; s++) {
        const lock_section *ls = &t->sections[s];
        uint32_t b = hb_order_batch(o, ls->thread);
        if (e->dense[ls->acquire] != UINT32_MAX)
            f(o, b, e->dense[ls->acquire]);
        if (ls->release != NONE && e->dense[ls->release] != UINT32_MAX)
            f(o, b, e->dense[ls->release]);
    }
}

static void count_batch_event(hb_order *o, uint32_t batch, uint32_t d)
{
    (void)d;
    o->batch_start[batch + 2]++;
}

static void put_batch_event(hb_order *o, uint32_t batch, uint32_t d)
{
    o->batch_events[o->batch_start[batch + 1]++] = d;
}

/* Lists each batch's events once, so that focusing on a batch costs its
 * own events, not a pass over the trace. */
static void list_batch_events(hb_order *o)
{
    uint32_t nb = o->e.n_batches;
    o->batch_start = xcalloc((size_t)nb + 2, sizeof(uint32_t));
    each_batch_event(o, count_batch_event);
    for (uint32_t b = 0; b < nb; b++)
        o->batch_start[b + 2] += o->batch_start[b + 1];
    o->batch_events = xmalloc_array((size_t)o->batch_start[nb + 1] + 1,
                                    sizeof(uint32_t));
    each_batch_event(o, put_batch_event);
}

static void mark_batch(const hb_order *o, batch_clocks *s, uint32_t batch)
{
    need_nothing(&s->needed);
    for (uint32_t i = o->batch_start[batch]; i < o->batch_start[batch + 1]; i++)
        need(&s->needed, o->batch_events[i]);
}

/* The slot holding batch b (swept, if ready), or -1.  Under mu. */
static int slot_of(const hb_order *o, uint32_t b, int ready)
{
    for (int i = SLOTS; i-- > 0;)
        if (o->holds[i] == b && (ready ? o->state[i] == SLOT_READY
                                       : o->state[i] != SLOT_FREE))
            return i;
    return -1;
}

/* A free slot for the next batch to sweep ahead (next_claim, from the
 * target to SLOTS - 1 beyond it), claimed; -1 when there is none.  Under
 * mu. */
static int claim(hb_order *o, uint32_t *batch)
{
    const engine *e = &o->e;
    if (o->next_claim < o->target) /* after a focus out of order */
        o->next_claim = o->target;
    for (;;) {
        uint32_t b = o->next_claim;
        if (b >= e->n_batches || b >= o->target + SLOTS)
            return -1;
        int free_slot = -1;
        for (int i = SLOTS; i-- > 0;)
            if (o->state[i] == SLOT_FREE)
                free_slot = i;
        if (slot_of(o, b, 0) >= 0 || !fits(e, b)) {
            o->next_claim++; /* swept already, or never (too wide) */
            continue;
        }
        if (free_slot < 0)
            return -1;
        o->state[free_slot] = SLOT_SWEEPING;
        o->holds[free_slot] = b;
        o->next_claim++;
        *batch = b;
        return free_slot;
    }
}

/* Sweeps the claimed slot i (mu held on entry and on return). */
static void sweep_claimed(hb_order *o, int i, uint32_t batch)
{
    batch_clocks *s = &o->slot[i];
    pthread_mutex_unlock(&o->mu);
    mark_batch(o, s, batch);
    sweep_batch(&o->e, batch, &s->u, &s->r, 0, NULL); /* both cores are busy */
    pthread_mutex_lock(&o->mu);
    o->state[i] = SLOT_READY;
    pthread_cond_broadcast(&o->changed);
}

static void *sweep_ahead(void *arg)
{
    hb_order *o = arg;
    pthread_mutex_lock(&o->mu);
    while (!o->quit) {
        uint32_t b;
        int i = claim(o, &b);
        if (i >= 0)
            sweep_claimed(o, i, b);
        else
            pthread_cond_wait(&o->changed, &o->mu);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Frees the slots of batches that will not be focused soon: outside
 * [target, target + SLOTS), or the one focused before.  Under mu. */
static void free_stale_slots(hb_order *o)
{
    for (int i = 0; i < SLOTS; i++)
        if ((o->state[i] == SLOT_READY &&
             (o->holds[i] < o->target || o->holds[i] >= o->target + SLOTS)) ||
            o->state[i] == SLOT_FOCUSED) {
            o->state[i] = SLOT_FREE;
            pthread_cond_broadcast(&o->changed);
        }
}

int hb_order_focus(hb_order *o, uint32_t batch)
{
    engine *e = &o->e;
    if (!fits(e, batch))
        return 0;
    if (o->focused == batch)
        return 1;
    pthread_mutex_lock(&o->mu);
    if (!o->worker_made && !o->worker_failed && e->threads >= 2) {
        o->worker_made = pthread_create(&o->worker, NULL, sweep_ahead, o) == 0;
        o->worker_failed = !o->worker_made; /* this thread sweeps them all */
    }
    o->target = batch;
    free_stale_slots(o);
    if (slot_of(o, batch, 0) < 0)
        o->next_claim = batch; /* out of order: claim it next */
    int mine;
    while ((mine = slot_of(o, batch, 1)) < 0) {
        uint32_t b;
        int i = claim(o, &b); /* rather than wait, sweep one ahead */
        if (i >= 0) {
            sweep_claimed(o, i, b);
            continue;
        }
        pthread_cond_wait(&o->changed, &o->mu);
        free_stale_slots(o);
    }
    o->state[mine] = SLOT_FOCUSED;
    o->now = &o->slot[mine];
    o->focused = batch;
    pthread_cond_broadcast(&o->changed); /* the worker may claim further */
    pthread_mutex_unlock(&o->mu);
    return 1;
}

/* Stops the worker (after its sweep in progress) and frees every slot. */
static void stop_sweeping_ahead(hb_order *o)
{
    pthread_mutex_lock(&o->mu);
    o->quit = 1;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->mu);
    if (o->worker_made)
        pthread_join(o->worker, NULL);
    o->worker_made = 0;
    for (int i = 0; i < SLOTS; i++)
        o->state[i] = SLOT_FREE;
    o->quit = 0;
    o->focused = UINT32_MAX;
}

int hb_order_decide_all(hb_order *o, const query_list *q, hb_answer *answers,
                        shortcut_stats *st)
{
    stop_sweeping_ahead(o); /* the clocks are swept again, per batch */
    o->now = &o->slot[0];
    need_nothing(&o->now->needed);
    decide_by_batch(&o->e, q, answers, st, &o->now->u, &o->now->r,
                    &o->now->needed);
    return o->e.r.acyclic ? 1 : -1; /* as shortcut_decide: U is acyclic */
}

int hb_order_before(const hb_order *o, uint32_t x, uint32_t y)
{
    assert(o->focused != UINT32_MAX && o->e.dense[x] != UINT32_MAX &&
           o->now->needed.is[o->e.dense[y]]);
    return x != y && reaches(&o->e, &o->now->u, x, y);
}

hb_answer hb_order_decide(const hb_order *o, const hb_query *q,
                          shortcut_stats *st)
{
    assert(o->focused != UINT32_MAX);
    return decide(&o->e, &o->now->u, &o->now->r, q, st);
}

uint32_t hb_order_chain(const hb_order *o, uint32_t e)
{
    assert(o->e.dense[e] != UINT32_MAX);
    return o->e.chain[o->e.dense[e]];
}

uint32_t hb_order_pos(const hb_order *o, uint32_t e)
{
    assert(o->e.dense[e] != UINT32_MAX);
    return o->e.pos[o->e.dense[e]];
}

/* The last event of chain c reaching dense event dy in vc's graph, c
 * being another chain than dy's: its clock's entry, or -1. */
static int32_t last_in_clock(const engine *e, const clocks *vc, uint32_t dy,
                             uint32_t c)
{
    uint32_t r = row_at(e, vc, dy);
    if (r == EMPTY_ROW || r == NO_ROW)
        return -1;
    return vc->rows[(size_t)r * vc->k + e->chain_local[c]];
}

int32_t hb_order_last_reaching(const hb_order *o, int resolved, uint32_t y,
                               uint32_t c)
{
    const engine *e = &o->e;
    const clocks *vc = resolved && !e->r_is_u ? &o->now->r : &o->now->u;
    uint32_t dy = e->dense[y];
    assert(o->focused != UINT32_MAX && o->now->needed.is[dy] &&
           e->chain_batch[c] == o->focused && (!resolved || e->r.acyclic));
    if (e->chain[dy] == c) /* program order */
        return (int32_t)e->pos[dy];
    return last_in_clock(e, vc, dy, c);
}

void hb_order_last_reaching_both(const hb_order *o, uint32_t y, uint32_t c,
                                 int32_t *in_u, int32_t *in_r)
{
    const engine *e = &o->e;
    uint32_t dy = e->dense[y]; /* looked up once for U and R */
    assert(o->focused != UINT32_MAX && o->now->needed.is[dy] &&
           e->chain_batch[c] == o->focused);
    if (e->chain[dy] == c) { /* program order, in U and R alike */
        *in_u = (int32_t)e->pos[dy];
        *in_r = e->r.acyclic ? *in_u : -1;
        return;
    }
    *in_u = last_in_clock(e, &o->now->u, dy, c);
    *in_r = !e->r.acyclic ? -1
          : e->r_is_u     ? *in_u
                          : last_in_clock(e, &o->now->r, dy, c);
}

/* Warms the cache for one stage of hb_order_last_reaching(y) in clocks
 * vc (stage 0: y's dense id; 1: its chain and last sync event; 2: the
 * row it is stored in; 3: its entry for chain c). */
static void warm(const engine *e, const clocks *vc, uint32_t y, uint32_t c,
                 int stage)
{
    if (stage == 0) {
        __builtin_prefetch(&e->dense[y]);
        return;
    }
    uint32_t d = e->dense[y];
    if (stage == 1) {
        __builtin_prefetch(&e->chain[d]);
        __builtin_prefetch(&vc->g->sync_at[d]);
    } else if (stage == 2) {
        uint32_t at = vc->g->sync_at[d];
        if (at != NO_SYNC)
            __builtin_prefetch(&vc->sync_row[at]);
    } else if (e->chain[d] != c) {
        uint32_t r = row_at(e, vc, d);
        if (r != EMPTY_ROW && r != NO_ROW)
            __builtin_prefetch(&vc->rows[(size_t)r * vc->k + e->chain_local[c]]);
    }
}

void hb_order_last_reaching_many(const hb_order *o, const uint32_t *ys,
                                 uint32_t n, uint32_t c, int32_t *in_u,
                                 int32_t *in_r)
{
    enum { AHEAD = 8, STAGES = 4 };
    const engine *e = &o->e;
    int own_r = e->r.acyclic && !e->r_is_u;
    for (uint32_t i = 0; i < n + STAGES * AHEAD; i++) {
        for (int stage = 0; stage < STAGES; stage++) {
            uint32_t j = i - (uint32_t)stage * AHEAD;
            if (i < (uint32_t)stage * AHEAD || j >= n)
                continue;
            warm(e, &o->now->u, ys[j], c, stage);
            if (own_r && stage > 0)
                warm(e, &o->now->r, ys[j], c, stage);
        }
        if (i >= STAGES * AHEAD) {
            uint32_t j = i - STAGES * AHEAD;
            hb_order_last_reaching_both(o, ys[j], c, &in_u[j], &in_r[j]);
        }
    }
}

int hb_order_witness(const hb_order *o)
{
    return o->e.r.acyclic;
}

int hb_order_r_is_u(const hb_order *o)
{
    return o->e.r_is_u;
}

uint32_t hb_order_max_locks(const hb_order *o, uint32_t a)
{
    const engine *e = &o->e;
    int32_t f = e->held_first[e->dense[a]];
    uint32_t n = 0;
    if (f >= 0)
        while (e->held[f + n] != UINT32_MAX)
            n++;
    return n;
}

static int cmp_lock(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

uint32_t hb_order_locks(const hb_order *o, uint32_t a, uint32_t *out)
{
    const engine *e = &o->e;
    int32_t f = e->held_first[e->dense[a]];
    uint32_t n = 0;
    assert(o->focused != UINT32_MAX);
    if (f < 0)
        return 0;
    for (const uint32_t *x = e->held + f; *x != UINT32_MAX; x++)
        if (inside(e, &o->now->u, &e->t->sections[*x], a)) /* as excluded() */
            out[n++] = e->t->sections[*x].lock;
    qsort(out, n, sizeof *out, cmp_lock);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || out[i] != out[k - 1])
            out[k++] = out[i];
    return k;
}

void hb_order_free(hb_order *o)
{
    if (!o)
        return;
    if (o->batch_start) { /* made past the graphs (mu too) */
        stop_sweeping_ahead(o); /* before what the worker reads is freed */
        pthread_mutex_destroy(&o->mu);
        pthread_cond_destroy(&o->changed);
    }
    teardown(&o->e);
    for (int i = 0; i < SLOTS; i++) {
        needed_free(&o->slot[i].needed);
        clocks_free(&o->slot[i].u);
        clocks_free(&o->slot[i].r);
    }
    free(o->batch_start);
    free(o->batch_events);
    free(o);
}
