/*
 * test_prune.c — unit tests of each pruning rule (prune/prune.h), and of
 * the cases where pruning must hold back.  Events are numbered in input
 * order; each test states which survive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prune/prune.h"
#include "test_util.h"

/* The trace written in `text`; the test fails if it does not load. */
static trace *load(const char *text)
{
    return test_load("p.log", text);
}

/* Prunes `text` and compares the keep mask with `want` ("1101..."). */
static void expect_kept(const char *text, handler_model hm, const char *want)
{
    trace *t = load(text);
    prune_stats st;
    prune_options po = {0};
    hb_model *m = hb_model_build(t, NULL, hm);
    uint8_t *keep = prune_trace(t, m, &po, &st);
    hb_model_free(m);
    char got[256];
    for (uint32_t i = 0; i < t->n_events && i < sizeof got - 1; i++)
        got[i] = keep[i] ? '1' : '0';
    got[t->n_events < sizeof got ? t->n_events : sizeof got - 1] = '\0';
    free(keep);
    trace_free(t);
    assert_string_equal(got, want);
}

#define ACC(th, type, var, loc) \
    E(th, "\"type\":\"" type "\",\"variable\":\"" var "\",\"loc\":\"" loc "\"")

/* ---- the pruned Φ keeps every constraint of Φ ------------------------------------ */

static int has_edge(const hb_model *m, uint32_t a, uint32_t b)
{
    for (uint32_t i = 0; i < m->n_edges; i++)
        if (m->edges[i].before == a && m->edges[i].after == b)
            return 1;
    return 0;
}

static int same_clause(const hb_model *x, const hb_clause *cx,
                       const hb_model *y, const hb_clause *cy)
{
    if (cx->n != cy->n)
        return 0;
    for (uint32_t k = 0; k < cx->n; k++) {
        const hb_lit *a = &x->lits[cx->first + k], *b = &y->lits[cy->first + k];
        if (a->kind != b->kind || (a->kind == LIT_LESS && (a->a != b->a || a->b != b->b)))
            return 0;
    }
    return 1;
}

/* Every edge of Φ between events of different threads and every clause
 * over LESS atoms (locks, messages) is in the pruned Φ too, and the
 * pruned Φ drops `want_dropped` events. */
static void expect_constraints_kept(const char *text, handler_model hm,
                                    uint32_t want_dropped)
{
    trace *t = load(text);
    prune_stats st;
    prune_options po = {0};
    hb_model *full = hb_model_build(t, NULL, hm);
    uint8_t *keep = prune_trace(t, full, &po, &st);
    hb_model *pruned = hb_model_build(t, keep, hm);
    assert_int_equal(t->n_events - pruned->n_kept, want_dropped);
    /* the projection of Φ is Φ built for the kept events */
    hb_model *projected = hb_model_build(t, NULL, hm);
    assert_int_equal(hb_model_project(projected, t, keep), 0);
    /* the wait/notify part, deferred through the projection, counted as
     * it is when made */
    uint64_t deferred_size = hb_model_size(projected);
    hb_counts deferred_counts = projected->counts;
    hb_model_add_waits(full, t, NULL);
    hb_model_add_waits(pruned, t, NULL);
    hb_model_add_waits(projected, t, NULL);
    assert_int_equal(hb_model_size(projected), deferred_size);
    assert_memory_equal(&projected->counts, &deferred_counts,
                        sizeof deferred_counts);
    assert_int_equal(projected->n_bools, pruned->n_bools);
    assert_int_equal(projected->n_edges, pruned->n_edges);
    assert_int_equal(projected->n_clauses, pruned->n_clauses);
    assert_int_equal(projected->n_lock_clauses, pruned->n_lock_clauses);
    for (uint32_t i = 0; i < pruned->n_edges; i++)
        if (!has_edge(projected, pruned->edges[i].before, pruned->edges[i].after))
            fail_msg("projection lacks edge %u < %u", pruned->edges[i].before,
                     pruned->edges[i].after);
    hb_model_free(projected);
    for (uint32_t i = 0; i < full->n_edges; i++) {
        const hb_edge *e = &full->edges[i];
        if (t->events[e->before].thread == t->events[e->after].thread)
            continue;
        if (!has_edge(pruned, e->before, e->after))
            fail_msg("edge %u < %u lost", e->before, e->after);
    }
    for (uint32_t i = 0; i < full->n_clauses; i++) {
        int found = 0;
        for (uint32_t j = 0; j < pruned->n_clauses && !found; j++)
            found = same_clause(full, &full->clauses[i], pruned, &pruned->clauses[j]);
        if (!found)
            fail_msg("clause %u lost", i);
    }
    /* the lock groups' clauses (encode.h), in their order */
    assert_int_equal(full->n_lock_clauses, pruned->n_lock_clauses);
    hb_lock_pairs fi = {0}, pi = {0};
    hb_lit fl[2], pl[2];
    while (hb_lock_pairs_next(full, &fi, fl)) {
        assert_true(hb_lock_pairs_next(pruned, &pi, pl));
        for (int k = 0; k < 2; k++)
            if (fl[k].a != pl[k].a || fl[k].b != pl[k].b)
                fail_msg("lock clause %u < %u lost", fl[k].a, fl[k].b);
    }
    hb_model_free(full);
    hb_model_free(pruned);
    free(keep);
    trace_free(t);
}

/* Issue 9: w7's lock is never released, so w6's section ends before it
 * starts.  The constraint names w6's UNLOCK and w7's LOCK only; w6's LOCK
 * orders nothing and goes, and the constraint must stay. */
static void open_section_keeps_its_constraint(void **state)
{
    (void)state;
    const char *text = ACC("w6@n", "W", "y", "worker.yW.1")
                       E("w6@n", "\"type\":\"LOCK\",\"variable\":\"L2\"")
                       E("w6@n", "\"type\":\"UNLOCK\",\"variable\":\"L2\"")
                       E("w7@n", "\"type\":\"LOCK\",\"variable\":\"L2\"")
                       ACC("w7@n", "W", "y", "worker.yW.1");
    expect_kept(text, HANDLERS_NESTED, "10111");
    expect_constraints_kept(text, HANDLERS_NESTED, 1);
    expect_constraints_kept(text, HANDLERS_FLOATING, 1);
}

/* Both sections of one lock never released: Φ is unsatisfiable, and the
 * pruned Φ must say so as well. */
static void two_open_sections_stay_contradictory(void **state)
{
    (void)state;
    const char *text = E("a@n", "\"type\":\"START\"")
                       E("a@n", "\"type\":\"LOCK\",\"variable\":\"L\"")
                       ACC("a@n", "W", "x", "A.1")
                       E("b@n", "\"type\":\"START\"")
                       E("b@n", "\"type\":\"LOCK\",\"variable\":\"L\"")
                       ACC("b@n", "W", "x", "B.1");
    expect_constraints_kept(text, HANDLERS_NESTED, 0);
}

/* Two WAITs and three NOTIFYs of one condition: the wait/notify part of
 * Φ, deferred while pruning and projecting (encode.h), is made the same
 * for the projection as for Φ built on the kept events, and names only
 * kept events.  c's LOCK of a lock no other thread takes orders nothing
 * and goes (its UNLOCK, c's last event, stays). */
static void deferred_waits_survive_pruning(void **state)
{
    (void)state;
    const char *text = E("a@n", "\"type\":\"START\"")
                       E("a@n", "\"type\":\"NOTIFY\",\"variable\":\"c\"")
                       ACC("a@n", "W", "x", "A.1")
                       E("b@n", "\"type\":\"START\"")
                       E("b@n", "\"type\":\"NOTIFY\",\"variable\":\"c\"")
                       E("b@n", "\"type\":\"NOTIFY\",\"variable\":\"c\"")
                       E("c@n", "\"type\":\"START\"")
                       E("c@n", "\"type\":\"WAIT\",\"variable\":\"c\"")
                       E("c@n", "\"type\":\"LOCK\",\"variable\":\"l\"")
                       ACC("c@n", "R", "x", "C.1")
                       E("c@n", "\"type\":\"UNLOCK\",\"variable\":\"l\"")
                       E("d@n", "\"type\":\"START\"")
                       E("d@n", "\"type\":\"WAIT\",\"variable\":\"c\"")
                       ACC("d@n", "R", "x", "D.1");
    expect_kept(text, HANDLERS_NESTED, "11111111011111");
    expect_constraints_kept(text, HANDLERS_NESTED, 1);
    expect_constraints_kept(text, HANDLERS_FLOATING, 1);
}

/* ---- rule 1: events that order nothing ------------------------------------------ */

static void lock_of_one_thread_is_dropped(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"LOCK\",\"variable\":\"l\"")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"UNLOCK\",\"variable\":\"l\"")
                E("a@n", "\"type\":\"END\"")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "101011");
}

static void lock_shared_by_threads_is_kept(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"LOCK\",\"variable\":\"l\"")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"UNLOCK\",\"variable\":\"l\"")
                E("a@n", "\"type\":\"END\"")
                E("b@n", "\"type\":\"LOCK\",\"variable\":\"l\"")
                ACC("b@n", "R", "x", "B.1")
                E("b@n", "\"type\":\"UNLOCK\",\"variable\":\"l\""),
                HANDLERS_NESTED, "11111111");
}

static void unreceived_send_dropped_received_kept(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"SND\",\"message\":1")
                E("a@n", "\"type\":\"SND\",\"message\":2")
                E("a@n", "\"type\":\"END\"")
                E("b@m", "\"type\":\"RCV\",\"message\":2"),
                HANDLERS_NESTED, "10111");
}

static void send_to_self_is_kept(void **state)
{
    (void)state;
    /* the SND orders nothing new (program order does), but message races
     * are named by it */
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"SND\",\"message\":1")
                E("a@n", "\"type\":\"RCV\",\"message\":1")
                E("a@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "1111");
}

static void handler_markers_dropped_in_nested_model_only(void **state)
{
    (void)state;
    const char *text = E("s@m", "\"type\":\"SND\",\"message\":1")
                       E("a@n", "\"type\":\"START\"")
                       E("a@n", "\"type\":\"RCV\",\"message\":1")
                       E("a@n", "\"type\":\"HANDLERBEGIN\"")
                       ACC("a@n", "W", "x", "A.1")
                       E("a@n", "\"type\":\"HANDLEREND\"")
                       E("a@n", "\"type\":\"END\"");
    expect_kept(text, HANDLERS_NESTED, "1110101");
    /* floating: the handler's chain starts at HANDLERBEGIN, after its RCV */
    expect_kept(text, HANDLERS_FLOATING, "1111101");
}

static void first_and_last_events_stay(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"LOG\"")
                E("a@n", "\"type\":\"LOG\"")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"LOG\"")
                E("a@n", "\"type\":\"LOG\"")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "101011");
}

/* ---- rule 2: threads that order nothing ------------------------------------------ */

static void idle_thread_is_dropped(void **state)
{
    (void)state;
    /* c orders nothing but a's CREATE before a's JOIN: program order does */
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"CREATE\",\"child\":\"c@n\"")
                E("c@n", "\"type\":\"START\"")
                E("c@n", "\"type\":\"LOG\"")
                E("c@n", "\"type\":\"END\"")
                E("a@n", "\"type\":\"JOIN\",\"child\":\"c@n\"")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"END\"")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "100000111");
}

static void thread_of_nothing_is_dropped(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"LOG\"")
                E("a@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "000");
}

static void thread_with_access_is_kept(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"CREATE\",\"child\":\"c@n\"")
                E("c@n", "\"type\":\"START\"")
                ACC("c@n", "W", "x", "C.1")
                E("c@n", "\"type\":\"END\"")
                E("a@n", "\"type\":\"JOIN\",\"child\":\"c@n\"")
                E("a@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "1111111");
}

static void thread_joined_elsewhere_is_kept(void **state)
{
    (void)state;
    /* CREATE in a, JOIN in b: the thread orders a's CREATE before b's JOIN */
    expect_kept(E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"CREATE\",\"child\":\"c@n\"")
                E("a@n", "\"type\":\"END\"")
                E("c@n", "\"type\":\"START\"")
                E("c@n", "\"type\":\"END\"")
                E("b@n", "\"type\":\"START\"")
                E("b@n", "\"type\":\"JOIN\",\"child\":\"c@n\"")
                E("b@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "11111111");
}

/* ---- rule 3: repeated accesses ------------------------------------------------ */

static void repeated_access_is_dropped(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                ACC("a@n", "W", "x", "A.1")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"LOCK\",\"variable\":\"l\"")  /* acquire: fine */
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"END\"")
                E("b@n", "\"type\":\"LOCK\",\"variable\":\"l\"")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "11011111");
}

static void release_stops_redundancy(void **state)
{
    (void)state;
    /* the SND is received: the first W is ordered before b's R, the second
     * is not, so the second may race where the first cannot */
    expect_kept(E("a@n", "\"type\":\"START\"")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"SND\",\"message\":1")
                ACC("a@n", "W", "x", "A.1")
                E("a@n", "\"type\":\"END\"")
                E("b@n", "\"type\":\"RCV\",\"message\":1")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "1111111");
}

static void different_variable_type_or_loc_kept(void **state)
{
    (void)state;
    expect_kept(E("a@n", "\"type\":\"START\"")
                ACC("a@n", "W", "x", "A.1")
                ACC("a@n", "W", "y", "A.1")
                ACC("a@n", "R", "x", "A.1")
                ACC("a@n", "W", "x", "A.2")
                E("a@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "111111");
}

static void different_handlers_kept(void **state)
{
    (void)state;
    /* the same instruction in two handlers: each may race with others */
    expect_kept(E("s@m", "\"type\":\"SND\",\"message\":1")
                E("s@m", "\"type\":\"SND\",\"message\":2")
                E("a@n", "\"type\":\"START\"")
                E("a@n", "\"type\":\"RCV\",\"message\":1")
                E("a@n", "\"type\":\"HANDLERBEGIN\"")
                ACC("a@n", "W", "x", "H.1")
                E("a@n", "\"type\":\"HANDLEREND\"")
                E("a@n", "\"type\":\"RCV\",\"message\":2")
                E("a@n", "\"type\":\"HANDLERBEGIN\"")
                ACC("a@n", "W", "x", "H.1")
                E("a@n", "\"type\":\"HANDLEREND\"")
                E("a@n", "\"type\":\"END\""),
                HANDLERS_NESTED, "111101010101");
}

static void last_event_access_is_kept(void **state)
{
    (void)state;
    /* a's last event carries its JOIN edge: it stays */
    expect_kept(E("a@n", "\"type\":\"START\"")
                ACC("a@n", "W", "x", "A.1")
                ACC("a@n", "W", "x", "A.1")
                E("b@n", "\"type\":\"JOIN\",\"child\":\"a@n\"")
                ACC("b@n", "R", "x", "B.1"),
                HANDLERS_NESTED, "11111");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deferred_waits_survive_pruning),
        cmocka_unit_test(lock_of_one_thread_is_dropped),
        cmocka_unit_test(lock_shared_by_threads_is_kept),
        cmocka_unit_test(unreceived_send_dropped_received_kept),
        cmocka_unit_test(send_to_self_is_kept),
        cmocka_unit_test(handler_markers_dropped_in_nested_model_only),
        cmocka_unit_test(first_and_last_events_stay),
        cmocka_unit_test(idle_thread_is_dropped),
        cmocka_unit_test(thread_of_nothing_is_dropped),
        cmocka_unit_test(thread_with_access_is_kept),
        cmocka_unit_test(thread_joined_elsewhere_is_kept),
        cmocka_unit_test(repeated_access_is_dropped),
        cmocka_unit_test(release_stops_redundancy),
        cmocka_unit_test(different_variable_type_or_loc_kept),
        cmocka_unit_test(different_handlers_kept),
        cmocka_unit_test(last_event_access_is_kept),
        cmocka_unit_test(open_section_keeps_its_constraint),
        cmocka_unit_test(two_open_sections_stay_contradictory),
    };
    return cmocka_run_group_tests_name("pruning rules", tests, NULL, NULL);
}
