/*
 * engine_witness.h — witnesses (engine_witness.c): a run that shows an
 * instance.
 *
 * Ownership: a finder borrows the trace and the model until freed.
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_WITNESS_H
#define SPIDER_ENGINE_WITNESS_H

#include "../spider.h"

/* A query whose solution shows an instance, and events to show with it
 * (a handler race's sends and receives). */
typedef struct witness_query {
    hb_query query;
    uint32_t extra[GROUP_EVENTS];
    uint8_t n_extra;
} witness_query;
/* Finds witnesses (SPEC §4): for a shown instance, a run in an order that
 * some solution of Φ ∧ (the instance's query) respects, cut to the
 * instance's events and what each waits on in other threads.  From the
 * observed-order graph R when R and the query have no cycle; from a Z3
 * model otherwise (one solver, made when first needed). */
typedef struct witness_finder witness_finder;

/* Borrows t and m until freed, and makes m's deferred waits
 * (hb_model_add_waits()) when it first needs Z3.  z3_only: every witness
 * from Z3 (as with --solver=z3, so that tests check both ways).
 * Allocation failure ends the run. */
witness_finder *witness_finder_new(const trace *t, hb_model *m,
                                   int z3_only, hb_solver_options solver,
                                   const volatile sig_atomic_t *leave_on);
/* Whether a Z3 call was left running after a stop (engine_z3_call with
 * leave_on): the finder is then never freed (witness_finder_free does
 * nothing). */
int witness_finder_abandoned(const witness_finder *w);
/* Fills g->witness and g->n_witness for the shown instance inst (n_inst
 * events, g->events in the same order) from the first of the n_alts
 * queries that Φ satisfies.  Returns 0; 1 when none was found (unsat, or
 * the solver timed out: g->witness stays NULL); -1 with Z3's message in
 * err when the solver failed. */
int witness_find(witness_finder *w, const uint32_t *inst, uint32_t n_inst,
                 const witness_query *alts, size_t n_alts, race_group *g,
                 char *err, size_t err_len);
void witness_finder_free(witness_finder *w);

#endif
