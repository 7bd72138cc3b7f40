/*
 * test_trace.c — unit tests of the loader (traces/): every input variant
 * of docs/trace-format.md and every error.  Run one test with
 *   CMOCKA_TEST_ABORT=1 tests/bin/test_trace <name-substring>
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../encode/encode.h"
#include "../traces/trace.h"

static char err[512];

static trace *load_opts(const char *text, trace_order order, int lenient)
{
    trace_options o = {.order = order, .lenient = lenient, .warnings = NULL};
    trace *t = NULL;
    err[0] = '\0';
    if (trace_load_buffer("mem.log", text, strlen(text), &o, &t, err,
                          sizeof err) != TRACE_OK)
        return NULL;
    return t;
}

static trace *load(const char *text)
{
    return load_opts(text, ORDER_FILE, 0);
}

/* Asserts loading fails with an error containing `what`. */
static void expect_error(const char *text, const char *what)
{
    trace *t = load(text);
    if (t) {
        trace_free(t);
        fail_msg("loaded, but expected error \"%s\"", what);
    }
    if (!strstr(err, what))
        fail_msg("error \"%s\" does not contain \"%s\"", err, what);
}

#define EV(fields) "{\"thread\":\"main@n1\"," fields "}\n"

/* ---- layouts ---------------------------------------------------------------- */

static void stream_one_per_line(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"START\"") EV("\"type\":\"END\""));
    assert_non_null(t);
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->events[1].line, 2);
    trace_free(t);
}

static void json_array(void **state)
{
    (void)state;
    trace *t = load("[\n {\"thread\":\"a@n\",\"type\":\"START\"},\n"
                    " {\"thread\":\"a@n\",\"type\":\"END\"}\n]\n");
    assert_non_null(t);
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->events[1].line, 3);
    trace_free(t);
}

static void empty_array_is_no_events(void **state)
{
    (void)state;
    expect_error("[]", "no events");
}

static void pretty_printed_and_glued(void **state)
{
    (void)state;
    trace *t = load("{\n  \"thread\": \"a@n\",\n  \"type\": \"START\"\n}{\n"
                    "  \"thread\": \"a@n\",\n  \"type\": \"END\"\n}"
                    "{\"thread\":\"a@n\",\"type\":\"LOG\"}");
    assert_non_null(t);
    assert_int_equal(t->n_events, 3);
    assert_int_equal(t->events[1].line, 4);
    assert_int_equal(t->events[2].line, 7);
    trace_free(t);
}

static void type_names_aliases_and_codes(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"FORK\",\"child\":\"c@n1\"")
                    EV("\"type\":\"READ\",\"variable\":\"x\"")
                    EV("\"type\":\"WRITE\",\"variable\":\"x\"")
                    EV("\"type\":7,\"variable\":\"x\"")
                    EV("\"type\":\"r\",\"variable\":\"x\"")
                    EV("\"type\":20,\"variable\":\"x\""));
    assert_non_null(t);
    assert_int_equal(t->events[0].kind, EV_CREATE);
    assert_int_equal(t->events[1].kind, EV_READ);
    assert_int_equal(t->events[2].kind, EV_WRITE);
    assert_int_equal(t->events[3].kind, EV_WRITE);
    assert_int_equal(t->events[4].kind, EV_READ);
    assert_int_equal(t->events[5].kind, EV_NOTIFYALL);
    trace_free(t);
}

static void thread_and_node_names(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"1@a@b\",\"type\":\"START\"}\n"
                    "{\"thread\":\"solo\",\"type\":\"START\"}\n");
    assert_non_null(t);
    assert_string_equal(t->strings[t->threads[0].node], "a@b");
    assert_string_equal(t->strings[t->threads[1].node], "solo");
    assert_int_equal(t->n_nodes, 2);
    trace_free(t);
}

static void shared_state_is_per_node(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"a@n1\",\"type\":\"W\",\"variable\":\"x\"}\n"
                    "{\"thread\":\"a@n2\",\"type\":\"W\",\"variable\":\"x\"}\n"
                    "{\"thread\":\"b@n1\",\"type\":\"R\",\"variable\":\"x\"}\n");
    assert_non_null(t);
    assert_int_not_equal(t->events[0].object, t->events[1].object);
    assert_int_equal(t->events[0].object, t->events[2].object);
    trace_free(t);
}

static void numbers_as_text(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"W\",\"variable\":42,\"loc\":7,"
                       "\"timestamp\":\"15\"")
                    EV("\"type\":\"W\",\"variable\":\"42\""));
    assert_non_null(t);
    assert_string_equal(t->strings[t->events[0].loc], "7");
    assert_int_equal(t->events[0].timestamp, 15);
    assert_int_equal(t->events[0].object, t->events[1].object);
    trace_free(t);
}

/* Integers are exact beyond a double's 53 bits (read from the text), and
 * a number written with a fraction or an exponent counts by its value. */
static void integers_are_exact(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"START\",\"timestamp\":9007199254740993")
                    EV("\"type\":\"W\",\"variable\":\"x\","
                       "\"timestamp\":9223372036854775807")
                    EV("\"type\":\"R\",\"variable\":\"x\","
                       "\"timestamp\":-9223372036854775808")
                    EV("\"type\":\"R\",\"variable\":\"x\",\"timestamp\":1e3,"
                       "\"loc\":1e3")
                    EV("\"type\":\"R\",\"variable\":\"x\",\"timestamp\":-0,"
                       "\"loc\":-0")
                    EV("\"type\":\"SND\",\"message\":\"m\",\"size\":9007199254740995,"
                       "\"timestamp\":2.5e1,\"loc\":10000000000000000000001"));
    assert_non_null(t);
    assert_true(t->events[0].timestamp == INT64_C(9007199254740993));
    assert_true(t->events[1].timestamp == INT64_MAX);
    assert_true(t->events[2].timestamp == INT64_MIN);
    assert_int_equal(t->events[3].timestamp, 1000);
    assert_string_equal(t->strings[t->events[3].loc], "1000");
    assert_int_equal(t->events[4].timestamp, 0);
    assert_string_equal(t->strings[t->events[4].loc], "0");
    assert_true(t->events[5].size == INT64_C(9007199254740995));
    assert_int_equal(t->events[5].timestamp, 25);
    assert_string_equal(t->strings[t->events[5].loc], "10000000000000000000001");
    trace_free(t);
    expect_error(EV("\"type\":\"START\",\"timestamp\":9223372036854775808"),
                 "\"timestamp\" must be an integer");
    expect_error(EV("\"type\":\"START\",\"timestamp\":1.25"),
                 "\"timestamp\" must be an integer");
    /* a text of 32 characters or more is no integer, zeros or not */
    expect_error(EV("\"type\":\"START\",\"timestamp\":"
                    "\"00000000000000000000000000000001\""),
                 "\"timestamp\" must be an integer");
    /* past 40 digits an integer is written with an exponent: 10^40 as
     * digits and as 1e40 are one variable */
    t = load(EV("\"type\":\"W\",\"variable\":1e40")
             EV("\"type\":\"W\",\"variable\":"
                "10000000000000000000000000000000000000000"));
    assert_non_null(t);
    assert_int_equal(t->events[0].object, t->events[1].object);
    trace_free(t);
}

static void unknown_fields_ignored(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"START\",\"counter\":3,\"pid\":9,"
                       "\"data\":{\"host\":\"h\"},\"dependency\":null"));
    assert_non_null(t);
    trace_free(t);
}

static void event_location_without_loc(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"START\"") EV("\"type\":\"W\",\"variable\":\"x\""));
    char buf[64];
    assert_non_null(t);
    assert_string_equal(event_location(t, 1, buf, sizeof buf), "main@n1#1");
    trace_free(t);
}

/* ---- program order ----------------------------------------------------------- */

static void timestamp_order_is_stable(void **state)
{
    (void)state;
    const char *text = EV("\"type\":\"W\",\"variable\":\"x\",\"timestamp\":5")
                       EV("\"type\":\"R\",\"variable\":\"x\",\"timestamp\":1")
                       EV("\"type\":\"R\",\"variable\":\"y\",\"timestamp\":5");
    trace *t = load_opts(text, ORDER_TIMESTAMP, 0);
    assert_non_null(t);
    const thread_info *th = &t->threads[0];
    assert_int_equal(th->events[0], 1);
    assert_int_equal(th->events[1], 0);
    assert_int_equal(th->events[2], 2);
    assert_int_equal(t->events[0].input_index, 0); /* loc-less name uses input */
    trace_free(t);
    t = load_opts(text, ORDER_FILE, 0);
    assert_int_equal(t->threads[0].events[0], 0);
    trace_free(t);
}

/* ---- messages ------------------------------------------------------------------ */


static void match_by_message_id(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"a@n1\",\"type\":\"SND\",\"message\":17}\n"
                    "{\"thread\":\"b@n2\",\"type\":\"RCV\",\"message\":\"17\"}\n"
                    "{\"thread\":\"c@n3\",\"type\":\"RCV\",\"message\":17}\n"
                    "{\"thread\":\"c@n3\",\"type\":\"RCV\",\"message\":99}\n"
                    "{\"thread\":\"a@n1\",\"type\":\"SND\",\"message\":5}\n");
    assert_non_null(t);
    assert_int_equal(t->n_matches, 2); /* one send, received twice */
    assert_int_equal(t->matches[0].sends[0], 0);
    assert_int_equal(t->matches[1].sends[0], 0);
    assert_int_equal(t->stats.rcvs_matched, 2);
    assert_int_equal(t->stats.rcvs_unmatched, 1);
    assert_int_equal(t->stats.sends_unreceived, 1);
    trace_free(t);
}

static void id_sent_twice_is_a_disjunction(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"a@n1\",\"type\":\"SND\",\"message\":1}\n"
                    "{\"thread\":\"b@n1\",\"type\":\"SND\",\"message\":1}\n"
                    "{\"thread\":\"c@n2\",\"type\":\"RCV\",\"message\":1}\n");
    assert_non_null(t);
    assert_int_equal(t->n_matches, 1);
    assert_int_equal(t->matches[0].n_sends, 2);
    assert_int_equal(t->matches[0].all, 0);
    assert_int_equal(t->matches[0].sends[0], 0); /* its send: the first */
    hb_model *m = hb_model_build(t, NULL, HANDLERS_NESTED);
    assert_int_equal(m->counts.messages, 1);
    assert_int_equal(m->n_clauses, 1);
    hb_model_free(m);
    trace_free(t);
}

#define TCP(th, kind, src, dst, size) \
    "{\"thread\":\"" th "\",\"type\":\"" kind "\",\"socket_type\":\"TCP\"," \
    "\"src\":\"" src "\",\"src_port\":1,\"dst\":\"" dst "\",\"dst_port\":2," \
    "\"size\":" size "}\n"

static void tcp_byte_streams(void **state)
{
    (void)state;
    /* sends of 3 and 5 bytes; receives of 4 and 4 bytes */
    trace *t = load(TCP("a@n1", "SND", "n1", "n2", "3")
                    TCP("a@n1", "SND", "n1", "n2", "5")
                    TCP("z@n1", "SND", "n1", "n3", "9")
                    TCP("b@n2", "RCV", "n1", "n2", "4")
                    TCP("b@n2", "RCV", "n1", "n2", "4"));
    assert_non_null(t);
    assert_int_equal(t->n_matches, 2);
    assert_int_equal(t->matches[0].all, 1);
    assert_int_equal(t->matches[0].n_sends, 2); /* bytes 0-3: both sends */
    assert_int_equal(t->matches[1].n_sends, 1); /* bytes 4-7: the second */
    assert_int_equal(t->matches[1].sends[0], 1);
    assert_int_equal(t->stats.sends_unreceived, 1);
    trace_free(t);
}

static void tcp_receive_beyond_sent_bytes(void **state)
{
    (void)state;
    trace *t = load(TCP("a@n1", "SND", "n1", "n2", "2")
                    TCP("b@n2", "RCV", "n1", "n2", "2")
                    TCP("b@n2", "RCV", "n1", "n2", "2"));
    assert_non_null(t);
    assert_int_equal(t->stats.rcvs_matched, 1);
    assert_int_equal(t->stats.rcvs_unmatched, 1);
    trace_free(t);
}

static void non_tcp_is_datagram(void **state)
{
    (void)state;
    expect_error("{\"thread\":\"a@n\",\"type\":\"SND\",\"socket_type\":\"UDP\"}",
                 "missing field \"message\"");
    expect_error("{\"thread\":\"a@n\",\"type\":\"SND\",\"socket_type\":\"TCP\","
                 "\"src\":\"x\",\"src_port\":1,\"dst\":\"y\",\"dst_port\":2}",
                 "missing field \"size\"");
    expect_error("{\"thread\":\"a@n\",\"type\":\"RCV\",\"socket_type\":\"TCP\","
                 "\"size\":1}", "missing field \"src\"");
}

/* ---- handlers -------------------------------------------------------------------- */

static void handler_binds_latest_unhandled_rcv(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"s@n2\",\"type\":\"SND\",\"message\":1}\n"
                    EV("\"type\":\"RCV\",\"message\":1")
                    EV("\"type\":\"LOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"HANDLERBEGIN\"")
                    EV("\"type\":\"W\",\"variable\":\"x\"")
                    EV("\"type\":\"HANDLEREND\"")
                    EV("\"type\":\"UNLOCK\",\"variable\":\"l\""));
    assert_non_null(t);
    assert_int_equal(t->n_handlers, 1);
    assert_int_equal(t->handlers[0].rcv, 1);
    assert_int_equal(t->handlers[0].begin, 3);
    assert_int_equal(t->handlers[0].last, 5);
    assert_int_equal(t->events[4].handler, 0);
    assert_int_equal(t->events[2].handler, NONE);
    assert_int_equal(t->events[6].handler, NONE);
    trace_free(t);
}

static void handler_of_no_message_and_unclosed(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"HANDLERBEGIN\"")
                    EV("\"type\":\"HANDLERBEGIN\"")
                    EV("\"type\":\"W\",\"variable\":\"x\"")
                    EV("\"type\":\"HANDLEREND\""));
    assert_non_null(t);
    assert_int_equal(t->n_handlers, 2);
    assert_int_equal(t->handlers[1].parent, 0);       /* nesting counted */
    assert_int_equal(t->handlers[1].last, 3);
    assert_int_equal(t->handlers[0].last, 3);         /* closed at the end */
    assert_int_equal(t->stats.handlers_without_message, 2);
    assert_int_equal(t->stats.handlers_unclosed, 1);
    assert_true(t->stats.warnings >= 3);
    trace_free(t);
}

/* ---- locks and wait/notify ---------------------------------------------------------- */

static void reentrant_locks_and_open_sections(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"LOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"LOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"UNLOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"UNLOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"UNLOCK\",\"variable\":\"l\"")
                    EV("\"type\":\"LOCK\",\"variable\":\"m\""));
    assert_non_null(t);
    assert_int_equal(t->n_sections, 2);
    assert_int_equal(t->sections[0].acquire, 0);
    assert_int_equal(t->sections[0].release, 3);
    assert_int_equal(t->sections[1].release, NONE);
    assert_int_equal(t->stats.unlocks_ignored, 1);
    assert_int_equal(t->stats.sections_unreleased, 1);
    trace_free(t);
}

static void wait_candidates_are_other_threads(void **state)
{
    (void)state;
    trace *t = load("{\"thread\":\"a@n\",\"type\":\"NOTIFY\",\"variable\":\"c\"}\n"
                    "{\"thread\":\"b@n\",\"type\":\"NOTIFYALL\",\"variable\":\"c\"}\n"
                    "{\"thread\":\"c@m\",\"type\":\"NOTIFY\",\"variable\":\"c\"}\n"
                    "{\"thread\":\"a@n\",\"type\":\"WAIT\",\"variable\":\"c\"}\n");
    assert_non_null(t);
    assert_int_equal(t->n_waits, 1);
    assert_int_equal(t->waits[0].n_notifies, 1);
    assert_int_equal(t->waits[0].notifies[0], 1);
    trace_free(t);
}

/* ---- errors ----------------------------------------------------------------------- */

static void errors_name_line_and_column(void **state)
{
    (void)state;
    expect_error(EV("\"type\":\"START\"") "{\"thread\": oops}\n",
                 "mem.log:2:12: invalid JSON");
    expect_error(EV("\"type\":\"START\"") "  42\n", "mem.log:2:3: expected an "
                 "event object");
    expect_error("[{\"thread\":\"a\",\"type\":\"START\"} {}]",
                 "mem.log:1:32: expected ',' or ']'");
    expect_error("[{\"thread\":\"a\",\"type\":\"START\"}] x",
                 "unexpected text after the array");
}

static void errors_name_the_field(void **state)
{
    (void)state;
    expect_error("{\"thread\":\"a\"}", "mem.log:1:1: missing field \"type\"");
    expect_error("{\"type\":\"START\"}", "missing field \"thread\"");
    expect_error("{\"thread\":5,\"type\":\"START\"}", "\"thread\" must be");
    expect_error("{\"thread\":\"a\",\"type\":\"JUMP\"}",
                 "unknown event type \"JUMP\"");
    expect_error("{\"thread\":\"a\",\"type\":21}", "unknown event type code 21");
    expect_error("{\"thread\":\"a\",\"type\":true}", "\"type\" must be");
    expect_error("{\"thread\":\"a\",\"type\":\"R\"}",
                 "missing field \"variable\" (needed by R)");
    expect_error("{\"thread\":\"a\",\"type\":\"LOCK\"}",
                 "missing field \"variable\" (needed by LOCK)");
    expect_error("{\"thread\":\"a\",\"type\":\"CREATE\"}",
                 "missing field \"child\" (needed by CREATE)");
    expect_error("{\"thread\":\"a\",\"type\":\"JOIN\",\"child\":[]}",
                 "\"child\" must be");
    expect_error("{\"thread\":\"a\",\"type\":\"START\",\"timestamp\":1.5}",
                 "\"timestamp\" must be an integer");
    expect_error("{\"thread\":\"a\",\"type\":\"W\",\"variable\":{}}",
                 "\"variable\" must be");
    expect_error("{\"thread\":\"a\",\"type\":\"START\",\"loc\":[1]}",
                 "\"loc\" must be");
}

static void empty_and_binary_input(void **state)
{
    (void)state;
    expect_error("", "no events");
    expect_error("  \n\n", "no events");
    trace_options o = {0};
    trace *t;
    const char bin[] = "{\"thread\":\"a\",\"type\":\"START\"}\n\0\x01\x02";
    assert_int_equal(trace_load_buffer("b.log", bin, sizeof bin, &o, &t, err,
                                       sizeof err), TRACE_ERR);
    assert_non_null(strstr(err, "b.log:2:1: NUL byte"));
}

static void truncated_last_object_is_a_warning(void **state)
{
    (void)state;
    trace *t = load(EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"ty");
    assert_non_null(t);
    assert_int_equal(t->n_events, 1);
    assert_int_equal(t->stats.truncated_files, 1);
    trace_free(t);
    t = load("[" EV("\"type\":\"START\"") ", {\"thread\":");
    assert_non_null(t);
    assert_int_equal(t->stats.truncated_files, 1);
    trace_free(t);
}

static void lenient_skips_bad_events(void **state)
{
    (void)state;
    trace *t = load_opts(EV("\"type\":\"START\"") "{\"thread\":\"a\",\"type\":\"X\"}\n"
                         "garbage line\n  at java.Foo\n" EV("\"type\":\"END\""),
                         ORDER_FILE, 1);
    assert_non_null(t);
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->stats.events_skipped, 2);
    trace_free(t);
}

/* A cut object followed by more objects (a node restarted after a crash,
 * appending to its file) is malformed, not a truncated tail: an error
 * naming its line, or skipped under --lenient with every complete event
 * after it read (docs/trace-format.md, "Malformed and cut-off objects"). */
static void cut_object_mid_file_is_malformed(void **state)
{
    (void)state;
    const char *cuts[] = {
        /* one object per line, cut after a comma, inside a string, after
         * a colon, and with the next object on the same line */
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"type\":\"W\",\n"
            EV("\"type\":\"W\",\"variable\":\"x\""),
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"ty\n"
            EV("\"type\":\"W\",\"variable\":\"x\""),
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"type\":\n"
            EV("\"type\":\"W\",\"variable\":\"x\""),
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"type\":\"W\","
            EV("\"type\":\"W\",\"variable\":\"x\""),
        /* pretty-printed: nested lines are indented, objects are not */
        "{\n  \"thread\": \"main@n1\",\n  \"type\": \"START\"\n}\n"
        "{\n  \"thread\": \"main@n1\",\n  \"data\": [\n    {\"a\": 1}\n  ],\n  \"ty\n"
        "{\n  \"thread\": \"main@n1\", \"type\": \"W\", \"variable\": \"x\"\n}\n",
        /* an array */
        "[" EV("\"type\":\"START\"") ",{\"thread\":\"main@n1\",\"type\":\"W\",\n"
            EV("\"type\":\"W\",\"variable\":\"x\"") "]",
        /* glued "}{" objects: the next event is glued onto the cut one */
        "{\"thread\":\"main@n1\",\"type\":\"START\"}{\"thread\":\"main@n1\",\"ty"
            "{\"thread\":\"main@n1\",\"type\":\"W\",\"variable\":\"x\"}",
        "{\"thread\":\"main@n1\",\"type\":\"START\"}{\"thread\":\"main@n1\",\"type\":"
            "{\"thread\":\"main@n1\",\"type\":\"W\",\"variable\":\"x\"}"
            "{\"thread\":\"main@n1\",\"type\":\"W\",\"variable\":\"y\"}",
    };
    const unsigned writes[] = {1, 1, 1, 1, 1, 1, 1, 2};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        trace *t = load(cuts[i]);
        if (t) {
            trace_free(t);
            fail_msg("case %zu: a cut object mid-file loaded", i);
        }
        if (!strstr(err, "malformed object: it is cut off before the next "
                         "object"))
            fail_msg("case %zu: error \"%s\"", i, err);
        t = load_opts(cuts[i], ORDER_FILE, 1);
        if (!t)
            fail_msg("case %zu: --lenient: %s", i, err);
        if (t->stats.events_skipped != 1 || t->stats.truncated_files != 0 ||
            t->stats.by_kind[EV_START] != 1 || t->stats.by_kind[EV_WRITE] != writes[i])
            fail_msg("case %zu: skipped %llu, truncated %llu, START %llu, W %llu",
                     i, (unsigned long long)t->stats.events_skipped,
                     (unsigned long long)t->stats.truncated_files,
                     (unsigned long long)t->stats.by_kind[EV_START],
                     (unsigned long long)t->stats.by_kind[EV_WRITE]);
        trace_free(t);
    }
    /* the error names the cut object's line and column, and the next one's */
    expect_error(cuts[0], "mem.log:2:1: malformed object: it is cut off before "
                          "the next object (line 3, column 1)");
    expect_error(cuts[4], "mem.log:5:1: malformed object");
    trace *t = load_opts(cuts[0], ORDER_FILE, 1);
    assert_non_null(t);
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->events[1].line, 3);
    trace_free(t);
}

/* Only a cut object at the very end is a truncated tail, even when what
 * was written of it holds a complete object that looks like an event. */
static void truncated_tail_with_nested_objects(void **state)
{
    (void)state;
    const char *tails[] = {
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"data\":"
            "{\"type\":\"W\",\"thread\":\"x@n1\"},\"ty",
        EV("\"type\":\"START\"") "{\"thread\":\"main@n1\",\"data\":[\n"
            "    {\"a\":1},\n    {\"b\":2}],\"vari\n\n",
        "{\n  \"thread\": \"main@n1\",\n  \"type\": \"START\"\n}\n"
            "{\n  \"thread\": \"main@n1\",\n  \"data\": [\n    {\"a\": 1}\n",
    };
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        trace *t = load(tails[i]);
        if (!t)
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(t->n_events, 1);
        assert_int_equal(t->stats.truncated_files, 1);
        assert_int_equal(t->stats.events_skipped, 0);
        trace_free(t);
    }
}

/* An invalid object that is not cut off keeps its error position; under
 * --lenient reading resumes after it, not inside it. */
static void invalid_object_resumes_after_it(void **state)
{
    (void)state;
    const char *text = EV("\"type\":\"START\"")
        "{\"thread\": oops, \"data\": {\"thread\":\"x@n1\",\"type\":\"W\",\"variable\":\"y\"}}"
        EV("\"type\":\"END\"");
    expect_error(text, "mem.log:2:12: invalid JSON");
    trace *t = load_opts(text, ORDER_FILE, 1);
    assert_non_null(t);
    assert_int_equal(t->n_events, 2);
    assert_int_equal(t->stats.by_kind[EV_WRITE], 0);
    assert_int_equal(t->stats.events_skipped, 1);
    trace_free(t);
}

/* ---- files and directories ----------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void directories_in_name_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/spider-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[256], b[256], sub[256];
    snprintf(a, sizeof a, "%s/b.log", dir);
    snprintf(b, sizeof b, "%s/a.log", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    write_file(a, "{\"thread\":\"x@n2\",\"type\":\"START\"}");
    write_file(b, "{\"thread\":\"x@n1\",\"type\":\"START\"}");
    mkdir(sub, 0700);
    const char *paths[] = {dir};
    trace_options o = {0};
    trace *t;
    assert_int_equal(trace_load(paths, 1, &o, &t, err, sizeof err), TRACE_OK);
    assert_int_equal(t->n_files, 2);
    assert_non_null(strstr(t->files[0], "/a.log"));
    assert_string_equal(t->strings[t->threads[t->events[0].thread].node], "n1");
    trace_free(t);
    const char *missing[] = {"/nonexistent/trace.log"};
    assert_int_equal(trace_load(missing, 1, &o, &t, err, sizeof err), TRACE_ERR);
    assert_non_null(strstr(err, "/nonexistent/trace.log: cannot open"));
    unlink(a);
    unlink(b);
    const char *empty[] = {sub};
    assert_int_equal(trace_load(empty, 1, &o, &t, err, sizeof err), TRACE_ERR);
    assert_non_null(strstr(err, "no trace file"));
    rmdir(sub);
    rmdir(dir);
}

/* ---- reading a window at a time ------------------------------------------ */

/* Everything a load gives: status, error, warnings and the trace. */
static char *load_outcome(const char *path, const char *whole, size_t len,
                          size_t window, int lenient)
{
    char *warn = NULL, *out = NULL;
    size_t warn_len = 0, out_len = 0;
    FILE *w = open_memstream(&warn, &warn_len);
    trace_options o = {.lenient = lenient, .warnings = w, .window = window};
    trace *t = NULL;
    char e[512] = "";
    int rc = whole ? trace_load_buffer(path, whole, len, &o, &t, e, sizeof e)
                   : trace_load(&path, 1, &o, &t, e, sizeof e);
    fclose(w);
    FILE *f = open_memstream(&out, &out_len);
    /* a NUL byte fails the file at once when read whole, but only once its
     * window is read otherwise: warnings before it may differ */
    fprintf(f, "rc %d: %s\nwarnings:\n%s", rc, e,
            strstr(e, "NUL byte") ? "(not compared)\n" : warn);
    for (uint32_t i = 0; t && i < t->n_strings; i++)
        fprintf(f, "string %u: %s\n", i, t->strings[i]);
    for (uint32_t i = 0; t && i < t->n_events; i++) {
        const event *v = &t->events[i];
        fprintf(f, "event %u: %d %d t%u p%u i%u loc%u o%d m%u s%lld ts%lld "
                "f%u l%u h%d r%d\n", i, v->kind, v->tcp, v->thread, v->pos,
                v->input_index, v->loc, v->object, v->message,
                (long long)v->size, (long long)v->timestamp, v->file, v->line,
                v->handler, v->match);
    }
    if (t) {
        const trace_stats *s = &t->stats;
        fprintf(f, "threads %u objects %u channels %u handlers %u matches %u "
                "sections %u waits %u skipped %u truncated %u warnings %u\n",
                t->n_threads, t->n_objects, t->n_channels, t->n_handlers,
                t->n_matches, t->n_sections, t->n_waits, s->events_skipped,
                s->truncated_files, s->warnings);
    }
    fclose(f);
    trace_free(t);
    free(warn);
    return out;
}

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    *len = fread(buf, 1, (size_t)size, f);
    assert_int_equal(*len, (size_t)size);
    fclose(f);
    return buf;
}

/* The file at path reads the same a window at a time as whole, in both
 * modes, the window cutting objects, strings, numbers and CR LF pairs at
 * every byte (windows 1..8) and at a few larger sizes. */
static void check_windows(const char *path)
{
    size_t len;
    char *whole = read_whole(path, &len);
    static const size_t windows[] = {1, 2, 3, 4, 5, 6, 7, 8, 61, 4096, 0};
    for (int lenient = 0; lenient < 2; lenient++) {
        char *want = load_outcome(path, whole, len, 0, lenient);
        for (size_t k = 0; k < sizeof windows / sizeof *windows; k++) {
            if (windows[k] && windows[k] < 64 && len > 20000)
                continue; /* byte windows on small files only */
            char *got = load_outcome(path, NULL, 0, windows[k], lenient);
            if (strcmp(want, got) != 0)
                fail_msg("%s (window %zu, lenient %d) differs from reading "
                         "it whole:\n--- whole\n%.2000s\n--- window\n%.2000s",
                         path, windows[k], lenient, want, got);
            free(got);
        }
        free(want);
    }
    free(whole);
}

static void check_windows_of_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            check_windows(path);
    }
    closedir(d);
}

static void windows_read_as_whole(void **state)
{
    (void)state;
#define TEXT(literal) {literal, sizeof literal - 1} /* NUL bytes kept */
    static const struct { const char *s; size_t len; } texts[] = {
        /* CR LF and CR alone, an error after them (line and column) */
        TEXT(EV("\"type\":\"START\"") "\r\n\r\n" EV("\"type\":\"END\"") "\r\n{\"x\":"),
        TEXT("{\"thread\":\"a\",\"type\":\"START\"}\r{\"thread\":\"a\",\r"
        "\"type\":\"END\"}\r\r{\"thread\":\"a\",\"type\":\"Q\"}\r"),
        /* one line: an array, a bad element at a late column */
        TEXT("[{\"thread\":\"a\",\"type\":\"START\"},{\"thread\":\"a\",\"type\":"
        "\"W\",\"variable\":\"v\",\"loc\":\"L1\"},{\"thread\":\"a\",\"type\":"
        "\"END\"} , 17, {\"thread\":\"a\",\"type\":\"END\"}]  \n  "),
        /* a byte order mark; blanks at the end; an unclosed array */
        TEXT("\xEF\xBB\xBF  [ " EV("\"type\":\"START\"") ",\n\t" EV("\"type\":\"END\"")),
        /* cut off before the next object; glued; cut off at the end */
        TEXT(EV("\"type\":\"START\"") "{\"thread\":\"a\",\"ty\n"
        EV("\"type\":\"END\"") "{\"thread\":\"b\",\"type\":\"START\"}{\"thread\""
        ":\"b\",\"type\":\"END\"}\n{\"thread\":\"c\",\"type\":\"START\""),
        /* an object json_scan closes and cJSON refuses, at the very end
         * (the window may end with it) */
        TEXT(EV("\"type\":\"START\"") "{\"thread\":\"a\",\"n\":01}"),
        /* blanks up to a window's end, then a NUL byte */
        TEXT("\n\n\n\n\n\n\n\n\n\n\n\n\0\n"),
        /* a NUL byte late in the file */
        TEXT(EV("\"type\":\"START\"") EV("\"type\":\"X\"") EV("\"type\":\"END\"")
        "{\"thread\":\"a\",\"loc\":\"\0\"}\n"),
        /* an object larger than any window: long strings, escapes */
        TEXT("{\"thread\":\"a@n\",\"type\":\"W\",\"variable\":\"a very long name of a "
        "variable, longer than the windows \\u00e9\\\" \\\\ \",\"loc\":\"Main."
        "java:1234567890123456789012345678901234567890\",\"timestamp\":12345}\n"
        "{\"thread\":\"b@n\",\"type\":\"R\",\"variable\":\"a very long name of a "
        "variable, longer than the windows \\u00e9\\\" \\\\ \",\"timestamp\":"
        "00012}\n{\"thread\":\"b@n\",\"type\":\"R\",\"variable\":\"v\"}"),
    };
    char dir[] = "/tmp/spider-windowsXXXXXX";
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/text%zu.log", dir, i);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(texts[i].s, 1, texts[i].len, f);
        fclose(f);
        check_windows(path);
        unlink(path);
    }
    rmdir(dir);
    check_windows_of_dir("tests/bad");
    check_windows_of_dir("tests/fixtures");
    check_windows_of_dir("tests/prune");
    static const char *const taxdc[] = {"example1", "h5780", "m3274", "m4157",
                                        "m5009", "m5358"};
    for (size_t i = 0; i < sizeof taxdc / sizeof *taxdc; i++) {
        char d[64];
        snprintf(d, sizeof d, "benchmarks/taxdc/%s", taxdc[i]);
        check_windows_of_dir(d);
    }
    /* more, by hand: TEST_WINDOW_DIRS="tests/tmp/t0140-hostile/corpus" */
    const char *more = getenv("TEST_WINDOW_DIRS");
    if (more) {
        char *copy = strdup(more), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            check_windows_of_dir(d);
        free(copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stream_one_per_line),
        cmocka_unit_test(json_array),
        cmocka_unit_test(empty_array_is_no_events),
        cmocka_unit_test(pretty_printed_and_glued),
        cmocka_unit_test(type_names_aliases_and_codes),
        cmocka_unit_test(thread_and_node_names),
        cmocka_unit_test(shared_state_is_per_node),
        cmocka_unit_test(numbers_as_text),
        cmocka_unit_test(unknown_fields_ignored),
        cmocka_unit_test(event_location_without_loc),
        cmocka_unit_test(timestamp_order_is_stable),
        cmocka_unit_test(integers_are_exact),
        cmocka_unit_test(match_by_message_id),
        cmocka_unit_test(id_sent_twice_is_a_disjunction),
        cmocka_unit_test(tcp_byte_streams),
        cmocka_unit_test(tcp_receive_beyond_sent_bytes),
        cmocka_unit_test(non_tcp_is_datagram),
        cmocka_unit_test(handler_binds_latest_unhandled_rcv),
        cmocka_unit_test(handler_of_no_message_and_unclosed),
        cmocka_unit_test(reentrant_locks_and_open_sections),
        cmocka_unit_test(wait_candidates_are_other_threads),
        cmocka_unit_test(errors_name_line_and_column),
        cmocka_unit_test(errors_name_the_field),
        cmocka_unit_test(empty_and_binary_input),
        cmocka_unit_test(truncated_last_object_is_a_warning),
        cmocka_unit_test(lenient_skips_bad_events),
        cmocka_unit_test(cut_object_mid_file_is_malformed),
        cmocka_unit_test(truncated_tail_with_nested_objects),
        cmocka_unit_test(invalid_object_resumes_after_it),
        cmocka_unit_test(directories_in_name_order),
        cmocka_unit_test(windows_read_as_whole),
    };
    return cmocka_run_group_tests_name("trace loader", tests, NULL, NULL);
}
