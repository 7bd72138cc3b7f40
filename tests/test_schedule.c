/*
 * test_schedule.c — unit tests of the runs found by scheduling
 * (spider/engine/engine_schedule.c): traces on which a greedy order of the lock
 * sections dead-ends while a run exists, and what a run found keeps.
 * Events are numbered in input order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../spider/engine/engine_schedule.h"
#include "../spider/engine/schedule_ahead.h"
#include "test_util.h"

#define W12(th) ON(th, "W", "v") ON(th, "W", "v") ON(th, "W", "v") \
    ON(th, "W", "v") ON(th, "W", "v") ON(th, "W", "v") ON(th, "W", "v") \
    ON(th, "W", "v") ON(th, "W", "v") ON(th, "W", "v") ON(th, "W", "v") \
    ON(th, "W", "v")

/* A leader's shape (a ZooKeeper ensemble's, much reduced).  On node a,
 * t1 takes L (events 13-16) and, inside, sends m1 to c and x to node b;
 * b answers t2 (w), t2 tells qp (y), qp's section of L (22-24) waits for
 * y and then lets t2 go on (z) into its own section (27-29), which sends
 * m2 to c.  Node b's writes come first in its file, so a greedy order
 * plays qp's LOCK before b's send s lets t1 reach its LOCK: qp then
 * waits inside L for what t1 sends from inside L.  The observed order of
 * L's sections has no such cycle. */
static const char LEADER[] =
    W12("b0@b")                                                   /* 0-11 */
    MSG("t1@a", "RCV", "s") ON("t1@a", "LOCK", "L")               /* 12-13 */
    MSG("t1@a", "SND", "m1") MSG("t1@a", "SND", "x")              /* 14-15 */
    ON("t1@a", "UNLOCK", "L") MSG("b0@b", "SND", "s")             /* 16-17 */
    MSG("b1@b", "RCV", "x") MSG("b1@b", "SND", "w")               /* 18-19 */
    MSG("t2@a", "RCV", "w") MSG("t2@a", "SND", "y")               /* 20-21 */
    ON("qp@a", "LOCK", "L") MSG("qp@a", "RCV", "y")               /* 22-23 */
    ON("qp@a", "UNLOCK", "L") MSG("qp@a", "SND", "z")             /* 24-25 */
    MSG("t2@a", "RCV", "z") ON("t2@a", "LOCK", "L")               /* 26-27 */
    MSG("t2@a", "SND", "m2") ON("t2@a", "UNLOCK", "L")            /* 28-29 */
    MSG("c@a", "RCV", "m1") MSG("c@a", "RCV", "m2");              /* 30-31 */

enum { N_LEADER = 32 };

/* A client's wait (ZooKeeper's ClientCnxn.submitRequest, much reduced):
 * main reads `f` (p, 1) inside its section of P, leaves P, and reads f
 * again (c, 3) after a WAIT (2-4); send writes f (r, 6) inside its
 * section of P and notifies.  Asked whether r can come before p (the
 * atom r < p of atomicity's "outside" query), a greedy order lets main
 * enter P first and wait inside it for r, whose section waits for P. */
static const char WAITER[] =
    ON("main@c", "LOCK", "P") ON("main@c", "R", "f")              /* 0-1 */
    ON("main@c", "UNLOCK", "P") ON("main@c", "WAIT", "P")         /* 2-3 */
    ON("main@c", "R", "f")                                        /* 4 */
    ON("send@c", "LOCK", "P") ON("send@c", "W", "f")              /* 5-6 */
    ON("send@c", "NOTIFYALL", "P") ON("send@c", "UNLOCK", "P");   /* 7-8 */

enum { N_WAITER = 9, N_MAX = N_LEADER };

/* What scheduler_run() said of a trace and a query (NULL: Φ alone). */
typedef struct scheduled {
    int found;
    uint32_t value[N_MAX];
} scheduled;

static scheduled schedule_n(const char *text, uint32_t n, const hb_query *q)
{
    trace *t = test_load("s.log", text);
    assert_int_equal(t->n_events, n);
    hb_model *m = hb_model_build(t, NULL, HANDLERS_NESTED);
    scheduler *s = scheduler_new(t, m);
    scheduled r;
    r.found = scheduler_run(s, q, r.value);
    if (r.found) /* a solution keeps U: each edge's events in its order */
        for (uint32_t i = 0; i < m->n_edges; i++)
            assert_true(r.value[m->edges[i].before] < r.value[m->edges[i].after]);
    scheduler_free(s);
    hb_model_free(m);
    trace_free(t);
    return r;
}

static scheduled schedule(const char *text, const hb_query *q)
{
    return schedule_n(text, N_LEADER, q);
}

/* L's three sections, [acquire, release] each, do not overlap. */
static void assert_sections_apart(const uint32_t *value)
{
    static const uint32_t sec[3][2] = {{13, 16}, {22, 24}, {27, 29}};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            assert_true(value[sec[i][1]] < value[sec[j][0]] ||
                        value[sec[j][1]] < value[sec[i][0]]);
}

/* Φ alone: where the greedy order dead-ends, the observed order of the
 * sections is a run. */
static void observed_lock_order_when_greedy_dead_ends(void **state)
{
    (void)state;
    scheduled r = schedule(LEADER, NULL);
    assert_int_equal(r.found, 1);
    assert_sections_apart(r.value);
    assert_true(r.value[23] > r.value[21]); /* y received after its send */
}

/* m2 sent before c's first receive (a message race's query): the
 * sections the query needs keep their observed order, and c's receive
 * waits. */
static void needed_sections_in_observed_order(void **state)
{
    (void)state;
    hb_query q = hb_query_before(28, 30);
    scheduled r = schedule(LEADER, &q);
    assert_int_equal(r.found, 1);
    assert_true(r.value[28] < r.value[30]);
    assert_sections_apart(r.value);
}

/* r before p, with c (after main's WAIT) a query event too: main enters
 * P only after r, and both sections of P stay apart. */
static void section_waits_for_what_its_query_event_follows(void **state)
{
    (void)state;
    hb_query q = hb_query_outside(1, 6, 4);
    q.any = 0;
    q.n_atoms = 1; /* r < p alone, as the engine asks a disjunction */
    assert_true(q.atoms[0].kind == ATOM_LESS &&
                q.ev[q.atoms[0].i] == 6 && q.ev[q.atoms[0].j] == 1);
    scheduled r = schedule_n(WAITER, N_WAITER, &q);
    assert_int_equal(r.found, 1);
    assert_true(r.value[6] < r.value[1]);
    assert_true(r.value[8] < r.value[0]);   /* send's section, then main's */
    assert_true(r.value[7] < r.value[3]);   /* the WAIT after the NOTIFYALL */
}

/* A twin makes the runs its scheduler makes, and so does a run ahead on
 * another thread (schedule_ahead.h): the engine's answers must not
 * depend on which thread ran a query.  Every pair of events asked both
 * ways, some found and some not; a run dropped before its end is taken
 * by nobody, and the thread takes the next. */
static void twin_and_run_ahead_make_the_same_runs(void **state)
{
    (void)state;
    trace *t = test_load("s.log", LEADER);
    assert_int_equal(t->n_events, N_LEADER);
    hb_model *m = hb_model_build(t, NULL, HANDLERS_NESTED);
    scheduler *s = scheduler_new(t, m);
    scheduler *twin = scheduler_twin(s, NULL);
    schedule_ahead *ahead = schedule_ahead_new(s, t->n_events);
    assert_non_null(ahead);
    uint32_t *taken = malloc(sizeof(uint32_t) * (t->n_events + 1));
    uint32_t mine[N_LEADER], theirs[N_LEADER];
    int found = 0, not_found = 0;
    uint64_t spent = 0, own = 0;
    for (uint32_t a = 0; a < N_LEADER; a += 3)
        for (uint32_t b = 0; b < N_LEADER; b += 5) {
            if (a == b)
                continue;
            hb_query q = hb_query_before(a, b);
            uint64_t before = scheduler_steps(s);
            int r = scheduler_run(s, &q, mine);
            own += scheduler_steps(s) - before;
            assert_int_equal(scheduler_run(twin, &q, theirs), r);
            if (r)
                assert_memory_equal(mine, theirs, sizeof mine);
            hb_query dropped = hb_query_before(b, a);
            assert_true(schedule_ahead_idle(ahead));
            schedule_ahead_start(ahead, &dropped, 1);
            schedule_ahead_drop(ahead);
            assert_false(schedule_ahead_has(ahead, 1));
            while (!schedule_ahead_idle(ahead)) /* the dropped run ends */
                nanosleep(&(struct timespec){0, 100000}, NULL);
            schedule_ahead_start(ahead, &q, 2);
            assert_true(schedule_ahead_has(ahead, 2));
            assert_false(schedule_ahead_has(ahead, 1));
            assert_int_equal(schedule_ahead_take(ahead, &taken, &spent), r);
            if (r)
                assert_memory_equal(mine, taken, sizeof mine);
            found += r;
            not_found += !r;
        }
    assert_true(found > 0 && not_found > 0);
    assert_int_equal(spent, own); /* what the caller's own runs cost */
    free(taken);
    schedule_ahead_free(ahead);
    scheduler_free(twin);
    scheduler_free(s);
    hb_model_free(m);
    trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(observed_lock_order_when_greedy_dead_ends),
        cmocka_unit_test(needed_sections_in_observed_order),
        cmocka_unit_test(section_waits_for_what_its_query_event_follows),
        cmocka_unit_test(twin_and_run_ahead_make_the_same_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
