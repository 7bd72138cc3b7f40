/*
 * report.c — the report model's lifetime and names.
 */
#include "spider.h"

#include <stdlib.h>

const char *race_kind_title(race_kind k)
{
    static const char *const titles[RACE_KINDS] = {
        "Data races", "Message races", "Handler races"};
    return k < RACE_KINDS ? titles[k] : "?";
}

static void free_ref(event_ref *e)
{
    free(e->thread);
    free(e->location);
    free(e->file);
}

static void free_group(race_group *g)
{
    free(g->locations[0]);
    free(g->locations[1]);
    free(g->node);
    free(g->variable);
    free_ref(&g->first);
    free_ref(&g->second);
    free_ref(&g->first_rcv);
    free_ref(&g->second_rcv);
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
