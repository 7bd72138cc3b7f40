/*
 * gen_trace_state.h — the state of gen-trace's simulated run (the default
 * shape; tests/gen_trace.c says what it simulates): the limits, the knobs
 * and coverage counts (one X-macro, FEATURES, names them all), the nodes,
 * their threads, the messages in flight and the output files.
 *
 * One `sim` holds a whole run; main (gen_trace.c) owns it, opens and
 * closes its files.  The arrays that grow during the run (inbox, sent,
 * tcp, tokens, a channel's sends) are never freed: the process ends with
 * the run.
 */
#ifndef SPIDER_GEN_TRACE_STATE_H
#define SPIDER_GEN_TRACE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen_trace_rng.h"

enum { MAX_NODES = 6, MAX_THREADS = 6, VARS = 3, LOCKS = 3, CONDS = 3,
       MAX_PAIRS = 1000, DEFAULT_PAIRS = 2,
       QUIET_COND = CONDS - 1, /* waited on, never notified */
       MAX_DEPTH = 3, NOTIFYALL_WAKES = 3, RECENT = 3 };

/* ---- knobs and coverage --------------------------------------------------- */

#define FEATURES(X)                                                            \
    X(OPEN_LOCKS, "open-locks", 35,                                            \
      "a thread that ends keeps the locks it holds (or takes a free one)\n"    \
      "and never releases them: no other thread takes them after; count:\n"   \
      "LOCKs never released")                                                  \
    X(REENTRANT, "reentrant", 35,                                              \
      "a lock operation of a thread holding a lock re-takes it (nested\n"      \
      "LOCK/UNLOCK); count: re-entrant LOCKs")                                 \
    X(REPEATS, "repeats", 25,                                                 \
      "an access repeats one of the thread's last 3 accesses (type,\n"         \
      "variable, loc), as a loop does; count")                                 \
    X(HANDLER_LOCKS, "handler-locks", 20,                                      \
      "a handler step is a lock operation; count: LOCKs inside handlers")      \
    X(HANDLER_GAPS, "handler-gaps", 20,                                        \
      "a LOCK or LOG stands between a RCV and its HANDLERBEGIN; count")        \
    X(WAIT_NOTIFY, "wait-notify", 18,                                           \
      "a step is a WAIT or NOTIFY; count: WAITs woken by a NOTIFY")            \
    X(NOTIFY_ALL, "notify-all", 40,                                            \
      "a notify is a NOTIFYALL (wakes the threads waiting and later ones,\n"   \
      "3 WAITs in all); count: WAITs beyond the first woken by one\n"          \
      "NOTIFYALL (more waits than notifies)")                                  \
    X(UNNOTIFIED_WAITS, "unnotified-waits", 12,                                \
      "a wait/notify step WAITs on a condition no other thread notifies;\n"    \
      "count")                                                                 \
    X(TCP, "tcp", 35, "a send is a TCP byte stream; count: TCP SNDs")          \
    X(TCP_SPLIT, "tcp-split", 40,                                              \
      "a TCP RCV takes part of the first unread SND; count: SNDs consumed\n"   \
      "by several RCVs")                                                       \
    X(TCP_MERGE, "tcp-merge", 50,                                              \
      "a TCP RCV takes more than the first unread SND; count: RCVs\n"          \
      "consuming several SNDs")                                                \
    X(TCP_IDS, "tcp-ids", 25,                                                  \
      "a TCP SND/RCV carries a message id (matched by id, in order);\n"        \
      "count: such SNDs")                                                      \
    X(DUP_SENDS, "dup-sends", 20,                                              \
      "a UDP send re-sends an id the node sent before; count")                 \
    X(DUP_RECEIVES, "dup-receives", 25,                                        \
      "a UDP message is delivered twice; count: RCVs of an id received\n"      \
      "before")                                                                \
    X(LOST_SENDS, "lost-sends", 8,                                             \
      "a UDP message is dropped; count: SNDs never received (UDP ids no\n"     \
      "RCV got, TCP SNDs no RCV read; some are left unread at the end of\n"    \
      "the run even at 0)")                                                    \
    X(ORPHAN_RECEIVES, "orphan-receives", 8,                                   \
      "a receive gets a message whose send is not in the trace (an id never\n" \
      "sent, a channel from an untraced host); count")                         \
    X(NO_MESSAGE_HANDLERS, "no-message-handlers", 3,                           \
      "a step opens a handler with no unhandled RCV before it; count")         \
    X(NESTED_HANDLERS, "nested-handlers", 20,                                  \
      "a handler step receives and opens a nested handler; count")             \
    X(OPEN_HANDLERS, "open-handlers", 40,                                      \
      "when a handler's work is done near the end of its thread's steps,\n"   \
      "the thread ends inside it instead of HANDLEREND; count: handlers\n"    \
      "open at thread end")                                                    \
    X(UNSTARTED_THREADS, "unstarted-threads", 35,                              \
      "a CREATE makes a thread that never runs (no events; JOINed 3 times\n"   \
      "in 4); count")                                                          \
    X(SHARED_NAMES, "shared-names", 80,                                        \
      "a node names a variable, lock or condition like the other nodes do\n"  \
      "(else with its own suffix); count: names used on several nodes")       \
    X(NO_LOC, "no-loc", 8, "an event has no loc; count")                       \
    X(SPELLING, "spelling", 10,                                                \
      "an event's type is an integer code, an alias or lower case, or its\n"   \
      "timestamp a numeric string; count")                                     \
    X(STRAY_ENDS, "stray-ends", 3,                                             \
      "a step is an UNLOCK of a lock not held or a HANDLEREND outside any\n"   \
      "handler (both ignored, with a warning); count")                         \
    X(SOCKET_EVENTS, "socket-events", 4,                                       \
      "a step is a CONNECT, ACCEPT, CLOSE or SHUTDOWN; count")                 \
    X(LAYOUTS, "layouts", 50,                                                  \
      "a file is a JSON array, pretty-printed or glued `}{` instead of one\n"  \
      "object a line; count: such files")                                      \
    X(CORRELATED, "correlated", 12,                                            \
      "an access step touches a correlated pair (xK, yK) of its node (of\n"   \
      "--pairs): one, 0-2 events (LOG or an access), the other, in either\n"  \
      "order, each R or W, sometimes under a lock taken for the pair;\n"      \
      "count: such steps")

#define ENUM(id, name, def, help) F_##id,
enum { FEATURES(ENUM) N_FEATURES };

/* ---- simulation state ------------------------------------------------------ */

enum { UDP, TCP_ID };

typedef struct message {       /* a datagram or id-carrying TCP message in flight */
    int kind, from_node;
    uint32_t id, size;
} message;

typedef struct tcp_send {      /* one TCP byte-stream SND */
    uint32_t remaining;        /* bytes no RCV has read yet */
    int readers;               /* RCVs that read some of its bytes */
} tcp_send;

typedef struct channel {       /* TCP byte stream from one node to another */
    uint32_t *sends;           /* indices into sim.tcp, in send order */
    size_t n, head, cap;
} channel;

typedef struct token {         /* a NOTIFY/NOTIFYALL not used up */
    int thread, wakes;
    int all, woken;
} token;

typedef struct thread_sim {
    int started, done, ending, released;
    int wait_on, patience;     /* blocked in a WAIT on that condition, -1 not */
    int steps_left;
    int held[LOCKS];           /* re-entrant depth */
    int depth;                 /* open handlers */
    int handler_left[MAX_DEPTH];
    int unhandled;             /* RCVs with no handler yet (spider's rule) */
    struct recent { int type, var; char loc[64]; } recent[RECENT];
    int n_recent;              /* accesses a loop may repeat */
    int children[MAX_THREADS];
    int joined_child[MAX_THREADS];
    int n_children;
} thread_sim;

typedef struct node_sim {
    thread_sim th[MAX_THREADS];
    int n_threads;
    int lock_owner[LOCKS];     /* thread index, -1 free */
    message *inbox;
    size_t n_inbox, cap_inbox;
    channel tcp_in[MAX_NODES]; /* byte streams from each node */
    token *tokens[CONDS];
    size_t n_tokens[CONDS], cap_tokens[CONDS];
    uint32_t orphans;          /* orphan messages received so far */
} node_sim;

typedef struct out_file {
    FILE *f;
    int layout;                /* 0 lines, 1 array, 2 pretty, 3 glued */
    long objects;
} out_file;

typedef struct sim {
    rng r, layout_r;
    int knob[N_FEATURES];
    long hit[N_FEATURES];
    int pairs;                 /* correlated pairs per node (--pairs) */
    int functions;             /* --functions: accesses' functions, or 0 */
    int no_locks;              /* --no-locks: LOCK and UNLOCK written as LOG */
    int n_nodes;
    node_sim node[MAX_NODES];
    out_file files[MAX_NODES];
    int file_of[MAX_NODES];
    long step;
    const char *force_loc;     /* the next event's loc field, if set */
    char last_loc[64];         /* the last event's loc field */
    uint32_t next_msg;         /* UDP/TCP ids */
    struct { int from, to, udp; uint32_t received; } *sent; /* by id */
    size_t cap_sent;
    tcp_send *tcp;
    size_t n_tcp, cap_tcp;
    /* names used: [kind][index] -> bitmask of nodes (shared names only) */
    unsigned name_nodes[3][8];   /* [kind][index]: nodes using the shared name */
    int shared[MAX_NODES][3][8]; /* is that name shared on that node */
} sim;

#define KNOB(s, f) gen_rng_chance(&(s)->r, (s)->knob[F_##f])
#define HIT(s, f) ((s)->hit[F_##f]++)

#endif
