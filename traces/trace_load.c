/*
 * trace_load.c — reading Falcon JSON into compact events.
 *
 * A file is a JSON array of objects or a stream of objects; each object is
 * parsed alone with cJSON and turned into an `event` at once
 * (trace_event.c), so no cJSON tree outlives its event.  Positions are
 * tracked as we go (trace_reader.c) so that every error names file, line
 * and column.  Here: the objects of a file one after another, a bad one
 * skipped under --lenient, files and directories, several files at once.
 */
#include "trace_event.h"
#include "../util/alloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The object at s did not parse (cJSON stopped at parse_end).  Decides
 * whether it is cut off at the end of the file (a warning: sets *stop),
 * cut off before a next object (malformed), or invalid JSON; on error
 * sets r->resume. */
static int bad_object(reader *r, const char *s, const char *parse_end,
                      int *stop)
{
    int closed;
    const char *f = json_scan(s, r->end, &closed);
    size_t col = (size_t)(reader_offset_of(r, s) - r->line_start) + 1;
    if (closed) { /* cJSON is stricter than json_scan somewhere */
        r->resume = json_next_object_start(f - 1, f - 1, r->end, col, 0);
        return reader_fail_at(r, parse_end && parse_end >= s ? parse_end : s,
                       "invalid JSON");
    }
    const char *next = json_next_object_start(s, f, r->end, col, 0);
    const char *text_end = r->end;
    while (text_end > s && isspace((unsigned char)text_end[-1]))
        text_end--;
    if (!(next && json_cut_before(s, f, next)) && f < text_end) {
        /* the text goes wrong before the end: an event glued onto it? */
        const char *glued = json_next_object_start(s, f, r->end, col, 1);
        if (glued && json_cut_before(s, f, glued))
            next = glued;
    }
    r->resume = next ? next : r->end;
    if (next && json_cut_before(s, f, next)) {
        uint32_t line, ncol;
        reader_position_of(r, next, &line, &ncol);
        return reader_fail_at(r, s, "malformed object: it is cut off before the "
                       "next object (line %u, column %u)", line, ncol);
    }
    if (!next && json_object_unterminated(s, r->end)) {
        uint32_t line, lcol;
        reader_position_of(r, s, &line, &lcol);
        r->t->stats.truncated_files++;
        trace_warn(r->t, r->opts, "%s:%u:%u: last object is cut off "
                   "(truncated trace); ignored", r->name, line, lcol);
        *stop = 1;
        return TRACE_OK;
    }
    return reader_fail_at(r, f, "invalid JSON");
}

/* Parses one object at r->p, reading on while the window cuts it short.
 * Sets *stop when the rest must be ignored. */
static int read_object(reader *r, int *stop)
{
    const char *parse_end;
    cJSON *obj;
    for (;;) {
        json_arena_enter(r->arena); /* leaving it frees the tree */
        parse_end = NULL;
        obj = cJSON_ParseWithLengthOpts(r->p, (size_t)(r->end - r->p),
                                        &parse_end, 0);
        if (obj)
            break;
        json_arena_leave(r->arena);
        /* reader_more() moves the text from r->p on: parse_end moves with it */
        size_t parsed = parse_end ? (size_t)(parse_end - r->p) : 0;
        int read_on = reader_more(r);
        parse_end = parse_end ? r->p + parsed : NULL;
        if (!read_on)
            break;
    }
    if (!obj) {
        if (reader_unreadable(r)) /* anywhere: as if the file were read whole */
            return reader_fail_unreadable(r);
        if (r->t->stats.interrupted) {
            *stop = 1; /* cut short by the stop, not by the file */
            return TRACE_OK;
        }
        return bad_object(r, r->p, parse_end, stop);
    }
    int rc = reader_unreadable(r) ? reader_fail_unreadable(r)
                                  : trace_event_add(r, obj, r->p, parse_end);
    json_arena_leave(r->arena);
    if (rc == TRACE_OK)
        reader_advance_to(r, parse_end);
    return rc;
}

/* --lenient: skips bad text at r->p (counted as a skipped event) up to
 * where the next object starts (r->resume, or as json_next_object_start() finds
 * it for stray text: any line that starts with '{', or a glued "}{"). */
static void skip_bad_text(reader *r)
{
    r->t->stats.events_skipped++;
    trace_warn(r->t, r->opts, "%s; skipped", r->err);
    const char *to = r->resume;
    if (!to && !reader_read_rest(r))
        return; /* read_events' next reader_skip_ws() says it */
    if (!to && r->p < r->end)
        to = json_next_object_start(r->p, r->p, r->end, SIZE_MAX, 0);
    reader_advance_to(r, to ? to : r->end);
}

/* Reads the events of r's text, a JSON array or a stream of objects. */
static int read_events(reader *r)
{
    while (r->end - r->p < 3 && reader_more(r))
        continue; /* enough to see a byte order mark */
    if (reader_unreadable(r))
        return reader_fail_unreadable(r);
    if (r->end - r->p >= 3 && memcmp(r->p, "\xEF\xBB\xBF", 3) == 0)
        r->p += 3; /* a UTF-8 byte order mark */
    if (reader_skip_ws(r))
        return reader_fail_unreadable(r);
    int in_array = r->p < r->end && *r->p == '[';
    int first = 1, stop = 0;
    if (in_array)
        reader_advance_to(r, r->p + 1);
    for (;;) {
        if (reader_stopped(r->opts)) {
            r->t->stats.interrupted = 1;
            return TRACE_OK;
        }
        if (reader_skip_ws(r))
            return reader_fail_unreadable(r);
        if (r->p >= r->end) {
            if (in_array && !r->t->stats.interrupted) {
                r->t->stats.truncated_files++;
                trace_warn(r->t, r->opts, "%s:%u: the JSON array is not "
                           "closed (truncated trace)", r->name, r->line);
            }
            return TRACE_OK;
        }
        if (in_array && *r->p == ']') {
            reader_advance_to(r, r->p + 1);
            if (reader_skip_ws(r))
                return reader_fail_unreadable(r);
            if (r->p < r->end)
                return reader_fail_at(r, r->p, "unexpected text after the array");
            return TRACE_OK;
        }
        if (in_array && !first) {
            if (*r->p != ',')
                return reader_fail_at(r, r->p, "expected ',' or ']' in the array");
            reader_advance_to(r, r->p + 1);
            if (reader_skip_ws(r))
                return reader_fail_unreadable(r);
        }
        r->resume = NULL;
        int rc = r->p < r->end && *r->p != '{'
                     ? reader_fail_at(r, r->p, "expected an event object '{'")
                     : read_object(r, &stop);
        if (stop)
            return TRACE_OK;
        first = 0;
        if (rc != TRACE_OK) {
            if (!r->opts->lenient || reader_unreadable(r))
                return TRACE_ERR;
            skip_bad_text(r);
            first = 1; /* an array's next element needs no ',' after a skip */
        }
    }
}

/* After an error: reads on through the file (what is read is dropped,
 * the lines counted) to see whether a NUL byte comes later, which then
 * is the error, as when the file is read whole. */
static int unreadable_later(reader *r)
{
    while (!reader_unreadable(r) && !r->at_eof) {
        reader_advance_to(r, reader_passable_end(r));
        reader_more(r);
    }
    return reader_unreadable(r) ? reader_fail_unreadable(r) : TRACE_ERR;
}

/* Reads the events of r's text.  A NUL byte anywhere fails the file,
 * under --lenient too, and is the error named. */
static int read_buffer(reader *r)
{
    int rc = read_events(r);
    return rc != TRACE_OK && !reader_unreadable(r) ? unreadable_later(r) : rc;
}

static uint32_t add_file(trace *t, const char *name, uint32_t *cap)
{
    ALLOC_GROW(t->files, t->n_files + 1, *cap);
    t->files[t->n_files] = xstrdup(name);
    return t->n_files++;
}

/* Reads the events of r's text (its window set up) as file `name`. */
static int load_text(load_state *ls, const char *name, reader *r)
{
    r->t = ls->t;
    r->opts = ls->opts;
    r->name = name;
    r->file = add_file(ls->t, name, &ls->files_cap);
    r->line = 1;
    r->events_cap = ls->events_cap;
    r->err = ls->err;
    r->err_len = ls->err_len;
    r->arena = json_arena_new();
    int rc = read_buffer(r);
    json_arena_free(r->arena);
    ls->events_cap = r->events_cap;
    return rc;
}

static int load_bytes(load_state *ls, const char *name, const char *data,
                      size_t len)
{
    reader r = {.start = data, .end = data + len, .p = data, .at_eof = 1,
                .has_cr = memchr(data, '\r', len) != NULL,
                .nul = memchr(data, '\0', len)};
    return load_text(ls, name, &r);
}

/* Reads the file f as `name` a window at a time (ls->opts->window bytes
 * at first, or TRACE_WINDOW): the file is never all in memory, unless an
 * object is about as large, or a malformed object or stray text makes the
 * loader read the rest of the file to tell where the next object starts
 * (reader_read_rest()). */
static int load_stream(load_state *ls, const char *name, FILE *f)
{
    size_t cap = ls->opts->window ? ls->opts->window : TRACE_WINDOW;
    reader r = {.in = f, .cap = cap};
    r.buf = xmalloc(r.cap);
    r.start = r.end = r.p = r.buf; /* read_events() reads the first window */
    int rc = load_text(ls, name, &r);
    free(r.buf);
    if (r.read_error) {
        snprintf(ls->err, ls->err_len, "%s: read error", name);
        rc = TRACE_ERR;
    }
    return rc;
}

int seen_before(load_state *ls, const struct stat *st)
{
    for (uint32_t i = 0; i < ls->n_seen; i++)
        if (ls->seen[i].st_dev == st->st_dev && ls->seen[i].st_ino == st->st_ino)
            return 1;
    ALLOC_GROW(ls->seen, ls->n_seen + 1, ls->seen_cap);
    ls->seen[ls->n_seen++] = *st;
    return 0;
}

int skip_read_already(load_state *ls, const char *path)
{
    ls->t->stats.files_skipped++;
    trace_warn(ls->t, ls->opts, "%s: this file was read already; its "
               "events are not read twice", path);
    return TRACE_OK;
}

/* Reads path ("-": standard input); a file read already is skipped when
 * check_seen (a loader thread's files were checked before, in order). */
static int read_file(load_state *ls, const char *path, int check_seen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(ls->err, ls->err_len, "%s: cannot open: %s", path,
                 strerror(errno));
        return TRACE_ERR;
    }
    struct stat st;
    if (check_seen && !is_stdin && fstat(fileno(f), &st) == 0 &&
        seen_before(ls, &st)) {
        fclose(f);
        return skip_read_already(ls, path);
    }
    int rc = load_stream(ls, path, f);
    if (!is_stdin)
        fclose(f);
    return rc;
}

/* Reads a regular file, or standard input for "-". */
static int load_file(load_state *ls, const char *path)
{
    return read_file(ls, path, 1);
}

/* ---- files in parallel ----------------------------------------------------
 *
 * The files of a directory are read and
 * converted by worker threads, each into a trace of its own, its warnings
 * kept as printed; the loader merges them in order (interning their
 * strings, threads, objects and channels again, and renumbering their
 * events), prints their warnings, and stops at the first that failed: the
 * same trace, messages and order as reading them one by one.  Workers stay
 * at most LOAD_AHEAD files ahead of the merge. */

struct file_pool {
    const trace_options *opts;
    size_t err_len;
    file_job *jobs;
    size_t n, next, merged;
    int quit;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t threads[LOAD_AHEAD];
    unsigned started;
};

/* Loader threads: one per core, but one in all under a small address
 * space limit (ulimit -v): each thread's malloc arena reserves 64 MB, and
 * where that fails glibc retries it at every allocation (t0120 took
 * 20 s a run). */
unsigned loader_threads(const trace_options *opts)
{
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
        as.rlim_cur < ((rlim_t)4 << 30))
        return 1;
    long n = opts->jobs ? (long)opts->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > LOAD_AHEAD ? LOAD_AHEAD : (unsigned)n; /* more would
                                                  wait for work: file_worker */
}

static void load_job(const trace_options *opts, file_job *job,
                     size_t err_len)
{
    trace_options own = *opts;
    FILE *w = opts->warnings ? open_memstream(&job->warnings, &job->warnings_len)
                             : NULL;
    if (opts->warnings && !w)
        alloc_fail(0, "a buffer for warnings");
    own.warnings = w; /* NULL: counted only, as opts says */
    load_state sub = {.t = xcalloc(1, sizeof(trace)), .opts = &own,
                      .err = job->err, .err_len = err_len};
    job->rc = read_file(&sub, job->path, 0); /* job->skip said it */
    if (w)
        fclose(w);
    job->part = sub.t;
}

static void *file_worker(void *arg)
{
    file_pool *fp = arg;
    pthread_mutex_lock(&fp->lock);
    for (;;) {
        while (!fp->quit && fp->next < fp->n && fp->next >= fp->merged + LOAD_AHEAD)
            pthread_cond_wait(&fp->changed, &fp->lock);
        if (fp->quit || fp->next >= fp->n)
            break;
        file_job *job = &fp->jobs[fp->next++];
        pthread_mutex_unlock(&fp->lock);
        if (!job->skip)
            load_job(fp->opts, job, fp->err_len);
        pthread_mutex_lock(&fp->lock);
        job->done = 1;
        pthread_cond_broadcast(&fp->changed);
    }
    pthread_mutex_unlock(&fp->lock);
    return NULL;
}

void add_part_stats(trace_stats *to, const trace_stats *from)
{
    for (int k = 0; k <= EV_KIND_MAX; k++)
        to->by_kind[k] += from->by_kind[k];
    to->events_skipped += from->events_skipped;
    to->truncated_files += from->truncated_files;
    to->files_skipped += from->files_skipped;
    to->interrupted |= from->interrupted;
}

int merge_part(load_state *ls, const trace *part)
{
    trace *t = ls->t;
    if ((uint64_t)t->n_events + part->n_events > UINT32_MAX - 1)
        return 0;
    uint32_t file = add_file(t, part->files[0], &ls->files_cap);
    str_id *str = xmalloc_array((size_t)part->n_strings + 1, sizeof *str);
    intern_strings_of(t, part, str);
    uint32_t *thr = xmalloc_array((size_t)part->n_threads + 1, sizeof *thr);
    for (uint32_t i = 0; i < part->n_threads; i++)
        thr[i] = intern_thread(t, str[part->threads[i].name]);
    uint32_t *obj = xmalloc_array((size_t)part->n_objects + 1, sizeof *obj);
    for (uint32_t i = 0; i < part->n_objects; i++)
        obj[i] = intern_object(t, str[part->objects[i].node],
                               str[part->objects[i].name]);
    uint32_t *chn = xmalloc_array((size_t)part->n_channels + 1, sizeof *chn);
    for (uint32_t i = 0; i < part->n_channels; i++) {
        const channel *c = &part->channels[i];
        channel m = {str[c->src], str[c->src_port], str[c->dst], str[c->dst_port]};
        chn[i] = intern_channel(t, &m);
    }
    ALLOC_GROW(t->events, t->n_events + part->n_events, ls->events_cap);
    for (uint32_t i = 0; i < part->n_events; i++) {
        event e = part->events[i];
        e.thread = thr[e.thread];
        e.file = file;
        if (e.loc != STR_NONE)
            e.loc = str[e.loc];
        if (e.message != STR_NONE)
            e.message = str[e.message];
        if (e.object != NONE)
            e.object = (int32_t)(event_needs_variable(e.kind) ? obj[e.object]
                                 : e.kind == EV_CREATE || e.kind == EV_JOIN
                                     ? thr[e.object] : chn[e.object]);
        t->events[t->n_events++] = e;
    }
    add_part_stats(&t->stats, &part->stats);
    free(str);
    free(thr);
    free(obj);
    free(chn);
    return 1;
}

int merge_job(load_state *ls, file_job *job)
{
    if (job->skip)
        return skip_read_already(ls, job->path);
    if (job->warnings_len && ls->opts->warnings)
        fwrite(job->warnings, 1, job->warnings_len, ls->opts->warnings);
    if (job->part)
        ls->t->stats.warnings += job->part->stats.warnings;
    if (job->rc != TRACE_OK) {
        snprintf(ls->err, ls->err_len, "%s", job->err);
        return TRACE_ERR;
    }
    if (job->part->n_files && !merge_part(ls, job->part)) {
        snprintf(ls->err, ls->err_len, "%s: too many events", job->path);
        return TRACE_ERR;
    }
    return TRACE_OK;
}

void free_job(file_job *job)
{
    trace_free(job->part);
    job->part = NULL;
    free(job->warnings);
    job->warnings = NULL;
}

file_pool *file_pool_start(const trace_options *opts, char *const *paths,
                           const int *skip, size_t n, size_t err_len,
                           unsigned workers)
{
    file_pool *fp = xcalloc(1, sizeof *fp);
    *fp = (file_pool){.opts = opts, .n = n, .err_len = err_len};
    fp->jobs = xcalloc(n ? n : 1, sizeof *fp->jobs);
    for (size_t i = 0; i < n; i++) {
        fp->jobs[i].path = paths[i];
        fp->jobs[i].err = xcalloc(1, err_len);
        fp->jobs[i].skip = skip ? skip[i] : 0;
    }
    pthread_mutex_init(&fp->lock, NULL);
    pthread_cond_init(&fp->changed, NULL);
    pthread_attr_t attr; /* small stacks: the address space may be limited */
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)1 << 20);
    for (unsigned i = 0; i < workers && i < LOAD_AHEAD && i < n; i++)
        fp->started += pthread_create(&fp->threads[fp->started], &attr,
                                      file_worker, fp) == 0;
    pthread_attr_destroy(&attr);
    return fp;
}

file_job *file_pool_wait(file_pool *fp, size_t i)
{
    if (!fp->started) { /* no thread: read it here */
        if (!fp->jobs[i].skip)
            load_job(fp->opts, &fp->jobs[i], fp->err_len);
        return &fp->jobs[i];
    }
    pthread_mutex_lock(&fp->lock);
    while (!fp->jobs[i].done)
        pthread_cond_wait(&fp->changed, &fp->lock);
    pthread_mutex_unlock(&fp->lock);
    return &fp->jobs[i];
}

void file_pool_merged(file_pool *fp, size_t i, int quit)
{
    free_job(&fp->jobs[i]);
    pthread_mutex_lock(&fp->lock);
    fp->merged = i + 1;
    if (quit)
        fp->quit = 1; /* the rest is not needed */
    pthread_cond_broadcast(&fp->changed);
    pthread_mutex_unlock(&fp->lock);
}

void file_pool_end(file_pool *fp)
{
    pthread_mutex_lock(&fp->lock);
    fp->quit = 1;
    pthread_cond_broadcast(&fp->changed);
    pthread_mutex_unlock(&fp->lock);
    for (unsigned i = 0; i < fp->started; i++)
        pthread_join(fp->threads[i], NULL);
    for (size_t i = 0; i < fp->n; i++) { /* those left when it stopped */
        free_job(&fp->jobs[i]);
        free(fp->jobs[i].err);
    }
    pthread_mutex_destroy(&fp->lock);
    pthread_cond_destroy(&fp->changed);
    free(fp->jobs);
    free(fp);
}

/* Reads the regular files paths[0..n) in order, in parallel when there
 * are several files and cores. */
static int load_files(load_state *ls, char *const *paths, size_t n)
{
    unsigned workers = loader_threads(ls->opts);
    if (n < 2 || workers < 2) {
        int rc = TRACE_OK;
        for (size_t i = 0; i < n && rc == TRACE_OK; i++)
            rc = load_file(ls, paths[i]);
        return rc;
    }
    int *skip = xcalloc(n, sizeof *skip);
    for (size_t i = 0; i < n; i++) { /* the same file twice: in order */
        struct stat st;
        skip[i] = stat(paths[i], &st) == 0 && seen_before(ls, &st);
    }
    file_pool *fp = file_pool_start(ls->opts, paths, skip, n, ls->err_len,
                                    workers);
    free(skip);
    int rc = TRACE_OK;
    for (size_t i = 0; i < n && rc == TRACE_OK; i++) {
        rc = merge_job(ls, file_pool_wait(fp, i));
        file_pool_merged(fp, i, rc != TRACE_OK);
    }
    file_pool_end(fp);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_directory(const char *path, char ***names_out, uint32_t *n_out,
                   void (*skipped)(void *arg, const char *what), void *arg,
                   char *err, size_t err_len)
{
    *names_out = NULL;
    *n_out = 0;
    DIR *d = opendir(path);
    if (!d) {
        snprintf(err, err_len, "%s: cannot open directory: %s", path,
                 strerror(errno));
        return TRACE_ERR;
    }
    char **names = NULL;
    uint32_t n = 0, cap = 0;
    struct dirent *de;
    char what[8192];
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        size_t dir_len = strlen(path);
        while (dir_len > 1 && path[dir_len - 1] == '/')
            dir_len--;
        size_t len = dir_len + strlen(de->d_name) + 2;
        char *full = xmalloc(len);
        snprintf(full, len, "%.*s/%s", (int)dir_len, path, de->d_name);
        struct stat st;
        int found = stat(full, &st) == 0, e = errno;
        if (found && S_ISREG(st.st_mode)) {
            ALLOC_GROW(names, n + 1, cap);
            names[n++] = full;
            continue;
        }
        /* a dangling link, a link loop, a FIFO...: said, not skipped
         * silently (a subdirectory is not a trace file: skipped) */
        if (!found || !S_ISDIR(st.st_mode)) {
            snprintf(what, sizeof what, "%s: skipped: %s", full,
                     !found ? strerror(e) : "not a regular file");
            skipped(arg, what);
        }
        free(full);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    *names_out = names;
    *n_out = n;
    if (n == 0) {
        snprintf(err, err_len, "%s: directory holds no trace file", path);
        return TRACE_ERR;
    }
    return TRACE_OK;
}

/* list_directory()'s word on a file it skips, said at once. */
static void warn_skipped(void *arg, const char *what)
{
    load_state *ls = arg;
    ls->t->stats.files_skipped++;
    trace_warn(ls->t, ls->opts, "%s", what);
}

static int load_directory(load_state *ls, const char *path)
{
    char **names;
    uint32_t n;
    int rc = list_directory(path, &names, &n, warn_skipped, ls, ls->err,
                            ls->err_len);
    if (rc == TRACE_OK)
        rc = load_files(ls, names, n);
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int path_is_directory(const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return 1;
    if (S_ISREG(st.st_mode))
        return 0;
    /* a FIFO would block until a writer comes, a device may never end:
     * only standard input ("-") is read as a stream */
    snprintf(err, err_len, "%s: not a regular file (a FIFO, device or "
             "socket); give a stream as '-' on standard input", path);
    return -1;
}

int load_finish(load_state *ls, int rc, trace **out)
{
    free(ls->seen);
    /* stopped before any event: an empty, partial run, not bad input */
    if (rc == TRACE_OK && ls->t->n_events == 0 && !ls->t->stats.interrupted) {
        snprintf(ls->err, ls->err_len, "%s: no events in the trace",
                 ls->t->n_files ? ls->t->files[0] : "input");
        rc = TRACE_ERR;
    }
    if (rc == TRACE_OK)
        trace_derive(ls->t, ls->opts);
    if (rc != TRACE_OK) {
        trace_free(ls->t);
        *out = NULL;
        return TRACE_ERR;
    }
    interner_free(ls->t);
    *out = ls->t;
    return TRACE_OK;
}

size_t regular_files_from(const char *const *paths, size_t i,
                                 size_t n)
{
    size_t run = 0;
    struct stat st;
    while (i + run < n && strcmp(paths[i + run], "-") != 0 &&
           stat(paths[i + run], &st) == 0 && S_ISREG(st.st_mode))
        run++;
    return run;
}

int trace_load(const char *const *paths, size_t n_paths,
               const trace_options *opts, trace **out, char *err,
               size_t err_len)
{
    json_arena_install();
    load_state ls = {.t = xcalloc(1, sizeof(trace)), .opts = opts,
                     .err = err, .err_len = err_len};
    int rc = TRACE_OK;
    for (size_t i = 0; i < n_paths && rc == TRACE_OK; i++) {
        size_t run = regular_files_from(paths, i, n_paths);
        if (run) { /* read together, in parallel when several */
            rc = load_files(&ls, (char *const *)paths + i, run);
            i += run - 1;
        } else if (strcmp(paths[i], "-") == 0) {
            rc = load_file(&ls, paths[i]);
        } else {
            int dir = path_is_directory(paths[i], err, err_len);
            rc = dir < 0 ? TRACE_ERR : dir ? load_directory(&ls, paths[i])
                                           : load_file(&ls, paths[i]);
        }
    }
    return load_finish(&ls, rc, out);
}

int trace_load_buffer(const char *name, const char *data, size_t len,
                      const trace_options *opts, trace **out, char *err,
                      size_t err_len)
{
    json_arena_install();
    load_state ls = {.t = xcalloc(1, sizeof(trace)), .opts = opts,
                     .err = err, .err_len = err_len};
    return load_finish(&ls, load_bytes(&ls, name, data, len), out);
}

void trace_free(trace *t)
{
    if (!t)
        return;
    interner_free(t);
    interned_strings_free(t);
    free(t->strings);
    for (uint32_t i = 0; i < t->n_files; i++)
        free(t->files[i]);
    free(t->files);
    for (uint32_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].events);
    free(t->threads);
    free(t->events);
    free(t->objects);
    free(t->channels);
    free(t->handlers);
    for (uint32_t i = 0; i < t->n_matches; i++)
        free(t->matches[i].sends);
    free(t->matches);
    free(t->sections);
    for (uint32_t i = 0; i < t->n_waits; i++)
        free(t->waits[i].notifies);
    free(t->waits);
    free(t);
}
