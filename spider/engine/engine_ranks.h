/*
 * engine_ranks.h — the batches of generate_batch, and Z3's work, split
 * over ranks (util/comm.h), with the answer of one process
 * (engine_ranks.c).
 *
 * Every rank has the whole trace and model and has run every analysis's
 * `generate`; the batches of the run's hb_order are dealt out to the
 * ranks by size.  Each rank generates its own batches with a log
 * (engine_log.h) in place of its run's candidates and counts; rank 0
 * gathers the logs and replays them in batch order into its run, which
 * is then as one process's after generate_batch, and decides it, with
 * the ranks' help for Z3 (below).
 *
 * Failure: a collective operation that fails leaves rank 0's run
 * without the batches and returns -1 (the caller says so, exit 2).
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_RANKS_H
#define SPIDER_ENGINE_RANKS_H

#include "engine_internal.h"

#include "../../util/comm.h"

/* Runs generate_batch of every enabled analysis on this rank's batches
 * of engine_order(run) (run after every `generate`) and, on rank 0,
 * replays every rank's.  Returns 0, or -1. */
int engine_ranks_generate(engine_run *run, comm *c);

/* Which rank owns each batch (owner[batch], n_batches of them), dealt
 * by their events (comm_deal()), so that every rank computes the same. */
void engine_ranks_deal(const hb_order *o, unsigned n_ranks, uint32_t *owner);

/* ---- Z3's work over the ranks ----
 *
 * Rank 0 decides what the shortcuts left; Z3's units of work (a group's
 * candidates asked in turn until one holds, or one candidate: see
 * solve_work in engine_pool.h) are independent, so rank 0 deals them out
 * by size (largest first, to the rank with the fewest candidates) and
 * broadcasts each unit's queries with what the shortcuts proved of them;
 * every rank decides its own units with its pool (solve_all()) on its
 * own copy of the model, and rank 0 gathers the verdicts.  Each unit is
 * answered in order by one worker wherever it runs, so the verdicts are
 * one process's.  Rank 0 shares work once per run: engine_ranks_solve()
 * when Z3 is needed, else engine_ranks_release(); every other rank
 * calls engine_ranks_serve() once, after generating. */

struct solve_work;

/* solve_all() of w over run->comm's ranks (directly, without them):
 * verdicts into verdict by candidate, the shortcuts' query_answers as
 * w->queries numbers them.  Returns solve_all()'s 0, 1 (this rank left
 * Z3 work running after a stop) or -1 with a message (any rank's
 * failure, or a collective operation's). */
int engine_ranks_solve(engine_run *run, const struct solve_work *w,
                       hb_answer *query_answers, hb_answer *verdict,
                       hb_solver_options so, char *err, size_t err_len);
/* Rank 0: tells the ranks there is no Z3 work, unless it has shared
 * some already.  Nothing without run->comm. */
void engine_ranks_release(engine_run *run);
/* A rank but 0: decides the Z3 units rank 0 deals it, with solvers made
 * with so (its failure goes to rank 0, which says it).  Returns 0, 1
 * when it left Z3 work running after a stop (analysis_options.abandoned),
 * or -1 when a collective operation failed. */
int engine_ranks_serve(engine_run *run, hb_solver_options so);

#endif
