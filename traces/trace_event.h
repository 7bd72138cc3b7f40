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

int event_needs_variable(event_kind k);
int reader_add_event(reader *r, const cJSON *obj, const char *at,
                     const char *end);

#endif
