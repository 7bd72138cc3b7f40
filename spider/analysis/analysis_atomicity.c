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
#include "analysis_between.h"
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <string.h>


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

/* The types a remote access r must have for (p, r, c) to be one of the
 * chosen patterns: bit 0 a read, bit 1 a write. */
static unsigned remote_types(const trace *t, const analysis_options *o,
                             uint32_t p, uint32_t c)
{
    unsigned pw = is_write(t, p), cw = is_write(t, c), types = 0;
    for (unsigned rw = 0; rw < 2; rw++)
        if (o->patterns & PATTERN_BIT(pw, rw, cw))
            types |= 1u << rw;
    return types;
}

/* Whether p and c (acc[i], acc[i + 1]) are consecutive in one context
 * and may form an instance. */
static int pair_holds(const trace *t, const analysis_options *o,
                      const uint32_t *section_end, uint32_t p, uint32_t c)
{
    const event *ep = &t->events[p], *ec = &t->events[c];
    return ep->thread == ec->thread && ep->handler == ec->handler &&
           region_holds(t, o, section_end, p, c);
}

static uint32_t gap_of(const trace *t, uint32_t p, uint32_t c)
{
    return t->events[c].pos - t->events[p].pos - 1;
}

/* Every candidate of the pair (p, c): each remote access of acc[0..n). */
static void list_pair(engine_run *run, const uint32_t *acc, uint32_t n,
                      uint32_t p, uint32_t c)
{
    const trace *t = engine_trace(run);
    unsigned types = remote_types(t, engine_options(run), p, c);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = acc[k];
        if (t->events[r].thread == t->events[p].thread ||
            !(types & (1u << is_write(t, r))))
            continue;
        uint32_t ev[3] = {p, r, c};
        engine_add(run, RACE_ATOMICITY, ev, gap_of(t, p, c), 1);
    }
}

/* The candidates of one variable, listed: acc[0..n) sorted by context. */
static void list_variable(engine_run *run, const uint32_t *acc, uint32_t n,
                          const uint32_t *section_end)
{
    const trace *t = engine_trace(run);
    const analysis_options *o = engine_options(run);
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++)
        if (pair_holds(t, o, section_end, acc[i], acc[i + 1]))
            list_pair(run, acc, n, acc[i], acc[i + 1]);
}

/* The candidates of one variable (acc[0..n) by context, a node of the
 * focused batch), counted over intervals (analysis_between.h).  0 when
 * they must be listed. */
static int count_variable(engine_run *run, const hb_order *o,
                          const uint32_t *acc, uint32_t n,
                          const uint32_t *section_end, between_scratch *s)
{
    const trace *t = engine_trace(run);
    const analysis_options *opt = engine_options(run);
    if (!between_build(s, o, acc, n))
        return 0;
    uint64_t unsat = 0;
    for (uint32_t i = 0; i + 1 < n && !engine_stopped(run); i++) {
        uint32_t p = acc[i], c = acc[i + 1];
        if (!pair_holds(t, opt, section_end, p, c))
            continue;
        if (hb_order_chain(o, p) != hb_order_chain(o, c)) {
            list_pair(run, acc, n, p, c); /* not one chain: as the plain loop */
            continue;
        }
        between_count(run, RACE_ATOMICITY, o, s, p, c, remote_types(t, opt, p, c),
                      gap_of(t, p, c), &unsat);
    }
    if (unsat)
        engine_count_unsat(run, RACE_ATOMICITY, unsat);
    return 1;
}

/* What `generate` leaves to generate_batch: the kept accesses by batch,
 * then variable and context. */
typedef struct atom_state {
    uint32_t *acc, n;
    uint32_t *batch_start;           /* per batch: its first in acc */
    uint32_t *section_end;
    between_scratch *scratch;
} atom_state;

static void free_state(void *p)
{
    atom_state *st = p;
    free(st->acc);
    free(st->batch_start);
    free(st->section_end);
    between_scratch_free(st->scratch);
    free(st);
}

/* The variables of acc[from..to), counted over intervals when o is the
 * focused order, else listed. */
static void variables(engine_run *run, atom_state *st, uint32_t from,
                      uint32_t to, const hb_order *o)
{
    const trace *t = engine_trace(run);
    const uint32_t *acc = st->acc;
    for (uint32_t i = from, j; i < to && !engine_stopped(run); i = j) {
        for (j = i; j < to && t->events[acc[j]].object == t->events[acc[i]].object;)
            j++;
        if (!o || !count_variable(run, o, acc + i, j - i, st->section_end,
                                  st->scratch))
            list_variable(run, acc + i, j - i, st->section_end);
    }
}

/* Every candidate: with engine_order (--solver=auto) batch by batch in
 * generate_batch, counted over intervals; else listed here. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const hb_order *o = engine_order(run);
    atom_state *st = xcalloc(1, sizeof *st);
    engine_set_state(run, RACE_ATOMICITY, st, free_state);
    st->acc = engine_accesses_by_context(run, &st->n);
    st->section_end = section_ends(t);
    if (!o) {
        variables(run, st, 0, st->n, NULL);
        return;
    }
    st->scratch = between_scratch_new(t, NULL);
    /* stable: each batch keeps the order by variable and context */
    st->batch_start = engine_sort_by_batch(o, st->acc, st->n);
}

static void generate_batch(engine_run *run, uint32_t batch, int focused)
{
    atom_state *st = engine_state(run, RACE_ATOMICITY);
    if (!st->batch_start)
        return; /* listed in generate */
    variables(run, st, st->batch_start[batch], st->batch_start[batch + 1],
              focused ? engine_order(run) : NULL);
}

/* The pattern: the types of p, r and c. */
static void describe(const trace *t, const analysis_options *o,
                     const uint32_t *inst, race_group *g)
{
    (void)o;
    for (uint32_t i = 0; i < 3; i++)
        g->pattern[i] = t->events[inst[i]].kind == EV_WRITE ? 'W' : 'R';
    g->pattern[3] = '\0';
}

const analysis analysis_atomicity = {
    .kind = RACE_ATOMICITY,
    .n_queries = 2, .n_located = 3, .n_shown = 3, .ranked = 1, .symmetric = 0,
    .enabled = enabled, .generate = generate,
    .generate_batch = generate_batch, .query = between_query,
    .describe = describe,
};
