/*
 * share_run.h — the command's analysis when each rank of a split run
 * holds only its share of the trace (share_run.c): the share's load,
 * Φ with the other ranks, pruning, the skeleton, and analyse_share()
 * (spider.h), whose report rank 0 prints as one process does.
 *
 * Memory: a rank holds its own nodes' events, the other nodes' message
 * endpoints that may match them, and the synchronisation skeleton — not
 * the whole trace (trace.h, trace_load_share()).
 *
 * What the shares cannot decide (share_run_fits() says no, or
 * analyse_share() answers 1: a candidate for Z3, a derived warning, a
 * thread forked across ranks, a stop, a failure) is analysed as before:
 * every rank loads the whole trace (engine_ranks.h).  Nothing is printed
 * on the way, so that the answer, warnings and errors are that path's.
 *
 * Ownership: the report is the caller's (report_free()).  Allocation
 * failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_SHARE_RUN_H
#define SPIDER_SHARE_RUN_H

#include "options.h"
#include "progress.h"

#include "../spider.h"
#include "../../util/comm.h"

/* Whether c's options are ones the shares may analyse: the default
 * analyses (data, message and handler races), the shortcuts' solver,
 * no witness, no SMT-LIB2 file. */
int share_run_fits(const cli *c);

typedef struct share_result {
    report *r;                       /* rank 0's */
    double loaded, encoded, pruned;  /* clock_seconds() at each phase's end */
} share_result;

/* Every rank of `ranks` (an MPI job's world, or NULL and ranks_n threads
 * of this process as ranks) analyses its share of paths with c's options
 * (topts: the reading's; its warnings are printed at the end only when
 * the shares decide; prog, rank 0's progress line or NULL, shows the
 * phases).  Returns 0 with rank 0's report in out->r (NULL on the other
 * ranks), or 1: analyse the whole trace instead. */
int share_run(const cli *c, const char *const *paths, size_t n_paths,
              const trace_options *topts, comm *ranks, unsigned ranks_n,
              const analysis_options *aopts, progress *prog,
              share_result *out);

#endif
