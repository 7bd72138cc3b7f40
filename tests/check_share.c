/*
 * check_share.c — bin/check-share: trace_load_share() against
 * trace_load().  Loads PATH... whole, then as the shares of --ranks=N
 * ranks (threads acting as ranks), and checks that
 *   - the shares' own events are the whole trace's, each once, a node's
 *     all on one rank, in the whole trace's order;
 *   - every event of a share is the whole trace's global[i], field by
 *     field (strings compared as text), and an own event's program
 *     order, handler, match and wait candidates are the whole trace's;
 *   - every endpoint a rank's own events match is in its share;
 *   - a load that fails fails alike, with trace_load()'s message;
 *   - with --skeleton[=floating], in that handler model: that Φ of each
 *     share, built with the other ranks (hb_model_build_share()) and
 *     pruned, has the whole trace's edges between chains, implied ones
 *     too, and that reachability between a rank's own events through
 *     the skeleton (hb_skeleton_outside()) is the whole trace's, and
 *     that the shortcuts' order over the share and the skeleton
 *     (hb_order_new_share()) answers hb_order_last_reaching() about a
 *     rank's own batches as the whole trace's hb_order does.
 * Prints one line per rank (own events, endpoints) and "ok", or what
 * differs with exit status 1; 2 on bad usage.
 *
 * Built with MPI (bin/check-share-mpi, CHECK_SHARE_MPI), it runs on the
 * ranks of `mpirun -np N`: each rank checks its own share against the
 * whole trace it loads too (what only the set of shares shows, that
 * each event is in one, is left to the threads); with --measure it
 * loads its share alone and prints its peak resident memory, and with
 * --measure --whole the whole trace alone (trace_load()), to compare.
 */
#include "../encode/encode.h"
#include "../prune/prune.h"
#include "../spider/engine/hb_order.h"
#include "../traces/trace.h"
#include "../util/alloc.h"
#include "../util/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CHECK_SHARE_MPI
#include "../util/comm_mpi.h"
#endif

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            if (failures++ < 20) {                                           \
                printf("not ok: ");                                          \
                printf(__VA_ARGS__);                                         \
                printf("\n");                                                \
            }                                                                \
        }                                                                    \
    } while (0)

/* Φ as the analysis has it by default, pruned and projected: of the
 * whole trace t, or (m given) of a share, built with the other ranks. */
static hb_model *pruned_model(const trace *t, handler_model hm, hb_model *m)
{
    if (!m)
        m = hb_model_build(t, NULL, hm);
    prune_options po = {.atomicity = 0};
    prune_stats ps;
    uint8_t *keep = prune_trace(t, m, &po, &ps);
    if (hb_model_project(m, t, keep) != 0)
        CHECK(0, "the keep mask does not project");
    free(keep);
    return m;
}

#ifndef CHECK_SHARE_MPI
typedef struct job {
    const char *const *paths;
    size_t n_paths;
    trace_options opts;
    unsigned ranks;
    trace_share *share;
    int *rc;
    char (*err)[4096];
    int skeleton;              /* -1: none; else the handler model */
    hb_model **model;          /* per rank: Φ of its share, pruned */
    hb_skeleton *skel;
} job;

static void load_rank(comm *c, void *arg)
{
    job *j = arg;
    unsigned r = comm_rank(c);
    j->rc[r] = trace_load_share(j->paths, j->n_paths, &j->opts, c,
                                &j->share[r], j->err[r], sizeof j->err[r]);
    if (j->skeleton < 0 || j->rc[r] != TRACE_OK)
        return; /* a failed load fails on every rank alike */
    char err[4096];
    hb_model *m = hb_model_build_share(&j->share[r], (handler_model)j->skeleton,
                                       NULL, c, err, sizeof err);
    CHECK(m != NULL, "rank %u: %s", r, err);
    if (!m)
        return; /* every rank fails alike */
    j->model[r] = pruned_model(j->share[r].t, (handler_model)j->skeleton, m);
    int rc = hb_skeleton_exchange(&j->share[r], j->model[r], c, &j->skel[r],
                                  err, sizeof err);
    CHECK(rc == 0, "rank %u: %s", r, err);
}

#endif

static const char *str_or(const trace *t, str_id id)
{
    return id == STR_NONE ? "(none)" : t->strings[id];
}

/* The text of what an event's object names, into buf. */
static const char *object_text(const trace *t, const event *e, char *buf,
                               size_t len)
{
    if (e->object == NONE) {
        snprintf(buf, len, "(none)");
    } else if (e->kind == EV_CREATE || e->kind == EV_JOIN) {
        snprintf(buf, len, "thread %s", t->strings[t->threads[e->object].name]);
    } else if (e->kind == EV_SND || e->kind == EV_RCV) {
        const channel *c = &t->channels[e->object];
        snprintf(buf, len, "%s:%s>%s:%s", str_or(t, c->src),
                 str_or(t, c->src_port), str_or(t, c->dst),
                 str_or(t, c->dst_port));
    } else {
        const shared_object *o = &t->objects[e->object];
        snprintf(buf, len, "%s/%s", str_or(t, o->node), str_or(t, o->name));
    }
    return buf;
}

static void same_event(const trace *w, uint32_t g, const trace *t, uint32_t i)
{
    const event *a = &w->events[g], *b = &t->events[i];
    char x[4096], y[4096];
    CHECK(a->kind == b->kind && a->tcp == b->tcp && a->size == b->size &&
          a->timestamp == b->timestamp && a->line == b->line &&
          a->input_index == b->input_index,
          "event %u: kind, size, time, line or index differ", g);
    CHECK(strcmp(str_or(w, a->loc), str_or(t, b->loc)) == 0 &&
          strcmp(str_or(w, a->message), str_or(t, b->message)) == 0,
          "event %u: loc or message differ", g);
    CHECK(strcmp(w->files[a->file], t->files[b->file]) == 0,
          "event %u: file %s, share says %s", g, w->files[a->file],
          t->files[b->file]);
    CHECK(strcmp(w->strings[w->threads[a->thread].name],
                 t->strings[t->threads[b->thread].name]) == 0,
          "event %u: thread differs", g);
    CHECK(strcmp(object_text(w, a, x, sizeof x),
                 object_text(t, b, y, sizeof y)) == 0,
          "event %u: object %s, share says %s", g, x, y);
}

/* An own event's derived facts: program order, handler, match. */
static void same_derived(const trace *w, uint32_t g, const trace_share *s,
                         uint32_t i)
{
    const trace *t = s->t;
    const event *a = &w->events[g], *b = &t->events[i];
    CHECK(a->pos == b->pos, "event %u: pos %u, share says %u", g, a->pos,
          b->pos);
    CHECK((a->handler == NONE) == (b->handler == NONE) &&
          (a->handler == NONE ||
           w->handlers[a->handler].begin ==
               s->global[t->handlers[b->handler].begin]),
          "event %u: handler differs", g);
    CHECK((a->match == NONE) == (b->match == NONE),
          "event %u: matched in one, not the other", g);
    if (a->match == NONE || b->match == NONE)
        return;
    const rcv_match *ma = &w->matches[a->match], *mb = &t->matches[b->match];
    CHECK(ma->n_sends == mb->n_sends && ma->all == mb->all,
          "event %u: %u sends, share says %u", g, ma->n_sends, mb->n_sends);
    for (uint32_t k = 0; k < ma->n_sends && k < mb->n_sends; k++)
        CHECK(ma->sends[k] == s->global[mb->sends[k]],
              "event %u: send %u is %u, share says %u", g, k, ma->sends[k],
              s->global[mb->sends[k]]);
}

static void same_waits(const trace *w, const trace_share *s,
                       const int32_t *wait_of)
{
    const trace *t = s->t;
    for (uint32_t k = 0; k < t->n_waits; k++) {
        const wait_info *b = &t->waits[k];
        int32_t at = wait_of[s->global[b->wait]];
        CHECK(at != NONE, "wait %u is no wait", s->global[b->wait]);
        if (at == NONE)
            continue;
        const wait_info *a = &w->waits[at];
        CHECK(a->n_notifies == b->n_notifies, "wait %u: %u notifies, share "
              "says %u", a->wait, a->n_notifies, b->n_notifies);
        for (uint32_t n = 0; n < a->n_notifies && n < b->n_notifies; n++)
            CHECK(a->notifies[n] == s->global[b->notifies[n]],
                  "wait %u: notify %u differs", a->wait, n);
    }
}

/* The rank of each of w's nodes, by node string id. */
static uint32_t *node_ranks(const trace *w, const trace_share *s)
{
    uint32_t *rank = xmalloc_array(w->n_strings + 1, sizeof *rank);
    for (uint32_t i = 0; i < w->n_strings; i++)
        rank[i] = UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_threads; i++) {
        str_id node = w->threads[i].node;
        if (rank[node] == UINT32_MAX && n < s->n_nodes)
            rank[node] = s->node_owner[n++];
        else if (rank[node] == UINT32_MAX)
            n++;
    }
    CHECK(n == s->n_nodes, "%u nodes, the share says %u", n, s->n_nodes);
    return rank;
}

/* share[0 .. n) are the shares of ranks first .. first + n; with all,
 * every rank's (each event in one share). */
static void check_shares(const trace *w, const trace_share *share,
                         unsigned first, unsigned n, int all)
{
    uint32_t *rank = node_ranks(w, &share[0]);
    uint8_t *seen = xcalloc(w->n_events + 1, 1);
    int32_t *wait_of = xmalloc_array(w->n_events + 1, sizeof *wait_of);
    for (uint32_t i = 0; i < w->n_events; i++)
        wait_of[i] = NONE;
    for (uint32_t k = 0; k < w->n_waits; k++)
        wait_of[w->waits[k].wait] = (int32_t)k;
    for (unsigned r = first; r < first + n; r++) {
        const trace_share *s = &share[r - first];
        const trace *t = s->t;
        uint32_t own = 0, foreign = 0;
        CHECK(s->n_events == w->n_events, "rank %u: %u events, not %u", r,
              s->n_events, w->n_events);
        for (uint32_t i = 0; i < t->n_events; i++) {
            uint32_t g = s->global[i];
            CHECK(g < w->n_events && (i == 0 || g > s->global[i - 1]),
                  "rank %u: event %u out of order", r, i);
            if (g >= w->n_events)
                continue;
            same_event(w, g, t, i);
            uint32_t owner = rank[w->threads[w->events[g].thread].node];
            if (s->foreign[i]) {
                foreign++;
                CHECK(owner != r, "rank %u: its own event %u as another's", r,
                      g);
                CHECK(t->events[i].kind == EV_SND || t->events[i].kind == EV_RCV,
                      "rank %u: event %u of another node is no endpoint", r, g);
                continue;
            }
            own++;
            CHECK(owner == r, "rank %u: event %u of rank %u's node", r, g,
                  owner);
            CHECK(!seen[g], "event %u in two shares", g);
            seen[g] = 1;
            same_derived(w, g, s, i);
        }
        same_waits(w, s, wait_of);
        /* the RCVs of other nodes that follow an own SND */
        uint8_t *here = xcalloc(w->n_events + 1, 1);
        for (uint32_t i = 0; i < t->n_events; i++)
            here[s->global[i]] = 1;
        for (uint32_t m = 0; m < w->n_matches; m++) {
            const rcv_match *ma = &w->matches[m];
            for (uint32_t k = 0; k < ma->n_sends; k++)
                if (rank[w->threads[w->events[ma->sends[k]].thread].node] == r)
                    CHECK(here[ma->rcv], "rank %u: RCV %u of its SND %u is "
                          "not in its share", r, ma->rcv, ma->sends[k]);
        }
        free(here);
        printf("rank %u: %u own events, %u endpoints of other nodes\n", r,
               own, foreign);
    }
    for (uint32_t g = 0; g < w->n_events && all; g++)
        CHECK(seen[g], "event %u in no share", g);
    free(wait_of);
    free(seen);
    free(rank);
}

#ifndef CHECK_SHARE_MPI
/* U's graph with program order along each chain: out-rows over n
 * vertices (the events of t, then `extra` more), the model's edges
 * renumbered by map (NULL: as they are; UINT32_MAX: left out). */
static void u_graph(const trace *t, const hb_model *m, const uint32_t *map,
                    uint32_t extra, const digraph_edge *more, size_t n_more,
                    digraph *g)
{
    handler_model hm = m->handlers;
    size_t cap = (size_t)m->n_edges + t->n_events + n_more + 1, n = 0;
    digraph_edge *e = xmalloc_array(cap, sizeof *e);
    for (uint32_t i = 0; i < m->n_edges; i++) {
        uint32_t x = m->edges[i].before, y = m->edges[i].after;
        x = map ? map[x] : x;
        y = map ? map[y] : y;
        if (x != UINT32_MAX && y != UINT32_MAX &&
            (x < t->n_events || y < t->n_events)) /* else the skeleton's */
            e[n++] = (digraph_edge){x, y};
    }
    uint32_t chains = hb_chain_count(t, hm);
    uint32_t *last = xmalloc_array((size_t)chains + 1, sizeof *last);
    memset(last, 0xff, sizeof *last * chains);
    for (uint32_t th = 0; th < t->n_threads; th++)
        for (uint32_t k = 0; k < t->threads[th].n_events; k++) {
            uint32_t x = t->threads[th].events[k], c = hb_chain_of(t, hm, x);
            if (!m->kept[x] || (map && map[x] != x))
                continue; /* another node's: the skeleton orders it */
            if (last[c] != UINT32_MAX)
                e[n++] = (digraph_edge){map ? map[last[c]] : last[c],
                                        map ? map[x] : x};
            last[c] = x;
        }
    if (n_more)
        memcpy(e + n, more, n_more * sizeof *e);
    digraph_build(g, t->n_events + extra, e, n + n_more, DIGRAPH_OUT, NULL);
    free(last);
    free(e);
}

static void reach_from(const digraph *g, uint32_t x, uint8_t *seen,
                       uint32_t *stack)
{
    memset(seen, 0, g->n);
    uint32_t top = 0;
    stack[top++] = x;
    seen[x] = 1;
    while (top) {
        uint32_t v = stack[--top];
        for (uint32_t k = g->start[v]; k < g->start[v + 1]; k++)
            if (!seen[g->adj[k]]) {
                seen[g->adj[k]] = 1;
                stack[top++] = g->adj[k];
            }
    }
}

/* A cross-chain edge of Φ by the whole trace's ids, and its origin. */
typedef struct global_edge {
    uint32_t before, after, origin;
} global_edge;

static int by_edge(const void *x, const void *y)
{
    const global_edge *a = x, *b = y;
    if (a->before != b->before)
        return a->before < b->before ? -1 : 1;
    if (a->after != b->after)
        return a->after < b->after ? -1 : 1;
    return a->origin < b->origin ? -1 : a->origin > b->origin;
}

/* The edges of Φ between chains (implied ones too), pruned: the whole
 * trace's against those of every share that name an own event. */
static void check_edges(const trace *w, handler_model hm,
                        const trace_share *share, hb_model *const *model,
                        unsigned ranks)
{
    hb_model *wm = pruned_model(w, hm, NULL);
    global_edge *a = xmalloc_array((size_t)wm->n_edges + 1, sizeof *a), *b = NULL;
    size_t na = 0, nb = 0, cap = 0;
    for (uint32_t i = 0; i < wm->n_edges; i++) {
        uint32_t x = wm->edges[i].before, y = wm->edges[i].after;
        if (hb_chain_of(w, hm, x) != hb_chain_of(w, hm, y))
            a[na++] = (global_edge){x, y, wm->edge_origin[i]};
    }
    for (unsigned r = 0; r < ranks; r++) {
        const trace_share *s = &share[r];
        const hb_model *m = model[r];
        for (uint32_t i = 0; m && i < m->n_edges; i++) {
            uint32_t x = m->edges[i].before, y = m->edges[i].after;
            if (hb_chain_of(s->t, hm, x) == hb_chain_of(s->t, hm, y) ||
                (s->foreign[x] && s->foreign[y]))
                continue;
            ALLOC_GROW(b, nb + 1, cap);
            b[nb++] = (global_edge){s->global[x], s->global[y],
                                    m->edge_origin[i]};
        }
    }
    qsort(a, na, sizeof *a, by_edge);
    if (nb)
        qsort(b, nb, sizeof *b, by_edge);
    size_t u = 0;
    for (size_t i = 0; i < nb; i++) /* an edge between two ranks: twice */
        if (!u || by_edge(&b[u - 1], &b[i]))
            b[u++] = b[i];
    nb = u;
    size_t i = 0, k = 0, missing = 0, extra = 0;
    while (i < na || k < nb) {
        int c = i < na && k < nb ? by_edge(&a[i], &b[k]) : i < na ? -1 : 1;
        if (c == 0) {
            i++;
            k++;
        } else if (c < 0) {
            if (missing++ < 5)
                printf("edge %u -> %u (origin %u) in no share\n", a[i].before,
                       a[i].after, a[i].origin);
            i++;
        } else {
            if (extra++ < 5)
                printf("edge %u -> %u (origin %u) of a share is not the whole "
                       "trace's\n", b[k].before, b[k].after, b[k].origin);
            k++;
        }
    }
    CHECK(missing + extra == 0, "%zu edges in no share, %zu not the whole "
          "trace's", missing, extra);
    printf("edges between chains: %zu, %zu missing, %zu extra\n", na,
           missing, extra);
    free(a);
    free(b);
    hb_model_free(wm);
}

/* Reachability in U between a rank's own kept events, through its own
 * chains and the skeleton, against the whole trace's (up to 300
 * sources a rank). */
static void check_skeleton(const trace *w, handler_model hm,
                           const trace_share *s, const hb_model *m,
                           const hb_skeleton *k, unsigned r)
{
    hb_model *wm = pruned_model(w, hm, NULL);
    const trace *t = s->t;
    uint32_t n = t->n_events;
    hb_outside o;
    hb_skeleton_outside(k, s, hm, r, &o);
    digraph g, wg;
    u_graph(t, m, o.map, o.n, o.edges, o.n_edges, &g);
    u_graph(w, wm, NULL, 0, NULL, 0, &wg);
    uint8_t *seen = xmalloc(g.n + 1), *wseen = xmalloc(wg.n + 1);
    uint32_t *stack = xmalloc_array((size_t)g.n + 1, sizeof *stack);
    uint32_t *wstack = xmalloc_array((size_t)wg.n + 1, sizeof *wstack);
    uint32_t own = 0, step, asked = 0, wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        own += !s->foreign[i] && m->kept[i];
    step = own > 300 ? own / 300 : 1;
    for (uint32_t i = 0, nth = 0; i < n; i++) {
        if (s->foreign[i] || !m->kept[i] || nth++ % step)
            continue;
        reach_from(&g, i, seen, stack);
        reach_from(&wg, s->global[i], wseen, wstack);
        for (uint32_t y = 0; y < n; y++) {
            if (s->foreign[y] || !m->kept[y] || y == i)
                continue;
            asked++;
            if (seen[y] != wseen[s->global[y]] && wrong++ < 5)
                printf("rank %u: event %u %s event %u through the skeleton, "
                       "%s in the whole trace\n", r, s->global[i],
                       seen[y] ? "reaches" : "does not reach", s->global[y],
                       wseen[s->global[y]] ? "does" : "does not");
        }
    }
    CHECK(wrong == 0, "rank %u: %u of %u reachability answers differ", r,
          wrong, asked);
    printf("rank %u: skeleton of %u sync events, %u chains; %u reachability "
           "answers, %u differ\n", r, k->n_sync, k->n_chains, asked, wrong);
    free(stack);
    free(wstack);
    free(seen);
    free(wseen);
    digraph_free(&g);
    digraph_free(&wg);
    hb_outside_free(&o);
    hb_model_free(wm);
}

/* What a batch's queries may ask about (hb_order.h): of a rank's own
 * kept events, the accesses and section ends; of its receives, the send
 * each matches first.  Each with the receive or event whose node it is
 * asked for. */
typedef struct order_probe {
    uint32_t y, of;          /* share events */
} order_probe;

static order_probe *order_probes(const trace_share *s, const hb_model *m,
                                 uint32_t *n_out)
{
    const trace *t = s->t;
    order_probe *p = xmalloc_array((size_t)t->n_events * 2 + 1, sizeof *p);
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_events; i++)
        if (!s->foreign[i] && m->kept[i] && event_is_access(&t->events[i]))
            p[n++] = (order_probe){i, i};
    for (uint32_t k = 0; k < t->n_sections; k++) {
        const lock_section *ls = &t->sections[k];
        if (s->foreign[ls->acquire] || !m->kept[ls->acquire])
            continue;
        p[n++] = (order_probe){ls->acquire, ls->acquire};
        if (ls->release != NONE && m->kept[ls->release])
            p[n++] = (order_probe){(uint32_t)ls->release, ls->acquire};
    }
    for (uint32_t k = 0; k < t->n_matches; k++) {
        const rcv_match *mt = &t->matches[k];
        if (!s->foreign[mt->rcv] && m->kept[mt->rcv] && mt->n_sends &&
            m->kept[mt->sends[0]])
            p[n++] = (order_probe){mt->sends[0], mt->rcv};
    }
    *n_out = n;
    return p;
}

/* hb_order_last_reaching() in U, and in R where both are witnesses, of
 * probe y for every own chain of its node; into out (chains per probe:
 * stride), UINT32_MAX past the node's chains.  ev: probe's events as o
 * numbers them (t's, or the whole trace's by s->global). */
static void probe_answers(hb_order *o, const trace_share *s,
                          const order_probe *p, uint32_t n_probes,
                          const uint32_t *node_chains, uint32_t stride,
                          int whole, int64_t *out)
{
    const trace *t = s->t;
    for (uint32_t b = 0; b < hb_order_n_own_batches(o); b++) {
        if (!hb_order_focus(o, b))
            continue;
        for (uint32_t i = 0; i < n_probes; i++) {
            uint32_t of = whole ? s->global[p[i].of] : p[i].of;
            uint32_t y = whole ? s->global[p[i].y] : p[i].y;
            uint32_t th = t->events[p[i].of].thread;
            if (hb_order_batch(o, whole ? hb_order_trace(o)->events[of].thread
                                        : th) != b)
                continue;
            const uint32_t *c = node_chains + (size_t)i * stride * 2;
            for (uint32_t k = 0; k < stride && c[2 * k] != UINT32_MAX; k++) {
                int32_t in_u, in_r;
                hb_order_last_reaching_both(o, y, c[2 * k + whole], &in_u,
                                            &in_r);
                out[((size_t)i * stride + k) * 2] = in_u;
                out[((size_t)i * stride + k) * 2 + 1] = in_r;
            }
        }
    }
}

/* The own chains of each probe's node, as (share chain, whole chain)
 * pairs, at most `stride` of them. */
static uint32_t *probe_chains(const trace_share *s, const hb_model *m,
                              const hb_order *so, const hb_order *wo,
                              const order_probe *p, uint32_t n_probes,
                              uint32_t stride)
{
    const trace *t = s->t;
    uint32_t *c = xmalloc_array((size_t)n_probes * stride * 2 + 1, sizeof *c);
    memset(c, 0xff, sizeof *c * n_probes * stride * 2);
    for (uint32_t i = 0; i < n_probes; i++) {
        str_id node = t->threads[t->events[p[i].of].thread].node;
        uint32_t k = 0, *row = c + (size_t)i * stride * 2;
        for (uint32_t th = 0; th < t->n_threads && k < stride; th++) {
            const thread_info *ti = &t->threads[th];
            if (ti->node != node)
                continue;
            for (uint32_t j = 0; j < ti->n_events && k < stride; j++) {
                uint32_t e = ti->events[j];
                if (s->foreign[e] || !m->kept[e])
                    continue;
                uint32_t sc = hb_order_chain(so, e);
                uint32_t wc = hb_order_chain(wo, s->global[e]);
                int seen = 0;
                for (uint32_t q = 0; q < k && !seen; q++)
                    seen = row[2 * q] == sc;
                if (!seen) {
                    row[2 * k] = sc;
                    row[2 * k + 1] = wc;
                    k++;
                }
            }
        }
    }
    return c;
}

/* The shortcuts' order over a rank's share and the skeleton against the
 * whole trace's, on up to 400 probes a rank. */
static void check_order(const trace *w, handler_model hm,
                        const trace_share *s, const hb_model *m,
                        const hb_skeleton *k, unsigned r)
{
    enum { STRIDE = 16, MAX_PROBES = 400 };
    hb_model *wm = pruned_model(w, hm, NULL);
    hb_outside out, given; /* the order takes the one it is given */
    hb_skeleton_outside(k, s, hm, r, &out);
    hb_skeleton_outside(k, s, hm, r, &given);
    hb_order *so = hb_order_new_share(s->t, m, 1, 0, s->foreign, &given);
    hb_order *wo = hb_order_new(w, wm, 1, 0);
    CHECK(so || !wo, "rank %u: the share's order has a cycle, the whole "
          "trace's not", r);
    uint32_t n = 0, asked = 0, wrong = 0, unplaced = 0;
    if (so && wo) {
        order_probe *all = order_probes(s, m, &n), *p = all;
        uint32_t step = n > MAX_PROBES ? n / MAX_PROBES : 1, kept = 0;
        for (uint32_t i = 0; i < n; i += step)
            if (!s->foreign[all[i].y] || out.map[all[i].y] != UINT32_MAX)
                p[kept++] = all[i];
            else /* a send the skeleton lacks: nothing could answer */
                unplaced++;
        n = kept;
        uint32_t *chains = probe_chains(s, m, so, wo, p, n, STRIDE);
        size_t cells = (size_t)n * STRIDE * 2;
        int64_t *sa = xmalloc_array(cells + 1, sizeof *sa);
        int64_t *wa = xmalloc_array(cells + 1, sizeof *wa);
        for (size_t i = 0; i < cells; i++)
            sa[i] = wa[i] = -2;
        probe_answers(so, s, p, n, chains, STRIDE, 0, sa);
        probe_answers(wo, s, p, n, chains, STRIDE, 1, wa);
        int with_r = hb_order_witness(so) && hb_order_witness(wo) &&
                     hb_order_r_is_u(so) && hb_order_r_is_u(wo);
        for (size_t i = 0; i < cells; i++) {
            if (i % 2 && !with_r)
                continue;
            if (chains[i - i % 2] == UINT32_MAX)
                continue;
            asked++;
            if (sa[i] != wa[i] && wrong++ < 5)
                printf("rank %u: event %u reached in %s from chain %u up to "
                       "%lld, in the whole trace up to %lld\n", r,
                       s->global[p[i / (STRIDE * 2)].y], i % 2 ? "R" : "U",
                       chains[i - i % 2], (long long)sa[i], (long long)wa[i]);
        }
        free(sa);
        free(wa);
        free(chains);
        free(all);
    }
    CHECK(wrong == 0, "rank %u: %u of %u answers of the share's order "
          "differ", r, wrong, asked);
    CHECK(unplaced == 0, "rank %u: %u sends that own receives match are "
          "not in the skeleton", r, unplaced);
    printf("rank %u: share's order, %u probes, %u answers, %u differ; %u "
           "sends outside the skeleton\n", r, n, asked, wrong, unplaced);
    hb_order_free(so);
    hb_order_free(wo);
    hb_outside_free(&out);
    hb_model_free(wm);
}
#endif

#ifdef CHECK_SHARE_MPI
/* peak resident memory of this process, in KB (0 when unknown) */
static long peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

#endif

/* The whole trace and its files' warnings (opts->warnings is replaced). */
static int load_whole(const char *const *paths, size_t n, trace_options *opts,
                      trace **w, char *err, size_t err_len, char **warn,
                      size_t *len)
{
    opts->warnings = open_memstream(warn, len);
    int rc = trace_load(paths, n, opts, w, err, err_len);
    fclose(opts->warnings);
    opts->warnings = NULL;
    return rc;
}

/* The checks of what rank 0's share printed and counted. */
static void check_load(const trace *w, int wrc, const char *wwarn, size_t wlen,
                       const trace_share *s0, int rc0, const char *swarn,
                       size_t slen)
{
    /* the files' warnings come first in trace_load()'s, then the
     * derived facts' ones, which a share does not print */
    CHECK(slen <= wlen && memcmp(swarn, wwarn, slen) == 0 &&
          (slen == wlen || slen == 0 || swarn[slen - 1] == '\n'),
          "the warnings differ:\n%s---- trace_load():\n%s", swarn, wwarn);
    if (wrc == TRACE_OK && rc0 == TRACE_OK) {
        const trace_stats *a = &w->stats, *b = &s0->whole;
        CHECK(memcmp(a->by_kind, b->by_kind, sizeof a->by_kind) == 0 &&
              a->events_skipped == b->events_skipped &&
              a->truncated_files == b->truncated_files &&
              a->files_skipped == b->files_skipped &&
              a->interrupted == b->interrupted,
              "the whole trace's counts differ");
    }
    printf("warnings: %zu bytes of the files', %zu in all\n", slen, wlen);
}

static void check_status(unsigned r, int rc, const char *err, int wrc,
                         const char *werr)
{
    CHECK(rc == (wrc == TRACE_OK ? TRACE_OK : TRACE_ERR),
          "rank %u: status %d, trace_load() %d", r, rc, wrc);
    if (wrc != TRACE_OK && rc != TRACE_OK)
        CHECK(strcmp(werr, err) == 0, "rank %u: \"%s\", trace_load() "
              "\"%s\"", r, err, werr);
}

#ifdef CHECK_SHARE_MPI
/* The shortcuts' order over the share (hb_order_new_share()), every own
 * batch swept once: its peak, after the skeleton's. */
static void measure_order(const trace_share *s, const hb_model *m,
                          hb_skeleton *k, handler_model hm, unsigned r)
{
    long before = peak_kb();
    hb_outside out;
    hb_skeleton_outside(k, s, hm, r, &out);
    hb_skeleton_free(k); /* the outside has what the order needs */
    hb_order *o = hb_order_new_share(s->t, m, 1, 0, s->foreign, &out);
    hb_outside_free(&out);
    uint32_t swept = 0;
    for (uint32_t b = 0; o && b < hb_order_n_own_batches(o); b++)
        swept += hb_order_focus(o, b);
    printf("rank %u: the share's order %s, %u of %u batches swept; peak "
           "before it %ld KB, after %ld KB\n", r, o ? "made" : "has a cycle",
           swept, o ? hb_order_n_batches(o) : 0, before, peak_kb());
    hb_order_free(o);
}

static int run(const char *const *paths, size_t n, trace_options opts,
               unsigned ranks, int measure, int skeleton, int *argc,
               char ***argv)
{
    (void)ranks;
    comm *c = comm_mpi_world(argc, argv);
    if (!c) {
        fputs("check-share: MPI could not start\n", stderr);
        return 2;
    }
    unsigned r = comm_rank(c);
    if (measure == 2) { /* the whole trace, as one process loads it */
        trace *t;
        char e[4096];
        int rc = trace_load(paths, n, &opts, &t, e, sizeof e);
        printf("rank %u: the whole trace, %u events, peak %ld KB\n", r,
               rc == TRACE_OK ? t->n_events : 0, peak_kb());
        if (rc == TRACE_OK)
            trace_free(t);
        comm_mpi_end(c);
        return rc == TRACE_OK ? 0 : 1;
    }
    trace *w = NULL;
    char werr[4096], serr[4096], *wwarn = NULL, *swarn = NULL;
    size_t wlen = 0, slen = 0;
    int wrc = measure ? TRACE_OK
                      : load_whole(paths, n, &opts, &w, werr, sizeof werr,
                                   &wwarn, &wlen);
    opts.warnings = open_memstream(&swarn, &slen);
    trace_share s;
    int rc = trace_load_share(paths, n, &opts, c, &s, serr, sizeof serr);
    fclose(opts.warnings);
    hb_skeleton k = {0};
    if (measure && skeleton >= 0 && rc == TRACE_OK) {
        /* what the analysis would build next: Φ with the other ranks,
         * pruned, and the skeleton */
        char e[4096];
        int exchanged = 0;
        long loaded = peak_kb();
        hb_model *m = hb_model_build_share(&s, (handler_model)skeleton, NULL,
                                           c, e, sizeof e);
        long built = peak_kb();
        if (m) {
            m = pruned_model(s.t, (handler_model)skeleton, m);
            long pruned = peak_kb();
            exchanged = hb_skeleton_exchange(&s, m, c, &k, e, sizeof e) == 0;
            if (exchanged)
                printf("rank %u: %u edges, skeleton of %u sync events and "
                       "%u edges; peak after the load %ld KB, Φ %ld KB, "
                       "pruning %ld KB\n", r, m->n_edges, k.n_sync,
                       k.in_start[k.n_sync], loaded, built, pruned);
            if (exchanged) /* and the shortcuts' order over the share */
                measure_order(&s, m, &k, (handler_model)skeleton, r);
            hb_model_free(m);
        }
        if (!m || !exchanged)
            printf("rank %u: %s\n", r, e);
    }
    if (measure) {
        uint32_t all = rc == TRACE_OK ? s.t->n_events : 0, theirs = 0;
        for (uint32_t i = 0; i < all; i++)
            theirs += s.foreign[i];
        printf("rank %u: %u own events, %u endpoints of other nodes, peak "
               "%ld KB\n", r, all - theirs, theirs, peak_kb());
        if (rc != TRACE_OK)
            printf("rank %u: %s\n", r, serr);
    } else {
        check_status(r, rc, serr, wrc, werr);
        if (r == 0)
            check_load(w, wrc, wwarn, wlen, &s, rc, swarn, slen);
        if (wrc == TRACE_OK && rc == TRACE_OK)
            check_shares(w, &s, r, 1, 0);
    }
    hb_skeleton_free(&k);
    if (rc == TRACE_OK)
        trace_share_free(&s);
    if (w)
        trace_free(w);
    free(wwarn);
    free(swarn);
    uint64_t bad = (uint64_t)failures;
    comm_reduce_max(c, &bad);
    comm_mpi_end(c);
    if (r == 0)
        printf(bad ? "failed\n" : "ok\n");
    return bad ? 1 : 0;
}
#else
static int run(const char *const *paths, size_t n, trace_options opts,
               unsigned ranks, int measure, int skeleton, int *argc,
               char ***argv)
{
    (void)argc;
    (void)argv;
    (void)measure;
    trace *w;
    char werr[4096], *wwarn = NULL, *swarn = NULL;
    size_t wlen = 0, slen = 0;
    int wrc = load_whole(paths, n, &opts, &w, werr, sizeof werr, &wwarn,
                         &wlen);
    opts.warnings = open_memstream(&swarn, &slen);
    job j = {paths, n, opts, ranks, xcalloc(ranks, sizeof(trace_share)),
             xcalloc(ranks, sizeof(int)), xcalloc(ranks, sizeof *j.err),
             skeleton, xcalloc(ranks, sizeof(hb_model *)),
             xcalloc(ranks, sizeof(hb_skeleton))};
    comm_threads_run(ranks, load_rank, &j);
    fclose(opts.warnings);
    check_load(w, wrc, wwarn, wlen, &j.share[0], j.rc[0], swarn, slen);
    for (unsigned r = 0; r < ranks; r++)
        check_status(r, j.rc[r], j.err[r], wrc, werr);
    if (wrc == TRACE_OK && failures == 0)
        check_shares(w, j.share, 0, ranks, 1);
    else if (wrc != TRACE_OK)
        printf("both fail: %s\n", werr);
    if (skeleton >= 0 && wrc == TRACE_OK && failures == 0)
        check_edges(w, (handler_model)skeleton, j.share, j.model, ranks);
    for (unsigned r = 0; r < ranks && skeleton >= 0 && wrc == TRACE_OK; r++)
        if (j.model[r])
        {
            check_skeleton(w, (handler_model)skeleton, &j.share[r],
                           j.model[r], &j.skel[r], r);
            check_order(w, (handler_model)skeleton, &j.share[r],
                        j.model[r], &j.skel[r], r);
        }
    for (unsigned r = 0; r < ranks; r++) {
        trace_share_free(&j.share[r]);
        if (j.model[r])
            hb_model_free(j.model[r]);
        hb_skeleton_free(&j.skel[r]);
    }
    free(j.model);
    free(j.skel);
    free(j.share);
    free(j.rc);
    free(j.err);
    free(wwarn);
    free(swarn);
    if (wrc == TRACE_OK)
        trace_free(w);
    printf(failures ? "%d failed\n" : "ok\n", failures);
    return failures ? 1 : 0;
}
#endif

int main(int argc, char **argv)
{
    unsigned ranks = 2;
    int first = 1, measure = 0, skeleton = -1;
    trace_options opts = {0};
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        if (strncmp(argv[first], "--ranks=", 8) == 0)
            ranks = (unsigned)atoi(argv[first] + 8);
        else if (strcmp(argv[first], "--lenient") == 0)
            opts.lenient = 1;
        else if (strcmp(argv[first], "--timestamps") == 0)
            opts.order = ORDER_TIMESTAMP;
        else if (strcmp(argv[first], "--measure") == 0)
            measure = measure ? measure : 1;
        else if (strcmp(argv[first], "--whole") == 0)
            measure = 2;
        else if (strcmp(argv[first], "--skeleton") == 0)
            skeleton = HANDLERS_NESTED;
        else if (strcmp(argv[first], "--skeleton=floating") == 0)
            skeleton = HANDLERS_FLOATING;
        else
            break;
    }
    if (first >= argc || ranks < 1 || ranks > 64) {
        fprintf(stderr, "usage: check-share [--ranks=N] [--lenient] "
                "[--timestamps] [--skeleton[=floating]] [--measure [--whole]] "
                "PATH...\n");
        return 2;
    }
    return run((const char *const *)argv + first, (size_t)(argc - first),
               opts, ranks, measure, skeleton, &argc, &argv);
}
