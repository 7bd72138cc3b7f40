/*
 * test_waits.c — unit tests of the matching of WAITs to NOTIFYs
 * (encode/encode_waits.c, hb_wait_matching()): when a matching covers
 * every WAIT, which NOTIFY each one gets, and when none does, the Hall
 * set that proves it.  Events are numbered in input order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../encode/encode.h"
#include "test_util.h"


/* What hb_wait_matching() said of a trace. */
typedef struct matched {
    int rc;
    uint32_t chosen[16];         /* by event; UINT32_MAX where none */
    uint32_t proof[16];
    size_t n_proof;
} matched;

/* Loads `text` (the test fails if it does not load), builds Φ and
 * matches its WAITs. */
static matched match(const char *text)
{
    trace *t = test_load("w.log", text);
    assert_true(t->n_events <= 16);
    hb_model *m = hb_model_build(t, NULL, HANDLERS_NESTED);
    matched r;
    memset(r.chosen, 0xff, sizeof r.chosen);
    r.rc = hb_wait_matching(t, m, r.chosen, r.proof, 16, &r.n_proof, NULL);
    hb_model_free(m);
    trace_free(t);
    return r;
}

/* The WAIT is written before the NOTIFY that wakes it: no pair in input
 * order, so the first phase leaves it unmatched and the second matches
 * it.  (The first phase's "no" was once the answer.) */
static void wait_written_before_its_notify(void **state)
{
    (void)state;
    matched r = match(ON("w@n", "WAIT", "c") ON("n@n", "NOTIFY", "c"));
    assert_int_equal(r.rc, 1);
    assert_int_equal(r.chosen[0], 1);
}

/* Each WAIT takes a NOTIFY before it; the nearest free one is not always
 * right: x's WAIT must leave b's NOTIFY to a's WAIT, which cannot take
 * a's own. */
static void matching_not_greedy(void **state)
{
    (void)state;
    matched r = match(ON("a@n", "NOTIFY", "c")     /* 0 */
                      ON("b@n", "NOTIFY", "c")     /* 1 */
                      ON("x@n", "WAIT", "c")       /* 2 */
                      ON("a@n", "WAIT", "c"));     /* 3 */
    assert_int_equal(r.rc, 1);
    assert_int_equal(r.chosen[2], 0);
    assert_int_equal(r.chosen[3], 1);
}

/* Two WAITs, one NOTIFY: no matching; the proof names both WAITs and
 * the NOTIFY they share. */
static void two_waits_one_notify(void **state)
{
    (void)state;
    matched r = match(ON("n@n", "NOTIFY", "c")     /* 0 */
                      ON("x@n", "WAIT", "c")       /* 1 */
                      ON("y@n", "WAIT", "c"));     /* 2 */
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n_proof, 3);
    assert_true((r.proof[0] == 1 && r.proof[1] == 2) ||
                (r.proof[0] == 2 && r.proof[1] == 1));
    assert_int_equal(r.proof[2], 0);
}

/* A NOTIFYALL wakes any number of WAITs. */
static void notifyall_wakes_every_wait(void **state)
{
    (void)state;
    matched r = match(ON("n@n", "NOTIFYALL", "c")  /* 0 */
                      ON("x@n", "WAIT", "c")       /* 1 */
                      ON("y@n", "WAIT", "c"));     /* 2 */
    assert_int_equal(r.rc, 1);
    assert_int_equal(r.chosen[1], 0);
    assert_int_equal(r.chosen[2], 0);
}

/* A NOTIFY that U places after the WAIT (the notifier is forked after
 * it) is no candidate: the WAIT has none left. */
static void notify_after_the_wait_is_no_candidate(void **state)
{
    (void)state;
    matched r = match(ON("w@n", "WAIT", "c")                    /* 0 */
                      E("w@n", "\"type\":\"CREATE\",\"child\":\"n@n\"")
                      E("n@n", "\"type\":\"START\"")
                      ON("n@n", "NOTIFY", "c")                  /* 3 */
                      ON("p@n", "NOTIFY", "c"));                /* 4 */
    assert_int_equal(r.rc, 1);
    assert_int_equal(r.chosen[0], 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wait_written_before_its_notify),
        cmocka_unit_test(matching_not_greedy),
        cmocka_unit_test(two_waits_one_notify),
        cmocka_unit_test(notifyall_wakes_every_wait),
        cmocka_unit_test(notify_after_the_wait_is_no_candidate),
    };
    return cmocka_run_group_tests_name("wait/notify matching", tests, NULL, NULL);
}
