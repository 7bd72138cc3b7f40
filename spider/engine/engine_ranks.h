/*
 * engine_ranks.h — the batches of generate_batch split over ranks
 * (util/comm.h), with the answer of one process (engine_ranks.c).
 *
 * Every rank has the whole trace and model and has run every analysis's
 * `generate`; the batches of the run's hb_order are dealt out to the
 * ranks by size.  Each rank generates its own batches with a log
 * (engine_log.h) in place of its run's candidates and counts; rank 0
 * gathers the logs and replays them in batch order into its run, which
 * is then as one process's after generate_batch, and decides it alone.
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

/* Which rank owns each batch (owner[batch], n_batches of them): the
 * largest batches first, each to the rank with the fewest events so far
 * (the lowest of those), so that every rank computes the same. */
void engine_ranks_deal(const hb_order *o, unsigned n_ranks, uint32_t *owner);

#endif
