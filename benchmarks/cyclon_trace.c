/*
 * cyclon_trace.c — traces of the Cyclon peer-sampling protocol (thesis
 * §5.1.2), shaped like the Minha traces of Cyclon: one Falcon file per node.
 *
 *   cyclon-trace --nodes N --cycles C [--seed S] [--correlated] -o DIR
 *
 * A discrete-event simulation.  Each node has a main thread that, once per
 * cycle, reads its view (selectPeersToShuffle) and sends a shuffle request
 * to a random peer; and a passive thread that handles each arriving message
 * inside the node's lock: a request is answered (read the view, write the
 * view, send the response), a response is merged (write the view).  About
 * 16 events per node per cycle.  Latencies are random, so a node's own
 * shuffle is sometimes overtaken by another node's request: the view is
 * updated by a second shuffle while the first is in flight — the
 * atomicity violation of the thesis.  The generator counts those on
 * standard error.  The same seed gives the same bytes.
 *
 * --correlated: each node also keeps its view's size next to its view
 * (variable CyclonActive.viewSize): every write of the view is followed by
 * a write of the size, every read of the view by a read of the size, so
 * that the two are correlated variables (SPEC §4, gap 1) and an update
 * that overtakes a shuffle is a multi-variable atomicity violation.
 * Without it the output is what it always was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { PERIOD = 1000, MAX_LATENCY = 900 };

typedef struct rng { uint64_t s; } rng;

static uint32_t below(rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)((r->s >> 11) % n);
}

/* One line of output, kept until the node's file is written in time order. */
typedef struct out_event {
    int64_t time;
    uint64_t seq;          /* creation order breaks ties */
    char *text;
} out_event;

typedef struct node {
    out_event *ev;
    size_t n, cap;
    int64_t passive_free;  /* when the passive thread is idle again */
    int in_flight;         /* own shuffle sent, response not yet merged */
    int overtaken;         /* the view changed while it was in flight */
} node;

/* Pending simulation steps: main-thread cycles and message arrivals. */
typedef struct step {
    int64_t time;
    uint64_t seq;
    int kind;              /* 0: cycle of `node`; 1: message arrives */
    int node, from, response;
    uint32_t msg, size;
} step;

typedef struct sim {
    rng r;
    int n_nodes, cycles;
    node *nodes;
    step *heap;
    size_t heap_n, heap_cap;
    uint64_t seq;
    uint32_t next_msg;
    long violations;
    int correlated;        /* --correlated: viewSize next to view */
} sim;

static int step_less(const step *a, const step *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void push(sim *s, step st)
{
    if (s->heap_n == s->heap_cap) {
        s->heap_cap = s->heap_cap ? 2 * s->heap_cap : 1024;
        s->heap = realloc(s->heap, s->heap_cap * sizeof *s->heap);
    }
    st.seq = s->seq++;
    size_t i = s->heap_n++;
    while (i && step_less(&st, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = st;
}

static step pop(sim *s)
{
    step top = s->heap[0], last = s->heap[--s->heap_n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && step_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!step_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = last;
    return top;
}

static void addr(int node, char *buf, size_t len)
{
    snprintf(buf, len, "10.0.%d.%d", node / 250, node % 250 + 1);
}

static void emit(sim *s, int n, int64_t time, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void emit(sim *s, int n, int64_t time, const char *fmt, ...)
{
    node *nd = &s->nodes[n];
    if (nd->n == nd->cap) {
        nd->cap = nd->cap ? 2 * nd->cap : 64;
        nd->ev = realloc(nd->ev, nd->cap * sizeof *nd->ev);
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char line[700];
    snprintf(line, sizeof line, "%s,\"timestamp\":%lld}", buf,
             (long long)(1600000000000LL + time));
    nd->ev[nd->n++] = (out_event){time, s->seq++, strdup(line)};
}

#define MAIN "\"thread\":\"main@%s\""
#define PASSIVE "\"thread\":\"CyclonPassive@%s\""
#define VIEW "\"variable\":\"CyclonActive.view\""
#define SIZE "\"variable\":\"CyclonActive.viewSize\""

/* With --correlated, the access to the view's size that follows an access
 * to the view (same thread, same time: it sorts right after it). */
static void emit_size(sim *s, int n, int64_t t, const char *thread,
                      const char *loc, int write)
{
    char a[32];
    if (!s->correlated)
        return;
    addr(n, a, sizeof a);
    emit(s, n, t, "{\"loc\":\"cyclon.CyclonActive.%s\",\"thread\":\"%s@%s\","
         SIZE ",\"type\":\"%s\"", loc, thread, a, write ? "W" : "R");
}

static void send(sim *s, int from, int to, int64_t t, int on_passive,
                 int response)
{
    char a[32], b[32];
    addr(from, a, sizeof a);
    addr(to, b, sizeof b);
    uint32_t msg = s->next_msg++, size = response ? 96 : 118;
    emit(s, from, t, "{\"loc\":\"cyclon.CyclonActive.%s\",\"thread\":\"%s@%s\","
         "\"type\":\"SND\",\"src\":\"%s\",\"src_port\":10000,\"dst\":\"%s\","
         "\"dst_port\":10001,\"socket_type\":\"UDP\",\"size\":%u,"
         "\"message\":\"%u\"",
         response ? "processRequest.352" : "startShuffle.262",
         on_passive ? "CyclonPassive" : "main", a, a, b, size, msg);
    push(s, (step){.time = t + 1 + below(&s->r, MAX_LATENCY), .kind = 1,
                   .node = to, .from = from, .response = response, .msg = msg,
                   .size = size});
}

static void main_cycle(sim *s, const step *st)
{
    char a[32];
    addr(st->node, a, sizeof a);
    int64_t t = st->time;
    emit(s, st->node, t, "{\"loc\":\"cyclon.CyclonActive.selectPeersToShuffle.249\","
         MAIN "," VIEW ",\"type\":\"R\"", a);
    emit_size(s, st->node, t, "main", "selectPeersToShuffle.250", 0);
    int peer = (st->node + 1 + (int)below(&s->r, (uint32_t)s->n_nodes - 1)) %
               s->n_nodes;
    send(s, st->node, peer, t + 1, 0, 0);
    node *nd = &s->nodes[st->node];
    nd->in_flight = 1;
    nd->overtaken = 0;
}

/* The passive thread handles one message inside the node's lock. */
static void arrive(sim *s, const step *st)
{
    node *nd = &s->nodes[st->node];
    char a[32], src[32];
    addr(st->node, a, sizeof a);
    addr(st->from, src, sizeof src);
    int64_t t = st->time > nd->passive_free ? st->time : nd->passive_free;
    emit(s, st->node, t, "{" PASSIVE ",\"type\":\"RCV\",\"src\":\"%s\","
         "\"src_port\":10000,\"dst\":\"%s\",\"dst_port\":10001,\"socket_type\":"
         "\"UDP\",\"size\":%u,\"message\":\"%u\"", a, src, a, st->size, st->msg);
    emit(s, st->node, t + 1, "{\"loc\":\"cyclon.CyclonActive.processMessage.317\","
         PASSIVE ",\"variable\":\"CyclonActive.lock\",\"type\":\"LOCK\"", a);
    emit(s, st->node, t + 2, "{\"loc\":\"cyclon.CyclonActive.processMessage.%d\","
         PASSIVE ",\"type\":\"HANDLERBEGIN\"", st->response ? 331 : 345, a);
    if (st->response) {
        emit(s, st->node, t + 3, "{\"loc\":\"cyclon.CyclonActive.insertReceivedToView.198\","
             PASSIVE "," VIEW ",\"type\":\"W\"", a);
        emit_size(s, st->node, t + 3, "CyclonPassive", "insertReceivedToView.199", 1);
        if (nd->in_flight && nd->overtaken)
            s->violations++;
        nd->in_flight = 0;
    } else {
        emit(s, st->node, t + 3, "{\"loc\":\"cyclon.CyclonActive.selectPeersToShuffle.249\","
             PASSIVE "," VIEW ",\"type\":\"R\"", a);
        emit_size(s, st->node, t + 3, "CyclonPassive", "selectPeersToShuffle.250", 0);
        emit(s, st->node, t + 4, "{\"loc\":\"cyclon.CyclonActive.insertReceivedToView.198\","
             PASSIVE "," VIEW ",\"type\":\"W\"", a);
        emit_size(s, st->node, t + 4, "CyclonPassive", "insertReceivedToView.199", 1);
        if (nd->in_flight)
            nd->overtaken = 1;
        send(s, st->node, st->from, t + 5, 1, 1);
    }
    emit(s, st->node, t + 6, "{\"loc\":\"cyclon.CyclonActive.processMessage.%d\","
         PASSIVE ",\"type\":\"HANDLEREND\"", st->response ? 333 : 360, a);
    emit(s, st->node, t + 7, "{\"loc\":\"cyclon.CyclonActive.processMessage.362\","
         PASSIVE ",\"variable\":\"CyclonActive.lock\",\"type\":\"UNLOCK\"", a);
    nd->passive_free = t + 8;
}

static int cmp_out(const void *x, const void *y)
{
    const out_event *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void start_nodes(sim *s)
{
    for (int n = 0; n < s->n_nodes; n++) {
        char a[32];
        addr(n, a, sizeof a);
        emit(s, n, 0, "{\"loc\":\"cyclon.CyclonActive.initWithData.73\"," MAIN
             "," VIEW ",\"type\":\"W\"", a);
        emit_size(s, n, 0, "main", "initWithData.74", 1);
        emit(s, n, 1, "{" MAIN ",\"type\":\"CREATE\",\"child\":"
             "\"CyclonPassive@%s\"", a, a);
        emit(s, n, 2, "{" PASSIVE ",\"type\":\"START\"", a);
        for (int c = 0; c < s->cycles; c++)
            push(s, (step){.time = (int64_t)(c + 1) * PERIOD +
                                   below(&s->r, PERIOD / 2),
                           .kind = 0, .node = n});
    }
}

static int write_nodes(sim *s, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        perror(dir);
        return -1;
    }
    for (int n = 0; n < s->n_nodes; n++) {
        node *nd = &s->nodes[n];
        char a[32], path[4096];
        addr(n, a, sizeof a);
        int64_t end = nd->passive_free + PERIOD;
        emit(s, n, end, "{" PASSIVE ",\"type\":\"END\"", a);
        emit(s, n, end + 1, "{" MAIN ",\"type\":\"END\"", a);
        qsort(nd->ev, nd->n, sizeof *nd->ev, cmp_out);
        snprintf(path, sizeof path, "%s/node%03d.log", dir, n + 1);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return -1;
        }
        for (size_t i = 0; i < nd->n; i++) {
            fputs(nd->ev[i].text, f);
            fputc('\n', f);
            free(nd->ev[i].text);
        }
        if (fclose(f) != 0) {
            perror(path);
            return -1;
        }
        free(nd->ev);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long nodes = 0, cycles = 0;
    unsigned long long seed = 1;
    const char *dir = NULL;
    int correlated = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--correlated"))
            correlated = 1;
        else if (!strcmp(argv[i], "--nodes") && v)
            nodes = atol(v), i++;
        else if (!strcmp(argv[i], "--cycles") && v)
            cycles = atol(v), i++;
        else if (!strcmp(argv[i], "--seed") && v)
            seed = strtoull(v, NULL, 10), i++;
        else if (!strcmp(argv[i], "-o") && v)
            dir = v, i++;
        else {
            nodes = 0;
            break;
        }
    }
    if (nodes < 2 || nodes > 60000 || cycles < 1 || cycles > 100000 || !dir) {
        fputs("usage: cyclon-trace --nodes N --cycles C [--seed S] [--correlated] -o DIR\n"
              "  N >= 2 nodes, C >= 1 shuffle cycles; writes DIR/nodeNNN.log\n"
              "  --correlated: each node also writes and reads its view's size\n"
              "  (CyclonActive.viewSize) right after its view\n",
              stderr);
        return 2;
    }
    sim s = {.r = {seed * 0x9E3779B97F4A7C15ULL + 7}, .n_nodes = (int)nodes,
             .cycles = (int)cycles, .correlated = correlated};
    s.nodes = calloc((size_t)nodes, sizeof *s.nodes);
    start_nodes(&s);
    while (s.heap_n) {
        step st = pop(&s);
        if (st.kind == 0)
            main_cycle(&s, &st);
        else
            arrive(&s, &st);
    }
    size_t events = 0;
    for (int n = 0; n < s.n_nodes; n++)
        events += s.nodes[n].n + 2;
    if (write_nodes(&s, dir) != 0)
        return 2;
    fprintf(stderr, "cyclon-trace: %ld nodes, %ld cycles, %zu events; %ld "
            "shuffles had the view updated by another shuffle while in "
            "flight\n", nodes, cycles, events, s.violations);
    free(s.nodes);
    free(s.heap);
    return 0;
}
