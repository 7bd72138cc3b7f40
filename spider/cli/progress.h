/*
 * progress.h — one redrawn line on standard error while spider works:
 * bytes loaded, the events the model is built of, events pruned,
 * candidates found, the step under way
 * between finding and deciding them, candidates decided of total with
 * rate and time left.  A thread of its own redraws it at most 10 times a
 * second from counters the run updates (trace_options.bytes_read,
 * run_progress); progress_end() erases it before the report starts.
 *
 * Ownership: progress_start() returns an object progress_end() frees;
 * the counters live in it, the run only adds to them.  Fails silently:
 * no thread, no line (progress is never worth failing a run for).
 */
#ifndef SPIDER_PROGRESS_H
#define SPIDER_PROGRESS_H

#include "../spider.h"

typedef enum progress_phase { PHASE_LOAD, PHASE_CORRELATE, PHASE_MODEL,
                              PHASE_PRUNE, PHASE_SOLVE,
                              PHASE_DONE } progress_phase;

typedef struct progress progress;

/* Starts the line on out (stderr) for the inputs paths (their sizes make
 * the total of the loading phase).  NULL when it could not start. */
progress *progress_start(FILE *out, const char *const *paths, size_t n);

/* What the run updates: the loader's byte count and the engine's. */
uint64_t *progress_bytes(progress *p);
run_progress *progress_counts(progress *p);

/* A new phase; `events` is what mining correlations, building the model
 * or pruning works on (PHASE_CORRELATE, PHASE_MODEL, PHASE_PRUNE), or
 * what pruning dropped (PHASE_SOLVE: shown beside the candidates). */
void progress_phase_set(progress *p, progress_phase phase, uint64_t events);

/* A stream for warnings while the line is shown: what is written to it
 * goes to `to` once the line is erased (else each warning would break the
 * line).  Returns `to` itself when p or to is NULL or no stream can be
 * made. */
FILE *progress_hold(progress *p, FILE *to);

/* Erases the line, stops the thread, writes the held warnings, frees *pp
 * and sets it to NULL.  Does nothing when *pp is NULL, so every error path
 * may call it before it prints. */
void progress_end(progress **pp);

#endif
