/*
 * engine_share.h — the analysis of a split run where each rank holds
 * only its share of the trace (trace_load_share(), trace.h), merged at
 * rank 0 into the one process's report (engine_share.c).
 *
 * Every rank analyses its own nodes: Φ of its share (hb_model_build_share,
 * pruned), the shortcuts' order over the share and the other ranks'
 * synchronisation skeleton (hb_order_new_share), and each analysis's
 * `generate`, then `generate_batch` on the share's own batches.  What
 * the shortcuts decide there is the whole trace's verdict (their answers
 * about own events are the whole trace's, tests/check_share.c checks
 * them), so each rank's groups, counts and summary are its part of one
 * process's.  Rank 0 gathers the parts and merges them: the groups by
 * kind and locations, their counts summed, the instance shown the least
 * of the parts' by the grouper's rule (engine_group.h: one that holds,
 * the lowest rank, then by thread name and input position), the summary
 * summed (the reading's figures are the whole trace's already).  The
 * shown events and the events their contexts name are then fetched from
 * the ranks that own them, so that each is shown as one process shows it.
 *
 * What a share cannot decide alone — a candidate the shortcuts leave to
 * Z3, U's cycle, a derived warning of the trace (one process words it
 * over the whole), a thread created or joined across ranks, a stop —
 * makes every rank answer 1: the caller then analyses the whole trace
 * as before (engine_ranks.h), with the same answer.
 *
 * Ownership: the report is rank 0's (report_free()); the other ranks get
 * NULL.  The share, model and pruning stats are borrowed; `outside` is
 * freed here once the order is made (it is large).  Allocation failure
 * ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SHARE_H
#define SPIDER_ENGINE_SHARE_H

#include "engine.h"

#include "../../util/comm.h"

/* Every rank of c, alike: s its share, m Φ of s->t (pruned and projected
 * as the run has it, with pruning's stats counted over own events), out
 * the share's outside (hb_skeleton_outside()).  Returns 0 with rank 0's
 * merged report in *rep (NULL elsewhere), 1 when the share cannot decide
 * the run (above; every rank returns 1), or -1 with err when the ranks
 * lost each other. */
int engine_analyse_share(const analysis *const *analyses,
                         const trace_share *s, hb_model *m,
                         hb_outside *out, const prune_stats *pruning,
                         const analysis_options *opts, comm *c,
                         report **rep, char *err, size_t err_len);

#endif
