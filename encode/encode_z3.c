/*
 * encode_z3.c — Φ as Z3 terms, asserted once into a solver that then
 * answers one incremental query at a time.  Follows Z3's
 * examples/c/test_capi.c: reference-counted context (inc/dec_ref on every
 * AST we keep), one error handler, push/assert/check/pop.
 */
#include "encode.h"

#include <stdlib.h>
#include <z3.h>

struct hb_solver {
    Z3_context ctx;
    Z3_solver solver;
    Z3_ast *vars;        /* O(e), or NULL for events outside the model */
    Z3_ast *bools;
    uint32_t n_vars, n_bools;
    int failed;          /* set by the error handler */
};

/* Z3 reports errors through this; we record them and answer UNKNOWN. */
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

static void assert_model(hb_solver *s, const hb_model *m)
{
    Z3_context c = s->ctx;
    for (uint32_t i = 0; i < m->n_edges; i++) {
        Z3_ast a = Z3_mk_lt(c, var(s, m->edges[i].before),
                            var(s, m->edges[i].after));
        Z3_solver_assert(c, s->solver, a);
    }
    Z3_ast *args = NULL;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < m->n_clauses; i++) {
        const hb_clause *cl = &m->clauses[i];
        if (cl->n > cap) {
            cap = cl->n * 2;
            free(args);
            args = malloc(sizeof(Z3_ast) * cap);
        }
        /* keep each literal alive while the disjunction is built */
        for (uint32_t k = 0; k < cl->n; k++)
            args[k] = keep_ast(c, lit(s, &m->lits[cl->first + k]));
        Z3_ast any = cl->n == 1 ? args[0] : Z3_mk_or(c, cl->n, args);
        Z3_solver_assert(c, s->solver, any);
        for (uint32_t k = 0; k < cl->n; k++)
            Z3_dec_ref(c, args[k]);
    }
    free(args);
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
    if (timeout_ms)
        Z3_params_set_uint(c, p, Z3_mk_string_symbol(c, "timeout"), timeout_ms);
    Z3_solver_set_params(c, solver, p);
    Z3_params_dec_ref(c, p);
    return solver;
}

hb_solver *hb_solver_new(const hb_model *m, solver_tuning tuning,
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

static hb_answer answer_of(Z3_lbool r)
{
    return r == Z3_L_TRUE ? ANSWER_SAT
         : r == Z3_L_FALSE ? ANSWER_UNSAT : ANSWER_UNKNOWN;
}

hb_answer hb_solver_check_model(hb_solver *s)
{
    return answer_of(Z3_solver_check(s->ctx, s->solver));
}

hb_answer hb_solver_check(hb_solver *s, const hb_query *q)
{
    Z3_context c = s->ctx;
    Z3_solver_push(c, s->solver);
    Z3_ast a = var(s, q->a), b = var(s, q->b);
    Z3_ast goal = q->kind == QUERY_SIMULTANEOUS ? Z3_mk_eq(c, a, b)
                                                : Z3_mk_lt(c, a, b);
    Z3_solver_assert(c, s->solver, goal);
    hb_answer ans = answer_of(Z3_solver_check(c, s->solver));
    Z3_solver_pop(c, s->solver, 1);
    return ans;
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
    free(s);
}
