/*
 * prune.c — the three pruning rules of prune.h.  Φ itself tells which
 * events order anything: an edge or clause literal other than program
 * order makes both its events "constrained", and its earlier event a
 * "release".
 */
#include "prune.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "../util/alloc.h" /* before uthash.h: its uthash_fatal */

#include <uthash.h>

/* Φ's constraints other than program order, counted per event.  Computed
 * once, on the whole trace: dropping an event that orders nothing is a
 * projection and changes no other event's constraints, and dropping a
 * thread takes away exactly its fork and join edges, which are then
 * uncounted by hand. */
typedef struct marks {
    uint32_t *before;         /* constraints where the event is earlier */
    uint32_t *after;          /* ... where it is later */
    uint8_t *query;           /* queries ask about it (kept regardless) */
} marks;

static int constrained(const marks *mk, uint32_t e)
{
    return mk->before[e] || mk->after[e] || mk->query[e];
}

static int is_release(const marks *mk, uint32_t e)
{
    return mk->before[e] != 0;
}

static void mark(marks *mk, uint32_t before, uint32_t after)
{
    mk->before[before]++;
    mk->after[after]++;
}

/* Events that queries ask about besides accesses: every matched RCV and
 * its send (message races compare them), even where Φ alone would not
 * need them (a SND right before its RCV in one thread orders nothing new). */
static void mark_query_events(const trace *t, marks *mk)
{
    for (uint32_t i = 0; i < t->n_matches; i++) {
        mk->query[t->matches[i].rcv] = 1;
        mk->query[t->matches[i].sends[0]] = 1;
    }
}

/* next[e]: the next kept event of e's chain (UINT32_MAX if none). */
static uint32_t *chain_next(const trace *t, handler_model hm, const uint8_t *keep)
{
    uint32_t n_chains = hb_chain_count(t, hm);
    uint32_t *last = xmalloc(sizeof(uint32_t) * (n_chains + 1));
    uint32_t *next = xmalloc(sizeof(uint32_t) * (t->n_events + 1));
    for (uint32_t c = 0; c < n_chains; c++)
        last[c] = UINT32_MAX;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            next[e] = UINT32_MAX;
            if (!keep[e])
                continue;
            uint32_t c = hb_chain_of(t, hm, e);
            if (last[c] != UINT32_MAX)
                next[last[c]] = e;
            last[c] = e;
        }
    }
    free(last);
    return next;
}

/* A lock group's clauses, counted without listing them: a section's
 * release is earlier, and its acquire later, in one literal for each
 * section of another thread. */
static void mark_lock_groups(const trace *t, const hb_model *m, marks *mk)
{
    uint32_t *per_thread = xcalloc(t->n_threads + 1, sizeof *per_thread);
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        const hb_lock_group *gr = &m->lock_groups[g];
        const lock_section *s = m->lock_sections + gr->first;
        for (uint32_t i = 0; i < gr->n; i++)
            per_thread[s[i].thread]++;
        for (uint32_t i = 0; i < gr->n; i++) {
            uint32_t others = gr->n - per_thread[s[i].thread];
            mk->before[s[i].release] += others;
            mk->after[s[i].acquire] += others;
        }
        for (uint32_t i = 0; i < gr->n; i++)
            per_thread[s[i].thread] = 0;
    }
    free(per_thread);
}

static void find_marks(const trace *t, const hb_model *m, marks *mk)
{
    uint32_t *next = chain_next(t, m->handlers, m->kept);
    for (uint32_t i = 0; i < m->n_edges; i++)
        if (next[m->edges[i].before] != m->edges[i].after)
            mark(mk, m->edges[i].before, m->edges[i].after);
    for (uint32_t i = 0; i < m->n_lits; i++)
        if (m->lits[i].kind == LIT_LESS)
            mark(mk, m->lits[i].a, m->lits[i].b);
    for (uint32_t i = 0; i < t->n_waits; i++) /* made or deferred */
        if (hb_wait_constrained(m, &t->waits[i]))
            for (uint32_t k = 0; k < t->waits[i].n_notifies; k++)
                mark(mk, t->waits[i].notifies[k], t->waits[i].wait);
    mark_lock_groups(t, m, mk);
    mark_query_events(t, mk);
    free(next);
}

static void kept_ends(const trace *t, const uint8_t *keep, uint32_t tid,
                      int32_t *first, int32_t *last)
{
    const thread_info *th = &t->threads[tid];
    *first = *last = NONE;
    for (uint32_t k = 0; k < th->n_events; k++)
        if (keep[th->events[k]]) {
            if (*first == NONE)
                *first = (int32_t)th->events[k];
            *last = (int32_t)th->events[k];
        }
}

static void count_drop(const trace *t, uint32_t e, const uint8_t *uncounted,
                       prune_stats *st)
{
    if (uncounted && uncounted[e])
        return;
    switch (t->events[e].kind) {
    case EV_HANDLERBEGIN:
    case EV_HANDLEREND:
        st->handler_events++;
        break;
    case EV_CREATE:
    case EV_JOIN:
    case EV_START:
    case EV_END:
        st->thread_events++;
        break;
    default:
        st->other_events++;
    }
}

/* Rule 1: non-access events that order nothing. */
static int drop_idle_events(const trace *t, uint8_t *keep, const marks *mk,
                            const uint8_t *uncounted, prune_stats *st)
{
    int changed = 0;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        int32_t first, last;
        kept_ends(t, keep, i, &first, &last);
        const thread_info *th = &t->threads[i];
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            if (!keep[e] || constrained(mk, e) || event_is_access(&t->events[e]) ||
                (int32_t)e == first || (int32_t)e == last)
                continue;
            keep[e] = 0;
            count_drop(t, e, uncounted, st);
            changed = 1;
        }
    }
    return changed;
}

/* The CREATE and JOINs of thread tid, if all lie in one chain with the
 * CREATE first (then CREATE < JOIN holds without the thread). */
static int fork_join_local(const trace *t, handler_model hm, const uint8_t *keep,
                           uint32_t tid, uint32_t *edges)
{
    int32_t create = t->threads[tid].create;
    *edges = create != NONE && keep[create];
    uint32_t chain = create != NONE ? hb_chain_of(t, hm, (uint32_t)create) : 0;
    for (uint32_t e = 0; e < t->n_events; e++) {
        const event *ev = &t->events[e];
        if (ev->kind != EV_JOIN || (uint32_t)ev->object != tid || !keep[e])
            continue;
        (*edges)++;
        if (create == NONE)
            continue;
        if (hb_chain_of(t, hm, e) != chain ||
            t->events[e].pos < t->events[create].pos)
            return 0;
    }
    return 1;
}

/* The fork and join edges of a dropped thread no longer count. */
static void uncount_fork_join(const trace *t, const uint8_t *keep, uint32_t tid,
                              marks *mk)
{
    int32_t create = t->threads[tid].create;
    if (create != NONE && keep[create])
        mk->before[create]--;
    for (uint32_t e = 0; e < t->n_events; e++)
        if (t->events[e].kind == EV_JOIN && (uint32_t)t->events[e].object == tid &&
            keep[e])
            mk->after[e]--;
}

/* Rule 2: threads that order nothing.  Needs the JOINs of each thread, so
 * it scans the events once per candidate thread; threads are few. */
static int drop_idle_threads(const trace *t, handler_model hm, uint8_t *keep,
                             marks *mk, const uint8_t *uncounted,
                             prune_stats *st)
{
    int changed = 0;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        int32_t first, last;
        kept_ends(t, keep, i, &first, &last);
        if (first == NONE)
            continue;
        int idle = 1;
        uint32_t ends_degree = 0;
        for (uint32_t k = 0; k < th->n_events && idle; k++) {
            uint32_t e = th->events[k];
            if (!keep[e])
                continue;
            if (event_is_access(&t->events[e]))
                idle = 0;
            else if (mk->query[e])
                idle = 0;
            else if ((int32_t)e == first || (int32_t)e == last)
                ends_degree += mk->before[e] + mk->after[e];
            else if (constrained(mk, e))
                idle = 0;
        }
        uint32_t fork_join_edges;
        if (!idle || !fork_join_local(t, hm, keep, i, &fork_join_edges) ||
            ends_degree != fork_join_edges)
            continue;
        for (uint32_t k = 0; k < th->n_events; k++)
            if (keep[th->events[k]]) {
                keep[th->events[k]] = 0;
                st->thread_events += !uncounted || !uncounted[th->events[k]];
            }
        uncount_fork_join(t, keep, i, mk);
        changed = 1;
    }
    return changed;
}

/* ---- rule 3 -------------------------------------------------------------------- */

typedef struct access_key {
    uint32_t chain;
    int32_t handler;
    uint32_t loc, kind;
    int32_t object;
} access_key;

typedef struct seen_access {
    access_key key;
    uint32_t epoch;           /* the chain's epoch when it was seen */
    UT_hash_handle hh;
} seen_access;

/* Keys name a chain, and a chain lies in one thread: each thread gets a
 * table of its own (a single table of the whole trace grew to millions of
 * keys, one per handler instance, and most lookups missed the cache). */
static void drop_repeated_accesses(const trace *t, handler_model hm,
                                   uint8_t *keep, const marks *mk,
                                   const uint8_t *uncounted, prune_stats *st)
{
    uint32_t *epoch = xcalloc(hb_chain_count(t, hm) + 1, sizeof(uint32_t));
    seen_access *pool = NULL; /* a thread's entries: never more than its
                                 events, so they do not move while used */
    size_t pool_cap = 0;
    for (uint32_t i = 0; i < t->n_threads; i++) {
        const thread_info *th = &t->threads[i];
        seen_access *seen = NULL, *s;
        size_t n_pool = 0;
        ALLOC_GROW(pool, (size_t)th->n_events + 1, pool_cap);
        for (uint32_t k = 0; k < th->n_events; k++) {
            uint32_t e = th->events[k];
            const event *ev = &t->events[e];
            if (!keep[e])
                continue;
            uint32_t c = hb_chain_of(t, hm, e);
            if (event_is_access(ev)) {
                access_key key;
                memset(&key, 0, sizeof key);
                key.chain = c;
                key.handler = ev->handler;
                key.loc = trace_loc_id(t, e);
                key.kind = ev->kind;
                key.object = ev->object;
                HASH_FIND(hh, seen, &key, sizeof key, s);
                if (s && s->epoch == epoch[c] && !constrained(mk, e)) {
                    keep[e] = 0;
                    st->accesses += !uncounted || !uncounted[e];
                    continue;
                }
                if (!is_release(mk, e)) {
                    if (!s) {
                        s = &pool[n_pool++];
                        s->key = key;
                        HASH_ADD(hh, seen, key, sizeof key, s);
                    }
                    s->epoch = epoch[c];
                }
            }
            if (is_release(mk, e))
                epoch[c]++;
        }
        HASH_CLEAR(hh, seen);
    }
    free(pool);
    free(epoch);
}

static int stopped(const prune_options *o)
{
    return o->stop && *o->stop;
}

uint8_t *prune_trace(const trace *t, const hb_model *m, const prune_options *o,
                     prune_stats *st)
{
    assert(m->n_kept == t->n_events); /* Φ of the whole trace */
    handler_model hm = m->handlers;
    uint8_t *keep = xmalloc(t->n_events + 1);
    memset(keep, 1, t->n_events + 1);
    memset(st, 0, sizeof *st);
    marks mk = {xcalloc(t->n_events + 1, sizeof(uint32_t)),
                xcalloc(t->n_events + 1, sizeof(uint32_t)),
                xcalloc(t->n_events + 1, 1)};
    find_marks(t, m, &mk);
    int changed = 1;
    while (changed && !stopped(o)) {
        st->rounds++;
        changed = drop_idle_events(t, keep, &mk, o->uncounted, st);
        changed |= drop_idle_threads(t, hm, keep, &mk, o->uncounted, st);
    }
    /* prune.h: rule 3 would change atomicity's gaps */
    if (!o->atomicity && !stopped(o))
        drop_repeated_accesses(t, hm, keep, &mk, o->uncounted, st);
    free(mk.before);
    free(mk.after);
    free(mk.query);
    return keep;
}
