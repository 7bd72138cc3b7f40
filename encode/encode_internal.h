/*
 * encode_internal.h — what the two halves of Φ's builder share: the model
 * under construction (encode.c adds the constraints the trace states,
 * encode_build.c the edges they imply).  Not for other modules.
 *
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENCODE_INTERNAL_H
#define SPIDER_ENCODE_INTERNAL_H

#include "encode.h"

#include <signal.h>

typedef struct builder {
    hb_model *m;
    const trace *t;
    const volatile sig_atomic_t *stop;  /* or NULL */
    uint32_t edges_cap, clauses_cap, lits_cap;
    uint32_t edge_origin_cap, clause_origin_cap;
    uint32_t lock_sections_cap, lock_groups_cap;
} builder;

/* Whether a stop signal came: the model is then left incomplete. */
static inline int stopped(builder *b)
{
    if (b->stop && *b->stop)
        b->m->incomplete = 1;
    return b->m->incomplete;
}

/* Adds the edge O(before) < O(after) of this origin; both events kept. */
void add_edge(builder *b, hb_origin origin, uint32_t before, uint32_t after);

/* Adds the constraints the trace states to b's model (encode.c): program
 * order, threads, messages, locks, and the waits counted. */
void build_constraints(builder *b);

#endif
