/*
 * encode_waits.c — can every WAIT of Φ follow a NOTIFY of its own?
 * (docs/model.md, "Wait/notify matching").
 *
 * In any solution of Φ, the booleans of the wait/notify clauses pick for
 * each constrained WAIT one NOTIFY that comes before it, and no NOTIFY
 * (a NOTIFYALL excepted) for two WAITs: a matching of WAITs to NOTIFYs
 * that the unconditional edges U do not order after them.  When no such
 * matching covers every constrained WAIT, Φ has no solution; that is the
 * contradiction a trace cut mid-section often holds (a LOCK never
 * released pulls other threads' later sections, and the WAITs before
 * them, ahead of the NOTIFYs the cut thread sends later), and Z3 needs
 * minutes to find it on 10^4 events.  When one does, it is a choice for
 * every WAIT that a scheduler may keep (engine_schedule.c).
 *
 * U's reachability from a WAIT is read from vector clocks over the chains
 * that hold WAITs (the last position on each such chain that reaches an
 * event), the matching is Kuhn's augmenting paths after a greedy start.
 */
#include "encode.h"

#include "../util/alloc.h"

#include <string.h>

#define NO_WAIT UINT32_MAX

/* Beyond this many clock cells, or augmenting steps, the check is not
 * made (-1): it is a shortcut, and its memory must stay small next to
 * the trace's. */
enum { MATCH_MAX_CELLS = 1 << 25 };
#define MATCH_MAX_STEPS ((uint64_t)1 << 30)

typedef struct matcher {
    const trace *t;
    const hb_model *m;
    uint32_t *wait_ev;           /* constrained WAIT i -> its event */
    uint32_t n;                  /* constrained WAITs */
    uint32_t *cand_start, *cand; /* WAIT i -> NOTIFYs U allows */
    uint32_t *pref_end;          /* ... the preferred ones (before the WAIT
                                    in the input) end there */
    int preferred_only;          /* match only along preferred pairs */
    uint32_t *match_of;          /* NOTIFY event -> WAIT i, or NO_WAIT */
    uint32_t *matched;           /* WAIT i -> NOTIFY event, or NO_EVENT */
    uint32_t *seen;              /* NOTIFY event -> stamp of the last search */
    uint64_t steps;
} matcher;

#define NO_EVENT UINT32_MAX

/* The chains that hold constrained WAITs, numbered from 0 into
 * chain_index (by chain, -1 elsewhere).  Returns how many. */
static uint32_t wait_chains(const matcher *x, int32_t *chain_index)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        uint32_t c = hb_chain_of(x->t, x->m->handlers, x->wait_ev[i]);
        if (chain_index[c] < 0)
            chain_index[c] = (int32_t)k++;
    }
    return k;
}

/* clock[e * k + j]: the last position (in its thread) of an event of
 * wait chain j that reaches e in U, or -1.  NULL when U has a cycle. */
static int32_t *reach_clocks(const matcher *x, const int32_t *chain_index,
                             uint32_t k)
{
    const hb_model *m = x->m;
    uint32_t n = m->n_events;
    digraph in;
    digraph_build(&in, n, m->edges, m->n_edges, DIGRAPH_IN, NULL);
    uint32_t *topo = xmalloc_array((size_t)n + 1, sizeof *topo);
    int32_t *clock = NULL;
    if (digraph_topological_order(&in, topo)) {
        clock = xmalloc_array((size_t)n * k + 1, sizeof *clock);
        memset(clock, 0xff, sizeof *clock * ((size_t)n * k));
        for (uint32_t r = 0; r < n; r++) {
            uint32_t v = topo[r];
            int32_t *cv = clock + (size_t)v * k;
            for (uint32_t s = in.start[v]; s < in.start[v + 1]; s++) {
                const int32_t *cp = clock + (size_t)in.adj[s] * k;
                for (uint32_t j = 0; j < k; j++)
                    if (cp[j] > cv[j])
                        cv[j] = cp[j];
            }
            int32_t j = chain_index[hb_chain_of(x->t, m->handlers, v)];
            if (j >= 0)
                cv[j] = (int32_t)x->t->events[v].pos;
        }
    }
    free(topo);
    digraph_free(&in);
    return clock;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts the WAIT's candidates c[0..n): those before it in the input
 * (event ids are the input order within a node), the nearest first,
 * then those after it in order.  Returns how many come before it. */
static uint32_t prefer_earlier(uint32_t *c, uint32_t n, uint32_t wait)
{
    qsort(c, n, sizeof *c, by_id);
    uint32_t before = 0;
    while (before < n && c[before] < wait)
        before++;
    for (uint32_t i = 0; i < before / 2; i++) {
        uint32_t v = c[i];
        c[i] = c[before - 1 - i];
        c[before - 1 - i] = v;
    }
    return before;
}

/* Each WAIT's NOTIFYs that U does not place after it. */
static void list_candidates(matcher *x, const int32_t *clock,
                            const int32_t *chain_index, uint32_t k)
{
    const trace *t = x->t;
    size_t total = 0;
    for (uint32_t i = 0; i < t->n_waits; i++)
        if (hb_wait_constrained(x->m, &t->waits[i]))
            total += t->waits[i].n_notifies;
    x->cand = xmalloc_array(total + 1, sizeof *x->cand);
    x->cand_start = xmalloc_array((size_t)x->n + 1, sizeof *x->cand_start);
    x->pref_end = xmalloc_array((size_t)x->n + 1, sizeof *x->pref_end);
    uint32_t c = 0, i = 0;
    for (uint32_t w = 0; w < t->n_waits; w++) {
        const wait_info *wi = &t->waits[w];
        if (!hb_wait_constrained(x->m, wi))
            continue;
        x->cand_start[i++] = c;
        uint32_t j = (uint32_t)chain_index[hb_chain_of(t, x->m->handlers, wi->wait)];
        int32_t at = (int32_t)t->events[wi->wait].pos;
        for (uint32_t p = 0; p < wi->n_notifies; p++) {
            uint32_t nt = wi->notifies[p];
            if (!x->m->kept[nt] || clock[(size_t)nt * k + j] < at)
                x->cand[c++] = nt;
        }
        x->pref_end[i - 1] = x->cand_start[i - 1] +
            prefer_earlier(x->cand + x->cand_start[i - 1],
                           c - x->cand_start[i - 1], wi->wait);
    }
    x->cand_start[i] = c;
}

/* Where WAIT i's candidates end for this phase. */
static uint32_t cand_end(const matcher *x, uint32_t i)
{
    return x->preferred_only ? x->pref_end[i] : x->cand_start[i + 1];
}

static int is_notify_all(const matcher *x, uint32_t e)
{
    return x->t->events[e].kind == EV_NOTIFYALL;
}

/* Each WAIT not matched yet: a NOTIFYALL if it may follow one (it wakes
 * any number), else the first free NOTIFY. */
static void match_greedily(matcher *x)
{
    for (uint32_t i = 0; i < x->n; i++)
        for (uint32_t c = x->cand_start[i];
             x->matched[i] == NO_EVENT && c < cand_end(x, i); c++)
            if (is_notify_all(x, x->cand[c]))
                x->matched[i] = x->cand[c];
    for (uint32_t i = 0; i < x->n; i++)
        for (uint32_t c = x->cand_start[i];
             x->matched[i] == NO_EVENT && c < cand_end(x, i); c++)
            if (x->match_of[x->cand[c]] == NO_WAIT) {
                x->matched[i] = x->cand[c];
                x->match_of[x->cand[c]] = i;
            }
}

/* Kuhn's augmenting path from unmatched WAIT w0 (iterative: paths run
 * through thousands of WAITs).  stack holds WAITs, next their next
 * candidate.  Returns 1 when w0 got a NOTIFY, 0 when none is free to it,
 * -1 past the step budget. */
static int augment(matcher *x, uint32_t w0, uint32_t stamp, uint32_t *stack,
                   uint32_t *next)
{
    uint32_t top = 0;
    stack[top++] = w0;
    next[w0] = x->cand_start[w0];
    while (top) {
        if (++x->steps > MATCH_MAX_STEPS)
            return -1;
        uint32_t w = stack[top - 1];
        if (next[w] == cand_end(x, w)) {
            top--;
            continue;
        }
        uint32_t nt = x->cand[next[w]++];
        if (x->seen[nt] == stamp)
            continue;
        x->seen[nt] = stamp;
        uint32_t holder = is_notify_all(x, nt) ? NO_WAIT : x->match_of[nt];
        if (holder != NO_WAIT) {
            stack[top++] = holder;
            next[holder] = x->cand_start[holder];
            continue;
        }
        /* free (or a NOTIFYALL): each WAIT on the stack takes the NOTIFY
         * found above it, leaving its own to the one below */
        for (uint32_t s = top; s-- > 0;) {
            uint32_t wa = stack[s];
            uint32_t had = x->matched[wa];
            x->matched[wa] = nt;
            if (!is_notify_all(x, nt))
                x->match_of[nt] = wa;
            nt = had;
        }
        return 1;
    }
    return 0;
}

/* WAIT w0 is left unmatched: the WAITs its alternating paths reach, and
 * their NOTIFYs (all taken by those WAITs: fewer NOTIFYs than WAITs),
 * into proof, WAITs first.  Returns how many. */
static size_t hall_set(matcher *x, uint32_t w0, uint32_t stamp,
                       uint32_t *queue, uint32_t *proof, size_t max)
{
    uint32_t head = 0, tail = 0;
    queue[tail++] = w0;
    while (head < tail) {
        uint32_t w = queue[head++];
        for (uint32_t c = x->cand_start[w]; c < x->cand_start[w + 1]; c++) {
            uint32_t nt = x->cand[c];
            if (x->seen[nt] == stamp)
                continue;
            x->seen[nt] = stamp;
            if (x->match_of[nt] != NO_WAIT)
                queue[tail++] = x->match_of[nt];
        }
    }
    size_t n = 0;
    for (uint32_t q = 0; q < tail && n < max; q++)
        proof[n++] = x->wait_ev[queue[q]];
    for (uint32_t q = 1; q < tail && n < max; q++)
        proof[n++] = x->matched[queue[q]];
    return n;
}

static void matcher_free(matcher *x)
{
    free(x->wait_ev);
    free(x->cand_start);
    free(x->pref_end);
    free(x->cand);
    free(x->match_of);
    free(x->matched);
    free(x->seen);
}

/* Matches every WAIT, or finds one that cannot be (0, proof filled);
 * -1 past the budget or on a stop. */
static int match_all(matcher *x, uint32_t *proof, size_t max, size_t *n_proof,
                     const volatile sig_atomic_t *stop)
{
    uint32_t n_ev = x->m->n_events;
    x->match_of = xmalloc_array((size_t)n_ev + 1, sizeof *x->match_of);
    memset(x->match_of, 0xff, sizeof *x->match_of * n_ev);
    x->matched = xmalloc_array((size_t)x->n + 1, sizeof *x->matched);
    memset(x->matched, 0xff, sizeof *x->matched * x->n);
    x->seen = xcalloc((size_t)n_ev + 1, sizeof *x->seen);
    uint32_t *stack = xmalloc_array((size_t)x->n + 1, sizeof *stack);
    uint32_t *next = xmalloc_array((size_t)x->n + 1, sizeof *next);
    int rc = 1;
    uint32_t stamp = 0;
    /* first the most WAITs along preferred pairs, then the rest along any */
    for (int phase = 0; phase < 2 && rc != -1; phase++) {
        rc = 1; /* a WAIT left unmatched along preferred pairs is tried
                   again along any: only the second phase's 0 is final */
        x->preferred_only = phase == 0;
        match_greedily(x);
        for (uint32_t i = 0; i < x->n && rc != -1; i++) {
            if (x->matched[i] != NO_EVENT)
                continue;
            if (stop && *stop) {
                rc = -1;
                break;
            }
            rc = augment(x, i, ++stamp, stack, next);
            if (rc == 0 && phase == 1) {
                *n_proof = hall_set(x, i, ++stamp, stack, proof, max);
                break;
            }
        }
    }
    free(next);
    free(stack);
    return rc;
}

int hb_wait_matching(const trace *t, const hb_model *m, uint32_t *chosen,
                     uint32_t *proof, size_t max, size_t *n_proof,
                     const volatile sig_atomic_t *stop)
{
    matcher x = {.t = t, .m = m};
    *n_proof = 0;
    x.wait_ev = xmalloc_array((size_t)t->n_waits + 1, sizeof *x.wait_ev);
    for (uint32_t i = 0; i < t->n_waits; i++)
        if (hb_wait_constrained(m, &t->waits[i]))
            x.wait_ev[x.n++] = t->waits[i].wait;
    uint32_t n_chains = hb_chain_count(t, m->handlers);
    int32_t *chain_index = xmalloc_array((size_t)n_chains + 1, sizeof *chain_index);
    memset(chain_index, 0xff, sizeof *chain_index * n_chains);
    uint32_t k = wait_chains(&x, chain_index);
    int rc = -1;
    if (x.n == 0) {
        rc = 1;
    } else if ((uint64_t)m->n_events * k <= MATCH_MAX_CELLS) {
        int32_t *clock = reach_clocks(&x, chain_index, k);
        if (clock) {
            list_candidates(&x, clock, chain_index, k);
            free(clock);
            rc = match_all(&x, proof, max, n_proof, stop);
        }
    }
    for (uint32_t i = 0; rc == 1 && chosen && i < x.n; i++)
        chosen[x.wait_ev[i]] = x.matched[i];
    free(chain_index);
    matcher_free(&x);
    return rc;
}
