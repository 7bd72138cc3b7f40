/*
 * trace_ranks.c — trace_load_ranks(): the loader over the ranks of a
 * split run (util/comm.h).  Each rank reads only the files it owns, and
 * the files' parts (the trace of one file, as a loader thread makes it)
 * go to every rank in file order, where they are merged as trace_load()
 * merges its threads' parts: the same trace, warnings and errors as one
 * process reading the files one by one.
 *
 * The steps: every rank plans the load from its own arguments (the files
 * of each directory, the files read twice, the entries skipped, the first
 * path that cannot be read), the ranks agree that their plans are the
 * same, the files are dealt out by size (largest first, to the rank with
 * the fewest bytes), and each file's owner reads it on its loader threads
 * and broadcasts its part when its turn comes.
 */
#include "trace_internal.h"
#include "json_arena.h"
#include "../util/comm.h"
#include "../util/pack.h"

#include <unistd.h>

static void plan_add(load_plan *p, step_kind kind, uint64_t size,
                     const char *text)
{
    ALLOC_GROW(p->steps, p->n + 1, p->cap);
    p->steps[p->n++] = (load_step){kind, 0, size, xstrdup(text)};
}

static void plan_skipped(void *arg, const char *what)
{
    plan_add(arg, STEP_SKIPPED, 0, what);
}

static void plan_file(load_plan *p, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) { /* gone since: its reader says why */
        plan_add(p, STEP_READ, 0, path);
        return;
    }
    plan_add(p, seen_before(&p->seen, &st) ? STEP_READ_ALREADY : STEP_READ,
             (uint64_t)st.st_size, path);
}

/* One path as trace_load() reads it.  0, or -1 after a STEP_ERROR. */
static int plan_path(load_plan *p, const char *const *paths, size_t *i,
                     size_t n)
{
    char msg[8192];
    const char *path = paths[*i];
    size_t run = regular_files_from(paths, *i, n);
    if (run) {
        for (size_t k = 0; k < run; k++)
            plan_file(p, paths[*i + k]);
        *i += run - 1;
        return 0;
    }
    int dir = -1;
    if (strcmp(path, "-") == 0)
        snprintf(msg, sizeof msg, "standard input: a split run reads files "
                 "only");
    else
        dir = path_is_directory(path, msg, sizeof msg);
    if (dir == 0) { /* a file, though not regular_files_from()'s a moment ago */
        plan_file(p, path);
        return 0;
    }
    if (dir == 1) {
        char **names;
        uint32_t k;
        int rc = list_directory(path, &names, &k, plan_skipped, p, msg,
                                sizeof msg);
        for (uint32_t j = 0; j < k; j++) {
            plan_file(p, names[j]);
            free(names[j]);
        }
        free(names);
        if (rc == TRACE_OK)
            return 0;
    }
    plan_add(p, STEP_ERROR, 0, msg);
    return -1;
}

void plan_make(load_plan *p, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (plan_path(p, paths, &i, n) != 0)
            break;
    free(p->seen.seen);
    p->seen.seen = NULL;
}

void plan_free(load_plan *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        free(p->steps[i].text);
    free(p->steps);
}

static uint64_t plan_hash(const load_plan *p)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (uint32_t i = 0; i < p->n; i++) {
        const load_step *s = &p->steps[i];
        h = (h ^ s->kind) * 1099511628211ull; /* not the size: a file may
                                                 grow between two ranks' looks */
        for (const char *c = s->text; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}

/* The files to the ranks by the sizes rank 0 saw (comm_deal()), so
 * that every rank deals the same.  0, or -1 when the broadcast failed. */
int plan_deal(load_plan *p, comm *c)
{
    uint64_t *size = xmalloc_array(p->n ? p->n : 1, sizeof *size);
    uint32_t *owner = xmalloc_array(p->n ? p->n : 1, sizeof *owner);
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->steps[i].kind == STEP_READ)
            size[n++] = p->steps[i].size;
    if (comm_broadcast(c, size, (size_t)n * sizeof *size) != 0) {
        free(owner);
        free(size);
        return -1;
    }
    comm_deal(size, n, comm_size(c), owner);
    for (uint32_t i = 0, k = 0; i < p->n; i++)
        if (p->steps[i].kind == STEP_READ)
            p->steps[i].owner = owner[k++];
    free(owner);
    free(size);
    return 0;
}

/* ---- a part as bytes ------------------------------------------------- */

/* A job read here: its status, message, warnings and part. */
static void part_pack(const file_job *job, pack *b)
{
    const trace *t = job->part;
    pack_put(b, &job->rc, sizeof job->rc);
    pack_text(b, job->err, strlen(job->err));
    pack_text(b, job->warnings ? job->warnings : "", job->warnings_len);
    pack_u32(b, t->n_files);
    if (t->n_files)
        pack_text(b, t->files[0], strlen(t->files[0]));
    pack_u32(b, t->n_strings);
    for (uint32_t i = 0; i < t->n_strings; i++)
        pack_text(b, t->strings[i], interned_len(t, i));
    pack_u32(b, t->n_threads);
    for (uint32_t i = 0; i < t->n_threads; i++)
        pack_u32(b, t->threads[i].name);
    pack_u32(b, t->n_objects);
    pack_put(b, t->objects, (size_t)t->n_objects * sizeof *t->objects);
    pack_u32(b, t->n_channels);
    pack_put(b, t->channels, (size_t)t->n_channels * sizeof *t->channels);
    pack_u32(b, t->n_events);
    pack_put(b, t->events, (size_t)t->n_events * sizeof *t->events);
    pack_put(b, &t->stats, sizeof t->stats);
}

static void *take_copy(unpack *u, size_t count, size_t size)
{
    void *v = xmalloc_array(count ? count : 1, size);
    unpack_get(u, v, count * size);
    return v;
}

/* The job part_pack() packed, its part's strings pointing into buf
 * (which must outlive it).  0, or -1 when the bytes are cut short. */
static int part_unpack(const char *buf, size_t len, file_job *job,
                       size_t err_len)
{
    unpack r = unpack_of(buf, len);
    size_t n;
    unpack_get(&r, &job->rc, sizeof job->rc);
    const char *err = unpack_text(&r, &n);
    snprintf(job->err, err_len, "%s", err);
    const char *warnings = unpack_text(&r, &n);
    job->warnings = n ? xmalloc(n) : NULL;
    if (n)
        memcpy(job->warnings, warnings, n);
    job->warnings_len = n;
    trace *t = job->part = xcalloc(1, sizeof *t);
    t->n_files = unpack_u32(&r);
    if (t->n_files) {
        t->n_files = 1;
        t->files = xmalloc(sizeof *t->files);
        t->files[0] = xstrdup(unpack_text(&r, &n));
    }
    t->n_strings = unpack_u32(&r);
    t->strings = xmalloc_array(t->n_strings ? t->n_strings : 1,
                               sizeof *t->strings);
    for (uint32_t i = 0; i < t->n_strings; i++)
        t->strings[i] = (char *)unpack_text(&r, &n);
    t->n_threads = unpack_u32(&r);
    t->threads = xcalloc(t->n_threads ? t->n_threads : 1, sizeof *t->threads);
    for (uint32_t i = 0; i < t->n_threads; i++)
        t->threads[i].name = unpack_u32(&r);
    t->n_objects = unpack_u32(&r);
    t->objects = take_copy(&r, t->n_objects, sizeof *t->objects);
    t->n_channels = unpack_u32(&r);
    t->channels = take_copy(&r, t->n_channels, sizeof *t->channels);
    t->n_events = unpack_u32(&r);
    t->events = take_copy(&r, t->n_events, sizeof *t->events);
    unpack_get(&r, &t->stats, sizeof t->stats);
    return r.bad ? -1 : 0;
}

/* ---- the load --------------------------------------------------------- */

/* A collective operation failed (MPI's): TRACE_ERR, said in err. */
int ranks_lost(char *err, size_t err_len)
{
    snprintf(err, err_len, "the ranks of the job lost each other (a "
             "collective operation failed)");
    return TRACE_ERR;
}

/* Whether every rank planned the same; when not, the message of each. */
int plans_agree(comm *c, const load_plan *p, char *err, size_t err_len,
                       int *elsewhere)
{
    uint64_t h = plan_hash(p), most = h, least = ~h;
    if (comm_reduce_max(c, &most) != 0 || comm_reduce_max(c, &least) != 0)
        goto lost;
    if (most == ~least) /* the largest is the smallest: all the same */
        return 1;
    int failed = p->n && p->steps[p->n - 1].kind == STEP_ERROR;
    uint64_t any = (uint64_t)failed;
    if (comm_reduce_max(c, &any) != 0)
        goto lost;
    if (failed) { /* its own path: it says so */
        snprintf(err, err_len, "%s", p->steps[p->n - 1].text);
    } else if (any) {
        snprintf(err, err_len, "another rank of the job failed (its message "
                 "is above or below)");
        *elsewhere = 1;
    } else {
        snprintf(err, err_len, "the ranks of the job read different traces: "
                 "every rank must read the same files (a shared file system)");
    }
    return 0;
lost:
    ranks_lost(err, err_len);
    return 0;
}

/* Step s, a file: its owner broadcasts its part, every rank merges it
 * (on the root alone when not merging; *events counts the events of
 * the parts so far, so that every rank stops where the merge would). */
static int load_part(load_state *ls, comm *c, const load_step *s,
                     file_pool *fp, size_t *own, int merging,
                     uint64_t *events)
{
    int mine = s->owner == comm_rank(c);
    pack b = {0};
    file_job *job = NULL, theirs = {.path = s->text};
    if (mine) {
        job = file_pool_wait(fp, *own);
        part_pack(job, &b);
    }
    uint64_t len = b.n;
    int rc = comm_broadcast_from(c, s->owner, &len, sizeof len);
    if (rc == 0 && !mine) {
        b.data = xmalloc(len ? len : 1);
        b.n = len;
    }
    if (rc == 0)
        rc = comm_broadcast_from(c, s->owner, b.data, len);
    if (rc == 0 && !mine) {
        theirs.err = xcalloc(1, ls->err_len);
        rc = part_unpack(b.data, b.n, &theirs, ls->err_len);
        job = &theirs;
        if (ls->opts->bytes_read) /* the rank's own reads count as they go */
            __atomic_fetch_add(ls->opts->bytes_read, s->size, __ATOMIC_RELAXED);
    }
    if (rc != 0) {
        rc = ranks_lost(ls->err, ls->err_len);
    } else if (merging) {
        rc = merge_job(ls, job);
    } else if ((rc = job->rc) != TRACE_OK) {
        snprintf(ls->err, ls->err_len, "%s", job->err);
    } else if (*events + job->part->n_events > UINT32_MAX - 1) {
        /* where rank 0 stops merging (merge_part()), so do the others */
        snprintf(ls->err, ls->err_len, "%s: too many events", job->path);
        rc = TRACE_ERR;
    }
    if (rc == TRACE_OK)
        *events += job->part->n_events;
    if (mine) {
        file_pool_merged(fp, (*own)++, rc != TRACE_OK);
    } else {
        free_job(&theirs);
        free(theirs.err);
    }
    free(b.data);
    return rc;
}

static int load_steps(load_state *ls, comm *c, const load_plan *p,
                      int merging)
{
    char **own = xmalloc_array(p->n ? p->n : 1, sizeof *own);
    size_t n_own = 0, next = 0;
    uint64_t events = 0;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->steps[i].kind == STEP_READ && p->steps[i].owner == comm_rank(c))
            own[n_own++] = p->steps[i].text;
    /* the parts keep their warnings as printed, to be printed where
     * they are merged (load_job() captures them when told of a stream) */
    trace_options read_opts = *ls->opts;
    read_opts.warnings = stderr;
    file_pool *fp = file_pool_start(&read_opts, own, NULL, n_own, ls->err_len,
                                    loader_threads(ls->opts));
    int rc = TRACE_OK;
    for (uint32_t i = 0; i < p->n && rc == TRACE_OK; i++) {
        const load_step *s = &p->steps[i];
        switch (s->kind) {
        case STEP_READ:
            rc = load_part(ls, c, s, fp, &next, merging, &events);
            break;
        case STEP_READ_ALREADY:
            rc = skip_read_already(ls, s->text);
            break;
        case STEP_SKIPPED:
            ls->t->stats.files_skipped++;
            trace_warn(ls->t, ls->opts, "%s", s->text);
            break;
        case STEP_ERROR:
            snprintf(ls->err, ls->err_len, "%s", s->text);
            rc = TRACE_ERR;
            break;
        }
    }
    file_pool_end(fp);
    free(own);
    return rc;
}

int trace_load_ranks(const char *const *paths, size_t n_paths,
                     const trace_options *opts, comm *c, int root_only,
                     trace **out, char *err, size_t err_len)
{
    json_arena_install();
    *out = NULL;
    load_plan plan = {0};
    plan_make(&plan, paths, n_paths);
    int elsewhere = 0;
    if (!plans_agree(c, &plan, err, err_len, &elsewhere)) {
        plan_free(&plan);
        return elsewhere ? TRACE_ERR_ELSEWHERE : TRACE_ERR;
    }
    if (plan_deal(&plan, c) != 0) {
        plan_free(&plan);
        return ranks_lost(err, err_len);
    }
    int merging = !root_only || comm_rank(c) == 0;
    load_state ls = {.t = xcalloc(1, sizeof(trace)), .opts = opts,
                     .err = err, .err_len = err_len};
    int rc = load_steps(&ls, c, &plan, merging);
    plan_free(&plan);
    if (merging)
        return load_finish(&ls, rc, out);
    free(ls.seen);
    trace_free(ls.t);
    return rc;
}
