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
 * freed; owns the steps buffer of the run it holds (see take).  One
 * caller thread makes every call.  Allocation failure ends the run
 * (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_SCHEDULE_AHEAD_H
#define SPIDER_ENGINE_SCHEDULE_AHEAD_H

#include "engine_schedule.h"

typedef struct schedule_ahead schedule_ahead;

/* A thread with a twin of s, for runs whose steps fill n_events values.
 * NULL when no thread can be started (the caller then runs alone). */
schedule_ahead *schedule_ahead_new(const scheduler *s, uint32_t n_events);
/* Whether the thread is free to take a run (none running, none waiting
 * to be taken). */
int schedule_ahead_idle(schedule_ahead *a);
/* Starts a run of q (copied) on the thread, tagged `tag` (the caller's
 * name for the query: taken by that name).  The thread must be idle. */
void schedule_ahead_start(schedule_ahead *a, const hb_query *q, uint64_t tag);
/* Whether the run started last is tagged `tag` and not yet taken. */
int schedule_ahead_has(schedule_ahead *a, uint64_t tag);
/* Waits for the run that schedule_ahead_has() just named and takes it:
 * swaps its steps with *value (a buffer of n_events + 1 values from
 * util/alloc.h, which the thread then owns and frees), adds the steps
 * the run cost to *spent, and returns what scheduler_run() returned.
 * The thread is idle afterwards.  Only after has() said yes: otherwise
 * it would wait for nothing. */
int schedule_ahead_take(schedule_ahead *a, uint32_t **value, uint64_t *spent);
/* Drops a run that nobody will take: not begun, it never runs; running,
 * it is cancelled (scheduler_twin()); the thread is idle once it ends. */
void schedule_ahead_drop(schedule_ahead *a);
/* Cancels a run in progress, waits for it, ends the thread and frees
 * everything.  NULL: nothing. */
void schedule_ahead_free(schedule_ahead *a);

#endif
