/*
 * gen_trace.c — random Falcon traces for differential tests.
 *
 *   gen-trace --seed S [--nodes N] [--steps K] (-o DIR | --merged FILE)
 *
 * Simulates one real run of a small distributed program — threads that
 * fork, join, read and write shared variables, take locks, send UDP
 * messages (with ids) and TCP byte streams (without), handle received
 * messages in handlers and wait/notify — and writes what a tracer would
 * log.  Because the trace is an observed run, its model is satisfiable.
 * -o writes one file per node; --merged writes one file in global order.
 * Both hold the same program order, so they must give the same report.
 * The same seed gives the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_NODES = 6, MAX_THREADS = 4, VARS = 3, LOCKS = 2, MAX_PENDING = 64,
       MAX_DEPTH = 2 };

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

typedef struct message {
    int tcp, from_node;
    uint32_t id, size;
} message;

typedef struct thread_sim {
    int alive, started, done;
    int steps_left;
    int held[LOCKS];          /* re-entrant depth */
    int in_handler;
    int handler_left;
    int children[MAX_THREADS];
    int n_children;
    int waiting_notify;
} thread_sim;

typedef struct node_sim {
    thread_sim th[MAX_THREADS];
    int n_threads;
    int lock_owner[LOCKS];    /* thread index, -1 free */
    message inbox[MAX_PENDING];
    int n_inbox;
    uint32_t tcp_in[MAX_NODES];  /* unread TCP bytes from each node */
    int notified[VARS][MAX_THREADS]; /* notifies not yet consumed, by thread */
} node_sim;

typedef struct sim {
    rng r;
    int n_nodes;
    node_sim node[MAX_NODES];
    FILE *out[MAX_NODES];
    long step;
    uint32_t next_msg;
} sim;

static void emit(sim *s, int node, int thread, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void emit(sim *s, int node, int thread, const char *fmt, ...)
{
    FILE *f = s->out[node];
    fprintf(f, "{\"thread\":\"t%d@10.0.0.%d\",\"timestamp\":%ld", thread,
            node + 1, s->step++);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputs("}\n", f);
}

/* A location: some shared between nodes so groups merge across nodes. */
static void loc(sim *s, char *buf, size_t len, int node, const char *what)
{
    if (chance(&s->r, 8)) {
        buf[0] = '\0';          /* no loc: reported as thread#index */
        return;
    }
    int shared = chance(&s->r, 50);
    snprintf(buf, len, ",\"loc\":\"app.%s.%u\"", what,
             below(&s->r, 4) + (shared ? 0 : 10 * (unsigned)(node + 1)));
}

static void access(sim *s, int n, int t)
{
    char l[64];
    loc(s, l, sizeof l, n, "acc");
    emit(s, n, t, ",\"type\":\"%s\",\"variable\":\"v%u\"%s",
         chance(&s->r, 50) ? "R" : "W", below(&s->r, VARS), l);
}

static void send(sim *s, int n, int t)
{
    int to = (int)below(&s->r, (uint32_t)s->n_nodes);
    node_sim *dst = &s->node[to];
    char l[64];
    loc(s, l, sizeof l, n, "snd");
    uint32_t size = 1 + below(&s->r, 20);
    if (chance(&s->r, 30)) { /* TCP byte stream, no message id */
        emit(s, n, t, ",\"type\":\"SND\",\"socket_type\":\"TCP\",\"src\":"
             "\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\",\"dst_port\":"
             "9000,\"size\":%u%s", n + 1, 7000 + to, to + 1, size, l);
        dst->tcp_in[n] += size;
        return;
    }
    /* now and then a retransmission: an id sent before, so that a receive
     * follows one of several sends */
    uint32_t id = s->next_msg && chance(&s->r, 6) ? below(&s->r, s->next_msg)
                                                  : s->next_msg++;
    const char *quote = chance(&s->r, 50) ? "\"" : ""; /* ids as both */
    emit(s, n, t, ",\"type\":\"SND\",\"socket_type\":\"UDP\",\"message\":%s%u%s"
         ",\"src\":\"10.0.0.%d\",\"src_port\":7000,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9001,\"size\":%u%s",
         quote, id, quote, n + 1, to + 1, size, l);
    if (dst->n_inbox < MAX_PENDING && !chance(&s->r, 5))
        dst->inbox[dst->n_inbox++] = (message){0, n, id, size};
}

static int receive(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    char l[64];
    loc(s, l, sizeof l, n, "rcv");
    for (int from = 0; from < s->n_nodes; from++)
        if (nd->tcp_in[from] && chance(&s->r, 50)) {
            uint32_t take = 1 + below(&s->r, nd->tcp_in[from]);
            nd->tcp_in[from] -= take;
            emit(s, n, t, ",\"type\":\"RCV\",\"socket_type\":\"TCP\",\"src\":"
                 "\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                 "\"dst_port\":9000,\"size\":%u%s", from + 1, 7000 + n, n + 1,
                 take, l);
            return 1;
        }
    if (!nd->n_inbox)
        return 0;
    int k = (int)below(&s->r, (uint32_t)nd->n_inbox); /* any order: UDP */
    message m = nd->inbox[k];
    nd->inbox[k] = nd->inbox[--nd->n_inbox];
    emit(s, n, t, ",\"type\":\"RCV\",\"socket_type\":\"UDP\",\"message\":\"%u\""
         ",\"src\":\"10.0.0.%d\",\"src_port\":7000,\"dst\":\"10.0.0.%d\","
         "\"dst_port\":9001,\"size\":%u%s", m.id, m.from_node + 1, n + 1,
         m.size, l);
    return 1;
}

static void lock_op(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    int k = (int)below(&s->r, LOCKS);
    if (th->held[k] && chance(&s->r, 60)) {
        emit(s, n, t, ",\"type\":\"UNLOCK\",\"variable\":\"lock%d\"", k);
        if (--th->held[k] == 0)
            nd->lock_owner[k] = -1;
    } else if (nd->lock_owner[k] == -1 || nd->lock_owner[k] == t) {
        emit(s, n, t, ",\"type\":\"LOCK\",\"variable\":\"lock%d\"", k);
        nd->lock_owner[k] = t;
        th->held[k]++;
    }
}

static void fork_thread(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    if (nd->n_threads >= MAX_THREADS || t != 0)
        return;
    int c = nd->n_threads++;
    emit(s, n, t, ",\"type\":\"CREATE\",\"child\":\"t%d@10.0.0.%d\"", c, n + 1);
    nd->th[c] = (thread_sim){.alive = 1, .steps_left = 4 + (int)below(&s->r, 12)};
    for (int k = 0; k < LOCKS; k++)
        nd->th[c].held[k] = 0;
    nd->th[t].children[nd->th[t].n_children++] = c;
}

static void release_all(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    for (int k = 0; k < LOCKS; k++)
        while (nd->th[t].held[k]) {
            emit(s, n, t, ",\"type\":\"UNLOCK\",\"variable\":\"lock%d\"", k);
            if (--nd->th[t].held[k] == 0)
                nd->lock_owner[k] = -1;
        }
}

/* A WAIT consumes a NOTIFY of another thread, as a real wake-up would. */
static void wait_notify(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    int v = (int)below(&s->r, VARS);
    for (int other = 0; other < MAX_THREADS; other++)
        if (other != t && nd->notified[v][other] && chance(&s->r, 50)) {
            emit(s, n, t, ",\"type\":\"WAIT\",\"variable\":\"cond%d\"", v);
            nd->notified[v][other]--;
            return;
        }
    emit(s, n, t, ",\"type\":\"NOTIFY\",\"variable\":\"cond%d\"", v);
    nd->notified[v][t]++;
}

/* One step of thread t of node n; returns 0 when it can do nothing. */
static int step(sim *s, int n, int t)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    if (!th->started) {
        th->started = 1;
        emit(s, n, t, ",\"type\":\"START\"");
        return 1;
    }
    if (th->in_handler) {
        if (th->handler_left-- > 0) {
            if (chance(&s->r, 70))
                access(s, n, t);
            else
                send(s, n, t);
        } else {
            emit(s, n, t, ",\"type\":\"HANDLEREND\"");
            th->in_handler = 0;
        }
        return 1;
    }
    if (th->steps_left-- <= 0) {
        release_all(s, n, t);
        for (int i = 0; i < th->n_children; i++) {
            if (!nd->th[th->children[i]].done)
                return th->steps_left = 0, 1; /* wait for the child */
        }
        for (int i = 0; i < th->n_children; i++)
            emit(s, n, t, ",\"type\":\"JOIN\",\"child\":\"t%d@10.0.0.%d\"",
                 th->children[i], n + 1);
        th->n_children = 0;
        emit(s, n, t, ",\"type\":\"END\"");
        th->done = 1;
        return 1;
    }
    uint32_t pick = below(&s->r, 100);
    if (pick < 35)
        access(s, n, t);
    else if (pick < 50)
        send(s, n, t);
    else if (pick < 70) {
        if (receive(s, n, t) && chance(&s->r, 70)) {
            if (chance(&s->r, 20))
                lock_op(s, n, t); /* a LOCK may stand before HANDLERBEGIN */
            emit(s, n, t, ",\"type\":\"HANDLERBEGIN\"");
            th->in_handler = 1;
            th->handler_left = (int)below(&s->r, 4);
        }
    } else if (pick < 82)
        lock_op(s, n, t);
    else if (pick < 88)
        fork_thread(s, n, t);
    else if (pick < 92)
        wait_notify(s, n, t);
    else
        emit(s, n, t, ",\"type\":\"LOG\"");
    return 1;
}

static void run(sim *s, int steps)
{
    for (int n = 0; n < s->n_nodes; n++) {
        s->node[n].n_threads = 1;
        s->node[n].th[0] = (thread_sim){.alive = 1,
                                        .steps_left = steps / s->n_nodes};
        for (int k = 0; k < LOCKS; k++)
            s->node[n].lock_owner[k] = -1;
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
            return;
        int k = (int)below(&s->r, (uint32_t)n_live);
        step(s, live[k][0], live[k][1]);
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int nodes = 3, steps = 60;
    const char *dir = NULL, *merged = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--nodes"))
            nodes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-o"))
            dir = argv[i + 1];
        else if (!strcmp(argv[i], "--merged"))
            merged = argv[i + 1];
    }
    if ((!dir && !merged) || nodes < 1 || nodes > MAX_NODES || steps < 1) {
        fputs("usage: gen-trace --seed S [--nodes 1-6] [--steps K] "
              "(-o DIR | --merged FILE)\n", stderr);
        return 2;
    }
    static sim s;
    s.r.s = seed * 0x9E3779B97F4A7C15ULL + 1;
    s.n_nodes = nodes;
    if (merged) {
        FILE *f = fopen(merged, "w");
        if (!f)
            return perror(merged), 2;
        for (int n = 0; n < nodes; n++)
            s.out[n] = f;
    } else {
        mkdir(dir, 0777);
        for (int n = 0; n < nodes; n++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/node%d.log", dir, n + 1);
            if (!(s.out[n] = fopen(path, "w")))
                return perror(path), 2;
        }
    }
    run(&s, steps);
    for (int n = 0; n < nodes; n++)
        if (!merged || n == 0)
            fclose(s.out[n]);
    return 0;
}
