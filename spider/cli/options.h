/*
 * options.h — the spider command's options: what the command line asks
 * for (cli), parsed by cli_parse() with getopt_long, --help's text.
 *
 * Ownership: a cli borrows its strings from argv; nothing to free.
 */
#ifndef SPIDER_CLI_OPTIONS_H
#define SPIDER_CLI_OPTIONS_H

#include "../spider.h"
#include "../analysis/correlation.h"

#include "learn.h"
#include "select.h"

enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_SHIVIZ };

typedef struct cli {
    int format;                      /* FORMAT_* */
    handler_model handlers;
    trace_order order;
    unsigned jobs;
    unsigned ranks;                  /* --ranks: 1 = not split */
    int color_auto;                  /* --color=auto (the default) */
    int helper;                      /* a rank of an MPI job but rank 0 */
    unsigned batch_chains;           /* --batch-chains: 0 = the default */
    const char *emit_smt2;
    int lenient, quiet, timings, color;
    unsigned timeout_ms;
    unsigned eager_locks;            /* --eager-locks */
    solver_tuning tuning;
    solver_mode solver;
    int all_instances;
    int no_prune;
    int atomicity;
    unsigned patterns;
    atomic_region region;
    unsigned limit;                  /* --limit */
    const char *source_root;         /* --source-root */
    const char *baseline;            /* --baseline */
    const char *suppressions;        /* --suppressions */
    group_filter filter;             /* --kind, --node, --match */
    int progress;                    /* --progress: 0 auto, 1 always, 2 never */
    int multi_variable;              /* --multi-variable */
    int multi_variable_races;        /* --multi-variable-races */
    int inconsistent_updates;        /* --inconsistent-updates */
    int list_correlations;           /* --list-correlations */
    correlation_options correlation; /* --correlated, --max-distance, ... */
    int correlation_options_set;     /* --max-distance or --min-support */
    int witness;                     /* --witness */
    const char *html;                /* --html=FILE */
    const char *learn;               /* --learn=FILE */
    const char *invariants;          /* --invariants=FILE */
    invariant_rule invariant_rule;   /* --invariant-min-runs, -threshold */
    int only_invariant_violations;
} cli;

/* Parses argv (defaults first) into c.  Returns -1 when the command goes
 * on, with the traces in argv[*first .. argc); else the exit status to end
 * with: EXIT_NO_RACE after --help or --version, EXIT_BAD_INPUT after a
 * message on standard error naming the option. */
int cli_parse(cli *c, int argc, char **argv, int *first);

#endif
