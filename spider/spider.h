/*
 * spider.h — analyses, the solving engine and the report model.
 *
 * Data flows one way:  trace ──► hb_model ──► candidates ──► verdicts
 * ──► report (race groups) ──► printers.  An analysis produces candidates
 * and, from their verdicts, race groups (spider/engine/engine.h: the engine and
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

#include <stdatomic.h>
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
                         RACE_ATOMICITY, RACE_MULTIVAR, RACE_MVRACE,
                         RACE_INCONSISTENT, RACE_KINDS } race_kind;

/* With --baseline (spider/cli/baseline.h): whether a previous report already
 * had the group. */
typedef enum baseline_state { BASELINE_NONE, BASELINE_NEW,
                              BASELINE_KNOWN } baseline_state;

/* With --invariants (spider/analysis/invariants.h): what the passing runs
 * learnt from say of an atomicity or multi-variable group's region. */
typedef enum invariant_state {
    INVARIANT_NOT_ASKED = 0,         /* no --invariants, or another kind */
    INVARIANT_HOLDS,                 /* an invariant: the group violates it */
    INVARIANT_SEEN,                  /* interleaved in passing runs: likely
                                        benign */
    INVARIANT_UNLEARNT               /* executed in too few passing runs */
} invariant_state;

struct event_context;

/* One event of an instance or a witness, copied out of the trace. */
typedef struct event_ref {
    char *thread, *location, *file;
    char *node;                      /* its thread's node */
    char *object;                    /* what it acts on: the variable, lock,
                                        condition, message id or thread;
                                        NULL if nothing */
    const char *type;                /* static kind name */
    uint32_t line;
    uint32_t index;                  /* 0-based position in its thread's
                                        program order */
    struct event_context *context;   /* the shown instance's events; NULL
                                        in a witness */
} event_ref;

/* Where an event runs and what it holds, as ThreadSanitizer says it
 * ("mutexes: write M1", "thread T1 created at"): for the events of each
 * group's shown instance (spider/engine/context.c computes it). */
typedef struct event_context {
    char **locks;                    /* names of the locks held (outermost
                                        section first), n_locks of them */
    uint32_t n_locks;
    event_ref *handler;              /* its innermost handler's HANDLERBEGIN,
                                        or NULL outside handlers */
    char *message;                   /* that handler's message id, or NULL */
    event_ref *sender;               /* the message's SND, or NULL when not
                                        in a handler or not in the trace */
    event_ref *created;              /* the CREATE of its thread, or NULL
                                        (a thread nobody created) */
} event_context;

/* Free what an event_ref or context holds (a context's refs, and the
 * context itself: event_context_free(NULL) does nothing); the ref's own
 * memory is its holder's. */
void event_ref_free(event_ref *e);
void event_context_free(event_context *c);

/* One event of a witness (SPEC §4 "Witness"): a run that exhibits the
 * group's shown instance, cut to what a person needs. */
typedef struct witness_step {
    event_ref event;                 /* event.context is NULL */
    uint32_t step;                   /* 1, 2, ...: its time in the run;
                                        equal steps happen at once (the
                                        two accesses of a data race) */
    int8_t role;                     /* which event of the instance it is
                                        (index into race_group.events), or
                                        -1 for an event it waits on */
    int32_t peer;                    /* index into the witness of the event
                                        this one waits on across threads
                                        (the SND of a RCV, the UNLOCK before
                                        a LOCK, the CREATE before a thread's
                                        first event ...), or -1 */
} witness_step;

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
    char *variable_y;                /* multi-variable: a2's variable (y) */
    char pattern[24];                /* atomicity: types of p, r, c;
                                        multi-variable: "Rx..Wy / Wx,Ry";
                                        multi-variable race: "Wx..Wy / Rx";
                                        inconsistent: "W(x) => A(y)" */
    uint32_t rule_support;           /* inconsistent updates: the rule's */
    double rule_confidence;          /* support and confidence */
    uint64_t count;                  /* instances proven */
    uint64_t unchecked;              /* more candidates, not asked */
    uint64_t undecided;              /* candidates the solver left open */
    uint8_t ranked;                  /* its kind ranks instances by gap */
    uint8_t baseline;                /* baseline_state (--baseline) */
    uint8_t invariant;               /* invariant_state (--invariants) */
    uint32_t runs_executed;          /* --invariants: passing runs that */
    uint32_t runs_interleaved;       /* executed, and interleaved, its region */
    uint32_t gap;                    /* the smallest local gap (CTrigger) */
    event_ref events[GROUP_EVENTS];  /* the instance shown */
    uint32_t n_events;
    witness_step *witness;           /* --witness: a run showing the
                                        instance, in order; NULL if not
                                        asked (or not found: undecided) */
    uint32_t n_witness;
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
    double correlate;                /* mining correlated pairs (seconds) */
    unsigned jobs;
    unsigned shares;                 /* ranks that analysed only their share
                                        of the trace (a split run), or 0 */
} report_timings;

/* A pair of correlated variables the multi-variable analysis used. */
typedef struct correlation_ref {
    char *node, *x, *y;
    double distance;                 /* NAN: the pair has no gap */
    uint32_t support;
    const char *source;              /* "mined", "given", "both", "muvi", ...
                                        (correlation_source_name()) */
    char *rule;                      /* MUVI's strongest rule of the pair,
                                        "W(x) => A(y)" with their names, or
                                        NULL */
    uint32_t rule_support;           /* its functions */
    double rule_confidence;
} correlation_ref;

typedef struct report {
    report_summary summary;
    correlation_ref *correlations;   /* with --multi-variable */
    size_t n_correlations;
    report_timings timings;
    race_group *groups;              /* sorted by kind, then locations */
    size_t n_groups;
    size_t n_by_kind[RACE_KINDS];    /* groups with a proven race */
    race_group *open;                /* groups with undecided candidates only */
    size_t n_open;
    char witness_failure[256];       /* --witness: why the groups after some
                                        point have none (a solver failure;
                                        the report stands), or "" */
} report;

void report_free(report *r);
/* Frees what one group holds (its strings, events, witness); the group's
 * own memory is its holder's. */
void race_group_free(race_group *g);
/* Frees every group's witness (--html needs them, the report on standard
 * output shows them only with --witness). */
void report_drop_witnesses(report *r);
/* Frees the groups whose drop flag is set (drop_groups by r->groups,
 * drop_open by r->open; either may be NULL) and closes the gaps, keeping
 * the order; n_by_kind follows.  The summary is left as decided. */
void report_drop_groups(report *r, const uint8_t *drop_groups,
                        const uint8_t *drop_open);
/* What --invariants says of g, for people: "seen in passing runs:
 * interleaved in 7 of the 20 that executed it", or "" when not asked.
 * Writes into buf (always terminated) and returns it. */
char *race_group_invariant_text(const race_group *g, char *buf, size_t len);
/* The JSON name of an invariant_state: "holds", "seen", "unlearnt" (NULL
 * for INVARIANT_NOT_ASKED). */
const char *invariant_state_name(invariant_state s);
/* A kind's title ("Data races") and JSON key ("data_races"), from the
 * table in report.c. */
const char *race_kind_title(race_kind k);
const char *race_kind_key(race_kind k);
/* Whether r ran a kind that reads correlated pairs (--multi-variable,
 * --multi-variable-races): then it lists them. */
int report_uses_correlations(const report *r);
/* Names derived from those (spider/report/kinds.c), so that a new kind needs no
 * edit here: the stem of the key with '-' for '_' ("data",
 * "multi-variable"; the whole key where an earlier kind has that stem:
 * "multi-variable-races"), the title in lower case, singular or plural ("data
 * race", "data races").  Both write into buf (always terminated) and
 * return it. */
char *race_kind_stem(race_kind k, char *buf, size_t len);
char *race_kind_noun(race_kind k, uint64_t n, char *buf, size_t len);
/* The kind a user names: its key, its stem, or the stem with '_' for '-';
 * RACE_KINDS if none. */
race_kind race_kind_by_name(const char *name, size_t len);

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

/* Counters a progress line reads while the run goes on (spider/
 * progress.h): candidates decided, of total.  The run only stores them. */
typedef struct run_progress {
    _Atomic uint64_t done, total;
    _Atomic uint64_t found;          /* candidates found so far, while the
                                        analyses generate (total is 0) */
    /* a step between finding and deciding that takes seconds on hundreds
     * of millions of candidates: its name (a string constant) or NULL,
     * and how far it is */
    _Atomic(const char *) step;
    _Atomic uint64_t step_done, step_total;
} run_progress;

/* Posts step `what` (a string constant; NULL: none) at done of total to
 * progress, if not NULL. */
static inline void run_progress_step(run_progress *progress, const char *what,
                                     uint64_t done, uint64_t total)
{
    if (!progress)
        return;
    atomic_store(&progress->step_total, total);
    atomic_store(&progress->step_done, done);
    atomic_store(&progress->step, what);
}

/* How to analyse (the handler model is the model's own: hb_model). */
typedef struct analysis_options {
    solver_mode solver;              /* AUTO: exact shortcuts, then Z3 */
    int all_instances;               /* AUTO: decide every candidate */
    unsigned jobs;
    solver_tuning tuning;
    unsigned timeout_ms;
    const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM, or NULL */
    /* Or NULL: set to 1 when, after a stop, a Z3 call that did not heed
     * the interrupt was left running (engine_pool.c).  It may still read
     * the model: the caller must then free neither the model nor the
     * trace, and end the process with _exit once the report is out. */
    int *abandoned;
    run_progress *progress;          /* or NULL */
    int atomicity;                   /* --atomicity */
    unsigned patterns;               /* PATTERN_BIT set */
    atomic_region region;
    int multi_variable;              /* --multi-variable */
    int multi_variable_races;        /* --multi-variable-races */
    int witness;                     /* --witness (and --html, shiviz) */
    const struct correlation *correlation; /* its pairs (correlation.h) */
    int inconsistent_updates;        /* --inconsistent-updates */
    const struct muvi_rule *muvi_rules; /* MUVI's rules, for it */
    size_t n_muvi_rules;
    /* The run split over ranks (engine_ranks.h): comm, this process's
     * place in an MPI job (util/comm.h; NULL: one process), or ranks > 1
     * ranks as threads of this process.  Only rank 0's report is whole;
     * the others' hold no groups. */
    struct comm *comm;
    unsigned ranks;
    unsigned batch_chains;           /* --batch-chains (0: 128) */
} analysis_options;

/* Runs every analysis that opts turns on (spider/analysis/analyses.c lists them) on
 * t with model m, making m's deferred waits when Z3 needs them
 * (hb_model_add_waits()).
 * Returns NULL with a message in err when the model is unsatisfiable or a
 * solver fails. */
report *analyse(const trace *t, hb_model *m,
                const analysis_options *opts, char *err, size_t err_len);

struct comm;
/* analyse() split over the ranks of c, each holding only its share s of
 * the trace (trace_load_share()) with m, Φ of s->t pruned as the run
 * has it (pruning's stats counted over own events: prune_options'
 * uncounted), and out its outside (hb_skeleton_outside(), freed here):
 * spider/engine/engine_share.h.  Every rank alike returns 0 with rank 0's
 * report in *rep (NULL elsewhere; one process's, byte for byte), 1 when
 * the share cannot decide the run (analyse the whole trace), or -1 with
 * err. */
int analyse_share(const trace_share *s, hb_model *m, hb_outside *out,
                  const prune_stats *pruning, const analysis_options *opts,
                  struct comm *c, report **rep, char *err, size_t err_len);

/* ---- printers --------------------------------------------------------------- */

/* One line of a --suppressions file and how many groups it dropped. */
typedef struct suppression_use {
    const char *text;                /* "data:Foo.*" as written */
    unsigned line;
    uint64_t groups;
} suppression_use;

/* What selecting (--suppressions, --kind, --node, --match, --baseline) did
 * to the report after it was decided; the printers show it. */
typedef struct report_notes {
    uint64_t suppressed[RACE_KINDS]; /* groups dropped by suppressions */
    uint64_t hidden[RACE_KINDS];     /* groups dropped by the filters */
    unsigned kinds;                  /* --kind: bit 1 << race_kind, 0 = all */
    const char *suppressions;        /* the file, or NULL */
    const suppression_use *rules;
    size_t n_rules;
    const char *baseline;            /* the baseline report, or NULL */
    uint64_t new_groups, known_groups;
    const char *invariants;          /* --invariants: the file, or NULL */
    uint32_t invariant_runs;         /* the passing runs it learnt from */
    uint32_t invariant_min_runs, invariant_threshold;
    int only_invariant_violations;   /* --only-invariant-violations */
    uint64_t by_invariant[4];        /* groups shown, by invariant_state */
    uint64_t not_invariant[RACE_KINDS]; /* groups dropped by
                                        --only-invariant-violations */
} report_notes;

typedef struct print_options {
    int quiet;                       /* text: groups only */
    int color;                       /* text: ANSI colours */
    int timings;                     /* print timings (off in golden tests) */
    unsigned limit;                  /* text: groups shown per kind, 0 = all */
    const char *source_root;         /* sarif: --source-root, or NULL */
    const report_notes *notes;       /* NULL: nothing was selected */
} print_options;

/* The JSON report's format version: a baseline (spider/cli/baseline.h) of
 * another major version is refused. */
#define REPORT_FORMAT_VERSION "1.0"

void report_print_text(const report *r, const print_options *o, FILE *out);
void report_print_json(const report *r, const print_options *o, FILE *out);
/* SARIF 2.1.0 (spider/report/report_sarif.c, docs/report.md). */
void report_print_sarif(const report *r, const print_options *o, FILE *out);
/* One self-contained HTML page (spider/report/report_html.c): summary, a table of
 * groups with filters, and a space-time diagram of each witness.  Write
 * errors show in ferror(out). */
void report_print_html(const report *r, const print_options *o, FILE *out);
/* A ShiViz log (spider/report/report_shiviz.c): the witnesses' events with vector
 * clocks, one execution per group (README: the regular expression). */
void report_print_shiviz(const report *r, const print_options *o, FILE *out);
/* A group as the JSON report shows it (a cJSON object the caller frees
 * with cJSON_Delete), without its baseline state: baselines, fingerprints
 * and filters read groups through it, so that they see every field a kind
 * has. */
struct cJSON *report_group_json(const race_group *g);
/* The correlated pairs as a JSON array (summary.correlated_pairs, and
 * --list-correlations); the caller frees it with cJSON_Delete. */
struct cJSON *report_correlations_json(const correlation_ref *c, size_t n);
/* --list-correlations: one line per pair (text), or {"correlated_pairs":
 * [...]} (json).  Returns 0, or -1 when writing failed. */
int report_correlations_print(const correlation_ref *refs, size_t n, int json,
                              FILE *out);

#endif
