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
 * check answers ANSWER_ERROR — a failure is never a verdict.  Once the
 * run stops (hb_solver_options.stop), every check answers ANSWER_UNKNOWN
 * instead, whatever the interrupted calls report.
 */
#include "encode_z3_internal.h"
#include "../util/alloc.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether the run asked this solver to stop: every check then answers
 * ANSWER_UNKNOWN, and a Z3 failure is the interruption's doing. */
int solver_stopped(const hb_solver *s)
{
    return s->stop && *s->stop;
}

/* Z3's default handler prints and exits the process; this one leaves the
 * error code for solver_failed() to read after the call.  (A handler gets no
 * pointer of ours, so it cannot record the error itself without a global.) */
static void on_z3_error(Z3_context ctx, Z3_error_code code)
{
    (void)ctx;
    (void)code;
}

/* After a Z3 call: records its error, if any (the first one is kept).
 * True when the solver has failed, by this call or an earlier one. */
int solver_failed(hb_solver *s)
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
Z3_ast solver_keep_ast(hb_solver *s, Z3_ast a)
{
    if (solver_failed(s) || !a)
        return NULL;
    Z3_inc_ref(s->ctx, a);
    return solver_failed(s) ? NULL : a;
}

void solver_drop_ast(hb_solver *s, Z3_ast a)
{
    if (a)
        Z3_dec_ref(s->ctx, a);
}

/* O(e); NULL if Z3 failed. */
static Z3_ast var(hb_solver *s, uint32_t e)
{
    if (!s->vars[e] && !solver_failed(s)) {
        char name[24];
        snprintf(name, sizeof name, "e%u", e);
        Z3_symbol sym = Z3_mk_string_symbol(s->ctx, name);
        if (solver_failed(s))
            return NULL;
        Z3_sort sort = Z3_mk_int_sort(s->ctx);
        if (solver_failed(s))
            return NULL;
        s->vars[e] = solver_keep_ast(s, Z3_mk_const(s->ctx, sym, sort));
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
    return solver_keep_ast(s, kind == ATOM_LESS      ? Z3_mk_lt(c, x, y)
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
        return solver_keep_ast(s, s->bools[l->a]);
    default:
        return solver_keep_ast(s, Z3_mk_not(s->ctx, s->bools[l->a]));
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
    if (complete && !solver_failed(s))
        r = solver_keep_ast(s, any ? Z3_mk_or(s->ctx, n, terms)
                            : Z3_mk_and(s->ctx, n, terms));
    for (uint32_t i = 0; i < n; i++)
        solver_drop_ast(s, terms[i]);
    return r;
}

/* Constraint k of m (edge k, or clause k - n_edges) as a kept term; NULL
 * if Z3 failed. */
Z3_ast solver_constraint_term(hb_solver *s, const hb_model *m, uint32_t k)
{
    if (k < m->n_edges)
        return atom(s, ATOM_LESS, m->edges[k].before, m->edges[k].after);
    const hb_clause *cl = &m->clauses[k - m->n_edges];
    Z3_ast small[8];
    Z3_ast *args = cl->n <= 8 ? small : xmalloc_array(cl->n, sizeof *args);
    for (uint32_t i = 0; i < cl->n; i++)
        args[i] = solver_failed(s) ? NULL : lit(s, &m->lits[cl->first + i]);
    Z3_ast r = combine(s, 1, cl->n, args);
    if (args != small)
        free(args);
    return r;
}

/* Asserts a kept term and releases it.  -1 if Z3 failed. */
int solver_assert_term(hb_solver *s, Z3_ast t)
{
    if (!t)
        return -1;
    Z3_solver_assert(s->ctx, s->solver, t);
    int bad = solver_failed(s);
    solver_drop_ast(s, t);
    return bad ? -1 : 0;
}

static int assert_model(hb_solver *s, const hb_model *m)
{
    for (uint32_t k = 0; k < m->n_edges + m->n_clauses; k++)
        if (solver_assert_term(s, solver_constraint_term(s, m, k)) != 0)
            return -1;
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* ---- lock groups ---------------------------------------------------------- */

/* O(l[0]) ∨ O(l[1]), a lock clause, kept; NULL if Z3 failed. */
Z3_ast solver_lock_clause_term(hb_solver *s, const hb_lit l[2])
{
    Z3_ast args[2];
    args[0] = lit(s, &l[0]);
    args[1] = args[0] ? lit(s, &l[1]) : NULL;
    return combine(s, 1, 2, args);
}

int solver_group_is_lazy(const hb_model *m, uint32_t g)
{
    return m->lock_groups[g].n_pairs > m->lock_eager_max;
}

/* Asserts every clause of group g.  -1 if Z3 failed. */
static int assert_group(hb_solver *s, uint32_t g)
{
    hb_lock_pairs it = {.group = g};
    hb_lit l[2];
    while (hb_lock_pairs_next(s->model, &it, l) && it.group == g)
        if (solver_assert_term(s, solver_lock_clause_term(s, l)) != 0)
            return -1;
    return 0;
}

/* Brings in the groups that need units <= u (all, unsliced).  -1 if Z3
 * failed. */
static int enter_groups(hb_solver *s, uint32_t u)
{
    const hb_model *m = s->model;
    while (s->n_groups_in < m->n_lock_groups &&
           (!s->group_need || s->group_need[s->n_groups_in] <= u)) {
        uint32_t g = s->group_order[s->n_groups_in++];
        if (solver_group_is_lazy(m, g))
            s->any_lazy_in = 1;
        else if (assert_group(s, g) != 0)
            return -1;
    }
    return 0;
}

/* Groups in the order they come in: by the unit they need when sliced. */
void solver_order_groups(hb_solver *s, const uint32_t *unit)
{
    const hb_model *m = s->model;
    uint32_t n = m->n_lock_groups;
    s->group_order = xmalloc_array((size_t)n + 1, sizeof(uint32_t));
    if (!unit) {
        for (uint32_t g = 0; g < n; g++)
            s->group_order[g] = g;
        return;
    }
    uint64_t *key = xmalloc_array((size_t)n + 1, sizeof *key);
    for (uint32_t g = 0; g < n; g++) {
        /* slicing puts a group's events in one unit (encode_slice.c) */
        uint32_t u = unit[m->lock_sections[m->lock_groups[g].first].acquire];
        key[g] = (uint64_t)u << 32 | g;
    }
    qsort(key, n, sizeof *key, cmp_u64);
    s->group_need = xmalloc_array((size_t)n + 1, sizeof(uint32_t));
    for (uint32_t g = 0; g < n; g++) {
        s->group_order[g] = (uint32_t)key[g];
        s->group_need[g] = (uint32_t)(key[g] >> 32);
    }
    free(key);
}

static int set_param(hb_solver *s, Z3_params p, const char *name, int is_bool,
                     unsigned value)
{
    Z3_symbol key = Z3_mk_string_symbol(s->ctx, name);
    if (solver_failed(s))
        return -1;
    if (is_bool)
        Z3_params_set_bool(s->ctx, p, key, value != 0);
    else
        Z3_params_set_uint(s->ctx, p, key, value);
    return solver_failed(s) ? -1 : 0;
}

void hb_solver_process_setup(void)
{
    Z3_global_param_set("model.compact", "false");
}

/* Sets s->solver up; -1 if Z3 failed. */
static int make_solver(hb_solver *s, solver_tuning tuning, unsigned timeout_ms)
{
    Z3_context c = s->ctx;
    Z3_solver solver = tuning == TUNING_FAST ? Z3_mk_simple_solver(c)
                                             : Z3_mk_solver(c);
    if (solver_failed(s) || !solver)
        return -1;
    Z3_solver_inc_ref(c, solver);
    s->solver = solver;
    Z3_params p = Z3_mk_params(c);
    if (solver_failed(s) || !p)
        return -1;
    Z3_params_inc_ref(c, p);
    int rc = tuning == TUNING_FAST ? set_param(s, p, "arith.solver", 0, 1) : 0;
    /* SIGINT is spider's to handle (it stops the workers and reports) */
    if (rc == 0)
        rc = set_param(s, p, "ctrl_c", 1, 0);
    if (rc == 0) {
        Z3_solver_set_params(c, solver, p);
        rc = solver_failed(s) ? -1 : 0;
    }
    Z3_params_dec_ref(c, p);
    /* Z3 adds the later parameters to these */
    return rc ? rc : hb_solver_set_timeout(s, timeout_ms);
}

int hb_solver_set_timeout(hb_solver *s, unsigned timeout_ms)
{
    if (!timeout_ms)
        return 0;
    Z3_params p = Z3_mk_params(s->ctx);
    if (solver_failed(s) || !p)
        return -1;
    Z3_params_inc_ref(s->ctx, p);
    int rc = set_param(s, p, "timeout", 0, timeout_ms);
    if (rc == 0) {
        Z3_solver_set_params(s->ctx, s->solver, p);
        rc = solver_failed(s) ? -1 : 0;
    }
    Z3_params_dec_ref(s->ctx, p);
    if (rc == 0)
        s->timeout_ms = timeout_ms;
    return rc;
}

/* The watcher's tick (every 20 ms while the solver lives): interrupts
 * Z3 once the stop flag is set.  An interrupt between two checks is lost,
 * so it is repeated.  Z3_interrupt is thread-safe, by Z3's API. */
static void interrupt_if_stopped(void *arg)
{
    hb_solver *s = arg;
    if (solver_stopped(s))
        Z3_interrupt(s->ctx);
}

/* A set-up that failed: NULL, unless the failure is a stop's doing (the
 * solver is then returned, stopped, and answers ANSWER_UNKNOWN). */
static hb_solver *give_up(hb_solver *s)
{
    if (solver_stopped(s))
        return s;
    hb_solver_free(s);
    return NULL;
}

/* A context and solver for m's variables, nothing asserted yet.  NULL if
 * Z3 failed. */
hb_solver *solver_shell(const hb_model *m, const hb_solver_options *o)
{
    assert(!m->waits_deferred); /* hb_model_add_waits() first */
    hb_solver *s = xcalloc(1, sizeof *s);
    s->stop = o->stop;
    s->timeout_ms = o->timeout_ms;
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
    /* without a watcher (no stop flag, or no thread) a stop is still
     * seen between checks */
    if (s->stop)
        s->watcher = ticker_start(20, interrupt_if_stopped, s);
    s->n_vars = m->n_events;
    if (make_solver(s, o->tuning, o->timeout_ms) != 0)
        return give_up(s);
    for (uint32_t i = 0; i < m->n_bools; i++) {
        char name[24];
        snprintf(name, sizeof name, "b%u", i);
        Z3_symbol sym = Z3_mk_string_symbol(s->ctx, name);
        Z3_sort sort = solver_failed(s) ? NULL : Z3_mk_bool_sort(s->ctx);
        s->bools[i] = solver_failed(s) ? NULL : solver_keep_ast(s, Z3_mk_const(s->ctx, sym, sort));
        s->n_bools = i + 1;
        if (!s->bools[i])
            return give_up(s);
    }
    return s;
}

hb_solver *hb_solver_new(const hb_model *m, const hb_solver_options *o)
{
    hb_solver *s = solver_shell(m, o);
    if (!s || solver_stopped(s))
        return s;
    s->model = m;
    solver_order_groups(s, NULL);
    if (assert_model(s, m) != 0 || enter_groups(s, UINT32_MAX) != 0)
        return give_up(s);
    /* Solving Φ alone once first makes every later query several times
     * faster: the engine keeps what it learnt about Φ across push/pop. */
    Z3_solver_check(s->ctx, s->solver);
    if (solver_failed(s))
        return give_up(s);
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
                                const hb_solver_options *o)
{
    hb_solver *s = solver_shell(m, o);
    if (!s || solver_stopped(s))
        return s;
    s->model = m;
    s->unit = unit;
    solver_order_groups(s, unit);
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
        if (solver_assert_term(s, solver_constraint_term(s, s->model,
                                           s->order[s->asserted++])) != 0)
            return -1;
    return enter_groups(s, u);
}

static hb_answer answer_of(Z3_lbool r)
{
    return r == Z3_L_TRUE ? ANSWER_SAT
         : r == Z3_L_FALSE ? ANSWER_UNSAT : ANSWER_UNKNOWN;
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
        atoms[k] = solver_failed(s) ? NULL
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
    if (!Z3_model_eval(s->ctx, model, x, true, &val) || solver_failed(s) || !val) {
        fail_setup(s, "Z3 could not evaluate an event in its model");
        return -1;
    }
    Z3_inc_ref(s->ctx, val);
    int ok = Z3_get_numeral_int64(s->ctx, val, out);
    Z3_dec_ref(s->ctx, val);
    if (solver_failed(s) || !ok) {
        fail_setup(s, "a value of Z3's model does not fit in 64 bits");
        return -1;
    }
    return 0;
}

/* The model of the last (satisfiable) check, kept: the caller releases
 * it with Z3_model_dec_ref.  NULL if Z3 failed or gave none. */
static Z3_model last_model(hb_solver *s)
{
    Z3_model model = Z3_solver_get_model(s->ctx, s->solver);
    if (solver_failed(s))
        return NULL;
    if (!model) {
        fail_setup(s, "Z3 gave no model for a satisfiable check");
        return NULL;
    }
    Z3_model_inc_ref(s->ctx, model);
    return model;
}

/* Reads O(events[i]) from the solver's model of the last check. */
static int read_values(hb_solver *s, const uint32_t *events, size_t n,
                       int64_t *values)
{
    Z3_model model = last_model(s);
    if (!model)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = value_of(s, model, events[i], &values[i]);
    Z3_model_dec_ref(s->ctx, model);
    return solver_failed(s) ? -1 : rc;
}

/* A section of a lazy group with its values in a model. */
typedef struct valued_section {
    int64_t acquire, release;
    const lock_section *x;
} valued_section;

static int by_acquire_value(const void *p, const void *q)
{
    const valued_section *a = p, *b = q;
    return a->acquire < b->acquire ? -1 : a->acquire > b->acquire;
}

void lemma_add_lits(lemma_list *out, const hb_lit l[2])
{
    ALLOC_GROW(out->v, out->n + 1, out->cap);
    out->v[out->n++] = (lemma){{l[0], l[1]}};
}

static void add_lemma(lemma_list *out, const lock_section *x,
                      const lock_section *y)
{
    hb_lit l[2];
    hb_lock_clause(x, y, l);
    lemma_add_lits(out, l);
}

/* Whether the model orders x and y as the lock asks. */
static int excluded(const valued_section *x, const valued_section *y)
{
    return x->release < y->acquire || y->release < x->acquire;
}

/* The clauses of v[0..n) (one group, sorted by acquire) that the values
 * break: each section against the earlier one that is released last, or
 * the one released last in another thread (at most one clause per
 * section).  If no clause is broken, none is found: a broken pair x, y
 * (x first) has x.release >= y.acquire, and so has that earlier section.
 * A section whose release has a value below its acquire (not ordered by
 * program order, in the floating model) is checked against every other
 * (any number of clauses). */
static void find_broken(const valued_section *v, uint32_t n, lemma_list *out)
{
    int64_t best = -1, second = -1; /* the latest releases, two threads */
    for (uint32_t i = 0; i < n; i++) {
        const valued_section *y = &v[i];
        if (y->release < y->acquire) {
            for (uint32_t k = 0; k < n; k++)
                if (v[k].x->thread != y->x->thread && !excluded(&v[k], y))
                    add_lemma(out, v[k].x, y->x);
            continue;
        }
        if (best >= 0 && v[best].x->thread != y->x->thread &&
            !excluded(&v[best], y))
            add_lemma(out, v[best].x, y->x);
        else if (best >= 0 && v[best].x->thread == y->x->thread &&
                 second >= 0 && !excluded(&v[second], y))
            add_lemma(out, v[second].x, y->x);
        /* y in the two latest releases of two threads */
        if (best < 0 || y->release > v[best].release) {
            if (best >= 0 && v[best].x->thread != y->x->thread)
                second = best;
            best = i;
        } else if (y->x->thread != v[best].x->thread &&
                   (second < 0 || y->release > v[second].release)) {
            second = i;
        }
    }
}

/* The clauses of the lazy groups in scope that the solver's last model
 * breaks, into out.  -1 if Z3 failed. */
int solver_broken_lock_clauses(hb_solver *s, lemma_list *out)
{
    const hb_model *m = s->model;
    Z3_model model = last_model(s);
    if (!model)
        return -1;
    valued_section *v = NULL;
    uint32_t cap = 0;
    int rc = 0;
    for (uint32_t k = 0; k < s->n_groups_in && rc == 0; k++) {
        uint32_t g = s->group_order[k];
        if (!solver_group_is_lazy(m, g))
            continue;
        const hb_lock_group *gr = &m->lock_groups[g];
        ALLOC_GROW(v, gr->n, cap);
        for (uint32_t i = 0; i < gr->n && rc == 0; i++) {
            const lock_section *x = &m->lock_sections[gr->first + i];
            v[i].x = x;
            rc = value_of(s, model, x->acquire, &v[i].acquire);
            if (rc == 0)
                rc = value_of(s, model, (uint32_t)x->release, &v[i].release);
        }
        if (rc == 0) {
            qsort(v, gr->n, sizeof *v, by_acquire_value);
            find_broken(v, gr->n, out);
        }
    }
    free(v);
    Z3_model_dec_ref(s->ctx, model);
    return solver_failed(s) ? -1 : rc;
}

/* Checks Φ (∧ q, between a push and a pop, when q is not NULL), and when
 * SAT reads O(events[i]) into values[i] (n may be 0).  A lazy lock
 * group's clauses are not all asserted: while a model breaks some, they
 * are asserted for good (after the pop) and the check is made again —
 * unless the run stops or the rounds have used up the timeout (UNKNOWN). */
hb_answer solver_check(hb_solver *s, const hb_query *q, const uint32_t *events,
                       size_t n, int64_t *values)
{
    Z3_context c = s->ctx;
    lemma_list broken = {0};
    hb_answer a = ANSWER_ERROR;
    double start = s->timeout_ms ? clock_seconds() : 0;
    for (unsigned round = 0;; round++) {
        if (solver_stopped(s) || (round && s->timeout_ms &&
                           clock_seconds() - start >= s->timeout_ms / 1e3)) {
            a = ANSWER_UNKNOWN;
            break;
        }
        if (q) {
            Z3_solver_push(c, s->solver);
            if (solver_failed(s) || solver_assert_term(s, query_term(s, q)) != 0)
                break;
        }
        Z3_lbool r = Z3_solver_check(c, s->solver);
        if (solver_failed(s))
            break;
        broken.n = 0;
        if (r == Z3_L_TRUE && s->any_lazy_in &&
            solver_broken_lock_clauses(s, &broken) != 0)
            break;
        if (r == Z3_L_TRUE && !broken.n && n &&
            read_values(s, events, n, values) != 0)
            break;
        if (q) {
            Z3_solver_pop(c, s->solver, 1);
            if (solver_failed(s))
                break;
        }
        int bad = 0;
        for (uint32_t i = 0; i < broken.n && !bad; i++)
            bad = solver_assert_term(s, solver_lock_clause_term(s, broken.v[i].l)) != 0;
        if (bad)
            break;
        if (!broken.n) {
            a = answer_of(r);
            break;
        }
    }
    free(broken.v);
    return a == ANSWER_ERROR && solver_stopped(s) ? ANSWER_UNKNOWN : a;
}

hb_answer hb_solver_check_model(hb_solver *s)
{
    if (solver_stopped(s))
        return ANSWER_UNKNOWN;
    if (solver_failed(s))
        return ANSWER_ERROR;
    return solver_check(s, NULL, NULL, 0, NULL);
}

hb_answer hb_solver_check(hb_solver *s, const hb_query *q)
{
    if (solver_stopped(s))
        return ANSWER_UNKNOWN;
    if (solver_failed(s))
        return ANSWER_ERROR;
    if (s->unit) {
        uint32_t u = 0;
        for (uint32_t i = 0; i < q->n_events; i++)
            if (s->unit[q->ev[i]] > u)
                u = s->unit[q->ev[i]];
        if (extend(s, u) != 0)
            return solver_stopped(s) ? ANSWER_UNKNOWN : ANSWER_ERROR;
    }
    return solver_check(s, q, NULL, 0, NULL);
}

hb_answer hb_solver_check_values(hb_solver *s, const hb_query *q,
                                 const uint32_t *events, size_t n,
                                 int64_t *values)
{
    if (solver_stopped(s))
        return ANSWER_UNKNOWN;
    if (solver_failed(s) || s->unit) /* a sliced solver's model leaves out
                                 constraints: its values prove nothing */
        return ANSWER_ERROR;
    return solver_check(s, q, events, n, values);
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
    ticker_stop(s->watcher); /* before the context goes */
    /* Past memory_max_size, Z3 allocates while it frees a solver and then
     * aborts the process (an exception no API call catches): after a
     * memory failure its context is left to the end of the process, which
     * is near (the failure is an error). */
    if (s->ctx && s->code != Z3_MEMOUT_FAIL) {
        for (uint32_t i = 0; i < s->n_vars; i++)
            solver_drop_ast(s, s->vars[i]);
        for (uint32_t i = 0; i < s->n_bools; i++)
            solver_drop_ast(s, s->bools[i]);
        if (s->solver)
            Z3_solver_dec_ref(s->ctx, s->solver);
        Z3_del_context(s->ctx);
    }
    free(s->vars);
    free(s->bools);
    free(s->order);
    free(s->position);
    free(s->group_order);
    free(s->group_need);
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
