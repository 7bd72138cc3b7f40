/*
 * select.h — applies --suppressions, the filters (--kind, --node, --match)
 * and --baseline to a decided report, in that order: suppressed groups are
 * dropped, filtered ones hidden, the rest marked new or known.  What each
 * step did goes into a report_notes for the printers.  Nothing here
 * changes what was decided (the summary's counts stay as they were).
 *
 * Ownership: select_options borrows everything; notes->rules points into
 * o->suppressions, so it lives as long as that.
 */
#ifndef SPIDER_SELECT_H
#define SPIDER_SELECT_H

#include "../analysis/invariants.h"
#include "../report/baseline.h"
#include "filter.h"
#include "suppress.h"

typedef struct select_options {
    group_filter filter;
    suppressions *suppressions;      /* or NULL */
    const char *suppressions_path;
    const baseline *baseline;        /* or NULL */
    const char *baseline_path;
    const invariants *invariants;    /* or NULL */
    const char *invariants_path;
    invariant_rule invariant_rule;
    int only_invariant_violations;
} select_options;

/* Drops and marks r's groups (r->groups and r->open) as o says. */
void select_groups(report *r, const select_options *o, report_notes *notes);

/* The exit status of a selected report (SPEC §6): 3 when any candidate was
 * undecided (filters never hide an incomplete run), else 1 when a group is
 * left — with a baseline, a new one —, else 0. */
int select_exit_status(const report *r, const report_notes *notes);

#endif
