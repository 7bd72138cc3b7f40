/*
 * encode_z3.c — Φ as Z3 terms, asserted once into a solver that then
 * answers one incremental query at a time.  Follows Z3's
 * examples/c/test_capi.c: reference-counted context (inc/dec_ref on every
 * AST we keep), one error handler, push/assert/check/pop.
 */
#include "encode.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>

struct hb_solver {
    Z3_context ctx;
    Z3_solver solver;
    Z3_ast *vars;        /* O(e), or NULL for events outside the model */
    Z3_ast *bools;
    uint32_t n_vars, n_bools;
    /* sliced mode: constraints in prefix order, asserted as queries need */
    const hb_model *model;
    const uint32_t *unit;
    uint32_t *order;     /* constraint ids: edges, then n_edges + clause */
    uint32_t *position;  /* unit each constraint needs, by order index */
    uint32_t n_constraints, asserted, upto;
    char error[256];     /* Z3's message for the first error, or "" */
};

/* Z3 reports errors through this instead of aborting; a failed check
 * answers UNKNOWN, and hb_solver_new() looks at the error code. */
static void on_z3_error(Z3_context ctx, Z3_error_code code)
{
    (void)ctx;
    (void)code;
}

static Z3_ast keep_ast(Z3_context ctx, Z3_ast a)
{
    Z3_inc_ref(ctx, a);
    return a;
}

static Z3_ast var(hb_solver *s, uint32_t e)
{
    if (!s->vars[e]) {
        char name[24];
        snprintf(name, sizeof name, "e%u", e);
        Z3_symbol sym = Z3_mk_string_symbol(s->ctx, name);
        s->vars[e] = keep_ast(s->ctx, Z3_mk_const(s->ctx, sym,
                                                  Z3_mk_int_sort(s->ctx)));
    }
    return s->vars[e];
}

static Z3_ast lit(hb_solver *s, const hb_lit *l)
{
    switch (l->kind) {
    case LIT_LESS:
        return Z3_mk_lt(s->ctx, var(s, l->a), var(s, l->b));
    case LIT_BOOL:
        return s->bools[l->a];
    default:
        return Z3_mk_not(s->ctx, s->bools[l->a]);
    }
}

/* Asserts constraint k: edge k, or clause k - n_edges. */
static void assert_constraint(hb_solver *s, const hb_model *m, uint32_t k)
{
    Z3_context c = s->ctx;
    if (k < m->n_edges) {
        Z3_solver_assert(c, s->solver, Z3_mk_lt(c, var(s, m->edges[k].before),
                                                var(s, m->edges[k].after)));
        return;
    }
    const hb_clause *cl = &m->clauses[k - m->n_edges];
    Z3_ast small[8], *args = cl->n <= 8 ? small : malloc(sizeof(Z3_ast) * cl->n);
    /* keep each literal alive while the disjunction is built */
    for (uint32_t i = 0; i < cl->n; i++)
        args[i] = keep_ast(c, lit(s, &m->lits[cl->first + i]));
    Z3_solver_assert(c, s->solver, cl->n == 1 ? args[0] : Z3_mk_or(c, cl->n, args));
    for (uint32_t i = 0; i < cl->n; i++)
        Z3_dec_ref(c, args[i]);
    if (args != small)
        free(args);
}

static void assert_model(hb_solver *s, const hb_model *m)
{
    for (uint32_t k = 0; k < m->n_edges + m->n_clauses; k++)
        assert_constraint(s, m, k);
}

static Z3_solver make_solver(Z3_context c, solver_tuning tuning,
                             unsigned timeout_ms)
{
    Z3_solver solver = tuning == TUNING_FAST ? Z3_mk_simple_solver(c)
                                             : Z3_mk_solver(c);
    Z3_solver_inc_ref(c, solver);
    Z3_params p = Z3_mk_params(c);
    Z3_params_inc_ref(c, p);
    if (tuning == TUNING_FAST)
        Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "arith.solver"), 1);
    /* SIGINT is spider's to handle (it stops the workers and reports) */
    Z3_params_set_bool(c, p, Z3_mk_string_symbol(c, "ctrl_c"), false);
    if (timeout_ms)
        Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "timeout"), timeout_ms);
    Z3_solver_set_params(c, solver, p);
    Z3_params_dec_ref(c, p);
    return solver;
}

static hb_solver *solver_shell(const hb_model *m, solver_tuning tuning,
                               unsigned timeout_ms);

hb_solver *hb_solver_new(const hb_model *m, solver_tuning tuning,
                         unsigned timeout_ms)
{
    hb_solver *s = solver_shell(m, tuning, timeout_ms);
    if (!s)
        return NULL;
    assert_model(s, m);
    /* Solving Φ alone once first makes every later query several times
     * faster: the engine keeps what it learnt about Φ across push/pop. */
    Z3_solver_check(s->ctx, s->solver);
    if (Z3_get_error_code(s->ctx) != Z3_OK) {
        hb_solver_free(s);
        return NULL;
    }
    return s;
}

static uint32_t constraint_unit(const hb_model *m, const uint32_t *unit,
                                uint32_t k)
{
    if (k < m->n_edges) {
        uint32_t a = unit[m->edges[k].before], b = unit[m->edges[k].after];
        return a > b ? a : b;
    }
    const hb_clause *cl = &m->clauses[k - m->n_edges];
    uint32_t u = 0;
    for (uint32_t i = 0; i < cl->n; i++) {
        const hb_lit *l = &m->lits[cl->first + i];
        uint32_t x = l->kind == LIT_LESS
                         ? (unit[l->a] > unit[l->b] ? unit[l->a] : unit[l->b])
                         : unit[m->choices[l->a].wait];
        if (x > u)
            u = x;
    }
    return u;
}

hb_solver *hb_solver_new_sliced(const hb_model *m, const uint32_t *unit,
                                solver_tuning tuning, unsigned timeout_ms)
{
    hb_solver *s = solver_shell(m, tuning, timeout_ms);
    if (!s)
        return NULL;
    s->model = m;
    s->unit = unit;
    s->n_constraints = m->n_edges + m->n_clauses;
    /* counting sort of the constraints by the unit they need */
    uint32_t max_unit = 0;
    for (uint32_t e = 0; e < m->n_events; e++)
        if (m->kept[e] && unit[e] > max_unit)
            max_unit = unit[e];
    uint32_t *start = calloc(max_unit + 3, sizeof(uint32_t));
    uint32_t *need = malloc(sizeof(uint32_t) * (s->n_constraints + 1));
    for (uint32_t k = 0; k < s->n_constraints; k++) {
        need[k] = constraint_unit(m, unit, k);
        start[need[k] + 2]++;
    }
    for (uint32_t u = 0; u <= max_unit; u++)
        start[u + 2] += start[u + 1];
    s->order = malloc(sizeof(uint32_t) * (s->n_constraints + 1));
    s->position = malloc(sizeof(uint32_t) * (s->n_constraints + 1));
    for (uint32_t k = 0; k < s->n_constraints; k++) {
        uint32_t i = start[need[k] + 1]++;
        s->order[i] = k;
        s->position[i] = need[k];
    }
    free(start);
    free(need);
    return s;
}

/* Sliced mode: asserts every constraint whose events all lie in units <= u. */
static void extend(hb_solver *s, uint32_t u)
{
    while (s->asserted < s->n_constraints && s->position[s->asserted] <= u)
        assert_constraint(s, s->model, s->order[s->asserted++]);
}

static hb_solver *solver_shell(const hb_model *m, solver_tuning tuning,
                               unsigned timeout_ms)
{
    hb_solver *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "model", "false");
    s->ctx = Z3_mk_context_rc(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(s->ctx, on_z3_error);
    s->solver = make_solver(s->ctx, tuning, timeout_ms);
    s->n_vars = m->n_events;
    s->vars = calloc(m->n_events + 1, sizeof(Z3_ast));
    s->n_bools = m->n_bools;
    s->bools = calloc(m->n_bools + 1, sizeof(Z3_ast));
    for (uint32_t i = 0; i < m->n_bools; i++) {
        char name[24];
        snprintf(name, sizeof name, "b%u", i);
        s->bools[i] = keep_ast(s->ctx, Z3_mk_const(
            s->ctx, Z3_mk_string_symbol(s->ctx, name), Z3_mk_bool_sort(s->ctx)));
    }
    return s;
}

static hb_answer answer_of(Z3_lbool r)
{
    return r == Z3_L_TRUE ? ANSWER_SAT
         : r == Z3_L_FALSE ? ANSWER_UNSAT : ANSWER_UNKNOWN;
}

hb_answer hb_solver_check_model(hb_solver *s)
{
    return answer_of(Z3_solver_check(s->ctx, s->solver));
}

/* The query as one Z3 term over its events' constants, with a reference
 * the caller drops (Z3_dec_ref): in a reference-counted context a term
 * nobody holds may be freed by the next call that makes one. */
static Z3_ast query_term(hb_solver *s, const hb_query *q)
{
    Z3_context c = s->ctx;
    Z3_ast atoms[HB_QUERY_ATOMS];
    for (uint32_t k = 0; k < q->n_atoms; k++) {
        Z3_ast a = var(s, q->ev[q->atoms[k].i]), b = var(s, q->ev[q->atoms[k].j]);
        atoms[k] = q->atoms[k].kind == ATOM_LESS      ? Z3_mk_lt(c, a, b)
                 : q->atoms[k].kind == ATOM_LESS_EQ ? Z3_mk_le(c, a, b)
                                                    : Z3_mk_eq(c, a, b);
        Z3_inc_ref(c, atoms[k]);
    }
    if (q->n_atoms == 1)
        return atoms[0];
    Z3_ast term = q->any ? Z3_mk_or(c, q->n_atoms, atoms)
                         : Z3_mk_and(c, q->n_atoms, atoms);
    Z3_inc_ref(c, term);
    for (uint32_t k = 0; k < q->n_atoms; k++)
        Z3_dec_ref(c, atoms[k]);
    return term;
}

hb_answer hb_solver_check(hb_solver *s, const hb_query *q)
{
    Z3_context c = s->ctx;
    if (s->unit) {
        uint32_t u = 0;
        for (uint32_t i = 0; i < q->n_events; i++)
            if (s->unit[q->ev[i]] > u)
                u = s->unit[q->ev[i]];
        extend(s, u);
    }
    Z3_solver_push(c, s->solver);
    Z3_ast term = query_term(s, q);
    Z3_solver_assert(c, s->solver, term);
    Z3_dec_ref(c, term);
    hb_answer ans = answer_of(Z3_solver_check(c, s->solver));
    Z3_solver_pop(c, s->solver, 1);
    return ans;
}

const char *hb_solver_error(const hb_solver *s)
{
    return s->error;
}

void hb_solver_free(hb_solver *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_vars; i++)
        if (s->vars[i])
            Z3_dec_ref(s->ctx, s->vars[i]);
    for (uint32_t i = 0; i < s->n_bools; i++)
        Z3_dec_ref(s->ctx, s->bools[i]);
    Z3_solver_dec_ref(s->ctx, s->solver);
    Z3_del_context(s->ctx);
    free(s->vars);
    free(s->bools);
    free(s->order);
    free(s->position);
    free(s);
}

/* ---- explaining an unsatisfiable Φ ------------------------------------------ */

/* A cycle of unconditional edges, in order; 0 if there is none. */
static size_t find_cycle(const hb_model *m, uint32_t *events, size_t max)
{
    uint32_t n = m->n_events;
    uint32_t *in_deg = calloc(n + 1, sizeof(uint32_t));
    uint32_t *start = calloc(n + 2, sizeof(uint32_t)), *src, *dst;
    uint32_t *out_start = calloc(n + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < m->n_edges; i++) {
        in_deg[m->edges[i].after]++;
        start[m->edges[i].after + 2]++;
        out_start[m->edges[i].before + 2]++;
    }
    for (uint32_t v = 0; v < n; v++) {
        start[v + 2] += start[v + 1];
        out_start[v + 2] += out_start[v + 1];
    }
    src = malloc(sizeof(uint32_t) * (m->n_edges + 1));
    dst = malloc(sizeof(uint32_t) * (m->n_edges + 1));
    for (uint32_t i = 0; i < m->n_edges; i++) {
        src[start[m->edges[i].after + 1]++] = m->edges[i].before;
        dst[out_start[m->edges[i].before + 1]++] = m->edges[i].after;
    }
    /* Kahn: what is left lies on or after a cycle */
    uint32_t *queue = malloc(sizeof(uint32_t) * (n + 1)), head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        if (m->kept[v] && !in_deg[v])
            queue[tail++] = v;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t k = out_start[v]; k < out_start[v + 1]; k++)
            if (--in_deg[dst[k]] == 0)
                queue[tail++] = dst[k];
    }
    size_t found = 0;
    uint32_t v = UINT32_MAX;
    for (uint32_t i = 0; i < n && v == UINT32_MAX; i++)
        if (m->kept[i] && in_deg[i])
            v = i;
    if (v != UINT32_MAX) {
        /* walk back along unfinished predecessors until one repeats */
        uint32_t *seen_at = malloc(sizeof(uint32_t) * (n + 1)), *path = queue;
        for (uint32_t i = 0; i < n; i++)
            seen_at[i] = UINT32_MAX;
        uint32_t len = 0;
        while (seen_at[v] == UINT32_MAX) {
            seen_at[v] = len;
            path[len++] = v;
            for (uint32_t k = start[v]; k < start[v + 1]; k++)
                if (in_deg[src[k]]) {
                    v = src[k];
                    break;
                }
        }
        /* path[seen_at[v] .. len) is the cycle, walked backwards */
        for (uint32_t i = len; i-- > seen_at[v] && found < max;)
            events[found++] = path[i];
        free(seen_at);
    }
    free(in_deg);
    free(start);
    free(out_start);
    free(src);
    free(dst);
    free(queue);
    return found;
}

static size_t add_event_once(uint32_t *events, size_t n, size_t max, uint32_t e)
{
    for (size_t i = 0; i < n; i++)
        if (events[i] == e)
            return n;
    if (n < max)
        events[n++] = e;
    return n;
}

/* The events of an unsatisfiable core of Φ, from Z3. */
static size_t core_events(const hb_model *m, uint32_t *events, size_t max)
{
    hb_solver *s = solver_shell(m, TUNING_FAST, 0);
    if (!s)
        return 0;
    Z3_context c = s->ctx;
    uint32_t n = m->n_edges + m->n_clauses;
    Z3_ast *guards = malloc(sizeof(Z3_ast) * (n + 1));
    for (uint32_t k = 0; k < n; k++) {
        char name[24];
        snprintf(name, sizeof name, "c%u", k);
        guards[k] = keep_ast(c, Z3_mk_const(c, Z3_mk_string_symbol(c, name),
                                            Z3_mk_bool_sort(c)));
    }
    /* guard_k => constraint_k: the core names the guards it needs */
    for (uint32_t k = 0; k < n; k++) {
        Z3_ast body;
        if (k < m->n_edges) {
            body = Z3_mk_lt(c, var(s, m->edges[k].before), var(s, m->edges[k].after));
            Z3_inc_ref(c, body);
        } else {
            const hb_clause *cl = &m->clauses[k - m->n_edges];
            Z3_ast *args = malloc(sizeof(Z3_ast) * cl->n);
            for (uint32_t i = 0; i < cl->n; i++)
                args[i] = keep_ast(c, lit(s, &m->lits[cl->first + i]));
            body = cl->n == 1 ? args[0] : Z3_mk_or(c, cl->n, args);
            Z3_inc_ref(c, body);
            for (uint32_t i = 0; i < cl->n; i++)
                Z3_dec_ref(c, args[i]);
            free(args);
        }
        Z3_solver_assert(c, s->solver, Z3_mk_implies(c, guards[k], body));
        Z3_dec_ref(c, body);
    }
    size_t found = 0;
    if (Z3_solver_check_assumptions(c, s->solver, n, guards) == Z3_L_FALSE) {
        Z3_ast_vector core = Z3_solver_get_unsat_core(c, s->solver);
        Z3_ast_vector_inc_ref(c, core);
        for (unsigned i = 0; i < Z3_ast_vector_size(c, core); i++) {
            Z3_symbol sym = Z3_get_decl_name(c, Z3_get_app_decl(c,
                Z3_to_app(c, Z3_ast_vector_get(c, core, i))));
            uint32_t k = (uint32_t)strtoul(Z3_get_symbol_string(c, sym) + 1, NULL, 10);
            if (k < m->n_edges) {
                found = add_event_once(events, found, max, m->edges[k].before);
                found = add_event_once(events, found, max, m->edges[k].after);
                continue;
            }
            const hb_clause *cl = &m->clauses[k - m->n_edges];
            for (uint32_t j = 0; j < cl->n; j++) {
                const hb_lit *l = &m->lits[cl->first + j];
                uint32_t a = l->kind == LIT_LESS ? l->a : m->choices[l->a].notify;
                uint32_t b = l->kind == LIT_LESS ? l->b : m->choices[l->a].wait;
                found = add_event_once(events, found, max, a);
                found = add_event_once(events, found, max, b);
            }
        }
        Z3_ast_vector_dec_ref(c, core);
    }
    for (uint32_t k = 0; k < n; k++)
        Z3_dec_ref(c, guards[k]);
    free(guards);
    hb_solver_free(s);
    return found;
}

size_t hb_model_explain(const hb_model *m, uint32_t *events, size_t max)
{
    size_t n = find_cycle(m, events, max);
    return n ? n : core_events(m, events, max);
}
