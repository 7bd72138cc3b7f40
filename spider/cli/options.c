/*
 * options.c — the spider command's options (options.h): --help's text,
 * the getopt_long table, and what each option sets.
 */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: spider [options] TRACE...\n"
    "Finds data races, message races and handler races (and, on request,\n"
    "atomicity violations) in traces of a distributed system (Falcon JSON:\n"
    "files, or directories of files).\n"
    "\n"
    "  -f, --format=text|json|sarif|shiviz\n"
    "                              report format (default text); sarif: SARIF\n"
    "                              2.1.0 for code-scanning services; shiviz: a\n"
    "                              log with vector clocks for ShiViz (the\n"
    "                              witnesses; see the README)\n"
    "      --witness               show for each group a run that exhibits its\n"
    "                              instance: the events in an order Φ allows,\n"
    "                              with what each waits on in other threads\n"
    "      --html=FILE             also write a self-contained HTML report\n"
    "                              (groups, filters, a space-time diagram of\n"
    "                              each witness); implies --witness\n"
    "      --source-root=DIR       sarif: where a.b.C.m.12 is a/b/C.java line 12\n"
    "      --handlers=nested|floating\n"
    "                              a handler ends before the thread's next\n"
    "                              event (nested, default) or floats (thesis)\n"
    "      --order=file|timestamp  program order: input order (default) or\n"
    "                              each thread stable-sorted by timestamp\n"
    "  -j, --jobs=N                worker threads: loading, solver, shortcut sweeps,\n"
    "                              scheduling ahead (default: CPUs)\n"
    "      --ranks=N               split the analysis as bin/spider-mpi does\n"
    "                              over N ranks, here threads of this process\n"
    "                              (the same report; default 1)\n"
    "      --batch-chains=N        nodes are swept in batches of at most N\n"
    "                              threads and handlers (default 128): more,\n"
    "                              smaller batches to deal out to ranks\n"
    "      --solver=auto|z3        auto (default): exact shortcuts, Z3 for the\n"
    "                              rest; z3: Z3 decides every candidate\n"
    "      --all-instances         decide every candidate, so that counts are\n"
    "                              exact (auto skips candidates of groups\n"
    "                              already proven racy)\n"
    "      --no-prune              analyse every event (pruning changes no race\n"
    "                              group, only instance counts)\n"
    "      --atomicity             also report atomicity violations: an access\n"
    "                              of another thread can fall between two\n"
    "                              consecutive accesses p, c of a context\n"
    "      --atomicity-patterns=LIST\n"
    "                              the types (p, r, c) to report, comma-\n"
    "                              separated from RRR RRW RWR RWW WRR WRW WWR\n"
    "                              WWW, or 'all' (default RWR,WWR,WRW,RWW:\n"
    "                              AVIO's unserializable ones)\n"
    "      --atomic-region=access|lock|handler\n"
    "                              p and c: consecutive accesses (default),\n"
    "                              also in one critical section, or in one\n"
    "                              message handler\n"
    "      --multi-variable        also report multi-variable atomicity\n"
    "                              violations (Sun): a1 on x and a2 on y\n"
    "                              consecutive in a context, bx and by of\n"
    "                              another thread can both fall between them,\n"
    "                              for correlated variables x, y of a node\n"
    "      --multi-variable-races  also report multi-variable races (MUVI): an\n"
    "                              access r of another thread, conflicting with\n"
    "                              p on x, can fall between p and c, consecutive\n"
    "                              accesses to correlated x and y of a context\n"
    "      --correlated=FILE       correlated pairs to use besides the mined\n"
    "                              ones: lines 'NODE X Y' or '* X Y', # comments\n"
    "      --max-distance=D        mining: a pair's mean gap at most D (default 5)\n"
    "      --min-support=N         mining: at least N gaps kept (default 3)\n"
    "      --list-correlations     print the correlated pairs (mined and given)\n"
    "                              with distance and support, and stop\n"
    "      --correlation=sun|muvi|both\n"
    "                              the miner: Sun's gap distance (default), MUVI's\n"
    "                              access rules A1(x) => A2(y) over the functions\n"
    "                              of the locations (a.b.C.m.12: a.b.C.m), or both\n"
    "      --muvi-min-support=N    MUVI: a rule's functions at least N (default 3)\n"
    "      --muvi-min-confidence=C MUVI: its confidence at least C (default 0.8)\n"
    "      --muvi-max-lines=L      MUVI: together when at most L lines apart in a\n"
    "                              function (default 10)\n"
    "      --muvi-popular=N        MUVI: leave out variables accessed in more\n"
    "                              than N functions (default 100)\n"
    "      --inconsistent-updates  also report MUVI's inconsistent updates: a\n"
    "                              write of x in a function that never accesses\n"
    "                              y, where MUVI's rule W(x) => A(y) holds\n"
    "      --learn=FILE            learn from passing runs instead (AVIO): each\n"
    "                              TRACE (a file or a directory) is one run;\n"
    "                              the regions they execute and interleave are\n"
    "                              added to FILE (made if missing)\n"
    "      --invariants=FILE       mark atomicity and multi-variable groups by\n"
    "                              what the passing runs of FILE say of their\n"
    "                              region: violates an invariant, seen in\n"
    "                              passing runs, or not learnt\n"
    "      --invariant-threshold=T an invariant was interleaved in at most T\n"
    "                              passing runs (default 0)\n"
    "      --invariant-min-runs=N  and executed in at least N (default 1)\n"
    "      --only-invariant-violations\n"
    "                              drop the groups that violate no invariant\n"
    "      --emit-smt2=FILE        write the model as SMT-LIB2 (QF_IDL)\n"
    "      --lenient               skip bad events with a warning\n"
    "      --timeout-ms=N          per-query solver timeout (0 = none)\n"
    "      --eager-locks=N         Z3 gets the mutual-exclusion clauses of a\n"
    "                              lock with at most N of them at once (default\n"
    "                              1024); a larger lock's only when a model\n"
    "                              breaks them (0: always that way). Same answers\n"
    "      --z3-config=fast|default\n"
    "                              Z3 set-up: difference-logic engine (fast,\n"
    "                              default) or Z3's defaults (slow; for checks)\n"
    "      --z3-param=NAME=VALUE   set a Z3 global parameter (z3 -p lists them),\n"
    "                              e.g. memory_max_size=4096 (MB); repeatable.\n"
    "                              A Z3 failure is an error (exit status 2)\n"
    "      --baseline=REPORT.json  mark groups a previous JSON report has as\n"
    "                              known, the others new; exit status 1 only\n"
    "                              for new groups\n"
    "      --suppressions=FILE     drop groups: lines KIND:GLOB (data, message,\n"
    "                              handler, atomicity, ...: any location),\n"
    "                              variable:GLOB, node:GLOB; # comments\n"
    "      --kind=LIST             show these kinds only (data,message,...)\n"
    "      --node=NODE             show groups of this node only (a glob)\n"
    "      --match=PATTERN         show groups a location or variable of which\n"
    "                              matches this glob\n"
    "      --limit=N               text: at most N groups per kind\n"
    "      --progress=auto|always|never\n"
    "                              a progress line on standard error (auto:\n"
    "                              when it is a terminal, not with -q)\n"
    "      --no-timings            leave timings out of the report\n"
    "      --color=auto|always|never\n"
    "  -q, --quiet                 no warnings; text report lists races only\n"
    "  -h, --help                  this help\n"
    "  -V, --version               the version\n"
    "\n"
    "Exit status: 0 nothing found, 1 races (or atomicity violations) found,\n"
    "2 bad usage, bad input, a solver failure or no memory left,\n"
    "3 incomplete: some candidates undecided (timeout) or interrupted.\n";

enum { OPT_HANDLERS = 256, OPT_ORDER, OPT_SMT2, OPT_LENIENT, OPT_TIMEOUT,
       OPT_Z3, OPT_NO_TIMINGS, OPT_COLOR, OPT_SOLVER, OPT_ALL, OPT_NO_PRUNE,
       OPT_ATOMICITY, OPT_PATTERNS, OPT_REGION, OPT_Z3_PARAM, OPT_SOURCE_ROOT,
       OPT_BASELINE, OPT_SUPPRESSIONS, OPT_KIND, OPT_NODE, OPT_MATCH,
       OPT_LIMIT, OPT_PROGRESS, OPT_EAGER_LOCKS, OPT_RANKS,
       OPT_BATCH_CHAINS };

/* Explaining races (issue 12): a range of their own. */
enum { OPT_WITNESS = 768, OPT_HTML };

/* Learning from passing runs (a range of their own). */
enum { OPT_LEARN = 1024, OPT_INVARIANTS, OPT_INVARIANT_THRESHOLD,
       OPT_INVARIANT_MIN_RUNS, OPT_ONLY_INVARIANT_VIOLATIONS };

/* The multi-variable analysis's options (a range of their own). */
enum { OPT_MULTIVAR = 512, OPT_CORRELATED, OPT_MAX_DISTANCE, OPT_MIN_SUPPORT,
       OPT_LIST_CORRELATIONS, OPT_CORRELATION, OPT_MUVI_MIN_SUPPORT,
       OPT_MUVI_MIN_CONFIDENCE, OPT_MUVI_MAX_LINES, OPT_MUVI_POPULAR,
       OPT_INCONSISTENT, OPT_MVRACES };

static const struct option long_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"handlers", required_argument, NULL, OPT_HANDLERS},
    {"order", required_argument, NULL, OPT_ORDER},
    {"jobs", required_argument, NULL, 'j'},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"batch-chains", required_argument, NULL, OPT_BATCH_CHAINS},
    {"emit-smt2", required_argument, NULL, OPT_SMT2},
    {"lenient", no_argument, NULL, OPT_LENIENT},
    {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
    {"eager-locks", required_argument, NULL, OPT_EAGER_LOCKS},
    {"z3-config", required_argument, NULL, OPT_Z3},
    {"z3-param", required_argument, NULL, OPT_Z3_PARAM},
    {"no-timings", no_argument, NULL, OPT_NO_TIMINGS},
    {"color", required_argument, NULL, OPT_COLOR},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"all-instances", no_argument, NULL, OPT_ALL},
    {"no-prune", no_argument, NULL, OPT_NO_PRUNE},
    {"atomicity", no_argument, NULL, OPT_ATOMICITY},
    {"atomicity-patterns", required_argument, NULL, OPT_PATTERNS},
    {"atomic-region", required_argument, NULL, OPT_REGION},
    {"multi-variable", no_argument, NULL, OPT_MULTIVAR},
    {"correlated", required_argument, NULL, OPT_CORRELATED},
    {"max-distance", required_argument, NULL, OPT_MAX_DISTANCE},
    {"min-support", required_argument, NULL, OPT_MIN_SUPPORT},
    {"list-correlations", no_argument, NULL, OPT_LIST_CORRELATIONS},
    {"correlation", required_argument, NULL, OPT_CORRELATION},
    {"inconsistent-updates", no_argument, NULL, OPT_INCONSISTENT},
    {"multi-variable-races", no_argument, NULL, OPT_MVRACES},
    {"muvi-min-support", required_argument, NULL, OPT_MUVI_MIN_SUPPORT},
    {"muvi-min-confidence", required_argument, NULL, OPT_MUVI_MIN_CONFIDENCE},
    {"muvi-max-lines", required_argument, NULL, OPT_MUVI_MAX_LINES},
    {"muvi-popular", required_argument, NULL, OPT_MUVI_POPULAR},
    {"learn", required_argument, NULL, OPT_LEARN},
    {"invariants", required_argument, NULL, OPT_INVARIANTS},
    {"invariant-threshold", required_argument, NULL, OPT_INVARIANT_THRESHOLD},
    {"invariant-min-runs", required_argument, NULL, OPT_INVARIANT_MIN_RUNS},
    {"only-invariant-violations", no_argument, NULL,
     OPT_ONLY_INVARIANT_VIOLATIONS},
    {"witness", no_argument, NULL, OPT_WITNESS},
    {"html", required_argument, NULL, OPT_HTML},
    {"source-root", required_argument, NULL, OPT_SOURCE_ROOT},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"suppressions", required_argument, NULL, OPT_SUPPRESSIONS},
    {"kind", required_argument, NULL, OPT_KIND},
    {"node", required_argument, NULL, OPT_NODE},
    {"match", required_argument, NULL, OPT_MATCH},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0}};

/* Index of value in choices (NULL-terminated), or -1 with a message. */
static int choose(const char *option, const char *value,
                  const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(value, choices[i]) == 0)
            return i;
    fprintf(stderr, "spider: --%s: '%s' is not one of:", option, value);
    for (int i = 0; choices[i]; i++)
        fprintf(stderr, " %s", choices[i]);
    fputc('\n', stderr);
    return -1;
}

/* The largest count an option takes: more is a typo, not a wish. */
#define COUNT_MAX 1000000000UL

static int parse_count(const char *option, const char *value, unsigned *out,
                       unsigned min)
{
    char *end;
    unsigned long v = strtoul(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v < min || v > COUNT_MAX) {
        fprintf(stderr, "spider: --%s: '%s' is not a number from %u to %lu\n",
                option, value, min, COUNT_MAX);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* "RWR,WWW" or "all" as a PATTERN_BIT set; -1 with a message if bad. */
static int parse_patterns(const char *value, unsigned *out)
{
    if (strcmp(value, "all") == 0) {
        *out = 0xff;
        return 0;
    }
    unsigned set = 0;
    for (const char *p = value; *p;) {
        size_t n = strcspn(p, ",");
        int ok = n == 3;
        for (size_t i = 0; i < 3 && ok; i++)
            ok = p[i] == 'R' || p[i] == 'W';
        if (!ok) {
            fprintf(stderr, "spider: --atomicity-patterns: '%.*s' is not a "
                    "pattern (three letters R or W, e.g. RWR), nor 'all'\n",
                    (int)n, p);
            return -1;
        }
        set |= PATTERN_BIT(p[0] == 'W', p[1] == 'W', p[2] == 'W');
        p += n + (p[n] == ',');
    }
    if (!set) {
        fputs("spider: --atomicity-patterns: no pattern given\n", stderr);
        return -1;
    }
    *out = set;
    return 0;
}

/* The options that narrow or mark the report (spider/cli/select.h). */
static int parse_select_option(cli *c, int opt, const char *arg)
{
    char why[384];
    switch (opt) {
    case OPT_SOURCE_ROOT: {
        struct stat st;
        c->source_root = arg;
        if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        fprintf(stderr, "spider: --source-root: %s is not a directory\n", arg);
        return -1;
    }
    case OPT_BASELINE:
        c->baseline = arg;
        return 0;
    case OPT_SUPPRESSIONS:
        c->suppressions = arg;
        return 0;
    case OPT_KIND:
        if (filter_parse_kinds(arg, &c->filter.kinds, why, sizeof why) == 0)
            return 0;
        fprintf(stderr, "spider: --kind: %s\n", why);
        return -1;
    case OPT_NODE:
        c->filter.node = arg;
        return 0;
    case OPT_MATCH:
        c->filter.match = arg;
        return 0;
    case OPT_LIMIT:
        return parse_count("limit", arg, &c->limit, 1);
    case OPT_PROGRESS: {
        static const char *const when[] = {"auto", "always", "never", NULL};
        return (c->progress = choose("progress", arg, when)) < 0 ? -1 : 0;
    }
    default:
        return -1;
    }
}

/* --multi-variable and the options of correlated variables. */
static int parse_correlation_option(cli *c, int opt, const char *arg)
{
    char *end;
    switch (opt) {
    case OPT_MULTIVAR:
        c->multi_variable = 1;
        return 0;
    case OPT_INCONSISTENT:
        c->inconsistent_updates = 1;
        return 0;
    case OPT_MVRACES:
        c->multi_variable_races = 1;
        return 0;
    case OPT_CORRELATED:
        c->correlation.given = arg;
        return 0;
    case OPT_MAX_DISTANCE:
        c->correlation_options_set = 1;
        c->correlation.max_distance = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' ||
            !(c->correlation.max_distance >= 0)) {
            fprintf(stderr, "spider: --max-distance: '%s' is not a number "
                    ">= 0\n", arg);
            return -1;
        }
        return 0;
    case OPT_MIN_SUPPORT:
        c->correlation_options_set = 1;
        return parse_count("min-support", arg, &c->correlation.min_support, 1);
    case OPT_CORRELATION: {
        static const char *const miners[] = {"sun", "muvi", "both", NULL};
        int i = choose("correlation", arg, miners);
        if (i < 0)
            return -1;
        c->correlation_options_set = 1;
        c->correlation.miners = i == 0 ? MINER_SUN : i == 1 ? MINER_MUVI
                                                           : MINER_SUN | MINER_MUVI;
        return 0;
    }
    case OPT_MUVI_MIN_SUPPORT:
        c->correlation_options_set = 1;
        return parse_count("muvi-min-support", arg,
                           &c->correlation.muvi.min_support, 1);
    case OPT_MUVI_MIN_CONFIDENCE:
        c->correlation_options_set = 1;
        c->correlation.muvi.min_confidence = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' ||
            !(c->correlation.muvi.min_confidence >= 0 &&
              c->correlation.muvi.min_confidence <= 1)) {
            fprintf(stderr, "spider: --muvi-min-confidence: '%s' is not a "
                    "number from 0 to 1\n", arg);
            return -1;
        }
        return 0;
    case OPT_MUVI_MAX_LINES:
        c->correlation_options_set = 1;
        return parse_count("muvi-max-lines", arg,
                           &c->correlation.muvi.max_lines, 0);
    case OPT_MUVI_POPULAR:
        c->correlation_options_set = 1;
        return parse_count("muvi-popular", arg, &c->correlation.muvi.popular,
                           1);
    default: /* OPT_LIST_CORRELATIONS */
        c->list_correlations = 1;
        return 0;
    }
}

/* --learn, --invariants and what they take. */
static int parse_learning_option(cli *c, int opt, const char *arg)
{
    unsigned v;
    switch (opt) {
    case OPT_LEARN:
        c->learn = arg;
        return 0;
    case OPT_INVARIANTS:
        c->invariants = arg;
        return 0;
    case OPT_INVARIANT_THRESHOLD:
        if (parse_count("invariant-threshold", arg, &v, 0) != 0)
            return -1;
        c->invariant_rule.threshold = v;
        return 0;
    case OPT_INVARIANT_MIN_RUNS:
        if (parse_count("invariant-min-runs", arg, &v, 1) != 0)
            return -1;
        c->invariant_rule.min_runs = v;
        return 0;
    default: /* OPT_ONLY_INVARIANT_VIOLATIONS */
        c->only_invariant_violations = 1;
        return 0;
    }
}

static int parse_option(cli *c, int opt, const char *arg)
{
    static const char *const formats[] = {"text", "json", "sarif", "shiviz",
                                          NULL};
    static const char *const handlers[] = {"nested", "floating", NULL};
    static const char *const orders[] = {"file", "timestamp", NULL};
    static const char *const configs[] = {"fast", "default", NULL};
    static const char *const colors[] = {"auto", "always", "never", NULL};
    static const char *const solvers[] = {"auto", "z3", NULL};
    static const char *const regions[] = {"access", "lock", "handler", NULL};
    int i;
    switch (opt) {
    case 'f':
        return (c->format = choose("format", arg, formats)) < 0 ? -1 : 0;
    case OPT_HANDLERS:
        if ((i = choose("handlers", arg, handlers)) < 0)
            return -1;
        c->handlers = i ? HANDLERS_FLOATING : HANDLERS_NESTED;
        return 0;
    case OPT_ORDER:
        if ((i = choose("order", arg, orders)) < 0)
            return -1;
        c->order = i ? ORDER_TIMESTAMP : ORDER_FILE;
        return 0;
    case 'j':
        return parse_count("jobs", arg, &c->jobs, 1);
    case OPT_RANKS:
        return parse_count("ranks", arg, &c->ranks, 1);
    case OPT_BATCH_CHAINS:
        return parse_count("batch-chains", arg, &c->batch_chains, 1);
    case OPT_SMT2:
        c->emit_smt2 = arg;
        return 0;
    case OPT_LENIENT:
        c->lenient = 1;
        return 0;
    case OPT_TIMEOUT:
        return parse_count("timeout-ms", arg, &c->timeout_ms, 0);
    case OPT_EAGER_LOCKS:
        return parse_count("eager-locks", arg, &c->eager_locks, 0);
    case OPT_Z3:
        if ((i = choose("z3-config", arg, configs)) < 0)
            return -1;
        c->tuning = i ? TUNING_DEFAULT : TUNING_FAST;
        return 0;
    case OPT_Z3_PARAM: { /* before any Z3 context is made */
        char why[256];
        if (hb_z3_global_param(arg, why, sizeof why) == 0)
            return 0;
        fprintf(stderr, "spider: --z3-param: %s\n", why);
        return -1;
    }
    case OPT_NO_TIMINGS:
        c->timings = 0;
        return 0;
    case OPT_COLOR:
        if ((i = choose("color", arg, colors)) < 0)
            return -1;
        c->color_auto = i == 0;
        c->color = i == 0 ? (isatty(STDOUT_FILENO) && !getenv("NO_COLOR"))
                          : i == 1;
        return 0;
    case OPT_SOLVER:
        if ((i = choose("solver", arg, solvers)) < 0)
            return -1;
        c->solver = i ? SOLVER_Z3 : SOLVER_AUTO;
        return 0;
    case OPT_ALL:
        c->all_instances = 1;
        return 0;
    case OPT_NO_PRUNE:
        c->no_prune = 1;
        return 0;
    case OPT_ATOMICITY:
        c->atomicity = 1;
        return 0;
    case OPT_PATTERNS:
        c->atomicity = 1;
        return parse_patterns(arg, &c->patterns);
    case OPT_REGION:
        if ((i = choose("atomic-region", arg, regions)) < 0)
            return -1;
        c->atomicity = 1;
        c->region = (atomic_region)i;
        return 0;
    case 'q':
        c->quiet = 1;
        return 0;
    case OPT_WITNESS:
        c->witness = 1;
        return 0;
    case OPT_HTML:
        c->html = arg;
        return 0;
    case OPT_MULTIVAR:
    case OPT_CORRELATED:
    case OPT_MAX_DISTANCE:
    case OPT_MIN_SUPPORT:
    case OPT_LIST_CORRELATIONS:
    case OPT_CORRELATION:
    case OPT_INCONSISTENT:
    case OPT_MVRACES:
    case OPT_MUVI_MIN_SUPPORT:
    case OPT_MUVI_MIN_CONFIDENCE:
    case OPT_MUVI_MAX_LINES:
    case OPT_MUVI_POPULAR:
        return parse_correlation_option(c, opt, arg);
    case OPT_LEARN:
    case OPT_INVARIANTS:
    case OPT_INVARIANT_THRESHOLD:
    case OPT_INVARIANT_MIN_RUNS:
    case OPT_ONLY_INVARIANT_VIOLATIONS:
        return parse_learning_option(c, opt, arg);
    default:
        return parse_select_option(c, opt, arg);
    }
}

/* What --learn and --invariants refuse, and what they warn of.  -1
 * (said) on bad usage. */
static int check_learning(const cli *c)
{
    if (c->learn && c->invariants) {
        fputs("spider: --learn and --invariants: learn from passing runs in "
              "one call, mark a failing run's groups in another\n"
              "Try 'spider --help'.\n", stderr);
        return -1;
    }
    if (c->learn && c->list_correlations) {
        fputs("spider: --learn and --list-correlations: give one of them\n"
              "Try 'spider --help'.\n", stderr);
        return -1;
    }
    if (c->invariants && !c->atomicity && !c->multi_variable && !c->quiet)
        fputs("spider: warning: --invariants marks atomicity and "
              "multi-variable groups: it does nothing without --atomicity or "
              "--multi-variable\n", stderr);
    if (!c->invariants && !c->quiet &&
        (c->only_invariant_violations || c->invariant_rule.min_runs != 1 ||
         c->invariant_rule.threshold != 0))
        fputs("spider: warning: --only-invariant-violations, "
              "--invariant-threshold and --invariant-min-runs do nothing "
              "without --invariants\n", stderr);
    return 0;
}

int cli_parse(cli *c, int argc, char **argv, int *first)
{
    *c = (cli){.handlers = HANDLERS_NESTED, .order = ORDER_FILE,
             .timings = 1, .tuning = TUNING_FAST,
             .eager_locks = HB_LOCK_EAGER_MAX, .patterns = PATTERNS_AVIO,
             .region = REGION_ACCESS,
             .correlation = {.max_distance = 5, .min_support = 3,
                             .miners = MINER_SUN,
                             .muvi = {.min_support = 3, .min_confidence = 0.8,
                                      .max_lines = 10, .popular = 100}},
             .invariant_rule = {.min_runs = 1, .threshold = 0}};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c->jobs = cpus > 0 ? (unsigned)cpus : 1;
    c->ranks = 1;
    c->color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    c->color_auto = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "f:j:qhV", long_options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(usage, stdout);
            return EXIT_NO_RACE;
        }
        if (opt == 'V') {
            printf("spider %s\n", SPIDER_VERSION);
            return EXIT_NO_RACE;
        }
        if (parse_option(c, opt, optarg) != 0) {
            fputs("Try 'spider --help'.\n", stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fputs("spider: no trace given\nTry 'spider --help'.\n", stderr);
        return EXIT_BAD_INPUT;
    }
    if (c->format != FORMAT_TEXT && c->emit_smt2 &&
        strcmp(c->emit_smt2, "-") == 0) {
        fprintf(stderr, "spider: --emit-smt2=- would mix SMT-LIB2 into the "
                "%s report on standard output: give --emit-smt2 a file name\n"
                "Try 'spider --help'.\n",
                c->format == FORMAT_JSON ? "JSON" : c->format == FORMAT_SARIF ? "SARIF" : "ShiViz");
        return EXIT_BAD_INPUT;
    }
    if (check_learning(c) != 0)
        return EXIT_BAD_INPUT;
    *first = optind;
    return -1;
}
