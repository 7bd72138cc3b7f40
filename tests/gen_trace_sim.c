/*
 * gen_trace_sim.c — what gen-trace's simulated nodes do (see
 * gen_trace_sim.h; tests/gen_trace.c says why the trace is an observed run).
 */
#include "gen_trace_sim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_trace_out.h"

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
    int k = (int)gen_rng_below(&s->r, (uint32_t)s->pairs);
    int y_first = gen_rng_chance(&s->r, 35);
    int lock = -1;
    if (gen_rng_chance(&s->r, 25)) {
        int n_held = 0;
        for (int l = 0; l < LOCKS; l++)
            n_held += th->held[l] > 0;
        int l = (int)gen_rng_below(&s->r, LOCKS);
        if (!n_held && nd->lock_owner[l] == -1) {
            lock = l;
            emit_lock(s, n, t, l);
        }
    }
    /* --functions: both in one function, a few lines apart */
    char at[2][64];
    if (s->functions) {
        uint32_t fn = gen_rng_below(&s->r, (uint32_t)s->functions);
        uint32_t line = gen_rng_below(&s->r, 400);
        for (int i = 0; i < 2; i++)
            snprintf(at[i], sizeof at[i], ",\"loc\":\"app.f%u.%u\"", fn,
                     line + (uint32_t)i * (1 + gen_rng_below(&s->r, 12)));
    }
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            for (int gap = (int)gen_rng_below(&s->r, 3); gap--;) {
                if (gen_rng_chance(&s->r, 60))
                    gen_out_emit(s, n, t, LOG, "%s", "");
                else
                    gen_out_emit(s, n, t, gen_rng_chance(&s->r, 50) ? W : R,
                                 ",\"variable\":\"%s\"",
                                 gen_out_name(s, n, NAME_VAR,
                                              (int)gen_rng_below(&s->r, VARS)));
            }
        s->force_loc = s->functions ? at[i] : NULL;
        gen_out_emit(s, n, t, gen_rng_chance(&s->r, 50) ? W : R,
                     ",\"variable\":\"%c%d\"", (i == 0) != y_first ? 'x' : 'y', k);
        s->force_loc = NULL;
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
        struct recent *r = &th->recent[gen_rng_below(&s->r, (uint32_t)th->n_recent)];
        s->force_loc = r->loc;
        gen_out_emit(s, n, t, r->type, ",\"variable\":\"%s\"",
                     gen_out_name(s, n, NAME_VAR, r->var));
        s->force_loc = NULL;
        return;
    }
    int type = gen_rng_chance(&s->r, 50) ? W : R,
        var = (int)gen_rng_below(&s->r, VARS);
    gen_out_emit(s, n, t, type, ",\"variable\":\"%s\"",
                 gen_out_name(s, n, NAME_VAR, var));
    struct recent *r =
        &th->recent[th->n_recent < RECENT ? th->n_recent++
                                          : (int)gen_rng_below(&s->r, RECENT)];
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

static const char *quote(sim *s) { return gen_rng_chance(&s->r, 50) ? "\"" : ""; }

static void deliver(sim *s, int to, message m)
{
    node_sim *dst = &s->node[to];
    dst->inbox = grow(dst->inbox, &dst->cap_inbox, dst->n_inbox + 1,
                      sizeof *dst->inbox);
    dst->inbox[dst->n_inbox++] = m;
}

static void send(sim *s, int n, int t)
{
    int to = (int)gen_rng_below(&s->r, (uint32_t)s->n_nodes);
    uint32_t size = 1 + gen_rng_below(&s->r, 20);
    if (KNOB(s, TCP)) {
        HIT(s, TCP);
        if (KNOB(s, TCP_IDS)) { /* TCP with ids: its own connection, in order */
            HIT(s, TCP_IDS);
            uint32_t id = new_id(s, n, to, 0);
            const char *q = quote(s);
            gen_out_emit(s, n, t, SND, ",\"socket_type\":\"TCP\",\"message\":%s%u%s,"
                         "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                         "\"dst_port\":9002,\"size\":%u", q, id, q, n + 1, 8000 + to,
                         to + 1, size);
            deliver(s, to, (message){TCP_ID, n, id, size});
            return;
        }
        /* one to three writes in a row, as a message written in parts */
        for (int burst = 1 + (int)gen_rng_below(&s->r, 3); burst--;
             size = 1 + gen_rng_below(&s->r, 20)) {
            gen_out_emit(s, n, t, SND, ",\"socket_type\":\"TCP\",\"src\":"
                         "\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                         "\"dst_port\":9000,\"size\":%u", n + 1, 7000 + to, to + 1,
                         size);
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
        uint32_t k = gen_rng_below(&s->r, s->next_msg);
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
    gen_out_emit(s, n, t, SND, ",\"socket_type\":\"UDP\",\"message\":%s%u%s"
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
    gen_out_emit(s, n, t, RCV, ",\"socket_type\":\"UDP\",\"message\":%s%u%s"
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
        take = head + 1 + gen_rng_below(&s->r, rest);
    else if (head > 1 && KNOB(s, TCP_SPLIT))
        take = 1 + gen_rng_below(&s->r, head - 1);
    gen_out_emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"src\":"
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
        uint32_t size = 1 + gen_rng_below(&s->r, 20);
        if (gen_rng_chance(&s->r, 50)) /* an id nothing in the trace sends */
            udp_rcv(s, n, t, 1000000 * (uint32_t)(n + 1) + nd->orphans++, 8, size);
        else /* a byte stream from an untraced host */
            gen_out_emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"src\":\"10.0.9.9\","
                         "\"src_port\":6000,\"dst\":\"10.0.0.%d\",\"dst_port\":9000,"
                         "\"size\":%u", n + 1, size);
        nd->th[t].unhandled++;
        return 1;
    }
    int first = (int)gen_rng_below(&s->r, (uint32_t)s->n_nodes);
    for (int i = 0; i < s->n_nodes; i++) {
        int from = (first + i) % s->n_nodes;
        channel *c = &nd->tcp_in[from];
        if (c->head < c->n && gen_rng_chance(&s->r, 70)) {
            tcp_rcv(s, n, t, from);
            nd->th[t].unhandled++;
            return 1;
        }
    }
    if (!nd->n_inbox)
        return 0;
    size_t k = gen_rng_below(&s->r, (uint32_t)nd->n_inbox); /* any order: UDP */
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
        gen_out_emit(s, n, t, RCV, ",\"socket_type\":\"TCP\",\"message\":%s%u%s,"
                     "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                     "\"dst_port\":9002,\"size\":%u", q, m.id, q, m.from_node + 1,
                     8000 + n, n + 1, m.size);
    } else {
        udp_rcv(s, n, t, m.id, m.from_node, m.size);
    }
    nd->th[t].unhandled++;
    return 1;
}

/* A LOCK or UNLOCK of lock k (a LOG with --no-locks). */
static void emit_lock_event(sim *s, int n, int t, int kind, int k)
{
    if (s->no_locks)
        gen_out_emit(s, n, t, LOG, "%s", "");
    else
        gen_out_emit(s, n, t, kind, ",\"variable\":\"%s\"",
                     gen_out_name(s, n, NAME_LOCK, k));
}

static void emit_lock(sim *s, int n, int t, int k)
{
    node_sim *nd = &s->node[n];
    thread_sim *th = &nd->th[t];
    emit_lock_event(s, n, t, LOCK, k);
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
    emit_lock_event(s, n, t, UNLOCK, k);
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
        emit_lock(s, n, t, held[gen_rng_below(&s->r, (uint32_t)n_held)]);
        return;
    }
    int k = (int)gen_rng_below(&s->r, LOCKS);
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
    gen_out_emit(s, n, t, CREATE, ",\"child\":\"t%d@10.0.0.%d\"", c, n + 1);
    nd->th[c] = (thread_sim){.steps_left = 4 + (int)gen_rng_below(&s->r, 12),
                             .wait_on = -1};
    if (KNOB(s, UNSTARTED_THREADS)) { /* it never runs */
        HIT(s, UNSTARTED_THREADS);
        nd->th[c].done = 1;
        th->joined_child[th->n_children] = gen_rng_chance(&s->r, 75);
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
    size_t first = gen_rng_chance(&s->r, 75) ? nt - 1
                                             : gen_rng_below(&s->r, (uint32_t)nt);
    for (size_t i = 0; i < nt; i++) {
        token *k = &nd->tokens[v][(first + nt - i) % nt];
        if (k->thread == t || !k->wakes)
            continue;
        gen_out_emit(s, n, t, WAIT, ",\"variable\":\"%s\"",
                     gen_out_name(s, n, NAME_COND, v));
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
        gen_out_emit(s, n, t, WAIT, ",\"variable\":\"%s\"",
                     gen_out_name(s, n, NAME_COND, QUIET_COND));
        return;
    }
    int v = (int)gen_rng_below(&s->r, QUIET_COND);
    if (gen_rng_chance(&s->r, 65)) {
        if (!try_wake(s, n, t, v)) {
            th->wait_on = v;
            th->patience = 20 + (int)gen_rng_below(&s->r, 40);
        }
        return;
    }
    for (int o = 0; o < nd->n_threads; o++)
        if (o != t && nd->th[o].wait_on >= 0 && !nd->th[o].done)
            v = nd->th[o].wait_on;
    int all = KNOB(s, NOTIFY_ALL);
    gen_out_emit(s, n, t, all ? NOTIFYALL : NOTIFY, ",\"variable\":\"%s\"",
                 gen_out_name(s, n, NAME_COND, v));
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
            else if (ot->wait_on < 0 && gen_rng_chance(&s->r, 60)) {
                ot->wait_on = v;
                ot->patience = 20 + (int)gen_rng_below(&s->r, 40);
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
    gen_out_emit(s, n, t, HANDLERBEGIN, "%s", "");
    th->handler_left[th->depth++] = 1 + (int)gen_rng_below(&s->r, 6);
}

/* A received message may get a handler, with now and then a LOCK or LOG
 * between the RCV and the HANDLERBEGIN. */
static void receive_and_handle(sim *s, int n, int t, int handle_percent)
{
    if (!receive(s, n, t) || !gen_rng_chance(&s->r, handle_percent))
        return;
    if (KNOB(s, HANDLER_GAPS)) {
        HIT(s, HANDLER_GAPS);
        int k = (int)gen_rng_below(&s->r, LOCKS);
        node_sim *nd = &s->node[n];
        if (gen_rng_chance(&s->r, 60) &&
            (nd->lock_owner[k] == -1 || nd->lock_owner[k] == t))
            emit_lock(s, n, t, k);
        else
            gen_out_emit(s, n, t, LOG, "%s", "");
    }
    open_handler(s, n, t);
}

static void socket_event(sim *s, int n, int t)
{
    static const int kinds[] = {CONNECT, ACCEPT, CLOSE, SHUTDOWN};
    int peer = (int)gen_rng_below(&s->r, (uint32_t)s->n_nodes);
    HIT(s, SOCKET_EVENTS);
    gen_out_emit(s, n, t, kinds[gen_rng_below(&s->r, 4)], ",\"socket_type\":\"TCP\","
                 "\"src\":\"10.0.0.%d\",\"src_port\":%d,\"dst\":\"10.0.0.%d\","
                 "\"dst_port\":9000", n + 1, 7000 + peer, peer + 1);
}

static void stray_end(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    int k = (int)gen_rng_below(&s->r, LOCKS);
    if (!th->held[k]) {
        HIT(s, STRAY_ENDS);
        emit_lock_event(s, n, t, UNLOCK, k);
    } else if (!th->depth) {
        HIT(s, STRAY_ENDS);
        gen_out_emit(s, n, t, HANDLEREND, "%s", "");
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
            int k = (int)gen_rng_below(&s->r, LOCKS);
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
            gen_out_emit(s, n, t, JOIN, ",\"child\":\"t%d@10.0.0.%d\"", th->children[i],
                         n + 1);
    th->n_children = 0;
    gen_out_emit(s, n, t, END, "%s", "");
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
        else if (gen_rng_chance(&s->r, 75))
            access(s, n, t);
        else
            send(s, n, t);
    } else if (th->steps_left <= 2 && KNOB(s, OPEN_HANDLERS)) {
        th->ending = 1;         /* the thread ends inside its handler */
        finish(s, n, t);
    } else {
        gen_out_emit(s, n, t, HANDLEREND, "%s", "");
        th->depth--;
    }
}

/* One step of thread t of node n. */
static void step(sim *s, int n, int t)
{
    thread_sim *th = &s->node[n].th[t];
    if (!th->started) {
        th->started = 1;
        gen_out_emit(s, n, t, START, "%s", "");
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
    uint32_t pick = gen_rng_below(&s->r, 100);
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
        gen_out_emit(s, n, t, LOG, "%s", "");
}

void gen_sim_run(sim *s, int steps)
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
        int k = (int)gen_rng_below(&s->r, (uint32_t)n_live);
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
