/*
 * shortcut_graph.c — the graphs the exact shortcuts sweep: chains,
 * batches, U and R as sync events, the sections that hold an access
 * (shortcut_graph.h).
 */
#include "shortcut_graph.h"
#include "engine_schedule.h"

#include "../../util/alloc.h"
#include "../../util/graph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>


/* ---- chains ------------------------------------------------------------------ */

static void number_nodes(shortcut_engine *e)
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

static int is_foreign(const shortcut_engine *e, uint32_t ev)
{
    return e->foreign && e->foreign[ev];
}

/* Program order of the share's own events, then of the skeleton's
 * vertices along their chains (they come in chain order). */
static void number_chain_places(shortcut_engine *e, handler_model hm)
{
    const trace *t = e->t;
    uint32_t *next_pos = xcalloc(e->n_chains + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t d = e->dense[th->events[k]];
            if (d == UINT32_MAX || is_foreign(e, th->events[k]))
                continue;
            uint32_t c = hb_chain_of(t, hm, th->events[k]);
            e->chain[d] = c;
            e->pos[d] = next_pos[c]++;
        }
    }
    const hb_outside *out = e->outside;
    for (uint32_t j = 0; out && j < out->n; j++) {
        uint32_t d = e->dense[t->n_events + j], c = out->chain[j];
        e->chain[d] = c;
        e->pos[d] = next_pos[c]++;
    }
    free(next_pos);
}

/* Batches of whole nodes, narrower (not below 64 chains) where the
 * clocks of 128-chain batches would pass SHORTCUT_MAX_CELLS.  (Wider
 * batches, up to 4096 chains, made the floating model slower: rows of
 * many kilobytes left the cache.)  A share's own nodes come first and
 * share no batch with the others (own[v]; NULL: every node is own). */
static void build_batches(shortcut_engine *e, unsigned batch_chains,
                          const uint8_t *own)
{
    uint32_t width = batch_chains ? batch_chains : SHORTCUT_BATCH_CHAINS;
    while (width > 64 && (size_t)e->n_chains * width > SHORTCUT_MAX_CELLS)
        width /= 2;
    e->node_batch = xmalloc(sizeof(uint32_t) * (e->n_nodes + 1));
    e->batch_chains = xcalloc(e->n_nodes + 1, sizeof(uint32_t));
    for (int pass = 0; pass < 2; pass++) {
        int fresh = 1; /* the pass starts a batch of its own */
        for (uint32_t v = 0; v < e->n_nodes; v++) {
            if ((own ? own[v] != 0 : 1) != (pass == 0))
                continue;
            uint32_t b = e->n_batches ? e->n_batches - 1 : 0;
            if (fresh || e->batch_chains[b] + e->node_chains[v] > width)
                b = e->n_batches++;
            fresh = 0;
            e->node_batch[v] = b;
            e->batch_chains[b] += e->node_chains[v];
        }
        if (pass == 0)
            e->n_own_batches = e->n_batches;
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

/* Chains: a thread (nested model), or a thread's outer context and each
 * handler (floating model); positions follow program order.  A share's
 * skeleton chains are one node past t's, and its other nodes are not
 * own. */
static void build_chains(shortcut_engine *e, handler_model hm,
                         unsigned batch_chains)
{
    const trace *t = e->t;
    const hb_outside *out = e->outside;
    uint32_t base = hb_chain_count(t, hm);
    e->n_chains = base + (out ? out->n_chains : 0);
    uint8_t *own = NULL;
    if (out) {
        own = xmalloc((size_t)e->n_nodes + 2);
        memset(own, 1, (size_t)e->n_nodes + 2);
        for (uint32_t i = 0; i < t->n_threads; i++)
            if (t->threads[i].n_events &&
                is_foreign(e, t->threads[i].events[0]))
                own[e->thread_node[i]] = 0;
        own[e->n_nodes++] = 0; /* the skeleton's chains */
    }
    e->chain_node = xmalloc(sizeof(uint32_t) * (e->n_chains + 1));
    for (uint32_t i = 0; i < t->n_threads; i++)
        e->chain_node[i] = e->thread_node[i];
    for (uint32_t h = 0; t->n_threads + h < base; h++)
        e->chain_node[t->n_threads + h] = e->thread_node[t->handlers[h].thread];
    for (uint32_t c = base; c < e->n_chains; c++)
        e->chain_node[c] = e->n_nodes - 1;
    number_chain_places(e, hm);
    e->node_chains = xcalloc(e->n_nodes + 1, sizeof(uint32_t));
    for (uint32_t c = 0; c < e->n_chains; c++)
        e->node_chains[e->chain_node[c]]++;
    build_batches(e, batch_chains, own);
    free(own);
}

/* ---- graphs ------------------------------------------------------------------ */



/* The sync events of an acyclic graph, from its in-edge lists and a
 * topological order. */
static void build_sync(const shortcut_engine *e, graph *g, const digraph *in,
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
/* The graph of the in-rows `in` (freed here). */
static void build_from_rows(shortcut_engine *e, graph *g, digraph in)
{
    uint32_t *topo = xmalloc_array((size_t)e->n + 1, sizeof(uint32_t));
    g->acyclic = digraph_topological_order(&in, topo);
    if (g->acyclic)
        build_sync(e, g, &in, topo);
    digraph_free(&in);
    free(topo);
}

void shortcut_build_graph(shortcut_engine *e, graph *g, const hb_edge *edges, uint32_t n_edges)
{
    digraph in;
    digraph_build(&in, e->n, edges, n_edges, DIGRAPH_IN, e->dense);
    build_from_rows(e, g, in);
}

static int observed_before(const shortcut_engine *e, uint32_t a, uint32_t b)
{
    const trace *t = e->t;
    return e->thread_node[t->events[a].thread] ==
               e->thread_node[t->events[b].thread] && a < b;
}

/* Where the matching is too large to make (hb_wait_matching() -1): each
 * WAIT takes the latest NOTIFY before it that no WAIT took, into
 * match[wait].  0 if that leaves one without. */
static int match_greedily(const shortcut_engine *e, uint32_t *match)
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
static int choose_bools(shortcut_engine *e, uint8_t *value, hb_edge_list *chosen)
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

static void lock_group_edges(const shortcut_engine *e, hb_edge_list *l,
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
static int choice_edges(shortcut_engine *e, hb_edge_list *l_out)
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

static void shortcut_free_graph(graph *g);

/* R's graph g was built from l (U, the choices, then the lock chains in
 * observed order, from l->v[first]) and has a cycle: the observed order
 * is no run of Φ (a section never released in the middle of its lock's
 * order, say).  Where the scheduler (engine_schedule.c) finds a run, R
 * becomes U, the literals that run took, and the lock chains in its
 * order: a witness again, since the run orders every edge of it. */
static int reschedule(shortcut_engine *e, hb_edge_list *l, uint32_t first, graph *g)
{
    scheduler *s = scheduler_new(e->t, e->m);
    uint32_t *value = xmalloc_array((size_t)e->t->n_events + 1, sizeof *value);
    int found = 0;
    if (scheduler_run(s, NULL, value)) {
        shortcut_free_graph(g);
        memset(g, 0, sizeof *g);
        l->n = first;
        for (uint32_t i = 0; i < e->m->n_edges; i++)
            hb_edge_list_add(l, e->m->edges[i].before, e->m->edges[i].after);
        scheduler_choices(s, l);
        lock_group_edges(e, l, value);
        shortcut_build_graph(e, g, l->v + first, l->n - first);
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
int shortcut_choose_resolved(shortcut_engine *e, hb_edge_list *l, graph *g)
{
    uint32_t first = l->n;
    int ok = choice_edges(e, l);
    lock_group_edges(e, l, NULL);
    if (!g || (ok && l->n - first == e->m->n_edges))
        return ok;
    shortcut_build_graph(e, g, l->v + first, l->n - first);
    if (ok && g->acyclic)
        return 1;
    return reschedule(e, l, first, g);
}

/* R (U plus one literal per clause): its edges and graph, acyclic 0 when
 * it is no witness.  When no clause needed a literal (no two threads
 * of a node share a lock, no WAIT), R is U: its graph is not built and
 * its clocks are U's (r_is_u), so each batch is swept once, not twice;
 * R's acyclic is then U's (shortcut_resolved_is_unconditional(), once U is
 * built). */
void shortcut_build_resolved(shortcut_engine *e)
{
    hb_edge_list l = {0};
    if (e->outside) { /* a share: R is U, or no witness (hb_order.h) */
        int ok = shortcut_choose_resolved(e, &l, NULL);
        e->r_is_u = ok && l.n == e->m->n_edges;
        free(l.v);
        return;
    }
    int ok = shortcut_choose_resolved(e, &l, &e->r);
    if (ok && l.n == e->m->n_edges)
        e->r_is_u = 1;
    else if (!ok) /* no witness, whatever cycles its graph has */
        e->r.acyclic = 0;
    free(l.v);
}

void shortcut_resolved_is_unconditional(shortcut_engine *e)
{
    if (e->r_is_u)
        e->r.acyclic = e->u.acyclic;
}

/* ---- critical sections ------------------------------------------------------- */

/* For each kept access, the sections of its thread it lies in (by program
 * order; reachability is checked when used, for the floating model). */
void shortcut_find_held_sections(shortcut_engine *e)
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
    for (uint32_t d = 0; d < e->n; d++)
        e->held_first[d] = -1;
    uint32_t cap = 0, n_held = 0, *open = NULL, n_open = 0, open_cap = 0;
    e->held = NULL;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        n_open = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t ev = th->events[k], d = e->dense[ev];
            if (d == UINT32_MAX || is_foreign(e, ev))
                continue;
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

static void shortcut_free_graph(graph *g)
{
    free(g->sync_chain);
    free(g->in_start);
    free(g->in);
    free(g->feeds);
    free(g->readers);
    free(g->sync_at);
}

/* The chains of t's kept events (U: shortcut_build_unconditional()). */
void shortcut_setup(shortcut_engine *e, const trace *t, const hb_model *m,
                    unsigned batch_chains)
{
    shortcut_setup_share(e, t, m, batch_chains, NULL, NULL);
}

/* Dense indexes: the kept events but a share's foreign ones, then the
 * skeleton's vertices, for which a foreign event stands. */
static void number_dense(shortcut_engine *e)
{
    const trace *t = e->t;
    const hb_outside *out = e->outside;
    uint32_t past = out ? out->n : 0;
    e->dense = xmalloc_array((size_t)t->n_events + past + 1, sizeof *e->dense);
    for (uint32_t i = 0; i < t->n_events; i++)
        e->dense[i] = e->m->kept[i] && !is_foreign(e, i) ? e->n++ : UINT32_MAX;
    for (uint32_t j = 0; j < past; j++)
        e->dense[t->n_events + j] = e->n++;
    for (uint32_t i = 0; out && i < t->n_events; i++)
        if (is_foreign(e, i))
            e->dense[i] = out->map[i] == UINT32_MAX ? UINT32_MAX
                                                     : e->dense[out->map[i]];
}

void shortcut_setup_share(shortcut_engine *e, const trace *t,
                          const hb_model *m, unsigned batch_chains,
                          const uint8_t *foreign, hb_outside *outside)
{
    memset(e, 0, sizeof *e);
    e->t = t;
    e->m = m;
    e->foreign = outside ? foreign : NULL;
    e->outside = outside;
    number_dense(e);
    e->chain = xmalloc(sizeof(uint32_t) * (e->n + 1));
    e->pos = xmalloc(sizeof(uint32_t) * (e->n + 1));
    number_nodes(e);
    build_chains(e, m->handlers, batch_chains);
}

/* A share's U: Φ's edges but those between two foreign events (the
 * share orders those by their threads, the skeleton by their chains),
 * and the skeleton's, all over vertex numbers (e->dense). */
static void build_share_unconditional(shortcut_engine *e)
{
    const hb_model *m = e->m;
    hb_outside *out = e->outside;
    /* one array of the exact size: a list grown by doubling held twice
     * the edges at its peak */
    hb_edge *v = xmalloc_array((size_t)m->n_edges + out->n_edges + 1, sizeof *v);
    size_t n = 0;
    for (uint32_t i = 0; i < m->n_edges; i++) {
        hb_edge x = m->edges[i];
        if (!(is_foreign(e, x.before) && is_foreign(e, x.after)) &&
            e->dense[x.before] != UINT32_MAX && e->dense[x.after] != UINT32_MAX)
            v[n++] = x;
    }
    for (size_t i = 0; i < out->n_edges; i++)
        if (e->dense[out->edges[i].before] != UINT32_MAX &&
            e->dense[out->edges[i].after] != UINT32_MAX)
            v[n++] = out->edges[i];
    free(out->edges); /* copied: the peak is the topological order's */
    out->edges = NULL;
    out->n_edges = 0;
    if (n > UINT32_MAX)
        alloc_fail(n * sizeof *v, "the edges of a share's U (over 2^32)");
    digraph in;
    digraph_build(&in, e->n, v, n, DIGRAPH_IN, e->dense);
    free(v); /* before the topological order's own arrays */
    build_from_rows(e, &e->u, in);
}

void shortcut_build_unconditional(shortcut_engine *e)
{
    if (e->outside)
        build_share_unconditional(e);
    else
        shortcut_build_graph(e, &e->u, e->m->edges, e->m->n_edges);
}

/* Frees what shortcut_setup() made, and R and the held sections when they were
 * built (shortcut_setup() zeroes them). */
void shortcut_teardown(shortcut_engine *e)
{
    shortcut_free_graph(&e->u);
    shortcut_free_graph(&e->r);
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
