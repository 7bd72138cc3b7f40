/*
 * context.h — an event as the report shows it (spider.h's event_ref),
 * where it runs and what it holds (its event_context): the locks held,
 * the handler and message it runs in and the message's sender, and the
 * CREATE of its thread.
 *
 * A context_finder indexes the lock sections once, so that each context
 * costs O(log sections + locks held), even for a thread that holds a lock
 * around thousands of other sections (or never releases one).
 *
 * Ownership: a returned context belongs to the caller, who hands it to a
 * race_group's event_ref (report_free() frees it).  A finder borrows the
 * trace until context_finder_free().  Nothing here fails (allocation
 * failure ends the run, util/alloc.h).
 */
#ifndef SPIDER_CONTEXT_H
#define SPIDER_CONTEXT_H

#include "../spider.h"

typedef struct context_finder context_finder;

/* Event e of trace t as the report shows it (strings copied: the report
 * frees them with the group); its context is NULL. */
event_ref event_ref_of(const trace *t, uint32_t e);

/* The events a context names, by index: its innermost handler's
 * HANDLERBEGIN, that handler's message's SND, the CREATE of its thread;
 * UINT32_MAX for none.  (A split run fetches them from the ranks that
 * hold them.) */
enum { CONTEXT_HANDLER, CONTEXT_SENDER, CONTEXT_CREATED, CONTEXT_EVENTS };
void context_events(const trace *t, uint32_t e, uint32_t out[CONTEXT_EVENTS]);

context_finder *context_finder_new(const trace *t);
/* The context of event e of the finder's trace. */
event_context *context_find(const context_finder *f, uint32_t e);
void context_finder_free(context_finder *f);

#endif
