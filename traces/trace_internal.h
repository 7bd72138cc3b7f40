/*
 * trace_internal.h — shared by the files of the traces/ module only.
 */
#ifndef SPIDER_TRACE_INTERNAL_H
#define SPIDER_TRACE_INTERNAL_H

#include "../util/alloc.h"
#include "trace.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Grows arr (of cap elements) to hold at least need: ALLOC_GROW. */
#define ENSURE(arr, cap, need) ALLOC_GROW(arr, need, cap)

/* Interning: strings, (node, name) objects, channels, threads by name. */
str_id intern_str(trace *t, const char *s, size_t len);
/* The length of t->strings[id] (kept before its first byte). */
static inline size_t interned_len(const trace *t, str_id id)
{
    uint32_t len;
    memcpy(&len, t->strings[id] - sizeof len, sizeof len);
    return len;
}
/* ids[i] = intern_str(t, from's string i) for each of from's strings, in
 * order (the same ids), the table's cache misses overlapped: merging a
 * file's strings into a table of millions. */
void intern_strings_of(trace *t, const trace *from, str_id *ids);
/* Frees the storage of t's strings (trace_free). */
void interned_strings_free(trace *t);
uint32_t intern_object(trace *t, str_id node, str_id name);
uint32_t intern_channel(trace *t, const channel *c);
/* Returns the thread named `name`, creating it (and its node) if new. */
uint32_t intern_thread(trace *t, str_id name);
/* Looks a thread up without creating it; NONE if absent. */
int32_t find_thread(const trace *t, str_id name);
void interner_free(trace *t);

/* Emits a warning (counted in stats) to opts->warnings. */
void trace_warn(trace *t, const trace_options *opts, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Derives program order, handlers, matches, sections and waits once all
 * events are read. */
void trace_derive(trace *t, const trace_options *opts);

/* ---- the loader's steps (trace_load.c), shared with the split loader
 * (trace_ranks.c) ---- */

/* A load in progress: the trace being merged into, and the files read. */
typedef struct load_state {
    trace *t;
    const trace_options *opts;
    uint32_t files_cap, events_cap;
    char *err;
    size_t err_len;
    struct stat *seen;      /* files read so far, by device and inode */
    uint32_t n_seen, seen_cap;
} load_state;

/* Whether the file (dev, ino) was read already; remembers it if not. */
int seen_before(load_state *ls, const struct stat *st);
/* Counts and says that path is not read again (TRACE_OK). */
int skip_read_already(load_state *ls, const char *path);
/* How many of paths[i..n) are regular files, one after another. */
size_t regular_files_from(const char *const *paths, size_t i, size_t n);
/* The regular files of directory `path` in byte-wise name order, into
 * *names (the caller frees each and the array); skipped(arg, what) hears
 * each entry that is no regular file nor directory.  TRACE_ERR with a
 * message when it cannot be read or holds no trace file. */
int list_directory(const char *path, char ***names, uint32_t *n,
                   void (*skipped)(void *arg, const char *what), void *arg,
                   char *err, size_t err_len);
/* Whether path, not a regular file's run (regular_files_from()) nor
 * "-", is a directory (1) or a regular file (0); -1 with the message
 * when it cannot be read or is neither (a FIFO, a device). */
int path_is_directory(const char *path, char *err, size_t err_len);
/* Frees ls->seen; on TRACE_OK derives the trace into *out (an empty one
 * not stopped is an error), else frees it.  Returns rc or TRACE_ERR. */
int load_finish(load_state *ls, int rc, trace **out);

/* One file read into a trace of its own (a part), on a loader thread. */
typedef struct file_job {
    const char *path;
    int skip;                /* the same file as one before it */
    int done, rc;
    trace *part;
    char *err;               /* as large as the caller's buffer */
    char *warnings;          /* as printed, or NULL */
    size_t warnings_len;
} file_job;

/* Merges a job that is done into ls->t, its warnings printed: 0, or
 * TRACE_ERR with its message in ls->err. */
int merge_job(load_state *ls, file_job *job);
/* Frees a job's part and warnings. */
void free_job(file_job *job);

/* Loader threads reading files ahead of the merge, at most LOAD_AHEAD
 * files ahead of it. */
enum { LOAD_AHEAD = 4 };
typedef struct file_pool file_pool;
/* How many loader threads to start (opts->jobs, the cores, the address
 * space limit). */
unsigned loader_threads(const trace_options *opts);
/* Reads paths[0..n) (skip[i]: not read; skip may be NULL) on up to
 * `workers` threads; with fewer than one thread started, each file is
 * read when waited for. */
file_pool *file_pool_start(const trace_options *opts, char *const *paths,
                           const int *skip, size_t n, size_t err_len,
                           unsigned workers);
/* Job i, once read. */
file_job *file_pool_wait(file_pool *fp, size_t i);
/* Job i is merged: frees it and lets the threads read on (quit: they
 * stop, the rest is not needed). */
void file_pool_merged(file_pool *fp, size_t i, int quit);
/* Stops the threads and frees the pool and the jobs left. */
void file_pool_end(file_pool *fp);
/* Appends part (one file's trace) to ls->t: its file, strings, threads,
 * objects, channels and events, renumbered.  0 when the events would be
 * too many. */
int merge_part(load_state *ls, const trace *part);
/* A part's counts of what was read (kinds, skipped events and files,
 * cut-off files, a stop) added to `to`; not its warnings, which the
 * caller counts as it prints them. */
void add_part_stats(trace_stats *to, const trace_stats *from);

/* ---- the plan of a split load (trace_ranks.c), shared with the share
 * loader (trace_share.c) ---- */

struct comm;
typedef enum step_kind {
    STEP_READ,          /* a file: its owner reads it */
    STEP_READ_ALREADY,  /* a file read before (the same device and inode) */
    STEP_SKIPPED,       /* a directory's entry that is no file: a warning */
    STEP_ERROR          /* the load fails here, with this message */
} step_kind;

typedef struct load_step {
    step_kind kind;
    unsigned owner;     /* STEP_READ */
    uint64_t size;      /* STEP_READ: bytes */
    char *text;         /* the path, the warning or the message */
} load_step;

typedef struct load_plan {
    load_step *steps;
    uint32_t n, cap;
    load_state seen;    /* only its list of files seen */
} load_plan;

/* Plans the load of paths as trace_load() walks them (stops after the
 * first STEP_ERROR). */
void plan_make(load_plan *p, const char *const *paths, size_t n);
void plan_free(load_plan *p);
/* Whether every rank planned the same; when not, the message of each
 * (*elsewhere: another rank's path failed, it says why). */
int plans_agree(struct comm *c, const load_plan *p, char *err,
                size_t err_len, int *elsewhere);
/* The files to the ranks by the sizes rank 0 saw (comm_deal()), so that
 * every rank deals the same.  0, or -1 when the broadcast failed. */
int plan_deal(load_plan *p, struct comm *c);
/* A collective operation failed (MPI's): TRACE_ERR, said in err. */
int ranks_lost(char *err, size_t err_len);
/* trace_derive(), except that the events flagged in index_given keep
 * their input_index (NULL: none do). */
void trace_derive_keeping(trace *t, const trace_options *opts,
                          const uint8_t *index_given);

#endif
