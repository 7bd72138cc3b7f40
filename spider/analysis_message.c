/*
 * analysis_message.c — message races and the handler races they lead to
 * (SPEC §4).
 *
 * Message race: RCVs r1 before r2 in one thread, with sends s1, s2 in the
 * trace ("its send": the first, for an id sent more than once), not both
 * TCP on one directed channel, such that Φ ∧ O(s2) < O(r1): m2 could have
 * been delivered first.  Grouped by the two SND locations.  A candidate's
 * events: s1, s2, r1, r2.
 *
 * Handler race: for each message race that holds, every pair of accesses
 * a ∈ handler(m1), b ∈ handler(m2) to one variable, one a write; no query
 * of its own.
 */
#include "engine.h"

#include "../traces/alloc.h"

#include <uthash.h>

static int its_send(const trace *t, const hb_model *m, uint32_t rcv)
{
    const event *r = &t->events[rcv];
    if (r->match == NONE)
        return NONE;
    uint32_t s = t->matches[r->match].sends[0];
    return m->kept[s] ? (int32_t)s : NONE;
}

/* The analysis's state from `generate` to `proven`: the handler of each
 * RCV, and the handler-race pairs already counted. */
typedef struct pair_seen {
    uint64_t pair;                   /* lower event id << 32 | higher */
    UT_hash_handle hh;
} pair_seen;

typedef struct message_state {
    int32_t *handler_of;             /* by RCV event: its handler, or NONE */
    int nesting;                     /* some handler lies inside another */
    pair_seen *counted;              /* pairs counted, when nesting */
} message_state;

static void free_state(void *p)
{
    message_state *st = p;
    pair_seen *x, *tmp;
    HASH_ITER(hh, st->counted, x, tmp) {
        HASH_DEL(st->counted, x);
        free(x);
    }
    free(st->handler_of);
    free(st);
}

static int32_t *handlers_by_rcv(const trace *t)
{
    int32_t *h = xmalloc_array(t->n_events + 1, sizeof *h);
    for (uint32_t e = 0; e < t->n_events; e++)
        h[e] = NONE;
    for (uint32_t i = 0; i < t->n_handlers; i++)
        if (t->handlers[i].rcv != NONE)
            h[t->handlers[i].rcv] = (int32_t)i;
    return h;
}

/* 1 the first time the pair {a, b} is seen.  Without nested handlers a
 * pair of accesses has one handler pair, so one message pair: no need to
 * remember it (which costs a hash entry per handler race). */
static int first_time(message_state *st, uint32_t a, uint32_t b)
{
    if (!st->nesting)
        return 1;
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    pair_seen *x;
    HASH_FIND(hh, st->counted, &key, sizeof key, x);
    if (x)
        return 0;
    x = xmalloc(sizeof *x);
    x->pair = key;
    HASH_ADD(hh, st->counted, pair, sizeof key, x);
    return 1;
}

/* Whether a racing pair of these receives could add handler races: if so,
 * it is never skipped (its handler groups are not known in advance). */
static int has_handler_accesses(const trace *t, int32_t h)
{
    return h != NONE && t->handlers[h].begin != t->handlers[h].last;
}

static int enabled(const analysis_options *o)
{
    (void)o;
    return 1;
}

static void pairs_of_thread(engine_run *run, const uint32_t *rcvs, uint32_t n,
                            const int32_t *handler)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = x + 1; y < n; y++) {
            const event *r1 = &t->events[rcvs[x]], *r2 = &t->events[rcvs[y]];
            int32_t s1 = its_send(t, m, rcvs[x]), s2 = its_send(t, m, rcvs[y]);
            if (s1 == s2)
                continue;
            if (r1->tcp && r2->tcp && r1->object != NONE &&
                r1->object == r2->object)
                continue; /* TCP keeps a channel's order */
            int handlers = has_handler_accesses(t, handler[x]) &&
                           has_handler_accesses(t, handler[y]);
            uint32_t ev[4] = {(uint32_t)s1, (uint32_t)s2, rcvs[x], rcvs[y]};
            engine_add(run, RACE_MESSAGE, ev, 0, !handlers);
        }
}

static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    message_state *st = xcalloc(1, sizeof *st);
    st->handler_of = handlers_by_rcv(t);
    for (uint32_t i = 0; i < t->n_handlers; i++)
        st->nesting |= t->handlers[i].parent != NONE;
    engine_set_state(run, RACE_MESSAGE, st, free_state);
    const int32_t *of_rcv = st->handler_of;
    uint32_t *rcvs = xmalloc_array(t->n_events + 1, sizeof *rcvs);
    int32_t *handler = xmalloc_array(t->n_events + 1, sizeof *handler);
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            if (t->events[e].kind == EV_RCV && m->kept[e] &&
                its_send(t, m, e) != NONE) {
                handler[n] = of_rcv[e];
                rcvs[n++] = e;
            }
        }
        pairs_of_thread(run, rcvs, n, handler);
    }
    free(rcvs);
    free(handler);
}

static hb_query query(const candidate *c, unsigned k)
{
    (void)k;
    return hb_query_before(c->ev[1], c->ev[2]);   /* O(s2) < O(r1) */
}

/* Whether handler `inner` lies inside handler `outer` (one thread). */
static int nested_in(const trace *t, const handler *inner, const handler *outer)
{
    return inner != outer && t->events[outer->begin].pos < t->events[inner->begin].pos &&
           t->events[inner->last].pos <= t->events[outer->last].pos;
}

/* The positions of handler h's events in its thread, without those of
 * `hole` when hole lies inside h: [from, to) minus [hole_from, hole_to). */
typedef struct span {
    uint32_t from, to, hole_from, hole_to;
} span;

static span span_of(const trace *t, const handler *h, const handler *hole)
{
    span s = {t->events[h->begin].pos, t->events[h->last].pos + 1, 0, 0};
    if (nested_in(t, hole, h)) {
        s.hole_from = t->events[hole->begin].pos;
        s.hole_to = t->events[hole->last].pos + 1;
    }
    return s;
}

static int in_span(const span *s, uint32_t pos)
{
    return pos >= s->from && pos < s->to && !(pos >= s->hole_from && pos < s->hole_to);
}

/* Accesses a ∈ handler(m1), b ∈ handler(m2) to one variable, one a write.
 * A handler's events include those of handlers nested in it, but when one
 * of the two handlers is nested in the other, the outer one's exclude the
 * inner one's; never an event with itself; each pair {a, b} once however
 * many racing message pairs lead to it (SPEC §4). */
static void proven(engine_run *run, const candidate *c)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    message_state *st = engine_state(run, RACE_MESSAGE);
    int32_t i1 = st->handler_of[c->ev[2]], i2 = st->handler_of[c->ev[3]];
    if (i1 == NONE || i2 == NONE)
        return;
    const handler *h1 = &t->handlers[i1], *h2 = &t->handlers[i2];
    const thread_info *th = &t->threads[h1->thread];
    span s1 = span_of(t, h1, h2), s2 = span_of(t, h2, h1);
    for (uint32_t x = s1.from; x < s1.to; x++) {
        uint32_t a = th->events[x];
        const event *ea = &t->events[a];
        if (!in_span(&s1, x) || !m->kept[a] || !event_is_access(ea))
            continue;
        for (uint32_t y = s2.from; y < s2.to; y++) {
            uint32_t b = th->events[y];
            const event *eb = &t->events[b];
            if (!in_span(&s2, y) || !m->kept[b] || !event_is_access(eb) ||
                a == b || ea->object != eb->object ||
                (ea->kind != EV_WRITE && eb->kind != EV_WRITE) ||
                !first_time(st, a, b))
                continue;
            uint32_t ev[2] = {a, b};
            engine_count(run, RACE_HANDLER, ev);
        }
    }
}

const analysis analysis_message = {
    .kind = RACE_MESSAGE, .title = "Message races", .json_key = "message_races",
    .n_queries = 1, .n_located = 2, .n_shown = 4, .symmetric = 1,
    .enabled = enabled, .generate = generate, .query = query, .proven = proven,
};

/* Handler races are counted by message races' `proven`; no candidates. */
const analysis analysis_handler = {
    .kind = RACE_HANDLER, .title = "Handler races", .json_key = "handler_races",
    .n_queries = 0, .n_located = 2, .n_shown = 2, .symmetric = 1,
    .enabled = enabled,
};
