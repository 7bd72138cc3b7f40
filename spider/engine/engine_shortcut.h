/*
 * engine_shortcut.h — exact answers without a solver (engine_shortcut.c):
 * vector clocks over U and an observed-order witness R, and lock
 * exclusion (docs/model.md, "How a candidate is decided").
 *
 * Ownership: answers and stats are the caller's.  Allocation failure
 * ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SHORTCUT_H
#define SPIDER_ENGINE_SHORTCUT_H

#include "../spider.h"

/* Queries as a source: get(ctx, i) for i < n. */
typedef struct query_list {
    hb_query (*get)(const void *ctx, size_t i);
    const void *ctx;
    size_t n;
    const volatile sig_atomic_t *stop; /* or NULL: once set (SIGTERM), the
                                          batches not swept yet are left
                                          undecided */
    run_progress *progress;            /* or NULL: steps posted to it */
} query_list;

typedef struct shortcut_stats {
    uint64_t unsat_ordered, unsat_locks, sat_witness, undecided;
    uint32_t nodes_skipped;          /* too many chains: left to Z3 */
} shortcut_stats;

/* Exact answers without a solver, in m's handler model: answers[i]
 * becomes SAT, UNSAT, or
 * UNKNOWN where Z3 must decide.  Returns 1 if Φ is satisfiable (a witness
 * run was found), 0 if it is not (the unconditional edges form a cycle),
 * -1 if that is not known. */
int shortcut_decide(const trace *t, const hb_model *m, const query_list *q,
                    hb_answer *answers,
                    shortcut_stats *st);

/* The edges of R, the observed-order witness graph (U, and from each
 * clause the literal the observed run chose), appended to out.  Returns 1
 * when R is a witness: every clause has such a literal and R has no cycle
 * (then every topological order of R satisfies Φ); 0 when not.
 * Allocation failure ends the run. */
int shortcut_resolved_edges(const trace *t, const hb_model *m,
                            hb_edge_list *out);

#endif
