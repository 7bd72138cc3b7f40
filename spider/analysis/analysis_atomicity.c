/*
 * analysis_atomicity.c — single-variable atomicity violations (SPEC §4,
 * `--atomicity`; AVIO, seeds/lu-avio-muvi-thesis.txt ch. 4).
 *
 * p and c are consecutive accesses to x in one context (a thread outside
 * handlers, or one handler: nothing in that context touches x between
 * them), r an access to x in another thread of the node, and the types
 * (p, r, c) one of the chosen patterns (default AVIO's unserializable
 * RWR, WWR, WRW, RWW).  The instance holds when r can fall between p and
 * c — Φ ∧ O(p) < O(r) < O(c) — and is not forced to — Φ ∧ (O(r) < O(p) ∨
 * O(c) < O(r)): an interleaving that synchronisation always imposes is
 * intended.  --atomic-region narrows p and c to one critical section of
 * their thread (lock) or to one message handler (handler).  Grouped by
 * (loc(p), loc(r), loc(c)); the rank of an instance is CTrigger's local
 * gap (ch. 7.4): the events of the thread between p and c.
 */
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"


/* section_end[e] for every event: the largest end (position of the
 * UNLOCK, or UINT32_MAX for a lock never released) of the sections of its
 * thread that started before it.  p and c (p first) lie in one section
 * exactly when section_end[p] > pos(c). */
static uint32_t *section_ends(const trace *t)
{
    int32_t *section_at = xmalloc_array(t->n_events + 1, sizeof *section_at);
    uint32_t *end = xmalloc_array(t->n_events + 1, sizeof *end);
    for (uint32_t e = 0; e < t->n_events; e++)
        section_at[e] = NONE;
    for (uint32_t s = 0; s < t->n_sections; s++)
        section_at[t->sections[s].acquire] = (int32_t)s;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        uint32_t reach = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            end[e] = reach;
            if (section_at[e] == NONE)
                continue;
            int32_t rel = t->sections[section_at[e]].release;
            uint32_t stop = rel == NONE ? UINT32_MAX : t->events[rel].pos;
            if (stop > reach)
                reach = stop;
        }
    }
    free(section_at);
    return end;
}

static int enabled(const analysis_options *o)
{
    return o->atomicity;
}

static int is_write(const trace *t, uint32_t e)
{
    return t->events[e].kind == EV_WRITE;
}

/* Whether p and c (consecutive in one context) may form an instance. */
static int region_holds(const trace *t, const analysis_options *o,
                        const uint32_t *section_end, uint32_t p, uint32_t c)
{
    switch (o->region) {
    case REGION_LOCK:
        return section_end[p] > t->events[c].pos;
    case REGION_HANDLER:
        return t->events[p].handler != NONE;
    default:
        return 1;
    }
}

/* The candidates of one variable: acc[0..n) sorted by context. */
static void variable_candidates(engine_run *run, const uint32_t *acc,
                                uint32_t n, const uint32_t *section_end)
{
    const trace *t = engine_trace(run);
    const analysis_options *o = engine_options(run);
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++) {
        uint32_t p = acc[i], c = acc[i + 1];
        const event *ep = &t->events[p], *ec = &t->events[c];
        if (ep->thread != ec->thread || ep->handler != ec->handler ||
            !region_holds(t, o, section_end, p, c))
            continue;
        uint32_t gap = ec->pos - ep->pos - 1;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = acc[k];
            if (t->events[r].thread == ep->thread)
                continue;
            unsigned bit = PATTERN_BIT(is_write(t, p), is_write(t, r),
                                       is_write(t, c));
            if (!(o->patterns & bit))
                continue;
            uint32_t ev[3] = {p, r, c};
            engine_add(run, RACE_ATOMICITY, ev, gap, 1);
        }
    }
}

static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    uint32_t n;
    uint32_t *acc = engine_accesses_by_context(run, &n);
    uint32_t *section_end = section_ends(t);
    for (uint32_t i = 0, j; i < n && !engine_stopped(run); i = j) {
        for (j = i; j < n && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        variable_candidates(run, acc + i, j - i, section_end);
    }
    free(section_end);
    free(acc);
}

static hb_query query(const candidate *c, unsigned k)
{
    return k == 0 ? hb_query_between(c->ev[0], c->ev[1], c->ev[2])
                  : hb_query_outside(c->ev[0], c->ev[1], c->ev[2]);
}

/* The pattern: the types of p, r and c. */
static void describe(const trace *t, const uint32_t *inst, race_group *g)
{
    for (uint32_t i = 0; i < 3; i++)
        g->pattern[i] = t->events[inst[i]].kind == EV_WRITE ? 'W' : 'R';
    g->pattern[3] = '\0';
}

const analysis analysis_atomicity = {
    .kind = RACE_ATOMICITY,
    .n_queries = 2, .n_located = 3, .n_shown = 3, .ranked = 1, .symmetric = 0,
    .enabled = enabled, .generate = generate, .query = query,
    .describe = describe,
};
