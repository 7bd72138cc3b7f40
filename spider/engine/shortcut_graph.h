/*
 * shortcut_graph.h — the graphs the exact shortcuts sweep
 * (shortcut_graph.c): events numbered densely and cut into chains (one
 * per thread or handler, program order along it), nodes grouped in
 * batches; U, the unconditional edges of Φ, and R, the observed-order
 * witness graph, each as the sync events a sweep visits; and the lock
 * sections that hold each access.  Internal to the shortcuts
 * (engine_shortcut.c, shortcut_clocks.c, hb_order.c).
 *
 * Ownership: a shortcut_engine borrows the trace and the model; what
 * shortcut_setup() and the builders make, shortcut_teardown() frees.
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_SHORTCUT_GRAPH_H
#define SPIDER_SHORTCUT_GRAPH_H

#include "../spider.h"

/* A batch's sweep keeps a clock of the batch's width for every chain, for
 * U and R (an hb_order has three batches' worth, hb_order.c); above
 * this many cells per clock set its queries go to Z3. */
#define SHORTCUT_MAX_CELLS ((size_t)64 << 20)
/* chains per batch unless told (hb_order_new()) */
#define SHORTCUT_BATCH_CHAINS 128u

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

typedef struct shortcut_engine {
    const trace *t;
    const hb_model *m;
    uint32_t n;          /* kept events (and, of a share, the skeleton's
                            vertices past them) */
    uint32_t *dense;     /* event id -> dense index (UINT32_MAX if not kept);
                            of a share, also vertex t->n_events + j of the
                            outside -> its dense index */
    const uint8_t *foreign; /* of a share: another rank's endpoint, which
                               stands for its skeleton vertex; else NULL */
    hb_outside *outside;     /* of a share: the other ranks' sync events
                                (its edges freed once U has them) */
    uint32_t n_own_batches; /* the first batches: the nodes of t but a
                               share's other nodes and the skeleton */
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
} shortcut_engine;

/* Numbers t's kept events, cuts them into chains and nodes into batches
 * of at most batch_chains chains (0: SHORTCUT_BATCH_CHAINS; a node of
 * more chains is a batch alone); U and R are built by the calls below.
 * Zeroes the rest. */
void shortcut_setup(shortcut_engine *e, const trace *t, const hb_model *m,
                    unsigned batch_chains);
/* shortcut_setup() for a rank's share of a split run (t, m: the share's
 * trace and Φ, hb_model_build_share()): its own events, and the other
 * ranks' sync events of `outside` as chains past t's, so that U's
 * reachability between own events is the whole trace's (encode.h).  The
 * share's events of other nodes (foreign) are their skeleton vertices;
 * its own nodes' batches come first (n_own_batches).  `outside` is read
 * only until U is built (shortcut_build_unconditional(), which frees its
 * edges once it has them: they are large); its owner frees the rest
 * then. */
void shortcut_setup_share(shortcut_engine *e, const trace *t,
                          const hb_model *m, unsigned batch_chains,
                          const uint8_t *foreign, hb_outside *outside);
/* Frees what shortcut_setup() and the builders made. */
void shortcut_teardown(shortcut_engine *e);
/* e->u from the model's unconditional edges. */
void shortcut_build_unconditional(shortcut_engine *e);
/* e->r: R's graph, r_is_u when R is U, acyclic 0 when R is no witness. */
void shortcut_build_resolved(shortcut_engine *e);
/* Once U is built: R's acyclic is U's when R is U. */
void shortcut_resolved_is_unconditional(shortcut_engine *e);
/* The sections of its thread that hold each kept access (held_first,
 * held). */
void shortcut_find_held_sections(shortcut_engine *e);
/* A sweepable graph g of the given edges (over kept events). */
void shortcut_build_graph(shortcut_engine *e, graph *g, const hb_edge *edges,
                          uint32_t n_edges);
/* R's edges appended to l (U's, one literal per clause, the lock chains
 * in observed order); with g, R's graph, rescheduled when the observed
 * order is no run.  Returns whether R is a witness (without g: whether
 * every clause had a literal). */
int shortcut_choose_resolved(shortcut_engine *e, hb_edge_list *l, graph *g);

#endif
