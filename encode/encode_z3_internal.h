/*
 * encode_z3_internal.h — the Z3 back end's solver as its two files share
 * it: encode_z3.c (setting up, asserting Φ, checking) and
 * encode_z3_core.c (explaining an unsatisfiable Φ by an unsat core).
 * Errors as in encode_z3.c: the first Z3 error is kept in the solver and
 * every later call but freeing does nothing (solver_failed()).
 *
 * Ownership: a solver from solver_shell() is freed with hb_solver_free();
 * a kept term (solver_keep_ast()) is released by solver_drop_ast() or
 * solver_assert_term(); a lemma_list's v is the caller's to free.
 */
#ifndef SPIDER_ENCODE_Z3_INTERNAL_H
#define SPIDER_ENCODE_Z3_INTERNAL_H

#include "encode.h"
#include "../util/clock.h"

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
    /* lock groups (encode.h): a group comes in once the units it needs
     * are asserted (at once, unsliced); then an eager group's clauses are
     * asserted, and a lazy one's only those a model breaks (solver_check()) */
    uint32_t *group_order;   /* groups by the unit they need */
    uint32_t *group_need;    /* that unit, by order index */
    uint32_t n_groups_in;    /* group_order[0 .. n_groups_in) are in */
    uint8_t any_lazy_in;     /* one of them is lazy */
    Z3_error_code code;  /* the first error, or Z3_OK */
    char error[256];     /* Z3's message for the first error, or "" */
    /* stopping (hb_solver_options.stop): a ticker interrupts Z3 while
     * the flag is set, until the solver is freed */
    const volatile sig_atomic_t *stop;
    unsigned timeout_ms;
    ticker *watcher;     /* or NULL */
};

/* Clauses of lazy lock groups that a model breaks. */
typedef struct lemma {
    hb_lit l[2];
} lemma;

typedef struct lemma_list {
    lemma *v;
    uint32_t n, cap;
} lemma_list;

/* Whether the run asked this solver to stop: every check then answers
 * ANSWER_UNKNOWN, and a Z3 failure is the interruption's doing. */
int solver_stopped(const hb_solver *s);
/* After a Z3 call: records its error, if any (the first one is kept).
 * True when the solver has failed, by this call or an earlier one. */
int solver_failed(hb_solver *s);
/* Takes a reference to a, the result of the last call; NULL if it failed. */
Z3_ast solver_keep_ast(hb_solver *s, Z3_ast a);
void solver_drop_ast(hb_solver *s, Z3_ast a);
/* Constraint k of m (edge k, or clause k - n_edges) as a kept term; NULL
 * if Z3 failed. */
Z3_ast solver_constraint_term(hb_solver *s, const hb_model *m, uint32_t k);
/* Asserts a kept term and releases it.  -1 if Z3 failed. */
int solver_assert_term(hb_solver *s, Z3_ast t);
/* O(l[0]) ∨ O(l[1]), a lock clause, kept; NULL if Z3 failed. */
Z3_ast solver_lock_clause_term(hb_solver *s, const hb_lit l[2]);
/* Whether lock group g's clauses are asserted only as models break them. */
int solver_group_is_lazy(const hb_model *m, uint32_t g);
/* Groups in the order they come in: by the unit they need when sliced. */
void solver_order_groups(hb_solver *s, const uint32_t *unit);
/* A context and solver for m's variables, nothing asserted yet.  NULL if
 * Z3 failed. */
hb_solver *solver_shell(const hb_model *m, const hb_solver_options *o);
/* Adds the clause l[0] ∨ l[1] to out. */
void lemma_add_lits(lemma_list *out, const hb_lit l[2]);
/* The clauses of the lazy groups in scope that the solver's last model
 * breaks, into out.  -1 if Z3 failed. */
int solver_broken_lock_clauses(hb_solver *s, lemma_list *out);
/* Checks Φ (∧ q, between a push and a pop, when q is not NULL), and when
 * SAT reads O(events[i]) into values[i] (n may be 0).  A lazy lock
 * group's clauses are not all asserted: while a model breaks some, they
 * are asserted for good (after the pop) and the check is made again —
 * unless the run stops or the rounds have used up the timeout (UNKNOWN). */
hb_answer solver_check(hb_solver *s, const hb_query *q, const uint32_t *events,
                       size_t n, int64_t *values);

#endif
