/*
 * report.c — the report model's lifetime, and each kind's names.
 */
#include "../spider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By race_kind: what a printer calls a kind (kinds.c derives the names
 * users type from these). */
static const struct {
    const char *title, *key;
} kind_names[RACE_KINDS] = {
    [RACE_DATA] = {"Data races", "data_races"},
    [RACE_MESSAGE] = {"Message races", "message_races"},
    [RACE_HANDLER] = {"Handler races", "handler_races"},
    [RACE_ATOMICITY] = {"Atomicity violations", "atomicity_violations"},
    [RACE_MULTIVAR] = {"Multi-variable atomicity violations",
                       "multi_variable_violations"},
    [RACE_MVRACE] = {"Multi-variable races", "multi_variable_races"},
    [RACE_INCONSISTENT] = {"Inconsistent updates", "inconsistent_updates"},
};

const char *race_kind_title(race_kind k)
{
    return k < RACE_KINDS ? kind_names[k].title : "?";
}

const char *race_kind_key(race_kind k)
{
    return k < RACE_KINDS ? kind_names[k].key : "?";
}

int report_uses_correlations(const report *r)
{
    return r->summary.enabled[RACE_MULTIVAR] || r->summary.enabled[RACE_MVRACE];
}

const char *invariant_state_name(invariant_state s)
{
    static const char *const names[] = {NULL, "holds", "seen", "unlearnt"};
    return s <= INVARIANT_UNLEARNT ? names[s] : NULL;
}

char *race_group_invariant_text(const race_group *g, char *buf, size_t len)
{
    unsigned ex = g->runs_executed, in = g->runs_interleaved;
    switch (g->invariant) {
    case INVARIANT_HOLDS:
        snprintf(buf, len, "violates an invariant: executed in %u passing "
                 "%s, interleaved in %u", ex, ex == 1 ? "run" : "runs", in);
        break;
    case INVARIANT_SEEN:
        snprintf(buf, len, "seen in passing runs: interleaved in %u of the "
                 "%u that executed it", in, ex);
        break;
    case INVARIANT_UNLEARNT:
        snprintf(buf, len, "not learnt: executed in %u passing %s", ex,
                 ex == 1 ? "run" : "runs");
        break;
    default:
        snprintf(buf, len, "%s", "");
    }
    return buf;
}


static void free_witness(race_group *g);

void event_context_free(event_context *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->n_locks; i++)
        free(c->locks[i]);
    free(c->locks);
    free(c->message);
    event_ref *refs[3] = {c->handler, c->sender, c->created};
    for (int i = 0; i < 3; i++) {
        if (refs[i])
            event_ref_free(refs[i]);
        free(refs[i]);
    }
    free(c);
}

void event_ref_free(event_ref *e)
{
    free(e->thread);
    free(e->location);
    free(e->file);
    free(e->node);
    free(e->object);
    event_context_free(e->context);
}

void race_group_free(race_group *g)
{
    for (uint32_t i = 0; i < GROUP_EVENTS; i++) {
        free(g->locations[i]);
        event_ref_free(&g->events[i]);
    }
    free_witness(g);
    free(g->node);
    free(g->variable);
    free(g->variable_y);
}

static void free_witness(race_group *g)
{
    for (uint32_t i = 0; i < g->n_witness; i++)
        event_ref_free(&g->witness[i].event);
    free(g->witness);
    g->witness = NULL;
    g->n_witness = 0;
}

void report_drop_witnesses(report *r)
{
    for (size_t i = 0; i < r->n_groups; i++)
        free_witness(&r->groups[i]);
    for (size_t i = 0; i < r->n_open; i++)
        free_witness(&r->open[i]);
}

void report_free(report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_open; i++)
        race_group_free(&r->open[i]);
    free(r->open);
    for (size_t i = 0; i < r->n_groups; i++)
        race_group_free(&r->groups[i]);
    free(r->groups);
    for (size_t i = 0; i < r->n_correlations; i++) {
        free(r->correlations[i].node);
        free(r->correlations[i].x);
        free(r->correlations[i].y);
        free(r->correlations[i].rule);
    }
    free(r->correlations);
    free(r);
}

/* Keeps the groups not dropped, in order; returns how many. */
static size_t keep_groups(race_group *g, size_t n, const uint8_t *drop)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (drop && drop[i])
            race_group_free(&g[i]);
        else
            g[kept++] = g[i];
    }
    return kept;
}

void report_drop_groups(report *r, const uint8_t *drop_groups,
                        const uint8_t *drop_open)
{
    r->n_groups = keep_groups(r->groups, r->n_groups, drop_groups);
    r->n_open = keep_groups(r->open, r->n_open, drop_open);
    memset(r->n_by_kind, 0, sizeof r->n_by_kind);
    for (size_t i = 0; i < r->n_groups; i++)
        r->n_by_kind[r->groups[i].kind]++;
}
