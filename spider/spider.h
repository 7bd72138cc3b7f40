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

/* ---- the solving engine --------------------------------------------------- */

/* Exact answers without a solver (shortcut.c): decides what it can of the
 * queries; answers[i] becomes SAT, UNSAT, or UNKNOWN where Z3 must decide.
 * Returns 1 if Φ is satisfiable (a witness run was found), 0 if it is not
 * (the unconditional edges form a cycle), -1 if that is not known. */
typedef struct shortcut_stats {
    uint64_t unsat_ordered, unsat_locks, sat_witness, undecided;
    uint32_t nodes_skipped;          /* too many chains: left to Z3 */
} shortcut_stats;

/* A batch's sweep keeps a clock of the batch's width for every chain, twice;
 * above this many cells its queries go to Z3. */
#define SHORTCUT_MAX_CELLS ((size_t)64 << 20)

int shortcut_decide(const trace *t, const hb_model *m, handler_model hm,
                    const hb_query *q, size_t n, hb_answer *answers,
                    shortcut_stats *st);

/* Work for the solver pool: queries[order[i]] for i in units.  A unit is
 * order[unit_start[u] .. unit_start[u+1]); with stop_at_sat, a unit stops
 * at its first SAT answer and the rest of it are ANSWER_NOT_ASKED.  Each
 * unit is answered by one worker in order, so answers never depend on
 * scheduling. */
typedef struct solve_work {
    const hb_query *queries;
    const uint32_t *order;
    const uint32_t *unit_start;
    uint32_t n_units;
    const uint8_t *stop_at_sat;      /* per unit */
    const uint32_t *slices;          /* hb_model_slices(), or NULL */
    const volatile sig_atomic_t *stop; /* set: answer the rest UNKNOWN */
} solve_work;

/* Decides the work against Φ with `jobs` worker threads, each with its own
 * Z3 context.  Returns 0, or -1 if a solver could not be set up. */
int solve_all(const hb_model *m, const solve_work *w, hb_answer *answers,
              unsigned jobs, solver_tuning tuning, unsigned timeout_ms);

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
    uint64_t count;                  /* instances proven */
    uint64_t unchecked;              /* more candidates, not asked */
    uint64_t undecided;              /* candidates the solver left open */
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
    uint64_t undecided;              /* solver gave no answer (timeout) */
    int partial;                     /* interrupted: the rest undecided */
    uint64_t not_asked;              /* skipped: their group already races */
    uint64_t by_shortcut_unsat, by_shortcut_sat, by_z3;
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
const char *race_kind_title(race_kind k);

/* ---- analysis -------------------------------------------------------------- */

typedef enum solver_mode { SOLVER_AUTO, SOLVER_Z3 } solver_mode;

typedef struct analysis_options {
    handler_model handlers;
    solver_mode solver;              /* AUTO: exact shortcuts, then Z3 */
    int all_instances;               /* AUTO: decide every candidate */
    unsigned jobs;
    solver_tuning tuning;
    unsigned timeout_ms;
    const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM, or NULL */
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
