/*
 * main.c — the spider command (main.h): options (options.h), then load
 * ──► encode ──► analyse ──► print, with one cleanup path and the exit
 * statuses of SPEC §6.
 */
#include "main.h"
#include "share_run.h"

#include "../spider.h"
#include "../../util/clock.h"

#include "learn.h"
#include "options.h"
#include "progress.h"

#include "../../util/text.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>



/* The only mutable globals: what a SIGINT/SIGTERM handler may write. */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t first_stop_s; /* CLOCK_MONOTONIC seconds */

/* GNU timeout sends its signal to the command and then to its process
 * group, the command again: two at once.  So a second signal ends the
 * process only a second or more after the first (clock_gettime, signal
 * and raise are async-signal-safe). */
static void on_stop_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!stop_requested) {
        first_stop_s = (sig_atomic_t)now.tv_sec;
        stop_requested = 1;
    } else if (now.tv_sec - first_stop_s >= 2) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/* The first SIGINT/SIGTERM stops the solver and prints what was decided;
 * a second one, a second or more later, ends the process at once.  In an
 * MPI job SIGUSR1 does the same: Open MPI's mpirun forwards it to every
 * rank, while on SIGTERM it kills the job (and the report with it). */
static void catch_stop_signals(int flags, const comm *world)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (world)
        sigaction(SIGUSR1, &sa, NULL);
}

/* --emit-smt2=FILE.  Returns 0; 1 when stopped (FILE is left
 * incomplete, said on stderr, and the run goes on to its partial report);
 * -1 (said) when FILE cannot be written. */
static int write_smt2(const char *path, hb_model *m, const trace *t,
                      progress **prog)
{
    enum { MANY_LOCK_CLAUSES = 10000000 }; /* said before they are written */
    hb_model_add_waits(m, t, &stop_requested); /* the file holds all of Φ */
    if (m->incomplete) {
        progress_end(prog);
        fprintf(stderr, "spider: %s: stopped: the SMT-LIB2 file is not "
                "written\n", path);
        return 1;
    }
    if (m->n_lock_clauses > MANY_LOCK_CLAUSES) {
        progress_end(prog);
        fprintf(stderr, "spider: warning: --emit-smt2: writing %llu lock "
                "clauses, one per two sections of a lock in different "
                "threads\n", (unsigned long long)m->n_lock_clauses);
    }
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (f == stdout) /* the terminal shows both: no line amid the text */
        progress_end(prog);
    if (!f) {
        progress_end(prog);
        fprintf(stderr, "spider: %s: cannot write the SMT-LIB2 file\n", path);
        return -1;
    }
    int rc = hb_model_write_smt2(m, t, NULL, f, &stop_requested);
    if (f != stdout && fclose(f) != 0)
        rc = -1;
    if (rc == 1) {
        progress_end(prog);
        fprintf(stderr, "spider: %s: stopped: the SMT-LIB2 file is "
                "incomplete\n", path);
    } else if (rc) {
        progress_end(prog);
        fprintf(stderr, "spider: %s: write error\n", path);
    }
    return rc;
}

/* --html=FILE: the report as one self-contained page.  -1 (said on
 * stderr) when FILE cannot be written. */
static int write_html(const char *path, const report *r,
                      const print_options *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spider: --html: %s: cannot write: %s\n", path,
                strerror(errno));
        return -1;
    }
    report_print_html(r, o, f);
    int failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) {
        fprintf(stderr, "spider: --html: %s: write error\n", path);
        return -1;
    }
    return 0;
}

static int selecting(const cli *c)
{
    return c->baseline || c->suppressions || c->filter.kinds ||
           c->filter.node || c->filter.match || c->invariants;
}

/* One error line; the message names files and values of the input, whose
 * control characters are escaped (they could forge a line otherwise). */
static void print_error(const cli *c, const char *err)
{
    if (c->helper) /* rank 0 says it */
        return;
    fputs("spider: ", stderr);
    text_put(stderr, err);
    fputc('\n', stderr);
}

/* Reads --baseline and --suppressions before the trace, so that a bad one
 * costs no analysis. */
static int load_selection(const cli *c, select_options *sel)
{
    char err[512];
    sel->filter = c->filter;
    sel->baseline_path = c->baseline;
    sel->suppressions_path = c->suppressions;
    if (c->baseline && !(sel->baseline = baseline_load(c->baseline, err,
                                                       sizeof err))) {
        fprintf(stderr, "spider: --baseline: %s\n", err);
        return -1;
    }
    if (c->suppressions &&
        !(sel->suppressions = suppressions_load(c->suppressions, err,
                                                sizeof err))) {
        fprintf(stderr, "spider: --suppressions: %s\n", err);
        return -1;
    }
    sel->invariants_path = c->invariants;
    sel->invariant_rule = c->invariant_rule;
    sel->only_invariant_violations = c->only_invariant_violations;
    if (c->invariants) {
        invariants *inv = invariants_new();
        sel->invariants = inv;
        if (invariants_load(inv, c->invariants, err, sizeof err) != 0) {
            print_error(c, err);
            return -1;
        }
    }
    return 0;
}

/* Flushes the report: the exit status, or 2 when it did not reach its
 * reader (that is no verdict). */
static int flush_report(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "spider: cannot write the report to standard "
                "output: %s\n", strerror(errno ? errno : EIO));
        return EXIT_BAD_INPUT;
    }
    return status;
}

/* glibc maps each block over 128 KB afresh (the threshold then follows
 * the sizes freed, up to 32 MB) and gives freed memory back at once:
 * every phase took new page faults for arrays the phase before had freed.
 * Blocks of 1 MB or more are still mapped (returned whole when freed: a
 * higher threshold let the floating model's large arrays fragment the
 * heap, 66 -> 132 MB on Cyclon-100N-100C); smaller ones are kept for
 * reuse.  Cyclon-100N-100C: 0.96-0.97x the time, both models. */
static void tune_malloc(void)
{
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

/* What a rank is about to analyse, in a few numbers: the ranks of a job
 * must have read the same trace, or their shares would not fit together
 * (a file that differs from machine to machine). */
static uint64_t fingerprint(const trace *t, const hb_model *m)
{
    uint64_t v[] = {t->n_events, t->n_threads, t->n_nodes, t->n_files,
                    m->n_kept, m->n_edges, hb_model_size(m)};
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the numbers */
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

/* Of an MPI job: whether every rank is ready to analyse the same trace
 * (print, the fingerprint of its own), so that none waits for the
 * others' shares for ever.  Every rank asks once: before analysing, or
 * at the end when it never got there.  A collective failure counts as a
 * failure. */
typedef enum { RANKS_READY, RANKS_FAILED, RANKS_DIFFER, RANKS_STOPPED } ranks_state;

/* RANKS_FAILED when a rank failed before (failed on this one;
 * *root_failed says whether rank 0 did), RANKS_STOPPED when a signal
 * stopped one (ranks stopped while loading hold different parts of the
 * trace: rank 0 then analyses alone, as one process would), RANKS_DIFFER
 * when the ranks read different traces. */
static ranks_state ranks_ready(comm *world, int failed, int stopped,
                               uint64_t print, int *root_failed)
{
    uint64_t any = (uint64_t)failed, stop = (uint64_t)stopped;
    uint64_t most = print, least = ~print;
    int root = failed;
    *root_failed = 1;
    if (comm_reduce_max(world, &any) != 0 ||
        (any && comm_broadcast(world, &root, sizeof root) != 0))
        return RANKS_FAILED;
    *root_failed = root;
    if (any)
        return RANKS_FAILED;
    if (comm_reduce_max(world, &stop) != 0)
        return RANKS_FAILED;
    if (stop)
        return RANKS_STOPPED;
    if (comm_reduce_max(world, &most) != 0 || comm_reduce_max(world, &least) != 0)
        return RANKS_FAILED;
    return most == print && least == ~print ? RANKS_READY : RANKS_DIFFER;
}

/* Whether a path is standard input, which mpirun gives rank 0 alone. */
static int reads_stdin(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(paths[i], "-") == 0)
            return 1;
    return 0;
}

/* trace_load_ranks() on ranks that are threads of this process: rank 0
 * merges the trace, the others read their files and say nothing. */
typedef struct thread_load {
    const char *const *paths;
    size_t n_paths;
    const trace_options *opts;
    trace *t;
    int rc;
    char *err;
    size_t err_len;
} thread_load;

static void load_rank(comm *ranks, void *arg)
{
    thread_load *l = arg;
    trace_options quiet = *l->opts;
    quiet.warnings = NULL;
    quiet.bytes_read = NULL; /* the readers of every rank count in rank 0's */
    char err[8192];
    trace *t;
    int root = comm_rank(ranks) == 0;
    int rc = trace_load_ranks(l->paths, l->n_paths, root ? l->opts : &quiet,
                              ranks, 1, &t, root ? l->err : err,
                              root ? l->err_len : sizeof err);
    if (root) {
        l->t = t;
        l->rc = rc;
    }
}

/* The trace: read by the ranks of an MPI job, each its own files; by
 * --ranks threads so (but standard input, by this one); or by this
 * process alone. */
static int load_trace(const char *const *paths, size_t n_paths,
                      const trace_options *opts, comm *world, unsigned ranks,
                      trace **t, char *err, size_t err_len)
{
    if (comm_size(world) > 1)
        return trace_load_ranks(paths, n_paths, opts, world, 0, t, err,
                                err_len);
    /* standard input: one process may read it, no rank of a split could */
    if (ranks < 2 || reads_stdin((char **)paths, (int)n_paths))
        return trace_load(paths, n_paths, opts, t, err, err_len);
    thread_load l = {paths, n_paths, opts, NULL, TRACE_ERR, err, err_len};
    comm_threads_run(ranks, load_rank, &l);
    *t = l.t;
    return l.rc;
}

/* A rank of an MPI job but rank 0: it reports nothing (rank 0 does) and
 * says only what is its own (an allocation failure, util/alloc.h). */
static void become_helper(cli *c)
{
    c->helper = 1;
    c->quiet = 1;
    c->progress = 2;
    if (!freopen("/dev/null", "w", stdout))
        fclose(stdout);
}

int spider_command(int argc, char **argv, comm *world)
{
    tune_malloc();
    hb_solver_process_setup();
    cli c;
    int status = EXIT_BAD_INPUT;
    int abandoned = 0; /* Z3 work left running after a stop (spider.h) */
    trace *t = NULL;
    hb_model *m = NULL;
    uint8_t *keep = NULL;
    prune_stats pruning = {0};
    report *r = NULL;
    char err[8192] = ""; /* a path may be 4096 bytes, and more */
    select_options sel = {0};
    report_notes notes;
    progress *prog = NULL;
    correlation corr = {0};
    muvi_rule *rules = NULL;         /* --inconsistent-updates: MUVI's rules */
    size_t n_rules = 0;
    /* from here on a stop signal ends each phase early (loading: the
     * events read so far are analysed) and the report is partial */
    catch_stop_signals(0, world);

    int first, parsed = cli_parse(&c, argc, argv, &first);
    if (parsed >= 0) /* the same on every rank: none waits */
        return parsed;
    int agreed = 0; /* ranks_ready() asked */
    int failed_elsewhere = 0; /* another rank's load failed, not this one's */
    if (world && c.ranks > 1) { /* the same on every rank: none waits */
        if (comm_rank(world) == 0)
            fputs("spider: --ranks is bin/spider's: the ranks of "
                  "bin/spider-mpi are mpirun's (-np)\n", stderr);
        return EXIT_BAD_INPUT;
    }
    if (comm_rank(world) != 0)
        become_helper(&c);
    if (world && c.color_auto) /* mpirun gives each rank a terminal */
        c.color = 0;
    if (c.learn) {
        trace_options lopts = {.order = c.order, .lenient = c.lenient,
                               .jobs = c.jobs,
                               .warnings = c.quiet ? NULL : stderr,
                               .stop = &stop_requested};
        return flush_report(learn_runs(c.learn, (const char *const *)argv +
                                           first, (size_t)(argc - first),
                                       &lopts, &c.correlation, stdout));
    }
    if (!c.helper && load_selection(&c, &sel) != 0)
        goto cleanup;
    if (comm_size(world) > 1 && reads_stdin(argv + first, argc - first)) {
        if (!c.helper)
            fputs("spider: mpirun gives standard input to rank 0 alone: "
                  "name the trace's files (every rank reads them)\n", stderr);
        goto cleanup;
    }
    if ((c.correlation.given || c.correlation_options_set) &&
        !c.multi_variable && !c.multi_variable_races && !c.list_correlations &&
        !c.inconsistent_updates &&
        !c.quiet)
        fputs("spider: warning: --correlated, --correlation, --max-distance, "
              "--min-support and --muvi-* do nothing without "
              "--multi-variable, --multi-variable-races, --inconsistent-updates or "
              "--list-correlations\n", stderr);

    double start = clock_seconds();
    if (c.progress == 1 ||
        (c.progress == 0 && !c.quiet && isatty(STDERR_FILENO)))
        prog = progress_start(stderr, (const char *const *)argv + first,
                              (size_t)(argc - first));
    trace_options topts = {.order = c.order, .lenient = c.lenient,
                           .jobs = c.jobs,
                           .warnings = progress_hold(prog, c.quiet ? NULL
                                                                   : stderr),
                           .bytes_read = progress_bytes(prog),
                           .stop = &stop_requested};
    double loaded, correlated, encoded, pruned;
    analysis_options aopts = {.jobs = c.jobs, .ranks = c.ranks,
                              .batch_chains = c.batch_chains,
                              .solver = c.solver,
                              .all_instances = c.all_instances,
                              .tuning = c.tuning, .timeout_ms = c.timeout_ms,
                              .stop = &stop_requested,
                              .abandoned = &abandoned,
                              .atomicity = c.atomicity,
                              .patterns = c.patterns, .region = c.region,
                              .multi_variable = c.multi_variable,
                              .multi_variable_races = c.multi_variable_races,
                              .inconsistent_updates = c.inconsistent_updates,
                              /* the HTML diagrams and ShiViz draw witnesses */
                              .witness = c.witness || c.html ||
                                         c.format == FORMAT_SHIVIZ,
                              .correlation = &corr,
                              .progress = progress_counts(prog),
                              .comm = world};
    share_result shared;
    if ((comm_size(world) > 1 || (!world && c.ranks > 1)) &&
        share_run_fits(&c) && !reads_stdin(argv + first, argc - first) &&
        share_run(&c, (const char *const *)argv + first,
                  (size_t)(argc - first), &topts, world, c.ranks, &aopts,
                  prog, &shared) == 0) {
        /* each rank held its share only (share_run.h) */
        agreed = 1;
        catch_stop_signals(SA_RESTART, world);
        progress_end(&prog);
        if (c.helper) {
            status = EXIT_NO_RACE;
            goto cleanup;
        }
        r = shared.r;
        loaded = correlated = shared.loaded;
        encoded = shared.encoded;
        pruned = shared.pruned;
        pruning = r->summary.pruning;
        goto print;
    }
    int load_rc = load_trace((const char *const *)argv + first,
                             (size_t)(argc - first), &topts, world, c.ranks,
                             &t, err, sizeof err);
    if (load_rc != TRACE_OK) {
        progress_end(&prog);
        print_error(&c, err);
        failed_elsewhere = load_rc == TRACE_ERR_ELSEWHERE;
        goto cleanup;
    }
    loaded = clock_seconds();
    int correlating = c.multi_variable || c.multi_variable_races ||
                      c.list_correlations;
    if (correlating)
        progress_phase_set(prog, PHASE_CORRELATE, t->n_events);
    if (correlating &&
        correlation_find(t, &c.correlation, topts.warnings, &corr,
                         err, sizeof err) != 0) {
        progress_end(&prog);
        print_error(&c, err);
        goto cleanup;
    }
    if (c.list_correlations) {
        progress_end(&prog);
        correlation_ref *refs = correlation_refs(t, &corr);
        status = report_correlations_print(refs, corr.n,
                                           c.format == FORMAT_JSON, stdout)
                     ? EXIT_BAD_INPUT : EXIT_NO_RACE;
        correlation_refs_free(refs, corr.n);
        goto cleanup;
    }
    if (c.inconsistent_updates)
        n_rules = muvi_mine(t, &c.correlation.muvi, &rules);
    correlated = clock_seconds();
    progress_phase_set(prog, PHASE_MODEL, t->n_events);
    m = hb_model_build_until(t, NULL, c.handlers, &stop_requested);
    m->lock_eager_max = c.eager_locks;
    encoded = clock_seconds();
    /* multi-variable violations, like atomicity ones, are made of
     * consecutive accesses: prune keeps them all (prune.h, rule 3) */
    prune_options popt = {.atomicity = c.atomicity || c.multi_variable ||
                                        c.multi_variable_races,
                          .stop = &stop_requested};
    progress_phase_set(prog, PHASE_PRUNE, t->n_events);
    if (stop_requested) /* stopped: nothing is decided, so nothing to prune */
        c.no_prune = 1;
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
    pruned = clock_seconds();
    progress_phase_set(prog, PHASE_SOLVE, t->n_events - m->n_kept);
    if (c.emit_smt2 && !c.helper && !m->incomplete &&
        write_smt2(c.emit_smt2, m, t, &prog) < 0)
        goto cleanup;
    aopts.muvi_rules = rules;
    aopts.n_muvi_rules = n_rules;
    agreed = 1;
    int root_failed;
    ranks_state ready = world ? ranks_ready(world, 0, stop_requested,
                                            fingerprint(t, m), &root_failed)
                              : RANKS_READY;
    if (ready == RANKS_STOPPED) { /* rank 0 reports what it has */
        aopts.comm = NULL;
        if (c.helper) {
            status = EXIT_NO_RACE;
            goto cleanup;
        }
    } else if (ready != RANKS_READY) {
        if (!c.helper)
            fputs(ready == RANKS_FAILED
                      ? "spider: another rank of the job failed (its "
                        "message is above or below)\n"
                      : "spider: the ranks of the job read different "
                        "traces: every rank must read the same files "
                        "(a shared file system)\n", stderr);
        goto cleanup;
    }
    r = analyse(t, m, &aopts, err, sizeof err);
    /* the analysis is over: a signal now must not cut a write of the
     * report short (EINTR made it a write error, exit 2) */
    catch_stop_signals(SA_RESTART, world);
    progress_end(&prog); /* the report starts on a clean line */
    if (!r) {
        print_error(&c, err);
        goto cleanup;
    }
    if (c.helper) { /* rank 0 reports; its status is every rank's */
        status = EXIT_NO_RACE;
        goto cleanup;
    }
print:
    if (r->witness_failure[0] && !c.quiet) {
        fputs("spider: warning: some groups have no witness: ", stderr);
        text_put(stderr, r->witness_failure);
        fputc('\n', stderr);
    }
    if (c.multi_variable || c.multi_variable_races) {
        r->correlations = correlation_refs(t, &corr);
        r->n_correlations = corr.n;
    }
    r->summary.pruned = !c.no_prune;
    r->summary.pruning = pruning;
    r->timings.load = loaded - start;
    r->timings.correlate = correlated - loaded;
    r->timings.encode = encoded - correlated;
    r->timings.prune = pruned - encoded;
    r->timings.total = clock_seconds() - start;
    print_options popts = {.quiet = c.quiet,
                           .color = c.color && c.format == FORMAT_TEXT,
                           .timings = c.timings, .limit = c.limit,
                           .source_root = c.source_root};
    if (selecting(&c)) {
        select_groups(r, &sel, &notes);
        popts.notes = &notes;
    }
    if (c.html && write_html(c.html, r, &popts) != 0)
        goto cleanup;
    if (!c.witness && c.format != FORMAT_SHIVIZ)
        report_drop_witnesses(r);
    if (c.format == FORMAT_JSON)
        report_print_json(r, &popts, stdout);
    else if (c.format == FORMAT_SARIF)
        report_print_sarif(r, &popts, stdout);
    else if (c.format == FORMAT_SHIVIZ)
        report_print_shiviz(r, &popts, stdout);
    else
        report_print_text(r, &popts, stdout);
    status = select_exit_status(r, popts.notes);
cleanup:
    progress_end(&prog);
    if (world) { /* every rank ends with rank 0's status */
        int root_failed = 1;
        if (!agreed && ranks_ready(world, status == EXIT_BAD_INPUT &&
                                              !failed_elsewhere,
                                   stop_requested, 0, &root_failed) &&
            !root_failed && c.helper && err[0] && !failed_elsewhere) {
            /* its own failure, of which rank 0 says nothing */
            fprintf(stderr, "spider: rank %u: ", comm_rank(world));
            text_put(stderr, err);
            fputc('\n', stderr);
        }
        int root_status = status;
        if (comm_broadcast(world, &root_status, sizeof root_status) == 0)
            status = root_status;
    }
    if (abandoned) /* it may still read the model: free nothing, end */
        _exit(flush_report(status));
    suppressions_free(sel.suppressions);
    baseline_free((baseline *)sel.baseline);
    invariants_free((invariants *)sel.invariants);
    report_free(r);
    hb_model_free(m);
    free(keep);
    correlation_free(&corr);
    free(rules);
    trace_free(t);
    return flush_report(status);
}
