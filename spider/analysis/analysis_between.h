/*
 * analysis_between.h — the candidates (p, r, c) of atomicity violations
 * and multi-variable races, whose two queries are "r between p and c"
 * and "r outside them", counted over intervals of chains on the focused
 * batch of engine_order() instead of listed one by one
 * (analysis_between.c).  The verdicts, counts and shown instances are
 * those the engine gives the listed candidates.
 *
 * Ownership: a between_scratch is the caller's, freed with
 * between_scratch_free(); it borrows the trace, and a scratch made to
 * share another's tables borrows them (free it first).  Allocation
 * failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ANALYSIS_BETWEEN_H
#define SPIDER_ANALYSIS_BETWEEN_H

#include "../engine/engine.h"

typedef struct between_scratch between_scratch;

/* A scratch for the remote accesses of one variable at a time; with share,
 * its tables by location are share's (one per trace suffices). */
between_scratch *between_scratch_new(const trace *t, between_scratch *share);
void between_scratch_free(between_scratch *s);

/* Takes acc[0..n), a variable's kept accesses of the focused batch sorted
 * by context, as the remote accesses.  0 when a chain's order runs against
 * the input order (--order=timestamp): then list the candidates. */
int between_build(between_scratch *s, const hb_order *o, const uint32_t *acc,
                  uint32_t n);

/* Every candidate (p, r, c) of kind with r one of the built accesses of
 * another thread than p's, of the types `types` (bit 0 a read, bit 1 a
 * write): p before c on one chain of the focused batch.  Those U makes
 * UNSAT are added to *unsat (the caller counts them), those the
 * shortcuts find SAT recorded per group, the rest added for Z3; rank
 * gap. */
void between_count(engine_run *run, race_kind kind, const hb_order *o,
                   between_scratch *s, uint32_t p, uint32_t c,
                   unsigned types, uint32_t gap, uint64_t *unsat);

/* The two queries of a candidate (p, r, c) of such a kind: k 0 "r between
 * p and c", k 1 "r outside them" (the analysis descriptor's `query`). */
hb_query between_query(const candidate *c, unsigned k);

#endif
