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
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_trace_locks.h"

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
#define NAME(id, name, def, help) name,
static const char *const feature_name[] = {FEATURES(NAME)};
#define DEFAULT(id, name, def, help) def,
static const int feature_default[] = {FEATURES(DEFAULT)};
#define HELP(id, name, def, help) help,
static const char *const feature_help[] = {FEATURES(HELP)};

/* ---- random numbers -------------------------------------------------------- */

typedef struct rng { uint64_t s; } rng;

static uint32_t next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

static int chance(rng *r, int percent) { return (int)(next(r) % 100) < percent; }
static uint32_t below(rng *r, uint32_t n) { return n ? next(r) % n : 0; }

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    *cap = need * 2 + 16;
    p = realloc(p, *cap * size);
    if (!p) {
        perror("gen-trace");
        exit(2);
    }
    return p;
}

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

#define KNOB(s, f) chance(&(s)->r, (s)->knob[F_##f])
#define HIT(s, f) ((s)->hit[F_##f]++)

/* ---- output ---------------------------------------------------------------- */

enum { CREATE = 1, START, END, JOIN, LOG, R, W, SND, RCV, CLOSE, CONNECT,
       ACCEPT, SHUTDOWN, HANDLERBEGIN, HANDLEREND, LOCK, UNLOCK, WAIT, NOTIFY,
       NOTIFYALL };
static const char *const type_name[] = {
    NULL, "CREATE", "START", "END", "JOIN", "LOG", "R", "W", "SND", "RCV",
    "CLOSE", "CONNECT", "ACCEPT", "SHUTDOWN", "HANDLERBEGIN", "HANDLEREND",
    "LOCK", "UNLOCK", "WAIT", "NOTIFY", "NOTIFYALL"};
static const char *const type_alias[] = {
    NULL, "FORK", NULL, NULL, NULL, NULL, "READ", "WRITE", "SEND", "RECEIVE"};
static const char *const loc_kind[] = {
    NULL, "fork", "start", "end", "join", "log", "acc", "acc", "snd", "rcv",
    "close", "connect", "accept", "shutdown", "hb", "he", "lock", "unlock",
    "wait", "notify", "notify"};

static void write_object(sim *s, int node, const char *obj)
{
    out_file *o = &s->files[s->file_of[node]];
    FILE *f = o->f;
    switch (o->layout) {
    case 0:
        fprintf(f, "%s\n", obj);
        break;
    case 1:
        fprintf(f, "%s%s", o->objects ? ",\n" : "[\n", obj);
        break;
    case 2: /* one field a line */
        for (const char *c = obj; *c; c++) {
            if (*c == ',' && c[1] == '"')
                fputs(",\n  ", f);
            else if (*c == '{')
                fputs("{\n  ", f);
            else if (*c == '}' && !c[1])
                fputs("\n}", f);
            else
                fputc(*c, f);
        }
        fputc('\n', f);
        break;
    default: /* glued, now and then a line break */
        fputs(obj, f);
        if (below(&s->layout_r, 4) == 0)
            fputc('\n', f);
        break;
    }
    o->objects++;
}

/* A location: some shared between nodes so groups merge across nodes. */
static void loc(sim *s, char *buf, size_t len, int node, int type)
{
    if (KNOB(s, NO_LOC)) {
        buf[0] = '\0';          /* no loc: reported as thread#index */
        HIT(s, NO_LOC);
        return;
    }
    int shared = chance(&s->r, 50);
    snprintf(buf, len, ",\"loc\":\"app.%s.%u\"", loc_kind[type],
             below(&s->r, 4) + (shared ? 0 : 10 * (unsigned)(node + 1)));
}

static void emit(sim *s, int node, int thread, int type, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void emit(sim *s, int node, int thread, int type, const char *fmt, ...)
{
    char fields[512], l[64], obj[768], ty[32], ts[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fields, sizeof fields, fmt, ap);
    va_end(ap);
    if (s->force_loc)
        snprintf(l, sizeof l, "%s", s->force_loc);
    else
        loc(s, l, sizeof l, node, type);
    snprintf(s->last_loc, sizeof s->last_loc, "%s", l);
    snprintf(ty, sizeof ty, "\"%s\"", type_name[type]);
    snprintf(ts, sizeof ts, "%ld", s->step);
    if (KNOB(s, SPELLING)) {
        HIT(s, SPELLING);
        switch (below(&s->r, 4)) {
        case 0:
            snprintf(ty, sizeof ty, "%d", type);
            break;
        case 1:
            if (type < (int)(sizeof type_alias / sizeof *type_alias) &&
                type_alias[type]) {
                snprintf(ty, sizeof ty, "\"%s\"", type_alias[type]);
                break;
            }
            /* fall through */
        case 2:
            for (char *c = ty; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            break;
        default:
            snprintf(ts, sizeof ts, "\"%ld\"", s->step);
            break;
        }
    }
    s->step++;
    snprintf(obj, sizeof obj, "{\"thread\":\"t%d@10.0.0.%d\",\"timestamp\":%s,"
             "\"type\":%s%s%s}", thread, node + 1, ts, ty, fields, l);
    write_object(s, node, obj);
}

/* ---- names ----------------------------------------------------------------- */

enum { NAME_VAR, NAME_LOCK, NAME_COND };
static const char *const name_prefix[] = {"v", "lock", "cond"};

static const char *name(sim *s, int node, int kind, int k)
{
    static char buf[4][32];
    static int turn;
    char *b = buf[turn++ % 4];
    if (s->shared[node][kind][k]) {
        snprintf(b, 32, "%s%d", name_prefix[kind], k);
        s->name_nodes[kind][k] |= 1u << node;
    } else {
        snprintf(b, 32, "%s%d.n%d", name_prefix[kind], k, node + 1);
    }
    return b;
}

/* ---- events ---------------------------------------------------------------- */

static void emit_lock(sim *s, int n, int t, int k);
static void emit_unlock(sim *s, int n, int t, int k);

/* Both variables of a correlated pair, close together: one, 0-2 events,
 * the other.  Now and then under a free lock the thread takes for it. */
static void correlated_access(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    HIT(s, CORRELATED);
    int k = (int)below(&s->r, (uint32_t)s->pairs);
    int y_first = chance(&s->r, 35);
    int lock = -1;
    if (chance(&s->r, 25)) {
        int n_held = 0;
        for (int l = 0; l < LOCKS; l++)
            n_held += th->held[l] > 0;
        int l = (int)below(&s->r, LOCKS);
        if (!n_held && nd->lock_owner[l] == -1) {
            lock = l;
            emit_lock(s, n, t, l);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            for (int gap = (int)below(&s->r, 3); gap--;) {
                if (chance(&s->r, 60))
                    emit(s, n, t, LOG, "%s", "");
                else
                    emit(s, n, t, chance(&s->r, 50) ? W : R, ",\"variable\":\"%s\"",
                         name(s, n, NAME_VAR, (int)below(&s->r, VARS)));
            }
        emit(s, n, t, chance(&s->r, 50) ? W : R, ",\"variable\":\"%c%d\"",
             (i == 0) != y_first ? 'x' : 'y', k);
    }
    if (lock >= 0)
        emit_unlock(s, n, t, lock);
}

/* An access, or (a loop) one of the thread's last accesses again: the same
 * type, variable and loc; or (knob correlated) a correlated pair. */
static void access(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    if (s->knob[F_CORRELATED] && KNOB(s, CORRELATED)) {
        correlated_access(s, n, t);
        return;
    }
    if (th->n_recent && KNOB(s, REPEATS)) {
        HIT(s, REPEATS);
        struct recent *r = &th->recent[below(&s->r, (uint32_t)th->n_recent)];
        s->force_loc = r->loc;
        emit(s, n, t, r->type, ",\"variable\":\"%s\"", name(s, n, NAME_VAR, r->var));
        s->force_loc = NULL;
        return;
    }
    int type = chance(&s->r, 50) ? W : R, var = (int)below(&s->r, VARS);
    emit(s, n, t, type, ",\"variable\":\"%s\"", name(s, n, NAME_VAR, var));
    struct recent *r = &th->recent[th->n_recent < RECENT ? th->n_recent++
                                                          : (int)below(&s->r, RECENT)];
    r->type = type;
    r->var = var;
    snprintf(r->loc, sizeof r->loc, "%s", s->last_loc);
}

static uint32_t new_id(sim *s, int from, int to, int udp)
{
    uint32_t id = s->next_msg++;
    s->sent = grow(s->sent, &s->cap_sent, s->next_msg, sizeof *s->sent);
    s->sent[id].from = from;
    s->sent[id].to = to;
    s->sent[id].udp = udp;
    s->sent[id].received = 0;
    return id;
}

static const char *quote(sim *s) { return chance(&s->r, 50) ? "\"" : ""; }

static void deliver(sim *s, int to, message m)
{
    node_sim *dst = &s->node[to];
    dst->inbox = grow(dst->inbox, &dst->cap_inbox, dst->n_inbox + 1,
                      sizeof *dst->inbox);
    dst->inbox[dst->n_inbox++] = m;
}

static void send(sim *s, int n, int t)
{
    int to = (int)below(&s->r, (uint32_t)s->n_nodes);
    uint32_t size = 1 + below(&s->r, 20);
    if (KNOB(s, TCP)) {
        HIT(s, TCP);
        if (KNOB(s, TCP_IDS)) { /* TCP with ids: its own connection, in order */
            HIT(s, TCP_IDS);
            uint32_t id = new_id(s, n, to, 0);
            const char *q = quote(s);
            emit(s, n, t, SND, ",\"socket_type\":\"TCP\",\"message\":%s%u%s,"
                 "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                 "\"dst_port\":9002,\"size\":%u", q, id, q, n + 1, 8000 + to,
                 to + 1, size);
            deliver(s, to, (message){TCP_ID, n, id, size});
            return;
        }
        /* one to three writes in a row, as a message written in parts */
        for (int burst = 1 + (int)below(&s->r, 3); burst--;
             size = 1 + below(&s->r, 20)) {
            emit(s, n, t, SND, ",\"socket_type\":\"TCP\",\"src\":"
                 "\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                 "\"dst_port\":9000,\"size\":%u", n + 1, 7000 + to, to + 1, size);
            s->tcp = grow(s->tcp, &s->cap_tcp, s->n_tcp + 1, sizeof *s->tcp);
            s->tcp[s->n_tcp] = (tcp_send){size, 0};
            channel *c = &s->node[to].tcp_in[n];
            c->sends = grow(c->sends, &c->cap, c->n + 1, sizeof *c->sends);
            c->sends[c->n++] = (uint32_t)s->n_tcp++;
        }
        return;
    }
    /* a retransmission: an id this node sent before to the same node, so
     * that a receive follows one of several sends */
    uint32_t id = UINT32_MAX;
    if (s->next_msg && KNOB(s, DUP_SENDS)) {
        uint32_t k = below(&s->r, s->next_msg);
        for (uint32_t i = 0; i < s->next_msg && id == UINT32_MAX; i++) {
            uint32_t c = (k + i) % s->next_msg;
            if (s->sent[c].from == n && s->sent[c].udp)
                id = c;
        }
        if (id != UINT32_MAX) {
            HIT(s, DUP_SENDS);
            to = s->sent[id].to;
        }
    }
    if (id == UINT32_MAX)
        id = new_id(s, n, to, 1);
    const char *q = quote(s);
    emit(s, n, t, SND, ",\"socket_type\":\"UDP\",\"message\":%s%u%s"
         ",\"src\":\"10.0.0.%d\",\"src_port\":7000,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9001,\"size\":%u", q, id, q, n + 1, to + 1, size);
    if (KNOB(s, LOST_SENDS))
        return;
    deliver(s, to, (message){UDP, n, id, size});
    if (KNOB(s, DUP_RECEIVES))
        deliver(s, to, (message){UDP, n, id, size});
}

static void udp_rcv(sim *s, int n, int t, uint32_t id, int from, uint32_t size)
{
    const char *q = quote(s);
    emit(s, n, t, RCV, ",\"socket_type\":\"UDP\",\"message\":%s%u%s"
         ",\"src\":\"10.0.0.%d\",\"src_port\":7000,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9001,\"size\":%u", q, id, q, from + 1, n + 1, size);
}

/* Reads bytes of one TCP stream: more than its first unread SND (a merge),
 * part of it (a split), or exactly it. */
static void tcp_rcv(sim *s, int n, int t, int from)
{
    channel *c = &s->node[n].tcp_in[from];
    uint32_t head = s->tcp[c->sends[c->head]].remaining, rest = 0;
    for (size_t i = c->head + 1; i < c->n && i < c->head + 4; i++)
        rest += s->tcp[c->sends[i]].remaining;
    uint32_t take = head;
    if (rest && KNOB(s, TCP_MERGE))
        take = head + 1 + below(&s->r, rest);
    else if (head > 1 && KNOB(s, TCP_SPLIT))
        take = 1 + below(&s->r, head - 1);
    emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"src\":"
         "\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9000,\"size\":%u", from + 1, 7000 + n, n + 1, take);
    int touched = 0;
    while (take) {
        tcp_send *snd = &s->tcp[c->sends[c->head]];
        uint32_t k = take < snd->remaining ? take : snd->remaining;
        snd->remaining -= k;
        take -= k;
        touched++;
        if (++snd->readers == 2)
            HIT(s, TCP_SPLIT);
        if (!snd->remaining)
            c->head++;
    }
    if (touched > 1)
        HIT(s, TCP_MERGE);
}

static int receive(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    if (KNOB(s, ORPHAN_RECEIVES)) {
        HIT(s, ORPHAN_RECEIVES);
        uint32_t size = 1 + below(&s->r, 20);
        if (chance(&s->r, 50)) /* an id nothing in the trace sends */
            udp_rcv(s, n, t, 1000000 * (uint32_t)(n + 1) + nd->orphans++, 8, size);
        else /* a byte stream from an untraced host */
            emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"src\":\"10.0.9.9\","
                 "\"src_port\":6000,\"dst\":\"10.0.0.%d\",\"dst_port\":9000,"
                 "\"size\":%u", n + 1, size);
        nd->th[t].unhandled++;
        return 1;
    }
    int first = (int)below(&s->r, (uint32_t)s->n_nodes);
    for (int i = 0; i < s->n_nodes; i++) {
        int from = (first + i) % s->n_nodes;
        channel *c = &nd->tcp_in[from];
        if (c->head < c->n && chance(&s->r, 70)) {
            tcp_rcv(s, n, t, from);
            nd->th[t].unhandled++;
            return 1;
        }
    }
    if (!nd->n_inbox)
        return 0;
    size_t k = below(&s->r, (uint32_t)nd->n_inbox); /* any order: UDP */
    message m = nd->inbox[k];
    if (m.kind == TCP_ID) /* TCP keeps order: the first from that node */
        for (size_t i = 0; i < k; i++)
            if (nd->inbox[i].kind == TCP_ID && nd->inbox[i].from_node == m.from_node) {
                k = i;
                m = nd->inbox[k];
                break;
            }
    memmove(nd->inbox + k, nd->inbox + k + 1, (nd->n_inbox - k - 1) * sizeof *nd->inbox);
    nd->n_inbox--;
    if (s->sent[m.id].received++)
        HIT(s, DUP_RECEIVES);
    if (m.kind == TCP_ID) {
        const char *q = quote(s);
        emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"message\":%s%u%s,"
             "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
             "\"dst_port\":9002,\"size\":%u", q, m.id, q, m.from_node + 1,
             8000 + n, n + 1, m.size);
    } else {
        udp_rcv(s, n, t, m.id, m.from_node, m.size);
    }
    nd->th[t].unhandled++;
    return 1;
}

static void emit_lock(sim *s, int n, int t, int k)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    emit(s, n, t, LOCK, ",\"variable\":\"%s\"", name(s, n, NAME_LOCK, k));
    if (th->held[k])
        HIT(s, REENTRANT);
    if (th->depth)
        HIT(s, HANDLER_LOCKS);
    nd->lock_owner[k] = t;
    th->held[k]++;
}

static void emit_unlock(sim *s, int n, int t, int k)
{
    node_sim *nd = &s->node[n];
    emit(s, n, t, UNLOCK, ",\"variable\":\"%s\"", name(s, n, NAME_LOCK, k));
    if (--nd->th[t].held[k] == 0)
        nd->lock_owner[k] = -1;
}

static void lock_op(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    int held[LOCKS], n_held = 0;
    for (int k = 0; k < LOCKS; k++)
        if (th->held[k])
            held[n_held++] = k;
    if (n_held && KNOB(s, REENTRANT)) {
        emit_lock(s, n, t, held[below(&s->r, (uint32_t)n_held)]);
        return;
    }
    int k = (int)below(&s->r, LOCKS);
    if (th->held[k])
        emit_unlock(s, n, t, k);
    else if (nd->lock_owner[k] == -1)
        emit_lock(s, n, t, k);
}

static void fork_thread(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    if (nd->n_threads >= MAX_THREADS || th->n_children >= MAX_THREADS)
        return;
    int c = nd->n_threads++;
    emit(s, n, t, CREATE, ",\"child\":\"t%d@10.0.0.%d\"", c, n + 1);
    nd->th[c] = (thread_sim){.steps_left = 4 + (int)below(&s->r, 12), .wait_on = -1};
    if (KNOB(s, UNSTARTED_THREADS)) { /* it never runs */
        HIT(s, UNSTARTED_THREADS);
        nd->th[c].done = 1;
        th->joined_child[th->n_children] = chance(&s->r, 75);
    } else {
        th->joined_child[th->n_children] = 1;
    }
    th->children[th->n_children++] = c;
}

/* Wakes thread t waiting on v with a NOTIFY of another thread that no WAIT
 * consumed, or a NOTIFYALL that woke fewer than NOTIFYALL_WAKES: emits the
 * WAIT.  The latest notify first (several threads wake on one NOTIFYALL),
 * or any. */
static int try_wake(sim *s, int n, int t, int v)
{
    node_sim *nd = &s->node[n];
    size_t nt = nd->n_tokens[v];
    if (!nt)
        return 0;
    size_t first = chance(&s->r, 75) ? nt - 1 : below(&s->r, (uint32_t)nt);
    for (size_t i = 0; i < nt; i++) {
        token *k = &nd->tokens[v][(first + nt - i) % nt];
        if (k->thread == t || !k->wakes)
            continue;
        emit(s, n, t, WAIT, ",\"variable\":\"%s\"", name(s, n, NAME_COND, v));
        k->wakes--;
        if (!k->all)
            HIT(s, WAIT_NOTIFY);
        else if (k->woken++)
            HIT(s, NOTIFY_ALL);
        return 1;
    }
    return 0;
}

/* A WAIT consumes a NOTIFY of another thread, as a real wake-up would: a
 * thread that finds none blocks until one comes (or gives up after a
 * while, logging nothing).  A WAIT on the quiet condition follows no
 * notify at all (no thread ever notifies it).  A notify goes to a
 * condition some other thread waits on, if any. */
static void wait_notify(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    if (KNOB(s, UNNOTIFIED_WAITS)) {
        HIT(s, UNNOTIFIED_WAITS);
        emit(s, n, t, WAIT, ",\"variable\":\"%s\"",
             name(s, n, NAME_COND, QUIET_COND));
        return;
    }
    int v = (int)below(&s->r, QUIET_COND);
    if (chance(&s->r, 65)) {
        if (!try_wake(s, n, t, v)) {
            th->wait_on = v;
            th->patience = 20 + (int)below(&s->r, 40);
        }
        return;
    }
    for (int o = 0; o < nd->n_threads; o++)
        if (o != t && nd->th[o].wait_on >= 0 && !nd->th[o].done)
            v = nd->th[o].wait_on;
    int all = KNOB(s, NOTIFY_ALL);
    emit(s, n, t, all ? NOTIFYALL : NOTIFY, ",\"variable\":\"%s\"",
         name(s, n, NAME_COND, v));
    nd->tokens[v] = grow(nd->tokens[v], &nd->cap_tokens[v], nd->n_tokens[v] + 1,
                         sizeof **nd->tokens);
    nd->tokens[v][nd->n_tokens[v]++] =
        (token){t, all ? NOTIFYALL_WAKES : 1, all, 0};
    if (all) /* wakes every thread waiting on v at once; others may wait next */
        for (int o = 0; o < nd->n_threads; o++) {
            thread_sim *ot = &nd->th[o];
            if (o == t || ot->done || !ot->started || ot->ending)
                continue;
            if (ot->wait_on == v && try_wake(s, n, o, v))
                ot->wait_on = -1;
            else if (ot->wait_on < 0 && chance(&s->r, 60)) {
                ot->wait_on = v;
                ot->patience = 20 + (int)below(&s->r, 40);
            }
        }
}

static void open_handler(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    if (th->depth)
        HIT(s, NESTED_HANDLERS);
    if (th->unhandled)
        th->unhandled--;
    else
        HIT(s, NO_MESSAGE_HANDLERS);
    emit(s, n, t, HANDLERBEGIN, "%s", "");
    th->handler_left[th->depth++] = 1 + (int)below(&s->r, 6);
}

/* A received message may get a handler, with now and then a LOCK or LOG
 * between the RCV and the HANDLERBEGIN. */
static void receive_and_handle(sim *s, int n, int t, int handle_percent)
{
    if (!receive(s, n, t) || !chance(&s->r, handle_percent))
        return;
    if (KNOB(s, HANDLER_GAPS)) {
        HIT(s, HANDLER_GAPS);
        int k = (int)below(&s->r, LOCKS);
        node_sim *nd = &s->node[n];
        if (chance(&s->r, 60) && (nd->lock_owner[k] == -1 || nd->lock_owner[k] == t))
            emit_lock(s, n, t, k);
        else
            emit(s, n, t, LOG, "%s", "");
    }
    open_handler(s, n, t);
}

static void socket_event(sim *s, int n, int t)
{
    static const int kinds[] = {CONNECT, ACCEPT, CLOSE, SHUTDOWN};
    int peer = (int)below(&s->r, (uint32_t)s->n_nodes);
    HIT(s, SOCKET_EVENTS);
    emit(s, n, t, kinds[below(&s->r, 4)], ",\"socket_type\":\"TCP\","
         "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9000", n + 1, 7000 + peer, peer + 1);
}

static void stray_end(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    int k = (int)below(&s->r, LOCKS);
    if (!th->held[k]) {
        HIT(s, STRAY_ENDS);
        emit(s, n, t, UNLOCK, ",\"variable\":\"%s\"", name(s, n, NAME_LOCK, k));
    } else if (!th->depth) {
        HIT(s, STRAY_ENDS);
        emit(s, n, t, HANDLEREND, "%s", "");
    }
}

/* The thread's last events: it releases its locks (or, with open-locks,
 * keeps them, or takes a free one and keeps it), waits for its children,
 * JOINs them and ENDs — inside a handler when one is open. */
static void finish(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    if (!th->released) {
        th->released = 1;
        int keep = KNOB(s, OPEN_LOCKS);
        if (keep) {
            int n_held = 0;
            for (int k = 0; k < LOCKS; k++)
                n_held += th->held[k] > 0;
            int k = (int)below(&s->r, LOCKS);
            if (!n_held && nd->lock_owner[k] == -1)
                emit_lock(s, n, t, k);
        }
        for (int k = 0; k < LOCKS; k++) {
            if (keep && th->held[k]) {
                HIT(s, OPEN_LOCKS);
                continue;       /* held to the end: no one takes it after */
            }
            while (th->held[k])
                emit_unlock(s, n, t, k);
        }
    }
    for (int i = 0; i < th->n_children; i++)
        if (!nd->th[th->children[i]].done)
            return; /* wait for the child */
    for (int i = 0; i < th->n_children; i++)
        if (th->joined_child[i])
            emit(s, n, t, JOIN, ",\"child\":\"t%d@10.0.0.%d\"", th->children[i],
                 n + 1);
    th->n_children = 0;
    emit(s, n, t, END, "%s", "");
    s->hit[F_OPEN_HANDLERS] += th->depth;
    th->done = 1;
}

static void handler_step(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    if (th->handler_left[th->depth - 1]-- > 0) {
        if (th->depth < MAX_DEPTH && KNOB(s, NESTED_HANDLERS)) {
            int before = th->depth;
            receive_and_handle(s, n, t, 100);
            if (th->depth > before)
                return;
        }
        if (KNOB(s, HANDLER_LOCKS))
            lock_op(s, n, t);
        else if (KNOB(s, WAIT_NOTIFY))
            wait_notify(s, n, t);
        else if (chance(&s->r, 75))
            access(s, n, t);
        else
            send(s, n, t);
    } else if (th->steps_left <= 2 && KNOB(s, OPEN_HANDLERS)) {
        th->ending = 1;         /* the thread ends inside its handler */
        finish(s, n, t);
    } else {
        emit(s, n, t, HANDLEREND, "%s", "");
        th->depth--;
    }
}

/* One step of thread t of node n. */
static void step(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    if (!th->started) {
        th->started = 1;
        emit(s, n, t, START, "%s", "");
        return;
    }
    if (th->wait_on >= 0) {
        if (try_wake(s, n, t, th->wait_on) || --th->patience <= 0)
            th->wait_on = -1;
        return;
    }
    if (th->ending) {
        finish(s, n, t);
        return;
    }
    if (th->depth) {
        handler_step(s, n, t);
        return;
    }
    if (th->steps_left-- <= 0) {
        th->ending = 1;
        finish(s, n, t);
        return;
    }
    if (KNOB(s, WAIT_NOTIFY)) {
        wait_notify(s, n, t);
        return;
    }
    if (!th->unhandled && KNOB(s, NO_MESSAGE_HANDLERS)) {
        open_handler(s, n, t);
        return;
    }
    if (KNOB(s, STRAY_ENDS)) {
        stray_end(s, n, t);
        return;
    }
    if (KNOB(s, SOCKET_EVENTS)) {
        socket_event(s, n, t);
        return;
    }
    uint32_t pick = below(&s->r, 100);
    if (pick < 34)
        access(s, n, t);
    else if (pick < 49)
        send(s, n, t);
    else if (pick < 70)
        receive_and_handle(s, n, t, 70);
    else if (pick < 82)
        lock_op(s, n, t);
    else if (pick < 96)
        fork_thread(s, n, t);
    else
        emit(s, n, t, LOG, "%s", "");
}

static void run(sim *s, int steps)
{
    for (int n = 0; n < s->n_nodes; n++) {
        node_sim *nd = &s->node[n];
        nd->n_threads = 1;
        nd->th[0] = (thread_sim){.steps_left = steps / s->n_nodes, .wait_on = -1};
        for (int k = 0; k < LOCKS; k++)
            nd->lock_owner[k] = -1;
        for (int kind = 0; kind < 3; kind++)
            for (int k = 0; k < 8; k++)
                s->shared[n][kind][k] = KNOB(s, SHARED_NAMES);
    }
    for (;;) {
        int live[MAX_NODES * MAX_THREADS][2], n_live = 0;
        for (int n = 0; n < s->n_nodes; n++)
            for (int t = 0; t < s->node[n].n_threads; t++)
                if (!s->node[n].th[t].done) {
                    live[n_live][0] = n;
                    live[n_live++][1] = t;
                }
        if (!n_live)
            break;
        int k = (int)below(&s->r, (uint32_t)n_live);
        step(s, live[k][0], live[k][1]);
    }
    /* what the run never delivered */
    for (uint32_t id = 0; id < s->next_msg; id++)
        if (!s->sent[id].received)
            HIT(s, LOST_SENDS);
    for (size_t i = 0; i < s->n_tcp; i++)
        if (!s->tcp[i].readers)
            HIT(s, LOST_SENDS);
    for (int kind = 0; kind < 3; kind++)
        for (int k = 0; k < 8; k++)
            if (__builtin_popcount(s->name_nodes[kind][k]) > 1)
                HIT(s, SHARED_NAMES);
}

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
          "  --plain         set every knob to 0 (later knobs still apply)\n"
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
        s.pairs < 1 || s.pairs > MAX_PAIRS) {
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
        if ((int)below(&s.layout_r, 100) < s.knob[F_LAYOUTS]) {
            s.files[i].layout = 1 + (int)below(&s.layout_r, 3);
            HIT(&s, LAYOUTS);
        }
    }
    for (int n = 0; n < nodes; n++)
        s.file_of[n] = merged ? 0 : n;
    run(&s, steps);
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
