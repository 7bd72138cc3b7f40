/*
 * test_util.h — what the cmocka unit tests share: a trace from text.
 * Include after <cmocka.h> and traces/trace.h.
 */
#ifndef SPIDER_TEST_UTIL_H
#define SPIDER_TEST_UTIL_H

#include <string.h>

/* One event line of thread th with the given JSON fields, and one whose
 * field is a variable (R, W, LOCK, WAIT, ...). */
#define E(th, fields) "{\"thread\":\"" th "\"," fields "}\n"
#define ON(th, type, var) E(th, "\"type\":\"" type "\",\"variable\":\"" var "\"")
/* A SND or RCV of thread th of message id. */
#define MSG(th, type, id) E(th, "\"type\":\"" type "\",\"message\":\"" id "\"")

/* The trace written in `text`, as if read from a file `name`; the test
 * fails if it does not load.  The caller frees it (trace_free()). */
static inline trace *test_load(const char *name, const char *text)
{
    trace_options o = {0};
    trace *t;
    char err[256];
    if (trace_load_buffer(name, text, strlen(text), &o, &t, err,
                          sizeof err) != TRACE_OK)
        fail_msg("load: %s", err);
    return t;
}

#endif
