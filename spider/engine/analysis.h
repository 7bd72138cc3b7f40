/*
 * analysis.h — what an analysis is, as the engine runs it: the
 * descriptor an analysis fills in and the candidates it makes.  engine.h
 * is the API an analysis calls; this header is the one the grouper
 * (engine_group.h) needs too, so that it does not include the run.
 *
 * Ownership: descriptors are static const (spider/analysis/analyses.c
 * lists them); candidates belong to the run (engine_add()).
 */
#ifndef SPIDER_ANALYSIS_H
#define SPIDER_ANALYSIS_H

#include "../spider.h"
#include "engine_witness.h"

/* One dynamic instance to decide. */
typedef struct candidate {
    uint32_t ev[GROUP_EVENTS];       /* the instance, in its kind's order */
    uint32_t group;                  /* its group (engine_group.c) */
    uint32_t rank;                   /* lower first within a group (gap) */
    uint8_t kind;                    /* race_kind */
    uint8_t dedupable;               /* may go unasked once its group holds */
} candidate;

typedef struct engine_run engine_run;

/* An analysis.  `generate` adds candidates (and may count instances that
 * need no query); `query` gives the k-th query of a candidate; `proven`,
 * when set, is called for every candidate (engine_add) that holds, in
 * candidate order — not for instances an analysis counts itself
 * (engine_record, engine_record_sat): it must note those on its own — and
 * `proven_all`, when set, once after the last of them (message races
 * derive handler races there). */
typedef struct analysis {
    race_kind kind;
    uint8_t n_queries;               /* per candidate: 1 or 2 */
    uint8_t n_located;               /* leading events that name the group */
    uint8_t n_shown;                 /* events of the instance shown */
    uint8_t ranked;                  /* rank = gap: shown, and sorted by */
    uint8_t symmetric;               /* the group is the unordered pair of
                                        ev[0], ev[1] (with ev[2], ev[3]
                                        swapped along) */
    int (*enabled)(const analysis_options *o);
    void (*generate)(engine_run *run);
    /* when set: what `generate` left for the nodes of one batch of
     * engine_order(), called batch by batch after every `generate`, the
     * batch focused once for all analyses (a sweep reads the whole
     * trace); focused 0 when the batch is too wide for the sweeps (list
     * its candidates).  Candidates may then come in any order of kinds. */
    void (*generate_batch)(engine_run *run, uint32_t batch, int focused);
    hb_query (*query)(const candidate *c, unsigned k);
    /* when set: what generate_batch learnt for the analysis's own state,
     * given to engine_note() (a run split over ranks replays it) */
    void (*note)(engine_run *run, const uint32_t v[3]);
    void (*proven)(engine_run *run, const candidate *c);
    void (*proven_all)(engine_run *run);
    /* when set: fills what the kind shows beyond locations, node and first
     * variable (pattern, variable_y) from the shown instance */
    void (*describe)(const trace *t, const analysis_options *o,
                     const uint32_t *instance,
                     race_group *g);
    /* when set: the queries (alternatives, at most max, into out) whose
     * solutions show the shown instance (--witness); NULL: its candidate's
     * first query.  Returns how many. */
    size_t (*witness_queries)(const trace *t, const hb_model *m,
                              const uint32_t *instance,
                              witness_query *out, size_t max);
} analysis;

#endif
