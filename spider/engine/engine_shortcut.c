/*
 * engine_shortcut.c — exact answers without a solver (docs/model.md, "How
 * a candidate is decided").
 *
 * Two graphs over the kept events:
 *   U, the unconditional edges of Φ (program order, fork/join, messages
 *     with one possible send);
 *   R, U plus one literal of every clause, chosen as the run was observed
 *     (the lock order of a node's input, the first of several sends, the
 *     NOTIFY that came last before a WAIT).
 * If R is acyclic, every topological order of R satisfies Φ.  A query's
 * atoms are difference constraints over its events (O(a) < O(b) weighs -1,
 * <= and = weigh 0); over the few events of a query, "a reaches b" in a
 * graph is a -1 edge a → b.  Then, for a conjunction:
 *   - UNSAT when U and the atoms have a cycle through a strict edge (U is
 *     part of Φ), or when the atoms (with U) put an event of a critical
 *     section of one thread between two events of one section of the same
 *     lock in another thread (i ≤ j ≤ k with i, k inside S, j inside S':
 *     the sections cannot overlap; i = k is the old "a = b in excluded
 *     sections");
 *   - SAT when R acyclic and R with the atoms has no such cycle: a
 *     solution of R and the atoms satisfies Φ;
 *   - anything else is left to Z3 (ANSWER_UNKNOWN).
 * A disjunction is UNSAT when each atom alone is, SAT when one atom alone
 * is.  Both rules are exact with respect to the graphs: a negative cycle
 * among difference constraints passes through the query's events.
 * Reachability is computed with vector clocks restricted to one node's
 * chains (every query asks about events of one node); nodes are swept in
 * batches of up to BATCH_CHAINS chains (shortcut_graph.c), so that a
 * sweep's fixed cost per event is shared.  A sweep visits only the sync
 * events (the graphs: shortcut_graph.c; the clocks: shortcut_clocks.c);
 * hb_order.c decides the same way while the analyses generate.
 */
#include "engine_shortcut_internal.h"

#include "../../util/alloc.h"

#include <stdlib.h>

/* ---- one query --------------------------------------------------------------- */

/* Shortest-path signs over a query's events: NO_PATH, 0 (a path of <= and
 * = only) or -1 (a path through a strict edge). */
enum { NO_PATH = 1 };
typedef int8_t dist[HB_QUERY_EVENTS][HB_QUERY_EVENTS];

static void relax(dist d, uint32_t i, uint32_t j, int8_t w)
{
    if (w < d[i][j])
        d[i][j] = w;
}

/* The query's events with the reachability of graph vc (U when under = 1:
 * an unknown path counts as none; R: as one) and the atoms in `use`. */
static void graph_of(const shortcut_engine *e, const clocks *vc, int under,
                     const hb_query *q, uint32_t use, dist d)
{
    uint32_t batch = vc->batch, n = q->n_events;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t a = q->ev[i], b = q->ev[j];
            d[i][j] = NO_PATH;
            if (i == j || a == b)
                d[i][j] = 0;
            else if (e->chain_batch[e->chain[e->dense[a]]] != batch)
                d[i][j] = under ? NO_PATH : -1;
            else if (clocks_reaches(e, vc, a, b))
                d[i][j] = -1;
        }
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        if (!(use & (1u << k)))
            continue;
        const hb_atom *at = &q->atoms[k];
        relax(d, at->i, at->j, at->kind == ATOM_LESS ? -1 : 0);
        if (at->kind == ATOM_EQUAL)
            relax(d, at->j, at->i, 0);
    }
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                if (d[i][k] != NO_PATH && d[k][j] != NO_PATH)
                    relax(d, i, j, d[i][k] + d[k][j] < 0 ? -1 : 0);
}

static int strict_cycle(const hb_query *q, dist d)
{
    for (uint32_t i = 0; i < q->n_events; i++)
        if (d[i][i] < 0)
            return 1;
    return 0;
}

/* Some event j lies between two events i, k of one section (i <= j <= k
 * by d) while it holds a section of the same lock in another thread. */
static int sections_overlap(const shortcut_engine *e, const clocks *u,
                            const hb_query *q, dist d)
{
    for (uint32_t j = 0; j < q->n_events; j++)
        for (uint32_t i = 0; i < q->n_events; i++)
            for (uint32_t k = 0; k < q->n_events; k++) {
                if (i == j || k == j || d[i][j] > 0 || d[j][k] > 0)
                    continue;
                const event *ei = &e->t->events[q->ev[i]];
                const event *ek = &e->t->events[q->ev[k]];
                if (ei->thread == ek->thread &&
                    e->t->events[q->ev[j]].thread != ei->thread &&
                    clocks_excluded(e, u, q->ev[i], q->ev[j], q->ev[k]))
                    return 1;
            }
    return 0;
}

typedef enum verdict_of_atoms { ATOMS_UNSAT_ORDER, ATOMS_UNSAT_LOCKS,
                                ATOMS_SAT, ATOMS_UNKNOWN } verdict_of_atoms;

/* The atoms in `use`, all at once. */
static verdict_of_atoms decide_atoms(const shortcut_engine *e, const clocks *u,
                                     const clocks *r, const hb_query *q,
                                     uint32_t use)
{
    dist d;
    graph_of(e, u, 1, q, use, d);
    if (strict_cycle(q, d))
        return ATOMS_UNSAT_ORDER;
    if (sections_overlap(e, u, q, d))
        return ATOMS_UNSAT_LOCKS;
    if (!e->r.acyclic)
        return ATOMS_UNKNOWN;
    graph_of(e, r, 0, q, use, d);
    return strict_cycle(q, d) ? ATOMS_UNKNOWN : ATOMS_SAT;
}

/* The two shapes most queries have, without the general machinery (the
 * same answers: one atom between two events of the batch). */
static verdict_of_atoms decide_pair(const shortcut_engine *e, const clocks *u,
                                    const clocks *r, const hb_query *q)
{
    uint32_t a = q->ev[q->atoms[0].i], b = q->ev[q->atoms[0].j];
    if (q->atoms[0].kind == ATOM_EQUAL) {
        if (clocks_reaches(e, u, a, b) || clocks_reaches(e, u, b, a))
            return ATOMS_UNSAT_ORDER;
        if (clocks_excluded(e, u, a, b, a))
            return ATOMS_UNSAT_LOCKS;
        return e->r.acyclic && !clocks_reaches(e, r, a, b) && !clocks_reaches(e, r, b, a)
                   ? ATOMS_SAT : ATOMS_UNKNOWN;
    }
    /* a < b: only a path b → a contradicts it (b is the home event) */
    if (a == b || clocks_reaches(e, u, b, a))
        return ATOMS_UNSAT_ORDER;
    return e->r.acyclic && !clocks_reaches(e, r, b, a) ? ATOMS_SAT : ATOMS_UNKNOWN;
}

static int is_simple_pair(const shortcut_engine *e, const hb_query *q, uint32_t batch)
{
    if (q->n_events != 2 || q->n_atoms != 1 || q->atoms[0].kind == ATOM_LESS_EQ)
        return 0;
    uint32_t a = q->ev[q->atoms[0].i], b = q->ev[q->atoms[0].j];
    if (a == b && q->atoms[0].kind == ATOM_EQUAL)
        return 0; /* O(a) = O(a): the general rules know it is Φ itself */
    uint32_t later = q->atoms[0].kind == ATOM_LESS ? b : a;
    return e->chain_batch[e->chain[e->dense[later]]] == batch &&
           (q->atoms[0].kind == ATOM_LESS ||
            e->chain_batch[e->chain[e->dense[b]]] == batch);
}

/* Atomicity's two shapes over p, r, c of one node, directly: "between"
 * p < r < c (a cycle needs a path r → p, c → r or c → p; r inside p's and
 * c's section of a lock r's thread holds too is the lock rule) and
 * "outside" r < p ∨ c < r (each atom alone).  The same answers as the
 * general rules. */
static int is_triple(const shortcut_engine *e, const hb_query *q, uint32_t batch)
{
    if (q->n_events != 3 || q->n_atoms != 2)
        return 0;
    static const hb_atom between[2] = {{ATOM_LESS, 0, 1}, {ATOM_LESS, 1, 2}};
    static const hb_atom outside[2] = {{ATOM_LESS, 1, 0}, {ATOM_LESS, 2, 1}};
    const hb_atom *want = q->any ? outside : between;
    for (uint32_t k = 0; k < 2; k++)
        if (q->atoms[k].kind != want[k].kind || q->atoms[k].i != want[k].i ||
            q->atoms[k].j != want[k].j)
            return 0;
    for (uint32_t i = 0; i < 3; i++)
        if (e->chain_batch[e->chain[e->dense[q->ev[i]]]] != batch)
            return 0;
    return q->ev[0] != q->ev[1] && q->ev[1] != q->ev[2] && q->ev[0] != q->ev[2];
}

static verdict_of_atoms decide_triple(const shortcut_engine *e, const clocks *u,
                                      const clocks *r, const hb_query *q)
{
    uint32_t p = q->ev[0], x = q->ev[1], c = q->ev[2];
    int rc = e->r.acyclic;
    if (!q->any) {
        if (clocks_reaches(e, u, x, p) || clocks_reaches(e, u, c, x) || clocks_reaches(e, u, c, p))
            return ATOMS_UNSAT_ORDER;
        if (e->t->events[p].thread == e->t->events[c].thread &&
            e->t->events[x].thread != e->t->events[p].thread &&
            clocks_excluded(e, u, p, x, c))
            return ATOMS_UNSAT_LOCKS;
        return rc && !clocks_reaches(e, r, x, p) && !clocks_reaches(e, r, c, x) &&
                       !clocks_reaches(e, r, c, p) ? ATOMS_SAT : ATOMS_UNKNOWN;
    }
    if (rc && (!clocks_reaches(e, r, p, x) || !clocks_reaches(e, r, x, c)))
        return ATOMS_SAT;
    return clocks_reaches(e, u, p, x) && clocks_reaches(e, u, x, c) ? ATOMS_UNSAT_ORDER
                                                      : ATOMS_UNKNOWN;
}

hb_answer shortcut_decide_one(const shortcut_engine *e, const clocks *u, const clocks *r,
                              const hb_query *q, shortcut_stats *st)
{
    verdict_of_atoms v;
    if (e->r_is_u)
        r = u;
    if (is_simple_pair(e, q, u->batch)) {
        v = decide_pair(e, u, r, q);
    } else if (is_triple(e, q, u->batch)) {
        v = decide_triple(e, u, r, q);
    } else if (!q->any) {
        v = decide_atoms(e, u, r, q, (1u << q->n_atoms) - 1);
    } else { /* SAT if one atom is; UNSAT if every atom is */
        int unsat = 1, locks = 0;
        v = ATOMS_UNKNOWN;
        for (uint32_t k = 0; k < q->n_atoms && v != ATOMS_SAT; k++) {
            verdict_of_atoms one = decide_atoms(e, u, r, q, 1u << k);
            if (one == ATOMS_SAT)
                v = ATOMS_SAT;
            unsat &= one == ATOMS_UNSAT_ORDER || one == ATOMS_UNSAT_LOCKS;
            locks |= one == ATOMS_UNSAT_LOCKS;
        }
        if (v != ATOMS_SAT && unsat)
            v = locks ? ATOMS_UNSAT_LOCKS : ATOMS_UNSAT_ORDER;
    }
    switch (v) {
    case ATOMS_UNSAT_ORDER:
        st->unsat_ordered++;
        return ANSWER_UNSAT;
    case ATOMS_UNSAT_LOCKS:
        st->unsat_locks++;
        return ANSWER_UNSAT;
    case ATOMS_SAT:
        st->sat_witness++;
        return ANSWER_SAT;
    default:
        st->undecided++;
        return ANSWER_UNKNOWN;
    }
}

/* The batch of the node a query is about: its last event's. */
static uint32_t home_batch(const shortcut_engine *e, const hb_query *q)
{
    uint32_t ev = q->ev[q->n_events - 1];
    return e->node_batch[e->thread_node[e->t->events[ev].thread]];
}

/* Marks what the queries of one batch ask about: every event of each
 * query, and the sections that hold its accesses (lock exclusion). */
static void mark_needed(const shortcut_engine *e, const query_list *ql, const uint32_t *order,
                        uint32_t from, uint32_t to, needed_set *needed)
{
    const trace *t = e->t;
    for (uint32_t i = from; i < to; i++) {
        if (!((i - from) & 0xffff))
            run_progress_step(ql->progress, "finding what queries need", i - from,
                             to - from);
        hb_query x = ql->get(ql->ctx, order[i]);
        for (uint32_t j = 0; j < x.n_events; j++) {
            uint32_t d = e->dense[x.ev[j]];
            needed_add(needed, d);
            if (e->held_first[d] < 0)
                continue;
            for (const uint32_t *h = e->held + e->held_first[d]; *h != UINT32_MAX; h++) {
                needed_add(needed, e->dense[t->sections[*h].acquire]);
                if (t->sections[*h].release != NONE)
                    needed_add(needed, e->dense[t->sections[*h].release]);
            }
        }
    }
}

/* Decides ql batch by batch with clocks u and r (of e's graphs) and the
 * set needed (empty, and left empty). */
void shortcut_decide_by_batch(const shortcut_engine *e, const query_list *ql,
                              hb_answer *answers, shortcut_stats *st,
                              clocks *u, clocks *r, needed_set *needed)
{
    size_t n = ql->n;
    uint32_t *start = xcalloc(e->n_batches + 2, sizeof(uint32_t));
    uint32_t *order = xmalloc_array(n + 1, sizeof(uint32_t));
    uint32_t *home = xmalloc_array(n + 1, sizeof(uint32_t));
    int stopped = 0; /* checked every 2^16 queries: one batch may hold
                        hundreds of millions (a node's data races) */
    for (size_t i = 0; i < n; i++)
        answers[i] = ANSWER_UNKNOWN; /* until its batch is swept */
    for (size_t i = 0; i < n && !stopped; i++) {
        stopped = !(i & 0xffff) && ql->stop && *ql->stop;
        if (!(i & 0xffff))
            run_progress_step(ql->progress, "placing queries by node", i, n);
        hb_query q = ql->get(ql->ctx, i);
        home[i] = home_batch(e, &q);
        start[home[i] + 2]++;
    }
    if (stopped)
        n = 0; /* all stay undecided */
    for (uint32_t v = 0; v < e->n_batches; v++)
        start[v + 2] += start[v + 1];
    for (size_t i = 0; i < n; i++) {
        if (!(i & 0xffff))
            run_progress_step(ql->progress, "ordering queries by node", i, n);
        order[start[home[i] + 1]++] = (uint32_t)i;
    }
    free(home);
    stopped |= ql->stop && *ql->stop;
    for (uint32_t v = 0; v < e->n_batches && !stopped; v++) {
        if (start[v] == start[v + 1])
            continue;
        if (!clocks_fit(e, v)) { /* too many chains: Z3 decides */
            for (uint32_t i = start[v]; i < start[v + 1]; i++)
                answers[order[i]] = ANSWER_UNKNOWN;
            st->undecided += start[v + 1] - start[v];
            st->nodes_skipped++;
            continue;
        }
        mark_needed(e, ql, order, start[v], start[v + 1], needed);
        run_progress_step(ql->progress, "exact shortcuts", start[v], n);
        clocks_sweep_batch(e, v, u, r, e->threads >= 2, ql->stop);
        stopped |= ql->stop && *ql->stop; /* a stopped sweep is unfinished */
        for (uint32_t i = start[v]; i < start[v + 1] && !stopped; i++) {
            hb_query q = ql->get(ql->ctx, order[i]);
            answers[order[i]] = shortcut_decide_one(e, u, r, &q, st);
            if (!((i + 1) & 0xffff)) {
                stopped = ql->stop && *ql->stop;
                run_progress_step(ql->progress, "exact shortcuts", i + 1, n);
            }
        }
        needed_clear(needed);
        stopped |= ql->stop && *ql->stop;
    }
    free(start);
    free(order);
}

int shortcut_resolved_edges(const trace *t, const hb_model *m,
                            hb_edge_list *out)
{
    shortcut_engine e;
    shortcut_setup(&e, t, m, 0);
    uint32_t first = out->n;
    int ok = shortcut_choose_resolved(&e, out, &e.r);
    if (ok && out->n - first == m->n_edges) /* R is U: no graph made */
        shortcut_build_graph(&e, &e.r, out->v + first, out->n - first);
    ok = ok && e.r.acyclic; /* the same test of a cycle as the shortcuts' */
    shortcut_teardown(&e);
    return ok;
}

int shortcut_decide(const trace *t, const hb_model *m, const query_list *q,
                    hb_answer *answers, shortcut_stats *st)
{
    shortcut_engine e;
    shortcut_setup(&e, t, m, 0);
    shortcut_build_unconditional(&e);
    int consistent = -1; /* unknown */
    if (!e.u.acyclic) {
        consistent = 0;  /* unconditional edges alone form a cycle */
    } else {
        shortcut_build_resolved(&e);
        shortcut_resolved_is_unconditional(&e);
        if (e.r.acyclic)
            consistent = 1;
        if (e.waits_unmatched) {
            shortcut_teardown(&e);
            return 0;
        }
        shortcut_find_held_sections(&e);
        needed_set needed;
        needed_init(&needed, &e);
        clocks u, r;
        clocks_init(&u, &e, &e.u, &needed);
        clocks_init(&r, &e, &e.r, &needed);
        shortcut_decide_by_batch(&e, q, answers, st, &u, &r, &needed);
        clocks_free(&u);
        clocks_free(&r);
        needed_free(&needed);
    }
    shortcut_teardown(&e);
    return consistent;
}
