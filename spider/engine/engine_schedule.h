/*
 * engine_schedule.h — runs found by scheduling (engine_schedule.c): the trace
 * played again in an order of its own that keeps every clause of Φ.
 *
 * Ownership: a scheduler borrows the trace and the model until freed.
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SCHEDULE_H
#define SPIDER_ENGINE_SCHEDULE_H

#include "../spider.h"

#include <stdatomic.h>

/* Plays the trace's kept events again in an order of its own choosing:
 * Kahn's order over U's edges, the observed order first (within a node), keeping every clause
 * itself (lock groups' mutual exclusion, a receive's possible sends, a
 * WAIT's NOTIFYs).  A complete schedule is a solution of Φ; a greedy dead
 * end proves nothing.  Borrows t and m until freed.  Allocation failure
 * ends the run. */
typedef struct scheduler scheduler;
scheduler *scheduler_new(const trace *t, const hb_model *m);
/* A scheduler for another thread: it shares s's graph and indexes, which
 * it only reads (s must outlive it), and has run state of its own.  Its
 * runs are those s would make, except that a run ends, not found, soon
 * after *cancel is set (cancel may be NULL: never).  Allocation failure
 * ends the run. */
scheduler *scheduler_twin(const scheduler *s, const atomic_int *cancel);
/* Looks for a solution of Φ ∧ q (q a conjunction, or a disjunction of one
 * atom; NULL: Φ alone).  Returns 1 when found, with value[e] the step of
 * each kept event (when value is not NULL; `=` pairs share a step); 0 when
 * every order it tries dead-ends (greedy, then observed orders of the
 * lock sections) or q is of a shape it does not take — which says
 * nothing about q. */
int scheduler_run(scheduler *s, const hb_query *q, uint32_t *value);
/* After a run that found a solution: the literal it took of each clause
 * that is not a lock's (a receive's send, a WAIT's NOTIFY), as edges
 * appended to out.  With U and the lock sections in the run's order, they
 * make a graph every topological order of which satisfies Φ. */
void scheduler_choices(const scheduler *s, hb_edge_list *out);
/* Events played so far over every run, and a quarter of the trace for
 * each run's setting up: the cost, for callers that keep to a budget. */
uint64_t scheduler_steps(const scheduler *s);
void scheduler_free(scheduler *s);

#endif
