/*
 * learn.h — `spider --learn=FILE RUN...`: learning access-interleaving
 * invariants from passing runs (AVIO; spider/analysis/invariants.h).
 *
 * Each RUN (a trace file, or a directory of one run's files) is loaded,
 * its correlated pairs found (for the multi-variable regions) and its
 * regions added to the set FILE holds; FILE is made when missing and
 * written back whole.  A RUN that is an invariants file (its first line
 * `spider-invariants` or a `#` comment) is merged instead: its runs and
 * counts are added.  Nothing is written when any run is bad or the run
 * is stopped.
 */
#ifndef SPIDER_LEARN_H
#define SPIDER_LEARN_H

#include "../analysis/correlation.h"

#include <stdio.h>

/* Learns runs[0..n) into the file at path; one summary line on out.
 * Returns the exit status: 0 (learnt), 2 with one line on stderr (a bad
 * FILE or run, or FILE cannot be written), 3 (stopped by opts->stop: FILE
 * is left as it was). */
int learn_runs(const char *path, const char *const *runs, size_t n,
               const trace_options *opts, const correlation_options *corr,
               FILE *out);

#endif
