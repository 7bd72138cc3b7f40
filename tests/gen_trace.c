/*
 * gen_trace.c — random Falcon traces for differential tests
 * (tests/t0040-invariance.sh, t0050-exact.sh, t0060-prune-contract.sh,
 * t0130-reference.sh).
 *
 *   gen-trace --seed S [--nodes N] [--steps K] [--pairs P] [--plain]
 *             [--KNOB=PERCENT]... (-o DIR | --merged FILE)
 *
 * Simulates one real run of a small distributed program — threads that
 * fork, join, read and write shared variables, take locks, send UDP
 * messages (with ids) and TCP byte streams (without), handle received
 * messages in (nested) handlers and wait/notify — and writes what a tracer
 * would log.  Every feature of the trace format and of the model
 * (docs/trace-format.md, docs/model.md) has a knob, a percentage, on by
 * default (`gen-trace --help` lists them); `--plain` turns them all off.
 *
 * Because the trace is an observed run, its model is satisfiable: a lock
 * never released is taken by no other thread after it, a RCV comes after
 * the SND(s) it matches in the simulated global order, a WAIT after a
 * NOTIFY of another thread that no other WAIT consumed (or a NOTIFYALL),
 * a WAIT on a condition no other thread ever notifies is unconstrained,
 * a RCV of no send names an id or channel that nothing in the trace sends.
 *
 * -o writes one file per node; --merged writes one file in global order.
 * Both hold the same program order (the run does not depend on where it is
 * written; the file layouts come from a second generator), so they must
 * give the same report.  The same arguments give the same bytes.
 *
 * A line on stderr, "coverage: NAME=COUNT ...", says how often the trace
 * hit each feature (tests/differential.py sums them over a run).
 *
 * Correlated variables (SPEC §4, --multi-variable): each node has P pairs
 * (xK, yK) that an access step touches together now and then (knob
 * `correlated`), as code that keeps two fields consistent does: one, 0-2
 * events, the other, in either order, each R or W, from any thread, in
 * handlers too and sometimes under a lock taken for the pair.  Mining
 * finds them, and two threads doing it give every one of Sun's patterns.
 * For a big trace: --steps 12000 --pairs 16 gives about 100,000 events.
 * A knob at 0 draws no random number for that feature (so --correlated=0
 * gives the traces of the generator before the feature existed).
 *
 * This file is the command line and the knobs' names, defaults and help.
 * The run's state and the knobs are in gen_trace_state.h, the random
 * numbers in gen_trace_rng.c, what the nodes do in gen_trace_sim.c, the
 * writing of events in gen_trace_out.c, and the lock-heavy shape
 * (--shape=locks) in gen_trace_locks.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_trace_locks.h"
#include "gen_trace_sim.h"
#include "gen_trace_state.h"

/* ---- knobs (FEATURES, gen_trace_state.h) ----------------------------------- */

#define NAME(id, name, def, help) name,
static const char *const feature_name[] = {FEATURES(NAME)};
#define DEFAULT(id, name, def, help) def,
static const int feature_default[] = {FEATURES(DEFAULT)};
#define HELP(id, name, def, help) help,
static const char *const feature_help[] = {FEATURES(HELP)};

/* ---- command line ---------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: gen-trace --seed S [--nodes 1-6] [--steps K] [--pairs P] [--plain]\n"
          "                 [--KNOB=PERCENT]... (-o DIR | --merged FILE)\n"
          "Writes the trace of one simulated run: -o one file per node\n"
          "(DIR/nodeN.log), --merged one file in global order.  The same\n"
          "arguments give the same bytes.  Prints \"coverage: NAME=COUNT ...\"\n"
          "on stderr: how often the trace hit each feature below.\n\n"
          "  --seed S        random seed (default 1)\n"
          "  --nodes N       nodes, 1 to 6 (default 3)\n"
          "  --steps K       steps of the nodes' main threads (default 60;\n"
          "                  --steps 12000 makes about 100,000 events)\n"
          "  --pairs P       correlated variable pairs (xK, yK) per node, 1 to\n"
          "                  1000 (default 2; knob --correlated)\n"
          "  --functions F   accesses' locations in F functions app.fK.LINE\n"
          "                  (a correlated pair's two in one function, a few\n"
          "                  lines apart), for MUVI's mining; default 0: as\n"
          "                  ever (app.acc.N)\n"
          "  --plain         set every knob to 0 (later knobs still apply)\n"
          "  --no-locks      write each LOCK and UNLOCK as a LOG (the run is\n"
          "                  otherwise the same): no node needs a lock order\n"
          "  --shape=locks   the lock-heavy shape instead (tests/gen_trace_locks.c):\n"
          "                  per node a main thread forks --threads T workers\n"
          "                  (default 8) that take --locks L locks (default 8;\n"
          "                  about 30% of events LOCK/UNLOCK, nested, cut by\n"
          "                  an exception --cut-sections=P percent of the time\n"
          "                  [1] in the last 300 events, at most once, one node\n"
          "                  only, open at the end), wait/notify,\n"
          "                  access --vars V\n"
          "                  variables (default 8) and, with several nodes,\n"
          "                  message each other, and --handoffs=P percent of\n"
          "                  those steps (all, with one node) hand a message\n"
          "                  to another worker of the node, as a queue does\n"
          "                  [0]; --events N in all (default\n"
          "                  1000); --nodes defaults to 1.  Knobs do not apply.\n\n"
          "Knobs, each a percentage (0 turns the feature off; default in "
          "brackets):\n", f);
    for (int i = 0; i < N_FEATURES; i++) {
        fprintf(f, "  --%s=P [%d]\n      ", feature_name[i], feature_default[i]);
        for (const char *c = feature_help[i]; *c; c++)
            fputs(*c == '\n' ? "\n      " : (char[]){*c, 0}, f);
        fputc('\n', f);
    }
}

/* --shape=locks: checks its options, writes the trace and its coverage. */
static int lock_shape(gen_locks_options *lo, uint64_t seed, int nodes,
                      const char *dir, const char *merged)
{
    if (lo->threads < 1 || lo->locks < 1 || lo->vars < 1 || lo->events < 1 ||
        lo->cut_percent < 0 || lo->cut_percent > 100 || nodes < 1 ||
        lo->handoff_percent < 0 || lo->handoff_percent > 100) {
        usage(stderr);
        return 2;
    }
    lo->seed = seed;
    lo->nodes = nodes;
    lo->dir = dir;
    lo->merged = merged;
    long hits[GEN_LOCKS_HITS];
    int rc = gen_locks(lo, hits);
    fprintf(stderr, "coverage: nested-sections=%ld reentrant=%ld "
            "cut-sections=%ld open-at-end=%ld waits=%ld messages=%ld\n",
            hits[GEN_LOCKS_NESTED], hits[GEN_LOCKS_REENTRANT],
            hits[GEN_LOCKS_CUT], hits[GEN_LOCKS_OPEN_AT_END],
            hits[GEN_LOCKS_WAITS], hits[GEN_LOCKS_MESSAGES]);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int nodes = 3, steps = 60;
    const char *dir = NULL, *merged = NULL;
    int locks_shape = 0, nodes_given = 0;
    gen_locks_options lo = {.threads = 8, .locks = 8, .vars = 8,
                            .events = 1000, .cut_percent = 1};
    static sim s;
    memcpy(s.knob, feature_default, sizeof s.knob);
    s.pairs = DEFAULT_PAIRS;
    for (int i = 1; i < argc; i++) {
        char opt[64];
        const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
        if (eq && arg[0] == '-' && arg[1] == '-' && (size_t)(eq - arg) < sizeof opt) {
            memcpy(opt, arg, (size_t)(eq - arg));
            opt[eq - arg] = '\0';
            arg = opt;
            val = eq + 1;
        }
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(arg, "--plain")) {
            memset(s.knob, 0, sizeof s.knob);
            continue;
        }
        if (!strcmp(arg, "--no-locks")) {
            s.no_locks = 1;
            continue;
        }
        if (!val && i + 1 < argc)
            val = argv[++i];
        if (!val) {
            fprintf(stderr, "gen-trace: %s needs a value\n", arg);
            return 2;
        }
        int f = -1;
        for (int k = 0; k < N_FEATURES; k++)
            if (arg[0] == '-' && arg[1] == '-' && !strcmp(arg + 2, feature_name[k]))
                f = k;
        char *end;
        if (f >= 0) {
            long p = strtol(val, &end, 10);
            if (*end || p < 0 || p > 100) {
                fprintf(stderr, "gen-trace: %s wants a percentage, not '%s'\n",
                        arg, val);
                return 2;
            }
            s.knob[f] = (int)p;
        } else if (!strcmp(arg, "--seed"))
            seed = strtoull(val, NULL, 10);
        else if (!strcmp(arg, "--nodes"))
            nodes = atoi(val), nodes_given = 1;
        else if (!strcmp(arg, "--shape") && !strcmp(val, "locks"))
            locks_shape = 1;
        else if (!strcmp(arg, "--threads"))
            lo.threads = atoi(val);
        else if (!strcmp(arg, "--locks"))
            lo.locks = atoi(val);
        else if (!strcmp(arg, "--vars"))
            lo.vars = atoi(val);
        else if (!strcmp(arg, "--events"))
            lo.events = atol(val);
        else if (!strcmp(arg, "--cut-sections"))
            lo.cut_percent = atoi(val);
        else if (!strcmp(arg, "--handoffs"))
            lo.handoff_percent = atoi(val);
        else if (!strcmp(arg, "--steps"))
            steps = atoi(val);
        else if (!strcmp(arg, "--pairs"))
            s.pairs = atoi(val);
        else if (!strcmp(arg, "--functions"))
            s.functions = atoi(val);
        else if (!strcmp(arg, "-o"))
            dir = val;
        else if (!strcmp(arg, "--merged"))
            merged = val;
        else {
            fprintf(stderr, "gen-trace: unknown option %s\n", arg);
            usage(stderr);
            return 2;
        }
    }
    if ((!dir && !merged) || nodes < 1 || nodes > MAX_NODES || steps < 1 ||
        s.pairs < 1 || s.pairs > MAX_PAIRS || s.functions < 0 ||
        s.functions > 1000) {
        usage(stderr);
        return 2;
    }
    if (locks_shape)
        return lock_shape(&lo, seed, nodes_given ? nodes : 1, dir, merged);
    s.r.s = seed * 0x9E3779B97F4A7C15ULL + 1;
    s.layout_r.s = seed * 0xD1B54A32D192ED03ULL + 7;
    s.n_nodes = nodes;
    int n_files = merged ? 1 : nodes;
    for (int i = 0; i < n_files; i++) {
        char path[4096];
        if (merged)
            snprintf(path, sizeof path, "%s", merged);
        else {
            mkdir(dir, 0777);
            snprintf(path, sizeof path, "%s/node%d.log", dir, i + 1);
        }
        if (!(s.files[i].f = fopen(path, "w")))
            return perror(path), 2;
        if ((int)gen_rng_below(&s.layout_r, 100) < s.knob[F_LAYOUTS]) {
            s.files[i].layout = 1 + (int)gen_rng_below(&s.layout_r, 3);
            HIT(&s, LAYOUTS);
        }
    }
    for (int n = 0; n < nodes; n++)
        s.file_of[n] = merged ? 0 : n;
    gen_sim_run(&s, steps);
    for (int i = 0; i < n_files; i++) {
        out_file *o = &s.files[i];
        if (o->layout == 1)
            fputs(o->objects ? "\n]\n" : "[]\n", o->f);
        else if (o->layout == 3)
            fputc('\n', o->f);
        if (fclose(o->f))
            return perror("gen-trace"), 2;
    }
    fputs("coverage:", stderr);
    for (int i = 0; i < N_FEATURES; i++)
        fprintf(stderr, " %s=%ld", feature_name[i], s.hit[i]);
    fputc('\n', stderr);
    return 0;
}
