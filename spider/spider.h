/*
 * spider.h — analyses, the solving engine and the report model.
 *
 * Data flows one way:  trace ──► hb_model ──► candidates ──► verdicts
 * ──► report (race groups) ──► printers.  An analysis produces candidates
 * and, from their verdicts, race groups (spider/engine.h: the engine and
 * how an analysis plugs in); a printer never computes.
 *
 * Ownership: analyse() returns a report the caller frees with
 * report_free(); the report copies every string it prints, so it outlives
 * the trace and the model.
 */
#ifndef SPIDER_SPIDER_H
#define SPIDER_SPIDER_H

#include "../encode/encode.h"
#include "../prune/prune.h"
#include "../traces/trace.h"

#include <signal.h>
#include <stdio.h>

#define SPIDER_VERSION "0.1.0"

/* Exit statuses (SPEC §6). */
typedef enum spider_exit {
    EXIT_NO_RACE = 0,
    EXIT_RACES = 1,
    EXIT_BAD_INPUT = 2,
    EXIT_INCOMPLETE = 3              /* undecided candidates, or interrupted */
} spider_exit;

/* ---- the report model ----------------------------------------------------- */

typedef enum race_kind { RACE_DATA, RACE_MESSAGE, RACE_HANDLER,
                         RACE_ATOMICITY, RACE_KINDS } race_kind;

/* One event of an instance, copied out of the trace. */
typedef struct event_ref {
    char *thread, *location, *file;
    const char *type;                /* static kind name */
    uint32_t line;
    uint32_t index;                  /* 0-based position in its thread's
                                        program order */
} event_ref;

enum { GROUP_EVENTS = 4 };

/* All dynamic instances that share locations, with one instance shown.
 * The instance's events by kind: data and handler races: the two
 * accesses, locations[0]'s first; message races: the two sends, then
 * their two receives; atomicity violations: p, r, c. */
typedef struct race_group {
    race_kind kind;
    char *locations[GROUP_EVENTS];   /* pairs sorted; atomicity: p, r, c */
    uint32_t n_locations;
    char *node, *variable;           /* variable: NULL for message races */
    char pattern[4];                 /* atomicity: types of p, r, c */
    uint64_t count;                  /* instances proven */
    uint64_t unchecked;              /* more candidates, not asked */
    uint64_t undecided;              /* candidates the solver left open */
    uint8_t ranked;                  /* its kind ranks instances by gap */
    uint32_t gap;                    /* the smallest local gap (CTrigger) */
    event_ref events[GROUP_EVENTS];  /* the instance shown */
    uint32_t n_events;
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
    uint64_t undecided;              /* solver gave no answer (timeout) */
    int partial;                     /* interrupted: the rest undecided */
    uint64_t not_asked;              /* skipped: their group already races */
    uint64_t by_shortcut_unsat, by_shortcut_sat, by_z3;
    uint8_t enabled[RACE_KINDS];     /* the analyses that ran */
    int solver_all;                  /* --solver=z3 */
    handler_model handlers_model;
    int pruned;                      /* pruning was on */
    prune_stats pruning;
} report_summary;

typedef struct report_timings {
    double load, prune, encode, solve, total;  /* seconds */
    unsigned jobs;
} report_timings;

typedef struct report {
    report_summary summary;
    report_timings timings;
    race_group *groups;              /* sorted by kind, then locations */
    size_t n_groups;
    size_t n_by_kind[RACE_KINDS];    /* groups with a proven race */
    race_group *open;                /* groups with undecided candidates only */
    size_t n_open;
} report;

void report_free(report *r);
/* A kind's title ("Data races") and JSON key ("data_races"). */
const char *race_kind_title(race_kind k);
const char *race_kind_key(race_kind k);

/* ---- analysis -------------------------------------------------------------- */

typedef enum solver_mode { SOLVER_AUTO, SOLVER_Z3 } solver_mode;

/* --atomic-region: where p and c must lie (SPEC §4, docs/model.md). */
typedef enum atomic_region { REGION_ACCESS, REGION_LOCK,
                             REGION_HANDLER } atomic_region;

/* Atomicity patterns as a bit set: bit (p << 2 | r << 1 | c), 1 = W. */
#define PATTERN_BIT(p, r, c) (1u << ((p) << 2 | (r) << 1 | (c)))
#define PATTERNS_AVIO                                                     \
    (PATTERN_BIT(0, 1, 0) | PATTERN_BIT(1, 1, 0) | PATTERN_BIT(1, 0, 1) | \
     PATTERN_BIT(0, 1, 1))          /* RWR, WWR, WRW, RWW */

/* How to analyse (the handler model is the model's own: hb_model). */
typedef struct analysis_options {
    solver_mode solver;              /* AUTO: exact shortcuts, then Z3 */
    int all_instances;               /* AUTO: decide every candidate */
    unsigned jobs;
    solver_tuning tuning;
    unsigned timeout_ms;
    const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM, or NULL */
    int atomicity;                   /* --atomicity */
    unsigned patterns;               /* PATTERN_BIT set */
    atomic_region region;
} analysis_options;

/* Runs every analysis that opts turns on (spider/engine.h lists them) on
 * t with model m.
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
