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
#include "analysis_handler.h"
#include "analysis_kinds.h"
#include "../engine/engine.h"

#include "../../util/alloc.h"

#include <string.h>

static int its_send(const trace *t, const hb_model *m, uint32_t rcv)
{
    const event *r = &t->events[rcv];
    if (r->match == NONE)
        return NONE;
    uint32_t s = t->matches[r->match].sends[0];
    return m->kept[s] ? (int32_t)s : NONE;
}

/* The analysis's state from `generate` to `proven_all`: the handler of
 * each RCV, and the pairs of handlers whose messages race. */
typedef struct rcv_class rcv_class;
typedef struct rcv_scratch {     /* count_thread's, kept from thread to thread */
    uint32_t *send, *pos, *member, *rmq;
    uint32_t *run_end;           /* find_runs() */
    uint64_t *key;               /* per receive: its send in event order */
    int32_t *last_u, *last_r;    /* per receive: hb_order_last_reaching_many */
    rcv_class *cls;
    uint32_t cap, cls_cap;
    size_t rmq_cap;
} rcv_scratch;

typedef struct message_state {
    int32_t *handler_of;             /* by RCV event: its handler, or NONE */
    handler_races *hr;               /* the racing handler pairs found */
    /* from `generate` to generate_batch */
    uint32_t *threads, *batch_start; /* threads by batch */
    uint32_t *rcvs;                  /* a thread's receives ... */
    int32_t *handler;                /* ... and their handlers */
    rcv_scratch scratch;
} message_state;

static void rcv_scratch_free(rcv_scratch *s)
{
    free(s->send);
    free(s->run_end);
    free(s->pos);
    free(s->member);
    free(s->rmq);
    free(s->key);
    free(s->last_u);
    free(s->last_r);
    free(s->cls);
}

static void free_state(void *p)
{
    message_state *st = p;
    handler_races_free(st->hr);
    free(st->handler_of);
    free(st->threads);
    free(st->batch_start);
    free(st->rcvs);
    free(st->handler);
    rcv_scratch_free(&st->scratch);
    free(st);
}

/* The messages of handlers h1 and h2 race: so may their accesses. */
static void note_racing(message_state *st, int32_t h1, int32_t h2)
{
    if (h1 != NONE && h2 != NONE)
        handler_races_add(st->hr, (uint32_t)h1, (uint32_t)h2);
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
    for (uint32_t x = 0; x < n && !engine_stopped(run); x++)
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

/* ---- counting over intervals (issue 14) -------------------------------------
 *
 * With the shortcuts' clocks (hb_order), a thread's pairs of receives need
 * not be listed.  For its receives r_0 .. r_n-1 on one chain and a later
 * one r_y with send s2, the r_x that reach s2 in U are a prefix (program
 * order is in U): those pairs are UNSAT; so are those that reach it in R
 * a longer prefix, and the rest, up to y, are SAT (R a witness): the
 * verdicts the shortcuts give pair by pair (decide_pair).  They are
 * counted per class of r_x (its send's location, and its TCP channel,
 * which a pair must not share), and each count offers its least instance:
 * the one whose send s1 is least in event order (the group's order puts
 * s1 or s2 first; s2 is fixed), found by a range-minimum table per class.
 * Only the pairs between U's and R's prefixes are listed, for Z3.  A
 * thread whose receives lie on several chains (the floating model, with
 * receives inside handlers) or share a send is paired as before. */

struct rcv_class {
    uint32_t from, to;       /* members: member[from..to), ascending x */
    int32_t channel;         /* TCP channel, or NONE */
    uint32_t table;          /* its range-minimum table in rmq[] */
};

/* Of members m[a], m[b] (indices into x), the one with the lesser key. */
static uint32_t lesser(const rcv_scratch *s, uint32_t a, uint32_t b)
{
    return s->key[s->member[a]] <= s->key[s->member[b]] ? a : b;
}

/* A sparse table over the members of class c: level l, entry i holds the
 * member of least key in [i, i + 2^l). */
static void build_rmq(rcv_scratch *s, rcv_class *c, size_t *used)
{
    uint32_t m = c->to - c->from, levels = engine_floor_log2(m) + 1;
    size_t need = *used + (size_t)m * levels;
    ALLOC_GROW(s->rmq, need + 1, s->rmq_cap);
    c->table = (uint32_t)*used;
    uint32_t *t = s->rmq + *used;
    for (uint32_t i = 0; i < m; i++)
        t[i] = c->from + i;
    for (uint32_t l = 1; l < levels; l++)
        for (uint32_t i = 0; i + (1u << l) <= m; i++)
            t[(size_t)l * m + i] = lesser(s, t[(size_t)(l - 1) * m + i],
                                          t[(size_t)(l - 1) * m + i + (1u << (l - 1))]);
    *used = need;
}

/* The member of least key in member[lo..hi) of class c (lo < hi). */
static uint32_t least_member(const rcv_scratch *s, const rcv_class *c,
                             uint32_t lo, uint32_t hi)
{
    uint32_t m = c->to - c->from, l = engine_floor_log2(hi - lo);
    const uint32_t *t = s->rmq + c->table + (size_t)l * m;
    return lesser(s, t[lo - c->from], t[hi - c->from - (1u << l)]);
}

static int32_t channel_of(const event *r)
{
    return r->tcp && r->object != NONE ? r->object : NONE;
}

typedef struct class_key_ctx {
    const trace *t;
    const rcv_scratch *s;
    const uint32_t *rcvs;
} class_key_ctx;

/* x by its send's location, its channel, then x. */
static int by_rcv_class(const void *p, const void *q, void *ctx)
{
    const class_key_ctx *c = ctx;
    uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;
    uint32_t lx = trace_loc_id(c->t, c->s->send[x]);
    uint32_t ly = trace_loc_id(c->t, c->s->send[y]);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    int32_t cx = channel_of(&c->t->events[c->rcvs[x]]);
    int32_t cy = channel_of(&c->t->events[c->rcvs[y]]);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The receives' sends, positions, keys and classes.  0 when they lie on
 * several chains or two share a send. */
static int build_rcv_classes(engine_run *run, const hb_order *o,
                             const uint32_t *rcvs, uint32_t n, rcv_scratch *s,
                             uint32_t *n_cls)
{
    const trace *t = engine_trace(run);
    if (n + 1 > s->cap) {
        s->cap = n + 1;
        s->send = xrealloc_array(s->send, s->cap, sizeof *s->send);
        s->pos = xrealloc_array(s->pos, s->cap, sizeof *s->pos);
        s->run_end = xrealloc_array(s->run_end, s->cap, sizeof *s->run_end);
        s->member = xrealloc_array(s->member, s->cap, sizeof *s->member);
        s->key = xrealloc_array(s->key, s->cap, sizeof *s->key);
        s->last_u = xrealloc_array(s->last_u, s->cap, sizeof *s->last_u);
        s->last_r = xrealloc_array(s->last_r, s->cap, sizeof *s->last_r);
    }
    uint32_t chain = hb_order_chain(o, rcvs[0]);
    for (uint32_t x = 0; x < n; x++) {
        if (hb_order_chain(o, rcvs[x]) != chain)
            return 0;
        s->send[x] = (uint32_t)its_send(t, engine_model(run), rcvs[x]);
        /* the sends are on other nodes, anywhere in the events: asked for
         * all at once, their cache misses overlap */
        __builtin_prefetch(&t->events[s->send[x]]);
    }
    for (uint32_t x = 0; x < n; x++) {
        s->pos[x] = hb_order_pos(o, rcvs[x]);
        const event *e = &t->events[s->send[x]];
        s->key[x] = (uint64_t)engine_thread_rank(run, e->thread) << 32 |
                    e->input_index;
        s->member[x] = s->send[x];
    }
    qsort(s->member, n, sizeof *s->member, cmp_u32);
    for (uint32_t x = 1; x < n; x++)
        if (s->member[x] == s->member[x - 1])
            return 0; /* a send received twice here */
    for (uint32_t x = 0; x < n; x++)
        s->member[x] = x;
    class_key_ctx ctx = {t, s, rcvs};
    qsort_r(s->member, n, sizeof *s->member, by_rcv_class, &ctx);
    size_t used = 0;
    *n_cls = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t x = s->member[k];
        rcv_class *last = *n_cls ? &s->cls[*n_cls - 1] : NULL;
        int32_t ch = channel_of(&t->events[rcvs[x]]);
        if (!last || last->channel != ch ||
            trace_loc_id(t, s->send[s->member[last->from]]) !=
                trace_loc_id(t, s->send[x])) {
            ALLOC_GROW(s->cls, *n_cls + 1, s->cls_cap);
            s->cls[(*n_cls)++] = (rcv_class){k, k, ch, 0};
            last = &s->cls[*n_cls - 1];
        }
        last->to = k + 1;
    }
    for (uint32_t c = 0; c < *n_cls; c++)
        build_rmq(s, &s->cls[c], &used);
    return 1;
}

/* How many of pos[0..y) are <= last (ascending positions; last >= -1). */
static uint32_t prefix_reaching(const uint32_t *pos, uint32_t y, int32_t last)
{
    return engine_lower_bound(pos, 0, y, (uint32_t)(last + 1));
}

typedef struct rcv_pair_ctx {
    engine_run *run;
    message_state *st;
    const rcv_scratch *s;
    const uint32_t *rcvs;
    const int32_t *handler;          /* per x */
    uint32_t y;
    uint64_t unsat;
} rcv_pair_ctx;

static void rcv_candidate(const rcv_pair_ctx *p, uint32_t x)
{
    const trace *t = engine_trace(p->run);
    int handlers = has_handler_accesses(t, p->handler[x]) &&
                   has_handler_accesses(t, p->handler[p->y]);
    uint32_t ev[4] = {p->s->send[x], p->s->send[p->y], p->rcvs[x],
                      p->rcvs[p->y]};
    engine_add(p->run, RACE_MESSAGE, ev, 0, !handlers);
}

/* The receives x in member[lo..hi) of class c race with y (SAT). */
static void rcv_sat(rcv_pair_ctx *p, const rcv_class *c, uint32_t lo,
                    uint32_t hi)
{
    const rcv_scratch *s = p->s;
    uint32_t x = s->member[least_member(s, c, lo, hi)];
    uint32_t ev[4] = {s->send[x], s->send[p->y], p->rcvs[x], p->rcvs[p->y]};
    engine_record_sat(p->run, RACE_MESSAGE,
                      engine_group(p->run, RACE_MESSAGE, ev), ev, 0, hi - lo);
}

/* The handlers of the receives x in [a, b) race with y's (proven): a run
 * of consecutive leaf handlers at once (run_end). */
static void racing_range(rcv_pair_ctx *p, uint32_t a, uint32_t b)
{
    const int32_t *h = p->handler;
    if (h[p->y] == NONE)
        return;
    for (uint32_t x = a, e; x < b; x = e) {
        e = p->s->run_end[x] < b ? p->s->run_end[x] : b;
        if (h[x] == NONE)
            continue;
        uint32_t lo = handler_races_local(p->st->hr, (uint32_t)h[x]);
        engine_note(p->run, RACE_MESSAGE,
                    (const uint32_t[3]){(uint32_t)h[p->y], lo, lo + (e - x)});
    }
}

/* run_end[x]: the end of the run of receives from x whose handlers are
 * leaves numbered one after another (x + 1 when h[x] is none or holds
 * another handler). */
static void find_runs(const handler_races *hr, const int32_t *h, uint32_t n,
                      uint32_t *run_end)
{
    for (uint32_t x = n; x-- > 0;) {
        run_end[x] = x + 1;
        if (h[x] == NONE || !handler_races_is_leaf(hr, (uint32_t)h[x]) ||
            x + 1 >= n || h[x + 1] == NONE ||
            !handler_races_is_leaf(hr, (uint32_t)h[x + 1]) ||
            handler_races_local(hr, (uint32_t)h[x + 1]) !=
                handler_races_local(hr, (uint32_t)h[x]) + 1)
            continue;
        run_end[x] = run_end[x + 1];
    }
}

/* Every pair of the thread's receives rcvs[0..n) (on one chain), counted
 * over prefixes.  0 when they must be paired one by one. */
static int count_thread(engine_run *run, hb_order *o, message_state *st,
                        const uint32_t *rcvs, uint32_t n,
                        const int32_t *handler, rcv_scratch *s)
{
    const trace *t = engine_trace(run);
    uint32_t n_cls;
    if (n < 2)
        return 1;
    if (!build_rcv_classes(run, o, rcvs, n, s, &n_cls))
        return 0;
    uint32_t chain = hb_order_chain(o, rcvs[0]);
    int witness = hb_order_witness(o);
    find_runs(st->hr, handler, n, s->run_end);
    rcv_pair_ctx p = {.run = run, .st = st, .s = s, .rcvs = rcvs,
                      .handler = handler};
    hb_order_last_reaching_many(o, s->send + 1, n - 1, chain, s->last_u + 1,
                                s->last_r + 1);
    for (uint32_t y = 1; y < n; y++) {
        p.y = y;
        int32_t skip = channel_of(&t->events[rcvs[y]]);
        /* r_x before k_u reach s2 in U; before k_r, in R */
        int32_t last_u = s->last_u[y], last_r = s->last_r[y];
        uint32_t k_u = prefix_reaching(s->pos, y, last_u);
        uint32_t k_r = !witness ? y : last_r == last_u ? k_u
                                : prefix_reaching(s->pos, y, last_r);
        if (k_r < k_u)
            k_r = k_u;
        for (uint32_t c = 0; c < n_cls; c++) {
            const rcv_class *k = &s->cls[c];
            if (skip != NONE && k->channel == skip)
                continue; /* TCP keeps a channel's order: no candidates */
            uint32_t end = engine_lower_bound(s->member, k->from, k->to, y);
            uint32_t mu = engine_lower_bound(s->member, k->from, end, k_u);
            uint32_t mr = engine_lower_bound(s->member, mu, end, k_r);
            p.unsat += mu - k->from;
            for (uint32_t m = mu; m < mr; m++)
                rcv_candidate(&p, s->member[m]);
            if (mr < end)
                rcv_sat(&p, k, mr, end);
            for (uint32_t m = mr; skip != NONE && m < end; m++) /* proven */
                racing_range(&p, s->member[m], s->member[m] + 1);
        }
        if (skip == NONE) /* every x in [k_r, y) races with y */
            racing_range(&p, k_r, y);
    }
    if (p.unsat)
        engine_count_unsat(run, RACE_MESSAGE, p.unsat);
    return 1;
}

/* Threads batch by batch (engine_order's), then by id. */
static int by_batch(const void *x, const void *y, void *ctx)
{
    const hb_order *o = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    uint32_t ba = hb_order_batch(o, a), bb = hb_order_batch(o, b);
    if (ba != bb)
        return ba < bb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The pairs of receives of threads[from..to): counted over prefixes when
 * the batch is focused, else listed. */
static void threads_pairs(engine_run *run, message_state *st, uint32_t from,
                          uint32_t to, hb_order *o)
{
    const trace *t = engine_trace(run);
    const hb_model *m = engine_model(run);
    for (uint32_t ti = from; ti < to && !engine_stopped(run); ti++) {
        const thread_info *th = &t->threads[st->threads[ti]];
        uint32_t n = 0;
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            if (t->events[e].kind == EV_RCV && m->kept[e] &&
                its_send(t, m, e) != NONE) {
                st->handler[n] = st->handler_of[e];
                st->rcvs[n++] = e;
            }
        }
        if (n && (!o || !count_thread(run, o, st, st->rcvs, n, st->handler,
                                      &st->scratch)))
            pairs_of_thread(run, st->rcvs, n, st->handler);
    }
}

/* Every pair of receives of one thread: with engine_order (--solver=auto)
 * batch by batch in generate_batch, else here. */
static void generate(engine_run *run)
{
    const trace *t = engine_trace(run);
    message_state *st = xcalloc(1, sizeof *st);
    st->handler_of = handlers_by_rcv(t);
    st->hr = handler_races_new(t);
    engine_set_state(run, RACE_MESSAGE, st, free_state);
    st->rcvs = xmalloc_array(t->n_events + 1, sizeof *st->rcvs);
    st->handler = xmalloc_array(t->n_events + 1, sizeof *st->handler);
    st->threads = xmalloc_array(t->n_threads + 1, sizeof *st->threads);
    for (uint32_t i = 0; i < t->n_threads; i++)
        st->threads[i] = i;
    const hb_order *o = engine_order(run);
    if (!o) {
        threads_pairs(run, st, 0, t->n_threads, NULL);
        return;
    }
    qsort_r(st->threads, t->n_threads, sizeof *st->threads, by_batch, (void *)o);
    uint32_t n_batches = hb_order_n_batches(o);
    st->batch_start = xcalloc((size_t)n_batches + 2, sizeof *st->batch_start);
    for (uint32_t i = 0; i < t->n_threads; i++)
        st->batch_start[hb_order_batch(o, i) + 1]++;
    for (uint32_t b = 0; b < n_batches; b++)
        st->batch_start[b + 1] += st->batch_start[b];
}

static void generate_batch(engine_run *run, uint32_t batch, int focused)
{
    message_state *st = engine_state(run, RACE_MESSAGE);
    threads_pairs(run, st, st->batch_start[batch], st->batch_start[batch + 1],
                  focused ? engine_order(run) : NULL);
}

static hb_query query(const candidate *c, unsigned k)
{
    (void)k;
    return hb_query_before(c->ev[1], c->ev[2]);   /* O(s2) < O(r1) */
}

/* ---- witnesses ------------------------------------------------------------- */

/* The race query of receives ra, rb of one thread, whichever comes first:
 * O(s2) < O(r1).  0 when the pair is no message race candidate. */
static int race_query(const trace *t, const hb_model *m, uint32_t ra,
                      uint32_t rb, witness_query *out)
{
    if (ra == rb || t->events[ra].thread != t->events[rb].thread)
        return 0;
    uint32_t r1 = t->events[ra].pos < t->events[rb].pos ? ra : rb;
    uint32_t r2 = r1 == ra ? rb : ra;
    int32_t s1 = its_send(t, m, r1), s2 = its_send(t, m, r2);
    const event *e1 = &t->events[r1], *e2 = &t->events[r2];
    if (s1 == NONE || s2 == NONE || s1 == s2 || !m->kept[r1] || !m->kept[r2] ||
        (e1->tcp && e2->tcp && e1->object != NONE && e1->object == e2->object))
        return 0;
    *out = (witness_query){.query = hb_query_before((uint32_t)s2, r1),
                           .extra = {(uint32_t)s1, (uint32_t)s2, r1, r2},
                           .n_extra = 4};
    return 1;
}

/* The shown sends and receives may be swapped (the group is an unordered
 * pair): the query names the receive that comes first. */
static size_t message_witness(const trace *t, const hb_model *m,
                              const uint32_t *inst, witness_query *out,
                              size_t max)
{
    if (!max || !race_query(t, m, inst[2], inst[3], out))
        return 0;
    out->n_extra = 0; /* the instance's own events */
    return 1;
}

/* A handler race shows the message race behind it: the handlers holding
 * a and b (innermost first, then the ones around them), whose messages
 * race.  Every such pair is an alternative. */
static size_t handler_witness(const trace *t, const hb_model *m,
                              const uint32_t *inst, witness_query *out,
                              size_t max)
{
    size_t n = 0;
    for (int32_t ha = t->events[inst[0]].handler; ha != NONE;
         ha = t->handlers[ha].parent)
        for (int32_t hb = t->events[inst[1]].handler; hb != NONE && n < max;
             hb = t->handlers[hb].parent) {
            int32_t ra = t->handlers[ha].rcv, rb = t->handlers[hb].rcv;
            if (ra != NONE && rb != NONE &&
                race_query(t, m, (uint32_t)ra, (uint32_t)rb, &out[n]))
                n++;
        }
    return n;
}


/* A message race holds: its handlers' accesses race (proven_all). */
static void proven(engine_run *run, const candidate *c)
{
    message_state *st = engine_state(run, RACE_MESSAGE);
    note_racing(st, st->handler_of[c->ev[2]], st->handler_of[c->ev[3]]);
}

/* The handlers of locals v[1] .. v[2] race with handler v[0]
 * (racing_range(), through engine_note()). */
static void note(engine_run *run, const uint32_t v[3])
{
    message_state *st = engine_state(run, RACE_MESSAGE);
    handler_races_add_run(st->hr, v[0], v[1], v[2]);
}

/* Every handler race of the racing pairs found (proven_all). */
static void handler_races_all(engine_run *run)
{
    message_state *st = engine_state(run, RACE_MESSAGE);
    if (st)
        handler_races_count(run, st->hr);
}

const analysis analysis_message = {
    .kind = RACE_MESSAGE,
    .n_queries = 1, .n_located = 2, .n_shown = 4, .symmetric = 1,
    .enabled = enabled, .generate = generate,
    .generate_batch = generate_batch, .query = query, .note = note,
    .proven = proven,
    .proven_all = handler_races_all, .witness_queries = message_witness,
};

/* Handler races are counted by message races' `proven`; no candidates. */
const analysis analysis_handler = {
    .kind = RACE_HANDLER,
    .n_queries = 0, .n_located = 2, .n_shown = 2, .symmetric = 1,
    .enabled = enabled, .witness_queries = handler_witness,
};
