/*
 * analysis_data.c — data races (SPEC §4): accesses a, b to one variable of
 * a node, at least one a write, in different threads, such that
 * Φ ∧ O(a) = O(b) is satisfiable.  Grouped by the pair {loc(a), loc(b)}.
 */
#include "engine.h"

#include "../traces/alloc.h"

#include <string.h>

static int by_object(const void *x, const void *y, void *ctx)
{
    const trace *t = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int32_t oa = t->events[a].object, ob = t->events[b].object;
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int enabled(const analysis_options *o)
{
    (void)o;
    return 1;
}

/* Every conflicting pair of kept accesses, one variable at a time. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    uint32_t n;
    uint32_t *acc = engine_accesses(run, by_object, &n);
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        for (uint32_t x = i; x < j; x++)
            for (uint32_t y = x + 1; y < j; y++) {
                const event *ex = &t->events[acc[x]], *ey = &t->events[acc[y]];
                if (ex->thread == ey->thread ||
                    (ex->kind != EV_WRITE && ey->kind != EV_WRITE))
                    continue;
                uint32_t ev[2] = {acc[x], acc[y]};
                engine_add(run, RACE_DATA, ev, 0, 1);
            }
    }
    free(acc);
}

static hb_query query(const candidate *c, unsigned k)
{
    (void)k;
    return hb_query_simultaneous(c->ev[0], c->ev[1]);
}

const analysis analysis_data = {
    .kind = RACE_DATA, .title = "Data races", .json_key = "data_races",
    .n_queries = 1, .n_located = 2, .n_shown = 2, .symmetric = 1,
    .enabled = enabled, .generate = generate, .query = query,
};
