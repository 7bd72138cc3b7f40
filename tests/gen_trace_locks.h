/*
 * gen_trace_locks.h — gen-trace's lock-heavy shape (gen_trace_locks.c).
 */
#ifndef SPIDER_GEN_TRACE_LOCKS_H
#define SPIDER_GEN_TRACE_LOCKS_H

#include <stdint.h>

typedef struct gen_locks_options {
    uint64_t seed;
    int nodes, threads, locks, vars;
    long events;                 /* about this many events in all */
    int cut_percent;             /* a section left without its UNLOCK */
    int handoff_percent;         /* of message steps: a hand-off to another
                                    worker of the node (0: none, the shape
                                    of benchmarks/RESULTS.md) */
    const char *dir, *merged;    /* -o DIR (a file per node) or one file */
} gen_locks_options;

/* What the trace hit, for the coverage line. */
enum { GEN_LOCKS_NESTED, GEN_LOCKS_REENTRANT, GEN_LOCKS_CUT,
       GEN_LOCKS_OPEN_AT_END, GEN_LOCKS_WAITS, GEN_LOCKS_MESSAGES,
       GEN_LOCKS_HITS };

/* Writes the trace; 0, or 2 after a message on stderr when a file cannot
 * be written. */
int gen_locks(const gen_locks_options *o, long hits[GEN_LOCKS_HITS]);

#endif
