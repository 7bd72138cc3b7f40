/*
 * select.c — suppressions, filters and baseline on a decided report
 * (select.h).
 */
#include "select.h"

#include "../../util/alloc.h"

#include <string.h>

/* Marks g by what the invariants say of its region: (loc(p), loc(c)) or
 * (loc(a1), loc(a2)).  1 if --only-invariant-violations drops it. */
static int judge(race_group *g, const select_options *o)
{
    region_kind k;
    const char *second;
    if (g->kind == RACE_ATOMICITY) {
        k = REGION_KIND_ATOMICITY;
        second = g->locations[2];
    } else if (g->kind == RACE_MULTIVAR) {
        k = REGION_KIND_MULTIVAR;
        second = g->locations[1];
    } else {
        return 0;
    }
    g->invariant = (uint8_t)invariants_judge(
        o->invariants, k, g->locations[0], second, &o->invariant_rule,
        &g->runs_executed, &g->runs_interleaved);
    return o->only_invariant_violations && g->invariant != INVARIANT_HOLDS;
}

/* 1 if the group is dropped (counted in notes), else marks it; counted:
 * a decided group (not an open one). */
static int select_one(race_group *g, const select_options *o,
                      report_notes *notes, int counted)
{
    cJSON *json = report_group_json(g);
    int drop = 1;
    if (o->suppressions && suppressions_match(o->suppressions, g->kind, json))
        notes->suppressed[g->kind]++;
    else if (!filter_keeps(&o->filter, g->kind, json))
        notes->hidden[g->kind]++;
    else if (o->invariants && judge(g, o))
        notes->not_invariant[g->kind]++;
    else
        drop = 0;
    if (!drop && counted && g->invariant)
        notes->by_invariant[g->invariant]++;
    if (!drop && o->baseline) {
        int known = baseline_has(o->baseline, g->kind, json);
        g->baseline = known ? BASELINE_KNOWN : BASELINE_NEW;
        if (counted)
            *(known ? &notes->known_groups : &notes->new_groups) += 1;
    }
    cJSON_Delete(json);
    return drop;
}

void select_groups(report *r, const select_options *o, report_notes *notes)
{
    memset(notes, 0, sizeof *notes);
    notes->suppressions = o->suppressions ? o->suppressions_path : NULL;
    notes->baseline = o->baseline ? o->baseline_path : NULL;
    notes->kinds = o->filter.kinds;
    if (o->invariants) {
        notes->invariants = o->invariants_path;
        notes->invariant_runs = invariants_runs(o->invariants);
        notes->invariant_min_runs = o->invariant_rule.min_runs;
        notes->invariant_threshold = o->invariant_rule.threshold;
        notes->only_invariant_violations = o->only_invariant_violations;
    }
    uint8_t *drop = xcalloc(r->n_groups + 1, 1);
    uint8_t *drop_open = xcalloc(r->n_open + 1, 1);
    for (size_t i = 0; i < r->n_groups; i++)
        drop[i] = (uint8_t)select_one(&r->groups[i], o, notes, 1);
    /* groups that may race (undecided) are narrowed alike, but are neither
     * new nor known: they are not races (yet) */
    for (size_t i = 0; i < r->n_open; i++)
        drop_open[i] = (uint8_t)select_one(&r->open[i], o, notes, 0);
    report_drop_groups(r, drop, drop_open);
    free(drop);
    free(drop_open);
    if (o->suppressions)
        notes->rules = suppressions_uses(o->suppressions, &notes->n_rules);
}

int select_exit_status(const report *r, const report_notes *notes)
{
    if (r->summary.undecided || r->summary.partial) /* e.g. stopped while
                                                        counting handler races */
        return EXIT_INCOMPLETE;
    if (notes && notes->baseline)
        return notes->new_groups ? EXIT_RACES : EXIT_NO_RACE;
    return r->n_groups ? EXIT_RACES : EXIT_NO_RACE;
}
