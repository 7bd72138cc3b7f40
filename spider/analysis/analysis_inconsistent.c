/*
 * analysis_inconsistent.c — inconsistent updates (`--inconsistent-updates`;
 * MUVI, seeds/lu-avio-muvi-thesis.txt §5.5; docs/model.md).
 *
 * Not a question of Φ: for each of MUVI's rules W(x) ⇒ A(y) that holds
 * (correlation_muvi.h), a function that writes x but never accesses y
 * violates it — the programmer updated one variable and forgot its
 * partner.  Each write of x at a location of such a function (on any
 * node, every event of the trace: pruning changes nothing) is an
 * instance, shown with s, the least access to y (by thread name and
 * place) in a function that writes x and accesses y: where the rule is
 * kept.  Grouped by (loc(w), loc(s)).  The text report ranks groups as
 * MUVI does: a W(x) ⇒ W(y) rule first, then fewer violating functions,
 * then higher confidence.
 */
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"
#include "correlation_muvi.h"

#include <stdio.h>
#include <string.h>

static int enabled(const analysis_options *o)
{
    return o->inconsistent_updates;
}

/* An access with a location: its variable's name, function and event. */
typedef struct placed {
    str_id name;
    uint32_t fn, ev;
} placed;

static int by_name(const void *x, const void *y)
{
    const placed *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* The entries of name in v[0..n) (sorted by name). */
static const placed *range_of(const placed *v, size_t n, str_id name,
                              size_t *count)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].name < name)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n && v[end].name == name)
        end++;
    *count = end - lo;
    return v + lo;
}

/* Whether a is before b in the order instances are shown by. */
static int earlier(const engine_run *run, uint32_t a, uint32_t b)
{
    const trace *t = engine_trace(run);
    uint32_t ra = engine_thread_rank(run, t->events[a].thread);
    uint32_t rb = engine_thread_rank(run, t->events[b].thread);
    return ra != rb ? ra < rb : t->events[a].input_index < t->events[b].input_index;
}

/* The violations of rule W(x) ⇒ A(y); stamps are per function. */
static void violations(engine_run *run, const placed *v, size_t n,
                       const muvi_rule *r, uint32_t *writes_x,
                       uint32_t *touches_y, uint32_t token)
{
    const trace *t = engine_trace(run);
    size_t nx, ny;
    const placed *x = range_of(v, n, r->from, &nx);
    const placed *y = range_of(v, n, r->to, &ny);
    for (size_t i = 0; i < nx; i++)
        if (t->events[x[i].ev].kind == EV_WRITE)
            writes_x[x[i].fn] = token;
    for (size_t i = 0; i < ny; i++)
        touches_y[y[i].fn] = token;
    uint32_t s = UINT32_MAX;
    for (size_t i = 0; i < ny; i++)
        if (writes_x[y[i].fn] == token && (s == UINT32_MAX || earlier(run, y[i].ev, s)))
            s = y[i].ev;
    if (s == UINT32_MAX)
        return; /* never together: the rule has no supporter left */
    for (size_t i = 0; i < nx; i++)
        if (t->events[x[i].ev].kind == EV_WRITE && touches_y[x[i].fn] != token) {
            uint32_t ev[2] = {x[i].ev, s};
            engine_count(run, RACE_INCONSISTENT, ev, 1);
        }
}

static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const analysis_options *o = engine_options(run);
    uint32_t *fn_of = muvi_functions(t);
    placed *v = xmalloc_array((size_t)t->n_events + 1, sizeof *v);
    size_t n = 0;
    uint32_t n_fns = 0;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (!event_is_access(ev) || ev->loc == STR_NONE)
            continue;
        v[n++] = (placed){t->objects[ev->object].name, fn_of[ev->loc], e};
        if (fn_of[ev->loc] + 1 > n_fns)
            n_fns = fn_of[ev->loc] + 1;
    }
    if (n)
        qsort(v, n, sizeof *v, by_name);
    uint32_t *writes_x = xcalloc((size_t)n_fns + 1, sizeof *writes_x);
    uint32_t *touches_y = xcalloc((size_t)n_fns + 1, sizeof *touches_y);
    const muvi_rule *rules = o->muvi_rules;
    for (size_t k = 0; k < o->n_muvi_rules && !engine_stopped(run); k++)
        if (rules[k].a1 == MUVI_W && rules[k].a2 == MUVI_A)
            violations(run, v, n, &rules[k], writes_x, touches_y, (uint32_t)k + 1);
    free(writes_x);
    free(touches_y);
    free(v);
    free(fn_of);
}

/* The rule A1(x) ⇒ A2(y) among o's, or NULL. */
static const muvi_rule *rule_of(const analysis_options *o, str_id x, str_id y,
                                uint8_t a1, uint8_t a2)
{
    for (size_t k = 0; k < o->n_muvi_rules; k++) {
        const muvi_rule *r = &o->muvi_rules[k];
        if (r->from == x && r->to == y && r->a1 == a1 && r->a2 == a2)
            return r;
    }
    return NULL;
}

/* variable_y, the rule ("W(x) => W(y)" when that one holds too) with its
 * support and confidence (of W(x) ⇒ A(y)). */
static void describe(const trace *t, const analysis_options *o,
                     const uint32_t *inst, race_group *g)
{
    str_id x = t->objects[t->events[inst[0]].object].name;
    str_id y = t->objects[t->events[inst[1]].object].name;
    g->variable_y = xstrdup(t->strings[y]);
    const muvi_rule *any = rule_of(o, x, y, MUVI_W, MUVI_A);
    int ww = rule_of(o, x, y, MUVI_W, MUVI_W) != NULL;
    snprintf(g->pattern, sizeof g->pattern, "W(x) => %s(y)", ww ? "W" : "A");
    g->rule_support = any ? any->support : 0;
    g->rule_confidence = any ? any->confidence : 0;
}

/* No run shows an inconsistent update: it is no interleaving. */
static size_t witness_queries(const trace *t, const hb_model *m,
                              const uint32_t *instance, witness_query *out,
                              size_t max)
{
    (void)t, (void)m, (void)instance, (void)out, (void)max;
    return 0;
}

const analysis analysis_inconsistent = {
    .kind = RACE_INCONSISTENT,
    .n_queries = 0, .n_located = 2, .n_shown = 2, .ranked = 0, .symmetric = 0,
    .enabled = enabled, .generate = generate, .describe = describe,
    .witness_queries = witness_queries,
};
