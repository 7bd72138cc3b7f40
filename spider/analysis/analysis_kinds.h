/*
 * analysis_kinds.h — the descriptor of each analysis (engine/analysis.h),
 * one per race_kind, defined in its analysis_*.c.  analyses.c lists them
 * for the engine, which never names a kind of bug.
 *
 * Ownership: static, read-only; nothing to free.
 */
#ifndef SPIDER_ANALYSIS_KINDS_H
#define SPIDER_ANALYSIS_KINDS_H

#include "../engine/engine.h"

extern const analysis analysis_data, analysis_message, analysis_handler,
    analysis_atomicity, analysis_multivar, analysis_multivar_race,
    analysis_inconsistent;

#endif
