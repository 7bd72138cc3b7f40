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

/* Prunes `text` and compares the keep mask with `want` ("1101..."). */
static void expect_kept(const char *text, handler_model hm, const char *want)
{
    trace_options o = {0};
    trace *t;
    char err[256];
    if (trace_load_buffer("p.log", text, strlen(text), &o, &t, err,
                          sizeof err) != TRACE_OK)
        fail_msg("load: %s", err);
    prune_stats st;
    uint8_t *keep = prune_trace(t, hm, &st);
    char got[256];
    for (uint32_t i = 0; i < t->n_events && i < sizeof got - 1; i++)
        got[i] = keep[i] ? '1' : '0';
    got[t->n_events < sizeof got ? t->n_events : sizeof got - 1] = '\0';
    free(keep);
    trace_free(t);
    assert_string_equal(got, want);
}

#define E(th, fields) "{\"thread\":\"" th "\"," fields "}\n"
#define ACC(th, type, var, loc) \
    E(th, "\"type\":\"" type "\",\"variable\":\"" var "\",\"loc\":\"" loc "\"")

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
    };
    return cmocka_run_group_tests_name("pruning rules", tests, NULL, NULL);
}
