/*
 * schedule_ahead.h — one scheduler run ahead of the caller, on a thread
 * of its own (schedule_ahead.c).
 *
 * The candidates the shortcuts leave are asked of the scheduler one after
 * another, and each answer (a run found) may answer later queries, so
 * the order is sequential.  The caller, about to run one query, names the
 * next query that the runs found so far do not answer; this thread runs
 * it meanwhile.  When the caller reaches that query and still needs a
 * run, it takes this one: the same run it would have made (a scheduler's
 * run depends only on the query), so the answers and counts never depend
 * on the threads.  A run nobody takes is dropped.
 *
 * Ownership: borrows the scheduler it twins (scheduler_twin()) until
 * freed.  Allocation failure ends the run (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SCHEDULE_AHEAD_H
#define SPIDER_ENGINE_SCHEDULE_AHEAD_H

#include "engine_schedule.h"

#include <stddef.h>

typedef struct schedule_ahead schedule_ahead;

/* A thread with a twin of s, for runs whose steps fill n_events values.
 * NULL when no thread can be started (the caller then runs alone). */
schedule_ahead *schedule_ahead_new(const scheduler *s, uint32_t n_events);
/* Whether the thread is free to take a run (none running, none waiting
 * to be taken). */
int schedule_ahead_idle(schedule_ahead *a);
/* Starts a run of q on the thread, tagged `tag` (the caller's name for
 * the query: taken by that name).  The thread must be idle. */
void schedule_ahead_start(schedule_ahead *a, const hb_query *q, uint64_t tag);
/* Whether the run started last is tagged `tag` and not yet taken. */
int schedule_ahead_has(schedule_ahead *a, uint64_t tag);
/* Waits for that run and takes it: swaps its steps (n_events values)
 * with *value, adds the steps it cost to *spent, and returns what
 * scheduler_run() returned.  The thread is idle afterwards. */
int schedule_ahead_take(schedule_ahead *a, uint32_t **value, uint64_t *spent);
/* Drops a run that nobody will take (finished or not), so that the
 * thread may take another once it is done.  */
void schedule_ahead_drop(schedule_ahead *a);
/* Waits for a run in progress, ends the thread and frees everything. */
void schedule_ahead_free(schedule_ahead *a);

#endif
