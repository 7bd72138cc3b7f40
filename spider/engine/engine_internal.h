/*
 * engine_internal.h — the run the analyses add to (engine.c), as
 * engine_decide.c and engine_analyse.c read and change it.
 *
 * Ownership: engine_analyse() makes the run and frees its candidates,
 * grouper and the analyses' state; engine_decide() frees its hb_order
 * (engine_decide.h).
 */
#ifndef SPIDER_ENGINE_INTERNAL_H
#define SPIDER_ENGINE_INTERNAL_H

#include "engine.h"
#include "engine_group.h"

struct engine_run {
    const trace *t;
    hb_model *m;             /* its waits are made when Z3 is first needed */
    const analysis_options *o;
    report *r;
    grouper *g;
    candidate *c;
    size_t n, cap;
    /* candidates come kind by kind (each analysis adds its own, in kind
     * order): kind k's are [first_cand[k], first_cand[k+1]), its queries
     * from first_query[k] on, n_queries of its kind each */
    size_t first_cand[RACE_KINDS + 1], first_query[RACE_KINDS + 1];
    size_t n_queries;
    hb_order *order;         /* engine_order(): made when first asked for */
    int order_made;
    int kinds_mixed;         /* generate_batch ran: sort by kind */
    int kinds_unsorted;      /* some candidate's kind is below the one's
                                before it (engine_add) */
    size_t n_of_kind[RACE_KINDS]; /* candidates of c[] by kind */
    void *state[RACE_KINDS]; /* each analysis's own, freed by state_free */
    void (*state_free[RACE_KINDS])(void *);
    uint64_t found_unposted; /* candidates not yet in the progress line */
    struct batch_log *log;   /* set: the calls go to it (engine_log.h) */
    struct comm *comm;       /* the ranks of a split run, or NULL */
    int z3_shared;           /* rank 0 has given the ranks their Z3 work
                                (engine_ranks_solve/_release) */
    const trace_share *share; /* set: t is this rank's share of a split
                                run (engine_share.h) */
};

/* ---- engine_analyse.c's parts, for the analysis of a share ---- */

struct context_finder;

/* The report's summary as far as t, m and the options say it. */
void engine_fill_summary(report *r, const trace *t, const hb_model *m,
                         const analysis *const *analyses,
                         const analysis_options *opts);
/* Counts the verdicts (by candidate) into the groups and the summary,
 * then runs every enabled analysis's proven_all; NULL: every candidate
 * undecided (a stop). */
void engine_count_verdicts(engine_run *run, const hb_answer *verdict);
/* The printable group of a counted one, its events with their context
 * (cf's; none when cf is NULL); the report frees it. */
race_group engine_finish_group(const trace *t, const analysis_options *o,
                               const struct context_finder *cf,
                               const analysis *a, const group_state *gs);
/* qsort order of the report's groups: kind, then locations. */
int engine_cmp_groups(const void *x, const void *y);
/* The candidates kind by kind again (number_queries(), engine_decide.c)
 * after generate_batch mixed them; nothing to do when they are (copying
 * hundreds of millions of them took half a minute and doubled the
 * memory). */
void engine_sort_by_kind(engine_run *run);
/* Every enabled analysis's generate_batch of batch b of o, the batch
 * focused once for all of them (engine_ranks.c). */
void engine_generate_batch(engine_run *run, hb_order *o, uint32_t b);
/* Frees the run's order, candidates, the analyses' state and grouper. */
void engine_run_free(engine_run *run);

#endif
