/*
 * encode_explain.c — why Φ has no solution (hb_model_explain()): a cycle
 * of U when there is one, else WAITs that cannot all be matched, else a
 * core from Z3.  The first two need no solver, so a run that only asks
 * why never waits for Z3 on them.
 */
#include "encode.h"

#include "../util/alloc.h"

/* A cycle of unconditional edges, in order; 0 if there is none.  Edges
 * join kept events only (add_edge() asserts it; hb_model_project() keeps
 * it), so an event pruned away is never on it. */
static size_t find_cycle(const hb_model *m, uint32_t *events, size_t max)
{
    digraph in;
    digraph_build(&in, m->n_events, m->edges, m->n_edges, DIGRAPH_IN, NULL);
    size_t found = digraph_find_cycle(&in, events, max);
    digraph_free(&in);
    return found;
}

size_t hb_model_explain(const trace *t, const hb_model *m, uint32_t *events,
                        size_t max, const volatile sig_atomic_t *stop)
{
    size_t n = find_cycle(m, events, max);
    if (n == 0 && hb_wait_matching(t, m, NULL, events, max, &n, stop) != 0)
        n = 0;
    return n || m->waits_deferred ? n
                                  : hb_model_core_events(m, events, max, stop);
}
