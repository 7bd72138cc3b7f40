/*
 * gen_trace_locks.c — gen-trace's lock-heavy shape (`--shape=locks`): the
 * traces real Java servers write, where a monitor guards almost every
 * shared field.
 *
 * Per node, a main thread forks T workers; then a random worker steps at a
 * time.  About 30% of the steps are LOCK or UNLOCK of L locks (nested up to
 * three deep, re-entrant now and then), a few are WAIT/NOTIFY, the rest R
 * or W of V variables, under whatever is held.  Imperfections of real runs:
 * a section left by an exception has no UNLOCK (the lock is free again in
 * the run, and other threads take it later: the LOCK is never released in
 * the trace, in the middle of its lock's order), and the run stops with
 * threads inside sections.  With several nodes, workers send messages
 * (with ids) to other nodes' workers, and with --handoffs they hand them
 * to other workers of their node, as a queue does.
 *
 * As in gen_trace.c, the trace is an observed run: a WAIT follows a NOTIFY
 * of another thread no other WAIT consumed.  One section a node is cut at
 * most: Φ holds a LOCK never released to the end, so two of one lock in
 * different threads are a contradiction, and two of different locks
 * each force the other thread's later sections before them, which soon
 * closes a cycle; and only in the last half of the run and its last
 * CUT_WINDOW events, since every section of the lock after it must be
 * placed before it, with all that precedes them, and the WAITs of those
 * threads want NOTIFYs the cut thread sends later (with the cut anywhere
 * in the last tenth of 100,000 events, neither the scheduler nor Z3
 * found a run on any of three seeds); and only on
 * one node: with messages, a reply that reached another thread after the
 * cut orders that thread's later sections after it, a contradiction.
 * One cut can still make
 * Φ unsatisfiable (the other threads' later sections of the lock must be
 * placed before it, and something may force them after): spider then
 * reports the trace inconsistent, as it must.
 */
#include "gen_trace_locks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_HELD = 3, CONDS = 2 };
/* A cut comes in the last half of the run, and in its last CUT_WINDOW
 * events: see the top of the file. */
enum { CUT_WINDOW = 300 };

typedef struct worker {
    int held[MAX_HELD];          /* locks, outermost first */
    int depth;
    int reentered[MAX_HELD];     /* extra LOCKs of held[i] */
    int waiting;                 /* on a condition: -1 not */
} worker;

typedef struct lock_run {
    uint64_t rng;
    const gen_locks_options *o;
    FILE **out;                  /* per node (or one file, shared) */
    int **owner;                 /* [node][lock]: worker, -1 free */
    int **cut_by;                /* [node][lock]: worker + 1 whose section of
                                    it an exception left, 0 none */
    worker **w;                  /* [node][worker] */
    long *tokens;                /* [(node * CONDS + cond) * threads + thread]:
                                    its NOTIFYs no WAIT consumed */
    long events;
    long msg;
    long hits[GEN_LOCKS_HITS];
} lock_run;

static uint32_t rnd(lock_run *r)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return (uint32_t)(r->rng >> 11);
}

static int percent(lock_run *r, int p)
{
    return (int)(rnd(r) % 1000) < p * 10;
}

static void out(lock_run *r, int node, int thread, const char *type,
                const char *fields)
{
    fprintf(r->out[node], "{\"thread\":\"%s%d@n%d\",\"type\":\"%s\"%s}\n",
            thread < 0 ? "main" : "w", thread < 0 ? 0 : thread, node + 1, type,
            fields);
    r->events++;
}

static void event_on(lock_run *r, int node, int t, const char *type,
                     const char *what, int k, const char *site)
{
    char f[160];
    snprintf(f, sizeof f, ",\"variable\":\"%s%d\",\"loc\":\"%s.%s%d.%u\"",
             what, k, site, what, k, rnd(r) % 4);
    out(r, node, t, type, f);
}

/* Whether an exception cut a section of node n. */
static int node_cut(const lock_run *r, int n)
{
    for (int i = 0; i < r->o->locks; i++)
        if (r->cut_by[n][i])
            return 1;
    return 0;
}

static void lock_step(lock_run *r, int n, int t)
{
    worker *w = &r->w[n][t];
    int leave = w->depth && (w->depth == MAX_HELD || rnd(r) % 2);
    if (!leave) {
        if (w->depth && percent(r, 10)) { /* re-entrant */
            event_on(r, n, t, "LOCK", "lock", w->held[w->depth - 1], "Sync");
            w->reentered[w->depth - 1]++;
            r->hits[GEN_LOCKS_REENTRANT]++;
            return;
        }
        int k = (int)(rnd(r) % (uint32_t)r->o->locks);
        if (r->owner[n][k] != -1)
            return; /* taken: the thread would block; another steps */
        r->owner[n][k] = t;
        w->held[w->depth++] = k;
        if (w->depth > 1)
            r->hits[GEN_LOCKS_NESTED]++;
        event_on(r, n, t, "LOCK", "lock", k, "Sync");
        return;
    }
    int k = w->held[w->depth - 1];
    if (w->reentered[w->depth - 1]) {
        w->reentered[w->depth - 1]--;
        event_on(r, n, t, "UNLOCK", "lock", k, "Sync");
        return;
    }
    w->depth--;
    r->owner[n][k] = -1;
    int *cut = &r->cut_by[n][k];
    long window = r->o->events / 2 < CUT_WINDOW ? r->o->events / 2 : CUT_WINDOW;
    if (!node_cut(r, n) && r->o->nodes == 1 && r->events > r->o->events - window &&
        percent(r, r->o->cut_percent)) {
        *cut = t + 1; /* an exception left it: no UNLOCK */
        r->hits[GEN_LOCKS_CUT]++;
        return;
    }
    event_on(r, n, t, "UNLOCK", "lock", k, "Sync");
}

static long *tokens(lock_run *r, int n, int c, int t)
{
    return &r->tokens[((size_t)n * CONDS + (size_t)c) * (size_t)r->o->threads +
                      (size_t)t];
}

/* A NOTIFY, or a WAIT woken by a NOTIFY of another thread that no WAIT
 * consumed: it comes at the thread's next step. */
static void wait_notify_step(lock_run *r, int n, int t)
{
    int c = (int)(rnd(r) % CONDS);
    if (rnd(r) % 2) {
        event_on(r, n, t, "NOTIFY", "cond", c, "Cond");
        ++*tokens(r, n, c, t);
        return;
    }
    for (int u = 0; u < r->o->threads; u++)
        if (u != t && *tokens(r, n, c, u) > 0) {
            --*tokens(r, n, c, u);
            r->w[n][t].waiting = c;
            return;
        }
}

/* A message to a worker of another node, or (--handoffs) a hand-off to
 * another worker of this node (a queue's put and take, as the Java agent
 * writes them: a SND and its RCV), whatever either holds.  No hand-off
 * after a cut on the node: it could order a later section of the cut
 * lock after the LOCK that Φ holds to the end.  Without hand-offs the
 * random draws are those of the shape before them (RESULTS.md). */
static void message_step(lock_run *r, int n, int t)
{
    char f[160];
    int local = r->o->handoff_percent > 0 && r->o->threads > 1 &&
                !node_cut(r, n) &&
                (r->o->nodes == 1 || percent(r, r->o->handoff_percent));
    int to = n, tt;
    if (!local) {
        if (r->o->nodes == 1)
            return;
        to = (int)(rnd(r) % (uint32_t)(r->o->nodes - 1));
        to += to >= n;
        tt = (int)(rnd(r) % (uint32_t)r->o->threads);
    } else {
        tt = (int)(rnd(r) % (uint32_t)(r->o->threads - 1));
        tt += tt >= t;
    }
    long id = r->msg++;
    snprintf(f, sizeof f, ",\"message\":%ld,\"src\":\"n%d\",\"dst\":\"n%d\","
             "\"loc\":\"Net.send.%u\"", id, n + 1, to + 1, rnd(r) % 4);
    out(r, n, t, "SND", f);
    snprintf(f, sizeof f, ",\"message\":%ld,\"src\":\"n%d\",\"dst\":\"n%d\","
             "\"loc\":\"Net.recv.1\"", id, n + 1, to + 1);
    out(r, to, tt, "RCV", f);
    r->hits[GEN_LOCKS_MESSAGES]++;
}

static void step(lock_run *r, int n, int t)
{
    worker *w = &r->w[n][t];
    if (w->waiting >= 0) {
        event_on(r, n, t, "WAIT", "cond", w->waiting, "Cond");
        w->waiting = -1;
        r->hits[GEN_LOCKS_WAITS]++;
        return;
    }
    uint32_t pick = rnd(r) % 100;
    if (pick < 30)
        lock_step(r, n, t);
    else if (pick < 33)
        wait_notify_step(r, n, t);
    else if (pick < 38 && (r->o->nodes > 1 || r->o->handoff_percent > 0))
        message_step(r, n, t);
    else
        event_on(r, n, t, rnd(r) % 2 ? "R" : "W", "v",
                 (int)(rnd(r) % (uint32_t)r->o->vars), "Obj");
}

static void start(lock_run *r)
{
    for (int n = 0; n < r->o->nodes; n++) {
        for (int k = 0; k < r->o->locks; k++)
            r->owner[n][k] = -1;
        out(r, n, -1, "START", "");
        for (int t = 0; t < r->o->threads; t++) {
            char f[64];
            snprintf(f, sizeof f, ",\"child\":\"w%d@n%d\"", t, n + 1);
            out(r, n, -1, "CREATE", f);
            r->w[n][t].waiting = -1;
        }
        for (int t = 0; t < r->o->threads; t++)
            out(r, n, t, "START", "");
    }
}

/* The run stops with threads inside sections, but not inside one of a
 * lock whose section another thread's exception cut: two LOCKs never
 * released in different threads would contradict each other in Φ.  Such
 * a thread leaves its sections first. */
static void leave_cut_locks(lock_run *r, int n, int t)
{
    worker *w = &r->w[n][t];
    int must = 0;
    for (int i = 0; i < w->depth; i++)
        must |= r->cut_by[n][w->held[i]] && r->cut_by[n][w->held[i]] != t + 1;
    for (; must && w->depth; w->depth--) {
        int k = w->held[w->depth - 1];
        for (; w->reentered[w->depth - 1]; w->reentered[w->depth - 1]--)
            event_on(r, n, t, "UNLOCK", "lock", k, "Sync");
        event_on(r, n, t, "UNLOCK", "lock", k, "Sync");
        r->owner[n][k] = -1;
    }
}

static void run(lock_run *r)
{
    long target = r->o->events;
    while (r->events < target) {
        int n = (int)(rnd(r) % (uint32_t)r->o->nodes);
        int t = (int)(rnd(r) % (uint32_t)r->o->threads);
        step(r, n, t);
    }
    for (int n = 0; n < r->o->nodes; n++)
        for (int t = 0; t < r->o->threads; t++) {
            leave_cut_locks(r, n, t);
            r->hits[GEN_LOCKS_OPEN_AT_END] += r->w[n][t].depth;
        }
}

int gen_locks(const gen_locks_options *o, long hits[GEN_LOCKS_HITS])
{
    lock_run r = {.o = o, .rng = o->seed * 0x9E3779B97F4A7C15ULL + 1};
    r.out = calloc((size_t)o->nodes, sizeof *r.out);
    r.owner = calloc((size_t)o->nodes, sizeof *r.owner);
    r.cut_by = calloc((size_t)o->nodes, sizeof *r.cut_by);
    r.w = calloc((size_t)o->nodes, sizeof *r.w);
    r.tokens = calloc((size_t)o->nodes * CONDS * (size_t)o->threads,
                      sizeof *r.tokens);
    if (!r.out || !r.owner || !r.cut_by || !r.w || !r.tokens)
        return perror("gen-trace"), 2;
    for (int n = 0; n < o->nodes; n++) {
        r.owner[n] = calloc((size_t)o->locks, sizeof **r.owner);
        r.cut_by[n] = calloc((size_t)o->locks, sizeof **r.cut_by);
        r.w[n] = calloc((size_t)o->threads, sizeof **r.w);
        if (!r.owner[n] || !r.cut_by[n] || !r.w[n])
            return perror("gen-trace"), 2;
        char path[4096];
        if (o->merged)
            snprintf(path, sizeof path, "%s", o->merged);
        else {
            mkdir(o->dir, 0777);
            snprintf(path, sizeof path, "%s/node%d.log", o->dir, n + 1);
        }
        if (o->merged && n > 0)
            r.out[n] = r.out[0];
        else if (!(r.out[n] = fopen(path, "w")))
            return perror(path), 2;
    }
    start(&r);
    run(&r);
    int rc = 0;
    for (int n = 0; n < o->nodes; n++) {
        if (!(o->merged && n > 0) && fclose(r.out[n]))
            rc = (perror("gen-trace"), 2);
        free(r.owner[n]);
        free(r.cut_by[n]);
        free(r.w[n]);
    }
    free(r.out);
    free(r.owner);
    free(r.cut_by);
    free(r.w);
    free(r.tokens);
    memcpy(hits, r.hits, sizeof r.hits);
    return rc;
}
