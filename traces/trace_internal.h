/*
 * trace_internal.h — shared by the files of the traces/ module only.
 */
#ifndef SPIDER_TRACE_INTERNAL_H
#define SPIDER_TRACE_INTERNAL_H

#include "../util/alloc.h"
#include "trace.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Grows arr (of cap elements) to hold at least need: ALLOC_GROW. */
#define ENSURE(arr, cap, need) ALLOC_GROW(arr, need, cap)

/* Interning: strings, (node, name) objects, channels, threads by name. */
str_id intern_str(trace *t, const char *s, size_t len);
/* The length of t->strings[id] (kept before its first byte). */
static inline size_t interned_len(const trace *t, str_id id)
{
    uint32_t len;
    memcpy(&len, t->strings[id] - sizeof len, sizeof len);
    return len;
}
/* ids[i] = intern_str(t, from's string i) for each of from's strings, in
 * order (the same ids), the table's cache misses overlapped: merging a
 * file's strings into a table of millions. */
void intern_strings_of(trace *t, const trace *from, str_id *ids);
/* Frees the storage of t's strings (trace_free). */
void interned_strings_free(trace *t);
uint32_t intern_object(trace *t, str_id node, str_id name);
uint32_t intern_channel(trace *t, const channel *c);
/* Returns the thread named `name`, creating it (and its node) if new. */
uint32_t intern_thread(trace *t, str_id name);
/* Looks a thread up without creating it; NONE if absent. */
int32_t find_thread(const trace *t, str_id name);
void interner_free(trace *t);

/* Emits a warning (counted in stats) to opts->warnings. */
void trace_warn(trace *t, const trace_options *opts, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Derives program order, handlers, matches, sections and waits once all
 * events are read. */
void trace_derive(trace *t, const trace_options *opts);

#endif
