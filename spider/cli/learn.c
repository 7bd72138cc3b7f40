/*
 * learn.c — `spider --learn=FILE RUN...` (learn.h).
 */
#include "learn.h"

#include "../analysis/invariants.h"
#include "../../util/text.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static void print_error(const char *err)
{
    fputs("spider: ", stderr);
    text_put(stderr, err);
    fputc('\n', stderr);
}

/* Whether path is an invariants file to merge rather than a run: a
 * regular file that starts with the format's name or a comment (a trace
 * is JSON: it never does). */
static int is_invariants_file(const char *path)
{
    char head[32] = "";
    FILE *f = strcmp(path, "-") == 0 ? NULL : fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return head[0] == '#' || strncmp(head, "spider-invariants", 17) == 0;
}

/* Learns one run into inv.  Returns 0, 1 when stopped, -1 (said). */
static int learn_one(invariants *inv, const char *run,
                     const trace_options *opts,
                     const correlation_options *corr)
{
    char err[8192];
    trace *t = NULL;
    correlation c = {0};
    int rc = -1;
    if (is_invariants_file(run)) {
        if ((rc = invariants_load(inv, run, err, sizeof err)) != 0)
            print_error(err);
        return rc;
    }
    if (trace_load(&run, 1, opts, &t, err, sizeof err) != TRACE_OK ||
        correlation_find(t, corr, opts->warnings, &c, err, sizeof err) != 0) {
        print_error(err);
    } else if (t->stats.interrupted || (opts->stop && *opts->stop)) {
        rc = 1;
    } else {
        rc = invariants_learn(inv, t, &c, opts->stop);
    }
    correlation_free(&c);
    trace_free(t);
    return rc;
}

int learn_runs(const char *path, const char *const *runs, size_t n,
               const trace_options *opts, const correlation_options *corr,
               FILE *out)
{
    char err[8192];
    invariants *inv = invariants_new();
    int status = EXIT_BAD_INPUT;
    if (access(path, F_OK) == 0 &&
        invariants_load(inv, path, err, sizeof err) != 0) {
        print_error(err);
        goto done;
    }
    uint32_t before = invariants_runs(inv);
    for (size_t i = 0; i < n; i++) {
        int rc = learn_one(inv, runs[i], opts, corr);
        if (rc) {
            if (rc > 0) {
                fprintf(stderr, "spider: stopped: %s is left as it was\n",
                        path);
                status = EXIT_INCOMPLETE;
            }
            goto done;
        }
    }
    if (invariants_save(inv, path, err, sizeof err) != 0) {
        print_error(err);
        goto done;
    }
    size_t seen_a, seen_m;
    size_t atom = invariants_count(inv, REGION_KIND_ATOMICITY, &seen_a);
    size_t multi = invariants_count(inv, REGION_KIND_MULTIVAR, &seen_m);
    fputs("learnt ", out);
    fprintf(out, "%u passing %s into ", invariants_runs(inv) - before,
            invariants_runs(inv) - before == 1 ? "run" : "runs");
    text_put(out, path);
    fprintf(out, " (%u in all): %zu atomicity regions, %zu interleaved; "
            "%zu multi-variable regions, %zu interleaved\n",
            invariants_runs(inv), atom, seen_a, multi, seen_m);
    status = EXIT_NO_RACE;
done:
    invariants_free(inv);
    return status;
}
