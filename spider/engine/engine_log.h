/*
 * engine_log.h — what a rank's share of generate_batch did, as a log of
 * the engine calls it made (engine_log.c), for a run split over ranks
 * (engine_ranks.h).
 *
 * A rank generates the batches it owns with the log set on its run
 * (engine_internal.h): engine_add(), engine_record_sat() and the other
 * calls of engine.h append an entry here instead of changing the run,
 * and rank 0 replays every rank's entries, batch by batch in batch
 * order, as those calls on its own run.  So the candidates, counts and
 * groups come in the order one process makes them, and the report is
 * byte for byte the one process's.
 *
 * Groups: a rank knows only the groups of its own batches.  Its log
 * numbers them in the order it first meets them (LOG_GROUP entries, in
 * that order), and rank 0 maps those numbers to its own groups as it
 * replays.  Whether a group already holds (engine_skips()) is answered
 * from what the rank knows: the run as `generate` left it and its own
 * batches.  That is never more than one process knows at that point, so
 * a rank may add a candidate that one process counts unchecked at once;
 * deciding leaves such a candidate unasked (pick_for_solver(), the same
 * rule), and the counts are the same.
 *
 * Ownership: a log borrows the trace, the analyses and the run's grouper
 * until engine_log_free().  Allocation failure ends the run
 * (util/alloc.h).
 */
#ifndef SPIDER_ENGINE_LOG_H
#define SPIDER_ENGINE_LOG_H

#include "engine_group.h"

typedef enum log_op {
    LOG_BATCH,       /* the entries after it are batch `batch`'s */
    LOG_ADD,         /* engine_add(kind, ev, rank, dedupable) */
    LOG_GROUP,       /* the log's next group number is engine_group(kind, ev) */
    LOG_SAT,         /* engine_record_sat(kind, group, ev, rank, n) */
    LOG_UNCHECKED,   /* engine_record_unchecked(kind, group, n) */
    LOG_UNSAT,       /* engine_count_unsat(kind, n) */
    LOG_COUNT,       /* engine_count(kind, ev, n) */
    LOG_NOTE,        /* engine_note(kind, v) */
} log_op;

typedef struct log_entry {
    log_op op;
    race_kind kind;
    uint32_t batch, group, rank, dedupable;
    uint32_t ev[GROUP_EVENTS];
    uint32_t v[3];
    uint64_t n;
} log_entry;

typedef struct batch_log {
    uint32_t *w;                     /* the entries, as words */
    size_t n, cap;
    grouper *groups;                 /* by the log's numbers */
    const grouper *run_groups;       /* the run's, as `generate` left them */
} batch_log;

batch_log *engine_log_new(const grouper *run_groups);
void engine_log_free(batch_log *log);

void engine_log_batch(batch_log *log, uint32_t batch);
void engine_log_add(batch_log *log, race_kind kind, const uint32_t *ev,
                    uint32_t rank, int dedupable);
/* The log's number of the group of ev (a LOG_GROUP entry when new). */
uint32_t engine_log_group(batch_log *log, race_kind kind, const uint32_t *ev);
/* Whether group (the log's number) holds at a rank no higher than rank,
 * as far as the log and the run it was made from know. */
int engine_log_holds(const batch_log *log, uint32_t group, uint32_t rank);
void engine_log_sat(batch_log *log, race_kind kind, uint32_t group,
                    const uint32_t *ev, uint32_t rank, uint64_t n);
void engine_log_unchecked(batch_log *log, race_kind kind, uint32_t group,
                          uint64_t n);
void engine_log_unsat(batch_log *log, race_kind kind, uint64_t n);
void engine_log_count(batch_log *log, race_kind kind, const uint32_t *ev,
                      uint64_t n);
void engine_log_note(batch_log *log, race_kind kind, const uint32_t v[3]);

/* Reads the entry at w[*at] of a log of n words into e and moves *at
 * past it; the analyses say how many events each kind's entries hold.
 * Returns 0, or -1 when the words end inside an entry or name no entry
 * (never expected: the log is the same build's). */
int engine_log_read(const uint32_t *w, size_t n, size_t *at,
                    const analysis *const *analyses, log_entry *e);

#endif
