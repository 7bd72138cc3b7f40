/*
 * engine_shortcut_internal.h — how engine_shortcut.c decides, for
 * hb_order.c, which decides the same way batch by batch.
 *
 * Ownership: answers and stats are the caller's; clocks and the needed
 * set are borrowed.  Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SHORTCUT_INTERNAL_H
#define SPIDER_ENGINE_SHORTCUT_INTERNAL_H

#include "engine_shortcut.h"
#include "shortcut_clocks.h"

/* The shortcuts' answer to one query over the swept batch of u (and r,
 * R's clocks when R is a witness), counted in st. */
hb_answer shortcut_decide_one(const shortcut_engine *e, const clocks *u,
                              const clocks *r, const hb_query *q,
                              shortcut_stats *st);
/* Decides ql batch by batch with clocks u and r (of e's graphs) and the
 * set needed (empty, and left empty). */
void shortcut_decide_by_batch(const shortcut_engine *e, const query_list *ql,
                              hb_answer *answers, shortcut_stats *st,
                              clocks *u, clocks *r, needed_set *needed);

#endif
