/*
 * engine_decide.h — the verdicts of a run's candidates (engine_decide.c):
 * exact shortcuts, runs found by scheduling, then Z3 in a pool of worker
 * threads.
 *
 * Ownership: verdicts are the caller's.  Allocation failure ends the run
 * (util/alloc.h); a solver failure is an error, never a verdict.
 */
#ifndef SPIDER_ENGINE_DECIDE_H
#define SPIDER_ENGINE_DECIDE_H

#include "engine_internal.h"

/* Decides every candidate into verdict: shortcuts first (unless
 * --solver=z3), then Z3.  Returns 0, -1 with err on failure, or 1 when
 * stopped before any verdict (no walk over the candidates).  Frees the
 * run's hb_order (run->order, NULL after) before Z3 runs, unless it
 * returns 1. */
int engine_decide(engine_run *run, hb_answer *verdict, char *err,
                  size_t err_len);
/* For a rank's share of a split run (engine_share.h): the shortcuts
 * alone, over the run's hb_order, into verdict (ANSWER_UNKNOWN where
 * they say nothing), counted in the summary as engine_decide() counts
 * them.  Returns 1 when they decide every candidate, else 0 (what is
 * left needs what the share does not hold, or the run stopped). */
int engine_decide_shortcuts(engine_run *run, hb_answer *verdict);
/* How the run's solvers work. */
hb_solver_options engine_solver_options(const engine_run *run);
/* The stop flag for engine_z3_call: set only when the caller can take
 * Z3 work left running (analysis_options.abandoned). */
const volatile sig_atomic_t *engine_leave_on(const engine_run *run);
/* Notes in the options that Z3 work was left running after a stop. */
void engine_note_abandoned(const engine_run *run);

#endif
