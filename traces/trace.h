/*
 * trace.h — the event model of a multi-node run and the Falcon loader.
 *
 * trace_load() reads Falcon ("taz") JSON traces — files or directories,
 * JSON arrays or streams of objects — and derives, once, every fact the
 * later steps need: program order, handler binding, message matching, lock
 * sections and wait/notify candidates (docs/trace-format.md and
 * docs/model.md say what each means).  Nothing after this module looks at
 * JSON.
 *
 * Ownership: a trace owns every array and string reachable from it; the
 * caller owns the trace returned by trace_load() and frees it with
 * trace_free().  Pointers into a trace stay valid until trace_free().
 * Nothing here mutates a trace after trace_load() returns.
 */
#ifndef SPIDER_TRACE_H
#define SPIDER_TRACE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#define TRACE_OK 0
#define TRACE_ERR (-1)
/* trace_load_ranks(): another rank failed (it says why) */
#define TRACE_ERR_ELSEWHERE (-2)

/* Id of an interned string; STR_NONE stands for "absent". */
typedef uint32_t str_id;
#define STR_NONE UINT32_MAX
#define NONE (-1)

/* Event kinds; the values are the Falcon integer codes. */
typedef enum event_kind {
    EV_CREATE = 1, EV_START, EV_END, EV_JOIN, EV_LOG, EV_READ, EV_WRITE,
    EV_SND, EV_RCV, EV_CLOSE, EV_CONNECT, EV_ACCEPT, EV_SHUTDOWN,
    EV_HANDLERBEGIN, EV_HANDLEREND, EV_LOCK, EV_UNLOCK, EV_WAIT, EV_NOTIFY,
    EV_NOTIFYALL
} event_kind;
#define EV_KIND_MAX EV_NOTIFYALL

/* Canonical upper-case name of a kind ("R", "SND", ...). */
const char *event_kind_name(event_kind kind);

typedef struct event {
    uint8_t kind;          /* event_kind */
    uint8_t tcp;           /* SND/RCV: socket_type is "TCP" */
    uint32_t thread;       /* index into trace.threads */
    uint32_t pos;          /* position in its thread's program order */
    uint32_t input_index;  /* 0-based position in its thread in the input */
    str_id loc;            /* source location, or STR_NONE */
    int32_t object;        /* R/W/LOCK/UNLOCK/WAIT/NOTIFY*: shared object;
                              CREATE/JOIN: child thread; SND/RCV: channel;
                              NONE otherwise */
    str_id message;        /* SND/RCV: canonical message id, or STR_NONE */
    int64_t size;          /* SND/RCV: bytes, or -1 */
    int64_t timestamp;     /* 0 when absent */
    uint32_t file;         /* index into trace.files */
    uint32_t line;         /* 1-based line of the object's opening brace */
    int32_t handler;       /* innermost handler holding it, or NONE */
    int32_t match;         /* RCV: index into trace.matches, or NONE */
} event;

typedef struct thread_info {
    str_id name;           /* "tid@node" as written */
    str_id node;
    uint32_t *events;      /* event ids in program order */
    uint32_t n_events;
    int32_t create;        /* the CREATE that forks it, or NONE */
} thread_info;

/* A variable or lock: shared state is per node. */
typedef struct shared_object {
    str_id node;
    str_id name;
} shared_object;

/* A directed channel (src, src_port, dst, dst_port). */
typedef struct channel {
    str_id src, src_port, dst, dst_port;
} channel;

typedef struct handler {
    uint32_t thread;
    int32_t rcv;           /* the RCV it handles, or NONE (handler of no message) */
    uint32_t begin;        /* HANDLERBEGIN event */
    uint32_t last;         /* HANDLEREND event, or the thread's last event */
    int32_t parent;        /* enclosing handler, or NONE */
} handler;

/* How a RCV is matched to sends: it follows one of `sends` (ANY, by message
 * id) or all of them (ALL, TCP byte stream).  sends[0] is "its send". */
typedef struct rcv_match {
    uint32_t rcv;
    uint32_t *sends;
    uint32_t n_sends;
    uint8_t all;
} rcv_match;

/* An outermost LOCK..UNLOCK pair of one thread. */
typedef struct lock_section {
    uint32_t thread;
    uint32_t lock;         /* shared object */
    uint32_t acquire;      /* LOCK event */
    int32_t release;       /* UNLOCK event, or NONE when never released */
} lock_section;

/* A WAIT and the NOTIFY/NOTIFYALL events of other threads that may wake it. */
typedef struct wait_info {
    uint32_t wait;
    uint32_t *notifies;
    uint32_t n_notifies;
} wait_info;

typedef struct trace_stats {
    uint64_t by_kind[EV_KIND_MAX + 1];
    uint32_t rcvs_matched, rcvs_unmatched, sends_unreceived;
    uint32_t handlers_without_message, handlers_unclosed, handler_ends_ignored;
    uint32_t sections_unreleased, unlocks_ignored;
    uint32_t events_skipped;        /* --lenient: bad events dropped */
    uint32_t truncated_files;       /* last object cut off */
    uint32_t files_skipped;         /* unreadable, special or read twice */
    uint32_t joins_unknown;         /* JOIN of a thread with no events */
    uint32_t warnings;
    uint8_t interrupted;            /* the stop flag ended the reading */
} trace_stats;

typedef struct trace {
    char **strings;        /* interned strings, by str_id; they live in
                              string_blocks (trace_free frees them) */
    uint32_t n_strings;
    char **files;          /* paths as read, in reading order */
    uint32_t n_files;
    event *events;         /* every event, in input order */
    uint32_t n_events;
    thread_info *threads;  /* in order of first appearance */
    uint32_t n_threads;
    uint32_t n_nodes;
    shared_object *objects;
    uint32_t n_objects;
    channel *channels;
    uint32_t n_channels;
    handler *handlers;     /* ordered by HANDLERBEGIN event id */
    uint32_t n_handlers;
    rcv_match *matches;
    uint32_t n_matches;
    lock_section *sections;
    uint32_t n_sections;
    wait_info *waits;
    uint32_t n_waits;
    trace_stats stats;
    void *interner;        /* private */
    void *string_blocks;   /* private: the strings' storage */
} trace;

typedef enum trace_order { ORDER_FILE, ORDER_TIMESTAMP } trace_order;

typedef struct trace_options {
    trace_order order;
    int lenient;           /* skip bad events with a warning */
    FILE *warnings;        /* where warnings go; NULL = count them only */
    uint64_t *bytes_read;  /* progress (spider/cli/progress.h): bytes read so
                              far, stored atomically as they come; or NULL */
    const volatile sig_atomic_t *stop; /* set (SIGINT/SIGTERM): stop reading
                              at the next object; the trace holds what was
                              read, stats.interrupted says so; or NULL */
    unsigned jobs;         /* files read at once, each on a thread (0: one
                              per CPU); at most 4, and 1 under a small
                              address-space limit */
    size_t window;         /* bytes of a file read at a time, at first (0:
                              TRACE_WINDOW; the tests make it tiny, to cut
                              objects and line ends at every byte) */
} trace_options;

/* A file is read TRACE_WINDOW bytes at a time, not whole.  The window
 * doubles while the text it must keep (the object being read) fills more
 * than half of it, and never shrinks; a malformed object or stray text
 * makes it hold the rest of the file (the loader looks for the next
 * object there). */
#define TRACE_WINDOW ((size_t)256 << 10)

/* Reads `paths` (files, or directories whose regular files are read in
 * byte-wise name order) into a new trace.  Several files (of a directory,
 * or given one after another) are read on opts->jobs threads and merged
 * in order: the trace, warnings and errors are those of reading them one
 * by one.  On error returns TRACE_ERR with
 * a one-line message "file:line:col: what is wrong" in err. */
int trace_load(const char *const *paths, size_t n_paths,
               const trace_options *opts, trace **out,
               char *err, size_t err_len);

/* trace_load() over the ranks of c (util/comm.h), called by every rank
 * alike: each rank reads the files dealt to it (by size) and every file's
 * events go to every rank in order, so that each rank's trace, warnings
 * (opts->warnings of each) and errors are those of trace_load() (progress
 * counts the bytes of every file).  With root_only, rank 0 alone merges
 * them (ranks that are threads of one process share its trace) and the
 * others get NULL.  The ranks' paths must name the same files: when they
 * do not, every rank fails with a message, the one whose own path cannot
 * be read with that, the others with TRACE_ERR_ELSEWHERE. */
struct comm;
int trace_load_ranks(const char *const *paths, size_t n_paths,
                     const trace_options *opts, struct comm *c, int root_only,
                     trace **out, char *err, size_t err_len);

/* A rank's share of a split run's trace (trace_load_share()).  Nodes
 * are owned by ranks, each node by one; the share holds the events of
 * the rank's own nodes and, of the other nodes, the message endpoints
 * that may match its own: every SND of a message id one of its RCVs
 * names, every RCV of a message id one of its SNDs names, and, for TCP
 * byte streams, every SND or RCV on a channel its own events use from
 * the other side.  Its events are in the whole trace's order. */
typedef struct trace_share {
    trace *t;              /* derived as trace_load() derives a trace; its
                              own threads' pos and input_index are the
                              whole trace's, and so is every endpoint's
                              input_index (not its pos); its stats and
                              matches are the share's own (warnings of
                              the derived facts are counted, not printed) */
    uint32_t *global;      /* t's event i is the whole trace's global[i] */
    uint8_t *foreign;      /* t's event i is another rank's endpoint */
    uint32_t n_events;     /* events in the whole trace */
    uint32_t n_files;      /* files in the whole trace (trace.n_files) */
    uint32_t n_nodes;      /* nodes in the whole trace */
    uint32_t *node_owner;  /* the whole trace's nodes in order of first
                              appearance: the rank of each */
    trace_stats whole;     /* of reading every file: kinds, skipped events
                              and files, cut-off files, warnings */
} trace_share;

/* Every rank of c (util/comm.h) reads its share of `paths` (called by
 * every rank alike).  The files are dealt out by size and each is read
 * by one rank, then the nodes are dealt out: a node whose files hold
 * no other node stays with the rank that read them when that is one
 * rank, the others go by events to the ranks with the fewest; each
 * file's events go to their nodes' owners and to the ranks whose events
 * they may match.  Rank 0 prints the files' warnings (opts->warnings) in
 * order, as trace_load() does, but not the derived facts' warnings.  On
 * error every rank returns TRACE_ERR with the message trace_load() gives
 * (or, when the ranks' paths differ, as trace_load_ranks() says). */
/* The share's own messages as trace_derive() counts them over the whole
 * trace (matched_receives ..., trace_stats): its receives matched and
 * not, and its sends never received, with the first of each by event
 * (its index in s->t; UINT32_MAX when none). */
typedef struct trace_share_messages {
    uint32_t rcvs_matched, rcvs_unmatched, sends_unreceived;
    uint32_t first_unmatched, first_unreceived;
} trace_share_messages;
void trace_share_count_messages(const trace_share *s,
                                trace_share_messages *out);
/* Every rank of c with its share: rank 0 gives trace_derive()'s warnings
 * of the whole trace's sends never received and receives with no send
 * (trace_warn_unmatched(), into opts->warnings and s->t's count).
 * Returns how many rank 0 gave (0 elsewhere), or -1 when the ranks lost
 * each other. */
int trace_share_warn_unmatched(const trace_share *s, struct comm *c,
                               const trace_options *opts);

int trace_load_share(const char *const *paths, size_t n_paths,
                     const trace_options *opts, struct comm *c,
                     trace_share *out, char *err, size_t err_len);
void trace_share_free(trace_share *s);

/* Sends never received and receives with no send in the trace, the
 * first of each (in event order) at file:line. */
typedef struct trace_unmatched {
    uint32_t sends, rcvs;
    const char *send_file;
    uint32_t send_line;
    const char *rcv_file;
    uint32_t rcv_line;
} trace_unmatched;
/* The warnings trace_derive() gives of them (none for a count of 0),
 * counted in t's stats.  Returns how many it gave. */
unsigned trace_warn_unmatched(trace *t, const trace_options *opts,
                              const trace_unmatched *u);

/* Same as trace_load(), from one in-memory buffer named `name` (used by tests and fuzzing). */
int trace_load_buffer(const char *name, const char *data, size_t len,
                      const trace_options *opts, trace **out,
                      char *err, size_t err_len);

void trace_free(trace *t);

static inline const char *trace_str(const trace *t, str_id id)
{
    return id == STR_NONE ? NULL : t->strings[id];
}

static inline int event_is_access(const event *e)
{
    return e->kind == EV_READ || e->kind == EV_WRITE;
}

/* An id for the location of event e, equal for events with the same
 * `loc`: its interned `loc`, or (no `loc`) one of its own past every
 * string id. */
static inline uint32_t trace_loc_id(const trace *t, uint32_t e)
{
    return t->events[e].loc != STR_NONE ? t->events[e].loc : t->n_strings + e;
}

/* The location of an event as reported: its `loc`, or "thread#index".
 * Writes into buf and returns it. */
const char *event_location(const trace *t, uint32_t ev, char *buf, size_t len);
/* The same, whole however long the thread name is; the caller frees it. */
char *event_location_dup(const trace *t, uint32_t ev);

#endif
