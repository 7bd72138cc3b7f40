/*
 * analysis_handler.h — handler races (SPEC §4), counted from the pairs of
 * handlers whose messages race (analysis_message.c).
 *
 * For each message race that holds, every pair a ∈ handler(m1),
 * b ∈ handler(m2) of accesses to one variable, one a write, is a handler
 * race; each pair {a, b} once however many racing message pairs lead to
 * it.  Message races add the racing handler pairs as they find them, one
 * by one or a run at a time; handler_races_count() then counts every
 * handler race into the engine's groups.
 *
 * Ownership: the caller frees the handler_races with handler_races_free().
 * Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ANALYSIS_HANDLER_H
#define SPIDER_ANALYSIS_HANDLER_H

#include "../engine/engine.h"

typedef struct handler_races handler_races;

/* Numbers each thread's handlers in begin order (a handler and those
 * nested in it are then an interval).  Borrows t until freed. */
handler_races *handler_races_new(const trace *t);
void handler_races_free(handler_races *hr);

/* Handler h's number in its thread, and whether it holds no other
 * handler (a leaf). */
uint32_t handler_races_local(const handler_races *hr, uint32_t h);
int handler_races_is_leaf(const handler_races *hr, uint32_t h);

/* Handlers h1 and h2 (of one thread) race. */
void handler_races_add(handler_races *hr, uint32_t h1, uint32_t h2);
/* The handlers numbered lo .. hi-1 in q's thread each race with q: leaf
 * handlers one after another (a single handler of any kind goes through
 * handler_races_add). */
void handler_races_add_run(handler_races *hr, uint32_t q, uint32_t lo,
                           uint32_t hi);

/* Counts the handler races of every racing pair added (engine_count);
 * stops early when the run is stopped. */
void handler_races_count(engine_run *run, handler_races *hr);

#endif
