/*
 * trace_event.h — one JSON object into an event (trace_event.c): its
 * members found in one pass, ids, names and timestamps read exactly from
 * the text, and the checks that name a bad field.  Internal to the
 * loader (trace_load.c).
 *
 * Ownership: events and interned strings go into the reader's trace.
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_TRACE_EVENT_H
#define SPIDER_TRACE_EVENT_H

#include "trace_reader.h"

#include <cjson/cJSON.h>

/* Whether an event of kind k must name a variable (R, W, LOCK, ...). */
int event_needs_variable(event_kind k);
/* Adds the event of obj, the object whose text is [at, end), to r's
 * trace.  Returns TRACE_OK; TRACE_ERR with "file:line:col: what is wrong"
 * in r->err for a bad object (under --lenient a bad object is a warning,
 * counted in stats.events_skipped, and TRACE_OK) or when the trace has
 * too many events. */
int trace_event_add(reader *r, const cJSON *obj, const char *at, const char *end);

#endif
