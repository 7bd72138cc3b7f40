/*
 * graph.c — rows of a directed graph, its topological order and a cycle
 * (graph.h).
 */
#include "graph.h"

#include "alloc.h"

/* The vertex whose row lists edge e, and the one it lists there (both
 * renumbered by map when there is one). */
static uint32_t row_end(const digraph_edge *e, digraph_rows rows,
                        const uint32_t *map)
{
    uint32_t v = rows == DIGRAPH_IN ? e->after : e->before;
    return map ? map[v] : v;
}

static uint32_t listed_end(const digraph_edge *e, digraph_rows rows,
                           const uint32_t *map)
{
    uint32_t v = rows == DIGRAPH_IN ? e->before : e->after;
    return map ? map[v] : v;
}

void digraph_build(digraph *g, uint32_t n, const digraph_edge *edges,
                   size_t n_edges, digraph_rows rows, const uint32_t *map)
{
    /* counted into start[v + 2], summed, then filled through start[v + 1]:
     * after the fill start[v + 1] is where row v ends */
    g->n = n;
    g->start = xcalloc((size_t)n + 2, sizeof *g->start);
    g->adj = xmalloc_array(n_edges + 1, sizeof *g->adj);
    for (size_t i = 0; i < n_edges; i++)
        g->start[row_end(&edges[i], rows, map) + 2]++;
    for (uint32_t v = 0; v < n; v++)
        g->start[v + 2] += g->start[v + 1];
    for (size_t i = 0; i < n_edges; i++)
        g->adj[g->start[row_end(&edges[i], rows, map) + 1]++] =
            listed_end(&edges[i], rows, map);
}

void digraph_free(digraph *g)
{
    free(g->start);
    free(g->adj);
    g->start = g->adj = NULL;
}

/* Kahn's algorithm over in-rows: writes the vertices placed to topo and
 * returns how many; in_deg (n entries) is left holding, for each vertex
 * not placed, its in-edges from vertices not placed. */
static uint32_t kahn(const digraph *in, uint32_t *topo, uint32_t *in_deg)
{
    uint32_t n = in->n;
    /* out-rows, each in increasing vertex order: the order depends on the
     * set of edges only */
    uint32_t *out_start = xcalloc((size_t)n + 2, sizeof *out_start);
    for (uint32_t i = 0; i < in->start[n]; i++)
        out_start[in->adj[i] + 2]++;
    for (uint32_t v = 0; v < n; v++)
        out_start[v + 2] += out_start[v + 1];
    uint32_t *out = xmalloc_array((size_t)in->start[n] + 1, sizeof *out);
    for (uint32_t d = 0; d < n; d++)
        for (uint32_t k = in->start[d]; k < in->start[d + 1]; k++)
            out[out_start[in->adj[k] + 1]++] = d;
    for (uint32_t v = 0; v < n; v++)
        in_deg[v] = in->start[v + 1] - in->start[v];
    uint32_t *stack = xmalloc_array((size_t)n + 1, sizeof *stack);
    uint32_t top = 0, done = 0;
    for (uint32_t v = n; v-- > 0;)
        if (!in_deg[v])
            stack[top++] = v;
    while (top) {
        uint32_t v = stack[--top];
        topo[done++] = v;
        for (uint32_t k = out_start[v + 1]; k-- > out_start[v];)
            if (--in_deg[out[k]] == 0)
                stack[top++] = out[k];
    }
    free(stack);
    free(out);
    free(out_start);
    return done;
}

int digraph_topological_order(const digraph *in, uint32_t *topo)
{
    uint32_t *in_deg = xmalloc_array((size_t)in->n + 1, sizeof *in_deg);
    uint32_t done = kahn(in, topo, in_deg);
    free(in_deg);
    return done == in->n;
}

size_t digraph_find_cycle(const digraph *in, uint32_t *cycle, size_t max)
{
    uint32_t n = in->n;
    uint32_t *in_deg = xmalloc_array((size_t)n + 1, sizeof *in_deg);
    uint32_t *path = xmalloc_array((size_t)n + 1, sizeof *path);
    size_t found = 0;
    if (kahn(in, path, in_deg) < n) {
        uint32_t v = 0;
        while (!in_deg[v]) /* placed vertices are left with none */
            v++;
        /* walk back along unplaced in-neighbours until one repeats */
        uint32_t *seen_at = xmalloc_array((size_t)n + 1, sizeof *seen_at);
        for (uint32_t i = 0; i < n; i++)
            seen_at[i] = UINT32_MAX;
        uint32_t len = 0;
        while (seen_at[v] == UINT32_MAX) {
            seen_at[v] = len;
            path[len++] = v;
            for (uint32_t k = in->start[v]; k < in->start[v + 1]; k++)
                if (in_deg[in->adj[k]]) {
                    v = in->adj[k];
                    break;
                }
        }
        /* path[seen_at[v] .. len) is the cycle, walked backwards */
        for (uint32_t i = len; i-- > seen_at[v] && found < max;)
            cycle[found++] = path[i];
        free(seen_at);
    }
    free(in_deg);
    free(path);
    return found;
}
