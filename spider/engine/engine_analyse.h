/*
 * engine_analyse.h — runs the analyses (engine_analyse.c): candidates
 * from each enabled analysis, their verdicts (engine_decide.h), and their
 * grouping by location into the report.
 *
 * Ownership: the report is the caller's (report_free()).  Allocation
 * failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_ANALYSE_H
#define SPIDER_ENGINE_ANALYSE_H

#include "engine.h"

/* analyse() (spider.h) with the analyses given, by race_kind
 * (spider/analysis/analyses.c lists them).  NULL with err on failure. */
report *engine_analyse(const analysis *const *analyses, const trace *t,
                       hb_model *m, const analysis_options *opts, char *err,
                       size_t err_len);

#endif
