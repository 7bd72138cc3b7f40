/*
 * encode_z3_core.c — why Φ has no run: the constraints of an unsat core,
 * each behind a guard of its own, and their events
 * (hb_model_core_events(), encode.h).
 */
#include "encode_z3_internal.h"
#include "../util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- explaining an unsatisfiable Φ ------------------------------------------ */

static size_t add_event_once(uint32_t *events, size_t n, size_t max, uint32_t e)
{
    for (size_t i = 0; i < n; i++)
        if (events[i] == e)
            return n;
    if (n < max)
        events[n++] = e;
    return n;
}

/* The events of the constraint whose guard is the core's i-th element;
 * returns the new count, or -1 if Z3 failed. */
static long core_constraint(hb_solver *s, const hb_model *m,
                            const lemma_list *locks, Z3_ast_vector core,
                            unsigned i, uint32_t *events, size_t found,
                            size_t max)
{
    Z3_context c = s->ctx;
    Z3_ast g = Z3_ast_vector_get(c, core, i);
    Z3_app app = solver_failed(s) ? NULL : Z3_to_app(c, g);
    Z3_func_decl d = solver_failed(s) ? NULL : Z3_get_app_decl(c, app);
    Z3_symbol sym = solver_failed(s) ? NULL : Z3_get_decl_name(c, d);
    Z3_string name = solver_failed(s) ? NULL : Z3_get_symbol_string(c, sym);
    if (solver_failed(s) || !name || name[0] != 'c')
        return -1;
    uint32_t k = (uint32_t)strtoul(name + 1, NULL, 10);
    if (k >= m->n_edges + m->n_clauses + locks->n)
        return -1;
    if (k >= m->n_edges + m->n_clauses) {
        const hb_lit *l = locks->v[k - m->n_edges - m->n_clauses].l;
        for (int j = 0; j < 2; j++) {
            found = add_event_once(events, found, max, l[j].a);
            found = add_event_once(events, found, max, l[j].b);
        }
        return (long)found;
    }
    if (k < m->n_edges) {
        found = add_event_once(events, found, max, m->edges[k].before);
        return (long)add_event_once(events, found, max, m->edges[k].after);
    }
    const hb_clause *cl = &m->clauses[k - m->n_edges];
    for (uint32_t j = 0; j < cl->n; j++) {
        const hb_lit *l = &m->lits[cl->first + j];
        uint32_t a = l->kind == LIT_LESS ? l->a : m->choices[l->a].notify;
        uint32_t b = l->kind == LIT_LESS ? l->b
                                         : hb_choice_event(&m->choices[l->a]);
        found = add_event_once(events, found, max, a);
        found = add_event_once(events, found, max, b);
    }
    return (long)found;
}

/* Guards for the explanation's constraints (edges, clauses, then the lock
 * clauses of locks): guard k is the Boolean "ck", and guard_k => k is
 * asserted, so an unsatisfiable core names the constraints it needs. */
typedef struct guard_list {
    Z3_ast *v;
    uint32_t n, cap;
} guard_list;

/* Guards constraints g->n .. n_edges + n_clauses + locks->n.  -1 if Z3
 * failed. */
static int guard_constraints(hb_solver *s, const lemma_list *locks,
                             guard_list *g)
{
    const hb_model *m = s->model;
    Z3_context c = s->ctx;
    uint32_t to = m->n_edges + m->n_clauses + locks->n;
    ALLOC_GROW(g->v, to, g->cap);
    for (; g->n < to; g->n++) {
        uint32_t k = g->n;
        char name[24];
        snprintf(name, sizeof name, "c%u", k);
        Z3_symbol sym = Z3_mk_string_symbol(c, name);
        Z3_sort sort = solver_failed(s) ? NULL : Z3_mk_bool_sort(c);
        g->v[k] = solver_failed(s) ? NULL : solver_keep_ast(s, Z3_mk_const(c, sym, sort));
        if (!g->v[k])
            return -1;
        Z3_ast body = k < m->n_edges + m->n_clauses
                          ? solver_constraint_term(s, m, k)
                          : solver_lock_clause_term(s, locks->v[k - m->n_edges -
                                                        m->n_clauses].l);
        Z3_ast implies = body ? solver_keep_ast(s, Z3_mk_implies(c, g->v[k], body))
                              : NULL;
        solver_drop_ast(s, body);
        if (solver_assert_term(s, implies) != 0) {
            g->n++; /* its guard is kept: released with the others */
            return -1;
        }
    }
    return 0;
}

/* The events named by the core of the last (unsatisfiable) check. */
static size_t events_of_core(hb_solver *s, const lemma_list *locks,
                             uint32_t *events, size_t max)
{
    Z3_context c = s->ctx;
    size_t found = 0;
    Z3_ast_vector core = Z3_solver_get_unsat_core(c, s->solver);
    if (solver_failed(s) || !core)
        return 0;
    Z3_ast_vector_inc_ref(c, core);
    unsigned size = Z3_ast_vector_size(c, core);
    for (unsigned i = 0; i < size && !solver_failed(s); i++) {
        long f = core_constraint(s, s->model, locks, core, i, events, found,
                                 max);
        if (f < 0)
            break;
        found = (size_t)f;
    }
    Z3_ast_vector_dec_ref(c, core);
    return found;
}

/* The events of an unsatisfiable core of Φ, from Z3 (none if Z3 fails or
 * the run stops: the explanation is then only shorter).  Eager lock
 * groups' clauses are guarded from the start; a lazy group's come in as
 * models break them (as in solver_check()). */
size_t hb_model_core_events(const hb_model *m, uint32_t *events, size_t max,
                            const volatile sig_atomic_t *stop)
{
    hb_solver_options o = {.tuning = TUNING_FAST, .stop = stop};
    hb_solver *s = solver_shell(m, &o);
    if (!s || solver_stopped(s)) {
        hb_solver_free(s);
        return 0;
    }
    s->model = m;
    solver_order_groups(s, NULL);
    s->n_groups_in = m->n_lock_groups; /* solver_broken_lock_clauses()' scope */
    lemma_list locks = {0};
    for (uint32_t g = 0; g < m->n_lock_groups; g++) {
        hb_lock_pairs it = {.group = g};
        hb_lit l[2];
        if (solver_group_is_lazy(m, g))
            s->any_lazy_in = 1;
        while (!solver_group_is_lazy(m, g) && hb_lock_pairs_next(m, &it, l) &&
               it.group == g)
            lemma_add_lits(&locks, l);
    }
    guard_list guards = {0};
    size_t found = 0;
    int ok = guard_constraints(s, &locks, &guards) == 0;
    while (ok && !solver_stopped(s)) {
        Z3_lbool r = Z3_solver_check_assumptions(s->ctx, s->solver, guards.n,
                                                 guards.v);
        if (solver_failed(s))
            break;
        if (r == Z3_L_FALSE) {
            found = events_of_core(s, &locks, events, max);
            break;
        }
        uint32_t before = locks.n;
        if (r != Z3_L_TRUE || !s->any_lazy_in ||
            solver_broken_lock_clauses(s, &locks) != 0 || locks.n == before)
            break; /* satisfiable after all: nothing to explain */
        ok = guard_constraints(s, &locks, &guards) == 0;
    }
    for (uint32_t k = 0; k < guards.n; k++)
        solver_drop_ast(s, guards.v[k]);
    free(guards.v);
    free(locks.v);
    hb_solver_free(s);
    return found;
}
