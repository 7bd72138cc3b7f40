/*
 * spider.h — analyses, the solving engine and the report model.
 *
 * Data flows one way:  trace ──► hb_model ──► candidates ──► verdicts
 * ──► report (race groups) ──► printers.  An analysis produces candidates
 * and, from their verdicts, race groups; a printer never computes.
 *
 * Ownership: analyse() returns a report the caller frees with
 * report_free(); the report copies every string it prints, so it outlives
 * the trace and the model.
 */
#ifndef SPIDER_SPIDER_H
#define SPIDER_SPIDER_H

#include "../encode/encode.h"
#include "../traces/trace.h"

#include <stdio.h>

#define SPIDER_VERSION "0.1.0"

/* Exit statuses (SPEC §6). */
typedef enum spider_exit {
    EXIT_NO_RACE = 0,
    EXIT_RACES = 1,
    EXIT_BAD_INPUT = 2
} spider_exit;

/* ---- the solving engine --------------------------------------------------- */

/* Decides every query against Φ with `jobs` worker threads, each with its
 * own Z3 context.  answers[i] receives the answer to queries[i].  Returns
 * 0, or -1 if a solver could not be set up. */
int solve_all(const hb_model *m, const hb_query *queries, size_t n,
              hb_answer *answers, unsigned jobs, solver_tuning tuning,
              unsigned timeout_ms);

/* ---- the report model ----------------------------------------------------- */

typedef enum race_kind { RACE_DATA, RACE_MESSAGE, RACE_HANDLER,
                         RACE_KINDS } race_kind;

/* One side of an instance, copied out of the trace. */
typedef struct event_ref {
    char *thread, *location, *file;
    const char *type;                /* static kind name */
    uint32_t line;
} event_ref;

/* All dynamic instances that share locations, with one instance shown. */
typedef struct race_group {
    race_kind kind;
    char *locations[2];              /* sorted */
    char *node, *variable;           /* variable: NULL for message races */
    uint64_t count;
    event_ref first, second;         /* the instance; first has locations[0] */
    event_ref first_rcv, second_rcv; /* message races: the two receives */
} race_group;

typedef struct report_summary {
    uint32_t files, nodes, threads;
    uint64_t events, events_analyzed;
    uint64_t by_kind[EV_KIND_MAX + 1];
    trace_stats trace;
    uint32_t handlers, lock_sections;
    hb_counts constraints_by_origin;
    uint64_t constraints;
    uint64_t candidates[RACE_KINDS];
    uint64_t instances[RACE_KINDS];
    uint64_t undecided;
    handler_model handlers_model;
} report_summary;

typedef struct report_timings {
    double load, encode, solve, total;  /* seconds */
    unsigned jobs;
} report_timings;

typedef struct report {
    report_summary summary;
    report_timings timings;
    race_group *groups;              /* sorted by kind, then locations */
    size_t n_groups;
    size_t n_by_kind[RACE_KINDS];
    char **files;                    /* the trace files read */
} report;

void report_free(report *r);
const char *race_kind_title(race_kind k);

/* ---- analysis -------------------------------------------------------------- */

typedef struct analysis_options {
    handler_model handlers;
    unsigned jobs;
    solver_tuning tuning;
    unsigned timeout_ms;
} analysis_options;

/* Runs the data, message and handler race analyses on t with model m.
 * Returns NULL with a message in err when the model is unsatisfiable or a
 * solver fails. */
report *analyse(const trace *t, const hb_model *m,
                const analysis_options *opts, char *err, size_t err_len);

/* ---- printers --------------------------------------------------------------- */

typedef struct print_options {
    int quiet;                       /* text: groups only */
    int color;                       /* text: ANSI colours */
    int timings;                     /* print timings (off in golden tests) */
} print_options;

void report_print_text(const report *r, const print_options *o, FILE *out);
void report_print_json(const report *r, const print_options *o, FILE *out);

#endif
