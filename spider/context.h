/*
 * context.h — where an event runs and what it holds (spider.h's
 * event_context): the locks held, the handler and message it runs in and
 * the message's sender, and the CREATE of its thread.
 *
 * Ownership: the returned context belongs to the caller, who hands it to
 * a race_group's event_ref (report_free() frees it).
 */
#ifndef SPIDER_CONTEXT_H
#define SPIDER_CONTEXT_H

#include "spider.h"

/* The context of event e of t.  Never fails (allocation failure ends the
 * run, traces/alloc.h). */
event_context *event_context_new(const trace *t, uint32_t e);

#endif
