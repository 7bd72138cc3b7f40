/*
 * encode_slice.c — an order in which Φ can be given to a solver piece by
 * piece, so that a query needs only a prefix of it.
 *
 * Events are grouped into units (strongly connected components of the
 * graph of every edge and every clause atom u<v, plus links that keep each
 * clause's events in one unit unless all its atoms end at one event), and
 * units are numbered in a topological order.  A prefix S of units is then
 * closed under "earlier side of a constraint", and every clause is either
 * inside S, outside it, or has an atom from S to outside.  Claim: for a
 * query over events of S, Φ ∧ q is satisfiable iff Φ|S ∧ q is (Φ|S = the
 * constraints whose events all lie in S), given that Φ is satisfiable: put
 * a model of Φ|S ∧ q first and a model of Φ, shifted, after it; constraints
 * inside S hold by the first, those outside by the second, and the rest
 * have an atom from S to outside, which holds.  (A boolean "WAIT w chose
 * NOTIFY n" counts as an event of w's unit, an auxiliary of n's ladder as
 * one of n's: the ladder's clauses tie n to each of its waits' booleans.)
 */
#include "encode.h"

#include "../util/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void link_all(hb_edge_list *b, const uint32_t *ev, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; i++) {
        hb_edge_list_add(b, ev[i], ev[i + 1]);
        hb_edge_list_add(b, ev[i + 1], ev[i]);
    }
}

/* Every endpoint of a clause (a boolean stands for its WAIT, a ladder's
 * for its NOTIFY). */
static uint32_t clause_events(const hb_model *m, const hb_clause *c,
                              uint32_t *ev, int *same_after)
{
    uint32_t n = 0;
    int64_t after = -1;
    *same_after = 1;
    for (uint32_t k = 0; k < c->n; k++) {
        const hb_lit *l = &m->lits[c->first + k];
        if (l->kind == LIT_LESS) {
            ev[n++] = l->a;
            ev[n++] = l->b;
            if (after >= 0 && after != l->b)
                *same_after = 0;
            after = l->b;
        } else {
            ev[n++] = hb_choice_event(&m->choices[l->a]);
            *same_after = 0;
        }
    }
    return n;
}

static digraph build(const hb_model *m)
{
    hb_edge_list b = {0};
    for (uint32_t i = 0; i < m->n_edges; i++)
        hb_edge_list_add(&b, m->edges[i].before, m->edges[i].after);
    uint32_t cap = 16, *ev = xmalloc(sizeof(uint32_t) * cap);
    for (uint32_t i = 0; i < m->n_clauses; i++) {
        const hb_clause *c = &m->clauses[i];
        if (2 * c->n > cap) {
            cap = 2 * c->n;
            ev = xrealloc_array(ev, cap, sizeof(uint32_t));
        }
        int same_after;
        uint32_t n = clause_events(m, c, ev, &same_after);
        for (uint32_t k = 0; k < c->n; k++) {
            const hb_lit *l = &m->lits[c->first + k];
            if (l->kind == LIT_LESS)
                hb_edge_list_add(&b, l->a, l->b);
        }
        if (!same_after)
            link_all(&b, ev, n);
    }
    free(ev);
    /* a lock group's clauses link every event of its sections (each
     * section is in a clause with one of another thread, and those with
     * all of its own thread's): one chain there and back says the same */
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        const hb_lock_group *gr = &m->lock_groups[g];
        for (uint32_t i = gr->first; i < gr->first + gr->n; i++) {
            const lock_section *x = &m->lock_sections[i];
            uint32_t pair[2] = {x->acquire, (uint32_t)x->release};
            link_all(&b, pair, 2);
            if (i > gr->first)
                link_all(&b, (uint32_t[]){m->lock_sections[i - 1].release,
                                          x->acquire}, 2);
        }
    }
    digraph g;
    digraph_build(&g, m->n_events, b.v, b.n, DIGRAPH_OUT, NULL);
    free(b.v);
    return g;
}

/* Tarjan's algorithm, iterative; components come out in reverse
 * topological order, so unit = n_units - 1 - component. */
static uint32_t *units(const digraph *g, const uint8_t *kept)
{
    uint32_t n = g->n, next_index = 0, n_comp = 0, sp = 0, cp = 0;
    uint32_t *index = xmalloc(sizeof(uint32_t) * (n + 1));
    uint32_t *low = xmalloc(sizeof(uint32_t) * (n + 1));
    uint32_t *comp = xmalloc(sizeof(uint32_t) * (n + 1));
    uint32_t *stack = xmalloc(sizeof(uint32_t) * (n + 1));
    uint32_t *call = xmalloc(sizeof(uint32_t) * (n + 1));
    uint32_t *edge = xmalloc(sizeof(uint32_t) * (n + 1));
    uint8_t *on_stack = xcalloc(n + 1, 1);
    for (uint32_t v = 0; v < n; v++)
        index[v] = UINT32_MAX;
    for (uint32_t root = 0; root < n; root++) {
        if (!kept[root] || index[root] != UINT32_MAX)
            continue;
        call[cp++] = root;
        edge[root] = g->start[root];
        index[root] = low[root] = next_index++;
        stack[sp++] = root;
        on_stack[root] = 1;
        while (cp) {
            uint32_t v = call[cp - 1];
            if (edge[v] < g->start[v + 1]) {
                uint32_t w = g->adj[edge[v]++];
                if (index[w] == UINT32_MAX) {
                    index[w] = low[w] = next_index++;
                    edge[w] = g->start[w];
                    stack[sp++] = w;
                    on_stack[w] = 1;
                    call[cp++] = w;
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            cp--;
            if (cp && low[v] < low[call[cp - 1]])
                low[call[cp - 1]] = low[v];
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    on_stack[w] = 0;
                    comp[w] = n_comp;
                } while (w != v);
                n_comp++;
            }
        }
    }
    for (uint32_t v = 0; v < n; v++)
        comp[v] = kept[v] ? n_comp - 1 - comp[v] : 0;
    free(index);
    free(low);
    free(stack);
    free(call);
    free(edge);
    free(on_stack);
    return comp;
}

uint32_t *hb_model_slices(const hb_model *m)
{
    assert(!m->waits_deferred); /* hb_model_add_waits() first */
    digraph g = build(m);
    uint32_t *unit = units(&g, m->kept);
    digraph_free(&g);
    return unit;
}
