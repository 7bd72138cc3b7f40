/*
 * test_decide.c — unit tests of how a question about Φ is decided: the
 * encoder's lock clauses (encode/encode.c), the exact shortcuts
 * (spider/engine/engine_shortcut.c) and the Z3 pool
 * (spider/engine/engine_pool.c).  Each small trace has its answer known
 * by hand; the shortcuts and the pool must give it, and where the
 * shortcuts answer, Z3 alone (hb_solver_check) must agree.  Events are
 * numbered in input order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../spider/engine/engine_pool.h"
#include "../spider/engine/engine_shortcut.h"
#include "test_util.h"


/* a's write (0) sends m (1) to b, which receives it (2) and writes (3) */
static const char ordered[] =
    ON("a@n", "W", "x") MSG("a@n", "SND", "m")
    MSG("b@n", "RCV", "m") ON("b@n", "W", "x");

/* both write x inside a section of L: a 0-2, b 3-5 */
static const char locked[] =
    ON("a@n", "LOCK", "L") ON("a@n", "W", "x") ON("a@n", "UNLOCK", "L")
    ON("b@n", "LOCK", "L") ON("b@n", "W", "x") ON("b@n", "UNLOCK", "L");

/* nothing orders a's write (0) and b's (1) */
static const char apart[] = ON("a@n", "W", "x") ON("b@n", "W", "x");

typedef struct fixture {
    trace *t;
    hb_model *m;
} fixture;

static fixture make(const char *text)
{
    fixture f;
    f.t = test_load("d.log", text);
    f.m = hb_model_build(f.t, NULL, HANDLERS_NESTED);
    return f;
}

static void drop(fixture *f)
{
    hb_model_free(f->m);
    trace_free(f->t);
}

/* ---- the encoder's lock clauses ---------------------------------------- */

static void two_sections_make_one_group_and_one_clause(void **state)
{
    (void)state;
    fixture f = make(locked);
    assert_int_equal(f.m->n_lock_groups, 1);
    assert_int_equal(f.m->lock_groups[0].n, 2);
    hb_lock_pairs it = {0};
    hb_lit l[2];
    assert_int_equal(hb_lock_pairs_next(f.m, &it, l), 1);
    /* a's release (2) before b's acquire (3), or b's (5) before a's (0) */
    assert_int_equal(l[0].kind, LIT_LESS);
    assert_int_equal(l[1].kind, LIT_LESS);
    uint32_t pairs[2][2] = {{l[0].a, l[0].b}, {l[1].a, l[1].b}};
    int forward = pairs[0][0] == 2 ? 0 : 1;
    assert_int_equal(pairs[forward][0], 2);
    assert_int_equal(pairs[forward][1], 3);
    assert_int_equal(pairs[1 - forward][0], 5);
    assert_int_equal(pairs[1 - forward][1], 0);
    assert_int_equal(hb_lock_pairs_next(f.m, &it, l), 0); /* only one */
    drop(&f);
}

static void one_thread_sections_make_no_group(void **state)
{
    (void)state;
    fixture f = make(ON("a@n", "LOCK", "L") ON("a@n", "UNLOCK", "L")
                     ON("a@n", "LOCK", "L") ON("a@n", "UNLOCK", "L"));
    assert_int_equal(f.m->n_lock_groups, 0);
    drop(&f);
}

/* ---- the shortcuts, and Z3 on the same questions ------------------------ */

typedef struct questions {
    const hb_query *q;
    size_t n;
} questions;

static hb_query question(const void *ctx, size_t i)
{
    return ((const questions *)ctx)->q[i];
}

/* The shortcuts' answer to q on text; where they answer, Z3's too. */
static hb_answer shortcut_answer(const char *text, hb_query q)
{
    fixture f = make(text);
    questions qs = {&q, 1};
    query_list ql = {question, &qs, 1, NULL, NULL};
    hb_answer a = ANSWER_UNKNOWN;
    shortcut_stats st = {0};
    assert_int_equal(shortcut_decide(f.t, f.m, &ql, &a, &st), 1);
    hb_model_add_waits(f.m, f.t, NULL); /* as the engine does for Z3 */
    hb_solver_options so = {.tuning = TUNING_FAST};
    hb_solver *s = hb_solver_new(f.m, &so);
    assert_non_null(s);
    hb_answer z3 = hb_solver_check(s, &q);
    assert_true(z3 == ANSWER_SAT || z3 == ANSWER_UNSAT);
    if (a != ANSWER_UNKNOWN)
        assert_int_equal(a, z3);
    hb_solver_free(s);
    drop(&f);
    return a;
}

static void a_message_orders_the_writes(void **state)
{
    (void)state;
    assert_int_equal(shortcut_answer(ordered, hb_query_simultaneous(0, 3)), ANSWER_UNSAT);
    assert_int_equal(shortcut_answer(ordered, hb_query_before(3, 0)), ANSWER_UNSAT);
    assert_int_equal(shortcut_answer(ordered, hb_query_before(0, 3)), ANSWER_SAT);
}

static void a_lock_excludes_the_writes_but_not_their_order(void **state)
{
    (void)state;
    assert_int_equal(shortcut_answer(locked, hb_query_simultaneous(1, 4)), ANSWER_UNSAT);
    assert_int_equal(shortcut_answer(locked, hb_query_before(1, 4)), ANSWER_SAT);
    /* b's section first: not the observed order, yet a run of Φ */
    hb_answer a = shortcut_answer(locked, hb_query_before(4, 1));
    assert_true(a == ANSWER_SAT || a == ANSWER_UNKNOWN);
}

static void unordered_writes_can_meet(void **state)
{
    (void)state;
    assert_int_equal(shortcut_answer(apart, hb_query_simultaneous(0, 1)), ANSWER_SAT);
    assert_int_equal(shortcut_answer(apart, hb_query_before(1, 0)), ANSWER_SAT);
}

/* ---- the pool ------------------------------------------------------------ */

/* Candidates with one query each (c's query is q[c]). */
static unsigned one_query(const void *ctx, uint32_t c)
{
    (void)ctx;
    (void)c;
    return 1;
}

static hb_query query_of(const void *ctx, uint32_t c, unsigned k)
{
    (void)k;
    return ((const hb_query *)ctx)[c];
}

static size_t id_of(const void *ctx, uint32_t c, unsigned k)
{
    (void)ctx;
    return c + k;
}

/* Decides q[0 .. n) with the pool in one unit (stop_at_sat: stops at the
 * first that holds) on `jobs` workers; verdicts into v. */
static void pool_decide(const char *text, const hb_query *q, uint32_t n,
                        int stop_at_sat, unsigned jobs, hb_answer *v)
{
    fixture f = make(text);
    hb_model_add_waits(f.m, f.t, NULL);
    uint32_t order[8], unit_start[2] = {0, n};
    uint8_t stop = (uint8_t)stop_at_sat;
    hb_answer qa[8];
    assert_true(n <= 8);
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        qa[i] = ANSWER_UNKNOWN;
    }
    solve_work w = {.queries = {one_query, query_of, id_of, q},
                    .order = order, .unit_start = unit_start, .n_units = 1,
                    .stop_at_sat = &stop};
    hb_solver_options so = {.tuning = TUNING_FAST};
    char err[256] = "";
    assert_int_equal(solve_all(f.m, &w, qa, v, jobs, so, err, sizeof err), 0);
    drop(&f);
}

static void the_pool_answers_each_candidate(void **state)
{
    (void)state;
    hb_query q[3] = {hb_query_simultaneous(1, 4), hb_query_before(1, 4),
                     hb_query_before(4, 1)};
    hb_answer v[3];
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        pool_decide(locked, q, 3, 0, jobs, v);
        assert_int_equal(v[0], ANSWER_UNSAT);
        assert_int_equal(v[1], ANSWER_SAT);
        assert_int_equal(v[2], ANSWER_SAT);
    }
}

static void a_unit_stops_at_its_first_candidate_that_holds(void **state)
{
    (void)state;
    hb_query q[3] = {hb_query_simultaneous(0, 3), hb_query_before(0, 3),
                     hb_query_before(3, 0)};
    hb_answer v[3];
    pool_decide(ordered, q, 3, 1, 1, v);
    assert_int_equal(v[0], ANSWER_UNSAT);
    assert_int_equal(v[1], ANSWER_SAT);
    assert_int_equal(v[2], ANSWER_NOT_ASKED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_sections_make_one_group_and_one_clause),
        cmocka_unit_test(one_thread_sections_make_no_group),
        cmocka_unit_test(a_message_orders_the_writes),
        cmocka_unit_test(a_lock_excludes_the_writes_but_not_their_order),
        cmocka_unit_test(unordered_writes_can_meet),
        cmocka_unit_test(the_pool_answers_each_candidate),
        cmocka_unit_test(a_unit_stops_at_its_first_candidate_that_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
