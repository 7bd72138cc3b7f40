/*
 * encode_z3.c — Φ as Z3 terms, asserted once into a solver that then
 * answers one incremental query at a time.  Follows Z3's
 * examples/c/test_capi.c: reference-counted context (inc/dec_ref on every
 * AST we keep), push/assert/check/pop, and the error code checked after
 * every call that can fail.
 *
 * Errors: Z3 sets an error code per context, and every API call resets it,
 * so it is read right after each call that can fail.  The first error of a
 * solver is kept in it (code and Z3's message, hb_solver_error()); from
 * then on the solver makes no more Z3 calls but to free itself, and every
 * check answers ANSWER_ERROR — a failure is never a verdict.
 */
#include "encode.h"
#include "../traces/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
    Z3_error_code code;  /* the first error, or Z3_OK */
    char error[256];     /* Z3's message for the first error, or "" */
};

/* Z3's default handler prints and exits the process; this one leaves the
 * error code for failed() to read after the call.  (A handler gets no
 * pointer of ours, so it cannot record the error itself without a global.) */
static void on_z3_error(Z3_context ctx, Z3_error_code code)
{
    (void)ctx;
    (void)code;
}

/* After a Z3 call: records its error, if any (the first one is kept).
 * True when the solver has failed, by this call or an earlier one. */
static int failed(hb_solver *s)
{
    if (s->code != Z3_OK)
        return 1;
    Z3_error_code code = Z3_get_error_code(s->ctx);
    if (code == Z3_OK)
        return 0;
    s->code = code;
    const char *msg = Z3_get_error_msg(s->ctx, code);
    snprintf(s->error, sizeof s->error, "%s",
             msg && *msg ? msg : "unknown Z3 error");
    return 1;
}

/* Records a failure of the set-up that Z3 did not report. */
static void fail_setup(hb_solver *s, const char *what)
{
    if (s->code != Z3_OK)
        return;
    s->code = Z3_EXCEPTION;
    snprintf(s->error, sizeof s->error, "%s", what);
}

/* Takes a reference to a, the result of the last call; NULL if it failed. */
static Z3_ast keep_ast(hb_solver *s, Z3_ast a)
{
    if (failed(s) || !a)
        return NULL;
    Z3_inc_ref(s->ctx, a);
    return failed(s) ? NULL : a;
}

static void drop_ast(hb_solver *s, Z3_ast a)
{
    if (a)
        Z3_dec_ref(s->ctx, a);
}

/* O(e); NULL if Z3 failed. */
static Z3_ast var(hb_solver *s, uint32_t e)
{
    if (!s->vars[e] && !failed(s)) {
        char name[24];
        snprintf(name, sizeof name, "e%u", e);
        Z3_symbol sym = Z3_mk_string_symbol(s->ctx, name);
        if (failed(s))
            return NULL;
        Z3_sort sort = Z3_mk_int_sort(s->ctx);
        if (failed(s))
            return NULL;
        s->vars[e] = keep_ast(s, Z3_mk_const(s->ctx, sym, sort));
    }
    return s->vars[e];
}

/* O(a) < O(b), O(a) <= O(b) or O(a) = O(b), kept; NULL if Z3 failed. */
static Z3_ast atom(hb_solver *s, hb_atom_kind kind, uint32_t a, uint32_t b)
{
    Z3_ast x = var(s, a), y = x ? var(s, b) : NULL;
    if (!y)
        return NULL;
    Z3_context c = s->ctx;
    return keep_ast(s, kind == ATOM_LESS      ? Z3_mk_lt(c, x, y)
                     : kind == ATOM_LESS_EQ ? Z3_mk_le(c, x, y)
                                            : Z3_mk_eq(c, x, y));
}

/* A literal of a clause, kept; NULL if Z3 failed. */
static Z3_ast lit(hb_solver *s, const hb_lit *l)
{
    switch (l->kind) {
    case LIT_LESS:
        return atom(s, ATOM_LESS, l->a, l->b);
    case LIT_BOOL:
        return keep_ast(s, s->bools[l->a]);
    default:
        return keep_ast(s, Z3_mk_not(s->ctx, s->bools[l->a]));
    }
}

/* The disjunction (any) or conjunction of n kept terms, kept; the terms
 * are released.  NULL if Z3 failed (or any term is NULL). */
static Z3_ast combine(hb_solver *s, int any, uint32_t n, Z3_ast *terms)
{
    Z3_ast r = NULL;
    int complete = 1;
    for (uint32_t i = 0; i < n; i++)
        complete &= terms[i] != NULL;
    if (complete && n == 1)
        return terms[0];
    if (complete && !failed(s))
        r = keep_ast(s, any ? Z3_mk_or(s->ctx, n, terms)
                            : Z3_mk_and(s->ctx, n, terms));
    for (uint32_t i = 0; i < n; i++)
        drop_ast(s, terms[i]);
    return r;
}

/* Constraint k of m (edge k, or clause k - n_edges) as a kept term; NULL
 * if Z3 failed. */
static Z3_ast constraint_term(hb_solver *s, const hb_model *m, uint32_t k)
{
    if (k < m->n_edges)
        return atom(s, ATOM_LESS, m->edges[k].before, m->edges[k].after);
    const hb_clause *cl = &m->clauses[k - m->n_edges];
    Z3_ast small[8];
    Z3_ast *args = cl->n <= 8 ? small : xmalloc_array(cl->n, sizeof *args);
    for (uint32_t i = 0; i < cl->n; i++)
        args[i] = failed(s) ? NULL : lit(s, &m->lits[cl->first + i]);
    Z3_ast r = combine(s, 1, cl->n, args);
    if (args != small)
        free(args);
    return r;
}

/* Asserts a kept term and releases it.  -1 if Z3 failed. */
static int assert_term(hb_solver *s, Z3_ast t)
{
    if (!t)
        return -1;
    Z3_solver_assert(s->ctx, s->solver, t);
    int bad = failed(s);
    drop_ast(s, t);
    return bad ? -1 : 0;
}

static int assert_model(hb_solver *s, const hb_model *m)
{
    for (uint32_t k = 0; k < m->n_edges + m->n_clauses; k++)
        if (assert_term(s, constraint_term(s, m, k)) != 0)
            return -1;
    return 0;
}

static int set_param(hb_solver *s, Z3_params p, const char *name, int is_bool,
                     unsigned value)
{
    Z3_symbol key = Z3_mk_string_symbol(s->ctx, name);
    if (failed(s))
        return -1;
    if (is_bool)
        Z3_params_set_bool(s->ctx, p, key, value != 0);
    else
        Z3_params_set_uint(s->ctx, p, key, value);
    return failed(s) ? -1 : 0;
}

/* Sets s->solver up; -1 if Z3 failed. */
static int make_solver(hb_solver *s, solver_tuning tuning, unsigned timeout_ms)
{
    Z3_context c = s->ctx;
    Z3_solver solver = tuning == TUNING_FAST ? Z3_mk_simple_solver(c)
                                             : Z3_mk_solver(c);
    if (failed(s) || !solver)
        return -1;
    Z3_solver_inc_ref(c, solver);
    s->solver = solver;
    Z3_params p = Z3_mk_params(c);
    if (failed(s) || !p)
        return -1;
    Z3_params_inc_ref(c, p);
    int rc = tuning == TUNING_FAST ? set_param(s, p, "arith.solver", 0, 1) : 0;
    /* SIGINT is spider's to handle (it stops the workers and reports) */
    if (rc == 0)
        rc = set_param(s, p, "ctrl_c", 1, 0);
    if (rc == 0 && timeout_ms)
        rc = set_param(s, p, "timeout", 0, timeout_ms);
    if (rc == 0) {
        Z3_solver_set_params(c, solver, p);
        rc = failed(s) ? -1 : 0;
    }
    Z3_params_dec_ref(c, p);
    return rc;
}

/* A context and solver for m's variables, nothing asserted yet.  NULL if
 * Z3 failed. */
static hb_solver *solver_shell(const hb_model *m, solver_tuning tuning,
                               unsigned timeout_ms)
{
    hb_solver *s = xcalloc(1, sizeof *s);
    s->vars = xcalloc(m->n_events + 1, sizeof(Z3_ast));
    s->bools = xcalloc(m->n_bools + 1, sizeof(Z3_ast));
    Z3_config cfg = Z3_mk_config();
    if (!cfg) {
        hb_solver_free(s);
        return NULL;
    }
    Z3_set_param_value(cfg, "model", "false");
    s->ctx = Z3_mk_context_rc(cfg); /* NULL e.g. when memory_max_size is hit */
    Z3_del_config(cfg);
    if (!s->ctx) {
        hb_solver_free(s);
        return NULL;
    }
    Z3_set_error_handler(s->ctx, on_z3_error);
    s->n_vars = m->n_events;
    if (make_solver(s, tuning, timeout_ms) != 0) {
        hb_solver_free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < m->n_bools; i++) {
        char name[24];
        snprintf(name, sizeof name, "b%u", i);
        Z3_symbol sym = Z3_mk_string_symbol(s->ctx, name);
        Z3_sort sort = failed(s) ? NULL : Z3_mk_bool_sort(s->ctx);
        s->bools[i] = failed(s) ? NULL : keep_ast(s, Z3_mk_const(s->ctx, sym, sort));
        s->n_bools = i + 1;
        if (!s->bools[i]) {
            hb_solver_free(s);
            return NULL;
        }
    }
    return s;
}

hb_solver *hb_solver_new(const hb_model *m, solver_tuning tuning,
                         unsigned timeout_ms)
{
    hb_solver *s = solver_shell(m, tuning, timeout_ms);
    if (!s)
        return NULL;
    if (assert_model(s, m) != 0) {
        hb_solver_free(s);
        return NULL;
    }
    /* Solving Φ alone once first makes every later query several times
     * faster: the engine keeps what it learnt about Φ across push/pop. */
    Z3_solver_check(s->ctx, s->solver);
    if (failed(s)) {
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
                         : unit[hb_choice_event(&m->choices[l->a])];
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
    uint32_t *start = xcalloc((size_t)max_unit + 3, sizeof(uint32_t));
    uint32_t *need = xmalloc_array((size_t)s->n_constraints + 1, sizeof(uint32_t));
    for (uint32_t k = 0; k < s->n_constraints; k++) {
        need[k] = constraint_unit(m, unit, k);
        start[need[k] + 2]++;
    }
    for (uint32_t u = 0; u <= max_unit; u++)
        start[u + 2] += start[u + 1];
    s->order = xmalloc_array((size_t)s->n_constraints + 1, sizeof(uint32_t));
    s->position = xmalloc_array((size_t)s->n_constraints + 1, sizeof(uint32_t));
    for (uint32_t k = 0; k < s->n_constraints; k++) {
        uint32_t i = start[need[k] + 1]++;
        s->order[i] = k;
        s->position[i] = need[k];
    }
    free(start);
    free(need);
    return s;
}

/* Sliced mode: asserts every constraint whose events all lie in units <= u.
 * -1 if Z3 failed. */
static int extend(hb_solver *s, uint32_t u)
{
    while (s->asserted < s->n_constraints && s->position[s->asserted] <= u)
        if (assert_term(s, constraint_term(s, s->model,
                                           s->order[s->asserted++])) != 0)
            return -1;
    return 0;
}

static hb_answer answer_of(Z3_lbool r)
{
    return r == Z3_L_TRUE ? ANSWER_SAT
         : r == Z3_L_FALSE ? ANSWER_UNSAT : ANSWER_UNKNOWN;
}

hb_answer hb_solver_check_model(hb_solver *s)
{
    if (failed(s))
        return ANSWER_ERROR;
    Z3_lbool r = Z3_solver_check(s->ctx, s->solver);
    return failed(s) ? ANSWER_ERROR : answer_of(r);
}

/* The query as one kept Z3 term over its events' constants; NULL if Z3
 * failed. */
static Z3_ast query_term(hb_solver *s, const hb_query *q)
{
    Z3_ast atoms[HB_QUERY_ATOMS];
    uint32_t n = q->n_atoms < HB_QUERY_ATOMS ? q->n_atoms : HB_QUERY_ATOMS;
    if (n == 0) {
        fail_setup(s, "a query without atoms");
        return NULL;
    }
    for (uint32_t k = 0; k < n; k++)
        atoms[k] = failed(s) ? NULL
                 : atom(s, (hb_atom_kind)q->atoms[k].kind,
                        q->ev[q->atoms[k].i], q->ev[q->atoms[k].j]);
    return combine(s, q->any, n, atoms);
}

/* The model's value of O(e) into *out; -1 if Z3 failed. */
static int value_of(hb_solver *s, Z3_model model, uint32_t e, int64_t *out)
{
    Z3_ast x = var(s, e);
    if (!x)
        return -1;
    Z3_ast val = NULL;
    if (!Z3_model_eval(s->ctx, model, x, true, &val) || failed(s) || !val) {
        fail_setup(s, "Z3 could not evaluate an event in its model");
        return -1;
    }
    Z3_inc_ref(s->ctx, val);
    int ok = Z3_get_numeral_int64(s->ctx, val, out);
    Z3_dec_ref(s->ctx, val);
    if (failed(s) || !ok) {
        fail_setup(s, "a value of Z3's model does not fit in 64 bits");
        return -1;
    }
    return 0;
}

/* Reads O(events[i]) from the solver's model of the last check. */
static int read_values(hb_solver *s, const uint32_t *events, size_t n,
                       int64_t *values)
{
    Z3_model model = Z3_solver_get_model(s->ctx, s->solver);
    if (failed(s))
        return -1;
    if (!model) {
        fail_setup(s, "Z3 gave no model for a satisfiable check");
        return -1;
    }
    Z3_model_inc_ref(s->ctx, model);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = value_of(s, model, events[i], &values[i]);
    Z3_model_dec_ref(s->ctx, model);
    return failed(s) ? -1 : rc;
}

/* Push, assert q, check, and when SAT read O(events[i]) into values[i]
 * (n may be 0), pop. */
static hb_answer check_query(hb_solver *s, const hb_query *q,
                             const uint32_t *events, size_t n, int64_t *values)
{
    Z3_context c = s->ctx;
    Z3_solver_push(c, s->solver);
    if (failed(s) || assert_term(s, query_term(s, q)) != 0)
        return ANSWER_ERROR;
    Z3_lbool r = Z3_solver_check(c, s->solver);
    if (failed(s))
        return ANSWER_ERROR;
    if (r == Z3_L_TRUE && n && read_values(s, events, n, values) != 0)
        return ANSWER_ERROR;
    Z3_solver_pop(c, s->solver, 1);
    return failed(s) ? ANSWER_ERROR : answer_of(r);
}

hb_answer hb_solver_check(hb_solver *s, const hb_query *q)
{
    if (failed(s))
        return ANSWER_ERROR;
    if (s->unit) {
        uint32_t u = 0;
        for (uint32_t i = 0; i < q->n_events; i++)
            if (s->unit[q->ev[i]] > u)
                u = s->unit[q->ev[i]];
        if (extend(s, u) != 0)
            return ANSWER_ERROR;
    }
    return check_query(s, q, NULL, 0, NULL);
}

hb_answer hb_solver_check_values(hb_solver *s, const hb_query *q,
                                 const uint32_t *events, size_t n,
                                 int64_t *values)
{
    if (failed(s) || s->unit) /* a sliced solver's model leaves out
                                 constraints: its values prove nothing */
        return ANSWER_ERROR;
    return check_query(s, q, events, n, values);
}

const char *hb_solver_error(const hb_solver *s)
{
    if (!s)
        return "the Z3 solver could not be set up";
    return s->code == Z3_OK ? "" : s->error;
}

void hb_solver_free(hb_solver *s)
{
    if (!s)
        return;
    /* Past memory_max_size, Z3 allocates while it frees a solver and then
     * aborts the process (an exception no API call catches): after a
     * memory failure its context is left to the end of the process, which
     * is near (the failure is an error). */
    if (s->ctx && s->code != Z3_MEMOUT_FAIL) {
        for (uint32_t i = 0; i < s->n_vars; i++)
            drop_ast(s, s->vars[i]);
        for (uint32_t i = 0; i < s->n_bools; i++)
            drop_ast(s, s->bools[i]);
        if (s->solver)
            Z3_solver_dec_ref(s->ctx, s->solver);
        Z3_del_context(s->ctx);
    }
    free(s->vars);
    free(s->bools);
    free(s->order);
    free(s->position);
    free(s);
}

/* ---- Z3 global parameters ----------------------------------------------- */

/* Z3 reads a value back in its own spelling: "0100" as "100", "TRUE" as
 * "true". */
static int same_value(const char *given, const char *got)
{
    if (strcasecmp(given, got) == 0)
        return 1;
    char *e1, *e2;
    double a = strtod(given, &e1), b = strtod(got, &e2);
    return *given && *got && !*e1 && !*e2 && a == b && !isnan(a);
}

int hb_z3_global_param(const char *name_value, char *err, size_t err_len)
{
    const char *eq = strchr(name_value, '=');
    if (!eq || eq == name_value || !eq[1]) {
        snprintf(err, err_len, "'%s' is not NAME=VALUE", name_value);
        return -1;
    }
    char *name = xstrdup(name_value);
    name[eq - name_value] = '\0';
    const char *value = eq + 1;
    Z3_string got = NULL;
    /* an unknown name: Z3 would print a page of warnings and ignore it */
    Z3_toggle_warning_messages(false);
    int known = Z3_global_param_get(name, &got);
    Z3_toggle_warning_messages(true);
    int rc = 0;
    if (!known) {
        snprintf(err, err_len, "'%s' is not a Z3 parameter (see z3 -p)", name);
        rc = -1;
    } else {
        Z3_global_param_set(name, value);
        if (!Z3_global_param_get(name, &got) || !got || !same_value(value, got)) {
            snprintf(err, err_len, "Z3 does not accept %s", name_value);
            rc = -1;
        }
    }
    free(name);
    return rc;
}

/* ---- explaining an unsatisfiable Φ ------------------------------------------ */

/* A cycle of unconditional edges, in order; 0 if there is none. */
static size_t find_cycle(const hb_model *m, uint32_t *events, size_t max)
{
    uint32_t n = m->n_events;
    uint32_t *in_deg = xcalloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t *start = xcalloc((size_t)n + 2, sizeof(uint32_t)), *src, *dst;
    uint32_t *out_start = xcalloc((size_t)n + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < m->n_edges; i++) {
        in_deg[m->edges[i].after]++;
        start[m->edges[i].after + 2]++;
        out_start[m->edges[i].before + 2]++;
    }
    for (uint32_t v = 0; v < n; v++) {
        start[v + 2] += start[v + 1];
        out_start[v + 2] += out_start[v + 1];
    }
    src = xmalloc_array((size_t)m->n_edges + 1, sizeof(uint32_t));
    dst = xmalloc_array((size_t)m->n_edges + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < m->n_edges; i++) {
        src[start[m->edges[i].after + 1]++] = m->edges[i].before;
        dst[out_start[m->edges[i].before + 1]++] = m->edges[i].after;
    }
    /* Kahn: what is left lies on or after a cycle */
    uint32_t *queue = xmalloc_array((size_t)n + 1, sizeof(uint32_t)), head = 0, tail = 0;
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
        uint32_t *seen_at = xmalloc_array((size_t)n + 1, sizeof(uint32_t)), *path = queue;
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

/* The events of the constraint whose guard is the core's i-th element;
 * returns the new count, or -1 if Z3 failed. */
static long core_constraint(hb_solver *s, const hb_model *m, Z3_ast_vector core,
                            unsigned i, uint32_t *events, size_t found,
                            size_t max)
{
    Z3_context c = s->ctx;
    Z3_ast g = Z3_ast_vector_get(c, core, i);
    Z3_app app = failed(s) ? NULL : Z3_to_app(c, g);
    Z3_func_decl d = failed(s) ? NULL : Z3_get_app_decl(c, app);
    Z3_symbol sym = failed(s) ? NULL : Z3_get_decl_name(c, d);
    Z3_string name = failed(s) ? NULL : Z3_get_symbol_string(c, sym);
    if (failed(s) || !name || name[0] != 'c')
        return -1;
    uint32_t k = (uint32_t)strtoul(name + 1, NULL, 10);
    if (k >= m->n_edges + m->n_clauses)
        return -1;
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

/* The events of an unsatisfiable core of Φ, from Z3 (none if Z3 fails:
 * the explanation is then only shorter). */
static size_t core_events(const hb_model *m, uint32_t *events, size_t max)
{
    hb_solver *s = solver_shell(m, TUNING_FAST, 0);
    if (!s)
        return 0;
    Z3_context c = s->ctx;
    uint32_t n = m->n_edges + m->n_clauses, made = 0;
    Z3_ast *guards = xcalloc((size_t)n + 1, sizeof(Z3_ast));
    int ok = 1;
    for (; made < n && ok; made++) {
        char name[24];
        snprintf(name, sizeof name, "c%u", made);
        Z3_symbol sym = Z3_mk_string_symbol(c, name);
        Z3_sort sort = failed(s) ? NULL : Z3_mk_bool_sort(c);
        guards[made] = failed(s) ? NULL : keep_ast(s, Z3_mk_const(c, sym, sort));
        ok = guards[made] != NULL;
    }
    /* guard_k => constraint_k: the core names the guards it needs */
    for (uint32_t k = 0; k < n && ok; k++) {
        Z3_ast body = constraint_term(s, m, k);
        Z3_ast implies = body ? keep_ast(s, Z3_mk_implies(c, guards[k], body)) : NULL;
        drop_ast(s, body);
        ok = assert_term(s, implies) == 0;
    }
    size_t found = 0;
    Z3_lbool r = ok ? Z3_solver_check_assumptions(c, s->solver, n, guards)
                    : Z3_L_UNDEF;
    if (ok && !failed(s) && r == Z3_L_FALSE) {
        Z3_ast_vector core = Z3_solver_get_unsat_core(c, s->solver);
        if (!failed(s) && core) {
            Z3_ast_vector_inc_ref(c, core);
            unsigned size = Z3_ast_vector_size(c, core);
            for (unsigned i = 0; i < size && !failed(s); i++) {
                long f = core_constraint(s, m, core, i, events, found, max);
                if (f < 0)
                    break;
                found = (size_t)f;
            }
            Z3_ast_vector_dec_ref(c, core);
        }
    }
    for (uint32_t k = 0; k < made; k++)
        drop_ast(s, guards[k]);
    free(guards);
    hb_solver_free(s);
    return found;
}

size_t hb_model_explain(const hb_model *m, uint32_t *events, size_t max)
{
    size_t n = find_cycle(m, events, max);
    return n ? n : core_events(m, events, max);
}
