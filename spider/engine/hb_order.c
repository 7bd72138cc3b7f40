/*
 * hb_order.c — the shortcuts while the analyses generate (hb_order.h):
 * one batch focused, the next ones swept ahead on a second thread.
 */
#include "hb_order.h"
#include "engine_shortcut_internal.h"

#include "../../util/alloc.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

/* ---- deciding while generating ------------------------------------------- */

/* One batch's clocks of U and R, and what its queries ask about. */
typedef struct batch_clocks {
    needed_set needed;
    clocks u, r;
} batch_clocks;

/* Sweeping ahead.  While the analyses read one batch's clocks (now),
 * the next batches are swept into the other slots, by a worker thread
 * and by the analyses' own thread whenever it would otherwise wait: so
 * both cores sweep, and count, all the time.  Batches are claimed in
 * order, at most SLOTS - 1 ahead of the one focused. */
enum { SLOTS = 3 };
enum { SLOT_FREE, SLOT_SWEEPING, SLOT_READY, SLOT_FOCUSED };

struct hb_order {
    shortcut_engine e;
    batch_clocks slot[SLOTS];
    batch_clocks *now;   /* the focused batch's */
    uint32_t *batch_start; /* what each batch's queries may ask about: */
    uint32_t *batch_events; /* batch_events[batch_start[b]..batch_start[b+1]) */
    uint32_t focused;    /* the batch swept, or UINT32_MAX */
    /* under mu: */
    pthread_mutex_t mu;
    pthread_cond_t changed;   /* a slot became ready or free, or quit */
    uint8_t state[SLOTS];     /* SLOT_* */
    uint32_t holds[SLOTS];    /* the batch a slot holds or sweeps */
    uint32_t target;          /* the batch focused or waited for */
    uint32_t next_claim;      /* the next batch to sweep ahead */
    int quit;
    int worker_made, worker_failed;
    pthread_t worker;
};

static void list_batch_events(hb_order *o);

static void *unconditional_worker(void *e)
{
    shortcut_build_unconditional(e);
    return NULL;
}

hb_order *hb_order_new(const trace *t, const hb_model *m, unsigned threads,
                       unsigned batch_chains)
{
    return hb_order_new_share(t, m, threads, batch_chains, NULL, NULL);
}

hb_order *hb_order_new_share(const trace *t, const hb_model *m,
                             unsigned threads, unsigned batch_chains,
                             const uint8_t *foreign, hb_outside *outside)
{
    hb_order *o = xcalloc(1, sizeof *o);
    shortcut_setup_share(&o->e, t, m, batch_chains, foreign, outside);
    o->e.threads = threads;
    /* U on a thread of its own while R is made here: the two graphs do
     * not depend on each other */
    pthread_t other;
    int side_by_side = threads >= 2 &&
        pthread_create(&other, NULL, unconditional_worker, &o->e) == 0;
    if (!side_by_side)
        shortcut_build_unconditional(&o->e);
    shortcut_build_resolved(&o->e);
    shortcut_find_held_sections(&o->e);
    if (side_by_side)
        pthread_join(other, NULL);
    if (outside)
        hb_outside_free(outside); /* U has what it had */
    shortcut_resolved_is_unconditional(&o->e);
    if (!o->e.u.acyclic || o->e.waits_unmatched) {
        hb_order_free(o);
        return NULL;
    }
    for (int i = 0; i < SLOTS; i++) {
        batch_clocks *s = &o->slot[i];
        needed_init(&s->needed, &o->e);
        clocks_init(&s->u, &o->e, &o->e.u, &s->needed);
        clocks_init(&s->r, &o->e, &o->e.r, &s->needed);
    }
    o->now = &o->slot[0];
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->changed, NULL);
    list_batch_events(o);
    o->focused = UINT32_MAX;
    return o;
}

const trace *hb_order_trace(const hb_order *o)
{
    return o->e.t;
}

uint32_t hb_order_n_batches(const hb_order *o)
{
    return o->e.n_batches;
}

uint32_t hb_order_n_own_batches(const hb_order *o)
{
    return o->e.n_own_batches;
}

uint32_t hb_order_batch(const hb_order *o, uint32_t thread)
{
    return o->e.node_batch[o->e.thread_node[thread]];
}

/* Calls f(o, batch, dense event) for what a batch's queries may ask
 * about: its accesses, the ends of its lock sections (lock exclusion),
 * and the sends its receives match (message races). */
static void each_batch_event(hb_order *o,
                             void (*f)(hb_order *, uint32_t, uint32_t))
{
    const shortcut_engine *e = &o->e;
    const trace *t = e->t;
    for (uint32_t ev = 0; ev < t->n_events; ev++)
        if (e->dense[ev] != UINT32_MAX && event_is_access(&t->events[ev]))
            f(o, hb_order_batch(o, t->events[ev].thread), e->dense[ev]);
    for (uint32_t i = 0; i < t->n_matches; i++) {
        const rcv_match *mt = &t->matches[i];
        if (mt->n_sends && e->dense[mt->sends[0]] != UINT32_MAX)
            f(o, hb_order_batch(o, t->events[mt->rcv].thread),
              e->dense[mt->sends[0]]);
    }
    for (uint32_t s = 0; s < t->n_sections; s++) {
        const lock_section *ls = &t->sections[s];
        uint32_t b = hb_order_batch(o, ls->thread);
        if (e->dense[ls->acquire] != UINT32_MAX)
            f(o, b, e->dense[ls->acquire]);
        if (ls->release != NONE && e->dense[ls->release] != UINT32_MAX)
            f(o, b, e->dense[ls->release]);
    }
}

static void count_batch_event(hb_order *o, uint32_t batch, uint32_t d)
{
    (void)d;
    o->batch_start[batch + 2]++;
}

static void put_batch_event(hb_order *o, uint32_t batch, uint32_t d)
{
    o->batch_events[o->batch_start[batch + 1]++] = d;
}

/* Lists each batch's events once, so that focusing on a batch costs its
 * own events, not a pass over the trace. */
static void list_batch_events(hb_order *o)
{
    uint32_t nb = o->e.n_batches;
    o->batch_start = xcalloc((size_t)nb + 2, sizeof(uint32_t));
    each_batch_event(o, count_batch_event);
    for (uint32_t b = 0; b < nb; b++)
        o->batch_start[b + 2] += o->batch_start[b + 1];
    o->batch_events = xmalloc_array((size_t)o->batch_start[nb + 1] + 1,
                                    sizeof(uint32_t));
    each_batch_event(o, put_batch_event);
}

static void mark_batch(const hb_order *o, batch_clocks *s, uint32_t batch)
{
    needed_clear(&s->needed);
    for (uint32_t i = o->batch_start[batch]; i < o->batch_start[batch + 1]; i++)
        needed_add(&s->needed, o->batch_events[i]);
}

/* The slot holding batch b (swept, if ready), or -1.  Under mu. */
static int slot_of(const hb_order *o, uint32_t b, int ready)
{
    for (int i = SLOTS; i-- > 0;)
        if (o->holds[i] == b && (ready ? o->state[i] == SLOT_READY
                                       : o->state[i] != SLOT_FREE))
            return i;
    return -1;
}

/* A free slot for the next batch to sweep ahead (next_claim, from the
 * target to SLOTS - 1 beyond it), claimed; -1 when there is none.  Under
 * mu. */
static int claim(hb_order *o, uint32_t *batch)
{
    const shortcut_engine *e = &o->e;
    if (o->next_claim < o->target) /* after a focus out of order */
        o->next_claim = o->target;
    for (;;) {
        uint32_t b = o->next_claim;
        if (b >= e->n_own_batches || b >= o->target + SLOTS)
            return -1;
        int free_slot = -1;
        for (int i = SLOTS; i-- > 0;)
            if (o->state[i] == SLOT_FREE)
                free_slot = i;
        if (slot_of(o, b, 0) >= 0 || !clocks_fit(e, b)) {
            o->next_claim++; /* swept already, or never (too wide) */
            continue;
        }
        if (free_slot < 0)
            return -1;
        o->state[free_slot] = SLOT_SWEEPING;
        o->holds[free_slot] = b;
        o->next_claim++;
        *batch = b;
        return free_slot;
    }
}

/* Sweeps the claimed slot i (mu held on entry and on return). */
static void sweep_claimed(hb_order *o, int i, uint32_t batch)
{
    batch_clocks *s = &o->slot[i];
    pthread_mutex_unlock(&o->mu);
    mark_batch(o, s, batch);
    clocks_sweep_batch(&o->e, batch, &s->u, &s->r, 0, NULL); /* both cores are busy */
    pthread_mutex_lock(&o->mu);
    o->state[i] = SLOT_READY;
    pthread_cond_broadcast(&o->changed);
}

static void *sweep_ahead(void *arg)
{
    hb_order *o = arg;
    pthread_mutex_lock(&o->mu);
    while (!o->quit) {
        uint32_t b;
        int i = claim(o, &b);
        if (i >= 0)
            sweep_claimed(o, i, b);
        else
            pthread_cond_wait(&o->changed, &o->mu);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Frees the slots of batches that will not be focused soon: outside
 * [target, target + SLOTS), or the one focused before.  Under mu. */
static void free_stale_slots(hb_order *o)
{
    for (int i = 0; i < SLOTS; i++)
        if ((o->state[i] == SLOT_READY &&
             (o->holds[i] < o->target || o->holds[i] >= o->target + SLOTS)) ||
            o->state[i] == SLOT_FOCUSED) {
            o->state[i] = SLOT_FREE;
            pthread_cond_broadcast(&o->changed);
        }
}

int hb_order_focus(hb_order *o, uint32_t batch)
{
    shortcut_engine *e = &o->e;
    if (batch >= e->n_own_batches || !clocks_fit(e, batch))
        return 0; /* a share's other nodes are never swept */
    if (o->focused == batch)
        return 1;
    pthread_mutex_lock(&o->mu);
    if (!o->worker_made && !o->worker_failed && e->threads >= 2) {
        o->worker_made = pthread_create(&o->worker, NULL, sweep_ahead, o) == 0;
        o->worker_failed = !o->worker_made; /* this thread sweeps them all */
    }
    o->target = batch;
    free_stale_slots(o);
    if (slot_of(o, batch, 0) < 0)
        o->next_claim = batch; /* out of order: claim it next */
    int mine;
    while ((mine = slot_of(o, batch, 1)) < 0) {
        uint32_t b;
        int i = claim(o, &b); /* rather than wait, sweep one ahead */
        if (i >= 0) {
            sweep_claimed(o, i, b);
            continue;
        }
        pthread_cond_wait(&o->changed, &o->mu);
        free_stale_slots(o);
    }
    o->state[mine] = SLOT_FOCUSED;
    o->now = &o->slot[mine];
    o->focused = batch;
    pthread_cond_broadcast(&o->changed); /* the worker may claim further */
    pthread_mutex_unlock(&o->mu);
    return 1;
}

/* Stops the worker (after its sweep in progress) and frees every slot. */
static void stop_sweeping_ahead(hb_order *o)
{
    pthread_mutex_lock(&o->mu);
    o->quit = 1;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->mu);
    if (o->worker_made)
        pthread_join(o->worker, NULL);
    o->worker_made = 0;
    for (int i = 0; i < SLOTS; i++)
        o->state[i] = SLOT_FREE;
    o->quit = 0;
    o->focused = UINT32_MAX;
}

int hb_order_decide_all(hb_order *o, const query_list *q, hb_answer *answers,
                        shortcut_stats *st)
{
    stop_sweeping_ahead(o); /* the clocks are swept again, per batch */
    o->now = &o->slot[0];
    needed_clear(&o->now->needed);
    shortcut_decide_by_batch(&o->e, q, answers, st, &o->now->u, &o->now->r,
                    &o->now->needed);
    return o->e.r.acyclic ? 1 : -1; /* as shortcut_decide: U is acyclic */
}

int hb_order_before(const hb_order *o, uint32_t x, uint32_t y)
{
    assert(o->focused != UINT32_MAX && o->e.dense[x] != UINT32_MAX &&
           o->now->needed.is[o->e.dense[y]]);
    return x != y && clocks_reaches(&o->e, &o->now->u, x, y);
}

hb_answer hb_order_decide(const hb_order *o, const hb_query *q,
                          shortcut_stats *st)
{
    assert(o->focused != UINT32_MAX);
    return shortcut_decide_one(&o->e, &o->now->u, &o->now->r, q, st);
}

uint32_t hb_order_chain(const hb_order *o, uint32_t e)
{
    assert(o->e.dense[e] != UINT32_MAX);
    return o->e.chain[o->e.dense[e]];
}

uint32_t hb_order_pos(const hb_order *o, uint32_t e)
{
    assert(o->e.dense[e] != UINT32_MAX);
    return o->e.pos[o->e.dense[e]];
}

/* The last event of chain c reaching dense event dy in vc's graph, c
 * being another chain than dy's: its clock's entry, or -1. */
static int32_t last_in_clock(const shortcut_engine *e, const clocks *vc, uint32_t dy,
                             uint32_t c)
{
    uint32_t r = clocks_row_at(e, vc, dy);
    if (r == EMPTY_ROW || r == NO_ROW)
        return -1;
    return vc->rows[(size_t)r * vc->k + e->chain_local[c]];
}

int32_t hb_order_last_reaching(const hb_order *o, int resolved, uint32_t y,
                               uint32_t c)
{
    const shortcut_engine *e = &o->e;
    const clocks *vc = resolved && !e->r_is_u ? &o->now->r : &o->now->u;
    uint32_t dy = e->dense[y];
    assert(o->focused != UINT32_MAX && o->now->needed.is[dy] &&
           e->chain_batch[c] == o->focused && (!resolved || e->r.acyclic));
    if (e->chain[dy] == c) /* program order */
        return (int32_t)e->pos[dy];
    return last_in_clock(e, vc, dy, c);
}

void hb_order_last_reaching_both(const hb_order *o, uint32_t y, uint32_t c,
                                 int32_t *in_u, int32_t *in_r)
{
    const shortcut_engine *e = &o->e;
    uint32_t dy = e->dense[y]; /* looked up once for U and R */
    assert(o->focused != UINT32_MAX && o->now->needed.is[dy] &&
           e->chain_batch[c] == o->focused);
    if (e->chain[dy] == c) { /* program order, in U and R alike */
        *in_u = (int32_t)e->pos[dy];
        *in_r = e->r.acyclic ? *in_u : -1;
        return;
    }
    *in_u = last_in_clock(e, &o->now->u, dy, c);
    *in_r = !e->r.acyclic ? -1
          : e->r_is_u     ? *in_u
                          : last_in_clock(e, &o->now->r, dy, c);
}

/* Warms the cache for one stage of hb_order_last_reaching(y) in clocks
 * vc (stage 0: y's dense id; 1: its chain and last sync event; 2: the
 * row it is stored in; 3: its entry for chain c). */
static void warm(const shortcut_engine *e, const clocks *vc, uint32_t y, uint32_t c,
                 int stage)
{
    if (stage == 0) {
        __builtin_prefetch(&e->dense[y]);
        return;
    }
    uint32_t d = e->dense[y];
    if (stage == 1) {
        __builtin_prefetch(&e->chain[d]);
        __builtin_prefetch(&vc->g->sync_at[d]);
    } else if (stage == 2) {
        uint32_t at = vc->g->sync_at[d];
        if (at != NO_SYNC)
            __builtin_prefetch(&vc->sync_row[at]);
    } else if (e->chain[d] != c) {
        uint32_t r = clocks_row_at(e, vc, d);
        if (r != EMPTY_ROW && r != NO_ROW)
            __builtin_prefetch(&vc->rows[(size_t)r * vc->k + e->chain_local[c]]);
    }
}

void hb_order_last_reaching_many(const hb_order *o, const uint32_t *ys,
                                 uint32_t n, uint32_t c, int32_t *in_u,
                                 int32_t *in_r)
{
    enum { AHEAD = 8, STAGES = 4 };
    const shortcut_engine *e = &o->e;
    int own_r = e->r.acyclic && !e->r_is_u;
    for (uint32_t i = 0; i < n + STAGES * AHEAD; i++) {
        for (int stage = 0; stage < STAGES; stage++) {
            uint32_t j = i - (uint32_t)stage * AHEAD;
            if (i < (uint32_t)stage * AHEAD || j >= n)
                continue;
            warm(e, &o->now->u, ys[j], c, stage);
            if (own_r && stage > 0)
                warm(e, &o->now->r, ys[j], c, stage);
        }
        if (i >= STAGES * AHEAD) {
            uint32_t j = i - STAGES * AHEAD;
            hb_order_last_reaching_both(o, ys[j], c, &in_u[j], &in_r[j]);
        }
    }
}

int hb_order_witness(const hb_order *o)
{
    return o->e.r.acyclic;
}

int hb_order_r_is_u(const hb_order *o)
{
    return o->e.r_is_u;
}

uint32_t hb_order_max_locks(const hb_order *o, uint32_t a)
{
    const shortcut_engine *e = &o->e;
    int32_t f = e->held_first[e->dense[a]];
    uint32_t n = 0;
    if (f >= 0)
        while (e->held[f + n] != UINT32_MAX)
            n++;
    return n;
}

static int cmp_lock(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

uint32_t hb_order_locks(const hb_order *o, uint32_t a, uint32_t *out)
{
    const shortcut_engine *e = &o->e;
    int32_t f = e->held_first[e->dense[a]];
    uint32_t n = 0;
    assert(o->focused != UINT32_MAX);
    if (f < 0)
        return 0;
    for (const uint32_t *x = e->held + f; *x != UINT32_MAX; x++)
        if (clocks_inside(e, &o->now->u, &e->t->sections[*x], a)) /* as clocks_excluded() */
            out[n++] = e->t->sections[*x].lock;
    qsort(out, n, sizeof *out, cmp_lock);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || out[i] != out[k - 1])
            out[k++] = out[i];
    return k;
}

uint32_t hb_order_locks_both(const hb_order *o, uint32_t a, uint32_t k,
                             uint32_t *out)
{
    const shortcut_engine *e = &o->e;
    int32_t f = e->held_first[e->dense[a]];
    uint32_t n = 0;
    assert(o->focused != UINT32_MAX);
    if (f < 0 || e->held_first[e->dense[k]] < 0)
        return 0;
    for (const uint32_t *x = e->held + f; *x != UINT32_MAX; x++) {
        const lock_section *s = &e->t->sections[*x];
        if (clocks_inside(e, &o->now->u, s, a) && /* as clocks_excluded() */
            clocks_inside(e, &o->now->u, s, k))
            out[n++] = s->lock;
    }
    qsort(out, n, sizeof *out, cmp_lock);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || out[i] != out[m - 1])
            out[m++] = out[i];
    return m;
}

void hb_order_free(hb_order *o)
{
    if (!o)
        return;
    if (o->batch_start) { /* made past the graphs (mu too) */
        stop_sweeping_ahead(o); /* before what the worker reads is freed */
        pthread_mutex_destroy(&o->mu);
        pthread_cond_destroy(&o->changed);
    }
    shortcut_teardown(&o->e);
    for (int i = 0; i < SLOTS; i++) {
        needed_free(&o->slot[i].needed);
        clocks_free(&o->slot[i].u);
        clocks_free(&o->slot[i].r);
    }
    free(o->batch_start);
    free(o->batch_events);
    free(o);
}
