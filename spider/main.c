/*
 * main.c — the spider command: options, then load ──► encode ──► analyse
 * ──► print, with one cleanup path and the exit statuses of SPEC §6.
 */
#include "spider.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct cli {
    int json;
    handler_model handlers;
    trace_order order;
    unsigned jobs;
    const char *emit_smt2;
    int lenient, quiet, timings, color;
    unsigned timeout_ms;
    solver_tuning tuning;
    solver_mode solver;
    int all_instances;
    int no_prune;
    int atomicity;
    unsigned patterns;
    atomic_region region;
} cli;

static const char usage[] =
    "usage: spider [options] TRACE...\n"
    "Finds data races, message races and handler races (and, on request,\n"
    "atomicity violations) in traces of a distributed system (Falcon JSON:\n"
    "files, or directories of files).\n"
    "\n"
    "  -f, --format=text|json      report format (default text)\n"
    "      --handlers=nested|floating\n"
    "                              a handler ends before the thread's next\n"
    "                              event (nested, default) or floats (thesis)\n"
    "      --order=file|timestamp  program order: input order (default) or\n"
    "                              each thread stable-sorted by timestamp\n"
    "  -j, --jobs=N                solver worker threads (default: CPUs)\n"
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
    "      --emit-smt2=FILE        write the model as SMT-LIB2 (QF_IDL)\n"
    "      --lenient               skip bad events with a warning\n"
    "      --timeout-ms=N          per-query solver timeout (0 = none)\n"
    "      --z3-config=fast|default\n"
    "                              Z3 set-up: difference-logic engine (fast,\n"
    "                              default) or Z3's defaults (slow; for checks)\n"
    "      --z3-param=NAME=VALUE   set a Z3 global parameter (z3 -p lists them),\n"
    "                              e.g. memory_max_size=4096 (MB); repeatable.\n"
    "                              A Z3 failure is an error (exit status 2)\n"
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
       OPT_ATOMICITY, OPT_PATTERNS, OPT_REGION, OPT_Z3_PARAM };

static const struct option long_options[] = {
    {"format", required_argument, NULL, 'f'},
    {"handlers", required_argument, NULL, OPT_HANDLERS},
    {"order", required_argument, NULL, OPT_ORDER},
    {"jobs", required_argument, NULL, 'j'},
    {"emit-smt2", required_argument, NULL, OPT_SMT2},
    {"lenient", no_argument, NULL, OPT_LENIENT},
    {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
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

static int parse_count(const char *option, const char *value, unsigned *out,
                       unsigned min)
{
    char *end;
    unsigned long v = strtoul(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v < min || v > 1000000000UL) {
        fprintf(stderr, "spider: --%s: '%s' is not a number >= %u\n", option,
                value, min);
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

static int parse_option(cli *c, int opt, const char *arg)
{
    static const char *const formats[] = {"text", "json", NULL};
    static const char *const handlers[] = {"nested", "floating", NULL};
    static const char *const orders[] = {"file", "timestamp", NULL};
    static const char *const configs[] = {"fast", "default", NULL};
    static const char *const colors[] = {"auto", "always", "never", NULL};
    static const char *const solvers[] = {"auto", "z3", NULL};
    static const char *const regions[] = {"access", "lock", "handler", NULL};
    int i;
    switch (opt) {
    case 'f':
        return (c->json = choose("format", arg, formats)) < 0 ? -1 : 0;
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
    case OPT_SMT2:
        c->emit_smt2 = arg;
        return 0;
    case OPT_LENIENT:
        c->lenient = 1;
        return 0;
    case OPT_TIMEOUT:
        return parse_count("timeout-ms", arg, &c->timeout_ms, 0);
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
    default:
        return -1;
    }
}

/* The only mutable global: what a SIGINT/SIGTERM handler may write. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The first SIGINT/SIGTERM stops the solver and prints what was decided;
 * a second one ends the process at once. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_smt2(const char *path, const hb_model *m, const trace *t)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spider: %s: cannot write the SMT-LIB2 file\n", path);
        return -1;
    }
    int rc = hb_model_write_smt2(m, t, NULL, f);
    if (f != stdout && fclose(f) != 0)
        rc = -1;
    if (rc)
        fprintf(stderr, "spider: %s: write error\n", path);
    return rc;
}

int main(int argc, char **argv)
{
    cli c = {.handlers = HANDLERS_NESTED, .order = ORDER_FILE,
             .timings = 1, .tuning = TUNING_FAST, .patterns = PATTERNS_AVIO,
             .region = REGION_ACCESS};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c.jobs = cpus > 0 ? (unsigned)cpus : 1;
    c.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    int status = EXIT_BAD_INPUT, opt;
    trace *t = NULL;
    hb_model *m = NULL;
    uint8_t *keep = NULL;
    prune_stats pruning = {0};
    report *r = NULL;
    char err[512] = "";

    while ((opt = getopt_long(argc, argv, "f:j:qhV", long_options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(usage, stdout);
            return EXIT_NO_RACE;
        }
        if (opt == 'V') {
            printf("spider %s\n", SPIDER_VERSION);
            return EXIT_NO_RACE;
        }
        if (parse_option(&c, opt, optarg) != 0) {
            fputs("Try 'spider --help'.\n", stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fputs("spider: no trace given\nTry 'spider --help'.\n", stderr);
        return EXIT_BAD_INPUT;
    }

    double start = now();
    trace_options topts = {.order = c.order, .lenient = c.lenient,
                           .warnings = c.quiet ? NULL : stderr};
    if (trace_load((const char *const *)argv + optind, (size_t)(argc - optind),
                   &topts, &t, err, sizeof err) != TRACE_OK) {
        fprintf(stderr, "spider: %s\n", err);
        goto cleanup;
    }
    double loaded = now();
    m = hb_model_build(t, NULL, c.handlers);
    double encoded = now();
    prune_options popt = {.atomicity = c.atomicity};
    if (!c.no_prune) {
        keep = prune_trace(t, m, &popt, &pruning);
        if (hb_model_project(m, t, keep) != 0) {
            /* never expected: pruning would have lost a constraint */
            fputs("spider: warning: internal: pruning would drop an event a "
                  "constraint names; analysing every event instead\n", stderr);
            memset(&pruning, 0, sizeof pruning);
            c.no_prune = 1;
        }
    }
    double pruned = now();
    if (c.emit_smt2 && write_smt2(c.emit_smt2, m, t) != 0)
        goto cleanup;
    analysis_options aopts = {.jobs = c.jobs,
                              .solver = c.solver,
                              .all_instances = c.all_instances,
                              .tuning = c.tuning, .timeout_ms = c.timeout_ms,
                              .stop = &stop_requested,
                              .atomicity = c.atomicity,
                              .patterns = c.patterns, .region = c.region};
    catch_stop_signals();
    r = analyse(t, m, &aopts, err, sizeof err);
    if (!r) {
        fprintf(stderr, "spider: %s\n", err);
        goto cleanup;
    }
    r->summary.pruned = !c.no_prune;
    r->summary.pruning = pruning;
    r->timings.load = loaded - start;
    r->timings.encode = encoded - loaded;
    r->timings.prune = pruned - encoded;
    r->timings.total = now() - start;
    print_options popts = {.quiet = c.quiet, .color = c.color && !c.json,
                           .timings = c.timings};
    if (c.json)
        report_print_json(r, &popts, stdout);
    else
        report_print_text(r, &popts, stdout);
    status = r->summary.undecided ? EXIT_INCOMPLETE
           : r->n_groups           ? EXIT_RACES
                                   : EXIT_NO_RACE;
cleanup:
    report_free(r);
    hb_model_free(m);
    free(keep);
    trace_free(t);
    if (fflush(stdout) != 0)
        status = EXIT_BAD_INPUT;
    return status;
}
