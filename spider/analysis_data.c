/*
 * analysis_data.c — data races (SPEC §4): accesses a, b to one variable of
 * a node, at least one a write, in different threads, such that
 * Φ ∧ O(a) = O(b) is satisfiable.  Grouped by the pair {loc(a), loc(b)}.
 */
#include "engine.h"

#include "../traces/alloc.h"
#include "../traces/text.h"

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

/* How many candidates the accesses acc[0..n) of one variable make:
 * conflicting pairs minus those of one thread (per[thread] counts). */
static uint64_t pairs_of_variable(const trace *t, const uint32_t *acc,
                                  uint32_t n, uint64_t (*per)[2])
{
    uint64_t w = 0, r = 0, same = 0;
    for (uint32_t k = 0; k < n; k++) {
        const event *e = &t->events[acc[k]];
        per[e->thread][e->kind == EV_WRITE]++;
        *(e->kind == EV_WRITE ? &w : &r) += 1;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint64_t *c = per[t->events[acc[k]].thread];
        same += c[1] * (c[1] - (c[1] > 0)) / 2 + c[1] * c[0];
        c[0] = c[1] = 0; /* counted once; ready for the next variable */
    }
    return w * (w - (w > 0)) / 2 + w * r - same;
}

/* Reserves a variable's candidates at once, so that running out of memory
 * names the variable rather than "a growing array". */
static void reserve(engine_run *run, const uint32_t *acc, uint32_t n,
                    uint64_t (*per)[2])
{
    const trace *t = engine_trace(run);
    uint64_t pairs = pairs_of_variable(t, acc, n, per);
    const shared_object *o = &t->objects[t->events[acc[0]].object];
    text_pool tp = {0};
    char *what = NULL;
    if (asprintf(&what, "%llu candidates on variable %s of node %s",
                 (unsigned long long)pairs, text_safe(&tp, t->strings[o->name]),
                 text_safe(&tp, t->strings[o->node])) < 0)
        alloc_fail(0, "a message");
    text_pool_free(&tp);
    engine_reserve(run, pairs, what);
    free(what);
}

/* Every conflicting pair of kept accesses, one variable at a time. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    uint32_t n;
    uint32_t *acc = engine_accesses(run, by_object, &n);
    uint64_t (*per)[2] = xcalloc(t->n_threads + 1, sizeof *per);
    for (uint32_t i = 0, j; i < n && !engine_stopped(run); i = j) {
        for (j = i; j < n && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        reserve(run, acc + i, j - i, per);
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
    free(per);
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
