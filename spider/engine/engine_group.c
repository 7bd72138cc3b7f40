/*
 * engine_group.c — instances grouped by location (engine_group.h).
 */
#include "engine_group.h"

#include "../../util/alloc.h"

#include <string.h>

static int by_name(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    return strcmp(t->strings[t->threads[*(const uint32_t *)x].name],
                  t->strings[t->threads[*(const uint32_t *)y].name]);
}

grouper *grouper_new(const trace *t, const analysis *const *analyses)
{
    grouper *g = xcalloc(1, sizeof *g);
    g->t = t;
    g->analyses = analyses;
    for (uint32_t i = 0; i < GROUP_CACHE; i++)
        g->cache[i].key.kind = UINT32_MAX; /* empty */
    uint32_t *order = xmalloc_array(t->n_threads + 1, sizeof *order);
    g->thread_rank = xmalloc_array(t->n_threads + 1, sizeof *g->thread_rank);
    for (uint32_t i = 0; i < t->n_threads; i++)
        order[i] = i;
    qsort_r(order, t->n_threads, sizeof *order, by_name, (void *)t);
    for (uint32_t i = 0; i < t->n_threads; i++)
        g->thread_rank[order[i]] = i;
    free(order);
    return g;
}

void grouper_free(grouper *g)
{
    group_entry *e, *tmp;
    HASH_ITER(hh, g->table, e, tmp) {
        HASH_DEL(g->table, e);
        free(e);
    }
    free(g->g);
    free(g->thread_rank);
    free(g);
}

/* Orders events by (thread name, position in the thread's input): the same
 * whatever the file layout or the order of files on the command line. */
int grouper_cmp_events(const grouper *g, uint32_t a, uint32_t b)
{
    const event *x = &g->t->events[a], *y = &g->t->events[b];
    if (x->thread != y->thread)
        return g->thread_rank[x->thread] < g->thread_rank[y->thread] ? -1 : 1;
    return x->input_index < y->input_index ? -1
         : x->input_index > y->input_index;
}

static group_key key_of(const trace *t, const analysis *a, const uint32_t *ev)
{
    group_key key = {a->kind, {trace_loc_id(t, ev[0]), trace_loc_id(t, ev[1]),
                               a->n_located > 2 ? trace_loc_id(t, ev[2]) : 0,
                               a->n_located > 3 ? trace_loc_id(t, ev[3]) : 0}};
    if (a->symmetric && key.loc[0] > key.loc[1]) {
        uint32_t x = key.loc[0];
        key.loc[0] = key.loc[1];
        key.loc[1] = x;
    }
    return key;
}

static int same_key(const group_key *x, const group_key *y)
{
    return x->kind == y->kind && x->loc[0] == y->loc[0] &&
           x->loc[1] == y->loc[1] && x->loc[2] == y->loc[2] &&
           x->loc[3] == y->loc[3];
}

/* strcmp of the locations of events a and b, whole ("thread#index" of a
 * long thread name too), allocating only for events without `loc`. */
static int cmp_locations(const trace *t, uint32_t a, uint32_t b)
{
    if (t->events[a].loc != STR_NONE && t->events[b].loc != STR_NONE)
        return strcmp(t->strings[t->events[a].loc], t->strings[t->events[b].loc]);
    char *la = event_location_dup(t, a), *lb = event_location_dup(t, b);
    int c = strcmp(la, lb);
    free(la);
    free(lb);
    return c;
}

/* Memory for race groups ran out: says how many there were, since one
 * group per pair of locations is what grows (issue 15). */
static _Noreturn void groups_fail(const grouper *g, size_t bytes)
{
    char what[96];
    snprintf(what, sizeof what, "race group %u (one per pair of locations)",
             g->n + 1);
    alloc_fail(bytes, what);
}

static uint32_t new_group(grouper *g, const group_key *key, const uint32_t *ev)
{
    if (g->n + 1 > g->cap) {
        size_t cap = alloc_next_cap(g->cap, (size_t)g->n + 1);
        group_state *grown = (uint32_t)cap == cap
                                 ? realloc(g->g, cap * sizeof *grown) : NULL;
        if (!grown)
            groups_fail(g, cap * sizeof *grown);
        g->g = grown;
        g->cap = (uint32_t)cap;
    }
    group_state *gs = &g->g[g->n];
    memset(gs, 0, sizeof *gs);
    gs->key = *key;
    if (g->analyses[key->kind]->symmetric) {
        int a_is_lo = trace_loc_id(g->t, ev[0]) == key->loc[0];
        int c = cmp_locations(g->t, ev[0], ev[1]);
        gs->lo_first = a_is_lo ? c <= 0 : c >= 0;
    }
    group_entry *entry = malloc(sizeof *entry);
    if (!entry)
        groups_fail(g, sizeof *entry);
    entry->key = *key;
    entry->index = g->n;
    HASH_ADD(hh, g->table, key, sizeof *key, entry);
    return g->n++;
}

/* The group of an instance; a small cache in front of the hash table,
 * since instances of one group come in runs. */
uint32_t grouper_group_of(grouper *g, const analysis *a, const uint32_t *ev)
{
    group_key key = key_of(g->t, a, ev);
    uint32_t slot = (key.loc[0] * 2654435761u ^ key.loc[1] * 40503u ^
                     key.loc[2] * 97u ^ key.loc[3] * 7919u ^ key.kind) %
                    GROUP_CACHE;
    if (same_key(&g->cache[slot].key, &key))
        return g->cache[slot].index;
    group_entry *found;
    HASH_FIND(hh, g->table, &key, sizeof key, found);
    uint32_t index = found ? found->index : new_group(g, &key, ev);
    g->cache[slot].key = key;
    g->cache[slot].index = index;
    return index;
}

uint32_t grouper_find(const grouper *g, const group_key *key)
{
    group_entry *found;
    HASH_FIND(hh, g->table, key, sizeof *key, found);
    return found ? found->index : UINT32_MAX;
}

/* The instance in the group's order: a symmetric pair with the first
 * location first (by event order when both locations are the same). */
void grouper_orient(const grouper *g, const group_state *gs, const analysis *a,
                    const uint32_t *ev, uint32_t *out)
{
    memset(out, 0, sizeof(uint32_t) * GROUP_EVENTS);
    memcpy(out, ev, sizeof(uint32_t) * a->n_shown); /* ev holds n_shown */
    if (!a->symmetric)
        return;
    uint32_t la = trace_loc_id(g->t, ev[0]), lb = trace_loc_id(g->t, ev[1]);
    uint32_t first_loc = gs->lo_first ? gs->key.loc[0] : gs->key.loc[1];
    int swap = la != lb ? la != first_loc : grouper_cmp_events(g, ev[0], ev[1]) > 0;
    if (swap) {
        out[0] = ev[1], out[1] = ev[0];
        if (a->n_shown == 4)
            out[2] = ev[3], out[3] = ev[2];
    }
}

/* Offers an instance of group gi to show: one that holds before one left
 * undecided, then the lowest rank, then the least by event order, so the
 * report never depends on the order instances are found in. */
void grouper_offer(grouper *g, uint32_t gi, const uint32_t *ev,
                   uint32_t rank, int holds)
{
    group_state *gs = &g->g[gi];
    if (gs->has_instance && (gs->instance_holds > holds ||
                             (gs->instance_holds == holds && rank > gs->inst_rank)))
        return; /* the usual case, decided before any work */
    const analysis *a = g->analyses[gs->key.kind];
    uint32_t inst[GROUP_EVENTS];
    grouper_orient(g, gs, a, ev, inst);
    if (gs->has_instance && gs->instance_holds != holds) {
        if (!holds)
            return;
    } else if (gs->has_instance) {
        int d = rank < gs->inst_rank ? -1 : rank > gs->inst_rank;
        for (uint32_t i = 0; i < a->n_shown && !d; i++)
            d = grouper_cmp_events(g, inst[i], gs->inst[i]);
        if (d >= 0)
            return;
    }
    memcpy(gs->inst, inst, sizeof inst);
    gs->inst_rank = rank;
    gs->has_instance = 1;
    gs->instance_holds = (uint8_t)holds;
}
