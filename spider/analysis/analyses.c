/*
 * analyses.c — the analyses spider runs, by race_kind: the one list an
 * analysis is added to.  It sits above the engine and the analyses, so
 * that the engine never names an analysis and an analysis only calls the
 * engine.
 */
#include "analysis_kinds.h"
#include "../engine/engine_analyse.h"
#include "../engine/engine_share.h"

static const analysis *const analyses[RACE_KINDS] = {
    [RACE_DATA] = &analysis_data,
    [RACE_MESSAGE] = &analysis_message,
    [RACE_HANDLER] = &analysis_handler,
    [RACE_ATOMICITY] = &analysis_atomicity,
    [RACE_MULTIVAR] = &analysis_multivar,
    [RACE_MVRACE] = &analysis_multivar_race,
    [RACE_INCONSISTENT] = &analysis_inconsistent,
};

report *analyse(const trace *t, hb_model *m, const analysis_options *opts,
                char *err, size_t err_len)
{
    return engine_analyse(analyses, t, m, opts, err, err_len);
}

int analyse_share(const trace_share *s, hb_model *m, hb_outside *out,
                  const prune_stats *pruning, const analysis_options *opts,
                  struct comm *c, report **rep, char *err, size_t err_len)
{
    return engine_analyse_share(analyses, s, m, out, pruning, opts, c, rep,
                                err, err_len);
}
