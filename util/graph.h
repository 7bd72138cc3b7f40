/*
 * graph.h — the one directed-graph helper: rows of adjacent vertices
 * built from a list of edges (compressed, as a counting sort makes them),
 * a topological order and a cycle.
 *
 * Vertices are 0 .. n-1.  Row v lists v's in-neighbours (DIGRAPH_IN: the
 * `before` of each edge whose `after` is v) or out-neighbours
 * (DIGRAPH_OUT), in the order of the edge list; an edge given twice is
 * listed twice.  What reads a row in order (a depth-first search, which
 * cycle is named) thus depends on the edge list's order only.
 *
 * Ownership: a digraph owns its arrays; digraph_free() releases them.
 * Allocation failure ends the run (util/alloc.h); nothing here fails
 * otherwise.
 */
#ifndef SPIDER_GRAPH_H
#define SPIDER_GRAPH_H

#include <stddef.h>
#include <stdint.h>

typedef struct digraph_edge {
    uint32_t before, after;          /* before precedes after */
} digraph_edge;

typedef struct digraph {
    uint32_t n;                      /* vertices */
    uint32_t *start;                 /* row v: adj[start[v] .. start[v + 1]) */
    uint32_t *adj;
} digraph;

typedef enum digraph_rows { DIGRAPH_IN, DIGRAPH_OUT } digraph_rows;

/* Builds g's rows over n vertices from n_edges edges.  map, when not
 * NULL, renumbers both ends of every edge (vertex = map[end]); each
 * vertex, renumbered or not, is below n. */
void digraph_build(digraph *g, uint32_t n, const digraph_edge *edges,
                   size_t n_edges, digraph_rows rows, const uint32_t *map);

void digraph_free(digraph *g);

/* Writes a topological order of the graph whose in-rows are `in` to
 * topo (in->n entries) and returns 1; returns 0 when the graph has a
 * cycle (topo then holds the vertices that come before every cycle).
 * Depth first and, among vertices ready together, the smallest first: a
 * vertex's successor on its chain tends to come next, so a clock sweep
 * along the order stays on one chain's clock for longer. */
int digraph_topological_order(const digraph *in, uint32_t *topo);

/* A cycle of the graph whose in-rows are `in`: up to max of its vertices
 * in the order of its edges, written to cycle; returns how many (0 when
 * there is no cycle).  The cycle is the one met walking back, from the
 * smallest vertex on or after a cycle, through each vertex's first
 * in-neighbour that is on or after one too. */
size_t digraph_find_cycle(const digraph *in, uint32_t *cycle, size_t max);

#endif
