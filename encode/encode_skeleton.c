/*
 * encode_skeleton.c — hb_skeleton_exchange(): the sync events of U over
 * the ranks of a split run (encode.h).
 *
 * Each rank finds the sync events of its own chains in its Φ: a kept
 * event of its own nodes with an edge from another chain (its in-edges
 * come with it, their sources by global id, an endpoint of another node
 * among them) or to another chain (an edge to another node's RCV is the
 * RCV owner's in-edge, so the RCV's rank lists it), and a kept send
 * another node's receive may match, edge or not.  Every rank sends
 * its chains to every rank, and each puts them together: chains in rank
 * order, sync events by global id, sources looked up.
 */
#include "encode.h"

#include "../util/alloc.h"
#include "../util/comm.h"
#include "../util/pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of a share's chain as every rank calls it. */
static char *chain_name(const trace_share *s, handler_model hm, uint32_t e)
{
    const trace *t = s->t;
    const char *thread = t->strings[t->threads[t->events[e].thread].name];
    if (hm != HANDLERS_FLOATING || t->events[e].handler == NONE)
        return xstrdup(thread);
    uint32_t begin = s->global[t->handlers[t->events[e].handler].begin];
    size_t n = strlen(thread) + 32;
    char *name = xmalloc(n);
    snprintf(name, n, "%s/handler %u", thread, begin);
    return name;
}

/* This rank's chains and their sync events, packed: per chain its name
 * and its sync events in program order, each with its global id, place
 * and the global ids of its in-edges' sources. */
static void pack_own(const trace_share *s, const hb_model *m, pack *b)
{
    const trace *t = s->t;
    handler_model hm = m->handlers;
    uint32_t n = t->n_events, chains = hb_chain_count(t, hm);
    uint8_t *sync = xcalloc((size_t)n + 1, 1);
    uint32_t *in_count = xcalloc((size_t)n + 1, sizeof *in_count);
    for (uint32_t i = 0; i < m->n_edges; i++) {
        uint32_t x = m->edges[i].before, y = m->edges[i].after;
        if (hb_chain_of(t, hm, x) == hb_chain_of(t, hm, y))
            continue;
        if (!s->foreign[x])
            sync[x] = 1;
        if (!s->foreign[y]) {
            sync[y] = 1;
            in_count[y]++;
        }
    }
    /* and the sends that another node's receive may match but no edge
     * names (the receive has several): that node's analyses ask
     * about them */
    for (uint32_t k = 0; k < t->n_matches; k++) {
        const rcv_match *mt = &t->matches[k];
        for (uint32_t j = 0; s->foreign[mt->rcv] && j < mt->n_sends; j++)
            if (!s->foreign[mt->sends[j]] && m->kept[mt->sends[j]])
                sync[mt->sends[j]] = 1;
    }
    uint32_t *in_start = xcalloc((size_t)n + 2, sizeof *in_start);
    for (uint32_t e = 0; e < n; e++)
        in_start[e + 1] = in_start[e] + in_count[e];
    uint32_t *in = xmalloc_array((size_t)in_start[n] + 1, sizeof *in);
    memset(in_count, 0, sizeof *in_count * n);
    for (uint32_t i = 0; i < m->n_edges; i++) {
        uint32_t x = m->edges[i].before, y = m->edges[i].after;
        if (hb_chain_of(t, hm, x) != hb_chain_of(t, hm, y) && !s->foreign[y])
            in[in_start[y] + in_count[y]++] = s->global[x];
    }
    /* chain by chain, in program order: a chain's events by pos */
    uint32_t *count = xcalloc((size_t)chains + 1, sizeof *count);
    for (uint32_t e = 0; e < n; e++)
        count[hb_chain_of(t, hm, e)] += sync[e];
    uint32_t *start = xcalloc((size_t)chains + 2, sizeof *start);
    for (uint32_t c = 0; c < chains; c++)
        start[c + 1] = start[c] + count[c];
    uint32_t *order = xmalloc_array((size_t)start[chains] + 1, sizeof *order);
    memset(count, 0, sizeof *count * chains);
    for (uint32_t th = 0; th < t->n_threads; th++)
        for (uint32_t k = 0; k < t->threads[th].n_events; k++) {
            uint32_t e = t->threads[th].events[k];
            if (sync[e]) {
                uint32_t c = hb_chain_of(t, hm, e);
                order[start[c] + count[c]++] = e;
            }
        }
    uint32_t used = 0;
    for (uint32_t c = 0; c < chains; c++)
        used += count[c] > 0;
    pack_u32(b, used);
    for (uint32_t c = 0; c < chains; c++) {
        if (!count[c])
            continue;
        char *name = chain_name(s, hm, order[start[c]]);
        pack_text(b, name, strlen(name));
        free(name);
        pack_u32(b, count[c]);
        for (uint32_t k = start[c]; k < start[c + 1]; k++) {
            uint32_t e = order[k];
            pack_u32(b, s->global[e]);
            pack_u32(b, t->events[e].pos);
            pack_u32(b, in_start[e + 1] - in_start[e]);
            pack_put(b, in + in_start[e],
                     sizeof *in * (in_start[e + 1] - in_start[e]));
        }
    }
    free(order);
    free(start);
    free(count);
    free(in);
    free(in_start);
    free(in_count);
    free(sync);
}

/* Sorts idx by the global ids it points at. */
static int by_global(const void *x, const void *y, void *ctx)
{
    const uint32_t *g = ctx;
    uint32_t a = g[*(const uint32_t *)x], b = g[*(const uint32_t *)y];
    return a < b ? -1 : a > b;
}

/* Applies the permutation idx (new place i holds old idx[i]) to v, in
 * place, following its cycles (done: a cleared bit per place). */
static void permute(uint32_t *v, const uint32_t *idx, uint32_t n,
                    uint8_t *done)
{
    memset(done, 0, (size_t)n / 8 + 1);
    for (uint32_t i = 0; i < n; i++) {
        if (done[i / 8] >> (i % 8) & 1)
            continue;
        uint32_t first = v[i], at = i;
        for (;;) {
            done[at / 8] |= (uint8_t)(1u << (at % 8));
            uint32_t from = idx[at];
            if (from == i) {
                v[at] = first;
                break;
            }
            v[at] = v[from];
            at = from;
        }
    }
}

/* Every rank's chains into k, each rank's bytes freed once read (they
 * are as large as the skeleton), the sync events then put in global
 * order in place.  0, -1 when the bytes are cut short, -2 when an edge
 * names no sync event or two ranks name one. */
static int read_all(comm_parts *got, hb_skeleton *k)
{
    size_t n = 0, n_in = 0, chain_cap = 0;
    for (unsigned r = 0; r < got->n; r++) { /* first how many */
        unpack u = unpack_of(got->data[r], got->len[r]);
        uint32_t chains = unpack_u32(&u);
        for (uint32_t c = 0; c < chains && !u.bad; c++) {
            size_t len;
            unpack_text(&u, &len);
            uint32_t events = unpack_u32(&u);
            for (uint32_t i = 0; i < events && !u.bad; i++) {
                unpack_take(&u, 2 * sizeof(uint32_t));
                uint32_t m = unpack_u32(&u);
                unpack_take(&u, (size_t)m * sizeof(uint32_t));
                n_in += m;
            }
            n += events;
        }
        if (u.bad || n > UINT32_MAX - 1 || n_in > UINT32_MAX - 1)
            return -1;
    }
    k->n_sync = (uint32_t)n;
    k->global = xmalloc_array(n + 1, sizeof *k->global);
    k->chain = xmalloc_array(n + 1, sizeof *k->chain);
    k->pos = xmalloc_array(n + 1, sizeof *k->pos);
    uint32_t *count = xmalloc_array(n + 1, sizeof *count);
    uint32_t *sources = xmalloc_array(n_in + 1, sizeof *sources);
    size_t at = 0, at_in = 0;
    for (unsigned r = 0; r < got->n; r++) { /* then what, in arrival order */
        unpack u = unpack_of(got->data[r], got->len[r]);
        uint32_t chains = unpack_u32(&u);
        for (uint32_t c = 0; c < chains; c++) {
            size_t len;
            const char *name = unpack_text(&u, &len);
            ALLOC_GROW(k->chain_name, k->n_chains + 1, chain_cap);
            k->chain_rank = xrealloc_array(k->chain_rank, chain_cap,
                                           sizeof *k->chain_rank);
            k->chain_name[k->n_chains] = xstrdup(name);
            k->chain_rank[k->n_chains] = r;
            uint32_t events = unpack_u32(&u);
            for (uint32_t i = 0; i < events; i++, at++) {
                k->global[at] = unpack_u32(&u);
                k->chain[at] = k->n_chains;
                k->pos[at] = unpack_u32(&u);
                count[at] = unpack_u32(&u);
                unpack_get(&u, sources + at_in, (size_t)count[at] * sizeof *sources);
                at_in += count[at];
            }
            k->n_chains++;
        }
        free(got->data[r]);
        got->data[r] = NULL;
        got->len[r] = 0;
    }
    /* by global id: where each event's sources start, then the arrays
     * permuted in place */
    uint32_t *first = xmalloc_array(n + 1, sizeof *first);
    for (size_t i = 0, f = 0; i < n; i++) {
        first[i] = (uint32_t)f;
        f += count[i];
    }
    uint32_t *idx = xmalloc_array(n + 1, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    if (n)
        qsort_r(idx, n, sizeof *idx, by_global, k->global);
    uint8_t *done = xmalloc(n / 8 + 1);
    permute(k->global, idx, (uint32_t)n, done);
    permute(k->chain, idx, (uint32_t)n, done);
    permute(k->pos, idx, (uint32_t)n, done);
    free(done);
    k->in_start = xcalloc(n + 2, sizeof *k->in_start);
    for (size_t i = 0; i < n; i++)
        k->in_start[i + 1] = k->in_start[i] + count[idx[i]];
    k->in = xmalloc_array(n_in + 1, sizeof *k->in);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < count[idx[i]]; j++) {
            uint32_t src = hb_skeleton_find(k, sources[first[idx[i]] + j]);
            rc |= src == UINT32_MAX;
            k->in[k->in_start[i] + j] = src;
        }
    for (size_t i = 1; i < n; i++)
        rc |= k->global[i] == k->global[i - 1]; /* two ranks' event */
    free(idx);
    free(first);
    free(sources);
    free(count);
    return rc ? -2 : 0;
}

int hb_skeleton_exchange(const trace_share *s, const hb_model *m, comm *c,
                         hb_skeleton *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    pack mine = {0};
    pack_own(s, m, &mine);
    comm_parts got;
    int rc = comm_allgather(c, mine.data, mine.n, &got);
    free(mine.data);
    if (rc == 0)
        rc = read_all(&got, out);
    comm_parts_free(&got);
    if (rc == -1)
        snprintf(err, err_len, "the ranks of the job lost each other (a "
                 "collective operation failed)");
    else if (rc != 0)
        snprintf(err, err_len, "the ranks' skeletons do not fit together: "
                 "an edge names an event no rank has as a sync event");
    if (rc != 0)
        hb_skeleton_free(out);
    return rc ? -1 : 0;
}

/* Where x stands in v[0 .. n), ascending, or UINT32_MAX. */
static uint32_t find_sorted(const uint32_t *v, uint32_t n, uint32_t x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? lo : UINT32_MAX;
}

/* The share's event of global id g, or UINT32_MAX. */
static uint32_t local_of(const trace_share *s, uint32_t g)
{
    return find_sorted(s->global, s->t->n_events, g);
}

typedef struct chain_place {
    uint32_t chain, pos, sync;
} chain_place;

static int by_chain_pos(const void *x, const void *y)
{
    const chain_place *a = x, *b = y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void hb_skeleton_outside(const hb_skeleton *k, const trace_share *s,
                         handler_model hm, unsigned rank, hb_outside *out)
{
    const trace *t = s->t;
    uint32_t n = t->n_events, base = hb_chain_count(t, hm);
    memset(out, 0, sizeof *out);
    /* the other ranks' sync events, by chain and place */
    chain_place *at = xmalloc_array((size_t)k->n_sync + 1, sizeof *at);
    uint32_t *vertex = xmalloc_array((size_t)k->n_sync + 1, sizeof *vertex);
    uint32_t m = 0;
    for (uint32_t i = 0; i < k->n_sync; i++) {
        vertex[i] = UINT32_MAX;
        if (k->chain_rank[k->chain[i]] != rank)
            at[m++] = (chain_place){k->chain[i], k->pos[i], i};
    }
    qsort(at, m, sizeof *at, by_chain_pos);
    out->n = m;
    out->chain = xmalloc_array((size_t)m + 1, sizeof *out->chain);
    uint32_t *chain_no = xmalloc_array((size_t)k->n_chains + 1, sizeof *chain_no);
    memset(chain_no, 0xff, sizeof *chain_no * k->n_chains);
    out->edges = xmalloc_array((size_t)m + k->in_start[k->n_sync] + 1,
                               sizeof *out->edges);
    for (uint32_t j = 0; j < m; j++) {
        uint32_t c = at[j].chain;
        if (chain_no[c] == UINT32_MAX)
            chain_no[c] = out->n_chains++;
        else /* program order from the one before on its chain */
            out->edges[out->n_edges++] = (digraph_edge){n + j - 1, n + j};
        out->chain[j] = base + chain_no[c];
        vertex[at[j].sync] = n + j;
    }
    for (uint32_t i = 0; i < k->n_sync; i++) /* the rank's own sync events */
        if (vertex[i] == UINT32_MAX)
            vertex[i] = local_of(s, k->global[i]);
    for (uint32_t i = 0; i < k->n_sync; i++) {
        if (k->chain_rank[k->chain[i]] == rank)
            continue; /* the share's Φ has these */
        for (uint32_t j = k->in_start[i]; j < k->in_start[i + 1]; j++)
            if (vertex[k->in[j]] != UINT32_MAX)
                out->edges[out->n_edges++] =
                    (digraph_edge){vertex[k->in[j]], vertex[i]};
    }
    out->map = xmalloc_array((size_t)n + 1, sizeof *out->map);
    for (uint32_t e = 0; e < n; e++) {
        out->map[e] = e;
        if (s->foreign[e]) {
            uint32_t i = hb_skeleton_find(k, s->global[e]);
            out->map[e] = i == UINT32_MAX ? UINT32_MAX : vertex[i];
        }
    }
    free(chain_no);
    free(vertex);
    free(at);
}

void hb_outside_free(hb_outside *o)
{
    free(o->chain);
    free(o->map);
    free(o->edges);
    memset(o, 0, sizeof *o);
}

uint32_t hb_skeleton_find(const hb_skeleton *k, uint32_t g)
{
    return find_sorted(k->global, k->n_sync, g);
}

void hb_skeleton_free(hb_skeleton *k)
{
    for (uint32_t c = 0; c < k->n_chains; c++)
        free(k->chain_name[c]);
    free(k->chain_name);
    free(k->chain_rank);
    free(k->global);
    free(k->chain);
    free(k->pos);
    free(k->in_start);
    free(k->in);
    memset(k, 0, sizeof *k);
}
