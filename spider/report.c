/*
 * report.c — the report model's lifetime.  (Kind names live with each
 * analysis: race_kind_title() and race_kind_key() in engine.c.)
 */
#include "spider.h"

#include <stdlib.h>

static void free_ref(event_ref *e)
{
    free(e->thread);
    free(e->location);
    free(e->file);
}

static void free_group(race_group *g)
{
    for (uint32_t i = 0; i < GROUP_EVENTS; i++) {
        free(g->locations[i]);
        free_ref(&g->events[i]);
    }
    free(g->node);
    free(g->variable);
}

void report_free(report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_open; i++)
        free_group(&r->open[i]);
    free(r->open);
    for (size_t i = 0; i < r->n_groups; i++)
        free_group(&r->groups[i]);
    free(r->groups);
    free(r);
}
